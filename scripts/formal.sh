#!/usr/bin/env bash
# Formal proof that the exchange block's queue never overflows and never drops a flit under the
# XON/XOFF protocol (docs/formal.md): Yosys reads rtl/xf_xb.sv with the harness
# formal/xf_xb_formal.sv and writes an SMT-LIB model; yosys-smtbmc with z3 (both from Debian)
# then runs, per configuration, bounded model checking from reset (BMC), k-induction, and the
# cover statements that show the environment reaches the budget's peak. One PASS/FAIL line per
# check with its depth and wall time; exits non-zero if any check fails. Outputs (models, logs,
# counterexample VCDs) go to build/formal/.
#
# Usage: scripts/formal.sh [--xoff-delta N] [CONFIG...]
#        scripts/formal.sh --show TRACE.vcd
#   CONFIG        any of the configurations below (default: all of them, in this order)
#   --xoff-delta  mutation: raise the XB's XOFF threshold by N flits (the properties keep the
#                 documented 24); with N = 5 the queue overflows and the run must fail
#   --show        print a trace (counterexample or cover) of build/formal/ as a table, one row
#                 per cycle (a failing BMC check prints its last 16 rows by itself)
#
# Configurations (thresholds 32/24/8 of xf_defs_pkg in all):
#   budget  2 tiles, the XOFF budget's worst case: a tile that acts on XOFF one cycle late and a
#           3-stage tile path, 5 flits after the XOFF decision; proves the peak 24 + 5 = 29
#   rtl     2 tiles, the exchange as built: the model's tile (acts on a message in the cycle it
#           arrives) and the 2-cycle tile path, 3 flits after XOFF; proves the peak 27
#   tiles4  4 tiles, the budget's environment (3 requests can wait); a shallower BMC (the
#           request list of 4 makes deep BMC slow in z3), enough for the induction's base case
#
# yosys-smtbmc options, and why:
#   --unroll        z3 4.8 expands the define-fun chains of the model (the XB's request-list loops)
#                   exponentially; smtbmc unrolls them itself instead
#   --logic QF_BV   possible once unrolled; z3 then solves incrementally with its bit-vector
#                   solver (30 BMC cycles: 6 s, against 6 minutes with the default QF_AUFBV)
#   --keep-going    (BMC) report every failing property, one trace each, not only the first
set -euo pipefail
caller_dir=$PWD
cd "$(dirname "$0")/.."
out=build/formal

# name | chparam for the harness | BMC depth | induction depth | cover depth (0: no covers)
configs=(
  "budget||45|6|60"
  "rtl|-set TileLagCycles 0 -set PathStages 2|40|6|50"
  "tiles4|-set NumTiles 4|12|6|0"
)
rtl_files="rtl/xf_defs_pkg.sv rtl/xf_fifo.sv rtl/xf_xb.sv formal/xf_xb_formal.sv"
smtbmc=(yosys-smtbmc -s z3 --unroll --logic QF_BV --noprogress)

delta=0
selected=()
show=""
while [[ $# -gt 0 ]]; do
  case $1 in
    --xoff-delta) delta=${2:?--xoff-delta needs a number}; shift 2 ;;
    --show) show=${2:?--show needs a VCD file}; shift 2 ;;
    -h|--help) sed -n '2,/^set -euo/p' "$0" | sed '$d' | sed 's/^# \{0,1\}//'; exit 0 ;;
    -*) echo "formal: unknown option $1 (see --help)" >&2; exit 2 ;;
    *) selected+=("$1"); shift ;;
  esac
done
if [[ ${#selected[@]} -eq 0 ]]; then
  for entry in "${configs[@]}"; do selected+=("${entry%%|*}"); done
fi
for cfg in "${selected[@]}"; do
  [[ " ${configs[*]%%|*} " == *" $cfg "* ]] || {
    echo "formal: unknown configuration $cfg (budget, rtl, tiles4)" >&2
    exit 2
  }
done
[[ -z $show || $show == /* ]] || show=$caller_dir/$show

for tool in yosys yosys-smtbmc z3; do
  command -v "$tool" > /dev/null || {
    echo "formal: $tool not found; install the Debian packages yosys and z3 (make setup)" >&2
    exit 2
  }
done

mkdir -p "$out"
failures=0
checks=0
t_all=$(date +%s%N)

# Seconds since a `date +%s%N` stamp, with one decimal.
elapsed() {
  local ds=$((($(date +%s%N) - $1) / 100000000))
  printf '%d.%d' $((ds / 10)) $((ds % 10))
}

# Prints the failing properties of a smtbmc log, with the step of each (BMC) or the kind of
# failure (induction, cover).
report_log() {
  awk '
    /Checking assertions in step/ {
      match($0, /step [0-9]+/); step = substr($0, RSTART + 5, RLENGTH - 5)
    }
    /Temporal induction failed/ { ind = 1 }
    /Assert failed in/ {
      name = $0; sub(/.*: /, "", name)
      if (name ~ /failed before/) next
      at = step
      if (match(name, / \(step [0-9]+\)/)) {  # cover mode names the step
        at = substr(name, RSTART + 7, RLENGTH - 8); name = substr(name, 1, RSTART - 1)
      }
      if (ind) print "        " name ": fails in the induction step (from a state the other"\
                     " properties allow; unreachable unless BMC fails too)"
      else print "        " name ": fails at step " at " (reachable from reset)"
    }
    /Unreached cover statement/ {
      name = $0; sub(/.*at /, "", name); sub(/\.$/, "", name); print "        " name ": not reached"
    }
    /[Ee][Rr][Rr][Oo][Rr]|Traceback/ { print "        " $0 }
  ' "$1"
}

# Prints the harness's key signals per step from a trace VCD: <vcd> <rows> (0: all).
print_trace() {
  python3 - "$1" "$2" << 'EOF'
import re, sys
ids, scope, vals, rows, t, dirty = {}, [], {}, [], None, False
# Steps are at times 0, 10, 20, ...; the last one only closes the trace (clock and step count).
for line in open(sys.argv[1]):
    w = line.split()
    if not w:
        continue
    if w[0] == '$scope':
        scope.append(w[2])
    elif w[0] == '$upscope':
        scope.pop()
    elif w[0] == '$var':
        ids.setdefault(w[3], []).append('.'.join(scope[1:] + [w[4]]))
    elif w[0][0] == '#':
        if t is not None and t % 10 == 0:
            rows.append(dict(vals))
        t, dirty = int(w[0][1:]), False
    elif w[0][0] in '01xz' and len(w) == 1:
        for n in ids.get(w[0][1:], []):
            vals[n] = w[0][0]
            dirty = dirty or not n.endswith(('clk_i', 'smt_clock', 'smt_step'))
    elif w[0][0] == 'b':
        for n in ids.get(w[1], []):
            vals[n] = w[0][1:]
            dirty = dirty or not n.endswith(('clk_i', 'smt_clock', 'smt_step'))
if t is not None and t % 10 == 0 and dirty:
    rows.append(dict(vals))
def num(row, name):
    v = row.get(name, 'x')
    return int(v, 2) if re.fullmatch('[01]+', v) else -1
tiles = sorted({int(m.group(1)) for l in ids.values() for n in l
                for m in [re.match(r'gen_tile<(\d+)>\.phase_q$', n)] if m})
phase = {0: 'idle', 1: 'wait', 2: 'sess'}
tok = {0: '.', 1: 'D', 2: 'REQ', 3: 'DONE'}
kind = {0: 'GRANT', 1: 'XON', 2: 'XOFF', 3: '?'}
head = '        step rst held in rdy grant xoff msg      ' + ' '.join(
    'tile%d(phase xon emit)' % i for i in tiles)
print(head)
first = max(0, len(rows) - int(sys.argv[2])) if int(sys.argv[2]) > 0 else 0
for s, row in enumerate(rows[first:], first):
    mv = num(row, 'msg_valid')
    msg = '-' if mv <= 0 else '%s>%d' % (kind[num(row, 'msg_kind')], mv.bit_length() - 1)
    grant = str(num(row, 'granted_tile')) if num(row, 'granted_valid') == 1 else '-'
    cells = ['%-4s %d %-4s' % (phase.get(num(row, 'gen_tile<%d>.phase_q' % i), '?'),
                               num(row, 'gen_tile<%d>.xon_q' % i),
                               tok.get(num(row, 'gen_tile<%d>.tok' % i), '?')) for i in tiles]
    print('        %4d %3d %4d %2d %3d %5s %4d %-8s ' % (
        s, num(row, 'rst_ni'), num(row, 'occupancy'), num(row, 'in_valid'),
        num(row, 'out_ready'), grant, num(row, 'xoff'), msg) + '   '.join(cells))
EOF
}

# One check: <config> <kind bmc|induction|cover> <depth> <model> -- smtbmc arguments.
run_check() {
  local cfg=$1 kind=$2 depth=$3 model=$4 log="$out/$1.$2.log" t0 rc=0
  shift 5
  t0=$(date +%s%N)
  "${smtbmc[@]}" "$@" "$model" > "$log" 2>&1 || rc=$?
  local secs; secs=$(elapsed "$t0")
  checks=$((checks + 1))
  if [[ $rc -eq 0 ]] && grep -q 'Status: PASSED' "$log"; then
    printf 'formal: PASS  %-7s %-10s depth %-3s %6s s\n' "$cfg" "$kind" "$depth" "$secs"
    if [[ $kind == cover ]]; then
      sed -n 's/.*Reached cover statement at \([A-Za-z_]*\) in step \([0-9]*\).*/\1 \2/p' "$log" |
        while read -r name step; do echo "        $name reached at step $step"; done
    fi
  else
    failures=$((failures + 1))
    printf 'formal: FAIL  %-7s %-10s depth %-3s %6s s   log %s\n' "$cfg" "$kind" "$depth" \
      "$secs" "$log"
    report_log "$log"
    local vcd
    for vcd in "$out/$cfg.$kind"*.vcd; do
      [[ -e $vcd ]] || continue
      echo "        trace: $vcd"
    done
    # The last BMC trace ends at the last failure found, so it shows them all.
    if [[ $kind == bmc ]]; then
      vcd=$( (ls "$out/$cfg".bmc_*.vcd 2> /dev/null || true) | sort -t_ -k2 -n | tail -1)
      if [[ -n $vcd ]]; then
        echo "        $vcd, last 16 steps (held: flits queued at the start of the step;"
        echo "        in: a flit arrives; rdy: the link takes one; msg: kind>tile;"
        echo "        emit: D data, REQ, DONE):"
        print_trace "$vcd" 16
      fi
    fi
  fi
}

if [[ -n $show ]]; then
  echo "$show (held: flits queued at the start of the step; in: a flit arrives; rdy: the link"
  echo "takes one; msg: kind>tile; emit: D data, REQ, DONE):"
  print_trace "$show" 0
  exit 0
fi

echo "formal: XB queue vs XON/XOFF (rtl/xf_xb.sv, formal/xf_xb_formal.sv), XOFF threshold" \
     "delta $delta; outputs in $out/"
for cfg in "${selected[@]}"; do
  entry=""
  for e in "${configs[@]}"; do
    if [[ ${e%%|*} == "$cfg" ]]; then entry=$e; fi
  done
  IFS='|' read -r _ cp bmc_depth ind_depth cover_depth <<< "$entry"
  rm -f "$out/$cfg".*

  # Two models: with NoProtoErr_A for BMC and the covers, without it for the induction (the
  # XB's request list is internal state the harness cannot constrain; docs/formal.md).
  t0=$(date +%s%N)
  for variant in bmc ind; do
    check=1
    [[ $variant == ind ]] && check=0
    script="read_verilog -formal -sv -DSYNTHESIS -I rtl $rtl_files;"
    script+=" chparam $cp -set XoffDeltaFlits $delta -set ProtoErrCheck $check xf_xb_formal;"
    script+=" prep -top xf_xb_formal -flatten; rename -top xf_xb_formal;"
    script+=" async2sync; dffunmap; opt_clean; write_smt2 -wires $out/$cfg.$variant.smt2"
    if ! yosys -q -l "$out/$cfg.yosys.$variant.log" -p "$script" > /dev/null 2>&1; then
      echo "formal: FAIL  $cfg yosys: see $out/$cfg.yosys.$variant.log" >&2
      grep -i error "$out/$cfg.yosys.$variant.log" | head -5 >&2
      exit 1
    fi
  done
  printf 'formal: model %-7s (yosys)                 %6s s\n' "$cfg" "$(elapsed "$t0")"

  run_check "$cfg" bmc "$bmc_depth" "$out/$cfg.bmc.smt2" -- \
    --keep-going -t "$bmc_depth" --dump-vcd "$out/$cfg.bmc_%.vcd"
  run_check "$cfg" induction "$ind_depth" "$out/$cfg.ind.smt2" -- \
    -i -t "$ind_depth" --dump-vcd "$out/$cfg.induction.vcd"
  if [[ $cover_depth -gt 0 ]]; then
    run_check "$cfg" cover "$cover_depth" "$out/$cfg.bmc.smt2" -- \
      -c -t "$cover_depth" --dump-vcd "$out/$cfg.cover_%.vcd"
  fi
done

if [[ $failures -eq 0 ]]; then
  echo "formal: PASS  all $checks checks ($(elapsed "$t_all") s)"
else
  echo "formal: FAIL  $failures of $checks checks ($(elapsed "$t_all") s)"
  exit 1
fi
