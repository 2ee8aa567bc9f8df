# Vivado non-project flow for the Arty A7-100T (fpga/arty_a7/fpga.sv): synthesis, placement,
# routing, reports and the bitstream, for users who have Vivado (it is not run by this
# project's CI; `make synth BOARD=arty_a7` gives a Yosys estimate instead). docs/boards.md.
#
# Run from anywhere:
#   [XF_CLK_MHZ=25] vivado -mode batch -source fpga/arty_a7/vivado.tcl [-tclargs OUT_DIR]
# Outputs (default build/fpga/arty_a7/vivado/): fpga.bit, utilization.rpt, timing.rpt,
# post_route.dcp. The file list comes from scripts/fpga_files.sh (needs bash; on Windows write
# the list to build/fpga/arty_a7/files.txt yourself, one line, paths relative to the repository).

set part   xc7a100tcsg324-1
set root   [file normalize [file join [file dirname [info script]] .. ..]]
set out    [file join $root build fpga arty_a7 vivado]
if {[llength $argv] > 0} {
  set out [file normalize [lindex $argv 0]]
}
file mkdir $out
cd $root

# The ordered Verilog file list (the package first, the board top last).
set list_file [file join $root build fpga arty_a7 files.txt]
if {[catch {exec bash scripts/fpga_files.sh arty_a7} files]} {
  if {![file exists $list_file]} {
    puts "vivado.tcl: cannot run scripts/fpga_files.sh ($files) and $list_file is missing"
    exit 1
  }
  set fh [open $list_file r]
  set files [string trim [read $fh]]
  close $fh
}

read_verilog -sv $files
read_xdc fpga/arty_a7/arty_a7.xdc

# XF_CLK_MHZ in the environment overrides the core clock (fpga.sv's ClkMhz).
set synth_args [list -top fpga -part $part -include_dirs [list [file join $root rtl]] \
  -verilog_define SYNTHESIS]
if {[info exists ::env(XF_CLK_MHZ)]} {
  lappend synth_args -generic ClkMhz=$::env(XF_CLK_MHZ)
}
synth_design {*}$synth_args
write_checkpoint -force [file join $out post_synth.dcp]
report_utilization -file [file join $out utilization_synth.rpt]

opt_design
place_design
phys_opt_design
route_design
write_checkpoint -force [file join $out post_route.dcp]

report_utilization -file [file join $out utilization.rpt]
report_timing_summary -max_paths 10 -file [file join $out timing.rpt]

# Say plainly whether the clocks are met before writing the bitstream.
set wns [get_property SLACK [get_timing_paths -delay_type max -max_paths 1]]
if {$wns eq "" || $wns < 0} {
  puts "vivado.tcl: TIMING FAIL: worst setup slack $wns ns (see [file join $out timing.rpt]);"
  puts "vivado.tcl: run again with a slower core clock, e.g. XF_CLK_MHZ=25"
} else {
  puts "vivado.tcl: timing met: worst setup slack $wns ns"
}

write_bitstream -force [file join $out fpga.bit]
puts "vivado.tcl: wrote [file join $out fpga.bit]; program it with"
puts "  openFPGALoader -b arty_a7_100t [file join $out fpga.bit]"
