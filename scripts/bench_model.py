#!/usr/bin/env python3
"""make bench-model: cycles and efficiency of allreduce on the model, ring:8 vs biring:8 vs
ladder:8 over message sizes, the ratios the link counts predict (ladder = 1/2 biring = 1/4
ring), and the 64-chip scale run with its wall time and memory. Prints tables; writes
build/bench/model.csv. Usage: bench_model.py PATH/TO/fabric [--quick]
"""
import csv
import os
import resource
import subprocess
import sys
import time


def run(fabric, topo, size, dtype="fp32"):
    cmd = [fabric, "run", "--topology", topo, "--collective", "allreduce", "--dtype", dtype,
           "--op", "sum", "--bytes", size, "--no-header"]
    t0 = time.time()
    before = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    out = subprocess.run(cmd, capture_output=True, text=True)
    wall = time.time() - t0
    if out.returncode != 0:
        sys.exit(f"bench: {' '.join(cmd)} failed:\n{out.stdout}{out.stderr}")
    row = [l for l in out.stdout.splitlines() if l.strip() and not l.startswith("#")][-1].split()
    # topology algo collective size count type redop cycles algbw busbw eff #wrong wall
    return {"topology": topo, "size": size, "cycles": int(row[7]), "busbw": float(row[9]),
            "eff": float(row[10]), "wrong": int(row[11]), "wall_s": wall,
            "maxrss_mb": resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024.0,
            "rss_grew": resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss > before}


def main():
    fabric = sys.argv[1]
    quick = "--quick" in sys.argv
    sizes = ["64K", "256K"] if quick else ["16K", "64K", "256K", "1M"]
    rows = []
    print("allreduce fp32 sum on the SystemC model (cycles; eff = bound / cycles)")
    print(f"{'size':>6} | {'ring:8':>9} {'eff':>5} | {'biring:8':>9} {'eff':>5} | "
          f"{'ladder:8':>9} {'eff':>5} | {'ladder/biring':>13} {'ladder/ring':>11}")
    for size in sizes:
        r = {t: run(fabric, t, size) for t in ("ring:8", "biring:8", "ladder:8")}
        rows += r.values()
        lad, bi, ri = r["ladder:8"], r["biring:8"], r["ring:8"]
        print(f"{size:>6} | {ri['cycles']:>9} {ri['eff']:>5.3f} | {bi['cycles']:>9} "
              f"{bi['eff']:>5.3f} | {lad['cycles']:>9} {lad['eff']:>5.3f} | "
              f"{lad['cycles'] / bi['cycles']:>13.3f} {lad['cycles'] / ri['cycles']:>11.3f}")
    if not quick:
        print("\nscale: ladder:64, 1 MiB fp32 per chip")
        r = run(fabric, "ladder:64", "1M")
        rows.append(r)
        print(f"  cycles {r['cycles']}, eff {r['eff']:.3f}, wall {r['wall_s']:.1f} s, "
              f"peak RSS {r['maxrss_mb']:.0f} MB, simulated {r['cycles'] / r['wall_s']:.0f} "
              f"cycles/s for 64 chips")
    bad = [r for r in rows if r["wrong"]]
    os.makedirs("build/bench", exist_ok=True)
    with open("build/bench/model.csv", "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=list(rows[0].keys()))
        w.writeheader()
        w.writerows(rows)
    print("\nwrote build/bench/model.csv")
    if bad:
        sys.exit(f"bench: {len(bad)} runs had wrong elements")


if __name__ == "__main__":
    main()
