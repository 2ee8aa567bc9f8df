#!/usr/bin/env bash
# Formal proofs with Yosys, yosys-smtbmc and z3 (all from Debian; docs/formal.md):
#   part 1, the exchange block's queue never overflows and never drops a flit under the XON/XOFF
#           protocol: Yosys reads rtl/xf_xb.sv with the harness formal/xf_xb_formal.sv;
#   part 2, the link retry layer delivers every accepted flit exactly once and in order under
#           wires that drop, delay and corrupt words: rtl/xf_link.sv, two instances, with
#           formal/xf_link_formal.sv and formal/xf_link_formal_wire.sv.
# Yosys writes an SMT-LIB model per configuration; yosys-smtbmc with z3 then runs bounded model
# checking from reset (BMC), k-induction, and the cover statements that show the environment
# reaches the interesting states. One PASS/FAIL line per check with its depth and wall time, a
# summary table at the end; exits non-zero if any check fails. Outputs (models, logs,
# counterexample VCDs) go to build/formal/.
#
# Usage: scripts/formal.sh [--xoff-delta N] [--link-mutant NAME] [--all-covers] [--traces]
#                          [CONFIG...]
#        scripts/formal.sh --show TRACE.vcd
#   CONFIG        any of the configurations below (default: all of them, in this order; with
#                 --xoff-delta only the XB ones, with --link-mutant only link)
#   --xoff-delta  mutation: raise the XB's XOFF threshold by N flits (the properties keep the
#                 documented 24); with N = 5 the queue overflows and the run must fail
#   --link-mutant mutation of a copy of rtl/xf_link.sv (list below); runs BMC from reset on the
#                 delivery properties, which must fail with a counterexample
#   --all-covers  link: five covers instead of the two replay ones (about 3 minutes instead of 1.5)
#   --traces      link: also write the cover traces as VCDs (about 40 s each with z3)
#   --show        print a trace (counterexample or cover) of build/formal/ as a table, one row
#                 per cycle (a failing BMC check prints its last 16 rows by itself)
#
# Configurations, part 1 (thresholds 32/24/8 of xf_defs_pkg in all):
#   budget  2 tiles, the XOFF budget's worst case: a tile that acts on XOFF one cycle late and a
#           3-stage tile path, 5 flits after the XOFF decision; proves the peak 24 + 5 = 29
#   rtl     2 tiles, the exchange as built: the model's tile (acts on a message in the cycle it
#           arrives) and the 2-cycle tile path, 3 flits after XOFF; proves the peak 27
#   tiles4  4 tiles, the budget's environment (3 requests can wait); a shallower BMC (the
#           request list of 4 makes deep BMC slow in z3), enough for the induction's base case
# Part 2:
#   link    two xf_link (RxBufferFlits 6, ReplayFlits 8, ReplayTimeoutCycles 7), lossy wires of
#           2 words each way; BMC base case, the induction step split per property group (one
#           smtbmc run per group, each assuming every property one cycle earlier: together
#           exactly the 1-induction step), covers of the retry paths
#
# Link mutants (--link-mutant NAME; the sed expression must match, else the script stops):
#   dup     the receiver accepts a duplicate (a flit behind the expected number) as the next
#           flit; caught at step 12 by Deliver_A or DeliverNotAhead_A (BMC of steps 10..16,
#           ~8 min)
#   gap     the receiver accepts a flit ahead of the expected number (skips a lost one); caught
#           at step 5 by Deliver_A (BMC of steps 0..12, ~30 s)
#
# yosys-smtbmc options, and why:
#   --unroll        z3 4.8 expands the define-fun chains of the model (the XB's request-list loops)
#                   exponentially; smtbmc unrolls them itself instead
#   --logic QF_BV   possible once unrolled; z3 then solves incrementally with its bit-vector
#                   solver (30 BMC cycles: 6 s, against 6 minutes with the default QF_AUFBV)
#   --keep-going    (BMC) report every failing property, one trace each, not only the first
#   --smtc          (link) sets the harness inputs check_i and split_i for the run
set -euo pipefail
caller_dir=$PWD
cd "$(dirname "$0")/.."
out=build/formal

# name | chparam for the harness | BMC depth | induction depth | cover depth (0: no covers)
configs=(
  "budget||45|6|60"
  "rtl|-set TileLagCycles 0 -set PathStages 2 -set ConsumerStage 1|40|6|50"
  "tiles4|-set NumTiles 4|12|6|0"
  "link||3|1|14"
)
rtl_files="rtl/xf_defs_pkg.sv rtl/xf_buf_ram.sv rtl/xf_fifo.sv rtl/xf_xb.sv"
rtl_files+=" formal/xf_xb_formal.sv"
link_files="formal/xf_link_formal_wire.sv formal/xf_link_formal.sv"

# Link: the induction step, one smtbmc run per group of properties (numbers as in the harness's
# prop vector + 1 and docs/formal.md part 2). Grouping the cheap ones saves z3's set-up time;
# the expensive ones are faster alone than together.
link_groups=(
  "ind-basic|1 2 3 4 5 6 7 8 9 10 11 13 14 17 18 19 22 25 26"
  "ind-order|12"
  "ind-rbdata|15"
  "ind-bufdata|16"
  "ind-wireab|20"
  "ind-bin|21"
  "ind-wireba|23"
  "ind-ain|24"
)
link_num_props=26
# name @ sed expression on xf_link.sv @ BMC steps (smtbmc -t) @ what it breaks
link_mutants=(
  "dup@s/rx_accept = rx_fv \&\& rx_dist == 8'd0;/rx_accept = rx_fv \&\& (rx_dist == 8'd0 || rx_dist[7]);/@10:16@a duplicate (behind the expected number) is accepted as the next flit"
  "gap@s/rx_accept = rx_fv \&\& rx_dist == 8'd0;/rx_accept = rx_fv \&\& !rx_dist[7];/@12@a flit ahead of the expected number is accepted (the lost one is skipped)"
)
smtbmc=(yosys-smtbmc -s z3 --unroll --logic QF_BV --noprogress)

delta=0
mutant=""
traces=0
all_covers=0
selected=()
show=""
while [[ $# -gt 0 ]]; do
  case $1 in
    --xoff-delta) delta=${2:?--xoff-delta needs a number}; shift 2 ;;
    --link-mutant) mutant=${2:?--link-mutant needs a name}; shift 2 ;;
    --traces) traces=1; shift ;;
    --all-covers) all_covers=1; shift ;;
    --show) show=${2:?--show needs a VCD file}; shift 2 ;;
    -h|--help) sed -n '2,/^set -euo/p' "$0" | sed '$d' | sed 's/^# \{0,1\}//'; exit 0 ;;
    -*) echo "formal: unknown option $1 (see --help)" >&2; exit 2 ;;
    *) selected+=("$1"); shift ;;
  esac
done
if [[ ${#selected[@]} -eq 0 ]]; then
  for entry in "${configs[@]}"; do
    name=${entry%%|*}
    if [[ -n $mutant && $name != link ]] || [[ $delta != 0 && $name == link ]]; then continue; fi
    selected+=("$name")
  done
fi
for cfg in "${selected[@]}"; do
  [[ " ${configs[*]%%|*} " == *" $cfg "* ]] || {
    echo "formal: unknown configuration $cfg (budget, rtl, tiles4, link)" >&2
    exit 2
  }
done
mutant_entry=""
if [[ -n $mutant ]]; then
  for m in "${link_mutants[@]}"; do
    if [[ ${m%%@*} == "$mutant" ]]; then mutant_entry=$m; fi
  done
  [[ -n $mutant_entry ]] || {
    echo "formal: unknown link mutant $mutant (dup, gap)" >&2
    exit 2
  }
fi
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
summary=()  # config|check|depth|result|seconds
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
first = max(0, len(rows) - int(sys.argv[2])) if int(sys.argv[2]) > 0 else 0
if any(n == 'acc_q' for l in ids.values() for n in l):
    # Link harness: one row per step. Words: fN = a flit numbered N, - = no flit; x = corrupted.
    def bits(row, name, lo, w):
        v = num(row, name)
        return -1 if v < 0 else (v >> lo) & ((1 << w) - 1)
    def flit(ctl_name, row, lo=0):
        return ('f%d' % bits(row, ctl_name, lo, 8)) if bits(row, ctl_name, lo + 28, 1) == 1 else '-'
    print('        step rst acc del |  A: nxt una rep rp crd | A out | wire A>B     | B in  |'
          '  B: exp lvl pop | wire B>A ack/cred | A in ack/cred')
    for s, row in enumerate(rows[first:], first):
        ab = ' '.join(flit('ab_words', row, k * 194 + 130)
                      for k in range(max(num(row, 'ab_count'), 0)))
        ba = ' '.join('%d/%d' % (bits(row, 'ba_words', k * 194 + 138, 8),
                                 bits(row, 'ba_words', k * 194 + 146, 8))
                      for k in range(max(num(row, 'ba_count'), 0)))
        # ~: an intact word that fails the check (the CRC is cut out: it acts as a drop)
        bin_ = '.' if num(row, 'u_b.rx_in_valid_q') != 1 else (
            'x' if num(row, 'b_in_corrupt_q') == 1 else flit('u_b.rx_in_ctl_q', row) +
            ('' if num(row, 'u_b.rx_good') == 1 else '~'))
        ain = '.' if num(row, 'u_a.rx_in_valid_q') != 1 else (
            'x' if num(row, 'a_in_corrupt_q') == 1 else '%d/%d' % (
                bits(row, 'u_a.rx_in_ctl_q', 8, 8), bits(row, 'u_a.rx_in_ctl_q', 16, 8)) +
            ('' if num(row, 'u_a.rx_good') == 1 else '~'))
        print('        %4d %3d %3d %3d | %7d %3d %3d %2d %3d | %-5s | %-11s | %-5s | %7d %3d %3d |'
              ' %-17s | %s' % (
            s, num(row, 'rst_ni'), num(row, 'acc_q'), num(row, 'del_q'), num(row, 'u_a.nxt_q'),
            num(row, 'u_a.una_q'), num(row, 'u_a.replaying_q'), num(row, 'u_a.rp_q'),
            num(row, 'a_credits'), flit('a_phy_ctl', row), ab, bin_, num(row, 'u_b.expected_q'),
            num(row, 'b_rx_level'), num(row, 'b_pop'), ba, ain))
    sys.exit(0)
tiles = sorted({int(m.group(1)) for l in ids.values() for n in l
                for m in [re.match(r'gen_tile<(\d+)>\.phase_q$', n)] if m})
phase = {0: 'idle', 1: 'wait', 2: 'sess'}
tok = {0: '.', 1: 'D', 2: 'REQ', 3: 'DONE'}
kind = {0: 'GRANT', 1: 'XON', 2: 'XOFF', 3: '?'}
head = '        step rst held in rdy grant xoff msg      ' + ' '.join(
    'tile%d(phase xon emit)' % i for i in tiles)
print(head)
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
    summary+=("$cfg|$kind|$depth|PASS|$secs")
    printf 'formal: PASS  %-7s %-11s depth %-5s %6s s\n' "$cfg" "$kind" "$depth" "$secs"
    if [[ $kind == cover ]]; then
      sed -n 's/.*Reached cover statement at \([A-Za-z_]*\) in step \([0-9]*\).*/\1 \2/p' "$log" |
        while read -r name step; do echo "        $name reached at step $step"; done
    fi
  else
    failures=$((failures + 1))
    summary+=("$cfg|$kind|$depth|FAIL|$secs")
    printf 'formal: FAIL  %-7s %-11s depth %-5s %6s s   log %s\n' "$cfg" "$kind" "$depth" \
      "$secs" "$log"
    report_log "$log"
    local vcd
    for vcd in "$out/$cfg.$kind"*.vcd; do
      [[ -e $vcd ]] || continue
      echo "        trace: $vcd"
    done
    # The last BMC trace ends at the last failure found, so it shows them all.
    if [[ $kind == bmc* ]]; then
      vcd=$( (ls "$out/$cfg".bmc*_*.vcd 2> /dev/null || true) | sort -t_ -k2 -n | tail -1)
      if [[ -n $vcd && $cfg == link ]]; then
        echo "        $vcd, last 16 steps (A: the transmitter u_a, B: the receiver u_b;"
        echo "        columns: docs/formal.md part 2, section 5):"
        print_trace "$vcd" 16
      elif [[ -n $vcd ]]; then
        echo "        $vcd, last 16 steps (held: flits queued at the start of the step;"
        echo "        in: a flit arrives; rdy: the link takes one; msg: kind>tile;"
        echo "        emit: D data, REQ, DONE):"
        print_trace "$vcd" 16
      fi
    fi
  fi
}

if [[ -n $show ]]; then
  [[ -f $show ]] || { echo "formal: no such trace: $show" >&2; exit 2; }
  if grep -q ' acc_q ' "$show"; then
    echo "$show (link harness; columns: docs/formal.md part 2, section 5):"
  else
    echo "$show (held: flits queued at the start of the step; in: a flit arrives; rdy: the link"
    echo "takes one; msg: kind>tile; emit: D data, REQ, DONE):"
  fi
  print_trace "$show" 0
  exit 0
fi

# Writes the smtc file that sets the link harness's check_i (properties given by number) and
# split_i: <file> <split true|false> <numbers...>
link_smtc() {
  local file=$1 split=$2 mask="" i
  shift 2
  for ((i = link_num_props; i >= 1; i--)); do
    if [[ " $* " == *" $i "* ]]; then mask+=1; else mask+=0; fi
  done
  printf 'always\nassume (= [check_i] #b%s)\nassume (= [split_i] %s)\n' "$mask" "$split" > "$file"
}

# Part 1: the XB, one configuration.
run_xb() {
  local cfg=$1 cp=$2 bmc_depth=$3 ind_depth=$4 cover_depth=$5 variant check script t0
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
  printf 'formal: model %-7s (yosys)                   %6s s\n' "$cfg" "$(elapsed "$t0")"

  run_check "$cfg" bmc "$bmc_depth" "$out/$cfg.bmc.smt2" -- \
    --keep-going -t "$bmc_depth" --dump-vcd "$out/$cfg.bmc_%.vcd"
  run_check "$cfg" induction "$ind_depth" "$out/$cfg.ind.smt2" -- \
    -i -t "$ind_depth" --dump-vcd "$out/$cfg.induction.vcd"
  if [[ $cover_depth -gt 0 ]]; then
    run_check "$cfg" cover "$cover_depth" "$out/$cfg.bmc.smt2" -- \
      -c -t "$cover_depth" --dump-vcd "$out/$cfg.cover_%.vcd"
  fi
}

# Part 2: the link pair (docs/formal.md part 2).
run_link() {
  local cfg=$1 bmc_depth=$2 ind_depth=$3 cover_depth=$4 src="$out/link.xf_link.sv" script t0
  local g name props m_name m_expr m_steps m_what
  # A copy of the RTL: the mutants are applied there.
  cp rtl/xf_link.sv "$src"
  if [[ -n $mutant_entry ]]; then
    IFS='@' read -r m_name m_expr m_steps m_what <<< "$mutant_entry"
    local before; before=$(md5sum < "$src")
    sed -i "$m_expr" "$src"
    if [[ $before == "$(md5sum < "$src")" ]]; then
      echo "formal: link mutant $m_name: the sed expression no longer matches rtl/xf_link.sv;" \
           "update this script" >&2
      exit 2
    fi
    echo "formal: link mutant $m_name: $m_what:"
    diff rtl/xf_link.sv "$src" | grep '^>' | sed 's/^>/       /' || true
  fi

  t0=$(date +%s%N)
  # The retry layer alone: its CRC check result is a free input of the harness (docs/formal.md
  # part 2, section 2). The select after flatten fails if a (* hierconn *) wire of the harness
  # did not meet its signal (a misspelt name would otherwise be a free value).
  local defs="-DSYNTHESIS"
  [[ $all_covers -eq 1 ]] && defs+=" -DXF_FORMAL_ALL_COVERS"
  script="read_verilog -formal -sv $defs -I rtl rtl/xf_defs_pkg.sv $src"
  script+=" $link_files; hierarchy -top xf_link_formal;"
  script+=" prep -top xf_link_formal -flatten; select -assert-none a:hierconn;"
  script+=" rename -top xf_link_formal; async2sync; dffunmap; opt_clean;"
  script+=" write_smt2 -wires $out/$cfg.smt2"
  if ! yosys -q -l "$out/$cfg.yosys.log" -p "$script" > /dev/null 2>&1; then
    echo "formal: FAIL  $cfg yosys: see $out/$cfg.yosys.log" >&2
    grep -i -B2 error "$out/$cfg.yosys.log" | head -8 >&2
    exit 1
  fi
  printf 'formal: model %-7s (yosys)                   %6s s\n' "$cfg" "$(elapsed "$t0")"

  local all; all=$(seq -s ' ' 1 "$link_num_props")
  if [[ -n $mutant_entry ]]; then
    # The delivery properties alone, from reset, no property assumed: a real counterexample.
    link_smtc "$out/$cfg.bmc.smtc" false 1 2
    run_check "$cfg" bmc "$m_steps" "$out/$cfg.smt2" -- \
      --smtc "$out/$cfg.bmc.smtc" -t "$m_steps" --dump-vcd "$out/$cfg.bmc_0.vcd"
    return
  fi
  # Base case: every property from reset.
  link_smtc "$out/$cfg.bmc.smtc" false $all
  run_check "$cfg" bmc "$bmc_depth" "$out/$cfg.smt2" -- \
    --smtc "$out/$cfg.bmc.smtc" --keep-going -t "$bmc_depth" --dump-vcd "$out/$cfg.bmc_%.vcd"
  # Induction step, one run per group: the group's properties in the last step, every property
  # in the step before (split_i).
  for g in "${link_groups[@]}"; do
    IFS='|' read -r name props <<< "$g"
    # shellcheck disable=SC2086
    link_smtc "$out/$cfg.$name.smtc" true $props
    run_check "$cfg" "$name" "$ind_depth" "$out/$cfg.smt2" -- \
      --smtc "$out/$cfg.$name.smtc" -i -t "$ind_depth" --dump-vcd "$out/$cfg.$name.vcd"
  done
  if [[ $cover_depth -gt 0 ]]; then
    link_smtc "$out/$cfg.cover.smtc" false $all
    local vcd=()
    [[ $traces -eq 1 ]] && vcd=(--dump-vcd "$out/$cfg.cover_%.vcd")
    run_check "$cfg" cover "$cover_depth" "$out/$cfg.smt2" -- \
      --smtc "$out/$cfg.cover.smtc" -c -t "$cover_depth" "${vcd[@]}"
  fi
}

echo "formal: XB queue vs XON/XOFF (XOFF threshold delta $delta), link retry layer" \
     "(mutant ${mutant:-none}); outputs in $out/"
for cfg in "${selected[@]}"; do
  entry=""
  for e in "${configs[@]}"; do
    if [[ ${e%%|*} == "$cfg" ]]; then entry=$e; fi
  done
  IFS='|' read -r _ cp bmc_depth ind_depth cover_depth <<< "$entry"
  rm -f "$out/$cfg".*
  if [[ $cfg == link ]]; then
    run_link "$cfg" "$bmc_depth" "$ind_depth" "$cover_depth"
  else
    run_xb "$cfg" "$cp" "$bmc_depth" "$ind_depth" "$cover_depth"
  fi
done

echo "formal: summary"
printf '  %-7s %-11s %-6s %-6s %8s\n' config check depth result time
for row in "${summary[@]}"; do
  IFS='|' read -r c k d r t <<< "$row"
  printf '  %-7s %-11s %-6s %-6s %6s s\n' "$c" "$k" "$d" "$r" "$t"
done
if [[ $failures -eq 0 ]]; then
  echo "formal: PASS  all $checks checks ($(elapsed "$t_all") s)"
else
  echo "formal: FAIL  $failures of $checks checks ($(elapsed "$t_all") s)"
  exit 1
fi
