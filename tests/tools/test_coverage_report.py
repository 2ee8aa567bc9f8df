"""scripts/coverage_report.py on a hand-made Verilator coverage file: merging over instances, the
per-file bar, waivers and stale waivers: python3 -m pytest tests/tools -q."""
import pathlib
import subprocess
import sys

SCRIPT = pathlib.Path(__file__).resolve().parents[2] / "scripts" / "coverage_report.py"


def point(file, line, col, comment, page, hier, count):
    """One line of a Verilator coverage.dat: C '<key>' <count>, fields as \\x01k\\x02v."""
    fields = {"f": file, "l": str(line), "n": str(col), "o": comment, "page": page, "h": hier}
    key = "".join(f"\x01{k}\x02{v}" for k, v in fields.items())
    return f"C '{key}' {count}\n"


def make_case(tmp_path, waivers=None):
    rtl = tmp_path / "rtl"
    rtl.mkdir()
    (rtl / "a.sv").write_text("")
    (rtl / "b.sv").write_text("")
    dat = tmp_path / "cov.dat"
    dat.write_text("# SystemC::Coverage-3\n" + "".join([
        # a.sv: 2 line points, one hit in one instance only; 2 toggle points, one hit
        point("hdl/a.sv", 10, 1, "if", "v_line/a", "top.u0", 0),
        point("hdl/a.sv", 10, 1, "if", "v_line/a", "top.u1", 3),
        point("hdl/a.sv", 12, 1, "else", "v_branch/a", "top.u0", 0),
        point("hdl/a.sv", 20, 1, "x[0]", "v_toggle/a", "top.u0", 2),
        point("hdl/a.sv", 20, 1, "x[1]", "v_toggle/a", "top.u0", 0),
        # b.sv: everything hit
        point("hdl/b.sv", 5, 1, "block", "v_line/b", "top.b", 1),
        point("hdl/b.sv", 6, 1, "y", "v_toggle/b", "top.b", 1),
    ]))
    args = [sys.executable, str(SCRIPT), str(dat), str(rtl)]
    if waivers is not None:
        w = tmp_path / "waivers.txt"
        w.write_text(waivers)
        args += ["--waivers", str(w)]
    return args


def test_merges_instances_and_fails_under_the_bar(tmp_path):
    res = subprocess.run(make_case(tmp_path) + ["--bar", "95,90"], capture_output=True, text=True)
    assert res.returncode == 1, res.stdout
    assert "1/2  50.0% (0)" in res.stdout  # a.sv: line 10 hit by u1, line 12 never
    assert "a.sv: 12" in res.stdout
    assert "a.sv line 50.0%" in res.stdout and "b.sv" not in res.stdout.split("under the bar")[1]


def test_waivers_take_out_uncovered_points(tmp_path):
    waivers = ("# comment\n"
               "a.sv line 12 the else of a constant condition\n"
               "a.sv toggle x\\[1\\] bit 1 is tied to zero at every parameter value\n")
    res = subprocess.run(make_case(tmp_path, waivers) + ["--bar", "95,90"], capture_output=True,
                         text=True)
    assert res.returncode == 0, res.stdout
    assert "1/1 100.0% (1)" in res.stdout
    assert "every file reaches 95% line and 90% toggle" in res.stdout


def test_stale_and_bad_waivers(tmp_path):
    res = subprocess.run(make_case(tmp_path, "b.sv line 5 reached now\n") + ["--no-bar"],
                         capture_output=True, text=True)
    assert res.returncode == 0
    assert "stale waiver" in res.stdout
    plain = tmp_path / "plain"
    plain.mkdir()
    res = subprocess.run(make_case(plain), capture_output=True, text=True)
    assert res.returncode == 0  # no bar asked: print only
    bad = tmp_path / "bad"
    bad.mkdir()
    res = subprocess.run(make_case(bad, "a.sv lines 12 typo in the kind\n"), capture_output=True,
                         text=True)
    assert res.returncode == 2 and "kind must be line or toggle" in res.stderr
    other = tmp_path / "other"
    other.mkdir()
    res = subprocess.run(make_case(other, "c.v line 1 no such file\n"), capture_output=True,
                         text=True)
    assert res.returncode == 2 and "c.v" in res.stderr


def test_bit_range_waivers_and_the_toggle_list(tmp_path):
    res = subprocess.run(make_case(tmp_path) + ["--no-bar", "--toggles", "a.sv"],
                         capture_output=True, text=True)
    assert res.returncode == 0
    assert "uncovered toggle points not waived in a.sv (1):\n  x[1]\n" in res.stdout
    ranged = tmp_path / "ranged"
    ranged.mkdir()
    res = subprocess.run(make_case(ranged, "a.sv toggle x[1:7] the upper bits\n") +
                         ["--bar", "0,90", "--toggles", "all"], capture_output=True, text=True)
    assert res.returncode == 0, res.stdout
    assert "1/1 100.0% (1)" in res.stdout and "uncovered toggle" not in res.stdout
    below = tmp_path / "below"
    below.mkdir()
    res = subprocess.run(make_case(below, "a.sv toggle x[2:7] not bit 1\n") + ["--no-bar"],
                         capture_output=True, text=True)
    assert "stale waiver" in res.stdout  # bit 1 is outside the range: nothing waived
    listed = tmp_path / "listed"
    listed.mkdir()
    res = subprocess.run(make_case(listed, "a.sv toggle x[0,1:1,5:7] a list of bits\n") +
                         ["--bar", "0,90"], capture_output=True, text=True)
    assert res.returncode == 0 and "stale waiver" not in res.stdout, res.stdout
    missed = tmp_path / "missed"
    missed.mkdir()
    res = subprocess.run(make_case(missed, "a.sv toggle x[0,2:7] a list without bit 1\n") +
                         ["--no-bar"], capture_output=True, text=True)
    assert "stale waiver" in res.stdout
