// Board top for the Radiona ULX3S with the ECP5 LFE5U-85F (CABGA381): the board's pins around
// the portable core (fpga/common/xf_fpga_core.sv), as Forencich's fpga.v wraps fpga_core.v.
// Pins in fpga/ulx3s/ulx3s.lpf; flows in docs/boards.md.
//
// Clock: the core runs at ClkMhz (default 25). ClkMhz = 25 takes the 25 MHz oscillator
// clk_25mhz straight through (no PLL): the ladder of four 32-bit chips places and routes at 30
// to 40 MHz on the LFE5U-85F-6, by nextpnr's target (docs/boards.md section 7; 21 MHz before
// the cuts of docs/fpga.md section 9, when the default was 15 MHz from the PLL), and 25 MHz is
// a whole number of cycles per bit of the UART at 1 Mbaud. Other values are made by an
// EHXPLLL: PFD 25 / 5 = 5 MHz, feedback ClkMhz / 5, VCO 600 MHz (400..800), CLKOP 600 /
// ClkMhz; the core stays in reset until the PLL locks. The Verilated test of the driver's
// serial backend (docs/fpga.md section 5) builds this top with ClkMhz = 25, since Verilator
// has no model of the PLL (outside synthesis the PLL branch is an elaboration error).
// Reset: btn[0] (the PWR button, active low: the board's "inverted logic" button) through
// xf_reset_sync; the synchroniser's flops come up at 0 after configuration, so the core also
// starts in reset at power-on (and until the PLL locks). The other buttons are not used.
// UART: the FT231X: ftdi_txd is the FPGA's input (the FTDI transmits), ftdi_rxd its output.
// LEDs: led[7:0] = the core's led_o (0 heartbeat, 1 all chips done, 2 some node error, 3 a bad
// frame seen, 4 the bridge busy).
// wifi_gpio0 is driven high, as every ULX3S design should: low resets the ESP32 into its boot
// loader, which then takes over pins the FPGA shares with it.
//
// Port names are the ones of the official constraint file (emard/ulx3s,
// doc/constraints/ulx3s_v20.lpf), so a user's own .lpf fits.
//
// Combinational paths: none (the LEDs and ftdi_rxd come from the core's registers).
//
// Parameter constraints: ClkMhz = 25, or a multiple of 5 that divides 600 (5, 10, 15, 20, 30,
// 40, 50, 60, 75).
module fpga #(
  // UART bit rate (the Verilated test and a user with a slower adapter override it)
  parameter int Baud = 1_000_000,
  // the core's clock in MHz (see above)
  parameter int ClkMhz = 25
) (
  input  logic       clk_25mhz,   // 25 MHz oscillator
  input  logic [6:0] btn,         // buttons; btn[0] (PWR, active low) is the reset
  input  logic       ftdi_txd,    // UART from the host
  output logic       ftdi_rxd,    // UART to the host
  output logic [7:0] led,         // LEDs, active high
  output logic       wifi_gpio0   // held high: keeps the ESP32 out of its boot loader
);

  `include "xf_assert.svh"

  `ASSERT_INIT(ClkMhzLegal_A, ClkMhz == 25 || (ClkMhz % 5 == 0 && 600 % ClkMhz == 0 &&
                                               ClkMhz >= 5 && ClkMhz <= 75))

  localparam int ClkHz = ClkMhz * 1_000_000;
  localparam int OpDiv = 600 / ClkMhz;  // VCO 600 MHz / CLKOP

  logic clk_core, locked, rst_n;  // the core's clock (ClkMhz), the PLL locked

  if (ClkMhz == 25) begin : gen_direct
    assign clk_core = clk_25mhz;
    assign locked = 1'b1;
  end else begin : gen_pll
`ifdef SYNTHESIS
    logic [3:0] unused_pll;  // the outputs this design does not use

    (* FREQUENCY_PIN_CLKI = "25" *)
    EHXPLLL #(
      .PLLRST_ENA     ("DISABLED"),
      .INTFB_WAKE     ("DISABLED"),
      .STDBY_ENABLE   ("DISABLED"),
      .DPHASE_SOURCE  ("DISABLED"),
      .OUTDIVIDER_MUXA("DIVA"),
      .OUTDIVIDER_MUXB("DIVB"),
      .OUTDIVIDER_MUXC("DIVC"),
      .OUTDIVIDER_MUXD("DIVD"),
      .CLKI_DIV       (5),
      .CLKFB_DIV      (ClkMhz / 5),
      .CLKOP_ENABLE   ("ENABLED"),
      .CLKOP_DIV      (OpDiv),
      .CLKOP_CPHASE   ((OpDiv - 1) / 2),
      .CLKOP_FPHASE   (0),
      .FEEDBK_PATH    ("CLKOP")
    ) u_pll (
      .RST         (1'b0),
      .STDBY       (1'b0),
      .CLKI        (clk_25mhz),
      .CLKOP       (clk_core),
      .CLKOS       (unused_pll[0]),
      .CLKOS2      (unused_pll[1]),
      .CLKOS3      (unused_pll[2]),
      .CLKFB       (clk_core),
      .CLKINTFB    (unused_pll[3]),
      .PHASESEL0   (1'b0),
      .PHASESEL1   (1'b0),
      .PHASEDIR    (1'b1),
      .PHASESTEP   (1'b1),
      .PHASELOADREG(1'b1),
      .PLLWAKESYNC (1'b0),
      .ENCLKOP     (1'b0),
      .ENCLKOS     (1'b0),
      .ENCLKOS2    (1'b0),
      .ENCLKOS3    (1'b0),
      .LOCK        (locked),
      .INTLOCK     (),
      .REFCLK      ()
    );
`else
    // No PLL model outside synthesis: build this top with ClkMhz = 25 for simulation.
    `ASSERT_INIT(SimNeedsClkMhz25_A, 1'b0)
    assign clk_core = clk_25mhz;
    assign locked = 1'b1;
`endif
  end

  xf_reset_sync u_reset_sync (
    .clk_i (clk_core),
    .rst_ni(btn[0] && locked),
    .rst_no(rst_n)
  );

  xf_fpga_core #(
    .ClkHz(ClkHz),
    .Baud (Baud)
  ) u_core (
    .clk_i    (clk_core),
    .rst_ni   (rst_n),
    .uart_rx_i(ftdi_txd),
    .uart_tx_o(ftdi_rxd),
    .led_o    (led)
  );

  assign wifi_gpio0 = 1'b1;

  logic unused_btn;
  assign unused_btn = ^btn[6:1];

endmodule
