// Reduction ALU reference: the bit-exact C++ definition of every dtype/op pair.
//
// The SystemC model and the plain C++ reference both call these functions; the RTL ALU is
// checked against them. Semantics (docs/alu.md):
//  - integer sum wraps (two's complement) unless `sat` is set, then it clamps to the type range;
//  - max/min on integers are the obvious ones;
//  - fp16/bf16/fp32 sum is IEEE-754 binary addition rounded to nearest even, with subnormals
//    kept (no flush), computed exactly as the host computes float addition (fp16/bf16 are widened
//    to fp32, added, rounded once back; this equals a correctly rounded fp16/bf16 add);
//  - any NaN result is the canonical quiet NaN of the type (positive sign, top mantissa bit
//    only: fp32 0x7FC00000, fp16 0x7E00, bf16 0x7FC0), so every op is commutative bit for bit;
//  - float max/min: if one operand is NaN the other is returned (IEEE maxNum/minNum, like
//    std::fmax/std::fmin); both NaN gives the canonical NaN; -0 < +0;
//  - avg (integers only, averaging patent): result = (a + (b >>> avg_shift)) >>> 1 with one
//    extra bit (>>> is arithmetic shift for signed types, logical for uint8: floor division);
//    with avg_final set the result is then multiplied by avg_scale (Q1.31, < 2.0) as
//    floor((x * avg_scale) / 2^31) and clamped to the type range;
//  - scale_add (fp32 only, the sharded-update patent's step): result = fp32_add(a, fp32_mul(s, b))
//    with s = AluCfg::scale (the tile's CSR 17): two roundings, each binary32 round to nearest
//    even with subnormals kept, the canonical NaN for any NaN (never fused into one FMA);
//  - avg on float types and scale_add on any dtype but fp32 are not valid pairs (valid_pair
//    returns false).
#pragma once

#include <cstddef>
#include <cstdint>

#include "xf/defs.hpp"

namespace xf {

// Bytes per element of a dtype.
size_t dtype_size(DType t);
// True for fp16/bf16/fp32.
bool dtype_is_float(DType t);
// Whether the ALU supports this pair (e.g. avg needs an integer type).
bool valid_pair(DType t, RedOp op);
// An ALU build's units (the RTL's AluDtypes, the AluConfig register): bit d = dtype d built
// (d = 0..6), bit kAluScaleAddBit (xf/defs.hpp) = the fp32 ScaleAdd multipliers built;
// kAluAllUnits = the default build (docs/alu.md section 9).
inline constexpr uint8_t kAluAllUnits = 0xFF;
// Whether an ALU built with `units` reduces this pair: a valid pair of a built dtype, and
// ScaleAdd only with bit kAluScaleAddBit.
bool built_pair(uint8_t units, DType t, RedOp op);

// Configuration of one reduction, as carried by a packet header plus the tile's two CSRs.
struct AluCfg {
  DType dtype = DType::kFp32;
  RedOp op = RedOp::kSum;
  bool sat = false;
  uint8_t avg_shift = 0;
  bool avg_final = false;
  uint32_t avg_scale = 1u << kAvgScaleFracBits;  // CSR 16: Avg final scale, Q1.31
  uint32_t scale = kScaleAddResetBits;           // CSR 17: ScaleAdd factor s, fp32 bits (1.0)
};

// Lane-wise combine: local[i] = f(local[i], in[i]) for every element in nbytes (a multiple of
// the element size). `local` is the first operand (a), `in` the second (b).
void alu_reduce(const AluCfg& cfg, uint8_t* local, const uint8_t* in, size_t nbytes);

// Scalar helpers (bit patterns in, bit pattern out), used by tests and the reference.
uint16_t fp16_add(uint16_t a, uint16_t b);
uint16_t bf16_add(uint16_t a, uint16_t b);
uint32_t fp32_add(uint32_t a, uint32_t b);
// One binary32 product (ScaleAdd's s*b): nearest even, subnormals kept, NaN canonical.
uint32_t fp32_mul(uint32_t a, uint32_t b);
float fp16_to_float(uint16_t h);  // exact; NaN gives the canonical fp32 NaN
uint16_t float_to_fp16(float f);  // round to nearest even, NaN canonical
float bf16_to_float(uint16_t h);  // exact; NaN gives the canonical fp32 NaN
uint16_t float_to_bf16(float f);  // round to nearest even, NaN canonical

}  // namespace xf
