#!/usr/bin/env bash
# Synthesis check of every RTL block top with Yosys (Debian's 0.23): a generic `synth` and an
# iCE40 `synth_ice40` run per block, reading rtl/xf_defs_pkg.sv and the block's files with
# `read_verilog -sv -DSYNTHESIS -I rtl`. Prints one table (generic cells; iCE40 LUT4, carries,
# flip-flops, block RAMs; wall and Yosys CPU seconds per run) and fails on any Yosys error.
# Runs SYNTH_JOBS (default: nproc) Yosys processes at once, longest first. Outputs (logs, stat
# reports) go to build/synth/.
#
# `--quick` (what `make test` runs): skips the three slowest runs, whose parts are each
# synthesised on their own: the iCE40 mapping of xf_switch (a router and two links) and both
# runs of xf_chip (its iCE40 mapping alone takes about 11 minutes of the 2-core machine; Verilator
# lint and Icarus still elaborate the whole chip). Their rows say "skipped"; `make lint` and
# `make synth-check` run everything.
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
case "${1:-}" in
  --quick) skip="xf_switch:ice40 xf_chip:gen xf_chip:ice40" ;;
  "") ;;
  *) echo "synth-check: unknown argument '$1' (the only option is --quick)" >&2; exit 2 ;;
esac

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

# One Yosys run: <block> <target gen|ice40>; writes $out/<block>.<target>.{log,stat,wall,rc}.
run_one() {
  local top=$1 target=$2 entry files cp_gen cp_ice ice_opts cp cmd t0 t1 rc
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
  local script="read_verilog -sv -DSYNTHESIS -I rtl rtl/xf_defs_pkg.sv $files;"
  [[ -n $cp ]] && script+=" chparam $cp $top;"
  script+=" $cmd; tee -q -o $out/$top.$target.stat stat -top $top"
  echo "$script" > "$out/$top.$target.ys"
  t0=$(date +%s.%N)
  rc=0
  yosys -q -l "$out/$top.$target.log" -p "$script" > /dev/null 2>&1 || rc=$?
  t1=$(date +%s.%N)
  echo "$rc" > "$out/$top.$target.rc"
  awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.1f\n", b - a }' > "$out/$top.$target.wall"
}
export -f run_one
export out
export BLOCKS_SERIAL
BLOCKS_SERIAL=$(printf '%s\n' "${blocks[@]}")

echo "synth-check: Yosys $(yosys -V | awk '{print $2}'), ${#blocks[@]} blocks x (generic," \
  "iCE40)${skip:+ except $skip}, $jobs at a time; logs in $out/"
t_start=$(date +%s)
# Longest runs first (measured), so that the parallel runs finish together.
order="xf_chip:gen xf_chip:ice40 xf_router:ice40 xf_router:gen xf_reduce_alu:ice40 xf_xb:ice40
       xf_link:ice40 xf_switch:gen xf_switch:ice40 xf_reduce_alu:gen xf_xb:gen xf_link:gen
       xf_host_port:gen xf_host_port:ice40 xf_uart_bridge:ice40 xf_uart_bridge:gen xf_fifo:ice40
       xf_fifo:gen"
for s in $skip; do
  order=${order/$s/}
  echo skipped > "$out/${s%%:*}.${s##*:}.skip"
done
# With both chip runs skipped, the chip still goes through Yosys's front end (read, hierarchy,
# proc: what rejects constructs Yosys does not support), in well under a minute.
elab=""
if [[ $skip == *xf_chip:gen* && $skip == *xf_chip:ice40* ]]; then
  elab=xf_chip
  order="xf_chip:elab $order"
fi
tr -s ' \n' '\n' <<< "$order" | grep . | \
  xargs -P "$jobs" -I{} bash -c 'mapfile -t blocks <<< "$BLOCKS_SERIAL"; run_one ${1%%:*} ${1##*:}' \
    _ {}
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
  echo "$(cat "$out/$1.wall")/$(cpu "$out/$1.log")"
}
cpu() { grep -o 'CPU: user [0-9.]*s' "$1" | tail -1 | awk '{sub("s", "", $3); print $3}'; }

failed=0
for entry in "${blocks[@]}"; do
  top=${entry%%|*}
  targets="gen ice40"
  [[ $top == "$elab" ]] && targets="elab"
  for target in $targets; do
    [[ -f $out/$top.$target.skip ]] && continue
    if [[ $(cat "$out/$top.$target.rc") != 0 ]]; then
      echo "synth-check: ERROR: Yosys failed on $top ($target); $out/$top.$target.log ends:" >&2
      grep -E 'ERROR|Error' "$out/$top.$target.log" | tail -5 >&2 || true
      tail -5 "$out/$top.$target.log" >&2
      failed=1
    fi
  done
done
if [[ $failed != 0 ]]; then
  echo "synth-check: FAILED" >&2
  exit 1
fi

printf '%-14s %-58s %9s %7s %6s %6s %5s %13s %13s\n' block "config (chparam)" generic \
  LUT4 carry FF BRAM "gen wall/cpu" "ice40 wall/cpu"
for entry in "${blocks[@]}"; do
  IFS='|' read -r top _ cp_gen cp_ice ice_opts <<< "$entry"
  g=$out/$top.gen.stat
  i=$out/$top.ice40.stat
  conf="defaults"
  if [[ -n $cp_gen || -n $cp_ice || -n $ice_opts ]]; then
    conf=""
    [[ -n $cp_gen ]] && conf+="gen:${cp_gen//-set /} "
    [[ -n $cp_ice || -n $ice_opts ]] && conf+="ice40:${cp_ice//-set /}${ice_opts}"
    conf=${conf//TableChips /TableChips=}
    conf=${conf//NumIn /NumIn=}
    conf=${conf//NumOut /NumOut=}
  fi
  printf '%-14s %-58s %9s %7s %6s %6s %5s %13s %13s\n' "$top" "$conf" "$(cells "$g")" \
    "$(count "$i" SB_LUT4)" "$(count "$i" SB_CARRY)" "$(count "$i" 'SB_DFF[A-Z]*')" \
    "$(count "$i" SB_RAM40_4K)" \
    "$(times "$top.gen")" "$(times "$top.ice40")"
done
[[ -n $elab ]] && echo "synth-check: $elab: Yosys front end (hierarchy -check, proc) passes in" \
  "$(cat "$out/$elab.elab.wall") s"
echo "synth-check: all ${#blocks[@]} blocks synthesise (generic and iCE40${skip:+; skipped: $skip}) in" \
  "$((t_end - t_start)) s wall; times in seconds"
