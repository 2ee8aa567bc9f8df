#!/usr/bin/env bash
# Icarus Verilog 11 compile check of every RTL block top: `iverilog -g2012 -I rtl` with
# rtl/xf_defs_pkg.sv and the block's files, once with -DSYNTHESIS (assertions compiled out)
# and once without (assertions in). Fails on a non-zero exit. Icarus prints a harmless
# "sorry: constant selects in always_* processes are not currently supported (all bits will be
# included)." note per constant select in an always_* block and a "Case unique/unique0 qualities
# are ignored" note per `unique case`; exactly those lines are filtered out, so any other message
# is still shown.
set -euo pipefail
cd "$(dirname "$0")/.."
blocks=(
  "xf_reduce_alu|rtl/xf_delay.sv rtl/xf_int_lane.sv rtl/xf_fp_add.sv rtl/xf_fp_mul.sv \
rtl/xf_fp_maxmin.sv rtl/xf_reduce_alu.sv"
  "xf_xb|rtl/xf_buf_ram.sv rtl/xf_fifo.sv rtl/xf_xb.sv"
  "xf_link_phy|rtl/xf_buf_ram.sv rtl/xf_crc32.sv rtl/xf_link.sv rtl/xf_link_phy.sv"
  "xf_router|rtl/xf_router.sv"
  "xf_fifo|rtl/xf_buf_ram.sv rtl/xf_fifo.sv"
  "xf_buf_ram|rtl/xf_buf_ram.sv"
  "xf_uart_bridge|$(scripts/rtl_files.sh xf_uart_bridge)"
  "xf_reset_sync|rtl/xf_reset_sync.sv"
  "xf_host_port|rtl/xf_host_port.sv"
  "xf_switch|$(scripts/rtl_files.sh xf_switch)"
  "xf_chip|$(scripts/rtl_files.sh xf_chip)"
)
harmless='^[^ ]+:[0-9]+: sorry: constant selects in always_\* processes are not currently '
harmless+='supported \(all bits will be included\)\.$'
# Icarus ignores the unique/unique0 qualifier of a case (a lint-level check Verilator makes).
harmless+='|^[^ ]+:[0-9]+: vvp\.tgt sorry: Case unique/unique0 qualities are ignored\.$'
# The blocks with a flit-width parameter also compile at FlitBits 32 and 64 (-P<top>.FlitBits).
width_tops=" xf_xb xf_link_phy xf_router xf_switch xf_chip "
failed=0
for entry in "${blocks[@]}"; do
  top=${entry%%|*}
  read -r -a files <<< "${entry#*|}"
  widths=("")
  [[ $width_tops == *" $top "* ]] && widths+=(32 64)
  for w in "${widths[@]}"; do
    params=()
    [[ -n $w ]] && params=("-P$top.FlitBits=$w")
    for defs in -DSYNTHESIS ""; do
      rc=0
      msgs=$(iverilog -g2012 $defs "${params[@]}" -I rtl -s "$top" -o /dev/null \
               rtl/xf_defs_pkg.sv "${files[@]}" 2>&1) || rc=$?
      msgs=$(grep -vE "$harmless" <<< "$msgs" || true)
      [[ -n $msgs ]] && echo "$msgs"
      if [[ $rc != 0 ]]; then
        echo "icarus-check: ERROR: iverilog -g2012 ${defs:-(no -DSYNTHESIS)} ${params[*]} failed" \
          "on $top" >&2
        failed=1
      fi
    done
  done
done
# The tile (not a top above: the chip holds it) and the ALU at every flit width (-P: FlitBits).
tile_files=$(scripts/rtl_files.sh xf_tile)
for w in 32 64 128; do
  for top in xf_tile xf_reduce_alu; do
    for defs in -DSYNTHESIS ""; do
      rc=0
      msgs=$(iverilog -g2012 $defs -I rtl -s "$top" -P"$top.FlitBits=$w" -o /dev/null \
               rtl/xf_defs_pkg.sv $tile_files 2>&1) || rc=$?
      msgs=$(grep -vE "$harmless" <<< "$msgs" || true)
      [[ -n $msgs ]] && echo "$msgs"
      if [[ $rc != 0 ]]; then
        echo "icarus-check: ERROR: $top at FlitBits $w ${defs:-(no -DSYNTHESIS)} failed" >&2
        failed=1
      fi
    done
  done
done
[[ $failed == 0 ]] || { echo "icarus-check: FAILED" >&2; exit 1; }
wt=$(xargs <<< "$width_tops")
echo "icarus-check: ${#blocks[@]} block tops ($wt also at FlitBits 32, 64; the tile and the ALU at" \
  "32, 64, 128) compile under $(iverilog -V 2>&1 | head -1 | awk '{print "Icarus", $4}')" \
  "(iverilog -g2012, with and without -DSYNTHESIS)"
