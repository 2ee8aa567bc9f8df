"""One random collective per seed (tests/regress/conftest.py draws the seeds and the shard):
`fabric run` must check its result against the reference and, with --rtl, the RTL against the
model in lock step; a failure names the command that reproduces it."""

from __future__ import annotations

import json

import pytest

import regress_model


def test_regress(seed: int, regress: dict, request: pytest.FixtureRequest) -> None:
    r = regress["done"].get(seed)
    if r is None:
        r = regress_model.run_seed(regress["fabric"], seed, regress["rtl"], regress["faults"])
        regress["record"](r)
    # To the controller (the summary) and into the JUnit XML: user_properties, as record_property
    # does, without its warning about the xunit2 schema.
    request.node.user_properties.append(("xf_result", json.dumps(r)))
    if r["rc"] != 0:
        tail = "\n".join("    " + line for line in r["tail"])
        pytest.fail(f"seed {seed} ({r['kind']}): reproduce with\n  "
                    f"{regress_model.reproduce_command(regress['fabric'], r['args'])}\n{tail}",
                    pytrace=False)
