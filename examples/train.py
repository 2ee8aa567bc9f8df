#!/usr/bin/env python3
"""Data-parallel training of softmax regression on the 8x8 digits, with the fabric's sharded
update, in NumPy through the xfabric package: the same run as ``fabric train``, and the same
table, bit for bit (all but the wall-time column).

Every step each chip's slice of the global batch gives its gradient on the host (NumPy, in the
order of operations of sw/tools/train.cpp, so every float rounds the same); the fabric
reduce-scatters the gradients, updates every chip's shard of the fp32 weights with its shard of
the momentum, and all-gathers the new weights (Comm.sgd_step). After every step the weights of
every chip must be bit-identical and equal to the single-process reference (SgdReference: the
same plan on the plain C++ executor).

The random draws (split, shuffles, initial weights) come from xfabric.host.HostRng, the C++
library's std::mt19937_64 and distributions, and exp/log from the C library (xfabric.host), so
that a seed draws what fabric train draws with it (docs/python.md section 4).

    python examples/train.py                       # ladder:8 on the model, 8 epochs
    python examples/train.py --topology ring:4 --steps 3 --backend rtl
"""

from __future__ import annotations

import argparse
import gzip
import sys
import time
from typing import Optional, Sequence

import numpy as np

import xfabric
from xfabric.host import HostRng, expf, logf

DIGITS = "/usr/lib/python3/dist-packages/sklearn/datasets/data/digits.csv.gz"
FEATURES, CLASSES = 64, 10
PARAMS = CLASSES * FEATURES + CLASSES  # W (10 x 64), then b (10)
F32 = np.float32


def load_digits(path: str) -> tuple[np.ndarray, np.ndarray]:
    """Pixels / 16 as float32 (n, 64) and labels (n,), from lines of 64 pixels and a label."""
    opener = gzip.open if path.endswith(".gz") else open
    try:
        with opener(path, "rt") as f:
            rows = [line.split(",") for line in f if line.strip()]
    except OSError as e:
        raise SystemExit(
            f"train.py: --data: the digits data {path}: {e.strerror} (Debian package "
            "python3-sklearn: run scripts/setup.sh, or give --data FILE with lines of 64 pixels "
            "0..16 and a label)"
        )
    v = np.array([[float(c) for c in r] for r in rows], dtype=np.float64).astype(F32)
    if v.ndim != 2 or v.shape[1] != FEATURES + 1 or len(v) < 100:
        raise SystemExit(f"train.py: {path}: expected 100 or more lines of 64 pixels and a label")
    return v[:, :FEATURES] / F32(16), v[:, FEATURES].astype(np.int64)


def probs(p: np.ndarray, x: np.ndarray) -> np.ndarray:
    """Softmax probabilities (n, 10) of samples x (n, 64) under parameters p, rounding as
    train.cpp's probs(): z = b; z += w * x feature by feature; exp(z - max); divide by the sum
    taken class by class."""
    w = p[: CLASSES * FEATURES].reshape(CLASSES, FEATURES)
    z = np.repeat(p[CLASSES * FEATURES:][None, :], len(x), axis=0)
    for j in range(FEATURES):
        z += w[:, j][None, :] * x[:, j][:, None]
    mx = np.maximum(z.max(axis=1), F32(-1e30))
    e = expf(z - mx[:, None])
    s = np.zeros(len(x), dtype=F32)
    for k in range(CLASSES):
        s += e[:, k]
    return e / s[:, None]


def gradient(p: np.ndarray, x: np.ndarray, y: np.ndarray, idx: np.ndarray, batch: int) -> np.ndarray:
    """This chip's part of the mean cross-entropy gradient over the global batch: sample by
    sample in idx's order, as train.cpp's gradient()."""
    g = np.zeros((CLASSES, FEATURES), dtype=F32)
    gb = np.zeros(CLASSES, dtype=F32)
    if len(idx) == 0:
        return np.concatenate([g.reshape(-1), gb])
    pr = probs(p, x[idx])
    onehot = (y[idx][:, None] == np.arange(CLASSES)[None, :]).astype(F32)
    e = (pr - onehot) / F32(batch)
    for i in range(len(idx)):
        g += e[i][:, None] * x[idx[i]][None, :]
        gb += e[i]
    return np.concatenate([g.reshape(-1), gb])


def evaluate(p: np.ndarray, x: np.ndarray, y: np.ndarray, idx: np.ndarray) -> tuple[float, float]:
    """Mean loss (summed in double, sample by sample) and accuracy over idx."""
    pr = probs(p, x[idx])
    picked = logf(np.maximum(pr[np.arange(len(idx)), y[idx]], F32(1e-30)))
    loss = 0.0
    for v in picked.tolist():
        loss -= v
    right = int(np.count_nonzero(np.argmax(pr, axis=1) == y[idx]))
    return loss / len(idx), right / len(idx)


def main(argv: Optional[Sequence[str]] = None) -> int:
    ap = argparse.ArgumentParser(
        description="Softmax regression on the 8x8 digits, data-parallel over the topology's "
        "chips through xfabric; the table of `fabric train`, bit for bit."
    )
    ap.add_argument("--topology", default="ladder:8", help="the machine (docs/topology.md)")
    ap.add_argument("--backend", default="model", help="model, rtl or serial:DEV[@BAUD]")
    ap.add_argument("--flit-bits", type=int, default=128, choices=(32, 64, 128))
    ap.add_argument("--epochs", type=int, default=8)
    ap.add_argument("--steps", type=int, default=0, help="stop after N steps (0: no limit)")
    ap.add_argument("--batch", type=int, default=64, help="the global batch")
    ap.add_argument("--lr", type=F32, default=F32(0.5))
    ap.add_argument("--momentum", type=F32, default=F32(0.9))
    ap.add_argument("--weight-decay", type=F32, default=F32(0.0001))
    ap.add_argument("--tiles", type=int, default=2, help="tiles per chip")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--data", default=DIGITS, help="lines of 64 pixels 0..16 and a label (.gz too)")
    ap.add_argument("--csv", default="", help="the loss curve's data")
    a = ap.parse_args(argv)

    x, y = load_digits(a.data)
    rng = HostRng(a.seed)
    order = np.arange(len(y), dtype=np.int32)
    rng.shuffle(order)
    ntest = len(order) // 5
    test, train = order[:ntest].copy(), order[ntest:].copy()

    try:
        comm = xfabric.Comm(a.topology, a.backend, tiles=a.tiles, flit_bits=a.flit_bits)
    except xfabric.Error as e:
        print(f"train.py: {e}", file=sys.stderr)
        return 2
    P = comm.size
    if a.batch < P:
        print(f"train.py: --batch {a.batch} is smaller than the {P} chips; every chip needs a "
              "sample", file=sys.stderr)
        return 2

    w = rng.normal(PARAMS, 0.0, 0.01)
    comm.sgd_init(w, a.lr, a.momentum, a.weight_decay)
    ref = xfabric.SgdReference(comm, w, a.lr, a.momentum, a.weight_decay)

    print(f"# fabric train: softmax regression, {len(train)} train / {len(test)} test digits "
          f"({a.data})")
    print(f"# {comm.topology}, {P} chips, {a.tiles} tiles, backend {a.backend}; {PARAMS} "
          f"parameters fp32, global batch {a.batch} ({a.batch // P} per chip), SGD lr "
          f"{float(a.lr):g} momentum {float(a.momentum):g} weight decay {float(a.weight_decay):g}"
          f", seed {a.seed}; flit {comm.flit_bits} bits")
    print("# every step: reduce-scatter of the gradients, each chip's shard update (ScaleAdd), "
          "all-gather of the weights (sharded-update patent)")
    print("%6s %7s %11s %10s %10s %9s %12s %14s %10s" % (
        "epoch", "steps", "train_loss", "test_loss", "test_acc", "cycles", "identical",
        "reference", "wall_s"))
    csv = open(a.csv, "w") if a.csv else None
    if csv:
        csv.write("epoch,step,train_loss,test_loss,test_acc\n")
    t0 = time.monotonic()
    l0, a0 = evaluate(w, x, y, test)
    tl0, _ = evaluate(w, x, y, train)
    print("%6d %7d %11.4f %10.4f %9.1f%% %9s %12s %14s %10.2f" % (
        0, 0, tl0, l0, 100 * a0, "-", "-", "-", 0.0))
    if csv:
        csv.write(f"0,0,{tl0:g},{l0:g},{a0:g}\n")

    step = 0
    bad_identity = bad_ref = 0
    cycles_sum = 0
    stop = False
    for ep in range(1, a.epochs + 1):
        if stop:
            break
        rng.shuffle(train)
        ep_cycles = ep_steps = 0
        at = 0
        while at + a.batch <= len(train):
            grads = np.stack([
                gradient(w, x, y, train[at + a.batch * c // P: at + a.batch * (c + 1) // P],
                         a.batch)
                for c in range(P)
            ])
            params = comm.sgd_step(grads)
            ep_cycles += comm.cycles
            expect = ref.step(grads)
            bits = params.view(np.uint32)
            bad_identity += int(np.count_nonzero((bits != bits[0]).any(axis=1)))
            bad_ref += int(np.count_nonzero((bits != expect.view(np.uint32)).any(axis=1)))
            w = params[0].copy()
            step += 1
            ep_steps += 1
            at += a.batch
            if a.steps and step >= a.steps:
                stop = True
                break
        cycles_sum += ep_cycles
        tl, _ = evaluate(w, x, y, train)
        loss, acc = evaluate(w, x, y, test)
        print("%6d %7d %11.4f %10.4f %9.1f%% %9d %12s %14s %10.2f" % (
            ep, step, tl, loss, 100 * acc, ep_cycles // ep_steps if ep_steps else 0,
            "NO" if bad_identity else "yes", "DIFFERS" if bad_ref else "bit-identical",
            time.monotonic() - t0))
        if csv:
            csv.write(f"{ep},{step},{tl:g},{loss:g},{acc:g}\n")
    print(f"# {step} steps; mean {cycles_sum / step if step else 0.0:.0f} fabric cycles per step "
          f"({a.backend}); parameters on all {P} chips bit-identical after every step: "
          f"{'NO' if bad_identity else 'yes'}; equal to the single-process reference (same "
          f"reduction order): {'NO' if bad_ref else 'yes'}")
    if csv:
        csv.close()
    return 1 if bad_identity or bad_ref else 0


if __name__ == "__main__":
    sys.exit(main())
