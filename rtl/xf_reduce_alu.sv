// Reduction ALU of a tile's receive engine (docs/alu.md): combines the
// local flit a with the arriving flit b lane by lane, for every dtype/op pair of docs/alu.md,
// bit-exact with the C++ reference xf::alu_reduce. Fully pipelined: one flit in and one flit out
// per cycle, each flit with its own configuration.
//
// Protocol: no back-pressure. A flit is accepted in every cycle in which in_valid_i is high,
// with its configuration (in_dtype_i .. in_scale_i) and tag sampled in the same cycle. Its
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
// ScaleAdd only on fp32, dtype 7 and op 5..7 undefined) or the dtype or ScaleAdd is not built
// (AluDtypes), err_o is high with that flit's out_valid_o and out_data_o is in_a_i unchanged.
//
// Lanes (little-endian in the flit, lane i at bits [i*w +: w]): FlitBits/8 x int8/uint8,
// FlitBits/16 x int16/fp16/bf16, FlitBits/32 x int32/fp32 (16, 8, 4 at 128 bits; 4, 2, 1 at 32).
// Every lane unit that is built computes every cycle; the output stage selects by dtype and op.
// The latency is the same at every width.
//
// Build subsets (AluDtypes, bit d = dtype d is built, bit 7 = the fp32 ScaleAdd multipliers):
// the units a build does not need are not instantiated, and a flit of a dtype that is not built
// (or a ScaleAdd without bit 7) is an invalid pair. Which unit is built for which bit, and which
// one passes a through: docs/alu.md section 9. Every build has the same ports and latency; the
// default 8'hFF builds every unit.
//
// Pipeline (LatencyCycles = UnitLatencyCycles + 1 = 4):
//   cycles 1-3  lane units (xf_int_lane, xf_fp_add: 3 registered stages each); fp max/min is
//               combinational (xf_fp_maxmin), registered in cycle 1 and delayed to cycle 3;
//               valid, error, result select and tag travel through xf_delay beside them.
//               fp32 ScaleAdd (a + s*b): the combinational xf_fp_mul forms s*b (rounded) in
//               cycle 1, in front of the fp32 adder's first stage, which takes it in place of b;
//               the adder then runs as for Sum (two roundings, as xf::alu_reduce)
//   cycle 4     result select (int8, int16, int32, fp16 add, bf16 add, fp32 add, fp max/min,
//               the pass-through of a), output registers
//
// Parameter constraints: FlitBits 32, 64 or 128; TagBits >= 1; AluDtypes[7] only with
// AluDtypes[6] (ScaleAdd is fp32).
module xf_reduce_alu #(
  // flit width of the machine: 32, 64 or 128 (docs/packets.md section 2)
  parameter int FlitBits = xf_defs_pkg::FlitBits,
  // bits of the user tag carried beside each flit (the receive engine's address)
  parameter int TagBits = 32,
  // units built: bit d = dtype d (0 int8, 1 uint8, 2 int16, 3 int32, 4 fp16, 5 bf16, 6 fp32),
  // bit 7 = fp32 ScaleAdd
  parameter logic [7:0] AluDtypes = 8'hFF
) (
  input  logic                 clk_i,           // clock
  input  logic                 rst_ni,          // asynchronous reset, active low
  // input stream, one flit per cycle, no back-pressure
  input  logic                 in_valid_i,      // a flit and its configuration are presented
  input  logic [FlitBits-1:0]  in_a_i,          // local flit: first operand a of every lane
  input  logic [FlitBits-1:0]  in_b_i,          // arriving flit: second operand b of every lane
  input  xf_defs_pkg::dtype_e  in_dtype_i,      // element type of the lanes
  input  xf_defs_pkg::red_op_e in_op_i,         // reduction op
  input  logic                 in_sat_i,        // integer Sum saturates instead of wrapping
  input  logic [3:0]           in_avg_shift_i,  // Avg: b is floor-divided by 2^avg_shift first
  input  logic                 in_avg_final_i,  // Avg: apply the final scale
  input  logic [31:0]          in_avg_scale_i,  // Avg final scale, unsigned Q1.31 (< 2.0)
  input  logic [31:0]          in_scale_i,      // ScaleAdd factor s, fp32 bit pattern (CSR 17)
  input  logic [TagBits-1:0]   in_tag_i,        // user tag, returned unchanged with the result
  // output stream, LatencyCycles after the input
  output logic                 out_valid_o,     // a result is presented (in_valid_i 4 cycles ago)
  output logic [FlitBits-1:0]  out_data_o,      // result flit (in_a_i unchanged when err_o)
  output logic [TagBits-1:0]   out_tag_o,       // in_tag_i of that flit
  output logic                 err_o            // invalid or unbuilt pair; only with out_valid_o
);

  `include "xf_assert.svh"
  `include "xf_types.svh"

  // Cycles from a flit on the inputs to its result on the outputs.
  localparam int LatencyCycles = 4;
  // Latency of the lane units (xf_int_lane, xf_fp_add).
  localparam int UnitLatencyCycles = 3;
  // Lanes of each element width.
  localparam int Lanes8 = FlitBits / 8;
  localparam int Lanes16 = FlitBits / 16;
  localparam int Lanes32 = FlitBits / 32;

  `ASSERT_INIT(TagBitsLegal_A, TagBits >= 1)
  `ASSERT_INIT(FlitBitsLegal_A, FlitBits == 32 || FlitBits == 64 || FlitBits == 128)
  `ASSERT_INIT(LatencyLegal_A, LatencyCycles == UnitLatencyCycles + 1)
  `ASSERT_INIT(AluDtypesLegal_A, !AluDtypes[7] || AluDtypes[6])

  // Units built (docs/alu.md section 9).
  localparam bit BuildInt8 = AluDtypes[xf_defs_pkg::DTYPE_INT8] ||
                             AluDtypes[xf_defs_pkg::DTYPE_UINT8];
  localparam bit BuildInt16 = AluDtypes[xf_defs_pkg::DTYPE_INT16];
  localparam bit BuildInt32 = AluDtypes[xf_defs_pkg::DTYPE_INT32];
  localparam bit BuildFp16 = AluDtypes[xf_defs_pkg::DTYPE_FP16];
  localparam bit BuildBf16 = AluDtypes[xf_defs_pkg::DTYPE_BF16];
  localparam bit BuildFp32 = AluDtypes[xf_defs_pkg::DTYPE_FP32];
  localparam bit BuildScaleAdd = BuildFp32 && AluDtypes[xf_defs_pkg::AluScaleAddBit];
  localparam bit BuildFpMaxMin = BuildFp16 || BuildBf16 || BuildFp32;
  // The unit that passes a through (errors, Write flits): the first built of these.
  localparam int PassInt8 = 0;
  localparam int PassInt16 = 1;
  localparam int PassInt32 = 2;
  localparam int PassFpMaxMin = 3;  // the max/min delay line carries a instead of a max/min
  localparam int PassDelay = 4;     // nothing else is built: a delay line of a alone
  localparam int PassUnit = BuildInt8 ? PassInt8 : BuildInt16 ? PassInt16 :
                            BuildInt32 ? PassInt32 : BuildFpMaxMin ? PassFpMaxMin : PassDelay;

  // Which unit's result leaves in the output stage.
  localparam logic [2:0] SelInt8 = 3'd0;     // int8/uint8 lanes, or the pass-through of a
  localparam logic [2:0] SelInt16 = 3'd1;
  localparam logic [2:0] SelInt32 = 3'd2;
  localparam logic [2:0] SelFp16Add = 3'd3;
  localparam logic [2:0] SelBf16Add = 3'd4;
  localparam logic [2:0] SelFp32Add = 3'd5;
  localparam logic [2:0] SelFpMaxMin = 3'd6;  // fp16, bf16 or fp32 max/min (selected earlier)

  // ---- Decode (cycle 0, combinational from the inputs) ----------------------------------------
  logic       pair_ok;
  logic       in_err;
  logic       int8_signed;
  logic [2:0] pass_op;  // red_op_e for the pass-through unit: ScaleAdd (pass a) on an invalid pair
  logic       fp_max, fp_add;
  logic       fp_scale_add;  // fp32 adder: b is s*b (the op is ScaleAdd)
  logic [2:0] in_sel;

  always_comb begin
    logic [2:0] pass_op_c;
    logic [2:0] in_sel_c;
    // xf::built_pair (rtl/xf_types.svh): a valid pair of a dtype this build has, ScaleAdd only
    // if it has the multipliers (bit AluScaleAddBit of AluDtypes is ScaleAdd, not a dtype). The
    // guard keeps a build without units from folding the call (docs/conventions.md rule 9).
    pair_ok = AluDtypes != 8'h00 && built_pair(AluDtypes, in_dtype_i, in_op_i);
    in_err = in_valid_i && !pair_ok;
    int8_signed = (in_dtype_i != xf_defs_pkg::DTYPE_UINT8);
    pass_op_c = xf_defs_pkg::RED_OP_SCALE_ADD;
    if (pair_ok) pass_op_c = in_op_i;
    fp_max = (in_op_i == xf_defs_pkg::RED_OP_MAX);
    fp_scale_add = (in_op_i == xf_defs_pkg::RED_OP_SCALE_ADD);
    fp_add = 1'b0;
    in_sel_c = SelInt8;
    if (pair_ok) begin
      // Sum, or (fp32 only, the only valid pair) ScaleAdd: both leave through the adders.
      fp_add = (in_op_i == xf_defs_pkg::RED_OP_SUM) || fp_scale_add;
      case (in_dtype_i)
        xf_defs_pkg::DTYPE_INT16: in_sel_c = SelInt16;
        xf_defs_pkg::DTYPE_INT32: in_sel_c = SelInt32;
        xf_defs_pkg::DTYPE_FP16:  in_sel_c = fp_add ? SelFp16Add : SelFpMaxMin;
        xf_defs_pkg::DTYPE_BF16:  in_sel_c = fp_add ? SelBf16Add : SelFpMaxMin;
        xf_defs_pkg::DTYPE_FP32:  in_sel_c = fp_add ? SelFp32Add : SelFpMaxMin;
        default:                  in_sel_c = SelInt8;
      endcase
    end
    pass_op = pass_op_c;
    in_sel = in_sel_c;
  end

  // ---- Lane units -----------------------------------------------------------------------------
  // Units that are not built drive 0; the decode never selects them.
  logic [FlitBits-1:0] int8_res, int16_res, int32_res, fp16_add_res, bf16_add_res, fp32_add_res;
  logic [FlitBits-1:0] fp16_mm, bf16_mm, fp32_mm;  // combinational max/min of every format

  if (BuildInt8) begin : gen_int8
    for (genvar i = 0; i < Lanes8; i++) begin : gen_lanes8
      xf_int_lane #(
        .WidthBits(8)
      ) u_int8 (
        .clk_i      (clk_i),
        .a_i        (in_a_i[i*8+:8]),
        .b_i        (in_b_i[i*8+:8]),
        .signed_i   (int8_signed),
        .op_i       (pass_op),
        .sat_i      (in_sat_i),
        .avg_shift_i(in_avg_shift_i),
        .avg_final_i(in_avg_final_i),
        .avg_scale_i(in_avg_scale_i),
        .res_o      (int8_res[i*8+:8])
      );
    end
  end else begin : gen_no_int8
    assign int8_res = '0;
  end

  if (BuildInt16) begin : gen_int16
    for (genvar i = 0; i < Lanes16; i++) begin : gen_lanes16
      xf_int_lane #(
        .WidthBits(16)
      ) u_int16 (
        .clk_i      (clk_i),
        .a_i        (in_a_i[i*16+:16]),
        .b_i        (in_b_i[i*16+:16]),
        .signed_i   (1'b1),
        .op_i       ((PassUnit == PassInt16) ? pass_op : in_op_i),
        .sat_i      (in_sat_i),
        .avg_shift_i(in_avg_shift_i),
        .avg_final_i(in_avg_final_i),
        .avg_scale_i(in_avg_scale_i),
        .res_o      (int16_res[i*16+:16])
      );
    end
  end else begin : gen_no_int16
    assign int16_res = '0;
  end

  if (BuildInt32) begin : gen_int32
    for (genvar i = 0; i < Lanes32; i++) begin : gen_lanes32
      xf_int_lane #(
        .WidthBits(32)
      ) u_int32 (
        .clk_i      (clk_i),
        .a_i        (in_a_i[i*32+:32]),
        .b_i        (in_b_i[i*32+:32]),
        .signed_i   (1'b1),
        .op_i       ((PassUnit == PassInt32) ? pass_op : in_op_i),
        .sat_i      (in_sat_i),
        .avg_shift_i(in_avg_shift_i),
        .avg_final_i(in_avg_final_i),
        .avg_scale_i(in_avg_scale_i),
        .res_o      (int32_res[i*32+:32])
      );
    end
  end else begin : gen_no_int32
    assign int32_res = '0;
  end

  if (BuildFp16) begin : gen_fp16
    for (genvar i = 0; i < Lanes16; i++) begin : gen_lanes16
      xf_fp_add #(
        .ExpBits(5),
        .ManBits(10)
      ) u_fp16_add (
        .clk_i(clk_i),
        .a_i  (in_a_i[i*16+:16]),
        .b_i  (in_b_i[i*16+:16]),
        .sum_o(fp16_add_res[i*16+:16])
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
    end
  end else begin : gen_no_fp16
    assign fp16_add_res = '0;
    assign fp16_mm = '0;
  end

  if (BuildBf16) begin : gen_bf16
    for (genvar i = 0; i < Lanes16; i++) begin : gen_lanes16
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
        .ExpBits(8),
        .ManBits(7)
      ) u_bf16_maxmin (
        .a_i  (in_a_i[i*16+:16]),
        .b_i  (in_b_i[i*16+:16]),
        .max_i(fp_max),
        .res_o(bf16_mm[i*16+:16])
      );
    end
  end else begin : gen_no_bf16
    assign bf16_add_res = '0;
    assign bf16_mm = '0;
  end

  if (BuildFp32) begin : gen_fp32
    for (genvar i = 0; i < Lanes32; i++) begin : gen_lanes32
      logic [31:0] scaled_b;  // s * b, rounded (combinational); b itself without ScaleAdd

      if (BuildScaleAdd) begin : gen_scale_add
        xf_fp_mul #(
          .ExpBits(8),
          .ManBits(23)
        ) u_fp32_mul (
          .a_i   (in_scale_i),
          .b_i   (in_b_i[i*32+:32]),
          .prod_o(scaled_b)
        );
      end else begin : gen_no_scale_add
        assign scaled_b = in_b_i[i*32+:32];
      end

      xf_fp_add #(
        .ExpBits(8),
        .ManBits(23)
      ) u_fp32_add (
        .clk_i(clk_i),
        .a_i  (in_a_i[i*32+:32]),
        .b_i  (fp_scale_add ? scaled_b : in_b_i[i*32+:32]),
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
  end else begin : gen_no_fp32
    assign fp32_add_res = '0;
    assign fp32_mm = '0;
  end

  // Max/min of the flit's format, registered and delayed to line up with the lane units. A
  // format that is not built falls back to one that is (its flits are errors: never selected),
  // so a build with one float format has no multiplexer here. When no integer lanes are built,
  // this line also carries a through for the errors.
  logic [FlitBits-1:0] fp_mm_any;  // the fallback: fp32, else bf16, else fp16
  logic [FlitBits-1:0] fp_mm_delayed;
  assign fp_mm_any = BuildFp32 ? fp32_mm : BuildBf16 ? bf16_mm : fp16_mm;

  if (BuildFpMaxMin) begin : gen_fp_mm
    logic [FlitBits-1:0] fp_mm;

    always_comb begin
      logic [FlitBits-1:0] fp_mm_c;
      case (in_dtype_i)
        xf_defs_pkg::DTYPE_FP16: fp_mm_c = BuildFp16 ? fp16_mm : fp_mm_any;
        xf_defs_pkg::DTYPE_BF16: fp_mm_c = BuildBf16 ? bf16_mm : fp_mm_any;
        default:    fp_mm_c = fp_mm_any;
      endcase
      if (PassUnit == PassFpMaxMin && !pair_ok) fp_mm_c = in_a_i;
      fp_mm = fp_mm_c;
    end

    xf_delay #(
      .WidthBits(FlitBits),
      .Depth    (UnitLatencyCycles)
    ) u_fp_mm_delay (
      .clk_i (clk_i),
      .rst_ni(rst_ni),
      .d_i   (fp_mm),
      .q_o   (fp_mm_delayed)
    );
  end else begin : gen_no_fp_mm
    assign fp_mm_delayed = '0;
  end

  // Inputs and results a subset build may leave unused.
  logic unused_subset;
  assign unused_subset = ^{int8_signed, pass_op, fp_max, fp_scale_add, in_sat_i, in_avg_shift_i,
                           in_avg_final_i, in_avg_scale_i, in_scale_i, in_b_i, int8_res,
                           fp_mm_any};

  // The pass-through of a and the int8/uint8 results (the output stage's default).
  logic [FlitBits-1:0] pass_res;

  if (PassUnit == PassInt8) begin : gen_pass_int8
    assign pass_res = int8_res;
  end else if (PassUnit == PassInt16) begin : gen_pass_int16
    assign pass_res = int16_res;
  end else if (PassUnit == PassInt32) begin : gen_pass_int32
    assign pass_res = int32_res;
  end else if (PassUnit == PassFpMaxMin) begin : gen_pass_fp_mm
    assign pass_res = fp_mm_delayed;
  end else begin : gen_pass_delay
    xf_delay #(
      .WidthBits(FlitBits),
      .Depth    (UnitLatencyCycles)
    ) u_pass_delay (
      .clk_i (clk_i),
      .rst_ni(rst_ni),
      .d_i   (in_a_i),
      .q_o   (pass_res)
    );
  end

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
  logic                out_valid_d, out_valid_q;
  logic                err_d, err_q;
  logic [FlitBits-1:0] out_data_d, out_data_q;
  logic [TagBits-1:0]  out_tag_d, out_tag_q;

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
      default:     out_data_d = pass_res;  // int8/uint8, or a passed through
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
