#!/usr/bin/env bash
# Proves with Yosys that the RTL modules changed since a revision compute the same logic as they
# did there: for a refactor that must not change a cycle (a rename, a block rewritten for Icarus,
# a declaration moved), this is a check that does not depend on which cases the tests drive.
#
# For each changed module M (or the modules named), the script reads M from REV renamed to
# gold_M and M from the work tree renamed to gate_M, each with the work tree's submodules,
# flattens both at the given flit width(s), matches their flip-flops by name (equiv_make) and
# proves every output and next-state function equal by induction (equiv_induct; memories
# become flip-flops first, memory_map). A
# rewrite that renames or splits flip-flops is outside what this proves; the script says so
# ("unproven") rather than passing.
#
# Usage: scripts/equiv_rtl.sh [--memories] [--set NAME=VALUE]... [--width N[,N..]] REV [MODULE...]
#   --memories  map memory arrays to flip-flops so that modules holding one are checked too
#               (without it they are reported "not checked"); the proof grows with the array
#   --set       a parameter of both copies (chparam), e.g. --set TableChips=2 to shrink a
#               memory array so that --memories finishes; repeatable
#   REV     a git revision (e.g. main, HEAD~3)
#   MODULE  xf_tile_send ... (default: every module of rtl/ whose file differs from REV)
# A top that Yosys derives again during hierarchy (a parameter set with chparam and a submodule
# it elaborates late, as xf_tile_seq's register file copies) comes out as $paramod...; `rename
# -top` gives it its name back so that the copies below find it.
# Exit status 0 when every module is proven equal, 1 otherwise, 2 on a usage error.
# Outputs: build/equiv/<module>.<width>.log.
set -euo pipefail
cd "$(dirname "$0")/.."
widths=(32)
mem=""
sets=""
if [[ ${1:-} == --memories ]]; then
  mem="memory_map;"
  shift
fi
while [[ ${1:-} == --set ]]; do
  [[ $# -ge 2 && $2 =~ ^[A-Za-z_][A-Za-z0-9_]*=-?[0-9]+$ ]] \
    || { echo "equiv: --set needs NAME=INTEGER (e.g. --set TableChips=2), got '${2:-}'" >&2; exit 2; }
  sets+=" -set ${2%%=*} ${2#*=}"
  shift 2
done
if [[ ${1:-} == --width ]]; then
  [[ $# -ge 2 ]] || { echo "equiv: --width needs a value (32, 64, 128)" >&2; exit 2; }
  IFS=',' read -r -a widths <<< "$2"
  shift 2
fi
[[ $# -ge 1 ]] || { echo "usage: scripts/equiv_rtl.sh [--memories] [--set NAME=VALUE]... [--width N[,N..]] REV [MODULE...]" >&2; exit 2; }
rev=$1
shift
git rev-parse --verify -q "$rev^{commit}" > /dev/null \
  || { echo "equiv: '$rev' is not a revision of this repository" >&2; exit 2; }
command -v yosys > /dev/null || { echo "equiv: yosys not found: run scripts/setup.sh" >&2; exit 2; }
mods=("$@")
if [[ ${#mods[@]} -eq 0 ]]; then
  while read -r f; do
    [[ $f == rtl/xf_*.sv && $f != rtl/xf_defs_pkg.sv ]] && mods+=("$(basename "$f" .sv)")
  done < <(git diff --name-only "$rev" -- rtl/)
fi
[[ ${#mods[@]} -gt 0 ]] || { echo "equiv: no RTL module differs from $rev"; exit 0; }
out=build/equiv
mkdir -p "$out"
# Every module file of the chip and the switch (submodules of the ones checked).
all=$( (scripts/rtl_files.sh xf_chip; scripts/rtl_files.sh xf_switch) | tr ' ' '\n' | sort -u)
fail=0
skipped=0
for m in "${mods[@]}"; do
  [[ -f rtl/$m.sv ]] || { echo "equiv: rtl/$m.sv does not exist" >&2; exit 2; }
  if ! git cat-file -e "$rev:rtl/$m.sv" 2> /dev/null; then
    echo "equiv: $m: new since $rev, nothing to compare"
    continue
  fi
  sed -E "s/^module $m\b/module gold_$m/" <(git show "$rev:rtl/$m.sv") > "$out/gold_$m.sv"
  sed -E "s/^module $m\b/module gate_$m/" "rtl/$m.sv" > "$out/gate_$m.sv"
  subs=$(grep -v -x "rtl/$m.sv" <<< "$all" | tr '\n' ' ')
  for w in "${widths[@]}"; do
    cp=""
    grep -q 'parameter int FlitBits' "rtl/$m.sv" && cp="-set FlitBits $w"
    cp+=$sets
    log=$out/$m.$w.log
    t0=$SECONDS
    rd="read_verilog -sv -DSYNTHESIS -I rtl rtl/xf_defs_pkg.sv $subs"
    if yosys -q -l "$log" -p "$rd $out/gold_$m.sv; ${cp:+chparam $cp gold_$m;} hierarchy -check -top gold_$m; rename -top gold_$m; proc;
        flatten; design -stash gold;
        $rd $out/gate_$m.sv; ${cp:+chparam $cp gate_$m;} hierarchy -check -top gate_$m; rename -top gate_$m; proc; flatten; design -stash gate;
        design -copy-from gold -as gold_$m gold_$m; design -copy-from gate -as gate_$m gate_$m;
        $mem opt_clean; async2sync; equiv_make gold_$m gate_$m eq_$m;
        hierarchy -top eq_$m; equiv_induct -seq 2; equiv_status -assert" > /dev/null 2>&1; then
      echo "equiv: $m at FlitBits $w: equal to $rev ($(grep -o 'Found [0-9]* \$equiv cells' \
        "$log" | tail -1 | grep -o '[0-9]*') points proven, $((SECONDS - t0)) s)"
    elif [[ -z $mem ]] && grep -q 'contains memories' "$log"; then
      echo "equiv: $m at FlitBits $w: not checked: it holds a memory array, which equiv_make" \
        "cannot pair (--memories maps arrays to flip-flops: slow, minutes to hours)"
      skipped=1
    else
      echo "equiv: $m at FlitBits $w: NOT PROVEN equal to $rev; see $log:"
      grep -E 'unproven|ERROR' "$log" | head -5 | sed 's/^/  /'
      fail=1
    fi
  done
done
((fail == 0 && skipped == 1)) && echo "equiv: the modules checked are equal; some were not checked"
exit $fail
