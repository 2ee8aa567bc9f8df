// Board top for the Radiona ULX3S with the ECP5 LFE5U-85F (CABGA381): the board's pins around
// the portable core (fpga/common/xf_fpga_core.sv), as Forencich's fpga.v wraps fpga_core.v.
// Pins in fpga/ulx3s/ulx3s.lpf; flows in docs/boards.md. The Verilated test of the driver's
// serial backend builds this top (docs/fpga.md section 5), so it uses no vendor primitive.
//
// Clock: the 25 MHz oscillator clk_25mhz goes straight to the core; no PLL, because 25 MHz is
// what the core is sized for (docs/boards.md has the achieved Fmax) and a PLL would only add a
// lock signal to the reset.
// Reset: btn[0] (the PWR button, active low: the board's "inverted logic" button) through
// xf_reset_sync; the synchroniser's flops come up at 0 after configuration, so the core also
// starts in reset at power-on. The other buttons are not used.
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
module fpga #(
  // UART bit rate (the Verilated test and a user with a slower adapter override it)
  parameter int Baud = 1_000_000
) (
  input  logic       clk_25mhz,   // 25 MHz oscillator
  input  logic [6:0] btn,         // buttons; btn[0] (PWR, active low) is the reset
  input  logic       ftdi_txd,    // UART from the host
  output logic       ftdi_rxd,    // UART to the host
  output logic [7:0] led,         // LEDs, active high
  output logic       wifi_gpio0   // held high: keeps the ESP32 out of its boot loader
);

  localparam int ClkHz = 25_000_000;

  logic rst_n;

  xf_reset_sync u_reset_sync (
    .clk_i (clk_25mhz),
    .rst_ni(btn[0]),
    .rst_no(rst_n)
  );

  xf_fpga_core #(
    .ClkHz(ClkHz),
    .Baud (Baud)
  ) u_core (
    .clk_i    (clk_25mhz),
    .rst_ni   (rst_n),
    .uart_rx_i(ftdi_txd),
    .uart_tx_o(ftdi_rxd),
    .led_o    (led)
  );

  assign wifi_gpio0 = 1'b1;

  logic unused_btn;
  assign unused_btn = ^btn[6:1];

endmodule
