#!/usr/bin/env bash
# Synthesis check of every RTL block top with Yosys (Debian's 0.23): a generic `synth` and an
# iCE40 `synth_ice40` run per block, reading rtl/xf_defs_pkg.sv and the block's files with
# `read_verilog -sv -DSYNTHESIS -I rtl`. Prints one table (generic cells; iCE40 LUT4, carries,
# flip-flops, block RAMs; wall and Yosys CPU seconds per run) and fails on any Yosys error.
# Runs SYNTH_JOBS (default: nproc) Yosys processes at once, longest first. Outputs (logs, stat
# reports) go to build/synth/.
#
# Options (any order):
#   --quick          (what `make test` runs): skips the three slowest runs, whose parts are each
# synthesised on their own: the iCE40 mapping of xf_switch (a router and two links) and both
# runs of xf_chip (its iCE40 mapping alone takes about 11 minutes of the 2-core machine; Verilator
# lint and Icarus still elaborate the whole chip). Their rows say "skipped"; `make lint` and
# `make synth-check` run everything.
#   --width N[,N..]  synthesise the blocks with a FlitBits parameter at these flit widths (32, 64,
#                    128; default 128 only: chparam FlitBits N), one table row per block and width;
#                    blocks without the parameter run once (width "-").
#   --blocks B[,B..] only these blocks (e.g. --blocks xf_link,xf_router --width 32,64,128: the
#                    link and router figures per width, docs/fpga.md).
# `make synth-check SYNTH_ARGS="--width 32,64 --blocks xf_link"` passes options through.
#
# Reduced configurations (set with chparam; the table's "config" column says which), chosen to
# keep the whole check within about 3 minutes on 2 cores:
#   xf_router  TableChips=64 for both runs: the full table (4 lanes x 4096 chips, one read port
#              per input) does not finish (131k flip-flops plus large muxes). iCE40 also with
#              NumIn=NumOut=4: the 8x8 crossbar takes over 2 minutes of CPU in synth_ice40.
#   xf_reduce_alu  iCE40 with -noflatten: each distinct lane unit is mapped once and the
#              counts are the hierarchy's totals (a flat synth_ice40 takes over 4 minutes);
#              the figures are for the full ALU, without cross-boundary optimisation.
set -euo pipefail
cd "$(dirname "$0")/.."
out=build/synth
rm -rf "$out" && mkdir -p "$out"
jobs=${SYNTH_JOBS:-$(nproc)}
skip=""
widths=(128)
only=""
while [[ $# -gt 0 ]]; do
  case "$1" in
    --quick) skip="xf_switch:ice40 xf_chip:gen xf_chip:ice40" ;;
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
    *) echo "synth-check: unknown argument '$1' (options: --quick, --width N[,N..]," \
         "--blocks B[,B..])" >&2; exit 2 ;;
  esac
  shift
done

# The chip top in its smallest configuration (1 tile, 1 link, small memories): the check that it
# synthesises. The 4-tile, 4-link figures come from `make synth-chip` (scripts/synth_chip.sh),
# which takes several minutes.
CHIP_SMALL="-set NumTiles 1 -set NumLinks 1 -set ImemWords 64 -set PmemWords 64 \
-set DmemBytes 1024 -set TableChips 16"

# name | files (after the package) | chparam for generic | chparam for iCE40 | ice40 options
blocks=(
  "xf_router|rtl/xf_router.sv|-set TableChips 64|-set TableChips 64 -set NumIn 4 -set NumOut 4|"
  "xf_reduce_alu|rtl/xf_delay.sv rtl/xf_int_lane.sv rtl/xf_fp_add.sv rtl/xf_fp_mul.sv \
rtl/xf_fp_maxmin.sv rtl/xf_reduce_alu.sv|||-noflatten"
  "xf_xb|rtl/xf_fifo.sv rtl/xf_xb.sv|||"
  "xf_link|rtl/xf_crc32.sv rtl/xf_link.sv|||"
  "xf_fifo|rtl/xf_fifo.sv|||"
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

# One Yosys run: <block> <target gen|ice40|elab> <width or ->; writes
# $out/<block>.<width>.<target>.{log,stat,wall,rc}.
run_one() {
  local top=$1 target=$2 w=$3 entry files cp_gen cp_ice ice_opts cp cmd t0 t1 rc tag
  for entry in "${blocks[@]}"; do
    [[ ${entry%%|*} == "$top" ]] && break
  done
  IFS='|' read -r _ files cp_gen cp_ice ice_opts <<< "$entry"
  if [[ $target == gen ]]; then
    cp=$cp_gen; cmd="synth -top $top"
  elif [[ $target == elab ]]; then  # --quick's stand-in for a skipped chip: front end only
    cp=$cp_gen; cmd="hierarchy -check -top $top; proc"
  else
    cp=$cp_ice; cmd="synth_ice40 $ice_opts -top $top"
  fi
  [[ $w != - ]] && cp="-set FlitBits $w $cp"
  tag=$out/$top.$w.$target
  local script="read_verilog -sv -DSYNTHESIS -I rtl rtl/xf_defs_pkg.sv $files;"
  script+=" chparam $cp $top;"
  script+=" $cmd; tee -q -o $tag.stat stat -top $top"
  echo "$script" > "$tag.ys"
  t0=$(date +%s.%N)
  rc=0
  yosys -q -l "$tag.log" -p "$script" > /dev/null 2>&1 || rc=$?
  t1=$(date +%s.%N)
  echo "$rc" > "$tag.rc"
  awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.1f\n", b - a }' > "$tag.wall"
}
export -f run_one
export out
export BLOCKS_SERIAL
BLOCKS_SERIAL=$(printf '%s\n' "${blocks[@]}")

echo "synth-check: Yosys $(yosys -V | awk '{print $2}'), ${#sel[@]} blocks x (generic," \
  "iCE40) at FlitBits ${widths[*]}${skip:+ except $skip}, $jobs at a time; logs in $out/"
t_start=$(date +%s)
# Longest runs first (measured), so that the parallel runs finish together; then the block's
# widths, widest first.
order="xf_chip:gen xf_chip:ice40 xf_router:ice40 xf_router:gen xf_reduce_alu:ice40 xf_xb:ice40
       xf_link:ice40 xf_switch:gen xf_switch:ice40 xf_reduce_alu:gen xf_xb:gen xf_link:gen
       xf_host_port:gen xf_host_port:ice40 xf_uart_bridge:ice40 xf_uart_bridge:gen xf_fifo:ice40
       xf_fifo:gen"
for s in $skip; do
  order=${order/$s/}
  for w in $(widths_of "${s%%:*}"); do echo skipped > "$out/${s%%:*}.$w.${s##*:}.skip"; done
done
# With both chip runs skipped, the chip still goes through Yosys's front end (read, hierarchy,
# proc: what rejects constructs Yosys does not support), in well under a minute.
elab=""
if [[ $skip == *xf_chip:gen* && $skip == *xf_chip:ice40* ]]; then
  elab=xf_chip
  order="xf_chip:elab $order"
fi
runs=()
for r in $order; do
  top=${r%%:*}
  [[ " ${sel[*]} " == *" $top "* ]] || continue
  for w in $(tr ' ' '\n' <<< "$(widths_of "$top")" | sort -rn); do runs+=("$top:${r##*:}:$w"); done
done
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
  echo "$(cat "$out/$1.wall")/$(cpu "$out/$1.log")"
}
cpu() { grep -o 'CPU: user [0-9.]*s' "$1" | tail -1 | awk '{sub("s", "", $3); print $3}'; }

failed=0
for top in "${sel[@]}"; do
  targets="gen ice40"
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

printf '%-14s %5s %-58s %9s %7s %6s %6s %5s %13s %13s\n' block flit "config (chparam)" generic \
  LUT4 carry FF BRAM "gen wall/cpu" "ice40 wall/cpu"
for entry in "${blocks[@]}"; do
  IFS='|' read -r top _ cp_gen cp_ice ice_opts <<< "$entry"
  [[ " ${sel[*]} " == *" $top "* ]] || continue
  conf="defaults"
  if [[ -n $cp_gen || -n $cp_ice || -n $ice_opts ]]; then
    conf=""
    [[ -n $cp_gen ]] && conf+="gen:${cp_gen//-set /} "
    [[ -n $cp_ice || -n $ice_opts ]] && conf+="ice40:${cp_ice//-set /}${ice_opts}"
    conf=${conf//TableChips /TableChips=}
    conf=${conf//NumIn /NumIn=}
    conf=${conf//NumOut /NumOut=}
  fi
  for w in $(widths_of "$top"); do
    g=$out/$top.$w.gen.stat
    i=$out/$top.$w.ice40.stat
    printf '%-14s %5s %-58s %9s %7s %6s %6s %5s %13s %13s\n' "$top" "$w" "$conf" "$(cells "$g")" \
      "$(count "$i" SB_LUT4)" "$(count "$i" SB_CARRY)" "$(count "$i" 'SB_DFF[A-Z]*')" \
      "$(count "$i" SB_RAM40_4K)" \
      "$(times "$top.$w.gen")" "$(times "$top.$w.ice40")"
  done
done
[[ -n $elab ]] && echo "synth-check: $elab: Yosys front end (hierarchy -check, proc) passes in" \
  "$(cat "$out/$elab".*.elab.wall | head -1) s"
echo "synth-check: all ${#sel[@]} blocks synthesise (generic and iCE40${skip:+; skipped: $skip})" \
  "at FlitBits ${widths[*]} in $((t_end - t_start)) s wall; times in seconds"
