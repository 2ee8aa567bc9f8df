"""The examples: examples/train.py must print fabric train's table bit for bit (every column but
wall_s), and examples/busbw.py must draw its plot.

Space covered: a short run (2 epochs of 3 steps on ladder:4) against the live fabric tool when
one is built (XF_FABRIC or build/cmake/fabric), and the default run (ladder:8, 8 epochs, marked
slow) against the table fabric train printed when it was committed
(python/tests/data/fabric_train_default.txt) and against the live tool.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import REPO, fabric_binary

TRAIN = REPO / "examples" / "train.py"
GOLDEN = Path(__file__).parent / "data" / "fabric_train_default.txt"
SHORT = ["--topology", "ladder:4", "--epochs", "2", "--steps", "3"]


def table(text: str) -> list[str]:
    """The output without the wall_s column (the last word of a table row)."""
    out = []
    for line in text.splitlines():
        words = line.split()
        if words and not line.startswith("#") and words[0] != "epoch":
            line = line.rsplit(None, 1)[0]
        out.append(line)
    return out


def run_train(args: list[str]) -> str:
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(p for p in sys.path if p))
    r = subprocess.run([sys.executable, str(TRAIN), *args], capture_output=True, text=True,
                       env=env, timeout=900)
    assert r.returncode == 0, r.stdout + r.stderr
    return r.stdout


def run_fabric(args: list[str]) -> str:
    fabric = fabric_binary()
    if fabric is None:
        pytest.skip("no fabric tool to compare with: make build, or set XF_FABRIC")
    r = subprocess.run([str(fabric), "train", *args], capture_output=True, text=True,
                       timeout=900)
    assert r.returncode == 0, r.stdout + r.stderr
    return r.stdout


def test_table_ignores_only_wall_time() -> None:
    a = "   1    22   0.3   0.3   90.0%   1000   yes   bit-identical   1.50"
    b = a.replace("1.50", "9.99")
    assert table(a) == table(b) and table(a) != table(a.replace("1000", "1001"))


def test_train_short_matches_fabric(tmp_path: Path) -> None:
    """The table, and the loss curve's CSV (6 digits, not 4) too."""
    py = run_train(SHORT + ["--csv", str(tmp_path / "py.csv")])
    assert table(py) == table(run_fabric(SHORT + ["--csv", str(tmp_path / "fabric.csv")]))
    assert (tmp_path / "py.csv").read_text() == (tmp_path / "fabric.csv").read_text()


@pytest.mark.slow
def test_train_default_matches_committed_table() -> None:
    py = table(run_train([]))
    assert py == table(GOLDEN.read_text())
    if fabric_binary() is not None:
        assert py == table(run_fabric([]))


def test_busbw_plot(tmp_path: Path) -> None:
    pytest.importorskip("matplotlib")
    png = tmp_path / "busbw.png"
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(p for p in sys.path if p),
               MPLBACKEND="Agg")
    r = subprocess.run([sys.executable, str(REPO / "examples" / "busbw.py"), "--topology",
                        "ring:4", "--max-bytes", "16K", "--png", str(png)],
                       capture_output=True, text=True, env=env, timeout=300)
    assert r.returncode == 0, r.stdout + r.stderr
    assert png.stat().st_size > 1000
    rows = [l for l in r.stdout.splitlines() if l and not l.startswith("#")]
    assert len(rows) >= 5  # a header and a row per size, 1K .. 16K
