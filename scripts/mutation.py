#!/usr/bin/env python3
"""Mutation testing of the RTL blocks with Yosys's `mutate` pass (docs/mutation.md).

For each group (a Verilated test top and the blocks inside it) Yosys elaborates the top as its
block tests build it, flattens it, draws N mutations per block with `mutate -list` among the cells
whose source is that block's file, and applies them all with `mutate -ctrl`: one netlist in
which the input `mutsel` picks the mutant (0 = the original). A wrapper with the top's ports
drives `mutsel` from the DPI-C function xf_mutsel() (the environment variable XF_MUTSEL), so the
block tests run unchanged on one Verilator build per group. The groups `chip` and `switch` mutate
the chip library's classes in the same way, against the chip test, one process per test. Each
mutant runs the group's tests, quickest first, and stops at the first failure; results go to a
JSON-lines file that a re-run resumes. Usage: scripts/mutation.py [--mutants-per-block N]
[--seed S] [--jobs J] [--budget SECONDS] [--results FILE] [--groups NAME...] [--build DIR]
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

    def __init__(self, name, top, cls, tests, blocks, lib_params=None):
        self.name = name
        self.top = top
        self.cls = cls  # the Verilated class of the RTL_TOP line built from the netlist
        self.tests = tests  # test binaries, quickest first; the last names the sources
        self.blocks = blocks
        # A class of the xf_rtl_chip library (the chip test's `// RTL_LIB:` line) instead of an
        # RTL_TOP line: its sources are scripts/rtl_files.sh's, its parameters these (the
        # library's -G flags in CMakeLists.txt), and its tests run one process each (each
        # elaborates the SystemC model, which a process does once).
        self.lib_params = lib_params

    def header(self, key):
        """The words of the last test's `// key:` header lines, one list per line."""
        text = (ROOT / "tests" / (self.tests[-1] + ".cpp")).read_text()
        return [line.split(":", 1)[1].split() for line in text.splitlines()
                if line.startswith(f"// {key}:")]

    def srcs(self):
        """The RTL sources of the group's test (its RTL_SRCS lines)."""
        if self.lib_params is not None:
            files = subprocess.run([str(ROOT / "scripts" / "rtl_files.sh"), self.top], cwd=ROOT,
                                   capture_output=True, text=True, check=True).stdout.split()
            return ["rtl/xf_defs_pkg.sv"] + files
        return [src for words in self.header("RTL_SRCS") for src in words]

    def params(self):
        """The -G arguments of the RTL_TOP line of the class (chparam in Yosys)."""
        if self.lib_params is not None:
            return self.lib_params
        for words in self.header("RTL_TOP"):
            cls = words[1] if len(words) > 1 else "V" + words[0]
            if cls == self.cls:
                return dict(w[2:].split("=", 1) for w in words[2:] if w.startswith("-G"))
        raise SystemExit(f"{self.tests[-1]}: no RTL_TOP line of class {self.cls}")


GROUPS = [
    Group("xb", "xf_xb", "Vxf_xb", ["test_rtl_xb"],
          ["xf_xb", "xf_fifo", "xf_buf_ram"]),
    Group("router", "xf_router", "Vxf_router", ["test_rtl_router"], ["xf_router"]),
    Group("link", "xf_link", "Vxf_link", ["test_rtl_link"],
          ["xf_link", "xf_crc32", "xf_buf_ram"]),
    Group("exchange", "xf_exchange", "Vxf_exchange", ["test_rtl_exchange"], ["xf_exchange"]),
    Group("uart", "xf_uart_bridge", "Vxf_uart_bridge", ["test_rtl_uart"],
          ["xf_uart_bridge", "xf_uart_rx", "xf_uart_tx"]),
    # the same blocks at an odd bit period (5 cycles): the test's second class
    Group("uart5", "xf_uart_bridge", "Vxf_uart_bridge_c5", ["test_rtl_uart"],
          ["xf_uart_bridge", "xf_uart_rx", "xf_uart_tx"]),
    Group("alu", "xf_reduce_alu", "Vxf_reduce_alu", ["test_rtl_alu_regress", "test_rtl_alu"],
          ["xf_reduce_alu", "xf_int_lane", "xf_fp_add", "xf_fp_mul", "xf_fp_maxmin",
           "xf_delay"]),
    Group("tile", "xf_tile", "Vxf_tile", ["test_rtl_tile"],
          ["xf_tile", "xf_tile_seq", "xf_tile_send", "xf_tile_recv", "xf_tile_ram"]),
    # The chip-level blocks, in the library's chip and switch (CMakeLists.txt), against the chip
    # test; their sub-blocks are mutated in the groups above. xf_link_array is wiring only: the
    # netlist has no cell of its own to mutate.
    Group("chip", "xf_chip", "Vxf_chip", ["test_rtl_chip"], ["xf_chip", "xf_host_port"],
          lib_params={}),
    Group("switch", "xf_switch", "Vxf_switch", ["test_rtl_chip"], ["xf_switch"],
          lib_params={"NumLinks": "16"}),
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
    params = " ".join(f"-set {k} {v}" for k, v in group.params().items())
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
    script.append(f"write_json {workdir / 'original.json'}")  # for equivalent_reason
    for _, lst in lists:
        script.append(f"script {lst}")
    script += [f"rename {group.top} {group.top}__mut", "opt_clean",
               f"write_verilog -noattr {workdir / 'mutants.v.new'}"]
    (workdir / "mutants.ys").write_text("\n".join(script) + "\n")
    with open(workdir / "yosys.log", "w") as log:
        subprocess.run(["yosys", "-q", "-s", str(workdir / "mutants.ys")], stdout=log,
                       stderr=subprocess.STDOUT, check=True)
    keep_if_same(workdir / "mutants.v")
    mutants = []
    for b, lst in lists:
        for line in lst.read_text().splitlines():
            m = re.search(r"-ctrl mutsel \d+ (\d+)", line)
            if m:
                mutants.append((b, int(m.group(1)), parse_mutation(line)))
    write_wrapper(group, workdir)
    return mutants


def netlist_ports(group, workdir):
    """Declarations and connections of the netlist's ports but mutsel."""
    text = (workdir / "mutants.v").read_text()
    body = text[text.index(f"module {group.top}__mut"):]
    body = body[:body.index("endmodule")]
    header = body[body.index("(") + 1:body.index(");")]
    names = [n.strip() for n in header.split(",")]
    ports = re.findall(r"^\s*(input|output|inout)\s+(\[[^\]]+\]\s+)?(\\?\S+);", body, re.M)
    decls, conns = [], []
    for direction, rng, name in ports:  # (functions of $pmux cells declare inputs too)
        if name == "mutsel" or name not in names:
            continue
        names.remove(name)
        decls.append(f"  {direction} logic {rng or ''}{name}")
        conns.append(f"    .{name}({name})")
    return decls, conns


def keep_if_same(path):
    """Move path.new over path unless equal, so that an unchanged netlist is not rebuilt."""
    new = Path(str(path) + ".new")
    if path.exists() and path.read_bytes() == new.read_bytes():
        new.unlink()
    else:
        new.replace(path)


def write_if_changed(path, text):
    if not path.exists() or path.read_text() != text:
        path.write_text(text)


def mutate_options(line):
    """The options of a `mutate` line as a dict (the last -src wins)."""
    words = line.split()
    return {words[i][1:]: words[i + 1] for i in range(1, len(words) - 1, 2)
            if words[i].startswith("-") and words[i] != "-ctrl"}


def bit_drivers(cells):
    """Bit -> (cell, port, index) of the cell output driving it, over write_json cells."""
    out = {}
    for c in cells.values():
        for port, bits in c["connections"].items():
            if c.get("port_directions", {}).get(port, "output" if port == "Y" else "") == "output":
                for k, b in enumerate(bits):
                    if isinstance(b, int):
                        out[b] = (c, port, k)
    return out


def bit_const(bit, drivers, depth=0):
    """'0' or '1' if a netlist bit never takes another value: a constant, or the output of a
    bitwise $and with an operand bit that is constant 0 ($or: 1), through a few such cells
    (a CRC's `data & Row` where the row's bit is 0); else None."""
    if bit in ("0", "1"):
        return bit
    if not isinstance(bit, int) or depth > 3 or bit not in drivers:
        return None
    c, port, k = drivers[bit]
    conn = c["connections"]
    if port != "Y" or c["type"] not in ("$and", "$or") or not (
            len(conn["A"]) == len(conn["B"]) == len(conn["Y"])):
        return None
    ab = (bit_const(conn["A"][k], drivers, depth + 1), bit_const(conn["B"][k], drivers, depth + 1))
    if c["type"] == "$and" and "0" in ab:
        return "0"
    if c["type"] == "$or" and "1" in ab:
        return "1"
    return None


def equivalent_reason(line, cells, drivers=None):
    """Why the mutation of `line` cannot change the netlist, read off the unmutated cells of
    Yosys's write_json (name -> cell; drivers: their bit_drivers), or None: the bit is forced to
    the constant it already has; the bit is ANDed with a constant 0 (ORed with a constant 1) so
    its value never counts; a cnot mutation's control bit is such a constant, so the bit is never
    flipped; or the bit is an undefined 'x' (proc's value where the RTL assigns nothing, a
    don't-care: any value the mutant gives it is one the original netlist allows). A constant is
    a constant bit or one that bit_const shows never changes."""
    o = mutate_options(line)
    cell = cells.get(o.get("cell"))
    if cell is None or "portbit" not in o:
        return None
    drivers = bit_drivers(cells) if drivers is None else drivers
    conn, kind = cell["connections"], cell["type"]
    port, i = o["port"], int(o["portbit"])

    def const(p, k):
        """The constant value of bit k of port p ('0', '1') or None."""
        bits = conn.get(p, [])
        return bit_const(bits[k], drivers) if k < len(bits) else None
    other = {"A": "B", "B": "A"}.get(port)
    if other and kind in ("$and", "$or") and len(conn["A"]) == len(conn["B"]):
        if const(other, i) == ("0" if kind == "$and" else "1"):
            return f"{port}[{i}] meets a constant {const(other, i)} in a {kind}: never counts"
    mode = o["mode"]
    bits = conn.get(port, [])
    if i < len(bits) and bits[i] == "x":
        return f"{port}[{i}] is an undefined 'x' (a path where the RTL leaves it unassigned)"
    if mode in ("const0", "const1") and const(port, i) == mode[-1]:
        return f"{port}[{i}] is a constant {mode[-1]} already"
    if mode in ("cnot0", "cnot1") and "ctrlbit" in o:
        c = int(o["ctrlbit"])
        if const(port, c) == ("0" if mode == "cnot1" else "1"):
            return f"the control bit {port}[{c}] is a constant {const(port, c)}: never flips"
    return None


def output_cone(module):
    """The cells of a write_json module from which some output port is reachable, and the bits
    they read (or that are outputs): backwards from the output ports through every cell
    (flip-flops included) and from a memory's read port to its write ports."""
    driver = {}  # bit -> cells driving it
    for name, c in module.get("cells", {}).items():
        for port, bits in c["connections"].items():
            if c.get("port_directions", {}).get(port) == "output":
                for b in bits:
                    if isinstance(b, int):
                        driver.setdefault(b, []).append(name)
    writers = {}  # memory -> its write cells: a read port's data comes from them, not a wire
    for name, c in module.get("cells", {}).items():
        if c["type"].startswith(("$memwr", "$meminit")):
            writers.setdefault(c["parameters"].get("MEMID"), []).append(name)
    todo = [b for p in module.get("ports", {}).values() if p["direction"] != "input"
            for b in p["bits"] if isinstance(b, int)]
    seen_bits, cone = set(todo), set()
    while todo:
        names = driver.get(todo.pop(), [])
        for name in names:
            if name in cone:
                continue
            cone.add(name)
            c = module["cells"][name]
            if c["type"].startswith("$memrd"):
                names += writers.get(c["parameters"].get("MEMID"), [])
            for port, bits in c["connections"].items():
                if c.get("port_directions", {}).get(port) != "output":
                    for b in bits:
                        if isinstance(b, int) and b not in seen_bits:
                            seen_bits.add(b)
                            todo.append(b)
    return cone, seen_bits


def equivalents(workdir):
    """Mutant index -> reason, for the trivially equivalent mutants of a group's netlist."""
    path = workdir / "original.json"
    if not path.exists():
        return {}
    modules = json.loads(path.read_text())["modules"]
    cells, cone, read = {}, set(), set()
    for m in modules.values():
        cells.update(m.get("cells", {}))
        c, r = output_cone(m)
        cone |= c
        read |= r
    out = {}
    drivers = bit_drivers(cells)
    for lst in workdir.glob("list_*.ys"):
        for line in lst.read_text().splitlines():
            m = re.search(r"-ctrl mutsel \d+ (\d+)", line)
            reason = m and (equivalent_reason(line, cells, drivers) or
                            unread_reason(line, cells, cone, read))
            if reason:
                out[int(m.group(1))] = reason
    return out


def unread_reason(line, cells, cone, read):
    """Why the mutation of `line` reaches no output port, or None: its cell is outside the
    output cone (it drives what only the assertions read, which the netlist lacks), or it
    mutates an output bit of the cell that nothing in the cone reads."""
    o = mutate_options(line)
    cell = cells.get(o.get("cell"))
    if cell is None:
        return None
    if o["cell"] not in cone:
        return "the cell reaches no output (it drives what only assertions read)"
    port, i = o.get("port"), int(o.get("portbit", -1))
    bits = cell["connections"].get(port, [])
    if (cell.get("port_directions", {}).get(port) == "output" and 0 <= i < len(bits)
            and isinstance(bits[i], int) and bits[i] not in read):
        return f"{port}[{i}] is read by nothing that reaches an output"
    return None


def write_wrapper(group, workdir):
    """The top's ports around the netlist; mutsel from XF_MUTSEL through DPI-C."""
    decls, conns = netlist_ports(group, workdir)
    conns = conns + ["    .mutsel(mutsel)"]
    write_if_changed(workdir / "wrapper.sv",
        f"// Generated by scripts/mutation.py: {group.top} with the mutant XF_MUTSEL selects.\n"
        f"module {group.top} (\n" + ",\n".join(decls) + "\n);\n"
        "  import \"DPI-C\" function int xf_mutsel();\n"
        f"  logic [{CTRL_BITS - 1}:0] mutsel;\n"
        f"  initial mutsel = {CTRL_BITS}'(xf_mutsel());\n"
        f"  {group.top}__mut u_mut (\n" + ",\n".join(conns) + "\n  );\nendmodule\n")
    write_if_changed(workdir / "mutsel.cpp",
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
    if Path(out).exists() and Path(out).stat().st_mtime > Path(binary).stat().st_mtime:
        t -= float(json.loads(Path(out).read_text())["time"].rstrip("s"))  # same binary: reuse
    else:
        run_test(binary, 0, 3600, json_out=out)
    failed = []
    for suite in json.loads(Path(out).read_text())["testsuites"]:
        for test in suite["testsuite"]:
            if test.get("failures"):
                failed.append(f"{suite['name']}.{test['name']}")
    total = sum(len(s["testsuite"]) for s in json.loads(Path(out).read_text())["testsuites"])
    return failed, total, time.time() - t


RetryFactor = 3  # a timed-out test runs once more with this many times its limit


def run_mutant(binaries, mutsel, timeouts, filters=None):
    """Verdict and killing test of one mutant: the tests in order, up to the first failure."""
    filters = filters or [BASE_FILTER] * len(binaries)
    for binary, timeout, gfilter in zip(binaries, timeouts, filters):
        r = run_test(binary, mutsel, timeout, gfilter)
        if r == "timeout":
            # A loaded machine can slow a surviving mutant past its limit (docs/mutation.md
            # section 3.3): once more with three times the limit before it counts as killed.
            r = run_test(binary, mutsel, RetryFactor * timeout, gfilter)
        # a test of its own (a group run one process per test) is named
        test = binary.name if gfilter.startswith("-") else f"{binary.name} {gfilter}"
        if r == "fail":
            return "killed", test
        if r == "timeout":
            return "timeout", test
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

    def latest(self):
        """The last row of each mutant, by group, block, index and mutation (a re-run of the
    survivors appends newer rows; two groups may mutate the same block)."""
        out = {}
        for r in self.rows:
            out[(r.get("group"), r["block"], r["index"], r["mutation"])] = r
        return list(out.values())

    def done(self, rerun_survivors=False):
        return {(r.get("group"), r["block"], r["index"], r["mutation"]) for r in self.latest()
                if not (rerun_survivors and r["verdict"] == "survived")}

    def add(self, row):
        with self.lock:
            self.rows.append(row)
            with open(self.path, "a") as f:
                f.write(json.dumps(row) + "\n")


def table(rows, equiv=None, argued=None):
    """The per-block table and the total, as text. equiv: (group, index) -> reason of the
    survivors that are equivalent by the netlist rule; argued: (group, index, mutation) ->
    reason of those argued equivalent by hand (ARGUED_FILE). The kill rate leaves both out, as
    it does errors."""
    equiv, argued = equiv or {}, argued or {}
    per = {}
    for r in rows:
        v = r["verdict"]
        if v == "survived" and (r.get("group"), r["index"]) in equiv:
            v = "equivalent"
        elif v == "survived" and (r.get("group"), r["index"], r.get("mutation")) in argued:
            v = "argued"
        per.setdefault(r["block"], []).append(v)
    names = ["killed", "timeout", "survived", "equivalent", "argued", "error"]
    lines = [f"{'block':16} {'mutants':>7} " + " ".join(f"{n:>10}" for n in names)
             + f" {'kill rate':>9}"]
    tot = [0] * 7

    def fmt(name, n, k, t, s, q, a, e):
        rate = f"{100.0 * (k + t) / (n - e - q - a):.1f} %" if n > e + q + a else "-"
        return (f"{name:16} {n:7} " + " ".join(f"{x:10}" for x in (k, t, s, q, a, e))
                + f" {rate:>9}")
    for block in sorted(per):
        v = per[block]
        c = [len(v)] + [v.count(n) for n in names]
        tot = [a + b for a, b in zip(tot, c)]
        lines.append(fmt(block, *c))
    lines.append(fmt("total", *tot))
    return "\n".join(lines)


ARGUED_FILE = ROOT / "scripts" / "mutation_argued.txt"


def argued_equivalents(path=ARGUED_FILE):
    """(group, index, mutation) -> reason: the survivors argued equivalent by hand, one a line
    `group index mutation | reason` (docs/mutation.md section 4); # starts a comment. The
    mutation text must be the results file's, so a line of another draw matches nothing."""
    out = {}
    if not Path(path).exists():
        return out
    for line in Path(path).read_text().splitlines():
        if not line.strip() or line.startswith("#"):
            continue
        key, reason = line.split(" | ", 1)
        group, index, mutation = key.split(" ", 2)
        out[(group, int(index), mutation.strip())] = reason.strip()
    return out


def all_equivalents(work):
    """(group, index) -> reason over every group directory under work."""
    out = {}
    for g in GROUPS:
        for i, reason in equivalents(work / g.name).items():
            out[(g.name, i)] = reason
    return out


def survivors(rows, work):
    """The survivors, one line each: block, index, mutation, source text, and the reason it is
    equivalent (netlist rule) or argued equivalent (ARGUED_FILE), if any."""
    equiv, argued = all_equivalents(work), argued_equivalents()
    lines = []
    for r in sorted(rows, key=lambda r: (r["block"], r["index"])):
        if r["verdict"] != "survived":
            continue
        m = re.search(r"at (rtl/\S+):(\d+)\.(\d+)-(\d+)\.(\d+)", r["mutation"])
        text = ""
        if m and (ROOT / m.group(1)).exists():
            line = (ROOT / m.group(1)).read_text().splitlines()[int(m.group(2)) - 1]
            end = int(m.group(5)) - 1 if m.group(2) == m.group(4) else len(line)
            text = line[int(m.group(3)) - 1:end].strip()
        reason = equiv.get((r.get("group"), r["index"]), "")
        why = argued.get((r.get("group"), r["index"], r["mutation"]), "")
        lines.append(f"{r['block']} #{r['index']}: {r['mutation']} | {text}"
                     + (f" | equivalent: {reason}" if reason else "")
                     + (f" | argued: {why}" if why and not reason else ""))
    return "\n".join(lines)


def run_all(jobs, results, runner, budget, log=print, rerun_survivors=False):
    """Run the jobs (group, block, index, desc, run) not already in results (or survivors
    there, with rerun_survivors), in parallel, within the budget in seconds; prints progress
    with an ETA."""
    done = results.done(rerun_survivors)
    todo = [j for j in jobs if tuple(j[:4]) not in done]
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
    ap.add_argument("--survivors", action="store_true", help="list the survivors only")
    ap.add_argument("--rerun-survivors", action="store_true",
                    help="run the survivors again (after a test was added)")
    ap.add_argument("--skip-argued", action="store_true",
                    help="with --rerun-survivors: not those of " + ARGUED_FILE.name)
    a = ap.parse_args()
    work = Path(a.build).resolve() / "mutation"
    work.mkdir(parents=True, exist_ok=True)
    results = Results(a.results or work / f"results-n{a.mutants_per_block}-s{a.seed}.jsonl")
    if a.table:
        print(table(results.latest(), all_equivalents(work), argued_equivalents()))
        return 0
    if a.survivors:
        print(survivors(results.latest(), work))
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
    print(table(results.latest(), all_equivalents(work), argued_equivalents()))
    return 0


def list_tests(binary):
    """The full names of binary's tests that BASE_FILTER keeps (gtest's list format)."""
    out = subprocess.run([str(binary), "--gtest_list_tests", f"--gtest_filter={BASE_FILTER}"],
                         capture_output=True, text=True, check=True).stdout
    names, suite = [], None
    for line in out.splitlines():
        m = re.match(r"^(\S+\.)\s*(#.*)?$", line)
        if m:
            suite = m.group(1)
            continue
        m = re.match(r"^  (\S+)", line)
        if m and suite:
            names.append(suite + m.group(1))
    return names


def isolated_tests(g, binaries):
    """A group whose tests run one process each: one entry per test of every binary, quickest
    first, each timed on mutant 0; those failing there are left out (at most 1 in 20)."""
    entries = []
    for b in binaries:
        names = list_tests(b)
        failed = []
        for n in names:
            t = time.time()
            if run_test(b, 0, 3600, n) == "pass":
                entries.append((time.time() - t, b, n))
            else:
                failed.append(n)
        if not names or len(failed) > max(2, len(names) // 20):
            print(f"{g.name}: {b.name} fails {len(failed)} of {len(names)} tests on the original "
                  f"(mutant 0): {' '.join(failed[:5])}; group not run", flush=True)
            return [], [], []
        print(f"{g.name}: {b.name} passes {len(names) - len(failed)} tests on the original, one "
              f"process each, in {sum(e[0] for e in entries):.1f} s"
              + (f"; left out, failing there: {' '.join(failed)}" if failed else ""), flush=True)
    entries.sort(key=lambda e: e[0])
    return ([e[1] for e in entries], [max(10.0, 5 * e[0]) for e in entries],
            [e[2] for e in entries])


def run_group(g, wd, a, results, budget):
    """Draw, build, check mutant 0 and run the mutants of one group."""
    print(f"{g.name}: drawing {a.mutants_per_block} mutants per block of "
          f"{', '.join(g.blocks)} (seed {a.seed})", flush=True)
    mutants = generate(g, wd, a.mutants_per_block, a.seed)
    done = results.done(a.rerun_survivors)
    if all((g.name, b, i, d) in done for b, i, d in mutants):
        print(f"{g.name}: all {len(mutants)} mutants already in {results.path}", flush=True)
        return
    print(f"{g.name}: building {' '.join(g.tests)} (log {wd / 'build.log'})", flush=True)
    t0 = time.time()
    try:
        binaries = build(g, wd, a.jobs)
    except subprocess.CalledProcessError:
        print(f"{g.name}: the build failed (see {wd / 'build.log'}); group not run", flush=True)
        return
    if g.lib_params is not None:
        binaries, timeouts, filters = isolated_tests(g, binaries)
        if not binaries:
            return
    else:
        timeouts, filters = [], []
        for b in binaries:  # mutant 0 is the original: its failures are left out, a few at most
            failed, total, secs = original_failures(b, wd / f"{b.name}-original.json")
            if total == 0 or len(failed) > max(2, total // 20):
                print(f"{g.name}: {b.name} fails {len(failed)} of {total} tests on the original "
                      f"(mutant 0): {' '.join(failed[:5])}; group not run", flush=True)
                return
            timeouts.append(max(10.0, 5 * secs))
            filters.append(":".join([BASE_FILTER] + failed))
            print(f"{g.name}: {b.name} passes {total - len(failed)} tests on the original in "
                  f"{secs:.1f} s" + (f"; left out, failing there: {' '.join(failed)}"
                                     if failed else ""), flush=True)
    equiv = equivalents(wd) if a.rerun_survivors else {}  # proven: no need to run them again
    argued = argued_equivalents() if a.skip_argued else {}
    done = results.done()
    jobs = [(g.name, b, i, d, lambda i=i: run_mutant(binaries, i, timeouts, filters))
            for b, i, d in mutants
            if not ((i in equiv or (g.name, i, d) in argued) and (g.name, b, i, d) in done)]

    def log(msg):
        print(msg, flush=True)
    run_all(jobs, results, a.jobs, budget - (time.time() - t0), log, a.rerun_survivors)


if __name__ == "__main__":
    sys.exit(main())
