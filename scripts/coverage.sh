#!/usr/bin/env bash
# make coverage: line and toggle coverage of rtl/ from co-simulation runs (docs/cosim.md sec. 5).
# Builds fabric with Verilator coverage in $BUILD/coverage (its own directory, no waves), runs the
# set below on the RTL in lock step with the model (each run must pass), merges the counts and
# prints coverage per RTL file. Annotated sources: $BUILD/coverage/annotated/.
# Usage: scripts/coverage.sh [BUILD_DIR]
set -euo pipefail
BUILD=${1:-build}
DIR=$BUILD/coverage
JOBS=${JOBS:-$(nproc)}
mkdir -p "$DIR"
# -O1 without -g: the coverage counters make ~280 MB of C++ per chip; -O2 -g takes ~40 min.
cmake -S . -B "$DIR" -DCMAKE_BUILD_TYPE=Release -DCMAKE_CXX_FLAGS_RELEASE=-O1 -DXF_COVERAGE=ON \
  > /dev/null
echo "coverage: building fabric with line and toggle coverage in $DIR (first time: ~6 min)"
scripts/cmake_build.sh "$DIR" -j "$JOBS" --target fabric > "$DIR/build.log" 2>&1 ||
  { tail -30 "$DIR/build.log"; echo "coverage: build failed (log: $DIR/build.log)"; exit 1; }
rm -rf "$DIR/dat" "$DIR/annotated" && mkdir -p "$DIR/dat"

# Every topology kind, every collective, int8/uint8/int16/int32/fp16/bf16/fp32, all four ops,
# saturation, 1 to 4 tiles per chip, switch nodes with 3 and 4 ports connected.
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
)
i=0
t0=$(date +%s)
for r in "${runs[@]}"; do
  i=$((i + 1))
  printf 'coverage: [%2d/%d] fabric run %s --backend both\n' "$i" "${#runs[@]}" "$r"
  # shellcheck disable=SC2086
  XF_COVERAGE_DAT="$DIR/dat/run$i.dat" "$DIR/fabric" run $r --backend both --no-header \
    > "$DIR/dat/run$i.log" 2>&1 || { cat "$DIR/dat/run$i.log"; echo "coverage: run $i failed"; exit 1; }
done
echo "coverage: ${#runs[@]} runs in $(($(date +%s) - t0)) s; merging"
verilator_coverage --write "$DIR/merged.dat" "$DIR"/dat/run*.dat > /dev/null
verilator_coverage --annotate "$DIR/annotated" --annotate-min 1 "$DIR/merged.dat" > /dev/null
python3 scripts/coverage_report.py "$DIR/merged.dat" rtl
echo "coverage: annotated sources in $DIR/annotated (lines marked %000000 were never run)"
