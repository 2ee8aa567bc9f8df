// UART transmitter, 8N1, least significant bit first, idle high (docs/fpga.md section 2).
//
// Protocol: valid/ready. A byte is taken in a cycle with valid_i and ready_o high; ready_o is
// low while its ten bits (start, 8 data, stop) go out, ClksPerBit cycles each, and high again in
// the cycle after the stop bit ends: back-to-back bytes leave every 10 * ClksPerBit + 1 cycles
// (a stop bit one cycle longer than the others, which every receiver accepts).
//
// Combinational paths: none (tx_o and ready_o are registers).
//
// Parameter constraints: ClksPerBit >= 4.
module xf_uart_tx #(
  // clock cycles per bit: round(f_clk / baud)
  parameter int ClksPerBit = 25
) (
  input  logic       clk_i,    // clock
  input  logic       rst_ni,   // asynchronous reset, active low
  input  logic       valid_i,  // a byte is offered
  input  logic [7:0] data_i,   // the byte
  output logic       ready_o,  // the transmitter is idle and takes the byte
  output logic       tx_o      // the pin
);

  `include "xf_assert.svh"

  `ASSERT_INIT(ClksPerBitLegal_A, ClksPerBit >= 4)

  localparam int CntBits = $clog2(ClksPerBit);
  localparam logic [CntBits-1:0] FullBit = CntBits'(ClksPerBit - 1);

  logic [8:0]         shift_q;  // {stop, data} still to send after the bit on tx_q
  logic [3:0]         left_q;   // bits still to send after the current one; 0 with busy_q low
  logic               busy_q, tx_q;
  logic [CntBits-1:0] cnt_q;

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      shift_q <= '1;
      left_q  <= '0;
      busy_q  <= 1'b0;
      tx_q    <= 1'b1;
      cnt_q   <= '0;
    end else if (!busy_q) begin
      if (valid_i) begin
        shift_q <= {1'b1, data_i};
        left_q  <= 4'd9;
        busy_q  <= 1'b1;
        tx_q    <= 1'b0;  // start bit
        cnt_q   <= FullBit;
      end
    end else if (cnt_q != '0) begin
      cnt_q <= cnt_q - 1'b1;
    end else if (left_q != '0) begin
      tx_q    <= shift_q[0];
      shift_q <= {1'b1, shift_q[8:1]};
      left_q  <= left_q - 4'd1;
      cnt_q   <= FullBit;
    end else begin
      busy_q <= 1'b0;  // the stop bit has lasted a full period
    end
  end

  assign ready_o = !busy_q;
  assign tx_o    = tx_q;

endmodule
