#!/usr/bin/env bash
# Simulator speed side by side on one collective: the SystemC model, Icarus Verilog and Verilator
# on the same generated system top (docs/simulators.md). All options: scripts/sim_speed.py --help.
# The C++ build directory comes from XF_BUILD (default build/cmake).
# Example: scripts/sim_speed.sh --topology ladder:8 --dtype bf16 --bytes 16K
set -euo pipefail
exec python3 "$(dirname "$0")/sim_speed.py" "$@"
