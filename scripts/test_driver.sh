#!/usr/bin/env bash
# make test's checks of the driver library and the training demo (docs/driver.md):
#   - the example program a user copies (sw/examples/allreduce.cpp);
#   - the sharded-update patent's sgd step compiled once and run on the RTL in lock step with the model
#     (fabric run --collective sgd --backend both: memories, packets and optimizer state);
#   - a few training steps on the RTL against the model and the single-process reference
#     (fabric train --backend both), and the training demo's usage errors.
# Usage: scripts/test_driver.sh PATH/TO/fabric PATH/TO/example_allreduce
set -uo pipefail
FABRIC=${1:?usage: test_driver.sh FABRIC EXAMPLE}
EXAMPLE=${2:?usage: test_driver.sh FABRIC EXAMPLE}
pass=0
fail=0
check() {  # check NAME WANT_STATUS GREP_PATTERN -- command...
  local name=$1 want=$2 pat=$3
  shift 4
  local out st
  out=$("$@" 2>&1)
  st=$?
  if [ "$st" -eq "$want" ] && grep -q -E -- "$pat" <<<"$out"; then
    pass=$((pass + 1))
    echo "ok   $name"
  else
    fail=$((fail + 1))
    echo "FAIL $name (exit $st, wanted $want; pattern '$pat'); rerun: $*"
    echo "$out" | tail -15
  fi
}
check "example program" 0 "every chip holds 36" -- "$EXAMPLE"
check "sgd step, ring:4, rtl = model" 0 "optimizer state .* bit-identical .* every chip" -- \
  "$FABRIC" run --topology ring:4 --collective sgd --bytes 2K --tiles 2 --lr 0.125 \
  --momentum 0.875 --weight-decay 0.01 --backend both
check "sgd step, ladder:4 uneven blocks, rtl = model" 0 "memories bit-identical" -- \
  "$FABRIC" run --topology ladder:4 --collective sgd --bytes 1000 --tiles 4 --backend both
check "sgd step on the model, biring:8" 0 "bit-identical to the reference" -- \
  "$FABRIC" run --topology biring:8 --collective sgd --bytes 64K --seed 3
check "sgd needs fp32 sum" 2 "fp32 --op sum" -- \
  "$FABRIC" run --topology ring:4 --collective sgd --bytes 1K --dtype bf16
check "sgd with the tree algorithm is refused" 2 "ring, biring or ladder" -- \
  "$FABRIC" run --topology ring:4 --collective sgd --bytes 1K --algo tree
check "--lr only with sgd" 2 "is for --collective sgd" -- \
  "$FABRIC" run --topology ring:4 --bytes 1K --lr 0.1
check "train: 3 steps on the RTL in lock step with the model" 0 \
  "rtl in lock step with the model: 3 steps, parameters and optimizer state bit-identical: yes" -- \
  "$FABRIC" train --topology ladder:8 --backend both --steps 3 --epochs 1
check "train: reference and identity on the model" 0 \
  "bit-identical after every step: yes; equal to the single-process reference .*: yes" -- \
  "$FABRIC" train --topology ring:4 --steps 5 --epochs 1
check "train: unknown option" 2 "unknown option --epoch" -- "$FABRIC" train --epoch 3
check "train: bad backend" 2 "choose model, rtl, both" -- "$FABRIC" train --backend gpu
check "train: batch smaller than the machine" 2 "smaller than the 8 chips" -- \
  "$FABRIC" train --batch 4
check "train: missing data" 2 "python3-sklearn" -- "$FABRIC" train --data /nonexistent.csv.gz
echo "driver: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
