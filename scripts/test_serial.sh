#!/usr/bin/env bash
# The driver's serial backend end to end without a board (docs/fpga.md section 5): the
# Verilated ULX3S board top (build/cmake/xf_board_sim) with its UART pins on a pseudo-terminal,
# and `fabric run --backend serial:PTY` running real collectives through the bridge: results
# checked against the C++ reference, cycles (DoneCycles) equal to the model's, and the errors a
# user meets (wrong topology, tile count, type, device) worded as they should be.
# Usage: scripts/test_serial.sh PATH/TO/fabric PATH/TO/xf_board_sim
set -uo pipefail
FABRIC=${1:?usage: test_serial.sh PATH/TO/fabric PATH/TO/xf_board_sim}
SIM=${2:?usage: test_serial.sh PATH/TO/fabric PATH/TO/xf_board_sim}
tmp=$(mktemp -d)
pty=$tmp/board.pty
"$SIM" --link "$pty" --seconds 900 > "$tmp/sim.log" 2>&1 &
sim=$!
trap 'kill $sim 2>/dev/null; wait $sim 2>/dev/null; rm -rf "$tmp"' EXIT
for _ in $(seq 100); do [ -e "$pty" ] && break; sleep 0.1; done
[ -e "$pty" ] || { echo "test_serial: the simulator made no terminal:"; cat "$tmp/sim.log"; exit 1; }
top="$(dirname "$0")/../fpga/ulx3s/xf_system_top.sv"
machine=$(sed -n 's/.*"\(.*\)" in ASCII.*/\1/p' "$top")
tiles=$(sed -n 's/.*TilesPerChip = \([0-9]*\);.*/\1/p' "$top")
# the chips' flit width: gen_system names FlitBits only when it is not the default 128
flit=$(sed -n 's/^ *\.FlitBits *(\([0-9]*\)).*/\1/p' "$top" | head -1)
flit=${flit:-128}
echo "serial backend tests: the ULX3S top ($machine, $tiles tile(s) per chip, $flit-bit flits)" \
  "on $(head -1 "$tmp/sim.log" | sed 's/.*serial port //')"
pass=0
fail=0
ok() { echo "  ok   $1"; pass=$((pass + 1)); }
bad() { echo "  FAIL $1"; fail=$((fail + 1)); }
# expect RC PATTERN -- ARGS...
expect() {
  local rc=$1 pat=$2
  shift 3
  local out got
  out=$("$FABRIC" "$@" 2>&1)
  got=$?
  if [ "$got" -eq "$rc" ] && grep -qE -- "$pat" <<<"$out"; then
    ok "fabric $* -> $rc"
  else
    bad "fabric $* -> expected rc $rc and /$pat/, got rc $got:"
    grep -v -E 'SystemC|Copyright|RESERVED|^\s*$' <<<"$out" | sed 's/^/       /' | head -6
  fi
  last_out=$out
}
# The board's machine as fabric run names it: topology, flit width, tiles.
on=(--topology "$machine" --flit-bits "$flit" --tiles "$tiles")
# A collective on the board, then the same on the model: same cycles, both right.
same_cycles() {
  local row_s row_m
  expect 0 ' 0 +[0-9.]+ +serial$' -- run "${on[@]}" "$@" --backend "serial:$pty" --no-header
  row_s=$(grep ' serial$' <<<"$last_out")
  expect 0 ' 0 +[0-9.]+ +model$' -- run "${on[@]}" "$@" --no-header
  row_m=$(grep ' model$' <<<"$last_out")
  local cs cm
  cs=$(awk '{print $8}' <<<"$row_s")
  cm=$(awk '{print $8}' <<<"$row_m")
  if [ -n "$cs" ] && [ "$cs" = "$cm" ]; then
    ok "$* on the board: $cs cycles, as the model"
  else
    bad "$* on the board: '$cs' cycles, the model '$cm'"
  fi
}
same_cycles --collective allreduce --dtype fp32 --op sum --bytes 1K
same_cycles --collective allreduce --dtype fp32 --op max --bytes 256
same_cycles --collective reduce_scatter --dtype fp32 --op sum --bytes 512
same_cycles --collective all_gather --dtype uint8 --bytes 512
same_cycles --collective broadcast --root 1 --dtype int16 --bytes 256
wrong_topology=ladder:8
[ "$machine" = ladder:8 ] && wrong_topology=ring:2
expect 1 "board's machine is $machine" -- run --topology "$wrong_topology" --flit-bits "$flit" \
  --tiles "$tiles" --bytes 1K --dtype fp32 --backend "serial:$pty"
expect 1 "run with --tiles $tiles" -- run --topology "$machine" --flit-bits "$flit" --tiles 3 \
  --bytes 1K --dtype int32 --backend "serial:$pty"
wrong_flit=$((flit == 32 ? 64 : 32))
expect 1 "board's chips have $flit-bit flits, not $wrong_flit; run with --flit-bits $flit" \
  -- run --topology "$machine" --flit-bits "$wrong_flit" --tiles "$tiles" --bytes 1K \
  --backend "serial:$pty"
expect 1 "needs [0-9]+ bytes of data memory per tile" -- run "${on[@]}" --bytes 256K \
  --dtype int32 --backend "serial:$pty"
# a descriptor list longer than the board's PMEM is refused before anything is loaded
pmem=$(sed -n 's/^ *\.PmemWords *(\([0-9]*\)).*/\1/p' "$top" | head -1)
expect 1 "needs [0-9]+ words of parameter memory \(PMEM\) per tile; the board's tiles hold $pmem;" \
  -- run "${on[@]}" --collective broadcast --dtype fp32 --bytes 8K --chunk 32 \
  --backend "serial:$pty"
# the board's ALUs reduce fp32 only, without ScaleAdd (scripts/fpga_machines.sh)
expect 1 "built without int32; they reduce fp32" -- run "${on[@]}" --bytes 1K --dtype int32 \
  --backend "serial:$pty"
expect 1 "built without ScaleAdd" -- run "${on[@]}" --bytes 1K --collective sgd \
  --backend "serial:$pty"
expect 1 "cannot open $tmp/nope" -- run "${on[@]}" --bytes 1K --backend "serial:$tmp/nope"
expect 2 "needs a simulated machine" -- run "${on[@]}" --bytes 1K --backend "serial:$pty" \
  --faults wer=1e-3
expect 2 "not a serial port|name the board's serial device" -- run "${on[@]}" --bytes 1K \
  --backend "serial:"
echo "serial backend tests: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
