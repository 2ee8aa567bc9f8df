#!/usr/bin/env python3
"""Line and toggle coverage per RTL file from a Verilator coverage.dat (docs/cosim.md sec. 5).

Usage: coverage_report.py MERGED.dat RTL_DIR

A coverage point is one (file, line, column, kind, comment) of the source, merged over every
instance of its module: it counts as covered when any instance hit it. Line points are
Verilator's block and branch points (v_line, v_branch); toggle points are one per signal bit
and direction (v_toggle). Prints a table and the totals; lists the five least covered files'
uncovered lines.
"""
import collections
import os
import re
import sys


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


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    dat, rtl_dir = sys.argv[1], sys.argv[2]
    # points[file][kind][key] = covered
    points = collections.defaultdict(lambda: collections.defaultdict(dict))
    misses = collections.defaultdict(set)
    for f, count in parse(dat):
        page = f.get("page", "")
        kind = "toggle" if page.startswith("v_toggle") else "line" if page.startswith(
            ("v_line", "v_branch")) else None
        if kind is None:
            continue
        fname = os.path.basename(f.get("f", "?"))
        key = (f.get("l"), f.get("n"), f.get("o"), page.split("/")[0])
        pts = points[fname][kind]
        pts[key] = pts.get(key, False) or count > 0
    files = sorted(p for p in os.listdir(rtl_dir) if p.endswith((".sv", ".v")))
    print(f"{'file':<22} {'line':>17} {'toggle':>21}")
    tot = {"line": [0, 0], "toggle": [0, 0]}
    for name in files:
        row = [f"{name:<22}"]
        for kind, width in (("line", 17), ("toggle", 21)):
            pts = points.get(name, {}).get(kind, {})
            if not pts:
                row.append(f"{'-':>{width}}")
                continue
            hit = sum(pts.values())
            tot[kind][0] += hit
            tot[kind][1] += len(pts)
            row.append(f"{f'{hit}/{len(pts)} {100.0 * hit / len(pts):5.1f}%':>{width}}")
            if kind == "line":
                for key, cov in pts.items():
                    if not cov and key[0]:
                        misses[name].add(int(key[0]))
        print(" ".join(row))
    print(" ".join([f"{'total':<22}"] + [
        f"{f'{h}/{n} {100.0 * h / max(n, 1):5.1f}%':>{w}}"
        for (h, n), w in ((tot['line'], 17), (tot['toggle'], 21))]))
    print("uncovered lines (line points never hit), per file:")
    for name in files:
        if misses.get(name):
            lines = sorted(misses[name])
            shown = ", ".join(map(str, lines[:24])) + (" ..." if len(lines) > 24 else "")
            print(f"  {name}: {shown}")


if __name__ == "__main__":
    main()
