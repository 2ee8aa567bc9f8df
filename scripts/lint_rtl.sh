#!/usr/bin/env bash
# Lints every RTL file with Verilator -Wall (zero warnings allowed).
set -euo pipefail
cd "$(dirname "$0")/.."
mapfile -t files < <(ls rtl/*.sv)
# Packages need a user to elaborate; a lint-only top that imports them keeps them checked.
mkdir -p build/lint
cat > build/lint/xf_lint_top.sv <<'SV'
module xf_lint_top import xf_defs_pkg::*; (output logic [3:0] opc_o);
  assign opc_o = OPCODE_WRITE;
endmodule
SV
verilator --lint-only -Wall --top-module xf_lint_top "${files[@]}" build/lint/xf_lint_top.sv
echo "lint: ${#files[@]} RTL files clean under verilator --lint-only -Wall"
