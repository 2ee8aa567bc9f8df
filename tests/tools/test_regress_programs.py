"""scripts/regress_programs.py against a stand-in for the chip test (a shell script that lists
three cases and fails seed 2 of one): every (seed, case) runs once, a failure is reported with
its command and sets the exit status, and a rerun with the same results file runs only what has
not passed: python3 -m pytest tests/tools -q."""
import json
import pathlib
import subprocess
import sys

SCRIPT = pathlib.Path(__file__).resolve().parents[2] / "scripts" / "regress_programs.py"

FAKE = """#!/bin/sh
case "$1" in
--gtest_list_tests*)
  echo "Rtl/RandomPrograms."
  echo "  MatchTheModelToTheCycle/ring2_0  # GetParam() = x"
  echo "  MatchTheModelToTheCycle/ring3_1  # GetParam() = x"
  echo "  MatchTheModelToTheCycle/tree3_2  # GetParam() = x"
  exit 0;;
esac
echo "$XF_SEED $1" >> "$(dirname "$0")/calls"
echo "ring:2, 1 tiles: 100 cycles (RTL), 100 (model)"
if [ "$XF_SEED" = 2 ] && [ "$1" = "--gtest_filter=Rtl/RandomPrograms.MatchTheModelToTheCycle/ring3_1" ]; then
  echo "tests/test_rtl_chip.cpp:1: Failure"
  exit 1
fi
exit 0
"""


def run(tmp_path, *args):
    return subprocess.run([sys.executable, str(SCRIPT), "--bin", str(tmp_path / "fake"),
                           "--results", str(tmp_path / "r.jsonl"), *args],
                          capture_output=True, text=True)


def test_runs_reports_and_resumes(tmp_path):
    fake = tmp_path / "fake"
    fake.write_text(FAKE)
    fake.chmod(0o755)
    p = run(tmp_path, "--seeds", "3", "--jobs", "2")
    assert p.returncode == 1, p.stdout + p.stderr
    assert "8 of 9 runs passed" in p.stdout
    assert f"fail: XF_SEED=2 {fake} --gtest_filter=Rtl/RandomPrograms." \
           "MatchTheModelToTheCycle/ring3_1" in p.stdout
    rows = [json.loads(line) for line in (tmp_path / "r.jsonl").read_text().splitlines()]
    assert len(rows) == 9 and all(r["cycles_rtl"] == 100 for r in rows)
    (tmp_path / "calls").unlink()
    # resumed: only the failed run runs again; a wider range adds seed 4's three
    p = run(tmp_path, "--seeds", "4", "--jobs", "1")
    assert p.returncode == 1
    calls = (tmp_path / "calls").read_text().split("\n")
    assert sorted(c for c in calls if c) == sorted(
        ["2 --gtest_filter=Rtl/RandomPrograms.MatchTheModelToTheCycle/ring3_1"] +
        [f"4 --gtest_filter=Rtl/RandomPrograms.MatchTheModelToTheCycle/{c}"
         for c in ("ring2_0", "ring3_1", "tree3_2")])
    assert "11 of 12 runs passed" in p.stdout


def test_bad_arguments_are_refused(tmp_path):
    p = run(tmp_path, "--seeds", "0")
    assert p.returncode != 0 and "at least 1" in p.stderr
    p = run(tmp_path, "--seeds", "2")
    assert p.returncode != 0 and "not an executable" in p.stderr
