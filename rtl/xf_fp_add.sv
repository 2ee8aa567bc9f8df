// IEEE-754 binary floating-point adder for one lane of the reduction ALU (docs/alu.md section 4):
// round to nearest, ties to even; subnormal inputs and results kept (no flush to zero);
// infinities as IEEE (inf + -inf is invalid); every NaN result is the canonical quiet NaN
// (positive sign, only the top fraction bit set); an exact zero sum is +0 unless both operands
// are negative (-0 + -0 = -0). Instantiated for fp32 (8, 23), fp16 (5, 10) and bf16 (8, 7): it is
// correctly rounded in its own format, which equals xf::fp16_add / xf::bf16_add (widen to fp32,
// add, round once) because fp32 has at least 2p+2 significand bits for both narrow formats.
//
// Protocol: a pure datapath with no valid and no reset; sum_o is the sum of the operands
// presented LatencyCycles = 3 rising edges earlier (one result per cycle, no stalls).
//
// Pipeline (P = ManBits+1 significand bits, 3 extra bits below them: guard, round, sticky):
//   stage 1  unpack and classify; swap so that x has the larger magnitude; the alignment shift
//            (the exponent difference, limited to P+3) and the sticky bit of the alignment
//            (y has a one bit that the shift moves below the round bit: its trailing zeros + 3
//            <= the shift), side by side
//   stage 2  align y by the shift into P+3 bits with the sticky bit last; add or subtract the
//            significands (P+4 bits, never negative); count leading zeros
//   stage 3  normalise (right by one on a carry, else left by the leading zeros, limited so the
//            exponent does not go below the subnormal one), round to nearest even on the packed
//            exponent|fraction (a carry moves into the exponent, up to infinity), specials
// The shifter sits in stage 2 so that stage 1, which follows the tile's DMEM block RAM and the
// ALU's operand multiplexer, holds none (docs/alu.md section 8).
// The sticky bit only appears when the exponents differ by 4 or more; the result then needs at
// most one left shift, so the rounding position stays at least two bits above the sticky bit and
// the truncated operand rounds exactly as the true one.
//
// Parameter constraints: ExpBits >= 2, ManBits >= 2 (the formats above).
module xf_fp_add #(
  // exponent field bits (8 for fp32 and bf16, 5 for fp16)
  parameter int ExpBits = 8,
  // fraction field bits, without the hidden bit (23 for fp32, 10 for fp16, 7 for bf16)
  parameter int ManBits = 23
) (
  input  logic                     clk_i,  // clock; every register samples on the rising edge
  input  logic [ExpBits+ManBits:0] a_i,    // first operand (bit pattern: sign, exponent, fraction)
  input  logic [ExpBits+ManBits:0] b_i,    // second operand
  output logic [ExpBits+ManBits:0] sum_o   // a + b, 3 cycles after the operands
);

  `include "xf_assert.svh"

  localparam int E = ExpBits;
  localparam int M = ManBits;
  localparam int W = 1 + E + M;           // format width
  localparam int P = M + 1;               // significand bits with the hidden bit
  localparam int XW = P + 3;              // aligned significand: guard, round and sticky below
  localparam int ZW = XW + 1;             // sum with its carry
  localparam int LzBits = $clog2(XW + 1); // leading-zero count 0..XW
  localparam int ShBits = $clog2(XW + 1); // alignment shift 0..XW (XW shifts everything out)

  `ASSERT_INIT(ExpBitsLegal_A, E >= 2)
  `ASSERT_INIT(ManBitsLegal_A, M >= 2)

  localparam logic [W-1:0] CanonicalNan = {1'b0, {E{1'b1}}, 1'b1, {(M - 1) {1'b0}}};

  // ---- Stage 1: classify, swap, the alignment shift and its sticky bit -----------------------
  logic         a_nan, b_nan, a_inf, b_inf, a_ge_b;
  logic [W-1:0] x;                         // operand with the larger magnitude
  logic [E-1:0] x_exp;                     // its effective exponent (1 for subnormals and zero)
  logic [P-1:0] y_sig;                     // the other one's significand
  logic [ShBits-1:0] shamt;
  logic [XW-2:0]     y_hi;                 // y aligned, above the sticky bit (stage 2)
  logic [XW-1:0]     s1_x_d, s1_x_q;       // x's significand with the three extra bits
  logic [P-1:0]      s1_ysig_q;            // y's significand, not yet aligned
  logic [ShBits-1:0] s1_shamt_q;           // its alignment shift
  logic [E-1:0]      a_exp, b_exp, diff_ab, diff_ba;  // both orders (effective exponents)
  logic [P-1:0]      a_sig, b_sig;
  logic [ShBits-1:0] sh_ab, sh_ba;
  logic [ShBits:0]   tz_a, tz_b;           // trailing zeros of a_sig, b_sig (P if zero)
  logic              st_ab, st_ba;
  logic              sticky_d, s1_sticky_q;  // a one bit of y goes below the round bit
  logic [XW-1:0]     s1_y;                 // y aligned (stage 2)
  logic [E-1:0]      s1_exp_q;             // exponent of x (effective)
  logic              s1_sign_q;            // sign of x: the sign of a non-zero result
  logic              s1_sub_d, s1_sub_q;   // effective subtraction
  logic              s1_nan_d, s1_nan_q;   // result is NaN
  logic              s1_inf_d, s1_inf_q;   // result is an infinity (unless NaN)
  logic              s1_inf_sign_d, s1_inf_sign_q;
  logic              s1_zero_sign_d, s1_zero_sign_q;  // sign of an exact zero result

  always_comb begin
    a_nan = (a_i[W-2:M] == '1) && (a_i[M-1:0] != '0);
    b_nan = (b_i[W-2:M] == '1) && (b_i[M-1:0] != '0);
    a_inf = (a_i[W-2:M] == '1) && (a_i[M-1:0] == '0);
    b_inf = (b_i[W-2:M] == '1) && (b_i[M-1:0] == '0);
    a_ge_b = a_i[W-2:0] >= b_i[W-2:0];
    x = a_ge_b ? a_i : b_i;
    // Both orders are computed beside the magnitude compare and chosen by it last (x = a, y = b
    // or the other way round): effective exponents, significands, the exponent difference
    // (never negative in the order chosen), the shift and the sticky bit.
    a_exp = (a_i[W-2:M] == '0) ? E'(1) : a_i[W-2:M];
    b_exp = (b_i[W-2:M] == '0) ? E'(1) : b_i[W-2:M];
    a_sig = {a_i[W-2:M] != '0, a_i[M-1:0]};
    b_sig = {b_i[W-2:M] != '0, b_i[M-1:0]};
    diff_ab = a_exp - b_exp;
    diff_ba = b_exp - a_exp;
    sh_ab = (diff_ab > E'(XW)) ? ShBits'(XW) : diff_ab[ShBits-1:0];
    sh_ba = (diff_ba > E'(XW)) ? ShBits'(XW) : diff_ba[ShBits-1:0];
    // Bit k of y's significand lands at XW + 3 + k - shift after the shift, in the sticky bit
    // when that is XW or less: some one bit of it has k + 3 <= shift.
    tz_a = (ShBits + 1)'(P);
    tz_b = (ShBits + 1)'(P);
    for (int k = P - 1; k >= 0; k--) begin
      if (a_sig[k]) tz_a = (ShBits + 1)'(k);
      if (b_sig[k]) tz_b = (ShBits + 1)'(k);
    end
    st_ab = (b_sig != '0) && (tz_b + (ShBits + 1)'(3) <= {1'b0, sh_ab});
    st_ba = (a_sig != '0) && (tz_a + (ShBits + 1)'(3) <= {1'b0, sh_ba});
    x_exp = a_ge_b ? a_exp : b_exp;
    y_sig = a_ge_b ? b_sig : a_sig;
    shamt = a_ge_b ? sh_ab : sh_ba;
    sticky_d = a_ge_b ? st_ab : st_ba;
    s1_x_d = {x[W-2:M] != '0, x[M-1:0], 3'b000};
    s1_sub_d = a_i[W-1] ^ b_i[W-1];
    s1_nan_d = a_nan || b_nan || (a_inf && b_inf && s1_sub_d);
    s1_inf_d = a_inf || b_inf;
    s1_inf_sign_d = a_inf ? a_i[W-1] : b_i[W-1];
    s1_zero_sign_d = a_i[W-1] & b_i[W-1];
  end

  always_ff @(posedge clk_i) begin
    s1_x_q         <= s1_x_d;
    s1_ysig_q      <= y_sig;
    s1_shamt_q     <= shamt;
    s1_sticky_q    <= sticky_d;
    s1_exp_q       <= x_exp;
    s1_sign_q      <= x[W-1];
    s1_sub_q       <= s1_sub_d;
    s1_nan_q       <= s1_nan_d;
    s1_inf_q       <= s1_inf_d;
    s1_inf_sign_q  <= s1_inf_sign_d;
    s1_zero_sign_q <= s1_zero_sign_d;
  end

  // ---- Stage 2: align, add or subtract, count leading zeros -----------------------------------
  logic [ZW-1:0]     s2_z_d, s2_z_q;
  logic [LzBits-1:0] s2_lz_d, s2_lz_q;     // leading zeros of z[XW-1:0] (XW if all zero)
  logic [E-1:0]      s2_exp_q;
  logic              s2_sign_q, s2_nan_q, s2_inf_q, s2_inf_sign_q, s2_zero_sign_q;

  always_comb begin
    y_hi = {s1_ysig_q, 2'b00} >> s1_shamt_q;  // {y_sig, guard, round} shifted
    s1_y = {y_hi, s1_sticky_q};
    s2_z_d = s1_sub_q ? ({1'b0, s1_x_q} - {1'b0, s1_y}) : ({1'b0, s1_x_q} + {1'b0, s1_y});
    s2_lz_d = LzBits'(XW);
    for (int i = 0; i < XW; i++) begin
      if (s2_z_d[i]) s2_lz_d = LzBits'(XW - 1 - i);
    end
  end

  always_ff @(posedge clk_i) begin
    s2_z_q         <= s2_z_d;
    s2_lz_q        <= s2_lz_d;
    s2_exp_q       <= s1_exp_q;
    s2_sign_q      <= s1_sign_q;
    s2_nan_q       <= s1_nan_q;
    s2_inf_q       <= s1_inf_q;
    s2_inf_sign_q  <= s1_inf_sign_q;
    s2_zero_sign_q <= s1_zero_sign_q;
  end

  // ---- Stage 3: normalise, round, pack --------------------------------------------------------
  logic [XW-1:0]  norm;       // hidden bit at XW-1, fraction, guard, two sticky bits
  logic [E:0]     norm_exp;   // exponent field of norm (0: subnormal), one bit of overflow room
  logic [E:0]     exp_wide;   // s2_exp_q widened
  logic [E:0]     lz_wide;    // s2_lz_q widened
  logic           round_up;
  logic [E+M:0]   rounded;    // {exponent (E+1 bits), fraction} after rounding
  logic [W-1:0]   s3_sum_d, s3_sum_q;

  always_comb begin
    exp_wide = {1'b0, s2_exp_q};
    lz_wide = (E + 1)'(s2_lz_q);
    if (s2_z_q[ZW-1]) begin
      // Carry out: one right shift, the lost bit joins the sticky bit.
      norm = {s2_z_q[ZW-1:2], s2_z_q[1] | s2_z_q[0]};
      norm_exp = exp_wide + 1'b1;
    end else if (lz_wide < exp_wide) begin
      norm = s2_z_q[XW-1:0] << s2_lz_q;
      norm_exp = exp_wide - lz_wide;
    end else begin
      // The exponent would go below the smallest normal one: subnormal (or zero) result.
      norm = s2_z_q[XW-1:0] << (exp_wide - 1'b1);
      norm_exp = '0;
    end
    round_up = norm[2] & (norm[3] | norm[1] | norm[0]);
    rounded = {norm_exp, norm[XW-2:3]} + (E + M + 1)'(round_up);
    if (s2_nan_q) begin
      s3_sum_d = CanonicalNan;
    end else if (s2_inf_q) begin
      s3_sum_d = {s2_inf_sign_q, {E{1'b1}}, {M{1'b0}}};
    end else if (s2_z_q == '0) begin
      s3_sum_d = {s2_zero_sign_q, {(W - 1) {1'b0}}};
    end else if (rounded[E+M:M] >= {1'b0, {E{1'b1}}}) begin
      s3_sum_d = {s2_sign_q, {E{1'b1}}, {M{1'b0}}};  // overflow to infinity
    end else begin
      s3_sum_d = {s2_sign_q, rounded[E+M-1:0]};
    end
  end

  always_ff @(posedge clk_i) begin
    s3_sum_q <= s3_sum_d;
  end

  assign sum_o = s3_sum_q;

  // The hidden bit of a normalised significand is implied by the exponent field.
  logic unused_bits;
  assign unused_bits = norm[XW-1];

endmodule
