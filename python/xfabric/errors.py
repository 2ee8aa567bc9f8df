"""Exceptions of xfabric: one class per status of the driver's ``xf::Result``.

Every error the driver reports reaches Python as an instance of a subclass of
:class:`Error` whose message is the driver's own (it names the argument or the chip and says
what to do). ``status`` holds the driver's status name (``sw/include/xf/comm.hpp``).
"""

from __future__ import annotations


class Error(RuntimeError):
    """A call to the fabric failed; ``str(e)`` is the driver's message."""

    status = "error"


class InvalidArgument(Error, ValueError):
    """A count, array, root, buffer or option is wrong."""

    status = "invalid argument"


class Unsupported(Error):
    """A valid request this machine cannot do (type/op pair, size, algorithm)."""

    status = "unsupported"


class UnknownBackend(Error, ValueError):
    """The backend name is not ``model``, ``rtl`` or ``serial:DEV[@BAUD]``."""

    status = "unknown backend"


class ChipError(Error):
    """A chip reported an error during the run (the message names it)."""

    status = "chip error"


class Timeout(Error, TimeoutError):
    """The run did not finish within the cycle limit."""

    status = "timeout"


class BackendError(Error):
    """The backend failed: a device that cannot be opened, a lost board, ..."""

    status = "backend error"


class NotInitialized(Error):
    """The communicator was not created."""

    status = "not initialized"


_BY_STATUS = {
    c.status: c
    for c in (
        InvalidArgument,
        Unsupported,
        UnknownBackend,
        ChipError,
        Timeout,
        BackendError,
        NotInitialized,
    )
}


def error_class(status: str) -> type[Error]:
    """The exception class of a driver status name (``xf::to_string(Status)``)."""
    return _BY_STATUS.get(status, Error)


__all__ = [
    "Error",
    "InvalidArgument",
    "Unsupported",
    "UnknownBackend",
    "ChipError",
    "Timeout",
    "BackendError",
    "NotInitialized",
    "error_class",
]
