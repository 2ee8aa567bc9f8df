#!/usr/bin/env python3
"""make bench-faults: goodput of a collective against the link fault rate, on the RTL and the model.

For each fault setting, `fabric run` runs the same allreduce (default ring:4, fp32 sum, 16 KiB per
chip) with the retry layer hiding the faults (docs/reliability.md); goodput is the clean run's
cycles divided by the faulty run's, so 1.000 means the faults cost nothing. The table also gives
the words the wires corrupted or dropped and the replays the links started, from the
"# faults <backend>:" lines fabric prints. Every run must still be bit-exact (#wrong 0).

Usage: bench_faults.py PATH/TO/fabric [--topology T] [--bytes N] [--backends rtl,model]
"""
import argparse
import subprocess
import sys

SETTINGS = [
    ("none", ""),
    ("wer=1e-4", "wer=1e-4"),
    ("wer=1e-3", "wer=1e-3"),
    ("wer=3e-3", "wer=3e-3"),
    ("wer=1e-2", "wer=1e-2"),
    ("wer=3e-2", "wer=3e-2"),
    ("ber=1e-5", "ber=1e-5"),
    ("ber=5e-5", "ber=5e-5"),
    ("drop=1e-3", "drop=1e-3"),
    ("drop=1e-2", "drop=1e-2"),
    ("stall=0.05", "stall=0.05"),
    ("down=1e-4 x200", "down=1e-4,downlen=200"),
]


def run(fabric, topo, nbytes, backend, faults):
    args = [fabric, "run", "--topology", topo, "--collective", "allreduce", "--dtype", "fp32",
            "--op", "sum", "--bytes", str(nbytes), "--backend", backend, "--no-header"]
    if faults:
        args += ["--faults", faults + ",seed=7"]
    out = subprocess.run(args, capture_output=True, text=True)
    if out.returncode != 0:
        sys.exit(f"bench-faults: {' '.join(args)} failed:\n{out.stdout}{out.stderr}")
    row = [l for l in out.stdout.splitlines() if l.strip() and not l.startswith("#")][-1].split()
    stats = {}
    for line in out.stdout.splitlines():
        if line.startswith(f"# faults {backend}:"):
            f = line.split(":", 1)[1].replace("|", "").split()
            stats = {k: int(v) for k, v in zip(f[0::2], f[1::2])}
    return int(row[7]), int(row[11]), stats


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("fabric")
    ap.add_argument("--topology", default="ring:4")
    ap.add_argument("--bytes", type=int, default=16384)
    ap.add_argument("--backends", default="rtl,model")
    a = ap.parse_args()
    print(f"# goodput against link faults: allreduce {a.topology}, fp32 sum, {a.bytes} bytes per "
          f"chip; goodput = clean cycles / cycles")
    print(f"{'backend':<7} {'faults':<16} {'cycles':>8} {'goodput':>8} {'#wrong':>6} "
          f"{'words':>8} {'corrupted':>9} {'dropped':>8} {'replays':>8} {'timeouts':>8}")
    for backend in a.backends.split(","):
        clean = None
        for name, spec in SETTINGS:
            cycles, wrong, st = run(a.fabric, a.topology, a.bytes, backend, spec)
            clean = clean or cycles
            print(f"{backend:<7} {name:<16} {cycles:>8} {clean / cycles:>8.3f} {wrong:>6} "
                  f"{st.get('words', 0):>8} {st.get('corrupted', 0):>9} {st.get('dropped', 0):>8} "
                  f"{st.get('replays', 0):>8} {st.get('timeouts', 0):>8}", flush=True)


if __name__ == "__main__":
    main()
