// Board top for the 1BitSquared iCEBreaker (iCE40UP5K-SG48): the board's pins around the
// portable core (fpga/common/xf_fpga_core.sv), as Forencich's fpga.v wraps fpga_core.v. Pins in
// fpga/icebreaker/icebreaker.pcf; flows in docs/boards.md.
//
// Clock: the 12 MHz oscillator (pin 35) goes straight to the core; no PLL, because the design
// is limited by its own logic depth, not by the board clock, and 12 MHz is the slowest of the
// three boards (the UART still gets 12 cycles per bit at 1 Mbaud).
// Reset: the user button BTN_N (active low) through xf_reset_sync; the synchroniser's flops
// come up at 0 after configuration, so the core also starts in reset at power-on.
// UART: the FT2232H's second channel (B), /dev/ttyUSB1 on Linux; RX is the FPGA's input (the
// FTDI's TXD), TX its output.
// LEDs: LEDG_N (green, on the board) is the heartbeat, LEDR_N (red) lights when a node reports
// an error or a bad frame was seen; LED1..LED5 on the snap-off PMOD 2 show led_o[0..4].
//
// Port names are the ones of the official pin file (YosysHQ icestorm,
// examples/icebreaker/icebreaker.pcf), so a user's own .pcf fits.
//
// Combinational paths: LEDs and TX from the core's registers only (through an inverter for the
// active-low LEDs).
module fpga #(
  // UART bit rate (the Verilated test and a user with a slower adapter override it)
  parameter int Baud = 1_000_000
) (
  input  logic CLK,     // 12 MHz oscillator
  input  logic BTN_N,   // user button, active low: reset
  input  logic RX,      // UART from the host (FT2232H channel B TXD)
  output logic TX,      // UART to the host (FT2232H channel B RXD)
  output logic LEDR_N,  // red LED, active low: error
  output logic LEDG_N,  // green LED, active low: heartbeat
  output logic LED1,    // snap-off board LEDs, active high: led_o[0]..led_o[4]
  output logic LED2,
  output logic LED3,
  output logic LED4,
  output logic LED5
);

  localparam int ClkHz = 12_000_000;

  logic       rst_n;
  logic [7:0] led;

  xf_reset_sync u_reset_sync (
    .clk_i (CLK),
    .rst_ni(BTN_N),
    .rst_no(rst_n)
  );

  xf_fpga_core #(
    .ClkHz(ClkHz),
    .Baud (Baud)
  ) u_core (
    .clk_i    (CLK),
    .rst_ni   (rst_n),
    .uart_rx_i(RX),
    .uart_tx_o(TX),
    .led_o    (led)
  );

  assign LEDG_N = ~led[0];
  assign LEDR_N = ~(led[2] | led[3]);
  assign {LED5, LED4, LED3, LED2, LED1} = led[4:0];

  logic unused_led;
  assign unused_led = ^led[7:5];

endmodule
