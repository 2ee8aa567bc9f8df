#!/usr/bin/env bash
# cmake --build DIR [ARGS...], again while Verilator wrote a new file list and the build failed.
# Why: Verilator's CMake integration (verilate() in verilator-config.cmake) reads the list of the
# C++ files Verilator generated when CMake configures. After an RTL change Verilator may split its
# output into other files; the build that re-runs Verilator still compiles the old list (stale
# split files: "multiple definition" at link, or members that no longer exist) and only the next
# build reconfigures with the new list. A failed build stops at the first broken target, so other
# Verilator targets may only re-run on a later attempt: while a build fails and Verilator wrote a
# new list in it (a V*.cmake under DIR newer than that attempt's start), this builds once more, at
# most MaxAttempts times in all; any other failure fails at once.
set -uo pipefail
[ $# -ge 1 ] || { echo "usage: scripts/cmake_build.sh DIR [cmake --build options]" >&2; exit 2; }
dir=$1
shift
readonly MaxAttempts=6
stamp=$(mktemp)
trap 'rm -f "$stamp"' EXIT
for ((attempt = 1; ; attempt++)); do
  touch "$stamp"
  cmake --build "$dir" "$@" && exit 0
  if ! find "$dir" -name 'V*.cmake' ! -name '*_copy.cmake' -newer "$stamp" | grep -q .; then
    exit 1
  fi
  if ((attempt >= MaxAttempts)); then
    echo "cmake_build: still failing after $attempt builds that each re-ran Verilator;" \
      "remove $dir and build again" >&2
    exit 1
  fi
  echo "cmake_build: Verilator's list of generated files changed in build $attempt;" \
    "building again with the new list" >&2
done
