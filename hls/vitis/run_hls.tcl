# SPDX-License-Identifier: MIT
# Vitis HLS flow for one quire kernel: C simulation, synthesis, C/RTL
# co-simulation and export as a Vitis kernel (.xo).
#
#   vitis_hls -f run_hls.tcl -tclargs KERNEL [PART] [STEPS]
#
# KERNEL: quant, reduce or mlp. PART (default: AWS F1's xcvu9p-flgb2104-2-i;
# Alveo U250: xcu250-figd2104-2L-e, U280: xcu280-fsvh2892-2L-e). STEPS: any of
# csim,csynth,cosim,export (default all four). Run from hls/vitis/.
# This flow has never been run in this project's CI (no vendor tools there);
# the C it compiles is exactly what CI compiles and tests.

set kernel [lindex $argv 0]
set part [expr {[llength $argv] > 1 ? [lindex $argv 1] : "xcvu9p-flgb2104-2-i"}]
set steps [expr {[llength $argv] > 2 ? [lindex $argv 2] : "csim,csynth,cosim,export"}]

array set sources {
	quant  {../quant.c}
	reduce {../reduce.c ../quant.c}
	mlp    {../mlp.c ../crc32.c}
}
if {![info exists sources($kernel)]} {
	puts "usage: vitis_hls -f run_hls.tcl -tclargs quant|reduce|mlp \[PART\] \[STEPS\]"
	exit 1
}
set cflags "-std=c11 -I../../include -I../.."

open_project -reset quire_$kernel
set_top quire_${kernel}_top
foreach src $sources($kernel) {
	add_files $src -cflags $cflags
}
add_files -tb tb_$kernel.c -cflags "$cflags -DQUIRE_TB_DATA=\\\"[file normalize ../../tests/data/mlp_golden]\\\""
open_solution -reset solution -flow_target vitis
set_part $part
# 250 MHz: clk_main_a0 of the F1 shell's clock recipe A1, its maximum (boards/aws-f1.toml;
# recipe A0 gives 125 MHz).
create_clock -period 4 -name default

if {[string match *csim* $steps]}   { csim_design }
if {[string match *csynth* $steps]} { csynth_design }
if {[string match *cosim* $steps]}  { cosim_design }
if {[string match *export* $steps]} { export_design -format xo -output quire_$kernel.xo }
exit
