#!/usr/bin/env bash
# Prints the RTL files a top needs, in compile order, without the package (which every tool reads
# first as rtl/xf_defs_pkg.sv): the one list the synthesis, Icarus and FPGA scripts share.
# `headers` prints the headers the modules include (found through `-I rtl` / `+incdir+rtl`, never
# compiled on their own): the assertion macros and the generated types (rtl/xf_types.svh).
# Usage: scripts/rtl_files.sh TOP|headers
set -euo pipefail
alu="rtl/xf_delay.sv rtl/xf_int_lane.sv rtl/xf_fp_add.sv rtl/xf_fp_mul.sv rtl/xf_fp_maxmin.sv"
alu+=" rtl/xf_reduce_alu.sv"
fifo="rtl/xf_buf_ram.sv rtl/xf_fifo.sv"
tile="$fifo $alu rtl/xf_tile_ram.sv rtl/xf_tile_seq.sv rtl/xf_tile_send.sv rtl/xf_tile_recv.sv"
tile+=" rtl/xf_tile.sv"
exchange="rtl/xf_xb.sv rtl/xf_router.sv rtl/xf_exchange.sv"
link="rtl/xf_crc32.sv rtl/xf_link.sv rtl/xf_link_phy.sv rtl/xf_link_array.sv"
case "${1:-}" in
  headers) echo "rtl/xf_assert.svh rtl/xf_types.svh" ;;
  xf_chip) echo "$tile $exchange $link rtl/xf_host_port.sv rtl/xf_chip.sv" ;;
  xf_switch) echo "$fifo rtl/xf_router.sv $link rtl/xf_host_port.sv rtl/xf_switch.sv" ;;
  xf_tile) echo "$tile" ;;
  xf_exchange) echo "$fifo $exchange" ;;
  xf_uart_bridge) echo "rtl/xf_uart_rx.sv rtl/xf_uart_tx.sv rtl/xf_uart_bridge.sv" ;;
  *) echo "usage: $0 xf_chip|xf_switch|xf_tile|xf_exchange|xf_uart_bridge|headers" >&2; exit 2 ;;
esac
