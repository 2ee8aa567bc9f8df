#!/usr/bin/env python3
"""Simulator speed side by side: one collective on the generated system top (docs/simulators.md).

Builds gen_system (CMake, in $XF_BUILD, default build/cmake), generates the top and the stimulus
of one collective under build/sim_speed/<name>/, then runs the same Verilog testbench
(tb/icarus/xf_system_tb.sv) under Icarus Verilog and under Verilator (single-threaded, and with
--threads 2), and prints one row per simulator: the collective's cycles (which must equal the
SystemC model's), the wall seconds of the collective phase alone (between the testbench's
"XF_MARK start" and "XF_MARK done" lines, timestamped as they arrive through a pipe; loading and
read-back do not count), simulated cycles per second and whether the run was bit-exact against
the model. The model's row is its run phase alone (gen_system times System::run).

Usage: scripts/sim_speed.sh [--topology T] [--bytes N] [--collective C] [--dtype D] [--op O]
                            [--tiles N] [--seed S] [--sims icarus,verilator,verilator-mt]
                            [--load backdoor|pins] [--timeout SECONDS] [--stall SECONDS]
Exit status: 0 when every simulator that ran passed, 1 otherwise, 2 on a bad argument.
"""
import argparse
import hashlib
import os
import queue
import re
import subprocess
import sys
import threading
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
NICE = ["nice", "-n", "10"]
# Icarus prints these notes for the RTL; harmless (scripts/icarus_check.sh says why).
HARMLESS = re.compile(r"sorry: constant selects in always_\* processes|"
                      r"sorry: Case unique/unique0 qualities are ignored")
VFLAGS = ["--binary", "--timing", "-j", "1", "-O3", "--x-assign", "fast", "--x-initial", "fast",
          "-Wno-fatal", "-Wno-lint", "-Wno-style"]


def run(cmd, **kw):
    """Runs a build step; prints its output and exits on failure."""
    p = subprocess.run(cmd, cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                       **kw)
    out = "\n".join(l for l in p.stdout.splitlines() if not HARMLESS.search(l))
    if p.returncode != 0:
        sys.stderr.write(out + "\nsim_speed: FAILED: " + " ".join(cmd) + "\n")
        sys.exit(1)
    return out


def rtl_files():
    files = subprocess.run([os.path.join(ROOT, "scripts/rtl_files.sh"), "xf_chip"], cwd=ROOT,
                           stdout=subprocess.PIPE, text=True, check=True).stdout.split()
    return ["rtl/xf_defs_pkg.sv"] + files + ["rtl/xf_switch.sv"]


def up_to_date(exe, deps, cmd):
    """True when `exe` was built by `cmd` from these very file contents (a stamp beside it):
    gen_system rewrites its files on every run, so times alone would always rebuild."""
    h = hashlib.sha1(" ".join(cmd).encode())
    for d in deps:
        with open(os.path.join(ROOT, d), "rb") as f:
            h.update(f.read())
    stamp = os.path.join(ROOT, exe + ".stamp")
    ok = os.path.exists(os.path.join(ROOT, exe)) and os.path.exists(stamp) and \
        open(stamp).read() == h.hexdigest()
    return ok, (stamp, h.hexdigest())


def build(exe, deps, cmd, label):
    ok, (stamp, digest) = up_to_date(exe, deps, cmd)
    if ok:
        return
    t = time.monotonic()
    run(NICE + cmd)
    with open(stamp, "w") as f:
        f.write(digest)
    print("# %s build: %.0f s" % (label, time.monotonic() - t), flush=True)


def simulate(name, cmd, timeout, stall):
    """Runs a testbench, timestamping its marker lines; returns a result dict. Kills the run (the
    process this function started) after `timeout` seconds, or after `stall` seconds without a
    line (the testbench prints a heartbeat when asked: a simulator stuck in one time step)."""
    r = {"sim": name, "cycles": None, "seconds": None, "pass": False, "note": ""}
    t_start = t_done = None
    log = []
    p = subprocess.Popen(cmd, cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                         text=True, bufsize=1)
    lines = queue.Queue()

    def reader():
        for line in p.stdout:
            lines.put((time.monotonic(), line))
        lines.put((time.monotonic(), None))

    threading.Thread(target=reader, daemon=True).start()
    t0 = last = time.monotonic()
    while True:
        try:
            now, line = lines.get(timeout=1.0)
        except queue.Empty:
            now = time.monotonic()
            if now - t0 > timeout or now - last > stall:
                r["note"] = ("timeout after %.0f s" % (now - t0) if now - t0 > timeout else
                             "no progress for %.0f s (stuck in one time step)" % (now - last))
                p.kill()
                break
            continue
        if line is None:
            break
        last = now
        log.append(line.rstrip("\n"))
        if line.startswith("XF_MARK start"):
            t_start = now
        elif line.startswith("XF_MARK done"):
            t_done = now
        m = re.match(r"collective cycles (\d+)", line)
        if m:
            r["cycles"] = int(m.group(1))
        if line.startswith("PASS"):
            r["pass"] = True
    p.wait()
    if t_start is not None and t_done is not None:
        r["seconds"] = t_done - t_start
    if p.returncode != 0 or not r["pass"]:
        r["pass"] = False
        tail = [l for l in log if not HARMLESS.search(l)][-3:]
        r["note"] = r["note"] or "; ".join(tail)
    r["wall_total"] = time.monotonic() - t0
    return r


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--topology", default="ring:2")
    ap.add_argument("--bytes", default="1K")
    ap.add_argument("--collective", default="allreduce")
    ap.add_argument("--dtype", default="fp32")
    ap.add_argument("--op", default="sum")
    ap.add_argument("--tiles", type=int, default=4)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--sims", default="icarus,verilator,verilator-mt")
    ap.add_argument("--load", choices=["backdoor", "pins"], default="backdoor")
    ap.add_argument("--timeout", type=float, default=3600, help="per simulator run, seconds")
    ap.add_argument("--stall", type=float, default=300,
                    help="seconds without progress before a run counts as stuck")
    a = ap.parse_args()
    sims = a.sims.split(",")
    for s in sims:
        if s not in ("icarus", "verilator", "verilator-mt"):
            ap.error("--sims: unknown simulator " + s)

    xf_build = os.environ.get("XF_BUILD", "build/cmake")
    if not os.path.exists(os.path.join(ROOT, xf_build, "CMakeCache.txt")):
        run(NICE + ["cmake", "-S", ".", "-B", xf_build])
    run(NICE + ["cmake", "--build", xf_build, "--target", "gen_system", "-j", "1"])

    name = re.sub(r"[^A-Za-z0-9]+", "", a.topology) + "_" + a.bytes + "_" + a.collective + \
        "_" + a.dtype + "_" + a.op + "_t%d" % a.tiles
    out = os.path.join("build/sim_speed", name)
    gen = subprocess.run(NICE + [os.path.join(xf_build, "gen_system"), "--topology", a.topology,
                                 "--collective", a.collective, "--dtype", a.dtype, "--op", a.op,
                                 "--bytes", a.bytes, "--tiles", str(a.tiles), "--seed",
                                 str(a.seed), "--out", out],
                         cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    if gen.returncode != 0:
        sys.stderr.write(gen.stdout)
        return gen.returncode
    exp = dict(l.split(None, 1) for l in open(os.path.join(ROOT, out, "expected.txt")))
    model_cycles = int(exp["model_cycles"])
    model_s = float(exp["model_run_seconds"])

    srcs = rtl_files() + [out + "/xf_system_top.sv", "tb/icarus/xf_system_tb.sv"]
    deps = srcs + [out + "/xf_system_tb_gen.svh"]
    plus = ["+stim=" + out] + (["+backdoor"] if a.load == "backdoor" else [])
    results = []
    for s in sims:
        if s == "icarus":
            vvp = out + "/icarus.vvp"
            build(vvp, deps, ["iverilog", "-g2012", "-DSYNTHESIS", "-I", "rtl", "-I", out, "-s",
                              "xf_system_tb", "-o", vvp] + srcs, s)
            cmd = NICE + ["vvp", "-n", vvp] + plus + ["+heartbeat=1"]
        else:
            mdir = out + ("/vlt_mt" if s == "verilator-mt" else "/vlt")
            exe = mdir + "/vsim"
            vlt = "tb/icarus/xf_system.vlt"
            build(exe, deps + [vlt],
                  ["verilator"] + VFLAGS + (["--threads", "2"] if s == "verilator-mt" else []) +
                  ["-DSYNTHESIS", "-Irtl", "-I" + out, "--top-module", "xf_system_tb", "-Mdir",
                   mdir, "-o", "vsim", vlt] + srcs, s)
            cmd = NICE + [exe] + plus
        r = simulate(s, cmd, a.timeout, a.stall)
        results.append(r)
        print("# %s: %s, %.1f s in all%s" % (s, "PASS" if r["pass"] else "FAIL",
                                             r["wall_total"],
                                             (": " + r["note"]) if r["note"] else ""),
              flush=True)

    print("#%-13s %14s %6s %5s %10s %10s %12s %12s %9s" %
          ("simulator", "topology", "size", "tiles", "cycles", "model", "wall_s", "cycles/s",
           "bit-exact"))
    rows = [{"sim": "model", "cycles": model_cycles, "seconds": model_s, "pass": True}] + results
    for r in rows:
        cps = r["cycles"] / r["seconds"] if r["cycles"] and r["seconds"] else 0
        exact = r["pass"] and r["cycles"] == model_cycles
        print(" %-13s %14s %6s %5d %10s %10d %12s %12s %9s" %
              (r["sim"], a.topology, a.bytes, a.tiles,
               r["cycles"] if r["cycles"] is not None else "-", model_cycles,
               "%.4f" % r["seconds"] if r["seconds"] is not None else "-",
               "%.0f" % cps if cps else "-", "yes" if exact else "NO"))
    print("# load: %s; model row: SystemC System::run alone (gen_system)" % a.load)
    return 0 if all(r["pass"] and r["cycles"] == model_cycles for r in results) else 1


if __name__ == "__main__":
    sys.exit(main())
