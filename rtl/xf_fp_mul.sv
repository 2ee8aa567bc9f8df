// IEEE-754 binary floating-point multiplier for one lane of the reduction ALU's ScaleAdd
// (docs/alu.md section 6, s*b before the adder): round to nearest, ties to even; subnormal
// inputs and results kept (no flush to zero); infinities as IEEE (inf * 0 is invalid); every NaN
// result is the canonical quiet NaN (positive sign, only the top fraction bit set); the sign of
// a zero, infinite or finite result is the XOR of the operand signs. Bit-exact with
// xf::fp32_mul for (8, 23), the only format the ALU instantiates.
//
// Protocol: combinational, no clock and no state: prod_o is the product of a_i and b_i in the
// same cycle. xf_reduce_alu puts it in front of an xf_fp_add, inside that adder's first
// pipeline stage (docs/alu.md section 8).
//
// Datapath (P = ManBits+1 significand bits, PW = 2P product bits):
//   1. unpack: significands with their hidden bit (0 for subnormals), effective exponents (1 for
//      subnormals); the exact product of the significands, PW bits, and its leading zeros lz
//   2. e0 = exp_a + exp_b - Bias is the exponent field the product would have with its leading
//      one at bit PW-1 after a left shift of 0 when lz = 1 (normal inputs give lz 0 or 1); the
//      result is normal if e0 >= lz: shift left by lz, exponent field e0 + 1 - lz; otherwise
//      subnormal (exponent field 0): shift left by e0 if e0 >= 0, else right by -e0 (at most PW,
//      which already moves every bit below the rounding position) with the lost bits ORed into
//      bit 0
//   3. fraction = bits PW-2..P, guard = bit P-1, sticky = OR of bits P-2..0; round to nearest
//      even on the packed exponent|fraction (a carry moves into the exponent: subnormal to
//      normal, or up to infinity), overflow to infinity, specials
//
// Parameter constraints: ExpBits >= 2, ManBits >= 2.
module xf_fp_mul #(
  // exponent field bits (8 for fp32)
  parameter int ExpBits = 8,
  // fraction field bits, without the hidden bit (23 for fp32)
  parameter int ManBits = 23
) (
  input  logic [ExpBits+ManBits:0] a_i,    // first operand (bit pattern: sign, exponent, fraction)
  input  logic [ExpBits+ManBits:0] b_i,    // second operand
  output logic [ExpBits+ManBits:0] prod_o  // a * b rounded, combinational from a_i and b_i
);

  `include "xf_assert.svh"

  localparam int E = ExpBits;
  localparam int M = ManBits;
  localparam int W = 1 + E + M;            // format width
  localparam int P = M + 1;                // significand bits with the hidden bit
  localparam int PW = 2 * P;               // exact product of two significands
  localparam int LzBits = $clog2(PW + 1);  // leading-zero count 0..PW
  localparam int XE = E + 3;               // signed exponent arithmetic, no overflow possible
  localparam int Bias = (1 << (E - 1)) - 1;

  `ASSERT_INIT(ExpBitsLegal_A, E >= 2)
  `ASSERT_INIT(ManBitsLegal_A, M >= 2)

  localparam logic [W-1:0] CanonicalNan = {1'b0, {E{1'b1}}, 1'b1, {(M - 1) {1'b0}}};

  logic                a_nan, b_nan, a_inf, b_inf, a_zero, b_zero, sign;
  logic [P-1:0]        a_sig, b_sig;
  logic [E-1:0]        a_exp, b_exp;       // effective exponents (1 for subnormals and zero)
  logic [PW-1:0]       prod;               // exact significand product
  logic [LzBits-1:0]   lz;                 // leading zeros of prod (PW if zero)
  logic signed [XE-1:0] e0;                // exponent field before normalisation
  logic signed [XE-1:0] lz_s;              // lz, signed
  logic [LzBits-1:0]   rsh;                // right shift of a small subnormal result, <= PW
  logic [2*PW-1:0]     wide;               // prod right-shifted, the lost bits in the low half
  logic [PW-1:0]       norm;               // hidden bit at PW-1, fraction, guard, sticky bits
  logic [E:0]          norm_exp;           // exponent field of norm (0: subnormal), 1 bit spare
  logic signed [XE-1:0] norm_exp_s;
  logic                round_up;
  logic [E+M:0]        rounded;            // {exponent (E+1 bits), fraction} after rounding

  always_comb begin
    logic [ExpBits+ManBits:0] prod_o_c;
    a_nan = (a_i[W-2:M] == '1) && (a_i[M-1:0] != '0);
    b_nan = (b_i[W-2:M] == '1) && (b_i[M-1:0] != '0);
    a_inf = (a_i[W-2:M] == '1) && (a_i[M-1:0] == '0);
    b_inf = (b_i[W-2:M] == '1) && (b_i[M-1:0] == '0);
    a_zero = (a_i[W-2:0] == '0);
    b_zero = (b_i[W-2:0] == '0);
    sign = a_i[W-1] ^ b_i[W-1];
    a_sig = {a_i[W-2:M] != '0, a_i[M-1:0]};
    b_sig = {b_i[W-2:M] != '0, b_i[M-1:0]};
    a_exp = (a_i[W-2:M] == '0) ? E'(1) : a_i[W-2:M];
    b_exp = (b_i[W-2:M] == '0) ? E'(1) : b_i[W-2:M];
    prod = PW'(a_sig) * PW'(b_sig);
    lz = LzBits'(PW);
    for (int i = 0; i < PW; i++) begin
      if (prod[i]) lz = LzBits'(PW - 1 - i);
    end
    lz_s = XE'(lz);
    e0 = XE'(a_exp) + XE'(b_exp) - XE'(Bias);
    rsh = '0;
    wide = '0;
    norm_exp_s = '0;
    if (e0 >= lz_s) begin
      norm = prod << lz;
      norm_exp_s = e0 + XE'(1) - lz_s;
    end else if (e0 >= 0) begin
      norm = prod << e0[LzBits-1:0];  // e0 < lz <= PW
    end else begin
      rsh = (-e0 >= XE'(PW)) ? LzBits'(PW) : LzBits'(-e0);
      wide = {prod, {PW{1'b0}}} >> rsh;
      norm = {wide[2*PW-1:PW+1], wide[PW] | (wide[PW-1:0] != '0)};
    end
    norm_exp = norm_exp_s[E:0];  // 0 .. 2^(E+1)-1: e0 + 1 <= 2 * (2^E - 2) - Bias + 1
    round_up = norm[P-1] & (norm[P] | (norm[P-2:0] != '0));
    rounded = {norm_exp, norm[PW-2:P]} + (E + M + 1)'(round_up);
    if (a_nan || b_nan || (a_inf && b_zero) || (a_zero && b_inf)) begin
      prod_o_c = CanonicalNan;
    end else if (a_inf || b_inf) begin
      prod_o_c = {sign, {E{1'b1}}, {M{1'b0}}};
    end else if (a_zero || b_zero) begin
      prod_o_c = {sign, {(W - 1) {1'b0}}};
    end else if (rounded[E+M:M] >= {1'b0, {E{1'b1}}}) begin
      prod_o_c = {sign, {E{1'b1}}, {M{1'b0}}};  // overflow to infinity
    end else begin
      prod_o_c = {sign, rounded[E+M-1:0]};
    end
    prod_o = prod_o_c;
  end

  // The hidden bit is implied by the exponent field; the top bits of the signed exponent are
  // known to be zero where norm_exp is used.
  logic unused_bits;
  assign unused_bits = ^{norm[PW-1], norm_exp_s[XE-1:E+1]};

endmodule
