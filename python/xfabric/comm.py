"""The communicator: collectives over a topology of simulated (or real) chips, on NumPy arrays.

One host process drives every chip, so a call takes one buffer per chip: either an array of
shape ``(chips, n)`` (row ``c`` is chip ``c``'s buffer) or a sequence of ``chips`` 1-D arrays of
the same length and dtype. Results come back as a new ``(chips, ...)`` array. The driver behind
it is ``xf::Comm`` (``sw/include/xf/comm.hpp``, ``docs/driver.md``).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal, Optional, Sequence, Union, cast, overload

import ml_dtypes
import numpy as np
import numpy.typing as npt

from . import _xfabric as _xfabric
from .errors import InvalidArgument

#: The element types the fabric reduces, as NumPy dtypes, with the driver's names for them.
DTYPES: dict[np.dtype, str] = {
    np.dtype(np.int8): "int8",
    np.dtype(np.uint8): "uint8",
    np.dtype(np.int16): "int16",
    np.dtype(np.int32): "int32",
    np.dtype(np.float16): "fp16",
    np.dtype(ml_dtypes.bfloat16): "bf16",
    np.dtype(np.float32): "fp32",
}

#: The reduction operators: ``avg`` is the averaging of integers (docs/averaging.md).
OPS = ("sum", "max", "min", "avg")

#: What a per-chip argument may be: a (chips, n) array or one 1-D array per chip.
PerChip = Union[npt.NDArray[np.generic], Sequence[npt.ArrayLike]]


@dataclass(frozen=True)
class OpStats:
    """What the last completed operation did on the machine (``xf::OpStats``).

    ``bytes`` is per chip as compiled (the padded size for reduce_scatter and all_gather),
    ``cycles`` the fabric cycles from the start to the last chip's end, ``efficiency`` the
    compiler's bandwidth bound over ``cycles``, ``seconds`` the wall time of the whole call,
    ``warnings`` the links that recovered errors or escalated.
    """

    collective: str
    algorithm: str
    bytes: int
    cycles: int
    efficiency: float
    seconds: float
    warnings: list[str] = field(default_factory=list)


def busbw_factor(collective: str, chips: int) -> float:
    """nccl-tests' bus-bandwidth factor of a collective on ``chips`` chips (2(P-1)/P for
    allreduce): busbw = algbw * factor, the same factor ``fabric run`` prints with."""
    return _xfabric.busbw_factor(collective, int(chips))


class Comm:
    """A communicator over ``topology`` on ``backend``.

    Args:
        topology: the machine, in the grammar of docs/topology.md: ``ring:8``, ``biring:4``,
            ``line:4``, ``ladder:8``, ``tree:(2,3)``, ... or a topology file.
        backend: ``model`` (the SystemC golden model), ``rtl`` (the Verilated chips, at the flit
            widths this package was built with: :data:`xfabric.RTL_FLIT_WIDTHS`) or
            ``serial:DEV[@BAUD]`` (a board, or ``xf_board_sim``).
        tiles: tiles per chip the collectives use.
        flit_bits: the machine's flit width, 32, 64 or 128.
        algo: the compiler's algorithm: ``auto`` or ring, biring, ladder, line, tree, avg,
            butterfly.
        chunk_bytes: the pipeline chunk (0: the compiler's choice).
        saturate: integer sums clamp instead of wrapping.
        max_cycles: a run longer than this raises :class:`xfabric.Timeout`.
        faults: link faults under the retry layer (model, rtl), e.g. ``"wer=1e-3"``.
        trace: rtl only: the waves of every node to this FST file.
        model_dmem_bytes: model only: data memory per tile (0: the tile's own).

    Raises:
        InvalidArgument, UnknownBackend, BackendError: with the driver's message.
    """

    def __init__(
        self,
        topology: str,
        backend: str = "model",
        *,
        tiles: int = 4,
        flit_bits: int = 128,
        algo: str = "auto",
        chunk_bytes: int = 0,
        saturate: bool = False,
        max_cycles: int = 50_000_000,
        faults: str = "",
        trace: str = "",
        model_dmem_bytes: int = 0,
    ) -> None:
        self._c = _xfabric.Comm(
            str(topology),
            str(backend),
            int(tiles),
            int(flit_bits),
            str(algo),
            int(chunk_bytes),
            bool(saturate),
            int(max_cycles),
            str(faults),
            str(trace),
            int(model_dmem_bytes),
        )
        self._sgd: Optional[tuple[int, float, float, float]] = None
        self._last: Optional[OpStats] = None

    # ---- the machine ----------------------------------------------------------------------
    @property
    def size(self) -> int:
        """The number of chips (the rows of every per-chip array)."""
        return self._c.size

    @property
    def topology(self) -> str:
        """The topology as it was given."""
        return self._c.spec

    @property
    def backend(self) -> str:
        """The backend's name."""
        return self._c.backend

    @property
    def flit_bits(self) -> int:
        """The machine's flit width in bits."""
        return self._c.flit_bits

    @property
    def tiles(self) -> int:
        """Tiles per chip the collectives use."""
        return self._c.tiles

    @property
    def last(self) -> Optional[OpStats]:
        """The statistics of the last completed operation (None before the first)."""
        return self._last

    @property
    def cycles(self) -> int:
        """Fabric cycles of the last completed operation (0 before the first)."""
        return self._last.cycles if self._last else 0

    def __repr__(self) -> str:
        return (
            f"Comm({self.topology!r}, backend={self.backend!r}, chips={self.size}, "
            f"tiles={self.tiles}, flit_bits={self.flit_bits})"
        )

    # ---- collectives ----------------------------------------------------------------------
    def allreduce(self, x: PerChip, op: str = "sum") -> np.ndarray:
        """Every chip gets the reduction of all chips' buffers.

        Args:
            x: ``(chips, n)``: chip c's buffer is ``x[c]``.
            op: ``sum``, ``max``, ``min`` or ``avg`` (integers).

        Returns:
            ``(chips, n)``, every row the same reduction, bit for bit.
        """
        a = self._per_chip(x, "x")
        out = np.empty_like(a)
        self._run("allreduce", a, out, a.shape[1], op, 0)
        return out

    def reduce_scatter(self, x: PerChip, op: str = "sum") -> np.ndarray:
        """Chip c gets block c of the reduction: ``x`` is ``(chips, chips * m)``, the result
        ``(chips, m)``."""
        a = self._per_chip(x, "x")
        if a.shape[1] % self.size:
            raise InvalidArgument(
                f"reduce_scatter: each chip's buffer has {a.shape[1]} elements, not a multiple "
                f"of the {self.size} chips; pad it to chips * m elements"
            )
        m = a.shape[1] // self.size
        out = np.empty((self.size, m), dtype=a.dtype)
        self._run("reduce_scatter", a, out, m, op, 0)
        return out

    def all_gather(self, x: PerChip) -> np.ndarray:
        """Every chip gets all chips' buffers, chip q's at block q: ``x`` is ``(chips, m)``, the
        result ``(chips, chips * m)``."""
        a = self._per_chip(x, "x")
        m = a.shape[1]
        out = np.empty((self.size, self.size * m), dtype=a.dtype)
        self._run("all_gather", a, out, m, "sum", 0)
        return out

    def broadcast(self, x: Union[PerChip, npt.ArrayLike], root: int = 0) -> np.ndarray:
        """Every chip gets chip ``root``'s buffer.

        Args:
            x: ``(chips, n)`` (only row ``root`` is read) or the root's ``(n,)`` buffer alone.
            root: the sending chip.

        Returns:
            ``(chips, n)``.
        """
        arr = np.asarray(x) if not isinstance(x, (list, tuple)) else None
        if arr is not None and arr.ndim == 1:
            a = np.zeros((self.size, arr.shape[0]), dtype=arr.dtype)
            if 0 <= root < self.size:
                a[root] = arr
        else:
            a = self._per_chip(cast(PerChip, x), "x")
        self._check_dtype(a.dtype)
        out = np.empty_like(a)
        self._run("broadcast", a, out, a.shape[1], "sum", root)
        return out

    def reduce(self, x: PerChip, op: str = "sum", root: int = 0) -> np.ndarray:
        """Chip ``root`` gets the reduction of all chips' buffers; returns it, ``(n,)``."""
        a = self._per_chip(x, "x")
        out = np.zeros_like(a)
        self._run("reduce", a, out, a.shape[1], op, root)
        return out[root].copy()

    # ---- the sharded optimizer (the sharded-update patent) ---------------------------------
    def sgd_init(
        self,
        params: npt.ArrayLike,
        lr: float = 0.01,
        momentum: float = 0.9,
        weight_decay: float = 0.0,
    ) -> None:
        """Puts chip c's shard of ``params`` (fp32, the same on every chip) and a zero momentum
        on chip c; :meth:`sgd_step` then updates them there (docs/driver.md section 4)."""
        p = np.ascontiguousarray(params, dtype=np.float32).reshape(-1)
        opt = (p.size, float(np.float32(lr)), float(np.float32(momentum)),
               float(np.float32(weight_decay)))
        self._c.sgd_init(p, *opt[1:])
        self._sgd = opt

    @overload
    def sgd_step(self, grads: PerChip, *, state: Literal[False] = ...) -> np.ndarray: ...

    @overload
    def sgd_step(
        self, grads: PerChip, *, state: Literal[True]
    ) -> tuple[np.ndarray, list[tuple[np.ndarray, np.ndarray]]]: ...

    def sgd_step(
        self, grads: PerChip, *, state: bool = False
    ) -> Union[np.ndarray, tuple[np.ndarray, list[tuple[np.ndarray, np.ndarray]]]]:
        """One step of SGD with momentum, sharded: a reduce-scatter of the gradients, each chip's
        update of its shard, an all-gather of the new parameters.

        Args:
            grads: ``(chips, n)`` float32, chip c's gradient in row c (n as in :meth:`sgd_init`).
            state: also return every chip's optimizer shard ``(weights, momentum)``.

        Returns:
            The parameters, ``(chips, n)`` float32 (every row the same); with ``state``, a
            tuple of them and the list of shards.
        """
        if self._sgd is None:
            raise InvalidArgument("sgd_step: call sgd_init(params, lr, momentum, weight_decay) first")
        n = self._sgd[0]
        g = self._per_chip(grads, "grads")
        if g.dtype != np.float32 or g.shape[1] != n:
            raise InvalidArgument(
                f"sgd_step: grads must be ({self.size}, {n}) float32, got {g.shape} {g.dtype}"
            )
        out = np.empty_like(g)
        st = self._c.sgd_step(g, out, n, *self._sgd[1:], state)
        self._last = OpStats(**self._c.last())
        return (out, st or []) if state else out

    # ---- internals --------------------------------------------------------------------------
    def _check_dtype(self, dt: np.dtype) -> str:
        name = DTYPES.get(np.dtype(dt))
        if name is None:
            raise InvalidArgument(
                f"dtype {np.dtype(dt)} is not one the fabric reduces; use one of "
                f"{', '.join(str(d) for d in DTYPES)} (x.astype(...))"
            )
        return name

    def _per_chip(self, x: PerChip, what: str) -> np.ndarray:
        if isinstance(x, np.ndarray):
            a = x
        else:
            rows = [np.asarray(r) for r in x]
            if len({(r.dtype, r.shape) for r in rows}) > 1:
                raise InvalidArgument(f"{what}: every chip's array needs the same dtype and length")
            a = np.stack(rows) if rows else np.empty((0, 0))
        if a.ndim != 2 or a.shape[0] != self.size:
            raise InvalidArgument(
                f"{what}: expected shape ({self.size}, n), one row per chip of {self.topology}, "
                f"got {a.shape}"
            )
        self._check_dtype(a.dtype)
        return np.ascontiguousarray(a)

    def _run(self, coll: str, send: np.ndarray, recv: np.ndarray, count: int, op: str,
             root: int) -> None:
        dtype = self._check_dtype(send.dtype)
        self._c.collective(coll, send, recv, int(count), dtype, str(op), int(root))
        self._last = OpStats(**self._c.last())


class SgdReference:
    """The single-process reference of :meth:`Comm.sgd_step`: the plan the communicator runs,
    executed by the plain C++ executor (same reduction order) with its own optimizer state, so
    its parameters equal the fabric's bit for bit.
    """

    def __init__(
        self,
        comm: Comm,
        params: npt.ArrayLike,
        lr: float = 0.01,
        momentum: float = 0.9,
        weight_decay: float = 0.0,
    ) -> None:
        p = np.ascontiguousarray(params, dtype=np.float32).reshape(-1)
        self._n = p.size
        self._chips = comm.size
        self._r = _xfabric.SgdReference(comm._c, p, float(lr), float(momentum),
                                        float(weight_decay))

    def step(self, grads: npt.ArrayLike) -> np.ndarray:
        """One step on ``(chips, n)`` float32 gradients; returns ``(chips, n)`` parameters."""
        g = np.ascontiguousarray(grads, dtype=np.float32)
        if g.shape != (self._chips, self._n):
            raise InvalidArgument(f"grads must be ({self._chips}, {self._n}), got {g.shape}")
        out = np.empty_like(g)
        self._r.step(g, out)
        return out


__all__ = ["Comm", "OpStats", "SgdReference", "DTYPES", "OPS", "busbw_factor"]
