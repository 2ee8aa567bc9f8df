#!/usr/bin/env bash
# A ring:2 allreduce under Icarus Verilog 11, bit-exact against the SystemC model and in the
# model's cycles (docs/simulators.md section 3): gen_system writes the system top, the stimulus
# and the model's results; iverilog -g2012 -DSYNTHESIS compiles the top with
# tb/icarus/xf_system_tb.sv; vvp runs it with the DMEM loaded and checked through the backdoor.
# The testbench prints PASS only when every output byte matches and the collective's cycles
# equal the model's; anything else ends in $fatal. Kept small for make test (256 bytes, one tile
# per chip: about 45 s on the shared 2-core machine, almost all of it vvp).
#
# Usage: scripts/icarus_system.sh PATH/TO/gen_system [gen_system options, e.g. --bytes 1K]
# Outputs under build/icarus_system/. Exit status 0 on PASS, 1 otherwise.
set -euo pipefail
cd "$(dirname "$0")/.."
GEN=${1:?usage: icarus_system.sh PATH/TO/gen_system [gen_system options]}
shift
OUT=build/icarus_system
TIMEOUT=${XF_ICARUS_TIMEOUT:-900}  # seconds of vvp; a stuck time step never ends on its own
args=(--topology ring:2 --collective allreduce --dtype fp32 --op sum --bytes 256 --tiles 1 "$@")
rm -rf "$OUT" && mkdir -p "$OUT"
rc=0
"$GEN" "${args[@]}" --out "$OUT" > "$OUT/gen_system.log" 2>&1 || rc=$?
if [[ $rc != 0 ]]; then
  cat "$OUT/gen_system.log"
  echo "icarus-system: FAILED: $GEN ${args[*]} --out $OUT" >&2
  exit 1
fi
grep '^gen_system:' "$OUT/gen_system.log"
# Icarus notes on the RTL that scripts/icarus_check.sh explains; any other message is shown.
harmless='sorry: constant selects in always_\* processes|sorry: Case unique/unique0 qualities'
compile=(iverilog -g2012 -DSYNTHESIS -I rtl -I "$OUT" -s xf_system_tb -o "$OUT/icarus.vvp"
         rtl/xf_defs_pkg.sv $(scripts/rtl_files.sh xf_chip) rtl/xf_switch.sv
         "$OUT/xf_system_top.sv" tb/icarus/xf_system_tb.sv)
rc=0
msgs=$("${compile[@]}" 2>&1) || rc=$?
grep -vE "$harmless" <<< "$msgs" || true
if [[ $rc != 0 ]]; then
  echo "icarus-system: FAILED to compile: ${compile[*]}" >&2
  exit 1
fi
run=(vvp -n "$OUT/icarus.vvp" "+stim=$OUT" +backdoor)
start=$(date +%s)
rc=0
timeout "$TIMEOUT" "${run[@]}" > "$OUT/vvp.log" 2>&1 || rc=$?
secs=$(( $(date +%s) - start ))
if [[ $rc != 0 ]] || ! grep -q '^PASS' "$OUT/vvp.log"; then
  tail -20 "$OUT/vvp.log"
  [[ $rc == 124 ]] && echo "icarus-system: vvp stopped after $TIMEOUT s" >&2
  echo "icarus-system: FAILED (exit $rc); reproduce: ${compile[*]} && ${run[*]}" >&2
  exit 1
fi
echo "icarus-system: $(grep '^collective cycles' "$OUT/vvp.log"), $(grep '^PASS' "$OUT/vvp.log")" \
  "(vvp ${secs} s)"
