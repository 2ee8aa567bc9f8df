"""Other machines: each topology kind and the saturating sum on the model (each in a child
interpreter, a model machine of its own), and a few collectives on the RTL (the Verilated
chips in this process) that must match the model's results bit for bit.

Space covered: ring, biring, line, ladder and an asymmetric tree on the model, allreduce of
fp32 (checked against an exactly representable sum) and int8 with saturation; on the RTL at
128-bit flits, ring:4 allreduce, reduce_scatter and all_gather of bf16, int16 and fp32 against
the model.
"""

from __future__ import annotations

import ml_dtypes
import numpy as np
import pytest

import xfabric
from conftest import needs_rtl, run_child

TOPOLOGIES = ["biring:3", "line:3", "ladder:4", "tree:(2,3)"]


@pytest.mark.parametrize("spec", TOPOLOGIES)
def test_topology_allreduce(spec: str) -> None:
    out = run_child(
        f"""
        import numpy as np, xfabric
        c = xfabric.Comm({spec!r}, "model", tiles=2)
        rng = np.random.default_rng(11)
        x = rng.integers(-64, 65, size=(c.size, 500)).astype(np.float32)
        y = c.allreduce(x)
        assert (y == x.sum(axis=0)).all(), "wrong sum"
        assert all(y[i].tobytes() == y[0].tobytes() for i in range(c.size))
        print("ok", c.size, c.last.algorithm, c.cycles)
        """
    )
    assert out.startswith("ok ")


def test_saturating_sum() -> None:
    out = run_child(
        """
        import numpy as np, xfabric
        c = xfabric.Comm("ring:4", "model", saturate=True)
        x = np.array([[100, -100, 5]] * 4, dtype=np.int8)
        print(c.allreduce(x)[0].tolist())
        """
    )
    assert out.strip() == "[127, -128, 20]"


@needs_rtl
@pytest.mark.parametrize("dt", [ml_dtypes.bfloat16, np.int16, np.float32],
                         ids=lambda d: np.dtype(d).name)
def test_rtl_matches_model(model: xfabric.Comm, dt) -> None:
    rtl = _rtl()
    rng = np.random.default_rng(21)
    x = rng.standard_normal((4, 4 * 48)).astype(np.float32).astype(dt) if dt != np.int16 else \
        rng.integers(-30000, 30000, size=(4, 4 * 48)).astype(dt)
    for call in (lambda c: c.allreduce(x), lambda c: c.reduce_scatter(x, "max"),
                 lambda c: c.all_gather(x[:, :48])):
        a, b = call(rtl), call(model)
        assert a.tobytes() == b.tobytes()
        assert rtl.cycles > 0


_RTL: list[xfabric.Comm] = []


def _rtl() -> xfabric.Comm:
    """ring:4 on the Verilated chips, 2 tiles like the model fixture (one per session)."""
    if not _RTL:
        _RTL.append(xfabric.Comm("ring:4", "rtl", tiles=2))
    return _RTL[0]
