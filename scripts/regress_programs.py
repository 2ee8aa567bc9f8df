#!/usr/bin/env python3
"""make regress-programs SEEDS=N [FIRST_SEED=S] [JOBS=J]: the chip test's random programs
(tests/test_rtl_chip.cpp, Rtl/RandomPrograms.*: the RTL against the model to the cycle, on every
case's topology) over many seeds. Each (seed, case) is one process (the model elaborates once per
process), XF_SEED=seed; JOBS run at once.

Each finished run is one JSON line in the results file (seed, case, result, seconds, the cycles
the test printed, the command that reproduces it, the date); a rerun with the same file skips
the runs that passed and runs the rest, so stopping the driver and running the same command
again resumes. A progress line follows every run; the end prints the counts per case and, for
each failure, the command that reproduces it. Exit status 1 if any run failed.

  regress_programs.py --bin build/cmake/test_rtl_chip --seeds 100 [--first 1] [--jobs 2]
      [--results build/regress/regress-programs.jsonl] [--timeout 600]
"""
import argparse
import concurrent.futures
import datetime
import json
import os
import re
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from progress import Progress  # noqa: E402  (scripts/ is not a package)

SUITE = "Rtl/RandomPrograms."


def list_cases(binary):
    """The suite's case names, from the binary (gtest's listing: the suite line, then the tests)."""
    if not os.access(binary, os.X_OK):
        raise SystemExit(f"{binary}: not an executable (run `make build` first)")
    out = subprocess.run([binary, "--gtest_list_tests", f"--gtest_filter={SUITE}*"], check=True,
                         capture_output=True, text=True).stdout
    cases = [line.split()[0] for line in out.splitlines() if line.startswith("  ")]
    if not cases:
        raise SystemExit(f"{binary}: no test matches {SUITE}* (is it the chip test?)")
    return cases


def load(path):
    """The rows of a results file; a torn last line (a run killed while writing) is dropped."""
    rows = []
    if os.path.exists(path):
        with open(path) as f:
            for line in f:
                try:
                    rows.append(json.loads(line))
                except json.JSONDecodeError:
                    pass
    return rows


def run_one(binary, seed, case, timeout):
    test = SUITE + case
    command = f"XF_SEED={seed} {binary} --gtest_filter={test}"
    t0 = time.monotonic()
    try:
        p = subprocess.run([binary, f"--gtest_filter={test}"], capture_output=True, text=True,
                           timeout=timeout, env=dict(os.environ, XF_SEED=str(seed)))
        result, out = ("pass" if p.returncode == 0 else "fail"), p.stdout
    except subprocess.TimeoutExpired:
        result, out = "timeout", ""
    m = re.search(r"(\d+) cycles \(RTL\), (\d+) \(model\)", out)
    return {"seed": seed, "case": case, "result": result,
            "seconds": round(time.monotonic() - t0, 1),
            "cycles_rtl": int(m.group(1)) if m else None,
            "cycles_model": int(m.group(2)) if m else None,
            "command": command, "date": datetime.datetime.now().isoformat(timespec="seconds"),
            "failures": [line for line in out.splitlines()
                         if "Failure" in line or "Which is" in line or "DMEM 0x" in line][:8]}


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--bin", required=True)
    ap.add_argument("--seeds", type=int, required=True)
    ap.add_argument("--first", type=int, default=1)
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--results", default="build/regress/regress-programs.jsonl")
    ap.add_argument("--timeout", type=float, default=600, help="seconds per run")
    a = ap.parse_args()
    if a.seeds < 1 or a.jobs < 1:
        raise SystemExit("--seeds and --jobs must be at least 1")
    cases = list_cases(a.bin)
    seeds = range(a.first, a.first + a.seeds)
    passed = {(r["seed"], r["case"]) for r in load(a.results) if r.get("result") == "pass"}
    todo = [(s, c) for s in seeds for c in cases if (s, c) not in passed]
    total = len(seeds) * len(cases)
    print(f"regress-programs: seeds {a.first}..{a.first + a.seeds - 1} x {len(cases)} cases = "
          f"{total} runs, {total - len(todo)} already passed in {a.results}, {len(todo)} to run, "
          f"{a.jobs} at a time", flush=True)
    os.makedirs(os.path.dirname(os.path.abspath(a.results)), exist_ok=True)
    prog = Progress("regress-programs", total=total, unit="runs", already=total - len(todo))
    with open(a.results, "a") as out, \
            concurrent.futures.ThreadPoolExecutor(max_workers=a.jobs) as pool:
        futures = [pool.submit(run_one, a.bin, s, c, a.timeout) for s, c in todo]
        for fut in concurrent.futures.as_completed(futures):
            r = fut.result()
            out.write(json.dumps(r) + "\n")
            out.flush()
            prog.add(1)
            tag = "" if r["result"] == "pass" else f"  {r['result'].upper()}: {r['command']}"
            print(f"{prog.line()}  (seed {r['seed']} {r['case']}: {r['cycles_rtl']} cycles){tag}",
                  flush=True)
    latest = {}
    for r in load(a.results):
        if r["seed"] in seeds and r["case"] in cases:
            latest[(r["seed"], r["case"])] = r
    width = max(len(c) for c in cases) + 2
    print(f"{'case':<{width}}{'runs':>6}{'passed':>8}{'failed':>8}")
    for c in cases:
        rs = [r for (_, cc), r in latest.items() if cc == c]
        good = sum(r["result"] == "pass" for r in rs)
        print(f"{c:<{width}}{len(rs):>6}{good:>8}{len(rs) - good:>8}")
    bad = [r for r in latest.values() if r["result"] != "pass"]
    for r in bad:
        print(f"{r['result']}: {r['command']}")
        for line in r["failures"]:
            print(f"    {line.strip()}")
    print(f"regress-programs: {len(latest) - len(bad)} of {len(latest)} runs passed")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
