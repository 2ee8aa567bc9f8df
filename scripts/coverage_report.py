#!/usr/bin/env python3
"""Line and toggle coverage per RTL file from a Verilator coverage.dat (docs/cosim.md sec. 5).

Usage: coverage_report.py MERGED.dat RTL_DIR [--waivers FILE] [--bar LINE,TOGGLE] [--no-bar]

A coverage point is one (file, line, column, kind, comment) of the source, merged over every
instance of its module: it counts as covered when any instance hit it. Line points are
Verilator's block and branch points (v_line, v_branch); toggle points are one per signal bit
(v_toggle). Prints a table and the totals, and lists the least covered files' uncovered lines.

--waivers FILE takes out of the count the uncovered points it names, each with its reason:
    <file> line <N>[-<M>] <reason>          line points on source lines N..M
    <file> toggle <regex> <reason>          toggle points whose signal (with its bit) matches
    <file> toggle <regex>[N:M] <reason>     bits N..M of the signals the regex matches
Blank lines and lines starting with # are comments. A waiver that takes out no uncovered point
is reported as stale (the tests reach it now: delete it).
--bar LINE,TOGGLE (percent) fails, exit status 1, when a file's coverage after the waivers is
under either figure; --no-bar prints the table only.
"""
from __future__ import annotations

import argparse
import collections
import os
import re
import sys


# A toggle point's name: the signal, then its bit as the last index ("rr_q[3]", "m[2][5]").
BIT_OF = re.compile(r"(.*)\[(\d+)\]")


def parse(path):
    """Yields (fields, count) per point of a Verilator coverage.dat."""
    pat = re.compile(r"^C '(.*)' (\d+)$")
    with open(path, encoding="latin-1") as f:
        for line in f:
            m = pat.match(line.rstrip("\n"))
            if not m:
                continue
            fields = {}
            for kv in m.group(1).split("\x01"):
                if "\x02" in kv:
                    k, v = kv.split("\x02", 1)
                    fields[k] = v
            yield fields, int(m.group(2))


class Waiver:
    def __init__(self, where: str, file: str, kind: str, what: str, reason: str):
        self.where, self.file, self.kind, self.reason = where, file, kind, reason
        self.used = 0
        if kind == "line":
            m = re.fullmatch(r"(\d+)(?:-(\d+))?", what)
            if not m:
                raise ValueError(f"{where}: line waiver needs N or N-M, not {what!r}")
            self.lo, self.hi = int(m.group(1)), int(m.group(2) or m.group(1))
        elif kind == "toggle":
            # A trailing [N:M] (or [N], or a list of both as --toggles prints them: [2:3,6]) is
            # a set of bits: SIG[5:15] waives bits 5..15 of the signals SIG matches; without it
            # the regex matches the whole name, bit included.
            m = re.fullmatch(r"(.*)\[(\d+(?::\d+)?(?:,\d+(?::\d+)?)*)\]", what)
            self.bits = None
            if m:
                what = m.group(1)
                self.bits = []
                for part in m.group(2).split(","):
                    lo, _, hi = part.partition(":")
                    lo, hi = int(lo), int(hi or lo)
                    self.bits.append((min(lo, hi), max(lo, hi)))
            try:
                self.rx = re.compile(what)
            except re.error as e:
                raise ValueError(f"{where}: bad regex {what!r}: {e}") from None
        else:
            raise ValueError(f"{where}: kind must be line or toggle, not {kind!r}")

    def matches(self, kind: str, key) -> bool:
        if kind != self.kind:
            return False
        if kind == "line":
            return key[0] is not None and self.lo <= int(key[0]) <= self.hi
        name = key[2] or ""
        if self.bits is None:
            return self.rx.fullmatch(name) is not None
        m = BIT_OF.fullmatch(name)
        return (m is not None and any(lo <= int(m.group(2)) <= hi for lo, hi in self.bits)
                and self.rx.fullmatch(m.group(1)) is not None)


def group_bits(names: list[str]) -> list[tuple[str, str]]:
    """'a.b[3]', 'a.b[4]', 'a.b[9]' -> [('a.b', '[3:4,9]')]: a signal's uncovered bits as ranges,
    the last index of a toggle point's name being its bit."""
    sigs: dict[str, list[int]] = collections.defaultdict(list)
    for n in names:
        m = BIT_OF.fullmatch(n)
        if m:
            sigs[m.group(1)].append(int(m.group(2)))
        else:
            sigs[n] = sigs.get(n, [])
    out = []
    for sig in sorted(sigs):
        bits = sorted(set(sigs[sig]))
        runs, i = [], 0
        while i < len(bits):
            j = i
            while j + 1 < len(bits) and bits[j + 1] == bits[j] + 1:
                j += 1
            runs.append(str(bits[i]) if i == j else f"{bits[i]}:{bits[j]}")
            i = j + 1
        out.append((sig, f"[{','.join(runs)}]" if runs else ""))
    return out


def read_waivers(path: str) -> dict[str, list[Waiver]]:
    out: dict[str, list[Waiver]] = collections.defaultdict(list)
    with open(path, encoding="utf-8") as f:
        for n, raw in enumerate(f, 1):
            line = raw.strip()
            if not line or line.startswith("#"):
                continue
            parts = line.split(None, 3)
            where = f"{path}:{n}"
            if len(parts) < 4:
                raise ValueError(f"{where}: write '<file> line|toggle <what> <reason>'")
            file, kind, what, reason = parts
            out[file].append(Waiver(where, file, kind, what, reason))
    return out


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("dat")
    ap.add_argument("rtl_dir")
    ap.add_argument("--waivers", help="reviewed waiver list (see the module docstring)")
    ap.add_argument("--bar", help="LINE,TOGGLE percent every file must reach, e.g. 95,90")
    ap.add_argument("--no-bar", action="store_true", help="print only, never fail")
    ap.add_argument("--toggles", metavar="FILE", action="append", default=[],
                    help="also list FILE's uncovered toggle points not waived, by signal with "
                         "their bits (e.g. xf_router.sv; repeatable; 'all' for every file)")
    a = ap.parse_args()
    bar = None
    if a.bar and not a.no_bar:
        try:
            bar = tuple(float(v) for v in a.bar.split(","))
            assert len(bar) == 2
        except (ValueError, AssertionError):
            ap.error(f"--bar {a.bar}: write LINE,TOGGLE percentages, e.g. 95,90")
    if not os.path.isfile(a.dat):
        print(f"coverage_report: {a.dat}: no such coverage file; run make coverage (or "
              "verilator_coverage --write) first", file=sys.stderr)
        return 2
    try:
        waivers = read_waivers(a.waivers) if a.waivers else {}
    except (OSError, ValueError) as e:
        print(f"coverage_report: {e}", file=sys.stderr)
        return 2
    # points[file][kind][key] = covered
    points = collections.defaultdict(lambda: collections.defaultdict(dict))
    for f, count in parse(a.dat):
        page = f.get("page", "")
        kind = "toggle" if page.startswith("v_toggle") else "line" if page.startswith(
            ("v_line", "v_branch")) else None
        if kind is None:
            continue
        fname = os.path.basename(f.get("f", "?"))
        key = (f.get("l"), f.get("n"), f.get("o"), page.split("/")[0])
        pts = points[fname][kind]
        pts[key] = pts.get(key, False) or count > 0
    files = sorted(p for p in os.listdir(a.rtl_dir) if p.endswith((".sv", ".v")))
    for name in waivers:
        if name not in files:
            print(f"coverage_report: the waivers name {name}, which is not in {a.rtl_dir}",
                  file=sys.stderr)
            return 2
    w_line, w_tog = 24, 26
    print(f"{'file':<22} {'line (waived)':>{w_line}} {'toggle (waived)':>{w_tog}}")
    tot = {"line": [0, 0, 0], "toggle": [0, 0, 0]}
    misses = collections.defaultdict(set)
    tog_misses = collections.defaultdict(list)  # file -> uncovered toggle signal names
    under = []
    for name in files:
        row = [f"{name:<22}"]
        for kind, width in (("line", w_line), ("toggle", w_tog)):
            pts = points.get(name, {}).get(kind, {})
            if not pts:
                row.append(f"{'-':>{width}}")
                continue
            hit = waived = 0
            for key, cov in pts.items():
                if cov:
                    hit += 1
                    continue
                w = next((w for w in waivers.get(name, []) if w.matches(kind, key)), None)
                if w:
                    w.used += 1
                    waived += 1
                elif kind == "line" and key[0]:
                    misses[name].add(int(key[0]))
                elif kind == "toggle":
                    tog_misses[name].append(key[2] or "?")
            n = len(pts) - waived
            pct = 100.0 * hit / n if n else 100.0  # every point waived: nothing left to miss
            for i, v in enumerate((hit, n, waived)):
                tot[kind][i] += v
            row.append(f"{f'{hit}/{n} {pct:5.1f}% ({waived})':>{width}}")
            if bar and pct < bar[0 if kind == "line" else 1]:
                under.append(f"{name} {kind} {pct:.1f}%")
        print(" ".join(row))
    print(" ".join([f"{'total':<22}"] + [
        f"{f'{h}/{n} {100.0 * h / max(n, 1):5.1f}% ({w})':>{width}}"
        for (h, n, w), width in ((tot["line"], w_line), (tot["toggle"], w_tog))]))
    if misses:
        print("uncovered line points not waived, per file (source lines):")
        for name in files:
            if misses.get(name):
                lines = sorted(misses[name])
                shown = ", ".join(map(str, lines[:24])) + (" ..." if len(lines) > 24 else "")
                print(f"  {name}: {shown}")
    for name in files:
        if tog_misses.get(name) and ("all" in a.toggles or name in a.toggles):
            print(f"uncovered toggle points not waived in {name} ({len(tog_misses[name])}):")
            for sig, bits in group_bits(tog_misses[name]):
                print(f"  {sig}{bits}")
    stale = [w for ws in waivers.values() for w in ws if not w.used]
    for w in stale:
        print(f"coverage_report: stale waiver {w.where} ({w.file} {w.kind}): it takes out no "
              "uncovered point; the tests reach it now, delete it")
    if bar:
        if under:
            print(f"coverage: under the bar of {bar[0]:g}% line and {bar[1]:g}% toggle per file: "
                  + ", ".join(under))
            print("coverage: add a test that reaches the points listed above, or a waiver with "
                  "its reason to tests/coverage_waivers.txt")
            return 1
        print(f"coverage: every file reaches {bar[0]:g}% line and {bar[1]:g}% toggle")
    return 0


if __name__ == "__main__":
    sys.exit(main())
