#!/usr/bin/env bash
# Yosys synthesis of the chip top (rtl/xf_chip.sv) in a user-chosen configuration: a generic
# `synth` and an iCE40 `synth_ice40 -noflatten`, run in parallel, then one table of the totals
# over the hierarchy (identical tiles are mapped once and counted once per instance). Used by
# `make synth-chip`; the default is the 4-tile, 4-link chip with small memories.
# Environment: TILES LINKS IMEM_WORDS PMEM_WORDS DMEM_BYTES TABLE_CHIPS. Outputs: build/synth_chip/.
set -euo pipefail
cd "$(dirname "$0")/.."
tiles=${TILES:-4} links=${LINKS:-4} imem=${IMEM_WORDS:-64} pmem=${PMEM_WORDS:-64}
dmem=${DMEM_BYTES:-4096} table=${TABLE_CHIPS:-64}
out=build/synth_chip
rm -rf "$out" && mkdir -p "$out"
cp="-set NumTiles $tiles -set NumLinks $links -set ImemWords $imem -set PmemWords $pmem"
cp+=" -set DmemBytes $dmem -set TableChips $table"
read_cmd="read_verilog -sv -DSYNTHESIS -I rtl rtl/xf_defs_pkg.sv $(scripts/rtl_files.sh xf_chip)"
echo "synth-chip: xf_chip with $tiles tiles, $links links, IMEM $imem x 64, PMEM $pmem x 32," \
  "DMEM $dmem bytes, $table table chips, 128-bit flits; Yosys $(yosys -V | awk '{print $2}')"
run() {  # <target> <synth command>
  local t0 t1
  t0=$(date +%s)
  yosys -q -l "$out/$1.log" -p "$read_cmd; chparam $cp xf_chip; $2; tee -q -o $out/$1.stat stat" \
    > /dev/null 2>&1 || { echo "synth-chip: ERROR: Yosys failed ($1), see $out/$1.log" >&2;
                          tail -5 "$out/$1.log" >&2; return 1; }
  t1=$(date +%s)
  echo $((t1 - t0)) > "$out/$1.wall"
}
run gen "synth -top xf_chip" &
pid_gen=$!
run ice40 "synth_ice40 -noflatten -top xf_chip" &
pid_ice=$!
rc=0
wait $pid_gen || rc=1
wait $pid_ice || rc=1
[[ $rc == 0 ]] || exit 1
# Totals of the hierarchy section at the end of a stat report (instances counted).
count() {
  awk -v re="$2" '
    /design hierarchy/ { h = 1; delete c }
    h && $1 ~ ("^(" re ")$") && $2 ~ /^[0-9]+$/ { c[$1] = $2 }
    END { s = 0; for (k in c) s += c[k]; print s }' "$1"
}
cells() { grep 'Number of cells:' "$1" | tail -1 | awk '{print $4}'; }
g=$out/gen.stat
i=$out/ice40.stat
printf '%-10s %10s %9s %8s %8s %6s %9s\n' target cells LUT4 carry FF BRAM "wall s"
printf '%-10s %10s %9s %8s %8s %6s %9s\n' generic "$(cells "$g")" - - \
  "$(count "$g" '\$_[A-Z]*DFF[A-Z_]*_')" - "$(cat "$out/gen.wall")"
printf '%-10s %10s %9s %8s %8s %6s %9s\n' iCE40 "$(cells "$i")" "$(count "$i" SB_LUT4)" \
  "$(count "$i" SB_CARRY)" "$(count "$i" 'SB_DFF[A-Z]*')" "$(count "$i" SB_RAM40_4K)" \
  "$(cat "$out/ice40.wall")"
