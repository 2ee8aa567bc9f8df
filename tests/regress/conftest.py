"""The random regressions on pytest (docs/python.md section 6): one test per seed, each drawing
its case with scripts/regress_model.py's pick() (so a seed draws what it always drew) and
running it with `fabric run`. pytest-xdist spreads the seeds over processes (-n N), --junitxml
writes the results for CI, and --shard i/N keeps the i-th of N disjoint shards of the seeds, so
a batch system runs the shards on many machines and their union is one unsharded run.

    python3 -m pytest tests/regress --fabric build/cmake/fabric --seeds 400 [--first-seed 1]
        [--rtl [--faults]] [--shard 1/2] [--results FILE] -n 2 --junitxml=regress.xml

make regress-model, make regress and make regress-faults are front ends for it. While it runs,
the controller prints a progress line (seeds done of this shard, the fraction, the rate, the ETA;
scripts/progress.py) every --progress-every seconds; seeds taken from --results count as done but
not into the rate. At the end it prints regress_model.py's summary table and, for each failure,
the command that reproduces it.
"""

from __future__ import annotations

import json
import os
import sys
import time
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO / "scripts"))
import regress_model  # noqa: E402  (scripts/ is not a package)
from progress import Progress  # noqa: E402


def pytest_addoption(parser: pytest.Parser) -> None:
    g = parser.getgroup("regress", "random regressions (tests/regress)")
    g.addoption("--fabric", default=str(REPO / "build" / "cmake" / "fabric"),
                help="the fabric tool (default: build/cmake/fabric)")
    g.addoption("--seeds", type=int, default=100, help="how many seeds")
    g.addoption("--first-seed", type=int, default=1, help="the first seed")
    g.addoption("--rtl", action="store_true", help="RTL and model in lock step (make regress)")
    g.addoption("--faults", action="store_true", help="under random link faults (with --rtl)")
    g.addoption("--shard", default="1/1", help="i/N: run the i-th of N shards of the seeds")
    g.addoption("--results", default="",
                help="JSON lines, one per finished seed; seeds it holds are not run again")
    g.addoption("--progress-every", type=float, default=10.0,
                help="seconds between progress lines (0: one per seed)")


def shard_of(text: str) -> tuple[int, int]:
    try:
        i, n = (int(v) for v in text.split("/"))
    except ValueError:
        raise pytest.UsageError(f"--shard {text}: write i/N, e.g. 1/4")
    if not 1 <= i <= n:
        raise pytest.UsageError(f"--shard {text}: i must be from 1 to N")
    return i, n


def seeds_of(config: pytest.Config) -> list[int]:
    """This shard's seeds: seed k of the run (from --first-seed) is in shard k mod N + 1."""
    first, count = config.getoption("first_seed"), config.getoption("seeds")
    i, n = shard_of(config.getoption("shard"))
    return [s for k, s in enumerate(range(first, first + count)) if k % n == i - 1]


def mode_name(config: pytest.Config) -> str:
    if config.getoption("faults"):
        return "regress-faults"
    return "regress" if config.getoption("rtl") else "regress-model"


def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    if "seed" in metafunc.fixturenames:
        seeds = seeds_of(metafunc.config)
        metafunc.parametrize("seed", seeds, ids=[f"seed{s}" for s in seeds])


def pytest_configure(config: pytest.Config) -> None:
    if config.getoption("faults") and not config.getoption("rtl"):
        raise pytest.UsageError("--faults runs the RTL against the model: add --rtl")
    config._xf_results = {}  # seed -> run_seed's dict, gathered on the controller
    config._xf_t0 = time.time()


def stored_results(config: pytest.Config) -> dict[int, dict]:
    """The --results file's seeds whose draws are still today's (a resumed regression)."""
    path = config.getoption("results")
    done: dict[int, dict] = {}
    if path and os.path.exists(path):
        rtl, faults = config.getoption("rtl"), config.getoption("faults")
        with open(path) as f:
            for line in f:
                if line.strip():
                    r = json.loads(line)
                    if r["args"] == regress_model.pick(r["seed"], rtl, faults)[1]:
                        done[r["seed"]] = r
    return done


@pytest.fixture(scope="session")
def regress(request: pytest.FixtureRequest):
    """What a seed's test needs: the options, the stored results, a writer for new ones."""
    config = request.config
    fabric = config.getoption("fabric")
    if not os.access(fabric, os.X_OK):
        pytest.exit(f"--fabric {fabric}: not an executable; make build first", returncode=2)
    path = config.getoption("results")

    def record(r: dict) -> None:
        if path:  # one write per line, O_APPEND: xdist workers share the file
            fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
            try:
                os.write(fd, (json.dumps(r) + "\n").encode())
            finally:
                os.close(fd)

    return {"fabric": fabric, "rtl": config.getoption("rtl"),
            "faults": config.getoption("faults"), "done": stored_results(config),
            "record": record}


def pytest_runtest_logreport(report: pytest.TestReport) -> None:
    # On the controller (and without xdist): gather each seed's result from its report.
    for name, value in report.user_properties:
        if name == "xf_result":
            r = json.loads(value)
            CONFIG._xf_results[r["seed"]] = r
            if report.when == "call" and not hasattr(CONFIG, "workerinput"):
                progress(CONFIG, r["seed"])


def progress(config: pytest.Config, seed: int) -> None:
    """Counts a finished seed and, every --progress-every seconds and at the last, prints the
    progress line."""
    p = config._xf_progress
    if seed not in config._xf_stored:
        p.add(1)
    now = p.elapsed()
    if now - config._xf_last < config.getoption("progress_every") and p.done < p.total:
        return
    config._xf_last = now
    failed = sum(1 for r in config._xf_results.values() if r["rc"] != 0)
    tr = config.pluginmanager.get_plugin("terminalreporter")
    line = p.line(f"{failed} failed")
    if tr is not None:
        if getattr(tr._tw, "width_of_current_line", 0):  # after -q's dots
            tr.write("\n")
        tr.write_line(line)
    else:
        print(line, flush=True)


def pytest_sessionstart(session: pytest.Session) -> None:
    global CONFIG
    CONFIG = config = session.config
    seeds = seeds_of(config)
    config._xf_stored = set(stored_results(config)) & set(seeds)
    config._xf_progress = Progress(mode_name(config), len(seeds), "seeds",
                                   already=len(config._xf_stored))
    config._xf_last = float("-inf")


def pytest_terminal_summary(terminalreporter, exitstatus: int, config: pytest.Config) -> None:
    done = config._xf_results
    seeds = [s for s in seeds_of(config) if s in done]
    if not seeds:
        return
    i, n = shard_of(config.getoption("shard"))
    how = f"in {time.time() - config._xf_t0:.0f} s" + (f", shard {i}/{n}" if n > 1 else "")
    terminalreporter.section(mode_name(config))
    regress_model.summarize(mode_name(config), config.getoption("fabric"), seeds, done,
                            config.getoption("faults"), how)
