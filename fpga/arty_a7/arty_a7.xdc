## Digilent Arty A7-100T (xc7a100tcsg324-1) pins used by fpga/arty_a7/fpga.sv.
## Pins, I/O standards and port names from Digilent's master constraint file:
## Digilent digilent-xdc, Arty-A7-100-Master.xdc (Arty A7-100 Rev. D).

## 100 MHz oscillator; Vivado derives the MMCM's output clock from it
set_property -dict { PACKAGE_PIN E3  IOSTANDARD LVCMOS33 } [get_ports { CLK100MHZ }]
create_clock -name sys_clk_pin -period 10.000 -waveform {0.000 5.000} [get_ports { CLK100MHZ }]

## RESET button (ck_rst, active low)
set_property -dict { PACKAGE_PIN C2  IOSTANDARD LVCMOS33 } [get_ports { ck_rst }]

## USB-UART: uart_txd_in into the FPGA, uart_rxd_out out of it
set_property -dict { PACKAGE_PIN A9  IOSTANDARD LVCMOS33 } [get_ports { uart_txd_in }]
set_property -dict { PACKAGE_PIN D10 IOSTANDARD LVCMOS33 } [get_ports { uart_rxd_out }]

## green LEDs LD4..LD7 and the blue of RGB LED LD0
set_property -dict { PACKAGE_PIN H5  IOSTANDARD LVCMOS33 } [get_ports { led[0] }]
set_property -dict { PACKAGE_PIN J5  IOSTANDARD LVCMOS33 } [get_ports { led[1] }]
set_property -dict { PACKAGE_PIN T9  IOSTANDARD LVCMOS33 } [get_ports { led[2] }]
set_property -dict { PACKAGE_PIN T10 IOSTANDARD LVCMOS33 } [get_ports { led[3] }]
set_property -dict { PACKAGE_PIN E1  IOSTANDARD LVCMOS33 } [get_ports { led0_b }]

## The button and the UART input are asynchronous (synchronised in the design); the LEDs and the
## UART output are read by people and a 1 Mbaud receiver: no timing paths to check on them.
set_false_path -from [get_ports { ck_rst uart_txd_in }]
set_false_path -to [get_ports { uart_rxd_out led[*] led0_b }]

## Configuration bank voltage (Arty A7: 3.3 V on bank 0)
set_property CFGBVS VCCO [current_design]
set_property CONFIG_VOLTAGE 3.3 [current_design]
