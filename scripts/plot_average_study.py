#!/usr/bin/env python3
"""Plots the averaging study (averaging patent): error against N (log x) for pairwise averaging,
divide-then-sum and sum-then-divide, max (solid) and mean (dashed), one panel per dtype.

Usage: plot_average_study.py STUDY.csv OUT.png
(STUDY.csv from `fabric average-study --csv`; `fabric average-study --png OUT.png` runs this
script itself, with MPLBACKEND=Agg.) Exit status 3: matplotlib is missing.
"""
import csv
import sys

try:
    import matplotlib
except ImportError:
    print("plot_average_study: matplotlib is missing: apt-get install python3-matplotlib "
          "(scripts/setup.sh does), and run this script with /usr/bin/python3", file=sys.stderr)
    sys.exit(3)

matplotlib.use("Agg")  # no display: write the file only
import matplotlib.pyplot as plt  # noqa: E402  (after the backend is chosen)

METHODS = [("pairwise", "pairwise (Fujitsu)", "tab:blue"),
           ("dts", "divide-then-sum", "tab:red"),
           ("std", "sum-then-divide (wide)", "tab:green")]


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    path, out = sys.argv[1], sys.argv[2]
    try:
        with open(path, newline="") as f:
            rows = list(csv.DictReader(f))
    except OSError as e:
        sys.exit(f"plot_average_study: cannot read {path}: {e}")
    dtypes = []
    for r in rows:
        if r["dtype"] not in dtypes:
            dtypes.append(r["dtype"])
    if not dtypes:
        sys.exit(f"plot_average_study: {path} has no rows")
    fig, axes = plt.subplots(1, len(dtypes), figsize=(6.4 * len(dtypes), 4.8), squeeze=False,
                             sharey=True)
    for ax, dt in zip(axes[0], dtypes):
        sel = [r for r in rows if r["dtype"] == dt]
        n = [int(r["n"]) for r in sel]
        for key, label, color in METHODS:
            ax.plot(n, [float(r[f"{key}_max_err"]) for r in sel], color=color, lw=1.2,
                    label=f"{label}, max")
            ax.plot(n, [float(r[f"{key}_mean_err"]) for r in sel], color=color, lw=1.2,
                    ls="--", label=f"{label}, mean")
        ax.set_xscale("log", base=2)
        ax.set_yscale("log")  # an error of 0 (not seen with random trials) would be left out
        ticks = [t for t in (2, 4, 8, 16, 32, 64, 128, 256, 512, 1024, 2048, 4096)
                 if min(n) <= t <= max(n)]
        ax.set_xticks(ticks)
        ax.set_xticklabels([str(t) for t in ticks])
        ax.set_xlabel("N (chips)")
        ax.set_title(f"{dt}: {sel[0]['trials']} trials per N (4 structured); "
                     "max solid, mean dashed", fontsize=10)
        ax.grid(True, which="both", alpha=0.3)
    axes[0][0].set_ylabel("|result - S/N| (LSB)")
    axes[0][0].legend(fontsize=8, loc="upper left")
    fig.suptitle("Averaging N low-bit integers: error against the exact mean")
    fig.tight_layout()
    fig.savefig(out, dpi=110)


if __name__ == "__main__":
    main()
