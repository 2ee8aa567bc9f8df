"""Every collective, dtype and op on the model against NumPy (docs/python.md section 5).

Space covered: allreduce, reduce_scatter, all_gather, broadcast, reduce on ring:4 (2 tiles),
every dtype the fabric reduces (int8, uint8, int16, int32, fp16, bf16, fp32), every op valid
for the dtype (sum, max, min; avg for integers), inputs from a seed printed on failure.
Integer sums wrap and must equal NumPy's wrapping sum; floating-point sums are checked exactly
on inputs whose every partial sum is exact (small integers), and within the rounding bound on
random normals; max and min must equal NumPy's; avg must equal the butterfly of floors of
docs/averaging.md. Every chip's result must be bit-identical.
"""

from __future__ import annotations

import ml_dtypes
import numpy as np
import pytest

import xfabric

P = 4
DTYPES = [np.int8, np.uint8, np.int16, np.int32, np.float16, ml_dtypes.bfloat16, np.float32]
INTS = [np.int8, np.uint8, np.int16, np.int32]
FLOATS = [np.float16, ml_dtypes.bfloat16, np.float32]
CASES = [(dt, op) for dt in DTYPES for op in ("sum", "max", "min")] + [(dt, "avg") for dt in INTS]


def ident(dt) -> str:
    return np.dtype(dt).name


def inputs(dt, n: int, seed: int, exact: bool = True) -> np.ndarray:
    """(P, n) inputs: full-range integers; floats as small integers (exact sums) or normals."""
    rng = np.random.default_rng(seed)
    if np.issubdtype(np.dtype(dt), np.integer):
        info = np.iinfo(dt)
        return rng.integers(info.min, info.max, size=(P, n), endpoint=True).astype(dt)
    if exact:
        return rng.integers(-16, 17, size=(P, n)).astype(dt)
    return rng.standard_normal((P, n)).astype(dt)


def reduce_np(x: np.ndarray, op: str) -> np.ndarray:
    """NumPy's reduction over the chips (axis 0) with the fabric's integer semantics."""
    if op == "sum":
        if np.issubdtype(x.dtype, np.integer):
            return np.sum(x, axis=0, dtype=x.dtype)  # wraps, as the fabric does by default
        return np.sum(x.astype(np.float64), axis=0).astype(x.dtype)
    if op == "max":
        return np.max(x, axis=0)
    if op == "min":
        return np.min(x, axis=0)
    assert op == "avg" and len(x) == 4
    v = x.astype(np.int64)  # docs/averaging.md: floors at every level of the butterfly
    return ((((v[0] + v[1]) >> 1) + ((v[2] + v[3]) >> 1)) >> 1).astype(x.dtype)


def same_bits(a: np.ndarray, b: np.ndarray) -> bool:
    return a.shape == b.shape and a.tobytes() == b.tobytes()


def all_rows_equal(out: np.ndarray) -> bool:
    return all(out[c].tobytes() == out[0].tobytes() for c in range(len(out)))


@pytest.mark.parametrize("dt,op", CASES, ids=[f"{ident(d)}-{o}" for d, o in CASES])
def test_allreduce(model: xfabric.Comm, dt, op: str) -> None:
    seed = 100 + CASES.index((dt, op))
    x = inputs(dt, 300, seed)
    out = model.allreduce(x, op)
    assert out.dtype == np.dtype(dt) and out.shape == x.shape
    assert all_rows_equal(out), f"seed {seed}: chips differ"
    assert same_bits(out[0], reduce_np(x, op)), f"seed {seed}: differs from NumPy"
    assert model.last.collective == "allreduce" and model.cycles > 0


@pytest.mark.parametrize("dt", FLOATS, ids=ident)
def test_allreduce_rounding(model: xfabric.Comm, dt) -> None:
    """Random normals: within the rounding bound of (P-1) additions of the exact sum."""
    seed = 7
    x = inputs(dt, 512, seed, exact=False)
    out = model.allreduce(x, "sum")
    assert all_rows_equal(out)
    exact = x.astype(np.float64).sum(axis=0)
    fi = ml_dtypes.finfo(dt)  # NumPy 1.24's finfo does not know bfloat16
    bound = (P - 1) * float(fi.eps) * np.abs(x.astype(np.float64)).sum(axis=0) + float(fi.tiny)
    err = np.abs(out[0].astype(np.float64) - exact)
    assert (err <= bound).all(), f"seed {seed}: error {err.max()} over the bound"


@pytest.mark.parametrize("dt,op", CASES, ids=[f"{ident(d)}-{o}" for d, o in CASES])
def test_reduce_scatter(model: xfabric.Comm, dt, op: str) -> None:
    seed = 200 + CASES.index((dt, op))
    m = 40
    x = inputs(dt, P * m, seed)
    out = model.reduce_scatter(x, op)
    assert out.shape == (P, m)
    want = reduce_np(x, op)
    for c in range(P):
        assert same_bits(out[c], want[c * m:(c + 1) * m]), f"seed {seed}: chip {c}"


@pytest.mark.parametrize("dt", DTYPES, ids=ident)
def test_all_gather(model: xfabric.Comm, dt) -> None:
    x = inputs(dt, 33, 300)
    out = model.all_gather(x)
    assert out.shape == (P, P * 33)
    for c in range(P):
        assert same_bits(out[c], x.reshape(-1))


@pytest.mark.parametrize("root", range(P))
@pytest.mark.parametrize("dt", [np.int8, ml_dtypes.bfloat16, np.float32], ids=ident)
def test_broadcast(model: xfabric.Comm, dt, root: int) -> None:
    x = inputs(dt, 77, 400 + root)
    out = model.broadcast(x, root=root)
    for c in range(P):
        assert same_bits(out[c], x[root])
    out1 = model.broadcast(x[root], root=root)  # the root's buffer alone
    assert same_bits(out1, out)


@pytest.mark.parametrize("dt,op", CASES, ids=[f"{ident(d)}-{o}" for d, o in CASES])
def test_reduce(model: xfabric.Comm, dt, op: str) -> None:
    seed = 500 + CASES.index((dt, op))
    root = seed % P
    x = inputs(dt, 64, seed)
    if op == "avg":  # the averaging butterfly ends on every chip: allreduce, reduce_scatter
        with pytest.raises(xfabric.InvalidArgument, match="avg is supported for allreduce"):
            model.reduce(x, op, root=root)
        return
    out = model.reduce(x, op, root=root)
    assert same_bits(out, reduce_np(x, op)), f"seed {seed}: root {root}"


def test_list_of_arrays_and_stats(model: xfabric.Comm) -> None:
    rows = [np.full(10, c + 1, dtype=np.int32) for c in range(P)]
    out = model.allreduce(rows)
    assert (out == 10).all()
    s = model.last
    assert isinstance(s, xfabric.OpStats)
    assert s.bytes >= 40 and s.cycles > 0 and 0 < s.efficiency <= 1.0 and s.seconds > 0
    assert s.algorithm and s.warnings == []
    assert model.size == P and model.topology == "ring:4" and model.backend == "model"
    assert model.flit_bits == 128 and model.tiles == 2


def test_sgd_step_matches_reference(model: xfabric.Comm) -> None:
    """The sharded-update patent's step: params equal on every chip and to the C++ reference."""
    rng = np.random.default_rng(600)
    n = 1000
    w = rng.standard_normal(n).astype(np.float32)
    model.sgd_init(w, lr=0.1, momentum=0.9, weight_decay=1e-4)
    ref = xfabric.SgdReference(model, w, lr=0.1, momentum=0.9, weight_decay=1e-4)
    m = np.zeros(n, dtype=np.float32)
    for step in range(3):
        g = rng.standard_normal((P, n)).astype(np.float32)
        out, state = model.sgd_step(g, state=True)
        assert all_rows_equal(out), f"step {step}"
        assert same_bits(out, ref.step(g)), f"step {step}"
        assert model.last.collective.startswith("sgd")
        # the shards put together are the parameters; the momentum follows SGD's rule closely
        assert same_bits(np.concatenate([s[0] for s in state])[:n], out[0])
        gsum = g.astype(np.float64).sum(axis=0)
        m = 0.9 * m + gsum + 1e-4 * w
        w = w - 0.1 * m
        np.testing.assert_allclose(out[0], w, rtol=1e-4, atol=1e-5)
        w = out[0].astype(np.float64)


def test_busbw_factor() -> None:
    assert xfabric.busbw_factor("allreduce", 8) == pytest.approx(2 * 7 / 8)
    with pytest.raises(xfabric.InvalidArgument, match="unknown collective"):
        xfabric.busbw_factor("alltoall", 8)
