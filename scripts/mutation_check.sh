#!/usr/bin/env bash
# The hand mutation check of docs/cosim.md section 7: for each mutation below, a clone of HEAD
# gets that one change (one operator or condition in one RTL file) and runs `make test`; a
# mutation is caught when `make test` fails. Prints, per mutation, caught or MISSED and the first
# failing checks. One clone and build directory is reused ($BUILD/mutation), so only what the
# mutated file feeds is rebuilt (~15 min per mutation on 2 cores).
# Usage: scripts/mutation_check.sh [--quick] [BUILD_DIR] [NAME...]  (names: alu xb tile; all)
#   --quick: `make build` and ctest instead of `make test` (skips check-gen, check-format, lint
#   and the CLI checks, which a one-operator change cannot fail; ~8 min less per mutation).
set -uo pipefail
QUICK=0
if [ "${1:-}" = "--quick" ]; then
  QUICK=1
  shift
fi
BUILD=$(realpath -m "${1:-build}")
shift || true
ROOT=$(git rev-parse --show-toplevel)
WORK=$BUILD/mutation
CLONE=$WORK/src
# name | file | sed expression (must change exactly one line) | what it breaks
mutations=(
  "alu|rtl/xf_int_lane.sv|s/RED_OP_MAX: s1_res_d = (a_ext > b_ext)/RED_OP_MAX: s1_res_d = (a_i > b_i)/|integer max compares the raw bits (signed values as unsigned)"
  "xb|rtl/xf_xb.sv|s/occ >= OccBits'(XoffThresholdFlits)/occ > OccBits'(XoffThresholdFlits)/|XOFF is sent one flit later than the threshold"
  "tile|rtl/xf_tile_recv.sv|s/pkt_q.addr < {1'b0, hz_hi_i/pkt_q.addr <= {1'b0, hz_hi_i/|the hazard check's range includes the word after an unread range"
)
want=("$@")
mkdir -p "$WORK"
[ -d "$CLONE/.git" ] || git clone -q "$ROOT" "$CLONE"
git -C "$CLONE" fetch -q "$ROOT" HEAD && git -C "$CLONE" checkout -q -f FETCH_HEAD
export CCACHE_NOHASHDIR=true CCACHE_BASEDIR=$CLONE
summary=()
for m in "${mutations[@]}"; do
  IFS='|' read -r name file expr what <<< "$m"
  if [ ${#want[@]} -gt 0 ] && [[ ! " ${want[*]} " == *" $name "* ]]; then continue; fi
  git -C "$CLONE" checkout -q -f FETCH_HEAD
  before=$(md5sum < "$CLONE/$file")
  sed -i "$expr" "$CLONE/$file"
  if [ "$before" = "$(md5sum < "$CLONE/$file")" ]; then
    echo "mutation $name: the sed expression no longer matches $file; update this script"
    exit 2
  fi
  echo "mutation $name: $file: $what"
  git -C "$CLONE" diff --stat | tail -1
  log=$WORK/$name.log
  t0=$(date +%s)
  if [ $QUICK -eq 1 ]; then
    (cd "$CLONE" && make build BUILD="$WORK/build" &&
      cd "$WORK/build/cmake" && ctest --output-on-failure -j "$(nproc)") > "$log" 2>&1
  else
    (cd "$CLONE" && make test BUILD="$WORK/build" > "$log" 2>&1)
  fi
  rc=$?
  secs=$(($(date +%s) - t0))
  if [ $rc -ne 0 ]; then
    failed=$(grep -E '^\s+[0-9]+ - |FAIL |error:|%Error' "$log" | head -8 | sed 's/^/    /')
    echo "mutation $name: caught ($([ $QUICK -eq 1 ] && echo 'build + ctest' || echo 'make test') failed after ${secs} s); first failures:"
    echo "$failed"
    summary+=("$name: caught")
  else
    echo "mutation $name: MISSED (it passed in ${secs} s)"
    summary+=("$name: MISSED")
  fi
done
git -C "$CLONE" checkout -q -f FETCH_HEAD
echo "mutation check: ${summary[*]}"
