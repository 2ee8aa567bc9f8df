// UART receiver, 8N1, least significant bit first, idle high (docs/fpga.md section 2).
//
// The pin is synchronised with two flip-flops. A falling edge starts a byte; the start bit must
// still be low half a bit period later (otherwise it was a glitch and is ignored); each data bit
// is sampled in the middle of its period; the stop bit must be high. A byte with a low stop bit
// is not delivered: frame_err_o pulses instead, and the receiver waits for the line to go high
// before it looks for the next start bit (so a held-low line is one error, not many).
//
// Protocol: valid_o pulses for one cycle with data_o, in the middle of the stop bit. There is no
// back-pressure: the user takes the byte in that cycle. data_o holds until the next byte.
//
// Combinational paths: none (every output is a register).
//
// Parameter constraints: ClksPerBit >= 4 (clock cycles per bit, rounded by the user).
module xf_uart_rx #(
  // clock cycles per bit: round(f_clk / baud)
  parameter int ClksPerBit = 25
) (
  input  logic       clk_i,        // clock
  input  logic       rst_ni,       // asynchronous reset, active low
  input  logic       rx_i,         // the pin (asynchronous)
  output logic       valid_o,      // a byte arrived (one cycle)
  output logic [7:0] data_o,       // the byte
  output logic       frame_err_o,  // a byte had a low stop bit (one cycle)
  output logic       busy_o        // a byte is being received
);

  `include "xf_assert.svh"

  `ASSERT_INIT(ClksPerBitLegal_A, ClksPerBit >= 4)

  localparam int CntBits = $clog2(ClksPerBit);
  localparam logic [CntBits-1:0] FullBit = CntBits'(ClksPerBit - 1);
  localparam logic [CntBits-1:0] HalfBit = CntBits'(ClksPerBit / 2 - 1);

  typedef enum logic [2:0] {
    StIdle,   // line high, waiting for a falling edge
    StStart,  // half a bit into the start bit
    StData,   // eight data bits
    StStop,   // the stop bit
    StBreak   // after a framing error: wait for the line to go high
  } state_e;

  state_e             state_q, state_d;
  logic [1:0]         sync_q;  // [1] is the synchronised pin
  logic [CntBits-1:0] cnt_q, cnt_d;
  logic [2:0]         bit_q, bit_d;
  logic [7:0]         shift_q, shift_d;
  logic               valid_d, valid_q, ferr_d, ferr_q;

  wire rx = sync_q[1];

  always_comb begin
    state_d = state_q;
    cnt_d   = (cnt_q == '0) ? '0 : cnt_q - 1'b1;
    bit_d   = bit_q;
    shift_d = shift_q;
    valid_d = 1'b0;
    ferr_d  = 1'b0;
    unique case (state_q)
      StIdle: begin
        if (!rx) begin
          state_d = StStart;
          cnt_d   = HalfBit;
        end
      end
      StStart: begin
        if (cnt_q == '0) begin
          if (rx) state_d = StIdle;  // high again: a glitch
          else state_d = StData;
          cnt_d   = FullBit;
          bit_d   = 3'd0;
        end
      end
      StData: begin
        if (cnt_q == '0) begin
          shift_d = {rx, shift_q[7:1]};
          cnt_d   = FullBit;
          bit_d   = bit_q + 3'd1;
          if (bit_q == 3'd7) state_d = StStop;
        end
      end
      StStop: begin
        if (cnt_q == '0) begin
          valid_d = rx;
          ferr_d  = !rx;
          if (rx) state_d = StIdle;
          else state_d = StBreak;
        end
      end
      StBreak: begin
        if (rx) state_d = StIdle;
      end
      default: state_d = StIdle;
    endcase
  end

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      state_q <= StIdle;
      sync_q  <= 2'b11;
      cnt_q   <= '0;
      bit_q   <= '0;
      shift_q <= '0;
      valid_q <= 1'b0;
      ferr_q  <= 1'b0;
    end else begin
      state_q <= state_d;
      sync_q  <= {sync_q[0], rx_i};
      cnt_q   <= cnt_d;
      bit_q   <= bit_d;
      shift_q <= shift_d;
      valid_q <= valid_d;
      ferr_q  <= ferr_d;
    end
  end

  assign valid_o     = valid_q;
  assign data_o      = shift_q;
  assign frame_err_o = ferr_q;
  assign busy_o      = state_q != StIdle;

endmodule
