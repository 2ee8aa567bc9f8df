#!/usr/bin/env bash
# The machine each FPGA board holds (docs/fpga.md section 4): one gen_system command per board,
# writing fpga/<board>/xf_system_top.sv. With --check, writes them under build/fpga_machines/
# and fails if a committed top differs (make test runs it; run this script without --check and
# commit the tops after changing a command, gen_system or the chip's parameters).
# Usage: scripts/fpga_machines.sh PATH/TO/gen_system [--check]
set -euo pipefail
cd "$(dirname "$0")/.."
GEN=${1:?usage: fpga_machines.sh PATH/TO/gen_system [--check]}
check=${2:-}
out=fpga
if [[ $check == --check ]]; then
  out=build/fpga_machines
  rm -rf "$out"
fi
gen() {  # BOARD gen_system-options...
  local board=$1
  shift
  mkdir -p "$out/$board"
  "$GEN" "$@" --top "$out/$board/xf_system_top.sv" 2>&1 | grep '^gen_system' || {
    echo "fpga_machines: gen_system failed for $board" >&2; exit 1; }
}
# iCEBreaker (iCE40UP5K, 5280 LUT4): the smallest machine there is, two chips of one tile and
# two links, 32-bit flits, the int8, int16 and bf16 ALU units (issue 21's subset), the links'
# buffers and XB queues in block RAM (--sync-buffers: iCE40 has no distributed RAM). It does not
# fit: a chip is several times the device (docs/boards.md section 9); the flow says by how much.
gen icebreaker --topology line:2 --tiles 1 --flit-bits 32 --imem-words 64 --pmem-words 256 \
  --dmem-bytes 1K --table-chips 2 --alu-dtypes int8,int16,bf16 --sync-buffers
# ULX3S (ECP5-85F, 83,640 LUT4) and Arty A7-100T (63,400 LUT6) hold the same machine: a ladder
# of four chips of one tile and four links, 32-bit flits, the fp32 ALU without ScaleAdd.
# ULX3S: 89 % of the LUTs after packing with ABC9's 10 ns target (the flow's default for this
# board; docs/boards.md section 7). Arty: 64 % by YoWASP Yosys's synth_xilinx estimate;
# ladder:6 (--table-chips 8) is the largest ladder that fits that estimate (96 %), too full to
# count on Vivado routing it.
ladder4=(--topology ladder:4 --tiles 1 --flit-bits 32 --imem-words 256 --pmem-words 1024
  --dmem-bytes 8K --table-chips 4 --alu-dtypes fp32)
gen ulx3s "${ladder4[@]}"
gen arty_a7 "${ladder4[@]}"
if [[ $check == --check ]]; then
  for b in icebreaker ulx3s arty_a7; do
    diff -q "fpga/$b/xf_system_top.sv" "$out/$b/xf_system_top.sv" > /dev/null || {
      echo "fpga_machines: fpga/$b/xf_system_top.sv is stale; run scripts/fpga_machines.sh" \
           "$GEN and commit it" >&2; exit 1; }
  done
  echo "fpga_machines: the boards' machines are up to date"
fi
