"""scripts/logic_levels.py on small hand-made netlists (Yosys write_json layout), so that each
counting rule of its docstring is checked: python3 -m pytest tests/tools -q."""
import json
import pathlib
import subprocess
import sys

SCRIPT = pathlib.Path(__file__).resolve().parents[2] / "scripts" / "logic_levels.py"
ONE = "00000000000000000000000000000001"


def cell(ctype, **pins):
    return {"type": ctype, "connections": {p: (b if isinstance(b, list) else [b])
                                           for p, b in pins.items()}}


def ff(d, q):
    return cell("TRELLIS_FF", CLK=2, DI=d, Q=q)


def run(tmp_path, modules, *args):
    path = tmp_path / "net.json"
    path.write_text(json.dumps({"modules": modules}))
    out = tmp_path / "levels.json"
    res = subprocess.run([sys.executable, str(SCRIPT), str(path), "--json", str(out), *args],
                         capture_output=True, text=True)
    return res, (json.loads(out.read_text()) if out.exists() else None)


def block(levels, name):
    return next(b for b in levels["blocks"] if b["block"] == name)


def test_lut_chain_between_flops_and_submodule(tmp_path):
    # top: FF(q=10) -> sub (3 LUT4 in a row) -> FF(d=20). Nets 10.. in the top.
    sub = {"ports": {"i": {"direction": "input", "bits": [3]},
                     "o": {"direction": "output", "bits": [6]}},
           "cells": {"l1": cell("LUT4", A=3, B="0", C="0", D="0", Z=4),
                     "l2": cell("LUT4", A=4, B=3, C="1", D="0", Z=5),
                     "l3": cell("LUT4", A=5, B="0", C="0", D="0", Z=6)}}
    top = {"attributes": {"top": ONE},
           "ports": {"clk": {"direction": "input", "bits": [2]}},
           "cells": {"r0": ff(11, 10), "u_sub": cell("sub", i=10, o=20), "r1": ff(20, 11)}}
    res, lv = run(tmp_path, {"top": top, "sub": sub}, "--root=")
    assert res.returncode == 0, res.stderr
    assert block(lv, "u_sub")["lut"] == 3
    assert block(lv, "(root)")["levels"] == 3  # into r1, through u_sub
    assert block(lv, "(root)")["crosses"] == ["u_sub"]
    # By default the blocks count from the instance that holds 90 % of the LUTs: u_sub here.
    _, lv = run(tmp_path, {"top": top, "sub": sub})
    assert lv["root"] == "u_sub"


def test_carry_chain_counts_once_and_slice_muxes_none(tmp_path):
    # FF -> CCU2C (A0) -> CIN of 3 more CCU2C -> S0 -> PFUMX (ALUT) -> FF: 1 level, plus one LUT.
    cells = {"r0": ff(30, 10),
             "c0": cell("CCU2C", A0=10, B0="0", C0="0", D0="0", A1="0", B1="0", C1="0",
                        D1="0", CIN="0", COUT=11, S0=40, S1=41),
             "c1": cell("CCU2C", A0="0", B0="0", C0="0", D0="0", A1="0", B1="0", C1="0",
                        D1="0", CIN=11, COUT=12, S0=42, S1=43),
             "c2": cell("CCU2C", A0="0", B0="0", C0="0", D0="0", A1="0", B1="0", C1="0",
                        D1="0", CIN=12, COUT=13, S0=44, S1=45),
             "l": cell("LUT4", A=13, B="0", C="0", D="0", Z=14),
             "m": cell("PFUMX", ALUT=14, BLUT="0", C0="0", Z=15),
             "r1": ff(15, 30)}
    top = {"attributes": {"top": ONE}, "ports": {"clk": {"direction": "input", "bits": [2]}},
           "cells": cells}
    res, lv = run(tmp_path, {"top": top})
    assert res.returncode == 0, res.stderr
    assert block(lv, "(root)")["levels"] == 2
    assert block(lv, "(root)")["carry"] == 3


def test_max_fails_and_unknown_cell_is_a_boundary(tmp_path):
    cells = {"r0": ff(5, 10),
             "l1": cell("LUT4", A=10, B="0", C="0", D="0", Z=11),
             "x": cell("MYSTERY", I=11, O=12),  # unknown: ends the path at its input
             "l2": cell("LUT4", A=12, B="0", C="0", D="0", Z=13),
             "l3": cell("LUT4", A=13, B="0", C="0", D="0", Z=5)}
    top = {"attributes": {"top": ONE}, "ports": {"clk": {"direction": "input", "bits": [2]}},
           "cells": cells}
    res, lv = run(tmp_path, {"top": top}, "--max", "1")
    assert res.returncode == 1 and "more than --max 1" in res.stderr
    assert lv["unknown"] == {"MYSTERY": 1}
    assert block(lv, "(root)")["levels"] == 2  # MYSTERY -> l2 -> l3 -> r0


def test_bad_input_says_what_to_do(tmp_path):
    path = tmp_path / "bad.json"
    path.write_text("{not json")
    res = subprocess.run([sys.executable, str(SCRIPT), str(path)], capture_output=True, text=True)
    assert res.returncode != 0 and "write_json" in res.stderr
