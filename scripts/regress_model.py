#!/usr/bin/env python3
"""make regress-model SEEDS=N: random collectives on the SystemC model, one per seed.
make regress SEEDS=N: the same on the RTL and the model in lock step (`fabric --backend both`:
memories bit-identical, every packet stream identical, cycles within 2%), with machines the
Verilated chip can build (nodes of at most 4 ports, at most 4 tiles) and smaller sizes.

Each seed picks a topology kind and size, a collective, a dtype/op pair, a byte count that
divides by nothing in particular, an algorithm valid for the topology, sometimes a chunk size
and a tile count, and input data from the same seed; `fabric run` checks the result against the reference. Prints a progress
line, a summary table per topology kind, and for every failure the command that reproduces
it. Usage: regress_model.py PATH/TO/fabric SEEDS [FIRST_SEED] [--rtl] [--faults]

make regress-faults SEEDS=N (--rtl --faults): the same lock-step runs at small sizes (at most
2 KiB) under random link faults (docs/reliability.md section 7): word error rates up to 1e-2,
bit error rates up to 5e-5, drops up to 1e-2, stalls up to 10%, sometimes a link held down; the
fault seed is the run's seed. A run passes when both backends' outputs are bit-exact and every
packet stream identical (cycles are not compared under faults); a run that exceeds its time limit
or whose error names the watchdog or the cycle limit is counted as a hang.
"""
import random
import subprocess
import sys
import time
from collections import defaultdict

SIZES = {"int8": 1, "uint8": 1, "int16": 2, "int32": 4, "fp16": 2, "bf16": 2, "fp32": 4}


def parse_chips(topo):
    """The number of chips of a topology string: P of kind:P, or the leaves' sum of a tree."""
    kind, _, spec = topo.partition(":")
    if kind != "tree":
        return int(spec)
    return sum(int(n) for n in spec.replace("(", " ").replace(")", " ").replace(",", " ").split())


def random_tree(rng, depth, budget, max_leaves=4):
    if depth == 0 or budget[0] <= 3 or rng.random() < 0.3:
        k = rng.randint(1, min(max_leaves, budget[0]))
        budget[0] -= k
        return str(k)
    kids = []
    for _ in range(rng.randint(1, 3)):
        if budget[0] <= 0:
            break
        kids.append(random_tree(rng, depth - 1, budget, max_leaves))
    return "(" + ",".join(kids) + ")"


def random_faults(seed):
    # From its own generator, so that the collective a seed draws is the one `make regress` draws.
    rng = random.Random(seed * 104729 + 3)
    parts = []
    if rng.random() < 0.7:
        parts.append(f"wer={rng.choice([1e-4, 1e-3, 3e-3, 1e-2])}")
    if rng.random() < 0.3:
        parts.append(f"ber={rng.choice([1e-6, 1e-5, 5e-5])}")
    if rng.random() < 0.5:
        parts.append(f"drop={rng.choice([1e-4, 1e-3, 1e-2])}")
    if rng.random() < 0.4:
        parts.append(f"stall={rng.choice([0.01, 0.05, 0.1])}")
    if rng.random() < 0.2:
        parts.append(f"down={rng.choice([1e-4, 1e-3])},downlen={rng.choice([50, 200, 1000])}")
    if not parts:
        parts.append("wer=1e-3")
    return ",".join(parts + [f"seed={seed}"])


def pick(seed, rtl=False, faults=False):
    rng = random.Random(seed)
    kind = rng.choice(["ring", "biring", "line", "ladder", "tree"])
    if kind == "ladder":
        topo = f"ladder:{rng.choice([4, 6, 8] if rtl else [4, 6, 8, 10, 12, 16])}"
    elif kind == "tree":
        while True:
            # The RTL's switch has 4 ports: at most 3 children below the root.
            spec = random_tree(rng, 3, [rng.randint(2, 8 if rtl else 16)], 3 if rtl else 4)
            if (not spec.isdigit() or int(spec) >= 2) and (not rtl or spec.count(",") < 12):
                break
        topo = f"tree:{spec}"
    else:
        topo = f"{kind}:{rng.choice([2, 3, 4, 5, 6, 8] if rtl else [2, 3, 4, 5, 7, 8, 12, 16])}"
    dtype = rng.choice(list(SIZES))
    ints = dtype in ("int8", "uint8", "int16", "int32")
    op = rng.choice(["sum", "max", "min"] + (["avg"] if ints else []))
    coll = "allreduce" if op == "avg" else rng.choice(
        ["allreduce", "allreduce", "reduce_scatter", "all_gather", "broadcast", "reduce"])
    if op == "avg" and rng.random() < 0.3:
        coll = "reduce_scatter"
    count = rng.randint(1, 1500 if rtl else 20000)
    # One RTL seed in eight is a larger run (6 to 32 KiB), drawn from its own generator so that
    # every other draw of a seed stays as it was.
    if rtl and not faults and random.Random(seed * 7919 + 1).random() < 0.125:
        count = random.Random(seed * 7919 + 2).randint(6144, 32768) // SIZES[dtype]
    if faults:  # small sizes: many seeds within the hour
        count = 1 + count * (2048 // SIZES[dtype]) // 1501
    args = ["--topology", topo, "--collective", coll, "--dtype", dtype, "--op", op,
            "--bytes", str(count * SIZES[dtype]), "--seed", str(seed)]
    if ints and op == "sum" and rng.random() < 0.2:
        args.append("--sat")
    if coll in ("broadcast", "reduce"):
        args += ["--root", "0"]
    if kind == "ladder" and op != "avg" and rng.random() < 0.3:
        args += ["--algo", rng.choice(["ring", "biring", "line"]) if coll == "allreduce"
                 else rng.choice(["ring", "biring"])]
    # One allreduce in five on a power-of-two machine forces the butterfly (auto picks it only
    # for sums up to 256 bytes), from its own generator so that every other draw stays as it was.
    chips = parse_chips(topo)
    if (coll == "allreduce" and op != "avg" and "--algo" not in args and chips >= 2
            and chips & (chips - 1) == 0 and random.Random(seed * 7919 + 3).random() < 0.2):
        args += ["--algo", "butterfly"]
    if rng.random() < 0.2:
        args += ["--chunk", str(rng.choice([256, 512, 1024, 2048, 4096]))]
    if rng.random() < 0.3:
        args += ["--tiles", str(rng.choice([1, 2, 3, 4] if rtl else [1, 2, 3, 5, 8, 16]))]
    if rtl:
        args += ["--backend", "both"]
    if faults:
        args += ["--faults", random_faults(seed)]
    return kind, args


def main():
    rtl = "--rtl" in sys.argv
    faults = "--faults" in sys.argv
    argv = [a for a in sys.argv if a not in ("--rtl", "--faults")]
    fabric, n = argv[1], int(argv[2])
    first = int(argv[3]) if len(argv) > 3 and argv[3] else 1
    name = "regress-faults" if faults else "regress" if rtl else "regress-model"
    hangs = wrong = 0
    fault_totals = defaultdict(int)  # "# faults rtl:" counters summed over the runs
    stats = defaultdict(lambda: [0, 0, 0, 1 << 62, 0, set()])  # kind -> runs, failures, cycles,
    # smallest and largest bytes, collectives
    failures = []
    t0 = time.time()
    for i, seed in enumerate(range(first, first + n)):
        kind, args = pick(seed, rtl, faults)
        try:
            out = subprocess.run([fabric, "run", *args, "--no-header"], capture_output=True,
                                 text=True, timeout=900)
        except subprocess.TimeoutExpired as e:
            out = subprocess.CompletedProcess(e.cmd, 124, e.stdout or "",
                                              (e.stderr or "") + "\nhang: no result in 900 s")
            out.stdout = out.stdout if isinstance(out.stdout, str) else out.stdout.decode()
            out.stderr = out.stderr if isinstance(out.stderr, str) else out.stderr.decode()
        text = out.stdout + out.stderr
        if out.returncode == 124 or "watchdog" in text or "cycle limit" in text:
            hangs += 1
        for line in out.stdout.splitlines():
            if line.startswith("# faults rtl:"):
                f = line.split(":", 1)[1].replace("|", "").split()
                for k, v in zip(f[0::2], f[1::2]):
                    fault_totals[k] += int(v)
            elif line.strip() and not line.startswith("#") and len(line.split()) > 11:
                wrong += int(line.split()[11])
        st = stats[kind]
        st[0] += 1
        nbytes = int(args[args.index("--bytes") + 1])
        st[3], st[4] = min(st[3], nbytes), max(st[4], nbytes)
        st[5].add(args[args.index("--collective") + 1])
        if out.returncode != 0:
            st[1] += 1
            failures.append((seed, args, (out.stdout + out.stderr).strip().splitlines()[-8:]))
        else:
            rows = [l for l in out.stdout.splitlines() if l.strip() and not l.startswith("#")]
            st[2] += int(rows[-1].split()[7])
        print(f"\r{name}: {i + 1}/{n} seeds, {len(failures)} failed, "
              f"{time.time() - t0:.0f} s", end="", flush=True)
    print()
    print(f"{'topology kind':<14} {'runs':>5} {'failed':>6} {'simulated cycles':>17} "
          f"{'bytes':>13}  collectives")
    for kind in sorted(stats):
        r, f, c, lo, hi, colls = stats[kind]
        print(f"{kind:<14} {r:>5} {f:>6} {c:>17} {f'{lo}-{hi}':>13}  {len(colls)}")
    if faults:
        print(f"{name}: wrong elements {wrong}, hangs {hangs}; RTL wires and links in all: " +
              ", ".join(f"{k} {v}" for k, v in fault_totals.items()))
    print(f"{name}: {n} seeds from {first} in {time.time() - t0:.0f} s, {len(failures)} failed")
    for seed, args, tail in failures:
        quoted = " ".join(a if a.replace(":", "").replace("-", "").replace("_", "").isalnum()
                          else f"'{a}'" for a in args)
        print(f"\nFAILED seed {seed}: reproduce with\n  {fabric} run {quoted}")
        for line in tail:
            print(f"    {line}")
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
