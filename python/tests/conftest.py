"""Shared fixtures of the xfabric tests (docs/python.md section 5).

A process holds one model communicator (SystemC elaborates once per process), so the tests
share the session's `model` fixture, ring:4 with 2 tiles, and run anything that needs another
model machine in a child interpreter (`run_child`). RTL tests use the Verilated chips the
package was built with and are skipped, saying why, when it has none.
"""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

import xfabric

REPO = Path(__file__).resolve().parents[2]
MODEL_TOPOLOGY = "ring:4"


@pytest.fixture(scope="session")
def model() -> xfabric.Comm:
    """The process's one model communicator: ring:4, 2 tiles per chip."""
    return xfabric.Comm(MODEL_TOPOLOGY, "model", tiles=2)


needs_rtl = pytest.mark.skipif(
    128 not in xfabric.RTL_FLIT_WIDTHS,
    reason="this xfabric was built without the RTL backend (XF_PYTHON_RTL=OFF)",
)


def run_child(code: str, timeout: float = 300) -> str:
    """Runs `code` in a fresh interpreter (a model machine of its own); returns its stdout and
    fails the test with its stderr when it exits non-zero."""
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([p for p in sys.path if p])
    r = subprocess.run(
        [sys.executable, "-c", textwrap.dedent(code)],
        capture_output=True,
        text=True,
        timeout=timeout,
        env=env,
    )
    if r.returncode != 0:
        pytest.fail(f"child exited {r.returncode}:\n{r.stdout}\n{r.stderr}", pytrace=False)
    return r.stdout


def fabric_binary() -> Path | None:
    """The fabric tool to compare with: $XF_FABRIC, or the build tree's (make build)."""
    env = os.environ.get("XF_FABRIC")
    if env:
        return Path(env)
    p = REPO / "build" / "cmake" / "fabric"
    return p if p.exists() else None
