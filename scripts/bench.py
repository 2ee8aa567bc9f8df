#!/usr/bin/env python3
"""make bench: the standard performance set (docs/performance.md), every figure from
`fabric bench` runs, every run checked element by element. Writes under build/bench/:

  sweep_fp32.{txt,csv,json}   allreduce fp32 sum, 8 B .. 1 MiB per chip, on the model:
                              ring:8, biring:8, ladder:8, line:8, an 8-leaf and a 12-leaf
                              tree, each row with the algorithm the compiler chose
  sweep_bf16.{txt,csv,json}   the same for ladder:8 in bf16
  busbw.png                   busbw against size, every topology of the fp32 sweep, one chart
  rtl_256k.{txt,csv,json}     the RTL at 256 KiB per chip: ladder:8 fp32 and bf16, ring:8,
                              biring:8, with the model's cycles beside them (BENCH_RTL=0 skips)
  latency.{txt,csv,json}      8-byte allreduce: per-step latency from ring:2..8 (model, and
                              the RTL on ring:2..4), and 8 chips on every topology kind
  speed.{txt,csv,json}        simulator speed: the same collective (ladder:8, 16 KiB per chip)
                              on the model and the Verilated RTL, cycles per second of the run
  scale.{txt,csv,json}        1 MiB per chip on ladder:64 and a 64-leaf tree (model): wall
                              time and peak memory
  summary.md                  the headline tables (the README's)

Usage: bench.py PATH/TO/fabric   (environment: BENCH_RTL=0 skips the RTL runs, about 8 of the
~10 minutes; BENCH_QUICK=1 stops the sweeps at 64 KiB and skips the scale runs)
       bench.py PATH/TO/fabric --scale [TOPOLOGY ...]   the scale table alone for big machines
       (default ring:1024 and ladder:1024, ~25 min and up to ~6 GB): scale_big.{txt,csv,json}
"""
import json
import os
import subprocess
import sys
import time

OUT = "build/bench"
TREE8 = "tree:((2,2),(2,2))"
TREE12 = "tree:((2,2),3,(1,4))"
TREE64 = "tree:((8,8,8,8),(8,8,8,8))"


def bench(fabric, name, topologies, extra, quiet=False):
    """Runs one `fabric bench`, tees its table to OUT/name.txt, returns its JSON rows."""
    cmd = [fabric, "bench"]
    for t in topologies:
        cmd += ["--topology", t]
    cmd += extra + ["--csv", f"{OUT}/{name}.csv", "--json", f"{OUT}/{name}.json"]
    print("$ " + " ".join(f"'{c}'" if "(" in c else c for c in cmd), flush=True)
    t0 = time.time()
    with open(f"{OUT}/{name}.txt", "w") as log:
        p = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        for line in p.stdout:
            log.write(line)
            if not quiet:
                print(line, end="", flush=True)
        rc = p.wait()
    if rc == 2 or not os.path.exists(f"{OUT}/{name}.json"):
        sys.exit(f"bench: {name}: fabric refused the arguments (exit {rc}); see {OUT}/{name}.txt")
    with open(f"{OUT}/{name}.json") as f:
        rows = json.load(f)
    print(f"# {name}: {len(rows)} points in {time.time() - t0:.0f} s", flush=True)
    if rc != 0:
        bad = [r for r in rows if not r["ok"]]
        sys.exit(f"bench: {name}: {len(bad)} points failed (exit {rc}); see {OUT}/{name}.txt")
    return rows


def save(name, rows, header, fmt):
    with open(f"{OUT}/{name}.json", "w") as f:
        json.dump(rows, f, indent=1)
    with open(f"{OUT}/{name}.csv", "w") as f:
        f.write(",".join(rows[0].keys()) + "\n")
        for r in rows:
            f.write(",".join(str(v) for v in r.values()) + "\n")
    lines = [header] + [fmt(r) for r in rows]
    with open(f"{OUT}/{name}.txt", "w") as f:
        f.write("\n".join(lines) + "\n")
    print("\n".join(lines), flush=True)
    return lines


def scale(fabric, name, topologies):
    """1 MiB per chip on each topology (model): cycles, wall time and peak memory."""
    rows = bench(fabric, name + "_runs", topologies, ["--min-bytes", "1M", "--max-bytes", "1M"],
                 quiet=True)
    table = [{"topology": r["topology"], "chips": r["chips"], "bytes": r["bytes"],
              "cycles": r["cycles"], "eff": round(r["eff"], 4), "wall_s": r["wall_s"],
              "peak_rss_mb": r["peak_rss_mb"]} for r in rows]
    return save(name, table, "# 1 MiB per chip allreduce fp32 on the model: wall time "
                "and peak memory of the whole run",
                lambda r: f"  {r['topology']:<28} {r['chips']:>4} chips {r['cycles']:>8} "
                          f"cycles eff {r['eff']:.3f} {r['wall_s']:>7.1f} s "
                          f"{r['peak_rss_mb']:>7.0f} MB")


def by(rows, topo, size):
    return next(r for r in rows if r["topology"] == topo and r["bytes"] == size)


def main():
    if len(sys.argv) < 2 or (len(sys.argv) > 2 and sys.argv[2] != "--scale"):
        sys.exit(__doc__)
    fabric = sys.argv[1]
    if fabric in ("-h", "--help"):
        print(__doc__)
        return
    if not (os.path.isfile(fabric) and os.access(fabric, os.X_OK)):
        sys.exit(
            f"bench.py: {fabric} is not an executable fabric tool; build it with `make build` "
            "and pass its path (build/cmake/fabric), or run `make bench`"
        )
    if len(sys.argv) > 2:  # make bench-scale: the big machines alone
        os.makedirs(OUT, exist_ok=True)
        scale(fabric, "scale_big", sys.argv[3:] or ["ring:1024", "ladder:1024"])
        return
    rtl = os.environ.get("BENCH_RTL", "1") != "0"
    quick = os.environ.get("BENCH_QUICK", "0") != "0"
    os.makedirs(OUT, exist_ok=True)
    t_start = time.time()
    top = "64K" if quick else "1M"
    md = ["# Benchmarks (make bench)", ""]

    # 1. The sweeps and the plot.
    topos = ["ring:8", "biring:8", "ladder:8", "line:8", TREE8, TREE12]
    fp32 = bench(fabric, "sweep_fp32", topos, ["--dtype", "fp32", "--max-bytes", top])
    bf16 = bench(fabric, "sweep_bf16", ["ladder:8"], ["--dtype", "bf16", "--max-bytes", top])
    # matplotlib is Debian's python3-matplotlib: the plot runs under Debian's Python.
    plot_python = "/usr/bin/python3" if os.path.exists("/usr/bin/python3") else sys.executable
    subprocess.run([plot_python, "scripts/bench_plot.py", f"{OUT}/busbw.png",
                    "allreduce fp32 sum, the compiler's choice per size (SystemC model)",
                    f"{OUT}/sweep_fp32.json"], check=True)
    sizes = [8, 1024, 16384, 65536] + ([] if quick else [262144, 1 << 20])
    md += ["## allreduce fp32 sum, model: busbw in bytes per cycle (efficiency), the algorithm "
           "the compiler chose", "",
           "| size per chip | " + " | ".join(topos) + " |",
           "|---:|" + "---:|" * len(topos)]
    for s in sizes:
        cells = [f"{by(fp32, t, s)['busbw']:.2f} ({by(fp32, t, s)['eff']:.3f}) "
                 f"{by(fp32, t, s)['algo']}" for t in topos]
        md.append(f"| {s} | " + " | ".join(cells) + " |")
    md += ["", "![busbw against size](busbw.png)", ""]
    # The same sweep at the narrow flit widths: efficiency against each width's own bound.
    narrow = ["ring:8", "biring:8", "ladder:8"]
    by_width = {128: fp32}
    for w in (64, 32):
        by_width[w] = bench(fabric, f"sweep_fp32_w{w}", narrow,
                            ["--dtype", "fp32", "--max-bytes", top, "--flit-bits", str(w)])
    md += ["## allreduce fp32 sum, 8 chips, model: efficiency per flit width", "",
           "| size per chip | " + " | ".join(f"{t} {w}b" for t in narrow for w in (128, 64, 32)) +
           " |", "|---:|" + "---:|" * (3 * len(narrow))]
    for s in sizes:
        cells = [f"{by(by_width[w], t, s)['eff']:.3f}" for t in narrow for w in (128, 64, 32)]
        md.append(f"| {s} | " + " | ".join(cells) + " |")
    md.append("")

    # 2. The RTL at 256 KiB per chip, against the bound and the model, at every flit width
    # (docs/packets.md section 2; W in the bound is the width's bytes per flit).
    if rtl:
        print("# the RTL at 256 KiB per chip: about a minute per run (8 Verilated chips, "
              "loaded and read back through their host ports)", flush=True)
        cases = [("ladder:8", "fp32", 128), ("ladder:8", "bf16", 128), ("ring:8", "fp32", 128),
                 ("biring:8", "fp32", 128)]
        cases += [(t, "fp32", w) for w in (64, 32) for t in ("ladder:8", "ring:8", "biring:8")]
        rows = []
        for topo, dt, w in cases:
            tag = f"{topo.replace(':', '')}_{dt}" + ("" if w == 128 else f"_w{w}")
            width = ["--flit-bits", str(w)]
            r = bench(fabric, f"rtl_{tag}", [topo],
                      ["--backend", "rtl", "--dtype", dt, "--min-bytes", "256K",
                       "--max-bytes", "256K"] + width, quiet=True)[0]
            m = bench(fabric, f"model_{tag}", [topo],
                      ["--dtype", dt, "--min-bytes", "256K", "--max-bytes", "256K"] + width,
                      quiet=True)[0]
            rows.append({"topology": topo, "dtype": dt, "flit_bits": w, "bytes": 262144,
                         "rtl_cycles": r["cycles"], "model_cycles": m["cycles"],
                         "bound_cycles": r["bound_cycles"], "rtl_eff": round(r["eff"], 4),
                         "rtl_over_model": round(r["cycles"] / m["cycles"], 4),
                         "rtl_wrong": r["wrong"], "rtl_wall_s": r["wall_s"]})
        lines = save("rtl_256k", rows,
                     "# allreduce sum at 256 KiB per chip on the RTL (Verilated), against the bound "
                     "and the model\n#  topology  type flit  rtl_cycles model_cycles   bound  "
                     "rtl_eff rtl/model #wrong  wall_s",
                     lambda r: f"  {r['topology']:>8} {r['dtype']:>5} {r['flit_bits']:>4} "
                               f"{r['rtl_cycles']:>11} {r['model_cycles']:>12} "
                               f"{r['bound_cycles']:>7.0f} {r['rtl_eff']:>8.3f} "
                               f"{r['rtl_over_model']:>9.4f} {r['rtl_wrong']:>6} "
                               f"{r['rtl_wall_s']:>7.0f}")
        md += ["## The RTL at 256 KiB per chip (allreduce sum), per flit width", "", "```"] + \
            lines + ["```", ""]

    # 3. Latency: 8-byte allreduce.
    lat = []
    ring = bench(fabric, "lat_ring", [f"ring:{p}" for p in range(2, 9)],
                 ["--min-bytes", "8", "--max-bytes", "8", "--tiles", "1", "--algo", "ring"],
                 quiet=True)
    cyc = {r["chips"]: r["cycles"] for r in ring}
    step = (cyc[8] - cyc[2]) / (2 * 7 - 2 * 1)  # ring:P runs 2(P-1) steps
    lat.append({"what": "per ring step (model; slope over ring:2..8, 8 B, 1 tile)",
                "backend": "model", "cycles": round(step, 2)})
    lat.append({"what": "fixed part (model; ring:P = fixed + 2(P-1) * step)", "backend": "model",
                "cycles": round(cyc[2] - 2 * step, 2)})
    if rtl:
        rring = bench(fabric, "lat_ring_rtl", ["ring:2", "ring:4"],
                      ["--backend", "rtl", "--min-bytes", "8", "--max-bytes", "8", "--tiles", "1",
                       "--algo", "ring"], quiet=True)
        rc = {r["chips"]: r["cycles"] for r in rring}
        lat.append({"what": "per ring step (RTL; slope over ring:2, ring:4)", "backend": "rtl",
                    "cycles": round((rc[4] - rc[2]) / 4, 2)})
    # 8 chips: each topology's bandwidth algorithm, then what auto picks (the butterfly).
    eight = [("ring:8", "ring"), ("biring:8", "biring"), ("ladder:8", "ladder"),
             ("line:8", "line"), (TREE8, "tree"), ("tree:(8)", "tree")]
    for backend in ["model"] + (["rtl"] if rtl else []):
        rows = []
        for topo, algo in eight:
            rows += bench(fabric, f"lat_8chips_{backend}_{algo}_{len(rows)}", [topo],
                          ["--backend", backend, "--min-bytes", "8", "--max-bytes", "8",
                           "--algo", algo], quiet=True)
        rows += bench(fabric, f"lat_8chips_{backend}_auto", [t for t, _ in eight],
                      ["--backend", backend, "--min-bytes", "8", "--max-bytes", "8"], quiet=True)
        for r in rows:
            lat.append({"what": f"8-byte allreduce, {r['topology']} (algorithm {r['algo']})",
                        "backend": backend, "cycles": r["cycles"]})
    lines = save("latency", lat, "# latency, cycles (4 tiles per chip unless said)",
                 lambda r: f"  {r['cycles']:>8}  {r['backend']:>5}  {r['what']}")
    md += ["## Latency (cycles)", "", "```"] + lines + ["```", ""]

    # 4. Simulator speed on one collective.
    speed = []
    for backend in ["model"] + (["rtl"] if rtl else []):
        r = bench(fabric, f"speed_{backend}", ["ladder:8"],
                  ["--backend", backend, "--min-bytes", "16K", "--max-bytes", "16K"],
                  quiet=True)[0]
        speed.append({"simulator": "SystemC model" if backend == "model" else
                      "Verilator (fabric, 8 chips + C++ wires)", "collective":
                      "allreduce ladder:8 fp32 16K", "cycles": r["cycles"],
                      "run_s": r["run_s"], "cycles_per_s": round(r["sim_cycles_per_s"]),
                      "wall_s": r["wall_s"], "peak_rss_mb": r["peak_rss_mb"]})
    if len(speed) == 2:
        speed.append({"simulator": "model / Verilator", "collective": "", "cycles": "",
                      "run_s": "", "cycles_per_s": round(speed[0]["cycles_per_s"] /
                                                         speed[1]["cycles_per_s"], 1),
                      "wall_s": "", "peak_rss_mb": ""})
    lines = save("speed", speed, "# simulated cycles per second of the run step (load and read "
                 "back excluded)",
                 lambda r: f"  {r['simulator']:<42} {r['collective']:<28} {r['cycles']:>6} "
                           f"{r['cycles_per_s']:>10}")
    md += ["## Simulator speed", "", "```"] + lines + ["```", ""]

    # 5. Scale on the model.
    if not quick:
        md += ["## Scale (model)", "", "```"] + scale(fabric, "scale", ["ladder:64", TREE64]) + \
              ["```", ""]

    with open(f"{OUT}/summary.md", "w") as f:
        f.write("\n".join(md) + "\n")
    print(f"# make bench: done in {time.time() - t_start:.0f} s; files in {OUT}/ "
          f"(summary.md, busbw.png)")


if __name__ == "__main__":
    main()
