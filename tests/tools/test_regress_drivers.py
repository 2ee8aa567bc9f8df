"""The regression drivers' bookkeeping on stand-ins for the simulators, so it runs in seconds:
scripts/regress_alu.py (make regress-alu) against a fake test_rtl_alu_regress, and the progress
lines and resumption of tests/regress/conftest.py (make regress*) against a fake fabric.
python3 -m pytest tests/tools -q."""
import json
import os
import pathlib
import re
import subprocess
import sys

REPO = pathlib.Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO / "scripts"))
from progress import Progress, duration, rate_text  # noqa: E402

# A gtest binary's output for each slice; XF_REGRESS_B=FAIL_B (when set) fails.
FAKE_ALU = '''#!{py}
import os, sys
filt = sys.argv[-1]
if filt.endswith("DISABLED_Configs"):
    for n in ("fp16 sum", "int16 avg shift 1 scale 0xAAAAAAAA"):
        print("[   CONFIG ] " + n)
    print("[  PASSED  ] 1 test.")
    sys.exit(0)
b = os.environ.get("XF_REGRESS_B", "")
if b and b == os.environ.get("FAIL_B"):
    print("flit 3: lane 1: a 0x0001 b 0x0002 expected 0x0003 seen 0x0004")
    print("[  FAILED  ] 1 test")
    sys.exit(1)
print("[  VECTORS ] RtlAluRegress." + filt.split(".")[-1] + ": 8 lane pairs")
print("[  PASSED  ] 1 test.")
'''

# `fabric run ... --no-header`: one result row (column 8: cycles, column 12: wrong elements).
FAKE_FABRIC = '''#!{py}
print("x x x x x x x 100 x x x 0")
'''


def script(tmp_path, name, text):
    path = tmp_path / name
    path.write_text(text.format(py=sys.executable))
    path.chmod(0o755)
    return str(path)


def fake_alu(tmp_path, model="// the Verilated ALU\n"):
    """The fake binary, and beside it the C++ 'Verilated' from the ALU that the design hash reads
    (CMakeFiles/<target>.dir/V<top>.dir/*.cpp, as CMake's verilate() leaves it)."""
    vdir = tmp_path / "CMakeFiles" / "test_rtl_alu_regress.dir" / "Vxf_reduce_alu.dir"
    vdir.mkdir(parents=True, exist_ok=True)
    (vdir / "Vxf_reduce_alu.cpp").write_text(model)
    return script(tmp_path, "fake_alu", FAKE_ALU)


def regress_alu(tmp_path, binary, *args, env=None):
    e = {k: v for k, v in os.environ.items() if not k.startswith("XF_REGRESS")}
    e.update(env or {})
    return subprocess.run([sys.executable, str(REPO / "scripts" / "regress_alu.py"), "--bin",
                           binary, "--results", str(tmp_path / "alu.jsonl"), "--jobs", "2",
                           "--slice-b", "16384", *args], capture_output=True, text=True, env=e)


def test_progress_line():
    t = [0.0]
    p = Progress("run", 100, "runs", already=20, clock=lambda: t[0])
    assert "20/100 runs (20.0%)" in p.line() and "ETA unknown" in p.line()
    t[0] = 10.0
    p.add(10)
    assert p.line("2 failed") == ("run: 30/100 runs (30.0%), 1.00 runs/s, 10 s elapsed, "
                                  "ETA 70 s, 2 failed")
    assert rate_text(2.5e6, "flits") == "2.50 Mflits/s" and rate_text(1500, "x") == "1.50 kx/s"
    assert duration(7300) == "2 h 01 min" and duration(600) == "10 min"


def test_regress_alu_slices_resume_and_failure(tmp_path):
    fake = fake_alu(tmp_path)
    listed = regress_alu(tmp_path, fake, "--list")
    assert listed.returncode == 0
    names = [line.split("  ")[0].strip() for line in listed.stdout.splitlines()]
    # fp32, two 4096 sets, 4 ranges of b x 2 configurations
    assert len(names) == 1 + 2 + 8 and names[0] == "fp32-random"
    assert "pairs/int16 avg shift 1 scale 0xAAAAAAAA/b=49152:16384" in names
    assert "XF_REGRESS_OP='=fp16 sum' XF_REGRESS_B=0:16384" in listed.stdout

    first = regress_alu(tmp_path, fake, env={"FAIL_B": "32768:16384"})
    assert first.returncode == 1, first.stdout + first.stderr
    assert re.search(r"regress-alu: [\d,]+/[\d,]+ flits \(100\.0%\), .*ETA", first.stdout)
    assert "FAILED pairs/fp16 sum/b=32768:16384" in first.stdout
    assert "reproduce: XF_SEED=161 XF_REGRESS_OP='=fp16 sum' XF_REGRESS_B=32768:16384" \
        in first.stdout
    rows = [json.loads(x) for x in (tmp_path / "alu.jsonl").read_text().splitlines()]
    assert len(rows) == 11 and sum(r["result"] == "fail" for r in rows) == 2
    assert {"slice", "seed", "flits", "seconds", "result", "command"} <= set(rows[0])

    again = regress_alu(tmp_path, fake)  # only the two failed slices run again, and pass
    assert again.returncode == 0, again.stdout
    assert "(9 passed before" in again.stdout and "regress-alu: PASSED" in again.stdout
    assert len((tmp_path / "alu.jsonl").read_text().splitlines()) == 13
    table = regress_alu(tmp_path, fake, "--summary")
    assert table.returncode == 0 and "11/11 slices passed" in table.stdout
    assert re.search(r"^fp16 sum +5/5 .* pass$", table.stdout, re.M)
    other_seed = regress_alu(tmp_path, fake, "--seed", "7", "--only", "fp32")
    assert "(0 passed before" in other_seed.stdout


def test_regress_alu_rows_of_another_design_do_not_count(tmp_path):
    fake = fake_alu(tmp_path)
    assert regress_alu(tmp_path, fake, "--only", "fp32").returncode == 0
    rows = [json.loads(x) for x in (tmp_path / "alu.jsonl").read_text().splitlines()]
    assert len(rows) == 1 and re.fullmatch(r"[0-9a-f]{16}", rows[0]["design"])
    assert re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ", rows[0]["date"])
    # The same slice recorded on another design (the RTL changed since) runs again.
    rows[0]["design"] = "0" * 16
    (tmp_path / "alu.jsonl").write_text(json.dumps(rows[0]) + "\n")
    again = regress_alu(tmp_path, fake, "--only", "fp32")
    assert "1 rows of" in again.stdout and "of another design" in again.stdout
    assert "(0 passed before" in again.stdout and "1/1 slices" in again.stdout


def test_regress_alu_bad_options(tmp_path):
    fake = fake_alu(tmp_path)
    for args, env, says in ((["--jobs", "0"], None, "--jobs 0"),
                            (["--slice-b", "70000"], None, "--slice-b 70000"),
                            (["--only", "nothing"], None, "selects no slice"),
                            ([], {"XF_REGRESS_OP": "fp16"}, "XF_REGRESS_OP is set")):
        r = regress_alu(tmp_path, fake, *args, env=env)
        assert r.returncode == 2 and says in r.stderr, r.stderr
    r = regress_alu(tmp_path, str(tmp_path / "missing"))
    assert r.returncode == 2 and "make build" in r.stderr


def test_regress_progress_and_resume(tmp_path):
    fabric = script(tmp_path, "fabric", FAKE_FABRIC)
    results = tmp_path / "seeds.jsonl"

    def run():
        return subprocess.run([sys.executable, "-m", "pytest", "-p", "no:cacheprovider",
                               str(REPO / "tests" / "regress"), "--fabric", fabric, "--seeds",
                               "4", "--results", str(results), "--progress-every", "0", "-q"],
                              capture_output=True, text=True, cwd=tmp_path)
    first = run()
    assert first.returncode == 0, first.stdout + first.stderr
    for k in range(1, 5):
        assert f"regress-model: {k}/4 seeds ({25 * k:.1f}%)" in first.stdout
    assert "ETA" in first.stdout and "0 failed" in first.stdout
    assert len(results.read_text().splitlines()) == 4
    second = run()  # every seed from the results file: nothing runs again
    assert second.returncode == 0
    assert "regress-model: 4/4 seeds (100.0%)" in second.stdout
    assert len(results.read_text().splitlines()) == 4


def test_regress_alu_design_is_the_verilated_alu(tmp_path):
    import regress_alu as ra
    a, b = tmp_path / "a", tmp_path / "b"
    a.mkdir()
    b.mkdir()
    # Two checkouts of one design: only the path Verilator quotes differs.
    fa = fake_alu(a, 'VL_FATAL_MT("/home/one/rtl/xf_reduce_alu.sv", 46, "", "x");\n')
    fb = fake_alu(b, 'VL_FATAL_MT("/srv/two/rtl/xf_reduce_alu.sv", 46, "", "x");\n')
    assert ra.design_hash(fa) == ra.design_hash(fb)
    # Another Verilated ALU (its logic changed) is another design.
    fc = fake_alu(b, 'VL_FATAL_MT("/home/one/rtl/xf_reduce_alu.sv", 47, "", "x");\n')
    assert ra.design_hash(fc) != ra.design_hash(fa)
    # No Verilated model beside the binary: a clear error, not a hash of nothing.
    lone = script(tmp_path, "lone_alu", FAKE_ALU)
    result = regress_alu(tmp_path, lone, "--only", "fp32")
    assert result.returncode != 0 and "no Verilated model of the ALU" in result.stderr
