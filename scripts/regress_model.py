#!/usr/bin/env python3
"""The random regressions' draws and runs. `make regress*` run them on pytest (tests/regress:
one test per seed, pytest-xdist, JUnit XML, --shard i/N; docs/python.md section 6), which takes
pick(), run_seed() and summarize() from here; this script's own main() is the runner it was
before, kept for machines without pytest.

make regress-model SEEDS=N: random collectives on the SystemC model, one per seed.
make regress SEEDS=N: the same on the RTL and the model in lock step (`fabric --backend both`:
memories bit-identical, every packet stream identical, cycles within 2%), with machines the
Verilated chip can build (nodes of at most 4 ports, at most 4 tiles) and smaller sizes. (The
Verilated switch has 16 links since; the trees keep their 4-port draws so that a seed still
picks what it picked; scripts/test_fabric_cli.sh runs wide switches.)

Each seed picks a topology kind and size, a collective, a dtype/op pair, a byte count that
divides by nothing in particular, an algorithm valid for the topology, sometimes a chunk size
and a tile count, and input data from the same seed; `fabric run` checks the result against the reference. Prints a progress
line, a summary table per topology kind, and for every failure the command that reproduces
it. Usage: regress_model.py PATH/TO/fabric SEEDS [FIRST_SEED] [--rtl] [--faults] [--jobs N]
[--results FILE] (N runs at once; FILE keeps one JSON line per finished seed, and a rerun with
the same FILE skips them: a long regression resumes where it stopped).

make regress-faults SEEDS=N (--rtl --faults): the same lock-step runs at small sizes (at most
2 KiB) under random link faults (docs/reliability.md section 7): word error rates up to 1e-2,
bit error rates up to 5e-5, drops up to 1e-2, stalls up to 10%, sometimes a link held down; the
fault seed is the run's seed. A run passes when both backends' outputs are bit-exact and every
packet stream identical (cycles are not compared under faults); a run that exceeds its time limit
or whose error names the watchdog or the cycle limit is counted as a hang.
"""
import concurrent.futures
import json
import os
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
            # At most 3 children below the root (4-port switches, as the RTL switch once had).
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
    # The flit width (docs/packets.md section 2) from a stream of its own, so a seed draws the
    # same case at every width it could have; 128 adds no option.
    width = random.Random(seed * 7919 + 4).choice([32, 64, 128])
    if width != 128:
        args += ["--flit-bits", str(width)]
    if rtl:
        args += ["--backend", "both"]
    if faults:
        args += ["--faults", random_faults(seed)]
    return kind, args


def run_seed(fabric, seed, rtl, faults):
    """Runs one seed; returns what the summary needs (a plain dict: it is also a results line)."""
    kind, args = pick(seed, rtl, faults)
    try:
        out = subprocess.run([fabric, "run", *args, "--no-header"], capture_output=True,
                             text=True, timeout=900)
        rc, stdout, stderr = out.returncode, out.stdout, out.stderr
    except subprocess.TimeoutExpired as e:
        rc = 124
        stdout = e.stdout.decode() if isinstance(e.stdout, bytes) else (e.stdout or "")
        stderr = (e.stderr.decode() if isinstance(e.stderr, bytes) else (e.stderr or "")) + \
            "\nhang: no result in 900 s"
    text = stdout + stderr
    r = {"seed": seed, "kind": kind, "args": args, "rc": rc, "cycles": 0, "wrong": 0,
         "hang": rc == 124 or "watchdog" in text or "cycle limit" in text, "faults": {},
         "tail": text.strip().splitlines()[-8:] if rc != 0 else []}
    for line in stdout.splitlines():
        if line.startswith("# faults rtl:"):
            f = line.split(":", 1)[1].replace("|", "").split()
            for k, v in zip(f[0::2], f[1::2]):
                r["faults"][k] = r["faults"].get(k, 0) + int(v)
        elif line.strip() and not line.startswith("#") and len(line.split()) > 11:
            r["wrong"] += int(line.split()[11])
    if rc == 0:
        rows = [l for l in stdout.splitlines() if l.strip() and not l.startswith("#")]
        r["cycles"] = int(rows[-1].split()[7])
    return r


def reproduce_command(fabric, args):
    """The shell command that runs one seed's case again."""
    quoted = " ".join(a if a.replace(":", "").replace("-", "").replace("_", "").isalnum()
                      else f"'{a}'" for a in args)
    return f"{fabric} run {quoted}"


def summarize(name, fabric, seeds, done, faults, how):
    """Prints the summary table per topology kind, the totals and, for every failure, the command
    that reproduces it (`make regress*`, standalone or under pytest: tests/regress/conftest.py).
    `done` maps each seed to its run_seed result; returns the number of failures."""
    n, first = len(seeds), seeds[0] if seeds else 0
    hangs = wrong = 0
    fault_totals = defaultdict(int)  # "# faults rtl:" counters summed over the runs
    stats = defaultdict(lambda: [0, 0, 0, 1 << 62, 0, set()])  # kind -> runs, failures, cycles,
    # smallest and largest bytes, collectives
    widths = defaultdict(lambda: [0, 0])  # flit bits -> runs, failures
    failures = []
    for seed in seeds:
        r = done[seed]
        args = r["args"]
        hangs += r["hang"]
        wrong += r["wrong"]
        for k, v in r["faults"].items():
            fault_totals[k] += v
        st = stats[r["kind"]]
        st[0] += 1
        wd = widths[int(args[args.index("--flit-bits") + 1]) if "--flit-bits" in args else 128]
        wd[0] += 1
        wd[1] += r["rc"] != 0
        nbytes = int(args[args.index("--bytes") + 1])
        st[3], st[4] = min(st[3], nbytes), max(st[4], nbytes)
        st[5].add(args[args.index("--collective") + 1])
        if r["rc"] != 0:
            st[1] += 1
            failures.append((seed, args, r["tail"]))
        else:
            st[2] += r["cycles"]
    print(f"{'topology kind':<14} {'runs':>5} {'failed':>6} {'simulated cycles':>17} "
          f"{'bytes':>13}  collectives")
    for kind in sorted(stats):
        r, f, c, lo, hi, colls = stats[kind]
        print(f"{kind:<14} {r:>5} {f:>6} {c:>17} {f'{lo}-{hi}':>13}  {len(colls)}")
    print(f"{name}: by flit width: " + ", ".join(
        f"{w} bits {r} runs {f} failed" for w, (r, f) in sorted(widths.items())))
    if faults:
        print(f"{name}: wrong elements {wrong}, hangs {hangs}; RTL wires and links in all: " +
              ", ".join(f"{k} {v}" for k, v in fault_totals.items()))
    print(f"{name}: {n} seeds from {first} {how}, {len(failures)} failed")
    for seed, args, tail in failures:
        print(f"\nFAILED seed {seed}: reproduce with\n  {reproduce_command(fabric, args)}")
        for line in tail:
            print(f"    {line}")
    return len(failures)


def main():
    rtl = "--rtl" in sys.argv
    faults = "--faults" in sys.argv
    jobs, results_path, argv = 1, None, []
    it = iter(sys.argv)
    for a in it:
        if a in ("--rtl", "--faults"):
            continue
        if a == "--jobs":
            jobs = max(1, int(next(it)))
        elif a == "--results":
            results_path = next(it)
        else:
            argv.append(a)
    fabric, n = argv[1], int(argv[2])
    first = int(argv[3]) if len(argv) > 3 and argv[3] else 1
    name = "regress-faults" if faults else "regress" if rtl else "regress-model"
    seeds = list(range(first, first + n))
    # --results FILE: one JSON line per finished seed; a rerun with the same file skips the seeds
    # it already holds (same fabric, same draws), so a long regression resumes where it stopped.
    done = {}
    if results_path and os.path.exists(results_path):
        with open(results_path) as f:
            for line in f:
                if line.strip():
                    r = json.loads(line)
                    if r["args"] == pick(r["seed"], rtl, faults)[1]:
                        done[r["seed"]] = r
    todo = [s for s in seeds if s not in done]
    if done:
        print(f"{name}: {len(seeds) - len(todo)} of {n} seeds already in {results_path}")
    out_file = open(results_path, "a") if results_path else None
    t0 = time.time()
    tty = sys.stdout.isatty()
    failed = sum(1 for s in seeds if s in done and done[s]["rc"] != 0)
    finished = len(seeds) - len(todo)
    # Runs are independent processes: a pool of threads that each wait for one keeps `jobs`
    # simulations busy; results are summed in seed order below, so the report does not depend on
    # the order they finish in.
    with concurrent.futures.ThreadPoolExecutor(max_workers=jobs) as pool:
        futures = [pool.submit(run_seed, fabric, s, rtl, faults) for s in todo]
        for fut in concurrent.futures.as_completed(futures):
            r = fut.result()
            done[r["seed"]] = r
            finished += 1
            failed += r["rc"] != 0
            if out_file:
                out_file.write(json.dumps(r) + "\n")
                out_file.flush()
            # One line rewritten in place on a terminal; a line every 50 seeds in a log file.
            if tty or finished % 50 == 0 or finished == n:
                line = f"{name}: {finished}/{n} seeds, {failed} failed, {time.time() - t0:.0f} s"
                print("\r" + line if tty else line, end="" if tty else "\n", flush=True)
    if tty:
        print()
    failures = summarize(name, fabric, seeds, done, faults,
                         f"in {time.time() - t0:.0f} s ({jobs} jobs)")
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
