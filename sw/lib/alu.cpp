// Reduction ALU reference: bit-exact implementation of every dtype/op pair (see xf/alu.hpp).
//
// Everything here is deterministic and free of undefined behaviour:
//  - elements are read and written with memcpy on the byte buffers (little-endian layout);
//  - integer arithmetic is done in int64_t, where no operation can overflow, and results are
//    stored by truncating the two's-complement bit pattern through an unsigned type;
//  - right shifts of negative values are written as ~((~x) >> n), which is floor(x / 2^n)
//    without relying on implementation-defined signed shifts;
//  - fp16/bf16 <-> fp32 conversions use integer bit manipulation only; the only floating-point
//    operations are one fp32 addition per element, and for ScaleAdd one fp32 multiplication
//    before it (SSE on x86-64: no excess precision). The multiplication and the addition are
//    separate non-inlined functions, so the compiler cannot contract them into an FMA whatever
//    -ffp-contract says (GCC contracts only within one expression, and only with -mfma).
#include "xf/alu.hpp"

#include <cstring>
#include <stdexcept>
#include <string>

#if !defined(__BYTE_ORDER__) || __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
#error "xf ALU: element access assumes a little-endian host"
#endif
#if defined(__FLT_EVAL_METHOD__) && __FLT_EVAL_METHOD__ != 0
#error "xf ALU: float arithmetic must be evaluated in float (FLT_EVAL_METHOD 0, e.g. SSE)"
#endif
#if defined(__FAST_MATH__)
#error "xf ALU: must not be compiled with -ffast-math (NaN, subnormal and rounding semantics)"
#endif

namespace xf {
namespace {

constexpr uint32_t kFp32CanonicalNan = 0x7FC00000u;
constexpr uint16_t kFp16CanonicalNan = 0x7E00u;
constexpr uint16_t kBf16CanonicalNan = 0x7FC0u;

uint32_t float_bits(float f) {
  uint32_t u;
  std::memcpy(&u, &f, sizeof u);
  return u;
}

float bits_float(uint32_t u) {
  float f;
  std::memcpy(&f, &u, sizeof f);
  return f;
}

bool fp32_is_nan(uint32_t u) { return (u & 0x7FFFFFFFu) > 0x7F800000u; }
bool fp16_is_nan(uint16_t h) { return (h & 0x7FFFu) > 0x7C00u; }
bool bf16_is_nan(uint16_t h) { return (h & 0x7FFFu) > 0x7F80u; }

// floor(x / 2^n) for any n, without shifting a negative value.
int64_t floor_shift(int64_t x, unsigned n) {
  if (n > 62) n = 62;  // |x| < 2^62 for every caller, so the result is already 0 or -1.
  return x >= 0 ? (x >> n) : ~((~x) >> n);
}

int64_t clamp64(int64_t x, int64_t lo, int64_t hi) { return x < lo ? lo : (x > hi ? hi : x); }

// Sign-magnitude order key of a non-NaN float bit pattern (`width` bits): strictly increasing
// in the numeric value, with -0 < +0.
int64_t float_order_key(uint32_t bits, unsigned width) {
  const uint32_t sign = 1u << (width - 1);
  const int64_t mag = static_cast<int64_t>(bits & (sign - 1));
  return (bits & sign) ? -mag - 1 : mag;
}

// One fp32 addition. Kept as its own function so that the only floating-point arithmetic in
// the ALU is visibly a single IEEE binary32 add (round to nearest even, subnormals kept).
// noinline: a + s*b must round twice, and a fused multiply-add would round once.
[[gnu::noinline]] float add_f32(float a, float b) { return a + b; }

// One fp32 multiplication (round to nearest even, subnormals kept), ScaleAdd's first step.
[[gnu::noinline]] float mul_f32(float a, float b) { return a * b; }

// ---- Integer lanes -------------------------------------------------------------------------

template <typename T>
struct IntTraits;
template <>
struct IntTraits<int8_t> {
  using Bits = uint8_t;
  static constexpr int64_t kMin = -128, kMax = 127;
};
template <>
struct IntTraits<uint8_t> {
  using Bits = uint8_t;
  static constexpr int64_t kMin = 0, kMax = 255;
};
template <>
struct IntTraits<int16_t> {
  using Bits = uint16_t;
  static constexpr int64_t kMin = -32768, kMax = 32767;
};
template <>
struct IntTraits<int32_t> {
  using Bits = uint32_t;
  static constexpr int64_t kMin = -2147483648LL, kMax = 2147483647LL;
};

template <typename T>
int64_t load_int(const uint8_t* p) {
  T v;
  std::memcpy(&v, p, sizeof v);
  return static_cast<int64_t>(v);
}

// Stores the low bits of x (two's complement wrap); the int64 -> unsigned conversion is modular.
template <typename T>
void store_int(uint8_t* p, int64_t x) {
  const auto bits = static_cast<typename IntTraits<T>::Bits>(static_cast<uint64_t>(x));
  std::memcpy(p, &bits, sizeof bits);
}

template <typename T>
int64_t int_op(const AluCfg& cfg, int64_t a, int64_t b) {
  using Tr = IntTraits<T>;
  switch (cfg.op) {
    case RedOp::kSum: {
      const int64_t s = a + b;
      return cfg.sat ? clamp64(s, Tr::kMin, Tr::kMax) : s;  // wrap happens in store_int
    }
    case RedOp::kMax:
      return a > b ? a : b;
    case RedOp::kMin:
      return a < b ? a : b;
    case RedOp::kAvg: {
      // b >>> shift: floor division (arithmetic for signed; uint8 values are non-negative, so
      // this is also the logical shift). Then (a + b') >>> 1 with one extra bit of range.
      const int64_t x = floor_shift(a + floor_shift(b, cfg.avg_shift), 1);
      if (!cfg.avg_final) return x;  // already within the type range
      // |x| <= 2^31 and scale < 2^32, so the product fits in int64.
      const int64_t p = x * static_cast<int64_t>(cfg.avg_scale);
      return clamp64(floor_shift(p, kAvgScaleFracBits), Tr::kMin, Tr::kMax);
    }
    case RedOp::kScaleAdd:
      break;
  }
  return 0;  // unreachable: alu_reduce validated the pair
}

template <typename T>
void reduce_int(const AluCfg& cfg, uint8_t* local, const uint8_t* in, size_t n) {
  for (size_t i = 0; i < n; i += sizeof(T)) {
    store_int<T>(local + i, int_op<T>(cfg, load_int<T>(local + i), load_int<T>(in + i)));
  }
}

// ---- Float lanes ---------------------------------------------------------------------------

// Float max/min on bit patterns of any of the three formats (maxNum/minNum, -0 < +0).
template <typename Bits>
Bits float_maxmin(bool is_max, Bits a, Bits b, bool a_nan, bool b_nan, Bits canonical) {
  if (a_nan && b_nan) return canonical;
  if (a_nan) return b;
  if (b_nan) return a;
  constexpr unsigned kWidth = sizeof(Bits) * 8;
  const int64_t ka = float_order_key(a, kWidth);
  const int64_t kb = float_order_key(b, kWidth);
  if (is_max) return ka >= kb ? a : b;
  return ka <= kb ? a : b;
}

uint16_t fp16_op(const AluCfg& cfg, uint16_t a, uint16_t b) {
  if (cfg.op == RedOp::kSum) return fp16_add(a, b);
  return float_maxmin<uint16_t>(cfg.op == RedOp::kMax, a, b, fp16_is_nan(a), fp16_is_nan(b),
                                kFp16CanonicalNan);
}

uint16_t bf16_op(const AluCfg& cfg, uint16_t a, uint16_t b) {
  if (cfg.op == RedOp::kSum) return bf16_add(a, b);
  return float_maxmin<uint16_t>(cfg.op == RedOp::kMax, a, b, bf16_is_nan(a), bf16_is_nan(b),
                                kBf16CanonicalNan);
}

uint32_t fp32_op(const AluCfg& cfg, uint32_t a, uint32_t b) {
  if (cfg.op == RedOp::kSum) return fp32_add(a, b);
  // a + s*b: the product is rounded to binary32 first (NaN canonical; a NaN stays a NaN in the
  // sum, so canonicalising it there changes nothing), then added with a second rounding.
  if (cfg.op == RedOp::kScaleAdd) return fp32_add(a, fp32_mul(cfg.scale, b));
  return float_maxmin<uint32_t>(cfg.op == RedOp::kMax, a, b, fp32_is_nan(a), fp32_is_nan(b),
                                kFp32CanonicalNan);
}

template <typename Bits, Bits (*Op)(const AluCfg&, Bits, Bits)>
void reduce_float(const AluCfg& cfg, uint8_t* local, const uint8_t* in, size_t n) {
  for (size_t i = 0; i < n; i += sizeof(Bits)) {
    Bits a, b;
    std::memcpy(&a, local + i, sizeof a);
    std::memcpy(&b, in + i, sizeof b);
    const Bits r = Op(cfg, a, b);
    std::memcpy(local + i, &r, sizeof r);
  }
}

bool dtype_known(DType t) { return static_cast<uint32_t>(t) < kDTypeCount; }

}  // namespace

size_t dtype_size(DType t) {
  switch (t) {
    case DType::kInt8:
    case DType::kUint8:
      return 1;
    case DType::kInt16:
    case DType::kFp16:
    case DType::kBf16:
      return 2;
    case DType::kInt32:
    case DType::kFp32:
      return 4;
  }
  throw std::invalid_argument("xf::dtype_size: unknown dtype " +
                              std::to_string(static_cast<unsigned>(t)));
}

bool dtype_is_float(DType t) { return t == DType::kFp16 || t == DType::kBf16 || t == DType::kFp32; }

bool built_pair(uint8_t units, DType t, RedOp op) {
  if (!valid_pair(t, op) || !((units >> static_cast<unsigned>(t)) & 1u)) return false;
  return op != RedOp::kScaleAdd || ((units >> kAluScaleAddBit) & 1u);
}

// The table of spec/xf_defs.json (RedOp's dtypes), as the RTL's generated valid_pair: Avg on the
// integer dtypes, ScaleAdd (the sharded-update patent's optimizer update) on fp32 only.
bool valid_pair(DType t, RedOp op) {
  const auto o = static_cast<uint32_t>(op);
  return dtype_known(t) && o < kRedOpCount && ((kRedOpDtypes[o] >> static_cast<uint32_t>(t)) & 1u);
}

void alu_reduce(const AluCfg& cfg, uint8_t* local, const uint8_t* in, size_t nbytes) {
  if (!valid_pair(cfg.dtype, cfg.op)) {
    throw std::invalid_argument(
        std::string("xf::alu_reduce: invalid dtype/op pair (dtype ") + to_string(cfg.dtype) + " [" +
        std::to_string(static_cast<unsigned>(cfg.dtype)) + "], op " + to_string(cfg.op) + " [" +
        std::to_string(static_cast<unsigned>(cfg.op)) + "])");
  }
  const size_t esize = dtype_size(cfg.dtype);
  if (nbytes % esize != 0) {
    throw std::invalid_argument("xf::alu_reduce: nbytes " + std::to_string(nbytes) +
                                " is not a multiple of the " + to_string(cfg.dtype) +
                                " element size " + std::to_string(esize));
  }
  if (nbytes == 0) return;
  if (local == nullptr || in == nullptr) {
    throw std::invalid_argument("xf::alu_reduce: null buffer with nbytes " +
                                std::to_string(nbytes));
  }
  switch (cfg.dtype) {
    case DType::kInt8:
      return reduce_int<int8_t>(cfg, local, in, nbytes);
    case DType::kUint8:
      return reduce_int<uint8_t>(cfg, local, in, nbytes);
    case DType::kInt16:
      return reduce_int<int16_t>(cfg, local, in, nbytes);
    case DType::kInt32:
      return reduce_int<int32_t>(cfg, local, in, nbytes);
    case DType::kFp16:
      return reduce_float<uint16_t, fp16_op>(cfg, local, in, nbytes);
    case DType::kBf16:
      return reduce_float<uint16_t, bf16_op>(cfg, local, in, nbytes);
    case DType::kFp32:
      return reduce_float<uint32_t, fp32_op>(cfg, local, in, nbytes);
  }
}

// ---- Scalar helpers ------------------------------------------------------------------------

float fp16_to_float(uint16_t h) {
  const uint32_t sign = static_cast<uint32_t>(h & 0x8000u) << 16;
  const uint32_t exp = (h >> 10) & 0x1Fu;
  uint32_t mant = h & 0x3FFu;
  if (exp == 0x1F) {
    if (mant != 0) return bits_float(kFp32CanonicalNan);
    return bits_float(sign | 0x7F800000u);
  }
  if (exp == 0) {
    if (mant == 0) return bits_float(sign);  // +-0
    // Subnormal: mant * 2^-24. Normalise so that bit 10 is the implicit one.
    int32_t e = -14;
    while ((mant & 0x400u) == 0) {
      mant <<= 1;
      --e;
    }
    mant &= 0x3FFu;
    return bits_float(sign | (static_cast<uint32_t>(e + 127) << 23) | (mant << 13));
  }
  return bits_float(sign | ((exp - 15 + 127) << 23) | (mant << 13));
}

uint16_t float_to_fp16(float f) {
  const uint32_t u = float_bits(f);
  const uint16_t sign = static_cast<uint16_t>((u >> 16) & 0x8000u);
  const uint32_t mag = u & 0x7FFFFFFFu;
  if (mag > 0x7F800000u) return kFp16CanonicalNan;
  // 65520 = 65504 (max fp16) + half an ulp: the tie rounds to the even neighbour 2^16 = inf.
  if (mag >= 0x477FF000u) return static_cast<uint16_t>(sign | 0x7C00u);
  const uint32_t exp = mag >> 23;  // biased fp32 exponent
  if (exp >= 113) {
    // Normal fp16 (|f| >= 2^-14): rebias the exponent, keep 10 of the 23 mantissa bits.
    uint32_t h = (mag >> 13) - (112u << 10);
    const uint32_t rest = mag & 0x1FFFu;
    if (rest > 0x1000u || (rest == 0x1000u && (h & 1u))) ++h;  // carries into exp correctly
    return static_cast<uint16_t>(sign | h);
  }
  // Subnormal fp16 result (or zero): value = m * 2^(exp-150) = (m >> (126-exp)) units of 2^-24.
  if (exp < 102) return sign;  // < 2^-25: below half the smallest subnormal (fp32 subnormals too)
  const uint32_t m = (mag & 0x7FFFFFu) | 0x800000u;
  const uint32_t shift = 126 - exp;  // 14..24
  uint32_t h = m >> shift;
  const uint32_t rest = m & ((1u << shift) - 1u);
  const uint32_t half = 1u << (shift - 1);
  if (rest > half || (rest == half && (h & 1u))) ++h;  // may carry into the smallest normal
  return static_cast<uint16_t>(sign | h);
}

float bf16_to_float(uint16_t h) {
  if (bf16_is_nan(h)) return bits_float(kFp32CanonicalNan);
  return bits_float(static_cast<uint32_t>(h) << 16);
}

uint16_t float_to_bf16(float f) {
  const uint32_t u = float_bits(f);
  if (fp32_is_nan(u)) return kBf16CanonicalNan;
  // bf16 is the top half of fp32 (same exponent field), so rounding the low 16 bits to nearest
  // even is all there is; a carry moves into the exponent (up to inf) as it should.
  uint32_t h = u >> 16;
  const uint32_t rest = u & 0xFFFFu;
  if (rest > 0x8000u || (rest == 0x8000u && (h & 1u))) ++h;
  return static_cast<uint16_t>(h);
}

uint16_t fp16_add(uint16_t a, uint16_t b) {
  // fp32 has 24 >= 2*11 + 2 significand bits, so rounding the fp32 sum to fp16 equals the
  // correctly rounded fp16 sum (no double-rounding error). NaN inputs or results canonicalise.
  return float_to_fp16(add_f32(fp16_to_float(a), fp16_to_float(b)));
}

uint16_t bf16_add(uint16_t a, uint16_t b) {
  // Same argument as fp16_add with 24 >= 2*8 + 2.
  return float_to_bf16(add_f32(bf16_to_float(a), bf16_to_float(b)));
}

uint32_t fp32_add(uint32_t a, uint32_t b) {
  const uint32_t r = float_bits(add_f32(bits_float(a), bits_float(b)));
  return fp32_is_nan(r) ? kFp32CanonicalNan : r;
}

uint32_t fp32_mul(uint32_t a, uint32_t b) {
  const uint32_t r = float_bits(mul_f32(bits_float(a), bits_float(b)));
  return fp32_is_nan(r) ? kFp32CanonicalNan : r;
}

}  // namespace xf
