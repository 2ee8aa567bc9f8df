// Board top for the Digilent Arty A7-100T (xc7a100tcsg324-1): the board's pins around the
// portable core (fpga/common/xf_fpga_core.sv), as Forencich's fpga.v wraps fpga_core.v. Pins in
// fpga/arty_a7/arty_a7.xdc; the Vivado flow is fpga/arty_a7/vivado.tcl (docs/boards.md).
//
// Clock: the 100 MHz oscillator CLK100MHZ. This board needs a clock generator, unlike the
// other two: 100 MHz is four times the ULX3S's 25 MHz and more than the core's logic depth
// allows (the ECP5 run's Fmax in docs/boards.md gives the scale), so an MMCME2_BASE makes
// ClkMhz (default 50; VCO 1000 MHz, CLKOUT0 divided by 1000 / ClkMhz). ClkMhz = 100 takes the
// oscillator straight through (no MMCM) for a design that closes at 100 MHz.
// Reset: ck_rst (the red RESET button, active low) and, with the MMCM, its LOCKED output,
// through xf_reset_sync; the synchroniser's flops come up at 0 after configuration, so the core
// also starts in reset at power-on.
// UART: the FT2232HQ's second channel (/dev/ttyUSB1 on Linux): uart_txd_in is the FPGA's input,
// uart_rxd_out its output.
// LEDs: led[3:0] (green) show led_o[3:0]; the blue of RGB LED 0 (led0_b) shows led_o[4].
//
// Port names are the ones of Digilent's master constraint file (Digilent digilent-xdc,
// Arty-A7-100-Master.xdc), so a user's own .xdc fits.
//
// Combinational paths: none (the LEDs and uart_rxd_out come from the core's registers).
//
// Parameter constraints: ClkMhz = 100, or 1000 / ClkMhz an integer from 10 to 128.
module fpga #(
  // UART bit rate (a user with a slower adapter overrides it)
  parameter int Baud = 1_000_000,
  // the core's clock in MHz (see above)
  parameter int ClkMhz = 50
) (
  input  logic       CLK100MHZ,     // 100 MHz oscillator
  input  logic       ck_rst,        // RESET button, active low
  input  logic       uart_txd_in,   // UART from the host
  output logic       uart_rxd_out,  // UART to the host
  output logic [3:0] led,           // green LEDs, active high
  output logic       led0_b         // blue of RGB LED 0, active high
);

  `include "xf_assert.svh"

  `ASSERT_INIT(ClkMhzLegal_A, ClkMhz == 100 || (1000 % ClkMhz == 0 && 1000 / ClkMhz >= 10 &&
                                                1000 / ClkMhz <= 128))

  localparam int ClkHz = ClkMhz * 1_000_000;

  logic       clk, locked, rst_n;
  logic [7:0] led_core;

  if (ClkMhz == 100) begin : gen_direct
    assign clk    = CLK100MHZ;
    assign locked = 1'b1;
  end else begin : gen_mmcm
    logic        clk_mmcm, clk_fb;
    logic [10:0] unused_mmcm;  // the outputs this design does not use

    // VCO = 100 MHz * 10 = 1000 MHz (600..1200 MHz for the -1 speed grade)
    MMCME2_BASE #(
      .CLKIN1_PERIOD   (10.0),
      .DIVCLK_DIVIDE   (1),
      .CLKFBOUT_MULT_F (10.0),
      .CLKOUT0_DIVIDE_F(1000.0 / ClkMhz)
    ) u_mmcm (
      .CLKIN1   (CLK100MHZ),
      .CLKFBIN  (clk_fb),
      .CLKFBOUT (clk_fb),
      .CLKFBOUTB(unused_mmcm[0]),
      .CLKOUT0  (clk_mmcm),
      .CLKOUT0B (unused_mmcm[1]),
      .CLKOUT1  (unused_mmcm[2]),
      .CLKOUT1B (unused_mmcm[3]),
      .CLKOUT2  (unused_mmcm[4]),
      .CLKOUT2B (unused_mmcm[5]),
      .CLKOUT3  (unused_mmcm[6]),
      .CLKOUT3B (unused_mmcm[7]),
      .CLKOUT4  (unused_mmcm[8]),
      .CLKOUT5  (unused_mmcm[9]),
      .CLKOUT6  (unused_mmcm[10]),
      .LOCKED   (locked),
      .PWRDWN   (1'b0),
      .RST      (1'b0)
    );

    BUFG u_bufg (
      .I(clk_mmcm),
      .O(clk)
    );
  end

  xf_reset_sync u_reset_sync (
    .clk_i (clk),
    .rst_ni(ck_rst & locked),
    .rst_no(rst_n)
  );

  xf_fpga_core #(
    .ClkHz(ClkHz),
    .Baud (Baud)
  ) u_core (
    .clk_i    (clk),
    .rst_ni   (rst_n),
    .uart_rx_i(uart_txd_in),
    .uart_tx_o(uart_rxd_out),
    .led_o    (led_core)
  );

  assign led    = led_core[3:0];
  assign led0_b = led_core[4];

  logic unused_led;
  assign unused_led = ^led_core[7:5];

endmodule
