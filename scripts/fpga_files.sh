#!/usr/bin/env bash
# Prints the Verilog files of a board's FPGA build in compile order, on one line: the package,
# the chip (scripts/rtl_files.sh xf_chip; xf_switch too when the board's machine has switches),
# the UART bridge and the reset synchroniser, the board's generated machine (which also holds
# package xf_system_pkg, so it comes before the core that imports it), the core, the board top.
# The FPGA flows (scripts/fpga_flow.sh), vivado.tcl and the FuseSoC files use it.
# Usage: scripts/fpga_files.sh icebreaker|ulx3s|arty_a7
# Environment: XF_SYSTEM_TOP=FILE uses FILE instead of fpga/BOARD/xf_system_top.sv (another
# machine for a trial build, without touching the committed one).
set -euo pipefail
cd "$(dirname "$0")/.."
board=${1:-}
if [[ -z $board || ! -f fpga/$board/fpga.sv ]]; then
  echo "usage: $0 BOARD, one of: $(cd fpga && ls -d */ | tr -d / | grep -vx common | xargs)" >&2
  exit 2
fi
top=${XF_SYSTEM_TOP:-fpga/$board/xf_system_top.sv}
files="rtl/xf_defs_pkg.sv $(scripts/rtl_files.sh xf_chip)"
if [[ -f $top ]] && grep -q '^ *xf_switch\b' "$top"; then
  files+=" rtl/xf_switch.sv"  # its router, links and host port are the chip's
fi
files+=" $(scripts/rtl_files.sh xf_uart_bridge) rtl/xf_reset_sync.sv"
files+=" $top fpga/common/xf_fpga_core.sv fpga/$board/fpga.sv"
echo "$files"
