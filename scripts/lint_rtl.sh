#!/usr/bin/env bash
# Lints every RTL file with Verilator -Wall (zero warnings allowed).
# 1. The packages, through a lint-only top that imports them (a package needs a user).
# 2. Every module top in rtl/ with all of rtl/*.sv, so each module is elaborated with its
#    default parameters and every module it instantiates (with the parameters used there).
# 3. xf_switch with the harness's 16 links.
# 4. The flit-width blocks at the narrow widths (FlitBits 32 and 64; step 2 lints them at the
#    default 128): the link, its array, the XB, the router, the exchange, the switch (also with
#    16 links), the chip, the tile, its parts and the ALU, each with -GFlitBits=N.
# 5. The chip and the switch with SyncBuffers at 1 (the buffers' block RAM form), FlitBits 32.
set -euo pipefail
cd "$(dirname "$0")/.."
mapfile -t files < <(ls rtl/*.sv)
pkgs=()
for f in "${files[@]}"; do
  if grep -qE '^package ' "$f"; then pkgs+=("$f"); fi
done
mods=()
for f in "${files[@]}"; do
  if ! grep -qE '^package ' "$f"; then mods+=("$f"); fi
done
# Packages first so that modules can refer to them.
ordered=("${pkgs[@]}" "${mods[@]}")
mkdir -p build/lint
cat > build/lint/xf_lint_top.sv <<'SV'
module xf_lint_top import xf_defs_pkg::*; (output logic [3:0] opc_o);
  assign opc_o = OPCODE_WRITE;
endmodule
SV
verilator --lint-only -Wall --assert -Irtl --top-module xf_lint_top "${pkgs[@]}" \
  build/lint/xf_lint_top.sv
for f in "${mods[@]}"; do
  top=$(basename "$f" .sv)
  verilator --lint-only -Wall --assert -Irtl --top-module "$top" "${ordered[@]}"
done
# 3. xf_switch as the machine harness builds it (CMakeLists.txt, sw/backends/rtl/rtl_system.hpp).
verilator --lint-only -Wall --assert -Irtl --top-module xf_switch -GNumLinks=16 "${ordered[@]}"
# 4. The narrow flit widths (docs/packets.md section 2).
width_tops=(xf_link xf_link_array xf_xb xf_router xf_exchange xf_switch xf_chip xf_tile xf_tile_send
  xf_tile_recv xf_tile_seq xf_reduce_alu)
for w in 32 64; do
  for top in "${width_tops[@]}"; do
    verilator --lint-only -Wall --assert -Irtl --top-module "$top" -GFlitBits=$w "${ordered[@]}"
  done
  verilator --lint-only -Wall --assert -Irtl --top-module xf_switch -GNumLinks=16 -GFlitBits=$w \
    "${ordered[@]}"
done
# 5. The buffers' block RAM form (SyncBuffers = 1, docs/fpga.md section 10), at 32 bits as the
# tests build it: the chip and the switch pass it down to every block that takes it.
sync_tops=(xf_chip xf_switch)
for top in "${sync_tops[@]}"; do
  verilator --lint-only -Wall --assert -Irtl --top-module "$top" -GFlitBits=32 \
    "-GSyncBuffers=1'b1" "${ordered[@]}"
done
echo "lint: ${#files[@]} RTL files (${#pkgs[@]} packages, ${#mods[@]} module tops, xf_switch with" \
  "16 links; ${#width_tops[@]} tops also at FlitBits 32 and 64, ${#sync_tops[@]} with" \
  "SyncBuffers = 1) clean under verilator --lint-only -Wall"
