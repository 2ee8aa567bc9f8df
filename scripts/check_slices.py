#!/usr/bin/env python3
"""No hand-written slice of a format in rtl/ (docs/conventions.md section 1, rule 12).

The formats of spec/xf_defs.json reach the RTL as the generated types of rtl/xf_types.svh; a
module reads and writes their fields by name. This check fails on the hand-written forms that
would bypass them, in every hand-written rtl/*.sv (the generated package and headers are not
read):

  1. a bit- or part-select of a format-carrying signal: a signal of a struct type (`*_t`), a
     field of one (`hdr.len[3:0]`), or a signal whose name says it carries a format (FORMATS
     below: `rx_flit_i`, `phy_rx_ctl_i`, `config_i`, ...). Allowed are only the selects that
     take whole words out of a flat bus: an element `[k*W +: W]` (W a width, k an index; also
     `[(a + k)*W +: W]`, `[a*W +: n*W]`, `[0 +: n*W]`) and a single bit by a loop or genvar
     index `[i]`;
  2. a concatenation `{...}` assigned to a format-carrying signal or connected to a
     format-carrying port (`.config_i({...})`): a format built by hand;
  3. the package's field positions (`xf_defs_pkg::HEADER_LEN_LSB`, any `*_LSB` / `*_BITS` of a
     format): only the generated functions place fields.

What it cannot see: a format-carrying value under a name that does not say so (an intermediate
copied from a header field is arithmetic from then on: `h_len[3:0]` is "len modulo 16"), and
formats that are not in the spec (the CRC's input word, the UART bridge's frames). EXCEPTIONS
lists the reviewed ones, each with its reason; it is empty today.

Usage: scripts/check_slices.py [FILE...]   (default: rtl/*.sv); exit 1 on a finding.
       scripts/check_slices.py --self-test   the check finds every form above in a sample
"""
import glob
import os
import re
import sys

ROOT = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
GENERATED = {"rtl/xf_defs_pkg.sv"}

# Signal names that carry a format (a regular expression searched in the name), and what.
FORMATS = [
    (r"flit", "a flit, flit_t {head, tail, data}"),
    (r"hdr|header", "a packet header, header_t"),
    (r"desc", "a send descriptor, send_imm_t"),
    (r"instr", "an instruction, instr_t"),
    (r"(^|_)ctl(_|$)", "a link word's control field, link_ctl_t"),
    (r"route_r?addr|lookup_addr_i", "a routing-table address, route_addr_t"),
    (r"config", "the Config or AluConfig register"),
    (r"err_info", "the TileErrInfo register"),
    (r"tile_status|link_status|stat_status|link_discards|stat_discards|xb_errors",
     "a status register with fields"),
    (r"host_req_wdata", "a host write's data (the Control register)"),
]
FORMAT_RE = re.compile("|".join(f"(?:{p})" for p, _ in FORMATS))

# (file, signal, reason): reviewed selects that stay. Empty: every format is read by its fields.
EXCEPTIONS = []

KEYWORDS = {"logic", "bit", "reg", "wire", "int", "input", "output", "inout", "integer", "if",
            "case", "for", "assign", "begin", "end", "else", "localparam", "parameter"}


def strip_comments(text):
    """Comments and strings replaced by spaces, newlines kept (line numbers stay right)."""
    def blank(m):
        return re.sub(r"[^\n]", " ", m.group(0))
    return re.sub(r'//[^\n]*|/\*.*?\*/|"(?:\\.|[^"\\])*"', blank, text, flags=re.S)


def struct_signals(text):
    """Names declared with a struct type (`foo_t a, b;`), module scope or local."""
    names = set()
    for m in re.finditer(r"(?m)^\s*(?:input\s+|output\s+)?(\w+_t)\s+([^;=()]+);", text):
        for n in m.group(2).split(","):
            n = re.sub(r"\[.*?\]", "", n).strip()
            if re.fullmatch(r"[A-Za-z_]\w*", n):
                names.add(n)
    return names


def unpacked_arrays(text):
    """Names declared with unpacked dimensions (`logic [7:0] mem [16];`): their first select is
    an array index, not a part of a word."""
    names = set()
    for m in re.finditer(r"(?m)^\s*(?:logic|bit|reg|wire|\w+_t)\b[^;=()]*?([A-Za-z_]\w*)\s*\[[^\]]*\]"
                         r"\s*(?:,\s*([A-Za-z_]\w*)\s*\[[^\]]*\]\s*)*;", text):
        for n in re.findall(r"([A-Za-z_]\w*)\s*\[[^\]]*\]\s*(?=[,;])", m.group(0)):
            names.add(n)
    return names


def bracket(text, i):
    """The contents of the [...] opening at text[i], and the index after it."""
    depth = 0
    for j in range(i, len(text)):
        if text[j] == "[":
            depth += 1
        elif text[j] == "]":
            depth -= 1
            if depth == 0:
                return text[i + 1:j], j + 1
    return text[i + 1:], len(text)


def factors(expr):
    """The last factor of a product, without spaces: 'NumTiles*FlitW' -> 'FlitW'."""
    return re.sub(r"\s+", "", expr).split("*")[-1]


def element_select(idx):
    """True for the selects that take whole words out of a flat bus, or a bit by a loop index."""
    idx = idx.strip()
    if re.fullmatch(r"[a-z][a-z0-9_]*", idx):  # [i], [t]: a loop or genvar index
        return True
    m = re.fullmatch(r"(.+?)\+:(.+)", idx, flags=re.S)
    if not m:
        return False
    base, width = m.group(1).strip(), m.group(2).strip()
    if not re.fullmatch(r"[\w\s*()]+", width):
        return False
    last = factors(width)
    if base == "0":
        return "*" in width
    b = re.sub(r"\s+", "", base)
    return b.endswith("*" + last) and re.search(r"[a-z]", b.split("*")[0]) is not None


def line_of(text, pos):
    return text.count("\n", 0, pos) + 1


def check_file(rel):
    with open(os.path.join(ROOT, rel)) as fh:
        return check_text(fh.read(), rel)


def check_text(text, rel):
    """Findings (line, message) in the text of the file rel."""
    text = strip_comments(text)
    structs = struct_signals(text)
    arrays = unpacked_arrays(text)
    found = []

    def carried(name):
        return name in structs or FORMAT_RE.search(name) is not None

    def excepted(name):
        return any(f == rel and s == name for f, s, _ in EXCEPTIONS)

    # 1. Selects.
    for m in re.finditer(r"([A-Za-z_][\w$]*)((?:\s*\.\s*[A-Za-z_]\w*)*)\s*\[", text):
        base, fields = m.group(1), re.sub(r"\s+", "", m.group(2))
        if base in KEYWORDS or base.startswith("$"):
            continue
        pre = text[max(0, m.start() - 2):m.start()]
        if "::" in pre or "'" in pre:
            continue
        # A declaration's dimensions (`logic [7:0] x [4];`) are not selects.
        stmt_start = max(text.rfind(";", 0, m.start()), text.rfind("\n", 0, m.start()))
        head = text[stmt_start + 1:m.start()]
        if re.match(r"\s*(?:(?:input|output|inout)\s+)?(?:logic|bit|wire|reg|int|\w+_t)\b",
                    head) and "=" not in head:
            continue
        idx, after = bracket(text, m.end() - 1)
        if base in arrays and not fields:  # an array element: check the select after it, if any
            nxt = re.match(r"\s*\[", text[after:])
            if not nxt:
                continue
            idx, _ = bracket(text, after + nxt.end() - 1)
        name = base + fields
        is_struct = base in structs
        last = fields.split(".")[-1] if fields else base
        if not (is_struct or carried(last)) or excepted(base):
            continue
        if is_struct and fields and re.fullmatch(r"\s*[a-z][a-z0-9_]*\s*", idx):
            continue
        if not is_struct and element_select(idx):
            continue
        what = "a field of a struct" if is_struct else \
            next(w for p, w in FORMATS if re.search(p, last))
        found.append((line_of(text, m.start()), f"{name}[{idx.strip()}]: a hand slice of {what}; "
                      "use the generated type's fields (rtl/xf_types.svh)"))

    # 2. Concatenations built into a format-carrying signal or port.
    # (A replication {n{word}} into a flat bus copies whole words: not a format built by hand.)
    for m in re.finditer(r"([A-Za-z_]\w*(?:\[[^\]]*\])?)\s*(?:<=|=)\s*\{(?![\w\s()+*-]+\{)",
                         text):
        target = re.sub(r"\[.*", "", m.group(1))
        if target in KEYWORDS or not carried(target) or excepted(target):
            continue
        before = text[max(0, m.start() - 1):m.start()]
        if before in "!=<>":
            continue
        found.append((line_of(text, m.start()), f"{target} = {{...}}: a format built by hand; "
                      "fill the generated type's fields and pack it"))
    for m in re.finditer(r"\.([A-Za-z_]\w*)\s*\(\s*\{(?![\w\s()+*-]+\{)", text):
        port = m.group(1)
        if carried(port) and not excepted(port):
            found.append((line_of(text, m.start()), f".{port}({{...}}): a format built by hand; "
                          "connect a packed generated type"))

    # 3. The package's field positions.
    for m in re.finditer(r"xf_defs_pkg::([A-Z0-9_]+_(?:LSB|BITS))\b", text):
        found.append((line_of(text, m.start()), f"xf_defs_pkg::{m.group(1)}: a field position "
                      "by hand; the generated pack/unpack functions place fields"))
    return found


# --self-test: each line marked "bad" must be found, no other line.
SELF_TEST = """
module sample;
  flit_t f;
  header_t h;
  assign head = rx_flit_i[129];                          // bad: a flit's framing bit
  assign len = rx_flit_i[HeaderLen +: 12];               // bad: a header field
  assign l = h.len[3:0];                                 // bad: a part of a field
  assign x = f[7:0];                                     // bad: a part of a struct
  assign c = cfg_route_addr_i[13:12];                    // bad: a route address's lane
  assign ctl = {3'd0, fv, naks, creds, ack, seq};        // bad: phy_ctl built by hand
  assign phy_tx_ctl_o = {3'd0, fv, naks, creds, ack, seq};  // bad
  assign y = xf_defs_pkg::HEADER_LEN_LSB;                // bad: a field position
  assign z = tx_flit_i[i*FlitW + HeadBit];               // bad: an offset into an element
  xf_host_port u (.config_i({16'd0, ports, 8'd0}));      // bad: a register built by hand
  assign a = tx_flit_i[k*FlitW +: FlitW];                // good: an element of a flat bus
  assign b = r_in_flit[(NumLinks + t)*FlitW +: FlitW];   // good
  assign d = r_out_flit[NumLinks*FlitW +: NumTiles*FlitW];  // good
  assign e = link_tx_flit_o[0 +: NumLinks*FlitW];        // good
  assign g = status.done[t];                             // good: a bit by a loop index
  assign host_req_wdata_o = {NumNodes{wdata_q}};         // good: a replication
  assign v = h.len;                                      // good: a field
  assign q = data_q[7:0];                                // good: not a format
endmodule
"""


def self_test():
    got = {line for line, _ in check_text(SELF_TEST, "self-test")}
    want = {i + 1 for i, l in enumerate(SELF_TEST.split("\n")) if "// bad" in l}
    if got != want:
        print(f"check-slices: self-test FAILED: found lines {sorted(got)}, want {sorted(want)}",
              file=sys.stderr)
        return 1
    print(f"check-slices: self-test passed ({len(want)} hand slices found, no false finding)")
    return 0


def main():
    if sys.argv[1:] == ["--self-test"]:
        return self_test()
    files = sys.argv[1:] or sorted(os.path.relpath(f, ROOT)
                                   for f in glob.glob(os.path.join(ROOT, "rtl", "*.sv")))
    files = [f for f in files if f not in GENERATED]
    bad = 0
    for rel in files:
        for line, msg in sorted(check_file(rel)):
            print(f"{rel}:{line}: {msg}")
            bad += 1
    if bad:
        print(f"check-slices: {bad} hand-written format slice(s); docs/conventions.md section 1, "
              "rule 12 says how to read a format", file=sys.stderr)
        return 1
    print(f"check-slices: no hand-written format slice in {len(files)} RTL files")
    return 0


if __name__ == "__main__":
    sys.exit(main())
