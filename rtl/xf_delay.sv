// Delay line: q_o is d_i delayed by Depth rising edges of clk_i. Used for the control bits
// (valid, error, result select, tag) that travel beside a fixed-latency datapath.
//
// Protocol: no handshake; every stage loads every cycle. All stages reset to zero
// (asynchronous, active low), so a delayed valid bit is low after reset.
//
// Parameter constraints: WidthBits >= 1, Depth >= 1.
module xf_delay #(
  // bits delayed
  parameter int WidthBits = 1,
  // cycles of delay (register stages)
  parameter int Depth = 1
) (
  input  logic                 clk_i,   // clock
  input  logic                 rst_ni,  // asynchronous reset, active low: every stage to zero
  input  logic [WidthBits-1:0] d_i,     // input, sampled every cycle
  output logic [WidthBits-1:0] q_o      // d_i from Depth cycles earlier
);

  `include "xf_assert.svh"

  `ASSERT_INIT(WidthBitsLegal_A, WidthBits >= 1)
  `ASSERT_INIT(DepthLegal_A, Depth >= 1)

  // Stage i holds d_i from i+1 cycles earlier; flattened so every tool accepts it.
  logic [Depth*WidthBits-1:0] stages_d, stages_q;

  if (Depth == 1) begin : gen_single
    assign stages_d = d_i;
  end else begin : gen_chain
    assign stages_d = {stages_q[(Depth-1)*WidthBits-1:0], d_i};
  end

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      stages_q <= '0;
    end else begin
      stages_q <= stages_d;
    end
  end

  assign q_o = stages_q[Depth*WidthBits-1 -: WidthBits];

endmodule
