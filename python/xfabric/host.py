"""Host helpers that make a NumPy program draw and round as the project's C++ tools do.

``fabric train`` draws its split, its shuffles and its initial weights from ``std::mt19937_64``
with the C++ standard library's ``std::shuffle`` and ``std::normal_distribution<float>``, and its
softmax calls the C library's ``expf`` and ``logf``. The exact draws of those distributions are
the library's own, and NumPy's SIMD ``exp``/``log`` may differ from the C library in the last bit;
so a Python program that must repeat a C++ run bit for bit (``examples/train.py``) takes both from
here, where they are the very functions the tools call.
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

from . import _xfabric as _xfabric


class HostRng:
    """``std::mt19937_64`` seeded with ``seed``, with the C++ library's distributions."""

    def __init__(self, seed: int) -> None:
        self._rng = _xfabric.HostRng(int(seed))

    def shuffle(self, a: npt.NDArray[np.int32]) -> None:
        """Shuffles a C-contiguous int32 array in place, as ``std::shuffle`` does."""
        if not (isinstance(a, np.ndarray) and a.dtype == np.int32 and a.flags.c_contiguous):
            raise TypeError("shuffle takes a C-contiguous numpy array of int32")
        self._rng.shuffle(a)

    def normal(self, n: int, mean: float = 0.0, stddev: float = 1.0) -> npt.NDArray[np.float32]:
        """``n`` draws of a fresh ``std::normal_distribution<float>(mean, stddev)``."""
        return self._rng.normal(int(n), float(mean), float(stddev))

    def next(self) -> int:
        """The generator's next raw 64-bit value."""
        return self._rng.next()


def expf(a: npt.ArrayLike) -> npt.NDArray[np.float32]:
    """The C library's ``expf`` of every element (as float32)."""
    return _xfabric.expf(np.asarray(a, dtype=np.float32))


def logf(a: npt.ArrayLike) -> npt.NDArray[np.float32]:
    """The C library's ``logf`` of every element (as float32)."""
    return _xfabric.logf(np.asarray(a, dtype=np.float32))


__all__ = ["HostRng", "expf", "logf"]
