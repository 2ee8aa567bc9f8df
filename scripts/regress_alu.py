#!/usr/bin/env python3
"""The long regression of the RTL ALU (make regress-alu): runs the DISABLED_ tests of
build/cmake/test_rtl_alu_regress (tests/test_rtl_alu_regress.cpp) as slices, JOBS at a time.

Slices: the fp32 random test (one slice: its three ops share one generator); for each 16-bit
configuration the 4096 set (one slice) and all 2^32 pairs cut into ranges of b values
(XF_REGRESS_B=first:count, --slice-b values each). A slice selects its configuration by its exact
name (XF_REGRESS_OP='=<name>'), the names coming from the binary itself (RtlAluRegress.
DISABLED_Configs). The all-pairs slices run range by range across the configurations, so a run
stopped early has covered every configuration alike.

Each finished slice is one JSON line in the results file (slice, seed, flits, seconds, result,
the command that reproduces it, the date, and the design: a hash of the Verilated ALU and of the
files that decide the result, see design_hash()); a rerun with the same file and seed skips the
slices that passed on the same design and runs the rest, so stopping the driver (kill PID, Ctrl-C) and running the
same command again resumes the run, losing only the slices that were running. A progress line
(slices, flits, the fraction, the rate, the ETA) follows every slice; the end prints a table per
configuration and, for each failure, the one command that reproduces it.

  regress_alu.py --bin build/cmake/test_rtl_alu_regress [--jobs 2] [--seed 161]
      [--results build/regress/regress-alu.jsonl] [--slice-b 4096] [--only 'fp16 sum,set4096']
  regress_alu.py --bin ... --list          (the slices, nothing run)
  regress_alu.py --bin ... --summary       (the table of the results file so far)

The project's record of the whole run is tests/records/regress-alu.jsonl (committed): a run
with --results tests/records/regress-alu.jsonl extends it, across machines and sessions, and a
row of another design (the ALU's RTL, the test or the C++ reference changed since) no longer
counts, so the record never claims a pass the current RTL has not earned.
"""
import argparse
import concurrent.futures
import datetime
import hashlib
import json
import os
import re
import shlex
import signal
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from progress import Progress, duration  # noqa: E402  (scripts/ is not a package)

DEFAULT_SEED = 161  # kFile's default in tests/test_rtl_alu.cpp (0xA1)
FP32_FLITS = 3 * 2500000  # DISABLED_Fp32Random: 10^7 lane pairs for each of Sum, Max, Min
SET_FLITS = 4096 * 8192  # DISABLED_Set4096: 65536 values x 4096, 8 lanes a flit
SINGLE_CORE_FLITS_PER_S = 0.47e6  # the estimate before the first slice ends (one process)
TAIL_LINES = 40


REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
TEST_SOURCE = "tests/test_rtl_alu_regress.cpp"
# What decides a slice's result besides the Verilated ALU: the test, the benches and generators
# it includes, and the C++ ALU it compares against.
DESIGN_FILES = (TEST_SOURCE, "tests/test_rtl_alu.cpp", "sw/lib/alu.cpp", "sw/include/xf/alu.hpp")
TARGET = "test_rtl_alu_regress"
# A source path Verilator writes into its output (an assertion's file name): the checkout's
# absolute path before rtl/ is dropped, so that two checkouts of one design hash alike.
SOURCE_PATH = re.compile(rb'"[^"\n]*/(rtl/[^"/\n]+")')


def verilated_dir(binary):
    """Where CMake's verilate() left the C++ it made from the test's RTL for `binary`."""
    root = os.path.join(os.path.dirname(os.path.abspath(binary)), "CMakeFiles", f"{TARGET}.dir")
    dirs = sorted(d for d in (os.listdir(root) if os.path.isdir(root) else [])
                  if d.startswith("V") and d.endswith(".dir"))
    if len(dirs) != 1:
        sys.exit(f"regress_alu: no Verilated model of the ALU under {root} (found {dirs}); the "
                 f"design hash is taken from it: build the binary with make build first")
    return os.path.join(root, dirs[0])


def design_hash(binary, repo=REPO):
    """A short hash of what decides a slice's result: the C++ Verilator made from the ALU's RTL
    for this binary (so a change to the RTL the ALU does not use, such as another field of the
    shared package, leaves it alone, while any change to the ALU's logic, or another Verilator,
    makes it new) and DESIGN_FILES, so that a results file outlives no change to them."""
    h = hashlib.sha256()
    vdir = verilated_dir(binary)
    for name in sorted(os.listdir(vdir)):
        if name.endswith((".cpp", ".h")):
            with open(os.path.join(vdir, name), "rb") as f:
                h.update(name.encode() + b"\0" + SOURCE_PATH.sub(rb'"\1', f.read()) + b"\0")
    for rel in DESIGN_FILES:
        path = os.path.join(repo, rel)
        if not os.path.exists(path):
            sys.exit(f"regress_alu: {rel} is missing; the design hash needs every file that "
                     f"decides the result (DESIGN_FILES in {os.path.basename(__file__)})")
        with open(path, "rb") as f:
            h.update(rel.encode() + b"\0" + f.read() + b"\0")
    return h.hexdigest()[:16]


class Slice:
    """One run of the binary: a test, its configuration (None for fp32) and a range of b."""

    def __init__(self, test, config, first=0, count=0):
        self.test, self.config, self.first, self.count = test, config, first, count
        if test == "AllPairs16":
            self.name = f"pairs/{config}/b={first}:{count}"
            self.flits = count * 8192
        elif test == "Set4096":
            self.name = f"set4096/{config}"
            self.flits = SET_FLITS
        else:
            self.name = "fp32-random"
            self.flits = FP32_FLITS

    def env(self, seed):
        e = {"XF_SEED": str(seed)}
        if self.config is not None:
            e["XF_REGRESS_OP"] = "=" + self.config
        if self.test == "AllPairs16":
            e["XF_REGRESS_B"] = f"{self.first}:{self.count}"
        return e

    def argv(self, binary):
        return [binary, "--gtest_also_run_disabled_tests",
                f"--gtest_filter=RtlAluRegress.DISABLED_{self.test}"]

    def command(self, binary, seed):
        env = " ".join(f"{k}={shlex.quote(v)}" for k, v in self.env(seed).items())
        return env + " " + " ".join(shlex.quote(a) for a in self.argv(binary))


def configs_of(binary):
    """The 16-bit configurations' names, as the binary prints them."""
    p = subprocess.run([binary, "--gtest_also_run_disabled_tests",
                        "--gtest_filter=RtlAluRegress.DISABLED_Configs"],
                       capture_output=True, text=True)
    names = re.findall(r"^\[   CONFIG \] (.+)$", p.stdout, re.M)
    if p.returncode != 0 or not names:
        sys.exit(f"regress_alu: {binary} did not list its configurations (exit {p.returncode}); "
                 f"is it older than tests/test_rtl_alu_regress.cpp? make build\n{p.stdout[-2000:]}")
    return names


def slices_of(configs, slice_b):
    out = [Slice("Fp32Random", None)]
    out += [Slice("Set4096", c) for c in configs]
    for first in range(0, 65536, slice_b):
        out += [Slice("AllPairs16", c, first, min(slice_b, 65536 - first)) for c in configs]
    return out


def read_results(path):
    """Every result line of the file, in order (a later line for a slice wins)."""
    rows = []
    if os.path.exists(path):
        with open(path) as f:
            for n, line in enumerate(f, 1):
                if line.strip():
                    try:
                        rows.append(json.loads(line))
                    except json.JSONDecodeError as e:
                        sys.exit(f"regress_alu: {path}:{n}: not a JSON line ({e}); fix or remove "
                                 f"the line to resume")
    return rows


RUNNING = set()  # the slices' processes, ended with the driver


def run_slice(s, binary, seed, design):
    t0 = time.monotonic()
    env = dict(os.environ, **s.env(seed))
    p = subprocess.Popen(s.argv(binary), env=env, stdout=subprocess.PIPE,
                         stderr=subprocess.STDOUT, text=True)
    RUNNING.add(p)
    try:
        out, _ = p.communicate()
    finally:
        RUNNING.discard(p)
    seconds = time.monotonic() - t0
    tests = re.findall(r"^\[  VECTORS \] RtlAluRegress\.\S+: (\d+) lane pairs", out, re.M)
    vectors = sum(int(v) for v in tests)
    passed = p.returncode == 0 and "[  PASSED  ] 1 test." in out
    row = {"slice": s.name, "config": s.config or "fp32 sum/max/min", "test": s.test,
           "seed": seed, "flits": s.flits, "lane_pairs": vectors, "seconds": round(seconds, 1),
           "result": "pass" if passed else "fail", "rc": p.returncode,
           "command": s.command(binary, seed), "design": design,
           "date": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")}
    if not passed:
        row["tail"] = out.splitlines()[-TAIL_LINES:]
    return row


def stop(signum, frame):
    for p in list(RUNNING):
        p.terminate()
    print(f"regress_alu: stopped by signal {signum}; run the same command to resume", flush=True)
    os._exit(128 + signum)


def summary(slices, rows, binary, seed):
    """The table per configuration and the failures' commands; returns the exit status."""
    by_name = {r["slice"]: r for r in rows}
    per = {}
    for s in slices:
        c = per.setdefault(s.config or "fp32 sum/max/min", [0, 0, 0, 0.0, 0, 0])
        c[0] += 1  # slices
        r = by_name.get(s.name)
        if r is None:
            continue
        c[1] += r["result"] == "pass"
        c[2] += r["result"] != "pass"
        c[3] += r["seconds"]
        c[4] += r["lane_pairs"]
        c[5] += r["flits"]
    print(f"{'configuration':<36} {'slices':>9} {'lane pairs':>15} {'flits':>13} "
          f"{'slice time':>11}  result")
    for name, (n, ok, bad, secs, pairs, flits) in per.items():
        res = "FAIL" if bad else ("pass" if ok == n else f"{ok}/{n} done")
        print(f"{name:<36} {ok + bad:>4}/{n:<4} {pairs:>15,} {flits:>13,} {duration(secs):>11}  "
              f"{res}")
    fails = [r for r in rows if r["result"] != "pass"]
    for r in fails:
        print(f"regress_alu: FAILED {r['slice']} (exit {r['rc']}):")
        for line in r.get("tail", [])[-12:]:
            print("    " + line)
        print(f"  reproduce: {r['command']}")
    left = sum(1 for s in slices if s.name not in by_name)
    if fails:
        return 1
    return 0 if left == 0 else 3


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--bin", default="build/cmake/test_rtl_alu_regress",
                    help="the gtest binary (make build)")
    ap.add_argument("--jobs", type=int, default=os.cpu_count(), help="slices run at once")
    ap.add_argument("--seed", type=int, default=int(os.environ.get("XF_SEED") or DEFAULT_SEED),
                    help=f"XF_SEED of every slice (default: $XF_SEED or {DEFAULT_SEED})")
    ap.add_argument("--results", default="build/regress/regress-alu.jsonl",
                    help="JSON lines, one per finished slice; the passed ones are not run again")
    ap.add_argument("--slice-b", type=int, default=4096,
                    help="b values per all-pairs slice (1..65536; 4096: ~70 s a slice)")
    ap.add_argument("--only", default="",
                    help="comma list of substrings: the slices whose name contains one of them "
                    "(e.g. 'set4096', 'pairs/int16 avg', 'fp32')")
    ap.add_argument("--list", action="store_true", help="print the slices and stop")
    ap.add_argument("--summary", action="store_true",
                    help="print the table of the results file so far (a run may be going on) "
                    "and stop")
    args = ap.parse_args()
    if args.jobs < 1:
        ap.error(f"--jobs {args.jobs}: at least 1")
    if not 1 <= args.slice_b <= 65536:
        ap.error(f"--slice-b {args.slice_b}: from 1 to 65536 b values")
    for knob in ("XF_REGRESS_OP", "XF_REGRESS_B"):
        if os.environ.get(knob):
            ap.error(f"{knob} is set: it is the binary's own knob and this driver sets it per "
                     f"slice; unset it and choose slices with --only")
    if not os.access(args.bin, os.X_OK):
        ap.error(f"--bin {args.bin}: not an executable; make build (or cmake --build build/cmake "
                 f"--target test_rtl_alu_regress) first")
    binary = args.bin
    slices = slices_of(configs_of(binary), args.slice_b)
    if args.only:
        want = [w for w in args.only.split(",") if w]
        slices = [s for s in slices if any(w in s.name for w in want)]
        if not slices:
            ap.error(f"--only {args.only!r} selects no slice; names look like 'fp32-random', "
                     f"'set4096/fp16 sum', 'pairs/int16 sum sat/b=0:4096' (--list shows all)")
    if args.list:
        for s in slices:
            print(f"{s.name:<48}  {s.flits:>11,} flits  {s.command(binary, args.seed)}")
        return 0

    os.makedirs(os.path.dirname(os.path.abspath(args.results)), exist_ok=True)
    design = design_hash(binary)
    every = read_results(args.results)
    rows = [r for r in every if r.get("seed") == args.seed and r.get("design") == design]
    stale = sum(1 for r in every if r.get("seed") == args.seed and r.get("design") != design)
    if stale:
        print(f"regress-alu: {stale} rows of {args.results} are of another design (the ALU's RTL, "
              f"the test or the C++ reference changed since, or rows without a design hash) and "
              f"do not count; their slices run again", flush=True)
    passed = {r["slice"] for r in rows if r["result"] == "pass"}
    todo = [s for s in slices if s.name not in passed]
    total = sum(s.flits for s in slices)
    if args.summary:
        latest = {r["slice"]: r for r in rows}
        got = [latest[s.name] for s in slices if s.name in latest]
        status = summary(slices, got, binary, args.seed)
        done = sum(r["flits"] for r in got if r["result"] == "pass")
        print(f"regress-alu: {len(passed & {s.name for s in slices})}/{len(slices)} slices "
              f"passed, {done:,}/{total:,} flits ({100 * done / total:.1f}%), in {args.results}")
        return status
    prog = Progress("regress-alu", total, "flits", already=total - sum(s.flits for s in todo))
    print(f"regress-alu: seed {args.seed}, design {design}, {len(slices)} slices "
          f"({len(slices) - len(todo)} passed before, in {args.results}), {total:,} flits; "
          f"{args.jobs} at a time; about "
          f"{duration(sum(s.flits for s in todo) / SINGLE_CORE_FLITS_PER_S / args.jobs)} "
          f"at {SINGLE_CORE_FLITS_PER_S / 1e6:.2f} Mflit/s a process", flush=True)
    signal.signal(signal.SIGTERM, stop)
    signal.signal(signal.SIGINT, stop)
    done_slices = len(slices) - len(todo)
    with open(args.results, "a") as out, \
            concurrent.futures.ThreadPoolExecutor(args.jobs) as pool:
        futures = [pool.submit(run_slice, s, binary, args.seed, design) for s in todo]
        for f in concurrent.futures.as_completed(futures):
            r = f.result()
            out.write(json.dumps(r) + "\n")
            out.flush()
            rows.append(r)
            done_slices += 1
            prog.add(r["flits"])
            tag = "" if r["result"] == "pass" else " FAILED"
            print(prog.line(f"{done_slices}/{len(slices)} slices; {r['slice']} "
                            f"{r['seconds']:.0f} s{tag}"), flush=True)
    latest = {r["slice"]: r for r in rows}
    names = {s.name for s in slices}
    status = summary(slices, [r for n, r in latest.items() if n in names], binary, args.seed)
    print(f"regress-alu: {'PASSED' if status == 0 else 'FAILED' if status == 1 else 'INCOMPLETE'}"
          f" in {duration(prog.elapsed())} (seed {args.seed}, results in {args.results})")
    return status


if __name__ == "__main__":
    sys.exit(main())
