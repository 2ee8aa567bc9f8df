#!/usr/bin/env bash
# Prints a Verilator configuration file that leaves the storage arrays out of coverage: every
# line of rtl/*.sv marked "// coverage: storage" (a memory's array; make coverage would count
# every bit of it as a toggle point). CMake writes it into the coverage build (XF_COVERAGE=ON,
# docs/cosim.md section 5). Not in-source pragmas: a `coverage_on` pragma would turn coverage back
# on in files that tests/coverage_switch.vlt turns off.
# Usage: scripts/coverage_storage_vlt.sh RTL_DIR
set -euo pipefail
echo '`verilator_config'
for f in "$1"/*.sv; do
  { grep -n "// coverage: storage" "$f" || true; } | while IFS=: read -r n _; do
    echo "coverage_off -file \"*/rtl/$(basename "$f")\" -lines $n"
  done
done
