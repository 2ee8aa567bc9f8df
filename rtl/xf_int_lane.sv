// One integer lane of the reduction ALU (docs/alu.md section 3): Sum (wrap or saturate), Max,
// Min and Avg (with the pre-shift of b and the optional final scale) on WidthBits-bit two's
// complement (signed_i = 1) or unsigned (signed_i = 0) values. Bit-exact with xf::alu_reduce.
//
// Protocol: a pure datapath with no valid and no reset. The operands and the configuration are
// sampled every cycle; res_o is the result of the operands and configuration presented
// LatencyCycles = 3 rising edges earlier (fixed latency, one result per cycle, no stalls). The
// caller carries the valid bit beside it.
//
// Pipeline:
//   stage 1  operands extended to WidthBits+1 bits (one extra bit: the average never needs more),
//            sum with wrap or clamp, max, min, avg x = (a + (b >>> avg_shift)) >>> 1
//   stage 2  x * avg_scale as two 16-bit partial products (x * scale[15:0], x * scale[31:16])
//   stage 3  p = lo + (hi << 16), floor(p / 2^31) clamped to the type range when avg_final,
//            else the stage-1 result
//
// Ops other than Sum, Max, Min and Avg (ScaleAdd, undefined codes) return a_i unchanged: the top
// level uses this to pass the local flit through on an invalid dtype/op pair.
//
// Parameter constraints: WidthBits is 8, 16 or 32 (signed_i = 0 is meant for 8, uint8).
module xf_int_lane #(
  // lane width in bits: 8 (int8/uint8), 16 (int16) or 32 (int32)
  parameter int WidthBits = 8
) (
  input  logic                 clk_i,        // clock; every register samples on the rising edge
  // operands and configuration (sampled together)
  input  logic [WidthBits-1:0] a_i,          // first operand (local data)
  input  logic [WidthBits-1:0] b_i,          // second operand (arriving data)
  input  logic                 signed_i,     // 1: two's complement lanes, 0: unsigned lanes
  input  xf_defs_pkg::red_op_e op_i,         // Sum, Max, Min, Avg; any other op passes a_i
  input  logic                 sat_i,        // Sum: clamp to the type range instead of wrapping
  input  logic [3:0]           avg_shift_i,  // Avg: floor(b / 2^avg_shift) before averaging
  input  logic                 avg_final_i,  // Avg: apply the final scale
  input  logic [31:0]          avg_scale_i,  // Avg final scale, unsigned Q1.31
  // result, 3 cycles after its operands
  output logic [WidthBits-1:0] res_o         // lane result
);

  `include "xf_assert.svh"

  localparam int W = WidthBits;
  // Fraction bits of the avg scale (Q1.31).
  localparam int FracBits = xf_defs_pkg::AvgScaleFracBits;
  // Product of the (W+1)-bit signed average and the 32-bit unsigned scale: |p| < 2^(W+32).
  localparam int ProdBits = W + 33;
  // Each partial product: (W+1)-bit signed times 16-bit unsigned, |p| < 2^(W+16).
  localparam int PartBits = W + 17;

  `ASSERT_INIT(WidthBitsLegal_A, W == 8 || W == 16 || W == 32)
  `ASSERT_INIT(ScaleFracBitsLegal_A, FracBits == 31)

  // ---- Stage 1: sum, max, min, average --------------------------------------------------------
  logic signed [W:0]   a_ext, b_ext, b_pre;
  logic signed [W+1:0] sum, avg_sum;
  logic signed [W+1:0] s1_lo, s1_hi;         // type range: [-2^(W-1), 2^(W-1)-1] or [0, 2^W-1]
  logic [W-1:0]        sum_sat;
  logic [W-1:0]        s1_res_d, s1_res_q;     // result unless the final scale applies
  logic signed [W:0]   s1_x_d, s1_x_q;         // floor average, W+1 bits
  logic                s1_final_d, s1_final_q; // Avg with avg_final: stage 3 takes the product
  logic                s1_signed_q;
  logic [31:0]         s1_scale_q;

  always_comb begin
    a_ext = {signed_i & a_i[W-1], a_i};
    b_ext = {signed_i & b_i[W-1], b_i};
    sum = a_ext + b_ext;
    s1_lo = signed_i ? {3'b111, {(W - 1) {1'b0}}} : '0;
    s1_hi = signed_i ? {3'b000, {(W - 1) {1'b1}}} : {2'b00, {W{1'b1}}};
    if (sum < s1_lo) begin
      sum_sat = s1_lo[W-1:0];
    end else if (sum > s1_hi) begin
      sum_sat = s1_hi[W-1:0];
    end else begin
      sum_sat = sum[W-1:0];
    end
    b_pre = b_ext >>> avg_shift_i;  // floor division (b_ext is non-negative when unsigned)
    avg_sum = a_ext + b_pre;
    s1_x_d = avg_sum[W+1:1];        // floor((a + b') / 2) is within the type's range
    s1_final_d = (op_i == xf_defs_pkg::RED_OP_AVG) && avg_final_i;
    s1_res_d = a_i;                 // default: pass a (invalid op)
    case (op_i)
      xf_defs_pkg::RED_OP_SUM: s1_res_d = sat_i ? sum_sat : sum[W-1:0];
      xf_defs_pkg::RED_OP_MAX: s1_res_d = (a_ext > b_ext) ? a_i : b_i;
      xf_defs_pkg::RED_OP_MIN: s1_res_d = (a_ext > b_ext) ? b_i : a_i;
      xf_defs_pkg::RED_OP_AVG: s1_res_d = s1_x_d[W-1:0];
      default:                 s1_res_d = a_i;
    endcase
  end

  always_ff @(posedge clk_i) begin
    s1_res_q    <= s1_res_d;
    s1_x_q      <= s1_x_d;
    s1_final_q  <= s1_final_d;
    s1_signed_q <= signed_i;
    s1_scale_q  <= avg_scale_i;
  end

  // ---- Stage 2: partial products of x * scale -------------------------------------------------
  logic signed [16:0]         scale_lo, scale_hi;
  logic signed [PartBits-1:0] s2_lo_d, s2_lo_q, s2_hi_d, s2_hi_q;
  logic [W-1:0]               s2_res_q;
  logic                       s2_final_q, s2_signed_q;

  always_comb begin
    scale_lo = {1'b0, s1_scale_q[15:0]};
    scale_hi = {1'b0, s1_scale_q[31:16]};
    s2_lo_d = s1_x_q * scale_lo;
    s2_hi_d = s1_x_q * scale_hi;
  end

  always_ff @(posedge clk_i) begin
    s2_lo_q     <= s2_lo_d;
    s2_hi_q     <= s2_hi_d;
    s2_res_q    <= s1_res_q;
    s2_final_q  <= s1_final_q;
    s2_signed_q <= s1_signed_q;
  end

  // ---- Stage 3: floor(x * scale / 2^31), clamp, select ----------------------------------------
  logic signed [ProdBits-1:0] prod;
  logic signed [W+1:0]        scaled;  // floor(prod / 2^31): |prod| < 2^(W+32) gives W+2 bits
  logic signed [W+1:0]        s3_lo, s3_hi;
  logic [W-1:0]               s3_res_d, s3_res_q;

  always_comb begin
    prod = {{(ProdBits - PartBits) {s2_lo_q[PartBits-1]}}, s2_lo_q} + {s2_hi_q, 16'h0000};
    scaled = prod[ProdBits-1:FracBits];
    s3_lo = s2_signed_q ? {3'b111, {(W - 1) {1'b0}}} : '0;
    s3_hi = s2_signed_q ? {3'b000, {(W - 1) {1'b1}}} : {2'b00, {W{1'b1}}};
    if (!s2_final_q) begin
      s3_res_d = s2_res_q;
    end else if (scaled < s3_lo) begin
      s3_res_d = s3_lo[W-1:0];
    end else if (scaled > s3_hi) begin
      s3_res_d = s3_hi[W-1:0];
    end else begin
      s3_res_d = scaled[W-1:0];
    end
  end

  always_ff @(posedge clk_i) begin
    s3_res_q <= s3_res_d;
  end

  assign res_o = s3_res_q;

  // The floor shifts drop these bits by design.
  logic unused_bits;
  assign unused_bits = ^{avg_sum[0], prod[FracBits-1:0]};

endmodule
