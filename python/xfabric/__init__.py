"""xfabric: the exchange fabric's driver for Python and NumPy.

A :class:`Comm` over a topology of chips and a backend (the SystemC model, the Verilated RTL or
a board on a serial line) runs the collectives in the fabric's hardware: ``allreduce``,
``reduce_scatter``, ``all_gather``, ``broadcast``, ``reduce`` and the sharded optimizer's
``sgd_step``, on NumPy arrays of every type the fabric reduces (bf16 through ``ml_dtypes``).
Errors are exceptions of :mod:`xfabric.errors` carrying the driver's message.

    >>> import numpy as np, xfabric
    >>> comm = xfabric.Comm("ring:4", "model")
    >>> x = np.arange(4 * 8, dtype=np.float32).reshape(4, 8)
    >>> y = comm.allreduce(x, "sum")
    >>> comm.last.cycles > 0
    True

See docs/python.md in the project.
"""

from __future__ import annotations

import os

# SystemC prints its banner when the first model is built; the fabric tool turns it off the
# same way (set SC_COPYRIGHT_MESSAGE yourself to see it).
os.environ.setdefault("SC_COPYRIGHT_MESSAGE", "DISABLE")

from . import _xfabric as _xfabric  # noqa: E402
from .comm import DTYPES, OPS, Comm, OpStats, SgdReference, busbw_factor
from .errors import (
    BackendError,
    ChipError,
    Error,
    InvalidArgument,
    NotInitialized,
    Timeout,
    UnknownBackend,
    Unsupported,
)

__version__ = "0.1.0"

#: The flit widths the RTL backend of this build has ("" when it was built without it).
RTL_FLIT_WIDTHS: tuple[int, ...] = tuple(
    int(w) for w in _xfabric.rtl_flit_widths.split(",") if w
)

__all__ = [
    "Comm",
    "OpStats",
    "SgdReference",
    "DTYPES",
    "OPS",
    "RTL_FLIT_WIDTHS",
    "busbw_factor",
    "Error",
    "InvalidArgument",
    "Unsupported",
    "UnknownBackend",
    "ChipError",
    "Timeout",
    "BackendError",
    "NotInitialized",
]
