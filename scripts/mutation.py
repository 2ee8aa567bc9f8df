#!/usr/bin/env python3
"""Mutation testing of the RTL blocks with Yosys's `mutate` pass (docs/mutation.md).

For each group (a Verilated test top and the blocks inside it) Yosys elaborates the top as its
block tests build it, flattens it, draws N mutations per block with `mutate -list` among the cells
whose source is that block's file, and applies them all with `mutate -ctrl`: one netlist in
which the input `mutsel` picks the mutant (0 = the original). A wrapper with the top's ports
drives `mutsel` from the DPI-C function xf_mutsel() (the environment variable XF_MUTSEL), so the
block tests run unchanged on one Verilator build per group. Each mutant runs the group's tests,
quickest first, and stops at the first failure; results go to a JSON-lines file that a re-run
resumes. Usage: scripts/mutation.py [--mutants-per-block N] [--seed S] [--jobs J]
[--budget SECONDS] [--results FILE] [--groups NAME...] [--build DIR]
"""
import argparse
import concurrent.futures
import json
import os
import re
import subprocess
import sys
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
CTRL_BITS = 16  # width of mutsel: 65,535 mutants per group at most


class Group:
    """A Verilated test top, the blocks mutated inside it and the tests that exercise them."""

    def __init__(self, name, top, cls, tests, blocks, params=None, test_file=None):
        self.name = name
        self.top = top
        self.cls = cls  # the Verilated class of the RTL_TOP line built from the netlist
        self.tests = tests  # test binaries, quickest first
        self.blocks = blocks
        self.params = params or {}  # the RTL_TOP line's -G arguments (chparam)
        self.test_file = test_file or tests[-1]

    def srcs(self):
        """The RTL sources of the group's test (its RTL_SRCS lines)."""
        out = []
        for line in (ROOT / "tests" / (self.test_file + ".cpp")).read_text().splitlines():
            if line.startswith("// RTL_SRCS:"):
                out += line.split(":", 1)[1].split()
        return out


GROUPS = [
    Group("xb", "xf_xb", "Vxf_xb", ["test_rtl_xb"], ["xf_xb", "xf_fifo"]),
    Group("router", "xf_router", "Vxf_router", ["test_rtl_router"], ["xf_router"]),
    Group("link", "xf_link", "Vxf_link", ["test_rtl_link"], ["xf_link", "xf_crc32"]),
    Group("exchange", "xf_exchange", "Vxf_exchange", ["test_rtl_exchange"], ["xf_exchange"]),
    Group("alu", "xf_reduce_alu", "Vxf_reduce_alu", ["test_rtl_alu_regress", "test_rtl_alu"],
          ["xf_reduce_alu", "xf_int_lane", "xf_fp_add", "xf_fp_mul", "xf_fp_maxmin",
           "xf_delay"]),
    Group("tile", "xf_tile", "Vxf_tile", ["test_rtl_tile"],
          ["xf_tile", "xf_tile_seq", "xf_tile_send", "xf_tile_recv", "xf_tile_ram"]),
    Group("uart", "xf_uart_bridge", "Vxf_uart_bridge", ["test_rtl_uart"],
          ["xf_uart_bridge", "xf_uart_rx", "xf_uart_tx"]),
]


def block_selection(group, block):
    """Yosys selection of the flattened cells whose source is block's file and no other's."""
    sel = f"a:src=*rtl/{block}.sv:*"
    for src in group.srcs():
        other = Path(src).stem
        if other not in (block, group.top, "xf_defs_pkg"):
            sel += f" a:src=*rtl/{other}.sv:* %d"
    return sel


def prep_script(group):
    srcs = " ".join(str(ROOT / s) for s in group.srcs())
    lines = [f"read_verilog -sv -I{ROOT / 'rtl'} {srcs}"]
    params = " ".join(f"-set {k} {v}" for k, v in group.params.items())
    if params:
        lines.append(f"chparam {params} {group.top}")
    lines += [f"hierarchy -top {group.top}", "proc", "flatten", "opt_clean"]
    return lines


def parse_mutation(line):
    """(mode, cell, port, bit, innermost src) of one `mutate` line, for the results file."""
    words = line.split()
    opts = {}
    srcs = []
    i = 1
    while i < len(words):
        if words[i] == "-ctrl":
            i += 4
            continue
        if words[i] == "-src":
            srcs.append(words[i + 1])
        else:
            opts[words[i][1:]] = words[i + 1]
        i += 2
    src = srcs[-1].replace(str(ROOT) + "/", "") if srcs else "?"
    where = opts.get("wire") or re.sub(r"\S*/rtl/", "", opts.get("cell", "?"))
    return f"{opts.get('mode')} {where}.{opts.get('port')}[{opts.get('portbit')}] at {src}"


def generate(group, workdir, per_block, seed):
    """The mutated netlist, wrapper and selector of a group; returns [(block, index, desc)]."""
    workdir.mkdir(parents=True, exist_ok=True)
    lists = []
    script = prep_script(group)
    base = 1
    for b in group.blocks:
        lst = workdir / f"list_{b}.ys"
        script.append(f"mutate -list {per_block} -seed {seed} -ctrl mutsel {CTRL_BITS} {base} "
                      f"-o {lst} {block_selection(group, b)}")
        lists.append((b, lst))
        base += per_block
    for _, lst in lists:
        script.append(f"script {lst}")
    script += [f"rename {group.top} {group.top}__mut", "opt_clean",
               f"write_verilog -noattr {workdir / 'mutants.v'}"]
    (workdir / "mutants.ys").write_text("\n".join(script) + "\n")
    with open(workdir / "yosys.log", "w") as log:
        subprocess.run(["yosys", "-q", "-s", str(workdir / "mutants.ys")], stdout=log,
                       stderr=subprocess.STDOUT, check=True)
    mutants = []
    for b, lst in lists:
        for line in lst.read_text().splitlines():
            m = re.search(r"-ctrl mutsel \d+ (\d+)", line)
            if m:
                mutants.append((b, int(m.group(1)), parse_mutation(line)))
    write_wrapper(group, workdir)
    return mutants


def write_wrapper(group, workdir):
    """The top's ports around the netlist; mutsel from XF_MUTSEL through DPI-C."""
    text = (workdir / "mutants.v").read_text()
    body = text[text.index(f"module {group.top}__mut"):]
    body = body[:body.index("endmodule")]
    ports = re.findall(r"^\s*(input|output|inout)\s+(\[[^\]]+\]\s+)?(\\?\S+);", body, re.M)
    decls, conns = [], []
    for direction, rng, name in ports:
        if name == "mutsel":
            continue
        decls.append(f"  {direction} logic {rng or ''}{name}")
        conns.append(f"    .{name}({name})")
    conns.append("    .mutsel(mutsel)")
    (workdir / "wrapper.sv").write_text(
        f"// Generated by scripts/mutation.py: {group.top} with the mutant XF_MUTSEL selects.\n"
        f"module {group.top} (\n" + ",\n".join(decls) + "\n);\n"
        "  import \"DPI-C\" function int xf_mutsel();\n"
        f"  logic [{CTRL_BITS - 1}:0] mutsel;\n"
        f"  initial mutsel = {CTRL_BITS}'(xf_mutsel());\n"
        f"  {group.top}__mut u_mut (\n" + ",\n".join(conns) + "\n  );\nendmodule\n")
    (workdir / "mutsel.cpp").write_text(
        "// Generated by scripts/mutation.py: the mutant the netlist runs (0: the original).\n"
        "#include <cstdlib>\n"
        "extern \"C\" int xf_mutsel() {\n"
        "  const char* s = std::getenv(\"XF_MUTSEL\");\n"
        "  return s ? std::atoi(s) : 0;\n"
        "}\n")


def build(group, workdir, jobs):
    """One CMake build directory per group; builds the group's test binaries."""
    cmake_dir = workdir / "cmake"
    with open(workdir / "build.log", "w") as log:
        subprocess.run(["cmake", "-S", str(ROOT), "-B", str(cmake_dir),
                        "-DCMAKE_BUILD_TYPE=RelWithDebInfo", "-DXF_FLIT_WIDTHS=128",
                        f"-DXF_MUTANT_CLASS={group.cls}", f"-DXF_MUTANT_DIR={workdir}"],
                       stdout=log, stderr=subprocess.STDOUT, check=True)
        subprocess.run(["nice", "-n", "10", "cmake", "--build", str(cmake_dir), "-j", str(jobs),
                        "--target"] + group.tests, stdout=log, stderr=subprocess.STDOUT,
                       check=True)
    return [cmake_dir / t for t in group.tests]


BASE_FILTER = "-*w32*:*w64*:*W32*:*W64*"  # the 32- and 64-bit classes run the original RTL


def run_test(binary, mutsel, timeout, gfilter=BASE_FILTER, json_out=None):
    """'pass', 'fail' or 'timeout' of one test binary on one mutant."""
    env = dict(os.environ, XF_MUTSEL=str(mutsel), GTEST_FILTER=gfilter)
    args = ["nice", "-n", "10", str(binary), "--gtest_brief=1"]
    if json_out:
        args.append(f"--gtest_output=json:{json_out}")
    else:
        env["GTEST_FAIL_FAST"] = "1"
    try:
        r = subprocess.run(args, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                           timeout=timeout)
    except subprocess.TimeoutExpired:
        return "timeout"
    return "pass" if r.returncode == 0 else "fail"


def original_failures(binary, out):
    """The tests of binary that fail on mutant 0, the unmutated netlist: those that expect an RTL
    assertion to fire (the netlist has none, Yosys reads the RTL with SYNTHESIS defined)."""
    t = time.time()
    run_test(binary, 0, 3600, json_out=out)
    failed = []
    for suite in json.loads(Path(out).read_text())["testsuites"]:
        for test in suite["testsuite"]:
            if test.get("failures"):
                failed.append(f"{suite['name']}.{test['name']}")
    total = sum(len(s["testsuite"]) for s in json.loads(Path(out).read_text())["testsuites"])
    return failed, total, time.time() - t


def run_mutant(binaries, mutsel, timeouts, filters=None):
    """Verdict and killing test of one mutant: the tests in order, up to the first failure."""
    filters = filters or [BASE_FILTER] * len(binaries)
    for binary, timeout, gfilter in zip(binaries, timeouts, filters):
        r = run_test(binary, mutsel, timeout, gfilter)
        if r == "fail":
            return "killed", binary.name
        if r == "timeout":
            return "timeout", binary.name
    return "survived", ""


class Results:
    """The JSON-lines results file: one line per mutant, appended as each finishes."""

    def __init__(self, path):
        self.path = Path(path)
        self.lock = threading.Lock()
        self.rows = []
        if self.path.exists():
            for line in self.path.read_text().splitlines():
                if line.strip():
                    self.rows.append(json.loads(line))

    def done(self):
        return {(r["block"], r["index"], r["mutation"]) for r in self.rows}

    def add(self, row):
        with self.lock:
            self.rows.append(row)
            with open(self.path, "a") as f:
                f.write(json.dumps(row) + "\n")


def table(rows):
    """The per-block table and the total, as text."""
    per = {}
    for r in rows:
        per.setdefault(r["block"], []).append(r["verdict"])
    lines = [f"{'block':16} {'mutants':>7} {'killed':>7} {'timeout':>7} {'survived':>8} "
             f"{'error':>5} {'kill rate':>9}"]
    tot = [0, 0, 0, 0, 0]

    def fmt(name, n, k, t, s, e):
        rate = f"{100.0 * (k + t) / (n - e):.1f} %" if n > e else "-"
        return f"{name:16} {n:7} {k:7} {t:7} {s:8} {e:5} {rate:>9}"
    for block in sorted(per):
        v = per[block]
        c = [len(v), v.count("killed"), v.count("timeout"), v.count("survived"),
             v.count("error")]
        tot = [a + b for a, b in zip(tot, c)]
        lines.append(fmt(block, *c))
    lines.append(fmt("total", *tot))
    return "\n".join(lines)


def run_all(jobs, results, runner, budget, log=print):
    """Run the jobs (group, block, index, desc, run) not already in results, in parallel,
    within the budget in seconds; prints progress with an ETA."""
    done = results.done()
    todo = [j for j in jobs if (j[1], j[2], j[3]) not in done]
    log(f"{len(jobs)} mutants, {len(jobs) - len(todo)} already in {results.path}, "
        f"{len(todo)} to run")
    t0 = time.time()
    count = [0]

    def one(job):
        group, block, index, desc, run = job
        if time.time() - t0 > budget:
            return
        t = time.time()
        verdict, test = run()
        row = {"group": group, "block": block, "index": index, "mutation": desc,
               "verdict": verdict, "test": test, "seconds": round(time.time() - t, 1)}
        results.add(row)
        with results.lock:
            count[0] += 1
            n = count[0]
        el = time.time() - t0
        eta = el / n * (len(todo) - n)
        log(f"[{n}/{len(todo)}] {block} #{index} {verdict} {test} ({row['seconds']} s) "
            f"{desc}; ETA {eta / 60:.0f} min")
    with concurrent.futures.ThreadPoolExecutor(max_workers=runner) as pool:
        list(pool.map(one, todo))
    if time.time() - t0 > budget and count[0] < len(todo):
        log(f"time budget of {budget} s spent: {len(todo) - count[0]} mutants left for a "
            "re-run")


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--mutants-per-block", type=int, default=25)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--jobs", type=int, default=os.cpu_count())
    ap.add_argument("--budget", type=float, default=3600, help="seconds")
    ap.add_argument("--build", default=str(ROOT / "build"))
    ap.add_argument("--results", default=None,
                    help="default BUILD/mutation/results-n<N>-s<seed>.jsonl")
    ap.add_argument("--groups", nargs="*", default=None,
                    help="of " + " ".join(g.name for g in GROUPS))
    ap.add_argument("--table", action="store_true", help="print the table of the results only")
    a = ap.parse_args()
    work = Path(a.build).resolve() / "mutation"
    work.mkdir(parents=True, exist_ok=True)
    results = Results(a.results or work / f"results-n{a.mutants_per_block}-s{a.seed}.jsonl")
    if a.table:
        print(table(results.rows))
        return 0
    t0 = time.time()
    for g in GROUPS:
        if a.groups and g.name not in a.groups:
            continue
        left = a.budget - (time.time() - t0)
        if left <= 0:
            print(f"{g.name}: not run, time budget spent", flush=True)
            continue
        run_group(g, work / g.name, a, results, left)
    print(table(results.rows))
    return 0


def run_group(g, wd, a, results, budget):
    """Draw, build, check mutant 0 and run the mutants of one group."""
    print(f"{g.name}: drawing {a.mutants_per_block} mutants per block of "
          f"{', '.join(g.blocks)} (seed {a.seed})", flush=True)
    mutants = generate(g, wd, a.mutants_per_block, a.seed)
    done = results.done()
    if all((b, i, d) in done for b, i, d in mutants):
        print(f"{g.name}: all {len(mutants)} mutants already in {results.path}", flush=True)
        return
    print(f"{g.name}: building {' '.join(g.tests)} (log {wd / 'build.log'})", flush=True)
    t0 = time.time()
    binaries = build(g, wd, a.jobs)
    timeouts, filters = [], []
    for b in binaries:  # mutant 0 is the original: its failures are left out, a few at most
        failed, total, secs = original_failures(b, wd / f"{b.name}-original.json")
        if total == 0 or len(failed) > max(2, total // 20):
            print(f"{g.name}: {b.name} fails {len(failed)} of {total} tests on the original "
                  f"(mutant 0): {' '.join(failed[:5])}; group not run", flush=True)
            return
        timeouts.append(max(30.0, 5 * secs))
        filters.append(":".join([BASE_FILTER] + failed))
        print(f"{g.name}: {b.name} passes {total - len(failed)} tests on the original in "
              f"{secs:.1f} s" + (f"; left out, failing there: {' '.join(failed)}"
                                 if failed else ""), flush=True)
    jobs = [(g.name, b, i, d, lambda i=i: run_mutant(binaries, i, timeouts, filters))
            for b, i, d in mutants]

    def log(msg):
        print(msg, flush=True)
    run_all(jobs, results, a.jobs, budget - (time.time() - t0), log)


if __name__ == "__main__":
    sys.exit(main())
