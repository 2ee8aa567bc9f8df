#!/usr/bin/env bash
# Installs whatever this project needs and the machine lacks (Debian). Safe to run again:
# it only calls apt-get when a package is missing. Needs root or passwordless sudo to install.
set -euo pipefail

PKGS=(build-essential cmake ninja-build python3 ccache verilator iverilog libsystemc-dev
      googletest libgtest-dev libbenchmark-dev graphviz clang-format yosys z3
      clang-14 libclang-rt-14-dev python3-matplotlib)

missing=()
for p in "${PKGS[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done

if [ ${#missing[@]} -eq 0 ]; then
  exit 0
fi

echo "setup: installing missing packages: ${missing[*]}"
SUDO=""
if [ "$(id -u)" -ne 0 ]; then
  if command -v sudo >/dev/null 2>&1; then
    SUDO="sudo"
  else
    echo "setup: need root to install ${missing[*]}; run as root or install them by hand" >&2
    exit 1
  fi
fi
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update
$SUDO apt-get install -y --no-install-recommends "${missing[@]}"
echo "setup: done"
