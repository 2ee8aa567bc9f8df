#!/usr/bin/env bash
# cmake --build DIR [ARGS...], once more if Verilator ran and the build failed.
# Why: Verilator's CMake integration (verilate() in verilator-config.cmake) reads the list of the
# C++ files Verilator generated when CMake configures. After an RTL change Verilator may split its
# output into other files; the build that re-runs Verilator still compiles the old list (stale
# split files: "multiple definition" at link, or members that no longer exist) and only the next
# build reconfigures with the new list. So when a build fails and Verilator wrote a new list
# (a V*.cmake under DIR newer than the start of the build), this builds once more; any other
# failure fails at once.
set -uo pipefail
[ $# -ge 1 ] || { echo "usage: scripts/cmake_build.sh DIR [cmake --build options]" >&2; exit 2; }
dir=$1
shift
stamp=$(mktemp)
trap 'rm -f "$stamp"' EXIT
cmake --build "$dir" "$@" && exit 0
if find "$dir" -name 'V*.cmake' ! -name '*_copy.cmake' -newer "$stamp" | grep -q .; then
  echo "cmake_build: Verilator's list of generated files changed in this build;" \
    "building again with the new list" >&2
  cmake --build "$dir" "$@"
  exit
fi
exit 1
