"""scripts/mutation.py without Yosys or Verilator: the results file resumes, the time budget stops
the run, the table counts timeouts as killed, the first failing test stops a mutant, and a Yosys
`mutate` line becomes a short description: python3 -m pytest tests/tools -q."""
import importlib.util
import json
import pathlib

SCRIPT = pathlib.Path(__file__).resolve().parents[2] / "scripts" / "mutation.py"
spec = importlib.util.spec_from_file_location("mutation", SCRIPT)
mutation = importlib.util.module_from_spec(spec)
spec.loader.exec_module(mutation)


def fake_jobs(verdicts, calls):
    """Jobs whose runner records its call and returns the given verdict."""
    jobs = []
    for i, v in enumerate(verdicts, start=1):
        def run(i=i, v=v):
            calls.append(i)
            return v, ("test_x" if v != "survived" else "")
        jobs.append(("g", "xf_a" if i % 2 else "xf_b", i, f"inv w.Y[{i}]", run))
    return jobs


def test_resume_runs_only_the_missing_mutants(tmp_path):
    path = tmp_path / "results.jsonl"
    calls = []
    verdicts = ["killed", "survived", "timeout", "killed"]
    mutation.run_all(fake_jobs(verdicts, calls), mutation.Results(path), 2, 1e9,
                     log=lambda m: None)
    assert sorted(calls) == [1, 2, 3, 4]
    rows = [json.loads(x) for x in path.read_text().splitlines()]
    assert {r["index"]: r["verdict"] for r in rows} == {1: "killed", 2: "survived",
                                                       3: "timeout", 4: "killed"}
    calls.clear()  # a re-run finds every mutant in the file
    mutation.run_all(fake_jobs(verdicts, calls), mutation.Results(path), 2, 1e9,
                     log=lambda m: None)
    assert calls == []
    lines = path.read_text().splitlines()  # one row lost: only it runs again
    path.write_text("\n".join(x for x in lines if json.loads(x)["index"] != 3) + "\n")
    mutation.run_all(fake_jobs(verdicts, calls), mutation.Results(path), 2, 1e9,
                     log=lambda m: None)
    assert calls == [3]


def test_rerun_survivors_supersedes_their_rows(tmp_path):
    path = tmp_path / "results.jsonl"
    calls = []
    mutation.run_all(fake_jobs(["killed", "survived"], calls), mutation.Results(path), 1, 1e9,
                     log=lambda m: None)
    calls.clear()
    mutation.run_all(fake_jobs(["killed", "killed"], calls), mutation.Results(path), 1, 1e9,
                     log=lambda m: None, rerun_survivors=True)
    assert calls == [2]
    latest = mutation.Results(path).latest()
    assert sorted(r["verdict"] for r in latest) == ["killed", "killed"]


def test_groups_with_the_same_block_are_apart(tmp_path):
    path = tmp_path / "results.jsonl"
    calls = []
    jobs = fake_jobs(["killed"], calls)
    other = [("h",) + tuple(jobs[0][1:])]  # the same block, index and mutation, another group
    mutation.run_all(jobs, mutation.Results(path), 1, 1e9, log=lambda m: None)
    mutation.run_all(other, mutation.Results(path), 1, 1e9, log=lambda m: None)
    assert calls == [1, 1]
    assert len(mutation.Results(path).latest()) == 2


def test_budget_stops_the_run(tmp_path):
    calls = []
    logs = []
    mutation.run_all(fake_jobs(["killed"] * 3, calls), mutation.Results(tmp_path / "r.jsonl"),
                     1, -1, log=logs.append)
    assert calls == []
    assert "time budget" in logs[-1]


def test_table_counts_timeouts_as_killed_and_leaves_out_equivalents():
    verdicts = ["killed", "timeout", "survived", "killed", "survived"]
    rows = [{"group": "g", "block": "xf_a", "index": i, "verdict": v}
            for i, v in enumerate(verdicts)]
    rows.append({"group": "g", "block": "xf_b", "index": 9, "verdict": "error"})
    text = mutation.table(rows, {("g", 4): "a constant"}).splitlines()
    assert text[1].split() == ["xf_a", "5", "2", "1", "1", "1", "0", "0", "75.0", "%"]
    assert text[2].split() == ["xf_b", "1", "0", "0", "0", "0", "0", "1", "-"]
    assert text[3].split()[:2] == ["total", "6"]
    for r in rows:
        r["mutation"] = f"m{r['index']}"
    argued = {("g", 2, "m2"): "a reason", ("g", 4, "other draw"): "no match"}
    text = mutation.table(rows, {}, argued).splitlines()
    assert text[1].split() == ["xf_a", "5", "2", "1", "1", "0", "1", "0", "75.0", "%"]


def test_argued_equivalents_file(tmp_path):
    f = tmp_path / "argued.txt"
    f.write_text("# comment\n\nlink 6 cnot0 timer_d.D[4] at rtl/xf_link.sv:1.1-2.2 | why\n")
    assert mutation.argued_equivalents(f) == {
        ("link", 6, "cnot0 timer_d.D[4] at rtl/xf_link.sv:1.1-2.2"): "why"}


def test_equivalent_reasons():
    cells = {"c_and": {"type": "$and", "connections": {"A": [5, 6], "B": ["0", "1"],
                                                       "Y": [7, 8]}},
             "c_mux": {"type": "$mux", "connections": {"A": ["1", 3], "B": [4, 5],
                                                       "S": [9], "Y": [10, 11]}},
             "c_x": {"type": "$mux", "connections": {"A": ["x", "x"], "B": [4, 5],
                                                     "S": [9], "Y": [10, 11]}}}

    def line(cell, mode, port, bit, ctrl=None):
        text = f"mutate -ctrl mutsel 16 1 -mode {mode} -module m -cell {cell} -port {port}"
        text += f" -portbit {bit}" + (f" -ctrlbit {ctrl}" if ctrl is not None else "")
        return text + " -src x.v:1.1-1.2"
    assert "never counts" in mutation.equivalent_reason(line("c_and", "inv", "A", 0), cells)
    assert mutation.equivalent_reason(line("c_and", "inv", "A", 1), cells) is None
    assert "already" in mutation.equivalent_reason(line("c_and", "const0", "Y", 0), cells)
    assert mutation.equivalent_reason(line("c_and", "const1", "Y", 0), cells) is None
    assert "never flips" in mutation.equivalent_reason(line("c_and", "cnot1", "Y", 1, 0), cells)
    assert "already" in mutation.equivalent_reason(line("c_mux", "const1", "A", 0), cells)
    assert mutation.equivalent_reason(line("c_mux", "cnot0", "A", 1, 0), cells) is not None
    assert mutation.equivalent_reason(line("c_mux", "cnot1", "A", 1, 0), cells) is None
    assert "undefined" in mutation.equivalent_reason(line("c_x", "const1", "A", 1), cells)
    assert mutation.equivalent_reason(line("c_x", "const1", "B", 1), cells) is None
    # through the cells: a reduction's input bits that an $and with a constant 0 drives (a CRC
    # row's zero bits), once or twice removed
    cells.update({
        "row": {"type": "$and", "connections": {"A": [20, 21, 22], "B": ["0", "1", "0"],
                                                "Y": [30, 31, 32]}},
        "row2": {"type": "$and", "connections": {"A": [30, 31, 32], "B": [40, 41, 42],
                                                 "Y": [50, 51, 52]}},
        "xor": {"type": "$reduce_xor", "connections": {"A": [30, 31, 32, 50, 51], "Y": [60]}}})
    assert "never flips" in mutation.equivalent_reason(line("xor", "cnot1", "A", 1, 0), cells)
    assert "never flips" in mutation.equivalent_reason(line("xor", "cnot1", "A", 1, 3), cells)
    assert mutation.equivalent_reason(line("xor", "cnot1", "A", 0, 1), cells) is None
    assert mutation.equivalent_reason(line("xor", "cnot1", "A", 0, 4), cells) is None
    assert "already" in mutation.equivalent_reason(line("xor", "const0", "A", 2), cells)
    assert mutation.equivalent_reason(line("xor", "const1", "A", 2), cells) is None
    assert "never counts" in mutation.equivalent_reason(line("row2", "inv", "B", 0), cells)
    assert mutation.equivalent_reason(line("row2", "inv", "B", 1), cells) is None


def test_first_failure_stops_a_mutant(monkeypatch):
    ran = []

    def fake_run_test(binary, *args):
        ran.append(binary.name)
        return {"quick": "pass", "mid": "fail"}.get(binary.name, "pass")
    monkeypatch.setattr(mutation, "run_test", fake_run_test)
    bins = [pathlib.Path(n) for n in ["quick", "mid", "slow"]]
    assert mutation.run_mutant(bins, 7, [1, 1, 1]) == ("killed", "mid")
    assert ran == ["quick", "mid"]


def test_a_timeout_runs_once_more_with_a_longer_limit(monkeypatch):
    calls = []

    def fake_run_test(binary, mutsel, timeout, *args):
        calls.append((binary.name, timeout))
        if binary.name == "slow_once":  # times out under its limit, passes with more time
            return "timeout" if timeout < 5 else "pass"
        return "timeout" if binary.name == "hang" else "pass"
    monkeypatch.setattr(mutation, "run_test", fake_run_test)
    bins = [pathlib.Path(n) for n in ["slow_once", "last"]]
    assert mutation.run_mutant(bins, 3, [2, 2]) == ("survived", "")
    assert calls == [("slow_once", 2), ("slow_once", 2 * mutation.RetryFactor), ("last", 2)]
    calls.clear()
    bins = [pathlib.Path(n) for n in ["hang", "last"]]
    assert mutation.run_mutant(bins, 3, [2, 2]) == ("timeout", "hang")
    assert calls == [("hang", 2), ("hang", 2 * mutation.RetryFactor)]


def test_describe_a_mutate_line():
    line = ("mutate -ctrl mutsel 16 9 -mode const0 -module xf_xb -cell $flatten\\u_queue.$ternary"
            "$/x/rtl/xf_fifo.sv:71$1434 -port Y -portbit 23 -wire u_queue.pop_data_o -wirebit 23"
            " -src /x/rtl/xf_xb.sv:123.5-133.4 -src /x/rtl/xf_fifo.sv:71.25-71.69")
    assert mutation.parse_mutation(line) == \
        "const0 u_queue.pop_data_o.Y[23] at /x/rtl/xf_fifo.sv:71.25-71.69"


def test_output_cone_and_unread_bits():
    inp, out = {"A": "input", "B": "input"}, {"Y": "output"}
    module = {"ports": {"i": {"direction": "input", "bits": [2]},
                        "o": {"direction": "output", "bits": [3, 7, 9]}},
              "cells": {
                  "c_out": {"type": "$not", "port_directions": {**inp, **out},
                            "connections": {"A": [2], "Y": [3]}},
                  "c_dead": {"type": "$not", "port_directions": {**inp, **out},
                             "connections": {"A": [2], "Y": [4]}},
                  "c_add": {"type": "$add", "port_directions": {**inp, **out},
                            "connections": {"A": [2, 2], "B": [2, 2], "Y": [5, 6]}},
                  "c_use": {"type": "$not", "port_directions": {**inp, **out},
                            "connections": {"A": [5], "Y": [7]}},
                  "c_wr": {"type": "$memwr", "parameters": {"MEMID": "m"},
                           "port_directions": {"DATA": "input"},
                           "connections": {"DATA": [2]}},
                  "c_rd": {"type": "$memrd", "parameters": {"MEMID": "m"},
                           "port_directions": {"ADDR": "input", "DATA": "output"},
                           "connections": {"ADDR": [2], "DATA": [9]}}}}
    cone, read = mutation.output_cone(module)
    assert cone == {"c_out", "c_add", "c_use", "c_wr", "c_rd"}
    cells = module["cells"]

    def line(cell, port, bit):
        return f"mutate -ctrl mutsel 16 1 -mode inv -module m -cell {cell} -port {port} " \
               f"-portbit {bit} -src x.v:1.1-1.2"
    assert "no output" in mutation.unread_reason(line("c_dead", "A", 0), cells, cone, read)
    assert "read by nothing" in mutation.unread_reason(line("c_add", "Y", 1), cells, cone, read)
    assert mutation.unread_reason(line("c_add", "Y", 0), cells, cone, read) is None
    assert mutation.unread_reason(line("c_wr", "DATA", 0), cells, cone, read) is None
