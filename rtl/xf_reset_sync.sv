// Reset synchroniser: asserts asynchronously with rst_ni, releases synchronously to clk_i after
// Stages rising edges, so that every flip-flop of the design leaves reset in the same cycle
// (the board tops put it between the reset button and the core; docs/fpga.md section 1).
//
// Protocol: rst_no goes low in the cycle rst_ni goes low (no clock needed) and high on the
// Stages-th rising edge of clk_i after rst_ni went high.
//
// Combinational paths: none (rst_no is a register; its asynchronous clear is rst_ni).
//
// Parameter constraints: Stages >= 2.
module xf_reset_sync #(
  // flip-flops in the release chain
  parameter int Stages = 2
) (
  input  logic clk_i,   // clock of the reset domain
  input  logic rst_ni,  // asynchronous reset, active low (a button, a PLL's lock, ...)
  output logic rst_no   // reset for the domain: asserted asynchronously, released on clk_i
);

  `include "xf_assert.svh"

  `ASSERT_INIT(StagesLegal_A, Stages >= 2)

  logic [Stages-1:0] sync_q;

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      sync_q <= '0;
    end else begin
      sync_q <= {sync_q[Stages-2:0], 1'b1};
    end
  end

  assign rst_no = sync_q[Stages-1];

endmodule
