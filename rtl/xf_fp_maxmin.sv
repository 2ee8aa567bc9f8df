// IEEE maxNum / minNum of two floating-point bit patterns for one lane of the reduction ALU
// (docs/alu.md section 4), as xf::alu_reduce defines them: if exactly one operand is NaN the other
// is returned unchanged; both NaN gives the canonical quiet NaN (positive sign, only the top
// fraction bit set); otherwise the larger (max) or smaller (min) value with -0 < +0. The values
// are compared as sign-magnitude order keys (positive: sign bit flipped; negative: all bits
// inverted), which are strictly increasing in the value, so equal keys mean equal bit patterns.
//
// Protocol: purely combinational, res_o from a_i, b_i and max_i; the caller registers it.
//
// Parameter constraints: ExpBits >= 2, ManBits >= 2 (fp32 8/23, fp16 5/10, bf16 8/7).
module xf_fp_maxmin #(
  // exponent field bits (8 for fp32 and bf16, 5 for fp16)
  parameter int ExpBits = 8,
  // fraction field bits, without the hidden bit (23 for fp32, 10 for fp16, 7 for bf16)
  parameter int ManBits = 23
) (
  input  logic [ExpBits+ManBits:0] a_i,    // first operand (bit pattern: sign, exponent, fraction)
  input  logic [ExpBits+ManBits:0] b_i,    // second operand
  input  logic                     max_i,  // 1: maximum, 0: minimum
  output logic [ExpBits+ManBits:0] res_o   // selected operand or the canonical NaN
);

  `include "xf_assert.svh"

  localparam int E = ExpBits;
  localparam int M = ManBits;
  localparam int W = 1 + E + M;

  `ASSERT_INIT(ExpBitsLegal_A, E >= 2)
  `ASSERT_INIT(ManBitsLegal_A, M >= 2)

  localparam logic [W-1:0] CanonicalNan = {1'b0, {E{1'b1}}, 1'b1, {(M - 1) {1'b0}}};

  logic         a_nan, b_nan, a_ge_b;
  logic [W-1:0] a_key, b_key;

  always_comb begin
    logic [ExpBits+ManBits:0] res_o_c;
    a_nan = (a_i[W-2:M] == '1) && (a_i[M-1:0] != '0);
    b_nan = (b_i[W-2:M] == '1) && (b_i[M-1:0] != '0);
    a_key = a_i[W-1] ? ~a_i : {1'b1, a_i[W-2:0]};
    b_key = b_i[W-1] ? ~b_i : {1'b1, b_i[W-2:0]};
    a_ge_b = a_key >= b_key;
    if (a_nan && b_nan) begin
      res_o_c = CanonicalNan;
    end else if (a_nan) begin
      res_o_c = b_i;
    end else if (b_nan) begin
      res_o_c = a_i;
    end else if (max_i) begin
      res_o_c = a_ge_b ? a_i : b_i;
    end else begin
      res_o_c = a_ge_b ? b_i : a_i;
    end
    res_o = res_o_c;
  end

endmodule
