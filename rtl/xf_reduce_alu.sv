// Reduction ALU of a tile's receive engine (DESIGN.md section 5, docs/alu.md): combines the
// local flit a with the arriving flit b lane by lane, for every dtype/op pair of docs/alu.md,
// bit-exact with the C++ reference xf::alu_reduce. Fully pipelined: one flit in and one flit out
// per cycle, each flit with its own configuration.
//
// Protocol: no back-pressure. A flit is accepted in every cycle in which in_valid_i is high,
// with its configuration (in_dtype_i .. in_avg_scale_i) and tag sampled in the same cycle. Its
// result appears on out_valid_o / out_data_o / out_tag_o / err_o exactly LatencyCycles = 4
// cycles later, for one cycle; out_valid_o is in_valid_i delayed by 4, so a gap-free input stream
// gives a gap-free output stream. Every output is a register (nothing is combinational from an
// input). out_data_o, out_tag_o and err_o are meaningful only while out_valid_o is high.
//
//   clk          _/~\_/~\_/~\_/~\_/~\_/~\_/~\_/~\_
//   in_valid_i   __/~~~~~~~~~~~\________________     flits A B C in cycles 0 1 2
//   in_a/b_i     --< A >< B >< C >---------------
//   out_valid_o  __________________/~~~~~~~~~~~\__   results in cycles 4 5 6
//   out_data_o   ------------------< A'>< B'>< C'>--
//
// Errors: if (dtype, op) is not a valid pair (xf::valid_pair: Avg only on integer types,
// ScaleAdd reserved, dtype 7 and op 5..7 undefined), err_o is high with that flit's out_valid_o
// and out_data_o is in_a_i unchanged.
//
// Lanes (little-endian in the flit, lane i at bits [i*w +: w]): 16 x int8/uint8, 8 x
// int16/fp16/bf16, 4 x int32/fp32. Every lane unit of every width computes every cycle; the
// output stage selects by dtype and op.
//
// Pipeline (LatencyCycles = UnitLatencyCycles + 1 = 4):
//   cycles 1-3  lane units (xf_int_lane, xf_fp_add: 3 registered stages each); fp max/min is
//               combinational (xf_fp_maxmin), registered in cycle 1 and delayed to cycle 3;
//               valid, error, result select and tag travel through xf_delay beside them
//   cycle 4     result select (int8, int16, int32, fp16 add, bf16 add, fp32 add, fp max/min),
//               output registers
//
// Parameter constraints: TagBits >= 1. Lanes follow xf_defs_pkg::FlitBits = 128.
module xf_reduce_alu #(
  // bits of the user tag carried beside each flit (the receive engine's address)
  parameter int TagBits = 32
) (
  input  logic                 clk_i,           // clock
  input  logic                 rst_ni,          // asynchronous reset, active low
  // input stream, one flit per cycle, no back-pressure
  input  logic                 in_valid_i,      // a flit and its configuration are presented
  input  logic [127:0]         in_a_i,          // local flit: first operand a of every lane
  input  logic [127:0]         in_b_i,          // arriving flit: second operand b of every lane
  input  xf_defs_pkg::dtype_e  in_dtype_i,      // element type of the lanes
  input  xf_defs_pkg::red_op_e in_op_i,         // reduction op
  input  logic                 in_sat_i,        // integer Sum saturates instead of wrapping
  input  logic [3:0]           in_avg_shift_i,  // Avg: b is floor-divided by 2^avg_shift first
  input  logic                 in_avg_final_i,  // Avg: apply the final scale
  input  logic [31:0]          in_avg_scale_i,  // Avg final scale, unsigned Q1.31 (< 2.0)
  input  logic [TagBits-1:0]   in_tag_i,        // user tag, returned unchanged with the result
  // output stream, LatencyCycles after the input
  output logic                 out_valid_o,     // a result is presented (in_valid_i 4 cycles ago)
  output logic [127:0]         out_data_o,      // result flit (in_a_i unchanged when err_o)
  output logic [TagBits-1:0]   out_tag_o,       // in_tag_i of that flit
  output logic                 err_o            // invalid dtype/op pair; only with out_valid_o
);

  `include "xf_assert.svh"

  // Cycles from a flit on the inputs to its result on the outputs.
  localparam int LatencyCycles = 4;
  // Latency of the lane units (xf_int_lane, xf_fp_add).
  localparam int UnitLatencyCycles = 3;

  `ASSERT_INIT(TagBitsLegal_A, TagBits >= 1)
  `ASSERT_INIT(FlitBitsLegal_A, xf_defs_pkg::FlitBits == 128)
  `ASSERT_INIT(LatencyLegal_A, LatencyCycles == UnitLatencyCycles + 1)

  // Which unit's result leaves in the output stage.
  localparam logic [2:0] SelInt8 = 3'd0;     // int8/uint8 lanes (also the pass-through of a)
  localparam logic [2:0] SelInt16 = 3'd1;
  localparam logic [2:0] SelInt32 = 3'd2;
  localparam logic [2:0] SelFp16Add = 3'd3;
  localparam logic [2:0] SelBf16Add = 3'd4;
  localparam logic [2:0] SelFp32Add = 3'd5;
  localparam logic [2:0] SelFpMaxMin = 3'd6;  // fp16, bf16 or fp32 max/min (selected earlier)

  // ---- Decode (cycle 0, combinational from the inputs) ----------------------------------------
  logic       dtype_known, dtype_float;
  logic       pair_ok;
  logic       in_err;
  logic       int8_signed;
  logic [2:0] int8_op;  // red_op_e for the int8/uint8 lanes: ScaleAdd (pass a) on an invalid pair
  logic       fp_max, fp_sum;
  logic [2:0] in_sel;

  always_comb begin
    // xf::valid_pair: Sum/Max/Min on every defined dtype, Avg on integer dtypes only.
    dtype_known = (in_dtype_i <= xf_defs_pkg::DTYPE_FP32);
    dtype_float = (in_dtype_i == xf_defs_pkg::DTYPE_FP16) ||
                  (in_dtype_i == xf_defs_pkg::DTYPE_BF16) ||
                  (in_dtype_i == xf_defs_pkg::DTYPE_FP32);
    case (in_op_i)
      xf_defs_pkg::RED_OP_SUM, xf_defs_pkg::RED_OP_MAX, xf_defs_pkg::RED_OP_MIN: begin
        pair_ok = dtype_known;
      end
      xf_defs_pkg::RED_OP_AVG: pair_ok = dtype_known && !dtype_float;
      default:                 pair_ok = 1'b0;
    endcase
    in_err = in_valid_i && !pair_ok;
    int8_signed = (in_dtype_i != xf_defs_pkg::DTYPE_UINT8);
    int8_op = xf_defs_pkg::RED_OP_SCALE_ADD;
    if (pair_ok) int8_op = in_op_i;
    fp_max = (in_op_i == xf_defs_pkg::RED_OP_MAX);
    fp_sum = 1'b0;
    in_sel = SelInt8;
    if (pair_ok) begin
      fp_sum = (in_op_i == xf_defs_pkg::RED_OP_SUM);
      case (in_dtype_i)
        xf_defs_pkg::DTYPE_INT16: in_sel = SelInt16;
        xf_defs_pkg::DTYPE_INT32: in_sel = SelInt32;
        xf_defs_pkg::DTYPE_FP16:  in_sel = fp_sum ? SelFp16Add : SelFpMaxMin;
        xf_defs_pkg::DTYPE_BF16:  in_sel = fp_sum ? SelBf16Add : SelFpMaxMin;
        xf_defs_pkg::DTYPE_FP32:  in_sel = fp_sum ? SelFp32Add : SelFpMaxMin;
        default:                  in_sel = SelInt8;
      endcase
    end
  end

  // ---- Lane units -----------------------------------------------------------------------------
  logic [127:0] int8_res, int16_res, int32_res, fp16_add_res, bf16_add_res, fp32_add_res;
  logic [127:0] fp16_mm, bf16_mm, fp32_mm;  // combinational max/min of every format

  for (genvar i = 0; i < 16; i++) begin : gen_lanes8
    xf_int_lane #(
      .WidthBits(8)
    ) u_int8 (
      .clk_i      (clk_i),
      .a_i        (in_a_i[i*8+:8]),
      .b_i        (in_b_i[i*8+:8]),
      .signed_i   (int8_signed),
      .op_i       (int8_op),
      .sat_i      (in_sat_i),
      .avg_shift_i(in_avg_shift_i),
      .avg_final_i(in_avg_final_i),
      .avg_scale_i(in_avg_scale_i),
      .res_o      (int8_res[i*8+:8])
    );
  end

  for (genvar i = 0; i < 8; i++) begin : gen_lanes16
    xf_int_lane #(
      .WidthBits(16)
    ) u_int16 (
      .clk_i      (clk_i),
      .a_i        (in_a_i[i*16+:16]),
      .b_i        (in_b_i[i*16+:16]),
      .signed_i   (1'b1),
      .op_i       (in_op_i),
      .sat_i      (in_sat_i),
      .avg_shift_i(in_avg_shift_i),
      .avg_final_i(in_avg_final_i),
      .avg_scale_i(in_avg_scale_i),
      .res_o      (int16_res[i*16+:16])
    );

    xf_fp_add #(
      .ExpBits(5),
      .ManBits(10)
    ) u_fp16_add (
      .clk_i(clk_i),
      .a_i  (in_a_i[i*16+:16]),
      .b_i  (in_b_i[i*16+:16]),
      .sum_o(fp16_add_res[i*16+:16])
    );

    xf_fp_add #(
      .ExpBits(8),
      .ManBits(7)
    ) u_bf16_add (
      .clk_i(clk_i),
      .a_i  (in_a_i[i*16+:16]),
      .b_i  (in_b_i[i*16+:16]),
      .sum_o(bf16_add_res[i*16+:16])
    );

    xf_fp_maxmin #(
      .ExpBits(5),
      .ManBits(10)
    ) u_fp16_maxmin (
      .a_i  (in_a_i[i*16+:16]),
      .b_i  (in_b_i[i*16+:16]),
      .max_i(fp_max),
      .res_o(fp16_mm[i*16+:16])
    );

    xf_fp_maxmin #(
      .ExpBits(8),
      .ManBits(7)
    ) u_bf16_maxmin (
      .a_i  (in_a_i[i*16+:16]),
      .b_i  (in_b_i[i*16+:16]),
      .max_i(fp_max),
      .res_o(bf16_mm[i*16+:16])
    );
  end

  for (genvar i = 0; i < 4; i++) begin : gen_lanes32
    xf_int_lane #(
      .WidthBits(32)
    ) u_int32 (
      .clk_i      (clk_i),
      .a_i        (in_a_i[i*32+:32]),
      .b_i        (in_b_i[i*32+:32]),
      .signed_i   (1'b1),
      .op_i       (in_op_i),
      .sat_i      (in_sat_i),
      .avg_shift_i(in_avg_shift_i),
      .avg_final_i(in_avg_final_i),
      .avg_scale_i(in_avg_scale_i),
      .res_o      (int32_res[i*32+:32])
    );

    xf_fp_add #(
      .ExpBits(8),
      .ManBits(23)
    ) u_fp32_add (
      .clk_i(clk_i),
      .a_i  (in_a_i[i*32+:32]),
      .b_i  (in_b_i[i*32+:32]),
      .sum_o(fp32_add_res[i*32+:32])
    );

    xf_fp_maxmin #(
      .ExpBits(8),
      .ManBits(23)
    ) u_fp32_maxmin (
      .a_i  (in_a_i[i*32+:32]),
      .b_i  (in_b_i[i*32+:32]),
      .max_i(fp_max),
      .res_o(fp32_mm[i*32+:32])
    );
  end

  // Max/min of the flit's format, registered and delayed to line up with the lane units.
  logic [127:0] fp_mm, fp_mm_delayed;

  always_comb begin
    case (in_dtype_i)
      xf_defs_pkg::DTYPE_FP16: fp_mm = fp16_mm;
      xf_defs_pkg::DTYPE_BF16: fp_mm = bf16_mm;
      default:    fp_mm = fp32_mm;
    endcase
  end

  xf_delay #(
    .WidthBits(128),
    .Depth    (UnitLatencyCycles)
  ) u_fp_mm_delay (
    .clk_i (clk_i),
    .rst_ni(rst_ni),
    .d_i   (fp_mm),
    .q_o   (fp_mm_delayed)
  );

  // Control beside the lane units: valid, error, result select, tag.
  localparam int CtrlBits = 1 + 1 + 3 + TagBits;
  logic               ctrl_valid, ctrl_err;
  logic [2:0]         ctrl_sel;
  logic [TagBits-1:0] ctrl_tag;

  xf_delay #(
    .WidthBits(CtrlBits),
    .Depth    (UnitLatencyCycles)
  ) u_ctrl_delay (
    .clk_i (clk_i),
    .rst_ni(rst_ni),
    .d_i   ({in_valid_i, in_err, in_sel, in_tag_i}),
    .q_o   ({ctrl_valid, ctrl_err, ctrl_sel, ctrl_tag})
  );

  // ---- Output stage (cycle 4) -----------------------------------------------------------------
  logic               out_valid_d, out_valid_q;
  logic               err_d, err_q;
  logic [127:0]       out_data_d, out_data_q;
  logic [TagBits-1:0] out_tag_d, out_tag_q;

  always_comb begin
    out_valid_d = ctrl_valid;
    err_d = ctrl_err;
    out_tag_d = ctrl_tag;
    case (ctrl_sel)
      SelInt16:    out_data_d = int16_res;
      SelInt32:    out_data_d = int32_res;
      SelFp16Add:  out_data_d = fp16_add_res;
      SelBf16Add:  out_data_d = bf16_add_res;
      SelFp32Add:  out_data_d = fp32_add_res;
      SelFpMaxMin: out_data_d = fp_mm_delayed;
      default:     out_data_d = int8_res;
    endcase
  end

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      out_valid_q <= 1'b0;
      err_q       <= 1'b0;
      out_data_q  <= '0;
      out_tag_q   <= '0;
    end else begin
      out_valid_q <= out_valid_d;
      err_q       <= err_d;
      out_data_q  <= out_data_d;
      out_tag_q   <= out_tag_d;
    end
  end

  assign out_valid_o = out_valid_q;
  assign err_o = err_q;
  assign out_data_o = out_data_q;
  assign out_tag_o = out_tag_q;

  // ---- Assertions -----------------------------------------------------------------------------
  `ASSERT_KNOWN(InValidKnown_A, in_valid_i)
  `ASSERT_KNOWN(OutValidKnown_A, out_valid_o)
  // One $isunknown per signal: Icarus 11 reports a known concatenation of them as unknown.
  `ASSERT(OutDataKnown_A, !out_valid_o || !($isunknown(out_data_o) || $isunknown(out_tag_o) ||
                                           $isunknown(err_o)))
  `ASSERT(ErrOnlyWithValid_A, !err_o || out_valid_o)

endmodule
