"""Every error path of the package: each must raise the right xfabric exception class carrying
the driver's (or the package's) message, never crash or return garbage.

Space covered: bad topology, backend, option and algorithm at creation; a second model machine
in one process; bad dtype, shape, row count, op, type/op pair and root in calls; sgd_step
before sgd_init; a timeout; an RTL width this build lacks; a serial device that is not there.
"""

from __future__ import annotations

import numpy as np
import pytest

import xfabric
from conftest import needs_rtl, run_child

P = 4


def test_unknown_backend() -> None:
    with pytest.raises(xfabric.UnknownBackend, match="backend") as e:
        xfabric.Comm("ring:4", "fpga9000")
    assert isinstance(e.value, ValueError) and e.value.status == "unknown backend"


@pytest.mark.parametrize("spec", ["ring:0", "ladder:5", "torus:4", "tree:(2,"])
def test_bad_topology(model: xfabric.Comm, spec: str) -> None:
    with pytest.raises(xfabric.InvalidArgument) as e:
        xfabric.Comm(spec, "model")
    assert str(e.value)  # the driver's message, not an empty one


def test_bad_algo() -> None:
    with pytest.raises(xfabric.InvalidArgument, match="unknown algorithm 'fastest'"):
        xfabric.Comm("ring:4", "model", algo="fastest")


def test_second_model_communicator(model: xfabric.Comm) -> None:
    with pytest.raises(xfabric.BackendError, match="one model communicator"):
        xfabric.Comm("ring:8", "model")
    assert model.allreduce(np.ones((P, 4), np.int32))[0, 0] == P  # the first still works


def test_bad_dtype(model: xfabric.Comm) -> None:
    with pytest.raises(xfabric.InvalidArgument, match="float64 is not one the fabric reduces"):
        model.allreduce(np.zeros((P, 8)))


def test_bad_rows(model: xfabric.Comm) -> None:
    with pytest.raises(xfabric.InvalidArgument, match=r"expected shape \(4, n\)"):
        model.allreduce(np.zeros((3, 8), np.float32))
    with pytest.raises(xfabric.InvalidArgument, match="same dtype and length"):
        model.allreduce([np.zeros(8, np.float32)] * 3 + [np.zeros(9, np.float32)])


def test_bad_op(model: xfabric.Comm) -> None:
    with pytest.raises(xfabric.InvalidArgument, match="unknown op 'prod'"):
        model.allreduce(np.zeros((P, 8), np.float32), "prod")


def test_avg_of_floats_unsupported(model: xfabric.Comm) -> None:
    with pytest.raises(xfabric.Error) as e:
        model.allreduce(np.zeros((P, 8), np.float32), "avg")
    assert "avg" in str(e.value) and isinstance(e.value, (xfabric.Unsupported,
                                                          xfabric.InvalidArgument))


@pytest.mark.parametrize("root", [-1, P])
def test_bad_root(model: xfabric.Comm, root: int) -> None:
    with pytest.raises(xfabric.InvalidArgument, match="root"):
        model.broadcast(np.zeros((P, 8), np.int8), root=root)
    with pytest.raises(xfabric.InvalidArgument, match="root"):
        model.reduce(np.zeros((P, 8), np.int8), root=root)


def test_reduce_scatter_not_divisible(model: xfabric.Comm) -> None:
    with pytest.raises(xfabric.InvalidArgument, match="not a multiple"):
        model.reduce_scatter(np.zeros((P, 10), np.int16))


def test_empty_count(model: xfabric.Comm) -> None:
    with pytest.raises(xfabric.InvalidArgument):
        model.allreduce(np.zeros((P, 0), np.float32))


def test_sgd_before_init() -> None:
    out = run_child(
        """
        import numpy as np, xfabric
        c = xfabric.Comm("ring:2", "model")
        try:
            c.sgd_step(np.zeros((2, 8), np.float32))
        except xfabric.InvalidArgument as e:
            print("raised:", e)
        """
    )
    assert "raised: sgd_step: call sgd_init" in out


def test_timeout() -> None:
    out = run_child(
        """
        import numpy as np, xfabric
        c = xfabric.Comm("ring:4", "model", max_cycles=50)
        try:
            c.allreduce(np.ones((4, 4096), np.float32))
        except xfabric.Timeout as e:
            print("raised:", type(e).__name__, isinstance(e, TimeoutError), e)
        """
    )
    assert "raised: Timeout True" in out


def test_serial_device_missing() -> None:
    with pytest.raises(xfabric.BackendError, match="cannot open /dev/xf-no-such-device"):
        xfabric.Comm("ring:2", "serial:/dev/xf-no-such-device")


@needs_rtl
def test_rtl_width_not_built() -> None:
    missing = [w for w in (32, 64) if w not in xfabric.RTL_FLIT_WIDTHS]
    if not missing:
        pytest.skip("this build has the RTL at every width")
    with pytest.raises(xfabric.BackendError, match="XF_FLIT_WIDTHS"):
        xfabric.Comm("ring:4", "rtl", flit_bits=missing[0])


@needs_rtl
def test_rtl_too_many_tiles() -> None:
    with pytest.raises(xfabric.InvalidArgument, match="tiles = 64: use 1..16"):
        xfabric.Comm("ring:4", "rtl", tiles=64)
