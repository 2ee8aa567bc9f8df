#!/usr/bin/env bash
# make coverage: line and toggle coverage of rtl/ from every test that runs the RTL, merged, per
# file, against the bar of docs/cosim.md section 5 (95 % of line points, 90 % of toggle points on
# every file, after the reviewed waivers of tests/coverage_waivers.txt).
#   1. builds, in $BUILD/coverage (its own directory, no waves), fabric and the RTL block tests
#      (tests/test_rtl_*.cpp but the long ALU regression) with Verilator line and toggle
#      coverage (docs/cosim.md section 6 gives the time);
#   2. runs the block tests (each must pass; each process writes one merged file through
#      sw/backends/rtl/coverage.hpp), JOBS at a time;
#   3. runs the co-simulation set below on the RTL in lock step with the model (each must pass);
#   4. with COVERAGE_FUZZ=1, adds the fuzz seeds and corpus (scripts/fuzz.sh coverage, its own
#      build of the ingress path);
#   5. merges the counts (verilator_coverage --write), writes annotated sources under
#      $BUILD/coverage/annotated/ and prints the table (scripts/coverage_report.py), failing when
#      a file is under the bar.
# Usage: scripts/coverage.sh [BUILD_DIR]   (COVERAGE_ARGS: more options for coverage_report.py,
#        e.g. --no-bar to print the table without failing)
set -euo pipefail
BUILD=${1:-build}
DIR=$BUILD/coverage
JOBS=${JOBS:-$(nproc)}
mkdir -p "$DIR"
t_start=$(date +%s)
# What each Verilated class counts (CMakeLists.txt, docs/cosim.md section 5): the chip every file
# but the ALU's (tests/coverage_alu_off.vlt), the switch its own file (tests/coverage_switch.vlt),
# a block test's default class line and toggle points, its other classes (widths, ALU unit
# subsets) line points; the ALU's files only in its own test. The chip and switch at 128 bits
# only: the block tests cover the 64- and 32-bit generate branches of the blocks they test.
# -O1 without -g: -O2 -g takes about twice as long on the Verilated C++ with its counters.
cmake -S . -B "$DIR" -DCMAKE_BUILD_TYPE=Release -DCMAKE_CXX_FLAGS_RELEASE=-O1 -DXF_COVERAGE=ON \
  -DXF_FLIT_WIDTHS=128 > "$DIR/configure.log" 2>&1 || { cat "$DIR/configure.log"; exit 1; }
tests=(test_rtl_alu test_rtl_exchange test_rtl_link test_rtl_router test_rtl_tile test_rtl_uart
  test_rtl_xb test_rtl_chip)
echo "coverage: building fabric and ${#tests[@]} block tests with line and toggle coverage in" \
  "$DIR (from nothing: about 13 min on 2 cores)"
scripts/cmake_build.sh "$DIR" -j "$JOBS" --target fabric "${tests[@]}" > "$DIR/build.log" 2>&1 ||
  { tail -30 "$DIR/build.log"; echo "coverage: build failed (log: $DIR/build.log)"; exit 1; }
t_built=$(date +%s)
rm -rf "$DIR/dat" "$DIR/annotated" && mkdir -p "$DIR/dat"

# 2. The block tests, JOBS at a time; a failing test fails the coverage run.
# The chip test runs the SystemC model, which elaborates once per process: one process per test,
# as ctest runs it, each with its own counts; its 64- and 32-bit cases need chips this build
# leaves out.
block() {
  local t=$1 dir=$2 name i=0
  if [ "$t" != test_rtl_chip ]; then
    # The ALU's three exhaustive 16-bit sweeps (*AllVsSubset: 52 s of its 70 s in make test)
    # take over 30 min with the counters on its 128-bit lanes. They sweep operand values through
    # the paths that MixedStream, DocExamples and the subset tests run with every type and op.
    local filter='*'
    [ "$t" = test_rtl_alu ] && filter='-*AllVsSubset*'
    XF_COVERAGE_DAT="$dir/dat/$t.dat" "$dir/$t" --gtest_brief=1 --gtest_filter="$filter" \
      > "$dir/dat/$t.log" 2>&1 ||
      { tail -30 "$dir/dat/$t.log"; echo "coverage: $t FAILED (log: $dir/dat/$t.log)"; return 1; }
  else
    for name in $("$dir/$t" --gtest_list_tests --gtest_filter='-*w64*:*w32*' 2> /dev/null |
                  awk '/^[^ ]/ {s = $1} /^  / {print s $1}'); do
      i=$((i + 1))
      XF_COVERAGE_DAT="$dir/dat/$t.$i.dat" "$dir/$t" --gtest_filter="$name" \
        >> "$dir/dat/$t.log" 2>&1 ||
        { tail -30 "$dir/dat/$t.log"; echo "coverage: $t $name FAILED"; return 1; }
    done
  fi
  echo "coverage: $t passed"
}
export -f block
printf '%s\n' "${tests[@]}" | xargs -P "$JOBS" -I{} bash -c 'block {} "$0"' "$DIR" ||
  { echo "coverage: a block test failed"; exit 1; }
t_blocks=$(date +%s)

# 3. Co-simulation: every topology kind, every collective, int8/uint8/int16/int32/fp16/bf16/fp32,
# all four ops, saturation, 1 to 4 tiles per chip, switch nodes with 3 and 4 ports connected,
# the sgd step (ScaleAdd), a switch with all 16 ports connected, link faults under the retry layer
# (CRC errors, replays, timeouts, discards, escalation: the links' status registers) on rings, on a
# ladder (all four ports of a chip) and on a tree (the switches' links), 64 chips (chip numbers to
# 63: the chip's table holds 64) and 512 KiB in one tile (data memory addresses and jobs of 2^14
# words).
runs=(
  "--topology ring:2 --bytes 2K --tiles 1"
  "--topology ring:4 --collective allreduce --dtype fp32 --op sum --bytes 4K --tiles 2"
  "--topology biring:4 --collective reduce_scatter --dtype int16 --op max --bytes 2K --tiles 2"
  "--topology ladder:4 --collective all_gather --dtype bf16 --bytes 4K"
  "--topology ladder:8 --collective allreduce --dtype bf16 --op sum --bytes 16K"
  "--topology line:3 --collective broadcast --root 1 --dtype uint8 --bytes 1K --tiles 2"
  "--topology tree:((2,1),3) --collective allreduce --dtype fp16 --op min --bytes 2K --tiles 2"
  "--topology tree:((2,2),3) --collective allreduce --dtype fp32 --op max --bytes 8K --tiles 4"
  "--topology ring:5 --collective allreduce --dtype int8 --op avg --bytes 1K --tiles 1"
  "--topology ring:4 --collective allreduce --dtype uint8 --op avg --bytes 2K --tiles 2"
  "--topology ring:4 --collective reduce --root 2 --dtype int32 --op sum --sat --bytes 2K --tiles 2"
  "--topology ring:3 --collective allreduce --dtype int8 --op sum --sat --bytes 3K --tiles 3"
  "--topology line:4 --collective reduce_scatter --dtype uint8 --op min --bytes 4K --tiles 4"
  "--topology ladder:4 --collective sgd --dtype fp32 --bytes 4K --tiles 2"
  "--topology tree:(15) --collective allreduce --dtype int32 --bytes 1K --tiles 1 --faults ber=1e-3,wer=3e-2,drop=2e-2,stall=5e-2,seed=15"
  "--topology ring:4 --bytes 2K --tiles 2 --faults wer=5e-2,drop=2e-2,stall=1e-3,seed=3"
  "--topology biring:4 --bytes 2K --tiles 2 --faults ber=1e-3,stall=5e-2,down=2e-3,downlen=2000,seed=7"
  "--topology ladder:4 --bytes 8K --tiles 4 --faults wer=5e-2,drop=2e-2,stall=1e-3,seed=11"
  "--topology ladder:4 --bytes 4K --tiles 4 --faults ber=1e-3,stall=5e-2,down=2e-3,downlen=2000,seed=9"
  "--topology tree:((2,2),7) --bytes 2K --tiles 1 --faults ber=1e-3,wer=3e-2,drop=2e-2,stall=5e-2,seed=5"
  "--topology ring:64 --bytes 1K --tiles 1"
  "--topology ring:2 --bytes 512K --tiles 1"
)
i=0
for r in "${runs[@]}"; do
  i=$((i + 1))
  printf 'coverage: [%2d/%d] fabric run %s --backend both\n' "$i" "${#runs[@]}" "$r"
  # shellcheck disable=SC2086
  XF_COVERAGE_DAT="$DIR/dat/run$i.dat" "$DIR/fabric" run $r --backend both --no-header \
    > "$DIR/dat/run$i.log" 2>&1 || { cat "$DIR/dat/run$i.log"; echo "coverage: run $i failed"; exit 1; }
done
t_runs=$(date +%s)

# 4. The fuzz seeds and corpus (optional: another build of the ingress path).
if [ "${COVERAGE_FUZZ:-0}" = 1 ]; then
  scripts/fuzz.sh coverage > "$DIR/dat/fuzz.log" 2>&1 ||
    { tail -20 "$DIR/dat/fuzz.log"; echo "coverage: the fuzz coverage run failed"; exit 1; }
  cp build/fuzz/cov/coverage.dat "$DIR/dat/fuzz.dat"  # fuzz.sh builds under ./build/fuzz
fi

echo "coverage: build $((t_built - t_start)) s, block tests $((t_blocks - t_built)) s," \
  "co-simulation $((t_runs - t_blocks)) s; merging"
verilator_coverage --write "$DIR/merged.dat" "$DIR"/dat/*.dat > /dev/null
verilator_coverage --annotate "$DIR/annotated" --annotate-min 1 "$DIR/merged.dat" > /dev/null
echo "coverage: annotated sources in $DIR/annotated (lines marked %000000 were never run)"
# shellcheck disable=SC2086
python3 scripts/coverage_report.py "$DIR/merged.dat" rtl --waivers tests/coverage_waivers.txt \
  --bar 95,90 ${COVERAGE_ARGS:-}
