#!/usr/bin/env python3
"""Draws fabric train's loss curve: scripts/plot_training.py RUN.csv OUT.png (python3-matplotlib)."""
import csv
import sys

import matplotlib
matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402


def main():
    if len(sys.argv) != 3:
        sys.exit("usage: plot_training.py RUN.csv OUT.png")
    rows = list(csv.DictReader(open(sys.argv[1])))
    ep = [int(r["epoch"]) for r in rows]
    fig, ax = plt.subplots(figsize=(6, 3.6), dpi=100)
    ax.plot(ep, [float(r["train_loss"]) for r in rows], "o-", label="train loss")
    ax.plot(ep, [float(r["test_loss"]) for r in rows], "s-", label="test loss")
    ax.set_xlabel("epoch")
    ax.set_ylabel("cross-entropy")
    ax2 = ax.twinx()
    ax2.plot(ep, [100 * float(r["test_acc"]) for r in rows], "^--", color="tab:green",
             label="test accuracy")
    ax2.set_ylabel("test accuracy (%)")
    ax2.set_ylim(0, 100)
    h1, l1 = ax.get_legend_handles_labels()
    h2, l2 = ax2.get_legend_handles_labels()
    ax.legend(h1 + h2, l1 + l2, loc="center right")
    ax.set_title("softmax regression on 8 chips, sharded SGD (sharded-update patent) on the fabric")
    ax.title.set_fontsize(9)
    fig.tight_layout()
    # Fixed metadata so that the same run draws the same bytes.
    fig.savefig(sys.argv[2], metadata={"Software": None})


if __name__ == "__main__":
    main()
