#!/usr/bin/env bash
# End-to-end tests of the fabric command: good runs pass and print a row, bad arguments exit 2
# with a message that says what to do, --input/--output round-trip raw little-endian files.
# Usage: scripts/test_fabric_cli.sh PATH/TO/fabric
set -uo pipefail
FABRIC=${1:?usage: test_fabric_cli.sh PATH/TO/fabric}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
pass=0
fail=0

# (cat -v: the tests below pass control characters; the log shows them as ^[ and the like)
ok() { echo "  ok   $1" | cat -v; pass=$((pass + 1)); }
bad() { echo "  FAIL $1" | cat -v; fail=$((fail + 1)); }

# expect RC PATTERN -- ARGS...: exit code and a regex the combined output must match; with
# limit=S before it (limit=10 expect ...), the command must also finish within S seconds.
expect() {
  local rc=$1 pat=$2
  shift 3
  local out
  out=$(timeout "${limit:-0}" "$FABRIC" "$@" 2>&1)
  local got=$?
  if [ "$got" -eq "$rc" ] && grep -qE -- "$pat" <<<"$out"; then
    ok "fabric $* -> $rc"
  else
    bad "fabric $* -> expected rc $rc and /$pat/, got rc $got:"
    sed 's/^/       /' <<<"$out" | grep -v -E 'SystemC|Copyright|RESERVED|^\s*$' | head -5
  fi
}

echo "fabric CLI tests"
expect 0 ' 0 +[0-9.]+ +model$' -- run --topology ladder:8 --collective allreduce --dtype bf16 --op sum --bytes 64K
# The tuner's table: from 2 KiB the ring through the tree beats the tree method (compiler.md 10.1).
expect 0 'ring +allreduce' -- run --topology 'tree:((2,2),3,(1,4))' --collective allreduce --dtype fp32 --op sum --bytes 12K
expect 0 'tree +allreduce' -- run --topology 'tree:((2,2),3,(1,4))' --algo tree --bytes 12K
expect 0 'tree +allreduce' -- run --topology 'tree:((2,2),3,(1,4))' --bytes 1K
expect 0 'avg' -- run --topology ring:6 --dtype int8 --op avg --bytes 1000
expect 0 'ring +allreduce' -- run --topology ladder:8 --algo ring --bytes 4K
expect 0 'reduce_scatter' -- run --topology biring:5 --collective reduce_scatter --dtype int16 --op max --bytes 3000
expect 0 'broadcast' -- run --topology line:4 --collective broadcast --root 2 --dtype uint8 --bytes 777
expect 0 'step +0' -- plan --topology ring:4 --bytes 4K
expect 0 ' 0 +[0-9.]+ +model$' -- run --topology ring:4 --bytes 4K --packet-log "$tmp/plog.txt"
if [ "$(grep -vc '^#' "$tmp/plog.txt")" -gt 0 ]; then ok "--packet-log wrote packets"; else bad "--packet-log empty"; fi
expect 2 'unknown topology' -- run --topology torus:8 --bytes 4K
expect 2 'even number' -- run --topology ladder:7 --bytes 4K
expect 2 'not a multiple' -- run --topology ring:4 --dtype fp32 --bytes 4097
expect 2 'integer types' -- run --topology ring:4 --dtype fp32 --op avg --bytes 4K
expect 2 'unknown dtype' -- run --topology ring:4 --dtype fp64 --bytes 4K
expect 2 'unknown op' -- run --topology ring:4 --op prod --bytes 4K
expect 2 'unknown option' -- run --topology ring:4 --bytez 4K
expect 2 'topology is required' -- run --bytes 4K
expect 0 ' 64K +16384 +fp32 +sum ' -- run --topology ring:4  # --bytes 64K, allreduce fp32 sum
expect 2 'choose model, rtl, both or serial' -- run --topology ring:4 --bytes 4K --backend fpga
expect 2 'the RTL chip has 4 tiles' -- run --topology ring:4 --bytes 4K --tiles 8 --backend rtl
# A machine beyond the Verilated nodes (4 links per chip, 16 per switch): the limit once, in one
# line without the usage text, from fabric run and from the communicator (fabric train).
expect 2 'use --backend model' -- run --topology tree:17 --bytes 4K --backend both
out=$("$FABRIC" run --topology tree:17 --bytes 4K --backend rtl 2>&1 |
  grep -v -E 'SystemC|Copyright|RESERVED|^\s*$')
if [ "$out" = "fabric: --topology tree:17: switch node 17 has 17 ports; the RTL switch has 16;\
 use --backend model for it" ]; then
  ok "a 17-port switch is refused in one line"
else
  bad "a 17-port switch: expected one line naming the limit, got:"
  sed 's/^/       /' <<<"$out" | head -5
fi
limit=60 expect 1 \
  '^fabric train: error: backend rtl: tree:\(2,\(1,16\)\): switch node 23 has 17 ports; the RTL sw' \
  -- train --topology 'tree:(2,(1,16))' --backend rtl --epochs 1
# Co-simulation subset: every topology kind, every collective, five types, all four ops, each
# run on the model and the RTL: memories bit-identical, every packet stream identical, cycles
# equal (fabric --backend both fails otherwise).
cosim='memories bit-identical; [0-9]+ streams, [0-9]+ packets identical'
expect 0 "$cosim" -- run --topology ring:2 --bytes 2K --tiles 1 --backend both
# Held XB sessions off (docs/compiler.md section 8.4): the ladder's planes close every session.
expect 0 "$cosim" -- run --topology ladder:4 --bytes 4K --no-hold --backend both
expect 0 "$cosim" -- run --topology ring:4 --collective allreduce --dtype fp32 --op sum \
  --bytes 4K --tiles 2 --backend both
expect 0 "$cosim" -- run --topology biring:4 --collective reduce_scatter --dtype int16 --op max \
  --bytes 2K --tiles 2 --backend both
expect 0 "$cosim" -- run --topology ladder:4 --collective all_gather --dtype bf16 --bytes 4K \
  --backend both
expect 0 "$cosim" -- run --topology line:3 --collective broadcast --root 1 --dtype uint8 \
  --bytes 1K --tiles 2 --backend both
expect 0 "$cosim" -- run --topology 'tree:((2,1),3)' --collective allreduce --dtype fp16 \
  --op min --bytes 2K --tiles 2 --backend both
expect 0 "$cosim" -- run --topology ring:5 --collective allreduce --dtype int8 --op avg \
  --bytes 1K --tiles 1 --backend both
expect 0 "$cosim" -- run --topology ring:4 --collective reduce --root 2 --dtype int32 --op sum \
  --sat --bytes 2K --tiles 2 --backend both
expect 0 'ladder:8 butterfly +allreduce' -- run --topology ladder:8 --dtype bf16 --bytes 256
expect 0 "$cosim" -- run --topology ladder:8 --dtype bf16 --bytes 256 --backend both
expect 0 "$cosim" -- run --topology 'tree:(1,3)' --algo butterfly --dtype int8 --op max \
  --bytes 1K --tiles 2 --backend both
# Narrow flits (docs/packets.md section 2): every topology kind and every collective at 64 and
# at 32 bits, in lock step with the model as above.
for w in 64 32; do
  expect 0 "$cosim" -- run --flit-bits $w --topology ring:4 --collective allreduce --dtype fp32 \
    --bytes 2K --tiles 2 --backend both
  expect 0 "$cosim" -- run --flit-bits $w --topology biring:4 --collective reduce_scatter \
    --dtype int16 --op max --bytes 2K --tiles 2 --backend both
  expect 0 "$cosim" -- run --flit-bits $w --topology ladder:4 --collective all_gather \
    --dtype bf16 --bytes 2K --backend both
  expect 0 "$cosim" -- run --flit-bits $w --topology line:3 --collective broadcast --root 1 \
    --dtype uint8 --bytes 1K --tiles 2 --backend both
  expect 0 "$cosim" -- run --flit-bits $w --topology 'tree:((2,1),3)' --collective reduce \
    --root 2 --dtype fp16 --op min --bytes 2K --tiles 2 --backend both
  expect 0 "$cosim" -- run --flit-bits $w --topology ring:5 --collective allreduce --dtype int8 \
    --op avg --bytes 1K --tiles 1 --backend both
  expect 0 "$cosim" -- run --flit-bits $w --topology ladder:8 --dtype bf16 --bytes 256 \
    --backend both
done
expect 2 'use 32, 64 or 128' -- run --flit-bits 48 --topology ring:2 --bytes 1K
# Wide switches (Verilated with 16 links): a 9-port switch under a 1-port root, and a 5-port
# switch beside a 3-level subtree.
expect 0 "$cosim" -- run --topology 'tree:(8)' --collective allreduce --dtype bf16 --op sum \
  --bytes 4K --tiles 2 --backend both
expect 0 "$cosim" -- run --topology 'tree:((2,(1,3)),4)' --collective allreduce --dtype int16 \
  --op max --bytes 4K --tiles 2 --backend both
# The two held-out cycle mismatches (docs/cosim.md section 2): a tile-bound credit and a
# link-bound flit behind a waiting tile-bound one (ladder), the XB's count of the flit in the
# router's stage (ring butterfly through transit traffic).
expect 0 "$cosim" -- run --topology ladder:8 --collective allreduce --dtype int16 --op avg \
  --bytes 1762 --seed 20431 --backend both
expect 0 "$cosim" -- run --topology ring:4 --collective allreduce --dtype int16 --op min \
  --bytes 30734 --seed 22819 --algo butterfly --backend both
# The butterfly off powers of two: chips 4 and 5 fold into 0 and 1 and get the result back.
expect 0 "$cosim" -- run --topology ring:6 --algo butterfly --dtype fp16 --bytes 600 --backend both
expect 0 ' 0 +[0-9.]+ +rtl$' -- run --topology tree:3 --dtype int8 --op max --bytes 1K --tiles 1 --backend rtl
# Every topology kind under injected link faults (docs/reliability.md): the retry layer hides them,
# so outputs and every packet stream stay bit-identical to the model's (also faulty) run; cycles
# are not compared. A hang would fail on the watchdog.
faulty="not compared under faults[)]; memories bit-identical; [0-9]+ streams"
expect 0 "$faulty" -- run --topology ring:4 --bytes 2K --tiles 2 --backend both \
  --faults wer=1e-2,drop=1e-3,seed=11
expect 0 "$faulty" -- run --topology biring:4 --collective reduce_scatter --dtype int16 --op max \
  --bytes 2K --tiles 1 --backend both --faults ber=5e-5,stall=0.1,seed=12
expect 0 "$faulty" -- run --topology ladder:4 --collective all_gather --dtype bf16 --bytes 2K \
  --tiles 1 --backend both --faults drop=1e-2,down=1e-3,downlen=200,seed=13
expect 0 "$faulty" -- run --topology line:3 --collective broadcast --root 1 --dtype uint8 \
  --bytes 1K --tiles 2 --backend both --faults wer=3e-3,stall=0.05,seed=14
expect 0 "$faulty" -- run --topology 'tree:((2,1),3)' --collective allreduce --dtype fp16 \
  --op min --bytes 1K --tiles 1 --backend both --faults wer=1e-2,drop=3e-3,stall=0.05,seed=15
expect 0 "$faulty" -- run --topology ring:5 --collective allreduce --dtype int8 --op avg \
  --bytes 512 --tiles 1 --backend both --faults wer=1e-2,down=2e-4,downlen=1000,seed=16
expect 0 '# faults model: words [1-9]' -- run --topology ring:4 --bytes 4K --faults wer=1e-2,seed=3
expect 2 'not a probability' -- run --topology ring:4 --bytes 4K --faults wer=2
expect 2 "unknown key 'flip'" -- run --topology ring:4 --bytes 4K --faults flip=1e-3
expect 2 'is not key=value' -- run --topology ring:4 --bytes 4K --faults wer
# Waves: --trace writes one FST file (GTKWave) holding every node; model runs have none.
expect 0 "$cosim" -- run --topology ring:2 --bytes 1K --tiles 1 --backend both --trace "$tmp/w.fst"
if [ "$(head -c 1 "$tmp/w.fst" | od -An -tx1 | tr -d ' ')" = "00" ] &&
  [ "$(stat -c %s "$tmp/w.fst")" -gt 10000 ]; then
  ok "--trace wrote an FST file ($(stat -c %s "$tmp/w.fst") bytes)"
else
  bad "--trace did not write an FST file at $tmp/w.fst"
fi
expect 2 "records the RTL's waves" -- run --topology ring:2 --bytes 1K --trace "$tmp/m.fst"
expect 1 'does its directory exist' -- run --topology ring:2 --bytes 1K --backend rtl \
  --trace "$tmp/no/such/dir/w.fst"
expect 2 'needs a tree' -- run --topology ring:4 --bytes 4K --algo tree
expect 2 'root' -- run --topology ring:4 --bytes 4K --collective broadcast --root 4
expect 2 'unknown suffix' -- run --topology ring:4 --bytes 4Q
expect 2 'tiles .99. must be a whole number from 1 to 16' -- run --topology ring:4 --bytes 4K --tiles 99
expect 2 'seed .abc. must be' -- run --topology ring:4 --bytes 4K --seed abc
expect 2 'root .x. must be' -- run --topology ring:4 --bytes 4K --collective reduce --root x
expect 0 'ring +allreduce' -- run --topology ring:4 --bytes 4K --tiles 1 --seed 0x2a

# --input / --output: known data in, the exact sum out.
mkdir -p "$tmp/in" "$tmp/out"
python3 - "$tmp/in" <<'PY'
import struct, sys
for c in range(4):
    with open(f"{sys.argv[1]}/chip{c}.bin", "wb") as f:
        f.write(b"".join(struct.pack("<i", c * 1000 + i) for i in range(1000)))
PY
expect 0 ' 0 +[0-9.]+ +model$' -- run --topology ring:4 --dtype int32 --op sum --bytes 4000 --input "$tmp/in" --output "$tmp/out"
if python3 - "$tmp/out" <<'PY'
import struct, sys
for c in range(4):
    data = open(f"{sys.argv[1]}/chip{c}.bin", "rb").read()
    vals = struct.unpack("<1000i", data)
    assert vals == tuple(6000 + 4 * i for i in range(1000)), f"chip {c} wrong"
PY
then ok "--output holds the exact sum on every chip"; else bad "--output contents"; fi
head -c 8 /dev/zero > "$tmp/in/chip1.bin"
expect 2 'has 8 bytes, expected 4000' -- run --topology ring:4 --dtype int32 --bytes 4000 --input "$tmp/in"

# fabric bench: a sweep on the model and one RTL point, CSV and JSON; bad arguments.
expect 0 '# 6 points, 0 failed' -- bench --topology ring:4 --topology 'tree:((2,1),3)' \
  --min-bytes 8 --max-bytes 32 --dtype int32 --csv "$tmp/b.csv" --json "$tmp/b.json"
if python3 - "$tmp/b.csv" "$tmp/b.json" <<'PY'
import csv, json, sys
rows = list(csv.DictReader(open(sys.argv[1])))
js = json.load(open(sys.argv[2]))
assert len(rows) == 6 and len(js) == 6, (len(rows), len(js))
assert [int(r["bytes"]) for r in rows] == [8, 16, 32] * 2
for r, j in zip(rows, js):
    assert int(r["cycles"]) == j["cycles"] > 0 and j["ok"] and j["wrong"] == 0
    assert abs(j["eff"] * j["cycles"] - j["bound_cycles"]) < 0.06  # bound printed to 0.1
PY
then ok "bench CSV and JSON agree, 6 rows, every point checked"; else bad "bench CSV/JSON"; fi
expect 0 '# 1 points, 0 failed' -- bench --topology ring:2 --min-bytes 1K --max-bytes 1K \
  --tiles 1 --backend rtl
expect 2 'use --min-bytes and --max-bytes' -- bench --topology ring:4 --bytes 4K
expect 2 'not a multiple of the fp32 element size' -- bench --topology ring:4 --min-bytes 6
expect 2 'need 0 < min <= max' -- bench --topology ring:4 --min-bytes 1K --max-bytes 64
expect 2 'choose model or rtl' -- bench --topology ring:4 --backend both
expect 2 'is for fabric run' -- bench --topology ring:4 --faults wer=1e-3
expect 2 'is for fabric bench' -- run --topology ring:4 --bytes 4K --csv "$tmp/x.csv"
expect 2 'only bench takes several' -- run --topology ring:4 --topology ring:2 --bytes 4K
expect 2 'does the directory exist' -- bench --topology ring:4 --csv /nonexistent/dir/b.csv

# Wide switches on the model (issue 26, class 1): 16, 32 and 64-port switch nodes load and run
# (the Config register's 4-bit port field saturates; the Ports register has the count); a node
# wider than a one-byte routing-table entry can name is refused before planning.
expect 0 ' 0 +[0-9.]+ +model$' -- run --topology tree:16 --bytes 64
expect 0 ' 0 +[0-9.]+ +model$' -- run --topology 'tree:(15,1)' --bytes 256
expect 0 ' 0 +[0-9.]+ +model$' -- run --topology 'tree:(2,(16,1))' --bytes 1K --tiles 2
expect 0 ' 0 +[0-9.]+ +model$' -- run --topology tree:32 --bytes 512 --tiles 1
expect 0 ' 0 +[0-9.]+ +model$' -- run --topology tree:64 --bytes 1K --tiles 1
expect 0 ' 0 +[0-9.]+ +model$' -- run --topology tree:64 --algo ring --bytes 1K --tiles 1
limit=10 expect 2 'node 256 has 256 ports.*at most 255 ports' -- plan --topology tree:256 --bytes 64

# Sizes and counts (class 2): a sign, a fraction or an overflow is a usage error naming the option,
# in every subcommand.
expect 2 "^fabric: --bytes '-4' is not a size" -- run --topology ring:4 --dtype int32 --bytes -4
expect 2 "^fabric: --bytes '-4' is not a size" -- plan --topology ring:4 --dtype int32 --bytes -4
expect 2 "^fabric: --bytes '\+4K' is not a size" -- run --topology ring:4 --bytes +4K
expect 2 "^fabric: --bytes '1.5K' is not a whole number of bytes" -- run --topology ring:4 --bytes 1.5K
expect 2 "^fabric: --bytes '20000000000G' is too large" -- run --topology ring:4 --bytes 20000000000G
expect 2 "^fabric: --chunk '-16' is not a size" -- run --topology ring:4 --bytes 4K --chunk -16
expect 2 "^fabric: --chunk '32M' is too large: at most 16M" -- run --topology ring:4 --bytes 4K --chunk 32M
expect 2 "^fabric: --min-bytes '-4' is not a size" -- bench --topology ring:4 --min-bytes -4
expect 2 "^fabric: --max-bytes '0.5M' is not a whole" -- bench --topology ring:4 --max-bytes 0.5M
expect 2 "^fabric: --tiles '\+2' must be a whole number" -- run --topology ring:4 --bytes 4K --tiles +2
expect 2 "^fabric: --seed '-1' must be a whole number" -- run --topology ring:4 --bytes 4K --seed -1
expect 2 "^fabric: --root '1.0' must be a whole number" -- run --topology ring:4 --bytes 4K \
  --collective broadcast --root 1.0
expect 2 "downlen=-5 is not a whole number" -- run --topology ring:4 --bytes 4K --faults downlen=-5
expect 2 "^fabric train: --epochs '-1' must be a whole number" -- train --epochs -1
expect 2 "^fabric train: --batch '1e9' must be a whole number" -- train --batch 1e9
expect 2 "^fabric average-study: --trials '2.5' must be a whole number" -- average-study --trials 2.5
expect 2 "^fabric average-study: --max-chips '-8' must be" -- average-study --max-chips -8

# Input paths that are not regular files (class 3) are usage errors naming --input and the file;
# control characters from the user or a topology file are printed escaped.
mkdir -p "$tmp/dirin/chip0.bin" "$tmp/fifoin"
mkfifo "$tmp/fifoin/chip0.bin"
limit=10 expect 2 "^fabric: --input: .*/dirin/chip0.bin is a directory" -- run --topology ring:4 \
  --dtype int32 --bytes 4000 --input "$tmp/dirin"
limit=10 expect 2 "^fabric: --input: .*/fifoin/chip0.bin is a FIFO" -- run --topology ring:4 \
  --dtype int32 --bytes 4000 --input "$tmp/fifoin"
limit=10 expect 2 "^fabric: --input: .*/nodir/chip0.bin cannot be read: No such file" -- run \
  --topology ring:4 --dtype int32 --bytes 4000 --input "$tmp/nodir"
limit=10 expect 2 "file:.*/dirin: cannot open .* it is a directory" -- run --topology "file:$tmp/dirin" --bytes 4K
printf 'chips 2\nlink 0 0 1 0\x1b[2J\x07\n' > "$tmp/ctl.topo"
expect 2 "'link 0 0 1 0\\\\x1B\[2J\\\\x07'" -- run --topology "file:$tmp/ctl.topo" --bytes 4K
expect 2 "unknown topology.*ring\\\\x1B\[31m" -- run --topology $'ring\x1b[31m:4' --bytes 4K
expect 2 "unknown option --x\\\\t\\\\x7F" -- run --topology ring:4 --bytes 4K $'--x\t\x7f'
printf 'chips 2\nlink 0 0 1 1\nlink 1 0 0 1\nring 0 1\n' > "$tmp/r"$'\x1b'"[1m.topo"
expect 0 "file:.*/r\\\\x1B\\[1m.topo +ring" -- run --topology "file:$tmp/r"$'\x1b'"[1m.topo" --bytes 1K
if "$FABRIC" run --topology "file:$tmp/ctl.topo" --bytes 4K 2>&1 | LC_ALL=C grep -q $'[\x01-\x08\x0b-\x1f\x7f]'; then
  bad "a control character from a topology file reached the terminal"
else
  ok "control characters from a topology file are escaped"
fi

# Limits that the arguments decide (class 4) are checked before planning: these took 15 s and
# more than 4 GB, or more than a minute, before they failed.
limit=10 expect 2 '^fabric: the collective needs at least [0-9]+ bytes of data memory per tile but a tile has 786432' \
  -- run --topology ring:4096 --bytes 1G
limit=10 expect 2 '^fabric: the collective needs at least 268435456 bytes of data memory per tile' \
  -- run --topology ring:4096 --bytes 4G --tiles 16
limit=10 expect 2 'needs at least' -- plan --topology ladder:4096 --bytes 1G
limit=10 expect 1 'needs at least' -- bench --topology ring:4096 --min-bytes 1G --max-bytes 1G
limit=10 expect 2 "128 chips, but the RTL nodes' routing tables hold 64" -- run --topology ring:128 \
  --bytes 4K --backend rtl

echo "fabric CLI: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
