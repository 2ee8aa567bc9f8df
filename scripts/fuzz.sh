#!/usr/bin/env bash
# The ingress fuzz harness (docs/fuzzing.md, tests/fuzz/fuzz_ingress.cpp): build it, run it, replay
# its seed corpus, reproduce a crash.
#
#   scripts/fuzz.sh build            configure and build build/fuzz/fuzz_ingress (clang, -j1)
#   scripts/fuzz.sh run [SECONDS]    fuzz for SECONDS (default $FUZZ_SECONDS or 600), growing the
#                                    working corpus build/fuzz/corpus from tests/fuzz_corpus;
#                                    crash inputs go to build/fuzz/crashes/; prints the final
#                                    execs, execs/s, coverage (cov) and features (ft)
#   scripts/fuzz.sh corpus           replay every input of tests/fuzz_corpus, then a short run
#                                    (FUZZ_CORPUS_SECONDS=60 or FUZZ_CORPUS_RUNS=20000, whichever
#                                    comes first, seed 1); exits non-zero on any failure
#   scripts/fuzz.sh repro FILE...    run the inputs once with the action trace (XF_FUZZ_TRACE=1)
#   scripts/fuzz.sh seeds            regenerate tests/fuzz_corpus (scripts/fuzz_corpus.py)
#   scripts/fuzz.sh coverage [DIR..] line coverage of the RTL reached by the seeds and the working
#                                    corpus (or DIRs): a build with Verilator coverage in
#                                    build/fuzz/cov, annotated sources in build/fuzz/cov/annotated
#
# Everything runs under `nice -n 10` with one job: the machine is shared. Environment:
# FUZZ_SANITIZERS (default "address,undefined"; empty for a faster build without them),
# FUZZ_JOBS (libFuzzer workers for `run`, default 1), XF_FUZZ_VIOLATIONS=1 (see the docs).
set -euo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)
bdir=$root/build/fuzz
bin=$bdir/fuzz_ingress
seeds=$root/tests/fuzz_corpus
sanitizers=${FUZZ_SANITIZERS-address,undefined}
nice=(nice -n 10)
# libFuzzer options shared by every mode: inputs up to 4 KiB, 20 s per input is a hang, stop on the
# first failure, print the final statistics.
opts=(-max_len=4096 -timeout=20 -print_final_stats=1)
export ASAN_OPTIONS=${ASAN_OPTIONS:-abort_on_error=1:detect_leaks=0}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-halt_on_error=1:abort_on_error=1:print_stacktrace=1}

build() {
  if ! command -v clang++-14 > /dev/null; then
    echo "fuzz: clang++-14 is missing (scripts/setup.sh installs it)" >&2
    exit 1
  fi
  if ! ls /usr/lib/llvm-14/lib/clang/*/lib/linux/libclang_rt.fuzzer-x86_64.a > /dev/null 2>&1; then
    echo "fuzz: libFuzzer is missing: apt-get install libclang-rt-14-dev" >&2
    exit 1
  fi
  mkdir -p "$bdir"
  # The largest Verilated function needs about 1 GB in clang; stop a runaway compile at 6 GB.
  ulimit -v 6000000
  "${nice[@]}" cmake -S tests/fuzz -B "$bdir" -DCMAKE_CXX_COMPILER=clang++-14 \
    -DXF_FUZZ_SANITIZERS="$sanitizers" > "$bdir/configure.log" ||
    { cat "$bdir/configure.log"; exit 1; }
  "${nice[@]}" scripts/cmake_build.sh "$bdir" -j 1 > "$bdir/build.log" 2>&1 ||
    { tail -40 "$bdir/build.log"; echo "fuzz: build failed (log: $bdir/build.log)" >&2; exit 1; }
  echo "fuzz: built $bin (sanitizers: fuzzer${sanitizers:+,$sanitizers})"
}

# Prints the figures of a libFuzzer log: the last status line and the final statistics.
summary() {
  local log=$1 label=$2
  local last execs rate
  last=$(grep -E '^#[0-9]+' "$log" | tail -1 || true)
  execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
  rate=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$log" | tail -1)
  echo "fuzz: $label: ${execs:-?} execs, ${rate:-?} execs/s;" \
       "$(sed -E 's/.*(cov: [0-9]+ ft: [0-9]+ corp: [^ ]+).*/\1/' <<< "$last")"
}

run() {
  local secs=${1:-${FUZZ_SECONDS:-600}}
  mkdir -p "$bdir/corpus" "$bdir/crashes"
  rm -f "$bdir"/crashes/fuzz-*.log
  local log=$bdir/run.log
  echo "fuzz: fuzzing for $secs s (log: $log, crashes: $bdir/crashes/)"
  local rc=0 jobs=()
  if [ "${FUZZ_JOBS:-1}" -gt 1 ]; then jobs=(-jobs="$FUZZ_JOBS" -workers="$FUZZ_JOBS"); fi
  # The first directory is the one libFuzzer writes new inputs to: never the committed seeds.
  (cd "$bdir/crashes" && "${nice[@]}" "$bin" "${opts[@]}" -max_total_time="$secs" \
     "${jobs[@]}" "$bdir/corpus" "$seeds") > "$log" 2>&1 || rc=$?
  if [ "${FUZZ_JOBS:-1}" -gt 1 ]; then
    # Each worker logs to fuzz-<n>.log in the crash directory: a line per worker and the total.
    local total=0 w n
    for w in "$bdir"/crashes/fuzz-*.log; do
      summary "$w" "worker $(basename "$w" .log)"
      n=$(sed -n 's/^stat::number_of_executed_units: *//p' "$w" | tail -1)
      total=$((total + ${n:-0}))
    done
    echo "fuzz: run of $secs s with $FUZZ_JOBS workers: $total execs in all"
  else
    summary "$log" "run of $secs s"
  fi
  if [ $rc -ne 0 ]; then
    grep -E 'fuzz_ingress: FAIL|ERROR: |Test unit written|assertion' "$log" | head -20 >&2 || true
    echo "fuzz: FAILED (exit $rc); reproduce: scripts/fuzz.sh repro $bdir/crashes/crash-*" >&2
    exit $rc
  fi
}

corpus() {
  local log=$bdir/corpus.log rc=0
  local files=("$seeds"/*)
  "${nice[@]}" "$bin" "${opts[@]}" "${files[@]}" > "$log" 2>&1 || rc=$?
  if [ $rc -ne 0 ]; then
    grep -E 'fuzz_ingress: FAIL|ERROR: |Running: |assertion' "$log" | tail -20 >&2 || true
    echo "fuzz: a seed input FAILED (log: $log)" >&2
    exit $rc
  fi
  echo "fuzz: replayed ${#files[@]} seed inputs: all pass"
  local work
  work=$(mktemp -d "$bdir/corpus-run.XXXXXX")
  log=$bdir/corpus-run.log
  (cd "$work" && "${nice[@]}" "$bin" "${opts[@]}" -seed=1 \
     -max_total_time="${FUZZ_CORPUS_SECONDS:-60}" -runs="${FUZZ_CORPUS_RUNS:-20000}" \
     "$work" "$seeds") > "$log" 2>&1 || rc=$?
  summary "$log" "short run"
  if [ $rc -ne 0 ]; then
    grep -E 'fuzz_ingress: FAIL|ERROR: |Test unit written|assertion' "$log" | head -20 >&2 || true
    cp "$work"/crash-* "$work"/timeout-* "$bdir/" 2> /dev/null || true
    echo "fuzz: the short run FAILED (log: $log); reproduce: scripts/fuzz.sh repro" \
         "$bdir/crash-*" >&2
    exit $rc
  fi
  rm -rf "$work"
}

coverage() {
  local cdir=$bdir/cov
  mkdir -p "$cdir"
  (ulimit -v 6000000
   "${nice[@]}" cmake -S tests/fuzz -B "$cdir" -DCMAKE_CXX_COMPILER=clang++-14 \
     -DXF_FUZZ_SANITIZERS= -DXF_FUZZ_COVERAGE=ON > "$cdir/configure.log" &&
   "${nice[@]}" scripts/cmake_build.sh "$cdir" -j 1 > "$cdir/build.log" 2>&1) ||
    { tail -20 "$cdir/build.log"; echo "fuzz: coverage build failed" >&2; exit 1; }
  local dirs=("$@")
  [ ${#dirs[@]} -gt 0 ] || dirs=("$seeds" $( [ -d "$bdir/corpus" ] && echo "$bdir/corpus"))
  rm -f "$cdir/coverage.dat"
  # -runs=0: execute every input of the directories once, then stop.
  XF_FUZZ_COVERAGE_DAT=$cdir/coverage.dat "${nice[@]}" "$cdir/fuzz_ingress" "${opts[@]}" \
    -runs=0 "$(mktemp -d "$cdir/empty.XXXXXX")" "${dirs[@]}" > "$cdir/run.log" 2>&1 ||
    { tail -20 "$cdir/run.log"; echo "fuzz: an input failed in the coverage build" >&2; exit 1; }
  rm -rf "$cdir/annotated" "$cdir"/empty.*
  verilator_coverage --annotate "$cdir/annotated" --annotate-min 1 "$cdir/coverage.dat" > /dev/null
  echo "fuzz: RTL line coverage of ${dirs[*]} (the ingress path: xf_link, xf_router," \
       "xf_tile_recv; the tile's sequencer and send engine never run here)"
  python3 scripts/coverage_report.py "$cdir/coverage.dat" rtl
  echo "fuzz: annotated sources in $cdir/annotated (%000000: never run)"
}

repro() {
  [ $# -ge 1 ] || { echo "usage: $0 repro FILE..." >&2; exit 2; }
  XF_FUZZ_TRACE=${XF_FUZZ_TRACE:-1} "$bin" "${opts[@]}" "$@"
}

cmd=${1:-}
shift || true
case "$cmd" in
  build) build ;;
  run) [ -x "$bin" ] || build; run "$@" ;;
  corpus) [ -x "$bin" ] || build; corpus ;;
  repro) [ -x "$bin" ] || build; repro "$@" ;;
  seeds) python3 scripts/fuzz_corpus.py "$seeds" ;;
  coverage) coverage "$@" ;;
  *) sed -n '2,20p' "$0" | sed 's/^# \{0,1\}//'; exit 2 ;;
esac
