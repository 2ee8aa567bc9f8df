#!/usr/bin/env python3
"""Logic levels of the register-to-register paths of a mapped Yosys netlist, per block.

Usage: scripts/logic_levels.py NETLIST.json [--top MODULE] [--depth N] [--paths K] [--json OUT]

NETLIST.json is a `write_json` of a design after `synth_ecp5`, `synth_ice40` or `synth_xilinx`,
hierarchical (`-noflatten`) or flat. The script flattens it, walks every combinational arc from
the start points (flip-flop and synchronous RAM outputs, the top's inputs) to the end points
(flip-flop and RAM inputs, the top's outputs) and counts the logic levels on the longest path
into each end point. It prints one row per block (the instance path of the end point, cut at
--depth levels below the top): the block's cells and its worst path, with where that path starts
and ends. This is what docs/fpga.md section 9 calls a block's "levels": the FPGA-grade chip aims
at 6 or fewer on ECP5.

How levels are counted (the same rule nextpnr's "logic levels" follows for LUTs, kept simple for
the rest):
  - a LUT (ECP5 LUT4, iCE40 SB_LUT4, Xilinx LUT1..6) is one level;
  - the muxes that join LUTs inside a slice into a wider function (ECP5 PFUMX and L6MUX21, Xilinx
    MUXF7/8) add none: they make a LUT5/6/7 out of the LUT4s before them;
  - a carry chain costs one level where a signal enters it (ECP5 CCU2C's A/B/C/D, iCE40
    SB_CARRY's I0/I1, Xilinx CARRY4's S/DI) and none along it (CIN to COUT or S): the dedicated
    carry path is an order of magnitude faster than a LUT;
  - a distributed RAM's asynchronous read (ECP5 TRELLIS_DPR16X4 RAD to DO, Xilinx RAM*M/S/D) is
    one level; its write side is an end point;
  - a DSP without registers (ECP5 MULT18X18D and ALU54B, iCE40 SB_MAC16, Xilinx DSP48E1) counts
    as one level and is named on the path, since its delay is several LUTs';
  - block RAMs (DP16KD, SB_RAM40_4K, SB_SPRAM256KA, RAMB18/36) read synchronously: start and end
    points, like flip-flops.
A cell type the tables below do not know is treated as a start and end point and counted in the
report's "unknown cells" line, so that a new primitive cannot shorten a path silently.

Written here rather than taken from a tool: Yosys's `ltp` counts every cell type as a level and
stops at module boundaries, `sta` needs timing models this flow does not have, and nextpnr
reports only the single worst path after place and route (hours for a full machine).
"""
import argparse
import collections
import json
import sys

# Per family: cell type -> (input pins that are start of an arc with their cost, output pins).
# Pin names not listed are end points (inputs) or start points (outputs). ECP5's LUT4 and
# Xilinx's LUT4 share a name and not their pins, hence the tables per family.
COMB_ECP5 = {
    "LUT4": ({"A": 1, "B": 1, "C": 1, "D": 1}, ["Z"]),
    "PFUMX": ({"ALUT": 0, "BLUT": 0, "C0": 1}, ["Z"]),
    "L6MUX21": ({"D0": 0, "D1": 0, "SD": 1}, ["Z"]),
    "CCU2C": ({"A0": 1, "B0": 1, "C0": 1, "D0": 1, "A1": 1, "B1": 1, "C1": 1, "D1": 1,
               "CIN": 0}, ["S0", "S1", "COUT"]),
    "TRELLIS_DPR16X4": ({"RAD": 1}, ["DO"]),
    "MULT18X18D": ({"A": 1, "B": 1, "C": 1, "SIGNEDA": 1, "SIGNEDB": 1}, ["P"]),
    "ALU54B": ({"A": 1, "B": 1, "C": 1, "MA": 1, "MB": 1, "CIN": 1}, ["R"]),
}
COMB_ICE40 = {
    "SB_LUT4": ({"I0": 1, "I1": 1, "I2": 1, "I3": 1}, ["O"]),
    "SB_CARRY": ({"I0": 1, "I1": 1, "CI": 0}, ["CO"]),
    "SB_MAC16": ({"A": 1, "B": 1, "C": 1, "D": 1}, ["O"]),
}
COMB_XC7 = {
    **{f"LUT{n}": ({f"I{i}": 1 for i in range(n)}, ["O"]) for n in range(1, 7)},
    "MUXF7": ({"I0": 0, "I1": 0, "S": 1}, ["O"]),
    "MUXF8": ({"I0": 0, "I1": 0, "S": 1}, ["O"]),
    "CARRY4": ({"S": 1, "DI": 1, "CYINIT": 1, "CI": 0}, ["O", "CO"]),
    "RAM32M": ({"ADDRA": 1, "ADDRB": 1, "ADDRC": 1}, ["DOA", "DOB", "DOC"]),
    "RAM64M": ({"ADDRA": 1, "ADDRB": 1, "ADDRC": 1}, ["DOA", "DOB", "DOC"]),
    "RAM32X1D": ({"DPRA0": 1, "DPRA1": 1, "DPRA2": 1, "DPRA3": 1, "DPRA4": 1,
                  "A0": 1, "A1": 1, "A2": 1, "A3": 1, "A4": 1}, ["SPO", "DPO"]),
    "RAM64X1D": ({**{f"DPRA{i}": 1 for i in range(6)}, **{f"A{i}": 1 for i in range(6)}},
                 ["SPO", "DPO"]),
    "DSP48E1": ({"A": 1, "B": 1, "C": 1, "D": 1}, ["P"]),
}


def comb_table(cells):
    """The table of the family whose flip-flops the netlist has."""
    types = {c[2] for c in cells}
    if "TRELLIS_FF" in types or "CCU2C" in types:
        return COMB_ECP5
    if "SB_LUT4" in types:
        return COMB_ICE40
    return COMB_XC7
# Cells that hold state or talk to pins: their outputs start paths, their inputs end them.
SEQ = {
    "TRELLIS_FF", "DP16KD", "PDPW16KD", "TRELLIS_IO", "EHXPLLL", "DCCA", "OSCG", "BB", "IB",
    "OB", "SB_DFF", "SB_DFFE", "SB_DFFR", "SB_DFFS", "SB_DFFER", "SB_DFFES", "SB_DFFSR",
    "SB_DFFSS", "SB_DFFESR", "SB_DFFESS", "SB_DFFN", "SB_DFFNE", "SB_DFFNR", "SB_DFFNS",
    "SB_DFFNER", "SB_DFFNES", "SB_DFFNSR", "SB_DFFNSS", "SB_DFFNESR", "SB_DFFNESS",
    "SB_RAM40_4K", "SB_SPRAM256KA", "SB_IO", "SB_GB", "SB_GB_IO", "SB_PLL40_PAD",
    "SB_PLL40_CORE", "SB_HFOSC", "SB_LFOSC", "SB_RGBA_DRV", "SB_PLL40_2F_PAD",
    "FDRE", "FDSE", "FDCE", "FDPE", "RAMB18E1", "RAMB36E1", "IBUF", "OBUF", "BUFG", "IOBUF",
    "MMCME2_BASE", "MMCME2_ADV", "PLLE2_BASE", "PLLE2_ADV", "SRL16E", "SRLC32E",
}
# Cell types that count towards a block's columns.
KIND = {
    "LUT4": "lut", "SB_LUT4": "lut", **{f"LUT{n}": "lut" for n in range(1, 7)},
    "CCU2C": "carry", "SB_CARRY": "carry", "CARRY4": "carry",
    "TRELLIS_FF": "ff", "FDRE": "ff", "FDSE": "ff", "FDCE": "ff", "FDPE": "ff",
    **{t: "ff" for t in SEQ if t.startswith("SB_DFF")},
    "TRELLIS_DPR16X4": "lutram", "RAM32M": "lutram", "RAM64M": "lutram", "RAM32X1D": "lutram",
    "RAM64X1D": "lutram",
    "DP16KD": "bram", "PDPW16KD": "bram", "SB_RAM40_4K": "bram", "SB_SPRAM256KA": "bram",
    "RAMB18E1": "bram", "RAMB36E1": "bram",
    "MULT18X18D": "dsp", "ALU54B": "dsp", "SB_MAC16": "dsp", "DSP48E1": "dsp",
}


class Flat:
    """The netlist flattened: leaf cells with global net ids per pin bit."""

    def __init__(self, modules, top):
        self.modules = modules
        self.cells = []  # (instance path, cell path, type, {pin: [net ids]}, {pin: direction})
        self.top_in = []
        self.top_out = []
        self.next_net = 0
        self.driver = {}  # start net -> the index of the sequential cell that drives it
        self.port_name = {}  # a top port's net -> "name[bit]"
        bind = {}
        for name, p in modules[top]["ports"].items():
            ids = []
            for k, b in enumerate(p["bits"]):
                if isinstance(b, str):  # "0", "1", "x", "z": a constant, never on a path
                    ids.append(None)
                    continue
                bind.setdefault(b, self._new())
                ids.append(bind[b])
                self.port_name.setdefault(bind[b], f"{clean(name)}[{k}]" if len(p["bits"]) > 1
                                          else clean(name))
            (self.top_in if p["direction"] == "input" else self.top_out).append((name, ids))
        self._expand(top, "", bind)

    def _new(self):
        self.next_net += 1
        return self.next_net - 1

    def _expand(self, modname, path, bind):
        """Adds modname's leaf cells under instance path; bind maps its port bits to nets."""
        mod = self.modules[modname]
        local = {}

        def net(bit):
            if isinstance(bit, str):  # a constant
                return None
            if bit in bind:
                return bind[bit]
            if bit not in local:
                local[bit] = self._new()
            return local[bit]

        for cname, cell in mod.get("cells", {}).items():
            ctype = cell["type"]
            cpath = f"{path}.{clean(cname)}" if path else clean(cname)
            conns = {pin: [net(b) for b in bits] for pin, bits in cell["connections"].items()}
            sub = self.modules.get(ctype)
            if sub is not None and truthy(sub.get("attributes", {}).get("blackbox")):
                # A technology cell with its simulation model in the netlist: a leaf.
                ctype = clean(sub.get("attributes", {}).get("hdlname", ctype))
                sub = None
            if sub is not None:
                sub_bind = {}
                for pin, p in sub["ports"].items():
                    # A port bit tied to a constant (n None) stays a constant inside; one left
                    # unconnected gets a net of its own.
                    for b, n in zip(p["bits"], conns.get(pin, [])):
                        if not isinstance(b, str):
                            sub_bind[b] = n
                self._expand(ctype, cpath, sub_bind)
            else:
                self.cells.append((path, cpath, ctype, conns, cell.get("port_directions", {})))


def truthy(attr):
    """A Yosys JSON attribute: an integer, or a string of binary digits."""
    if isinstance(attr, str):
        return set(attr) <= {"0", "1"} and "1" in attr
    return bool(attr)


def clean(name):
    """Yosys's escaped names without the leading backslash."""
    return name[1:] if name.startswith("\\") else name


def analyse(flat):
    """Longest path in levels into every net; returns (depth, pred, ends, unknown)."""
    arcs = collections.defaultdict(list)  # net -> [(net out, cost, cell index)]
    indeg = collections.Counter()
    starts = set()
    ends = []  # (net, cell index or -1, pin)
    unknown = collections.Counter()
    comb = comb_table(flat.cells)
    for ci, (_, _, ctype, conns, dirs) in enumerate(flat.cells):
        if ctype in comb:
            ins, outs = comb[ctype]
            outs_n = [n for o in outs for n in conns.get(o, []) if n is not None]
            for pin, nets in conns.items():
                if pin in outs:
                    continue
                if pin in ins:
                    for n in nets:
                        if n is None:
                            continue
                        for o in outs_n:
                            arcs[n].append((o, ins[pin], ci))
                            indeg[o] += 1
                else:  # a write port or a clock: the end of a path
                    ends.extend((n, ci, pin) for n in nets if n is not None)
        else:
            if ctype not in SEQ:
                unknown[ctype] += 1
            for pin, nets in conns.items():
                d = dirs.get(pin)
                if d is None:
                    d = "output" if pin in ("Q", "O", "Z") or pin.startswith("DO") \
                        or pin.startswith("RDATA") else "input"
                if d == "output":
                    for n in nets:
                        if n is not None:
                            starts.add(n)
                            flat.driver[n] = ci
                else:
                    ends.extend((n, ci, pin) for n in nets if n is not None)
    for _, ids in flat.top_in:
        starts.update(n for n in ids if n is not None)
    for name, ids in flat.top_out:
        ends.extend((n, -1, name) for n in ids if n is not None)

    depth = {}
    pred = {}
    # Kahn's order over the combinational graph; every net with no driving arc starts at 0.
    all_nets = set(arcs) | set(indeg) | starts
    queue = collections.deque(n for n in all_nets if indeg[n] == 0)
    for n in queue:
        depth[n] = 0
    seen = 0
    while queue:
        n = queue.popleft()
        seen += 1
        for o, cost, ci in arcs.get(n, ()):
            d = depth[n] + cost
            if d > depth.get(o, -1):
                depth[o] = d
                pred[o] = (n, ci)
            indeg[o] -= 1
            if indeg[o] == 0:
                queue.append(o)
    loops = len(all_nets) - seen
    return depth, pred, ends, unknown, loops


def block_of(inst, root, depth_cut):
    """The block an instance path belongs to: its first depth_cut instance names below root."""
    if root:
        if inst != root and not inst.startswith(root + "."):
            return "(outside " + root + ")"
        inst = inst[len(root) + 1:]
    return ".".join(inst.split(".")[:depth_cut]) if inst else "(root)"


def find_root(flat, share=0.9):
    """From the top down, the instance that holds at least share of the LUTs, while one does."""
    luts = [c[0] for c in flat.cells if KIND.get(c[2]) == "lut"]
    root = ""
    while True:
        below = collections.Counter()
        for inst in luts:
            if inst.startswith(root + "." if root else ""):
                rest = inst[len(root) + 1:] if root else inst
                if rest:
                    below[rest.split(".")[0]] += 1
        if not below:
            return root
        child, n = below.most_common(1)[0]
        if n < share * len(luts):
            return root
        root = f"{root}.{child}" if root else child


def start_of(flat, pred, net):
    """The start point of the longest path into net: the cell or top input that drives it."""
    while net in pred:
        net = pred[net][0]
    drv = flat.driver.get(net)
    if drv is not None:
        return f"{flat.cells[drv][1]} ({flat.cells[drv][2]})"
    return f"input {flat.port_name[net]}" if net in flat.port_name else "a constant"


def trace(flat, pred, net, limit=400):
    cells = []
    while net in pred and len(cells) < limit:
        net, ci = pred[net]
        cells.append(ci)
    return list(reversed(cells))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("netlist")
    ap.add_argument("--top", help="top module (default: the one Yosys marks as top)")
    ap.add_argument("--depth", type=int, default=3,
                    help="instance levels below the root that name a block (default 3)")
    ap.add_argument("--root", help="the instance path the blocks are counted from (default: "
                    "from the top down while one instance holds 90 %% of the LUTs)")
    ap.add_argument("--paths", type=int, default=0,
                    help="also list the cells of the K deepest blocks' worst paths")
    ap.add_argument("--json", help="write the table as JSON here")
    ap.add_argument("--max", type=int, default=None,
                    help="exit 1 when a path has more levels than this")
    args = ap.parse_args()
    try:
        modules = json.load(open(args.netlist))["modules"]
    except (OSError, ValueError, KeyError) as e:
        sys.exit(f"logic_levels: cannot read the Yosys netlist {args.netlist}: {e} "
                 "(write it with `write_json` after synth_ecp5/synth_ice40)")
    top = args.top or next((n for n, m in modules.items()
                         if truthy(m.get("attributes", {}).get("top"))), None)
    if top is None or top not in modules:
        sys.exit(f"logic_levels: no top module {'`' + args.top + '` ' if args.top else ''}in "
                 f"{args.netlist}; modules: {', '.join(sorted(clean(m) for m in modules)[:8])} ...; "
                 "name it with --top")
    flat = Flat(modules, top)
    depth, pred, ends, unknown, loops = analyse(flat)
    root = find_root(flat) if args.root is None else args.root

    rows = {}
    for inst, _, ctype, _, _ in flat.cells:
        b = block_of(inst, root, args.depth)
        r = rows.setdefault(b, {"block": b, "lut": 0, "carry": 0, "ff": 0, "lutram": 0,
                                "bram": 0, "dsp": 0, "levels": 0, "end": None, "net": None})
        k = KIND.get(ctype)
        if k:
            r[k] += 1
    for net, ci, pin in ends:
        d = depth.get(net, 0)
        if ci >= 0:
            inst, path, ctype = flat.cells[ci][:3]
            b = block_of(inst, root, args.depth)
            where = f"{path} ({ctype}.{pin})"
        else:
            b, where = "(top ports)", f"output {clean(pin)}"
        r = rows.setdefault(b, {"block": b, "lut": 0, "carry": 0, "ff": 0, "lutram": 0,
                                "bram": 0, "dsp": 0, "levels": 0, "end": None, "net": None})
        if d > r["levels"] or r["end"] is None:
            r["levels"], r["end"], r["net"] = max(d, r["levels"]), where, net
    for r in rows.values():
        cells = trace(flat, pred, r["net"]) if r["net"] is not None else []
        r["start"] = start_of(flat, pred, r["net"]) if r["net"] is not None else "-"
        r["dsp_on_path"] = sum(1 for c in cells if KIND.get(flat.cells[c][2]) == "dsp")
        r["path"] = [f"{flat.cells[c][1]} ({flat.cells[c][2]})" for c in cells]
        crossed = []
        for c in cells:
            b = block_of(flat.cells[c][0], root, args.depth)
            if not crossed or crossed[-1] != b:
                crossed.append(b)
        r["crosses"] = crossed

    table = sorted(rows.values(), key=lambda r: r["block"])
    worst = max(table, key=lambda r: r["levels"])
    print(f"logic levels of {args.netlist}: top {clean(top)}, blocks {args.depth} instance levels below "
          f"{root or 'the top'}; a LUT is 1 level, a carry chain 1 where entered, slice muxes 0")
    w = max(len(r["block"]) for r in table)
    print(f"{'block':<{w}}  {'LUT':>7} {'carry':>6} {'FF':>6} {'LUTRAM':>6} {'BRAM':>4} "
          f"{'DSP':>3} {'levels':>6}  worst path: start -> end")
    for r in table:
        dsp = f" [{r['dsp_on_path']} DSP on it]" if r["dsp_on_path"] else ""
        print(f"{r['block']:<{w}}  {r['lut']:>7,} {r['carry']:>6,} {r['ff']:>6,} "
              f"{r['lutram']:>6,} {r['bram']:>4} {r['dsp']:>3} {r['levels']:>6}  "
              f"{r['start']} -> {r['end']}{dsp}")
    print(f"worst: {worst['levels']} levels, into {worst['end']}, through "
          + " -> ".join(worst["crosses"]))
    if unknown:
        print("unknown cells (start and end points): " +
              ", ".join(f"{t} {n}" for t, n in unknown.most_common()))
    if loops:
        print(f"WARNING: {loops} nets on combinational loops were not timed")
    for r in sorted(table, key=lambda r: -r["levels"])[:args.paths]:
        print(f"\n{r['block']}: {r['levels']} levels, through " + " -> ".join(r["crosses"]))
        for step in r["path"]:
            print(f"  {step}")
    out = getattr(args, "json")
    if out is not None:
        with open(out, "w") as f:
            json.dump({"top": clean(top), "root": root, "depth": args.depth, "blocks": table,
                       "unknown": dict(unknown), "loops": loops}, f, indent=1)
    if args.max is not None and worst["levels"] > args.max:
        print(f"logic_levels: {worst['levels']} levels in {worst['block']}, more than --max "
              f"{args.max}", file=sys.stderr)
        sys.exit(1)


if __name__ == "__main__":
    main()
