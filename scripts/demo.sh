#!/usr/bin/env bash
# make demo: builds the fabric tool alone (not the tests), then runs collectives on the SystemC
# golden model, one nccl-tests style row each, then the same kinds of collectives on the RTL
# (Verilated chips and switch nodes) in lock step with the model: rows side by side, memories,
# packet streams and cycle counts compared exactly. One progress line per stage; the compiler's
# output goes to build/demo/build.log.
# Usage: scripts/demo.sh CMAKE_BUILD_DIR [JOBS]
set -euo pipefail
DIR=${1:?usage: demo.sh CMAKE_BUILD_DIR [JOBS]}
JOBS=${2:-$(nproc)}
FABRIC=$DIR/fabric
filter() { grep -v -E 'SystemC|Copyright|RESERVED|^\s*$' || true; }
mkdir -p build/demo
t_start=$SECONDS

# stage N TITLE COMMAND...: one progress line, the command's output into the build log, and the
# log's tail with the failing command if it fails.
stage() {
  local title=$1
  shift
  local t0=$SECONDS
  printf 'demo: %s ... ' "$title"
  if ! "$@" >> build/demo/build.log 2>&1; then
    echo "failed"
    echo "demo: '$*' failed; the end of build/demo/build.log:" >&2
    tail -n 30 build/demo/build.log >&2
    exit 1
  fi
  echo "done in $((SECONDS - t0)) s"
}
: > build/demo/build.log
# The demo runs 128-bit flits: the chip of the other widths is make test's (XF_FLIT_WIDTHS).
stage "[1/4] configuring (cmake)" cmake -S . -B "$DIR" -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DXF_FLIT_WIDTHS=128
[ -x "$FABRIC" ] || echo "demo: the first build Verilates the chip and the switch and compiles" \
  "them: several minutes on 2 cores (ccache makes later builds fast)"
stage "[2/4] building fabric (library, SystemC model, Verilated chip)" \
  scripts/cmake_build.sh "$DIR" --target fabric -j "$JOBS"
echo "demo: [3/4] collectives on the SystemC model"

runs=(
  "8-chip ladder allreduce, bf16 (ladder patent: four directed rings)|--topology ladder:8 --collective allreduce --dtype bf16 --op sum --bytes 256K"
  "same vector on biring:8 and ring:8 (two and one channels)|--topology biring:8 --collective allreduce --dtype bf16 --op sum --bytes 256K"
  "|--topology ring:8 --collective allreduce --dtype bf16 --op sum --bytes 256K"
  "line streaming allreduce baseline (ladder patent fig. 1A)|--topology line:8 --collective allreduce --dtype bf16 --op sum --bytes 256K"
  "asymmetric tree allreduce (tree patent), fp32|--topology tree:((2,2),3,(1,4)) --collective allreduce --dtype fp32 --op sum --bytes 48K"
  "averaging of int8 over 6 chips (averaging patent: pairwise averages, one extra bit)|--topology ring:6 --collective allreduce --dtype int8 --op avg --bytes 16K"
  "reduce-scatter and all-gather on the ladder, int16 max|--topology ladder:8 --collective reduce_scatter --dtype int16 --op max --bytes 64K"
  "|--topology ladder:8 --collective all_gather --dtype int16 --op max --bytes 64K"
  "64-chip ladder, 1 MiB per chip (the model scales beyond RTL simulation)|--topology ladder:64 --collective allreduce --dtype fp32 --op sum --bytes 1M"
)
first=1
for r in "${runs[@]}"; do
  title=${r%%|*}
  args=${r#*|}
  [ -n "$title" ] && echo && echo "== $title"
  hdr=--no-header
  [ -n "$title" ] && hdr=
  # shellcheck disable=SC2086
  "$FABRIC" run $args $hdr 2>&1 | filter
  first=0
done

echo
echo "== data-parallel training on 8 chips with the sharded update of the sharded-update patent (fabric train)"
"$FABRIC" train --topology ladder:8 --png build/demo/train_loss.png 2>&1 | filter

echo
echo "demo: [4/4] the RTL in lock step with the model (fabric --backend both; one run at a time)"
rtl_runs=(
  "8-chip ladder allreduce, bf16|--topology ladder:8 --collective allreduce --dtype bf16 --op sum --bytes 16K"
  "8-chip ladder allreduce, fp32|--topology ladder:8 --collective allreduce --dtype fp32 --op sum --bytes 16K"
  "asymmetric tree allreduce through switch nodes, fp32|--topology tree:((2,1),3) --collective allreduce --dtype fp32 --op sum --bytes 8K"
  "pairwise averaging of int8 over 6 chips|--topology ring:6 --collective allreduce --dtype int8 --op avg --bytes 4K --tiles 2"
)
i=0
for r in "${rtl_runs[@]}"; do
  i=$((i + 1))
  title=${r%%|*}
  args=${r#*|}
  echo
  echo "-- [$i/${#rtl_runs[@]}] $title"
  # shellcheck disable=SC2086
  "$FABRIC" run $args --backend both 2>&1 | filter
done
echo
echo "demo: every row above was checked bit for bit against the C++ reference (#wrong = 0);"
echo "      each RTL run also matched the model's memories, packet streams and cycles exactly."
echo "demo: done in $((SECONDS - t_start)) s"
