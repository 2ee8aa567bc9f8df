#!/usr/bin/env python3
"""Bus bandwidth of allreduce against message size, measured on the fabric through xfabric, as
a table (nccl-tests' columns, in bytes per cycle) and a plot with matplotlib.

    python examples/busbw.py --topology ladder:8 --max-bytes 1M --png busbw.png

algbw = bytes / cycles; busbw = algbw * 2(P-1)/P (xfabric.busbw_factor), whose ceiling is the
channels a chip drives at once times the payload bytes per flit (docs/performance.md).
"""

from __future__ import annotations

import argparse
import sys
from typing import Optional, Sequence

import numpy as np

import xfabric


def parse_bytes(s: str) -> int:
    """'4096', '64K', '1M' -> bytes."""
    mult = {"K": 1 << 10, "M": 1 << 20}.get(s[-1:].upper(), 1)
    return int(s[:-1] if mult > 1 else s) * mult


def main(argv: Optional[Sequence[str]] = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--topology", default="ring:4")
    ap.add_argument("--backend", default="model")
    ap.add_argument("--tiles", type=int, default=4)
    ap.add_argument("--min-bytes", type=parse_bytes, default=1024)
    ap.add_argument("--max-bytes", type=parse_bytes, default=256 * 1024)
    ap.add_argument("--png", default="", help="draw the plot to this file (matplotlib)")
    a = ap.parse_args(argv)

    comm = xfabric.Comm(a.topology, a.backend, tiles=a.tiles)
    factor = xfabric.busbw_factor("allreduce", comm.size)
    rng = np.random.default_rng(1)
    print(f"# allreduce fp32 sum on {comm.topology} ({comm.size} chips, {comm.tiles} tiles, "
          f"backend {comm.backend}, flit {comm.flit_bits} bits); bandwidth in bytes per cycle")
    print("%10s %9s %9s %9s %9s %6s %10s" % ("bytes", "count", "cycles", "algbw", "busbw",
                                             "eff", "algorithm"))
    sizes, busbw = [], []
    size = a.min_bytes
    while size <= a.max_bytes:
        x = rng.standard_normal((comm.size, size // 4)).astype(np.float32)
        comm.allreduce(x)
        s = comm.last
        assert s is not None
        alg = size / s.cycles
        print("%10d %9d %9d %9.2f %9.2f %6.3f %10s" % (size, size // 4, s.cycles, alg,
                                                       alg * factor, s.efficiency, s.algorithm))
        sizes.append(size)
        busbw.append(alg * factor)
        size *= 2
    if a.png:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt

        fig, ax = plt.subplots(figsize=(6, 4))
        ax.plot(sizes, busbw, marker="o")
        ax.set_xscale("log", base=2)
        ax.set_xlabel("message bytes per chip")
        ax.set_ylabel("busbw (bytes / cycle)")
        ax.set_title(f"allreduce on {comm.topology}, {comm.backend}")
        ax.grid(True, alpha=0.3)
        fig.tight_layout()
        fig.savefig(a.png, dpi=100)
        print(f"# plot: {a.png}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
