#!/usr/bin/env python3
"""Plots busbw against message size from `fabric bench --json` files, one line per topology, on
one chart (log2 size axis), with each topology's bandwidth bound as a dotted line; the legend
names the algorithm that ran over each range of sizes (the compiler's choice per size).

Usage: bench_plot.py OUT.png TITLE FILE.json [FILE.json ...]
"""
import json
import sys

try:
    import matplotlib
except ImportError:
    sys.exit("bench_plot: matplotlib is missing: apt-get install python3-matplotlib "
             "(scripts/setup.sh does), and run this script with /usr/bin/python3")

matplotlib.use("Agg")  # no display: write the file only
import matplotlib.pyplot as plt  # noqa: E402  (after the backend is chosen)


def human(b):
    if b >= 1 << 20 and b % (1 << 20) == 0:
        return f"{b >> 20}M"
    if b >= 1024 and b % 1024 == 0:
        return f"{b >> 10}K"
    return str(b)


def main():
    if len(sys.argv) < 4:
        sys.exit(__doc__)
    out, title, files = sys.argv[1], sys.argv[2], sys.argv[3:]
    series = {}
    for path in files:
        try:
            with open(path) as f:
                rows = json.load(f)
        except (OSError, ValueError) as e:
            sys.exit(f"bench_plot: cannot read {path}: {e} (run fabric bench --json {path})")
        for r in rows:
            if r["ok"]:
                series.setdefault((r["topology"], r["backend"]), []).append(r)
    if not series:
        sys.exit("bench_plot: no successful points in " + " ".join(files))
    fig, ax = plt.subplots(figsize=(9, 5.5))
    sizes = set()
    for (topo, backend), rows in sorted(series.items()):
        rows.sort(key=lambda r: r["bytes"])
        x = [r["bytes"] for r in rows]
        sizes.update(x)
        label = topo if backend == "model" else f"{topo} ({backend})"
        runs = []  # [algo, first size, last size] per range of one algorithm
        for r in rows:
            if runs and runs[-1][0] == r.get("algo"):
                runs[-1][2] = r["bytes"]
            else:
                runs.append([r.get("algo"), r["bytes"], r["bytes"]])
        if any(a for a, _, _ in runs):
            label += ": " + ", ".join(f"{a} {human(lo)}" + (f"-{human(hi)}" if hi != lo else "")
                                      for a, lo, hi in runs)
        line, = ax.plot(x, [r["busbw"] for r in rows], marker="o", markersize=3, label=label)
        # busbw at the bound: busbw * eff / eff = busbw / eff (the same for every size)
        top = [r["busbw"] / r["eff"] for r in rows if r["eff"] > 0]
        if top:
            ax.axhline(top[-1], color=line.get_color(), linestyle=":", linewidth=1)
    ax.set_xscale("log", base=2)
    ticks = sorted(sizes)
    ax.set_xticks(ticks)
    ax.set_xticklabels([human(b) for b in ticks], rotation=45)
    ax.set_xlabel("message size per chip (bytes)")
    ax.set_ylabel("busbw (bytes per cycle)")
    ax.set_title(title)
    ax.grid(True, which="major", alpha=0.3)
    ax.legend(title="dotted: bandwidth bound", fontsize=8)
    fig.tight_layout()
    fig.savefig(out, dpi=110)
    print(f"bench_plot: wrote {out}")


if __name__ == "__main__":
    main()
