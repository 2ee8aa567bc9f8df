// Tests of the reduction ALU reference (xf/alu.hpp, sw/lib/alu.cpp).
//
// Every expected value is computed by an independent reference written here: float formats are
// decoded with std::ldexp into double, sums are formed in double, and rounding back to a narrow
// format is done by locating the value between its two representable neighbours in a sorted
// table of all finite values (ties to the neighbour with an even bit pattern). fp32 products are
// formed exactly in double (24 x 24 significand bits fit its 53) and rounded once by the host's
// double-to-float conversion. Integer results come from plain int64 formulas with explicit floor
// division and modular wrap. The build has -ffp-contract=off, and the ScaleAdd references below
// keep each step in a volatile float, so nothing is fused into an FMA.
//
// Random data: std::mt19937_64 (its sequence is fixed by the C++ standard) seeded with a fixed
// default that the environment variable XF_SEED overrides; each randomised test prints the seed.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

#include "xf/alu.hpp"

namespace xf {
namespace {

constexpr uint64_t kDefaultSeed = 0x5EEDA1u;
constexpr int kMaxReportedFailures = 10;

// Base seed: XF_SEED (decimal or 0x-hex) or the fixed default. Printed once per test.
uint64_t base_seed() {
  const char* s = std::getenv("XF_SEED");
  return (s != nullptr && *s != '\0') ? std::strtoull(s, nullptr, 0) : kDefaultSeed;
}

// Per-test generator: the base seed mixed with the test name, so tests are independent.
std::mt19937_64 make_rng(const std::string& test) {
  const uint64_t seed = base_seed();
  uint64_t h = 1469598103934665603ull;  // FNV-1a of the test name
  for (char c : test) h = (h ^ static_cast<uint8_t>(c)) * 1099511628211ull;
  std::printf("[   SEED   ] %s: XF_SEED=%llu%s\n", test.c_str(),
              static_cast<unsigned long long>(seed),
              std::getenv("XF_SEED") != nullptr ? "" : " (default; set XF_SEED to override)");
  return std::mt19937_64(seed ^ h);
}

void report_count(const char* test, uint64_t n) {
  std::printf("[  VECTORS ] %s: %llu checked\n", test, static_cast<unsigned long long>(n));
}

uint32_t f2u(float f) {
  uint32_t u;
  std::memcpy(&u, &f, sizeof u);
  return u;
}

float u2f(uint32_t u) {
  float f;
  std::memcpy(&f, &u, sizeof f);
  return f;
}

std::string hex(uint64_t v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "0x%llx", static_cast<unsigned long long>(v));
  return buf;
}

uint8_t* bytes(void* p) { return static_cast<uint8_t*>(p); }
const uint8_t* cbytes(const void* p) { return static_cast<const uint8_t*>(p); }

// ---- Independent float reference -------------------------------------------------------------

// A binary16-like format described by its field widths; decodes exactly into double.
struct NarrowFormat {
  int exp_bits;
  int mant_bits;
  uint16_t nan;  // canonical NaN
  uint16_t inf() const { return static_cast<uint16_t>(((1u << exp_bits) - 1u) << mant_bits); }
  int bias() const { return (1 << (exp_bits - 1)) - 1; }
  bool is_nan(uint16_t h) const {
    const uint32_t e = (h >> mant_bits) & ((1u << exp_bits) - 1u);
    return e == (1u << exp_bits) - 1u && (h & ((1u << mant_bits) - 1u)) != 0;
  }
  // Exact value (caller handles NaN).
  double value(uint16_t h) const {
    const uint32_t e = (h >> mant_bits) & ((1u << exp_bits) - 1u);
    const uint32_t m = h & ((1u << mant_bits) - 1u);
    double v;
    if (e == (1u << exp_bits) - 1u) {
      v = std::numeric_limits<double>::infinity();
    } else if (e == 0) {
      v = std::ldexp(static_cast<double>(m), 1 - bias() - mant_bits);
    } else {
      v = std::ldexp(static_cast<double>(m + (1u << mant_bits)),
                     static_cast<int>(e) - bias() - mant_bits);
    }
    return (h & 0x8000u) ? -v : v;
  }
};

const NarrowFormat kFp16Fmt{5, 10, 0x7E00};
const NarrowFormat kBf16Fmt{8, 7, 0x7FC0};

// Rounds a double to the narrow format, to nearest, ties to even, by finding the value's two
// neighbours in the table of all non-negative finite values. The inf pattern stands for
// 2^(emax+1) in the table, which is exactly IEEE overflow under round to nearest even.
class Rounder {
 public:
  explicit Rounder(const NarrowFormat& fmt) : fmt_(fmt) {
    const uint16_t top = fmt.inf();
    vals_.resize(top + 1u);
    for (uint32_t h = 0; h < top; ++h) vals_[h] = fmt.value(static_cast<uint16_t>(h));
    vals_[top] = std::ldexp(1.0, fmt.bias() + 1);
    for (size_t i = 1; i < vals_.size(); ++i) {
      if (!(vals_[i - 1] < vals_[i])) std::abort();  // table must be strictly increasing
    }
  }
  uint16_t round(double x) const {
    if (std::isnan(x)) return fmt_.nan;
    const uint16_t sign = std::signbit(x) ? 0x8000u : 0u;
    const double m = std::fabs(x);
    const size_t top = vals_.size() - 1;
    if (m >= vals_[top]) return static_cast<uint16_t>(sign | top);
    const size_t lo =
        static_cast<size_t>(std::upper_bound(vals_.begin(), vals_.end(), m) - vals_.begin()) - 1;
    size_t pick = lo;
    if (vals_[lo] != m) {
      const double mid = (vals_[lo] + vals_[lo + 1]) * 0.5;  // exact: one more significand bit
      if (m > mid || (m == mid && (lo & 1u))) pick = lo + 1;
    }
    return static_cast<uint16_t>(sign | pick);
  }
  double value(uint16_t h) const { return fmt_.value(h); }
  const NarrowFormat& fmt() const { return fmt_; }

 private:
  NarrowFormat fmt_;
  std::vector<double> vals_;
};

const Rounder& fp16_rounder() {
  static const Rounder r(kFp16Fmt);
  return r;
}
const Rounder& bf16_rounder() {
  static const Rounder r(kBf16Fmt);
  return r;
}

// Reference sum of two narrow values: exact operands, double sum, one rounding. For fp16 the
// double sum is exact; for bf16 it may be rounded, which is harmless because 53 >= 2*8 + 2
// (a double rounding through a format this much wider equals the correct rounding).
uint16_t ref_narrow_add(const Rounder& r, uint16_t a, uint16_t b) {
  if (r.fmt().is_nan(a) || r.fmt().is_nan(b)) return r.fmt().nan;
  return r.round(r.value(a) + r.value(b));
}

bool fp32_nan(uint32_t u) { return std::isnan(u2f(u)); }

// Reference fp32 sum: double sum (53 >= 2*24 + 2, so rounding it to float is correct).
uint32_t ref_fp32_add(uint32_t a, uint32_t b) {
  const double s = static_cast<double>(u2f(a)) + static_cast<double>(u2f(b));
  if (std::isnan(s)) return 0x7FC00000u;
  return f2u(static_cast<float>(s));
}

// Reference fp32 product: exact in double (two 24-bit significands, exponents far inside
// double's range, subnormal inputs included), then one rounding by the conversion to float
// (nearest even, subnormal results and overflow to infinity as IEEE).
uint32_t ref_fp32_mul(uint32_t a, uint32_t b) {
  const double p = static_cast<double>(u2f(a)) * static_cast<double>(u2f(b));
  if (std::isnan(p)) return 0x7FC00000u;
  return f2u(static_cast<float>(p));
}

// Host reference of ScaleAdd: `float p = s * b; float r = a + p;` with every step stored in a
// volatile float (two roundings, never fused), NaN canonical.
uint32_t host_scale_add(uint32_t a, uint32_t s, uint32_t b) {
  volatile float fs = u2f(s), fb = u2f(b), fa = u2f(a);
  volatile float p = fs * fb;
  volatile float r = fa + p;
  const float out = r;
  return std::isnan(out) ? 0x7FC00000u : f2u(out);
}

// Reference maxNum/minNum on values: NaN loses, both NaN canonical, -0 < +0.
template <typename Bits>
Bits ref_maxmin(bool is_max, Bits a, Bits b, bool a_nan, bool b_nan, double va, double vb,
                Bits canonical, Bits sign_bit) {
  if (a_nan && b_nan) return canonical;
  if (a_nan) return b;
  if (b_nan) return a;
  if (va == 0.0 && vb == 0.0) {  // +0 vs -0: max is +0 unless both are -0, min the reverse
    const bool neg = is_max ? ((a & b & sign_bit) != 0) : (((a | b) & sign_bit) != 0);
    return neg ? sign_bit : 0;
  }
  const double want = is_max ? std::fmax(va, vb) : std::fmin(va, vb);
  return want == va ? a : b;
}

// fp16 special values: zeros, subnormal edges, normal edges, one, max, inf, several NaNs.
std::vector<uint16_t> fp16_specials() {
  std::vector<uint16_t> v = {
      0x0000, 0x8000, 0x0001, 0x8001, 0x0002, 0x8002, 0x0003, 0x01FF, 0x0200, 0x8200, 0x03FE,
      0x03FF, 0x83FF, 0x0400, 0x8400, 0x0401, 0x8401, 0x07FF, 0x0800, 0x3555, 0x37FF, 0x3800,
      0x3BFF, 0xBBFF, 0x3C00, 0xBC00, 0x3C01, 0xBC01, 0x3E00, 0x4000, 0xC000, 0x4200, 0x63FF,
      0x6400, 0x6401, 0x7800, 0x7A00, 0x7BFE, 0xFBFE, 0x7BFF, 0xFBFF, 0x7C00, 0xFC00, 0x7C01,
      0xFC01, 0x7E00, 0xFE00, 0x7DFF, 0x7FFF, 0xFFFF, 0x1400, 0x9400, 0x0FFF, 0x1000};
  return v;
}

std::vector<uint16_t> bf16_specials() {
  std::vector<uint16_t> v = {0x0000, 0x8000, 0x0001, 0x8001, 0x0002, 0x0040, 0x8040, 0x007E,
                             0x007F, 0x807F, 0x0080, 0x8080, 0x0081, 0x8081, 0x00FF, 0x0100,
                             0x3F00, 0x3F7F, 0xBF7F, 0x3F80, 0xBF80, 0x3F81, 0xBF81, 0x3FC0,
                             0x4000, 0xC000, 0x4B00, 0x4B80, 0x7F00, 0x7F7E, 0xFF7E, 0x7F7F,
                             0xFF7F, 0x7F80, 0xFF80, 0x7F81, 0xFF81, 0x7FC0, 0xFFC0, 0x7FBF,
                             0x7FFF, 0xFFFF, 0x3380, 0xB380, 0x0C00, 0x3400};
  return v;
}

// 300 second operands: the specials, powers of two of both signs spread over the whole
// exponent range (every one for fp16, every third for bf16), then random patterns.
std::vector<uint16_t> narrow_operand_set(const std::vector<uint16_t>& specials, int exp_bits,
                                         int mant_bits, std::mt19937_64& rng) {
  std::vector<uint16_t> v = specials;
  const uint32_t stride = exp_bits > 5 ? 3u : 1u;
  for (uint32_t e = 1; e + 1 < (1u << exp_bits); e += stride) {
    v.push_back(static_cast<uint16_t>(e << mant_bits));
    v.push_back(static_cast<uint16_t>(0x8000u | (e << mant_bits)));
  }
  while (v.size() < 300) v.push_back(static_cast<uint16_t>(rng()));
  v.resize(300);
  return v;
}

// ---- Conversions -------------------------------------------------------------------------------

// Space: all 65536 fp16 bit patterns. fp16_to_float must equal the exact value (NaN -> fp32
// canonical NaN, signed zeros kept) and float_to_fp16 must give the pattern back (NaN -> 0x7E00).
TEST(AluConvert, Fp16RoundTripExhaustive) {
  uint64_t n = 0;
  int fails = 0;
  for (uint32_t h = 0; h < 65536; ++h) {
    const uint16_t x = static_cast<uint16_t>(h);
    const bool nan = kFp16Fmt.is_nan(x);
    const uint32_t want_f = nan ? 0x7FC00000u : f2u(static_cast<float>(kFp16Fmt.value(x)));
    const uint32_t got_f = f2u(fp16_to_float(x));
    const uint16_t want_h = nan ? 0x7E00 : x;
    const uint16_t got_h = float_to_fp16(fp16_to_float(x));
    if ((got_f != want_f || got_h != want_h) && fails++ < kMaxReportedFailures) {
      ADD_FAILURE() << "fp16 " << hex(x) << ": to_float " << hex(got_f) << " want " << hex(want_f)
                    << ", back " << hex(got_h) << " want " << hex(want_h);
    }
    n += 2;
  }
  EXPECT_EQ(fails, 0);
  report_count("Fp16RoundTripExhaustive", n);
}

// Space: all 65536 bf16 bit patterns, as for fp16 (NaN -> 0x7FC00000 / 0x7FC0).
TEST(AluConvert, Bf16RoundTripExhaustive) {
  uint64_t n = 0;
  int fails = 0;
  for (uint32_t h = 0; h < 65536; ++h) {
    const uint16_t x = static_cast<uint16_t>(h);
    const bool nan = kBf16Fmt.is_nan(x);
    const uint32_t want_f = nan ? 0x7FC00000u : f2u(static_cast<float>(kBf16Fmt.value(x)));
    const uint32_t got_f = f2u(bf16_to_float(x));
    const uint16_t want_h = nan ? 0x7FC0 : x;
    const uint16_t got_h = float_to_bf16(bf16_to_float(x));
    if ((got_f != want_f || got_h != want_h) && fails++ < kMaxReportedFailures) {
      ADD_FAILURE() << "bf16 " << hex(x) << ": to_float " << hex(got_f) << " want " << hex(want_f)
                    << ", back " << hex(got_h) << " want " << hex(want_h);
    }
    n += 2;
  }
  EXPECT_EQ(fails, 0);
  report_count("Bf16RoundTripExhaustive", n);
}

// Checks one float -> narrow conversion against the table reference.
template <uint16_t (*Convert)(float)>
void check_round(const Rounder& r, float f, uint64_t* n, int* fails) {
  const uint16_t want = r.round(static_cast<double>(f));
  const uint16_t got = Convert(f);
  ++*n;
  if (got != want && (*fails)++ < kMaxReportedFailures) {
    ADD_FAILURE() << "float " << hex(f2u(f)) << " (" << f << "): got " << hex(got) << " want "
                  << hex(want);
  }
}

// Edge floats: for every pair of adjacent non-negative narrow values (the last pair being max
// and the overflow threshold 2^(emax+1)), the midpoint (a tie) and its two float neighbours,
// with both signs; plus zeros, infinities, NaNs with payloads and float subnormals.
template <uint16_t (*Convert)(float)>
void check_edges(const Rounder& r, uint64_t* n, int* fails) {
  const uint16_t top = r.fmt().inf();
  for (uint32_t h = 0; h < top; ++h) {
    const double lo = r.value(static_cast<uint16_t>(h));
    const double hi = (h + 1 == top) ? std::ldexp(1.0, r.fmt().bias() + 1)
                                     : r.value(static_cast<uint16_t>(h + 1));
    const float mid = static_cast<float>((lo + hi) * 0.5);
    if (static_cast<double>(mid) != (lo + hi) * 0.5) std::abort();  // ties are exact floats
    const float inf = std::numeric_limits<float>::infinity();
    for (float f :
         {mid, std::nextafter(mid, 0.0f), std::nextafter(mid, inf), static_cast<float>(lo)}) {
      check_round<Convert>(r, f, n, fails);
      check_round<Convert>(r, -f, n, fails);
    }
  }
  const float extra[] = {0.0f,
                         -0.0f,
                         std::numeric_limits<float>::infinity(),
                         -std::numeric_limits<float>::infinity(),
                         std::numeric_limits<float>::max(),
                         -std::numeric_limits<float>::max(),
                         std::numeric_limits<float>::min(),
                         std::numeric_limits<float>::denorm_min(),
                         -std::numeric_limits<float>::denorm_min(),
                         65504.0f,
                         65519.99609375f,
                         65520.0f,
                         65536.0f,
                         std::ldexp(1.0f, -24),
                         std::ldexp(1.0f, -25),
                         std::nextafter(std::ldexp(1.0f, -25), 1.0f),
                         std::ldexp(1.5f, -25),
                         std::ldexp(1.0f, -26),
                         std::ldexp(1.0f, -14),
                         std::ldexp(1.0f, -15),
                         u2f(0x7FC00000u),
                         u2f(0xFFC00000u),
                         u2f(0x7F800001u),
                         u2f(0xFF800001u),
                         u2f(0x7FBFFFFFu),
                         u2f(0x7FFFFFFFu),
                         u2f(0x7F7F8000u),
                         u2f(0x7F7F7FFFu),
                         u2f(0x7F7FFFFFu),
                         u2f(0x00008000u),
                         u2f(0x00018000u),
                         u2f(0x00007FFFu)};
  for (float f : extra) check_round<Convert>(r, f, n, fails);
}

// Space: float -> fp16 for all tie/near-tie edges (check_edges) plus 1e6 random floats: raw bit
// patterns, floats with exponents spanning fp16 underflow..overflow, and near-ties of random
// fp16 neighbours.
TEST(AluConvert, FloatToFp16RoundingVsReference) {
  auto rng = make_rng("FloatToFp16RoundingVsReference");
  const Rounder& r = fp16_rounder();
  uint64_t n = 0;
  int fails = 0;
  check_edges<float_to_fp16>(r, &n, &fails);
  for (int i = 0; i < 1000000; ++i) {
    const uint64_t x = rng();
    uint32_t u = static_cast<uint32_t>(x);
    switch ((x >> 32) & 3u) {
      case 0:  // any float
        break;
      case 1: {  // exponent 2^-27 .. 2^16, random mantissa and sign
        const uint32_t e = 100u + static_cast<uint32_t>((x >> 34) % 44u);
        u = (u & 0x807FFFFFu) | (e << 23);
        break;
      }
      default: {  // low 13 bits near the fp16 rounding point, exponent in fp16 range or below
        const uint32_t e = 100u + static_cast<uint32_t>((x >> 34) % 44u);
        const uint32_t low = (0x1000u + static_cast<uint32_t>((x >> 40) % 9u) - 4u) & 0x1FFFu;
        u = (u & 0x807FE000u) | (e << 23) | low;
        break;
      }
    }
    check_round<float_to_fp16>(r, u2f(u), &n, &fails);
  }
  EXPECT_EQ(fails, 0);
  report_count("FloatToFp16RoundingVsReference", n);
}

// Space: float -> bf16 for all tie/near-tie edges plus 1e6 random floats: raw bit patterns and
// patterns whose low 16 bits sit on or next to the halfway point 0x8000.
TEST(AluConvert, FloatToBf16RoundingVsReference) {
  auto rng = make_rng("FloatToBf16RoundingVsReference");
  const Rounder& r = bf16_rounder();
  uint64_t n = 0;
  int fails = 0;
  check_edges<float_to_bf16>(r, &n, &fails);
  for (int i = 0; i < 1000000; ++i) {
    const uint64_t x = rng();
    uint32_t u = static_cast<uint32_t>(x);
    if ((x >> 32) & 1u) {
      const uint32_t low = (0x8000u + static_cast<uint32_t>((x >> 40) % 5u) - 2u) & 0xFFFFu;
      u = (u & 0xFFFF0000u) | low;
    }
    check_round<float_to_bf16>(r, u2f(u), &n, &fails);
  }
  EXPECT_EQ(fails, 0);
  report_count("FloatToBf16RoundingVsReference", n);
}

// ---- Float sums ------------------------------------------------------------------------------

// Runs narrow sum through alu_reduce (a = all 65536 patterns, b = one value per pass) and through
// the scalar helper in both operand orders, against the double reference.
void check_narrow_add_subset(DType dtype, const Rounder& r, uint16_t (*scalar)(uint16_t, uint16_t),
                             const std::vector<uint16_t>& bset, uint64_t* n) {
  std::vector<uint16_t> a(65536), local(65536), in(65536);
  for (uint32_t i = 0; i < 65536; ++i) a[i] = static_cast<uint16_t>(i);
  AluCfg cfg;
  cfg.dtype = dtype;
  cfg.op = RedOp::kSum;
  int fails = 0;
  for (uint16_t b : bset) {
    local = a;
    std::fill(in.begin(), in.end(), b);
    alu_reduce(cfg, bytes(local.data()), cbytes(in.data()), local.size() * 2);
    for (uint32_t i = 0; i < 65536; ++i) {
      const uint16_t want = ref_narrow_add(r, a[i], b);
      const uint16_t s_ab = scalar(a[i], b);
      const uint16_t s_ba = scalar(b, a[i]);
      *n += 3;
      if ((local[i] != want || s_ab != want || s_ba != want) && fails++ < kMaxReportedFailures) {
        ADD_FAILURE() << to_string(dtype) << " " << hex(a[i]) << " + " << hex(b) << ": alu_reduce "
                      << hex(local[i]) << ", add(a,b) " << hex(s_ab) << ", add(b,a) " << hex(s_ba)
                      << ", want " << hex(want);
      }
    }
  }
  EXPECT_EQ(fails, 0);
}

// Space: fp16 sum for all 65536 first operands x 300 second operands (zeros, subnormal and
// normal edges, max, inf, NaNs, every power of two of both signs, random patterns): 19.7M pairs.
TEST(AluFloatSum, Fp16AddStructuredSubsetVsReference) {
  auto rng = make_rng("Fp16AddStructuredSubsetVsReference");
  const auto bset = narrow_operand_set(fp16_specials(), 5, 10, rng);
  uint64_t n = 0;
  check_narrow_add_subset(DType::kFp16, fp16_rounder(), fp16_add, bset, &n);
  report_count("Fp16AddStructuredSubsetVsReference", n);
}

// Space: bf16 sum for all 65536 first operands x 300 second operands (bf16 zeros, subnormal and
// normal edges, max, inf, NaNs, every third power of two of both signs, random): 19.7M pairs.
TEST(AluFloatSum, Bf16AddStructuredSubsetVsReference) {
  auto rng = make_rng("Bf16AddStructuredSubsetVsReference");
  const auto bset = narrow_operand_set(bf16_specials(), 8, 7, rng);
  uint64_t n = 0;
  check_narrow_add_subset(DType::kBf16, bf16_rounder(), bf16_add, bset, &n);
  report_count("Bf16AddStructuredSubsetVsReference", n);
}

std::vector<uint32_t> fp32_specials() {
  return {0x00000000u, 0x80000000u, 0x00000001u, 0x80000001u, 0x00000002u, 0x007FFFFFu,
          0x807FFFFFu, 0x00800000u, 0x80800000u, 0x00800001u, 0x3F800000u, 0xBF800000u,
          0x3F800001u, 0xBF800001u, 0x3F7FFFFFu, 0x33800000u, 0x34000000u, 0xB3800000u,
          0x4B000000u, 0x4B800000u, 0x7F7FFFFFu, 0xFF7FFFFFu, 0x7F7FFFFEu, 0x7F000000u,
          0x73800000u, 0x7F800000u, 0xFF800000u, 0x7FC00000u, 0xFFC00000u, 0x7F800001u,
          0xFF800001u, 0x7FFFFFFFu, 0x7FA00000u, 0x0000FFFFu, 0x00400000u, 0x40490FDBu};
}

// Random fp32 operand: raw patterns, specials, or a value whose exponent is close to `near`
// (so sums cancel, round and carry).
uint32_t random_fp32(std::mt19937_64& rng, const std::vector<uint32_t>& specials, uint32_t near) {
  const uint64_t x = rng();
  const uint32_t u = static_cast<uint32_t>(x);
  switch ((x >> 32) % 4u) {
    case 0:
      return u;
    case 1:
      return specials[(x >> 40) % specials.size()];
    default: {
      const uint32_t e = (near >> 23) & 0xFFu;
      const uint32_t d = static_cast<uint32_t>((x >> 40) % 51u);
      const uint32_t ne = std::min<uint32_t>(254u, e + d >= 25u ? e + d - 25u : 0u);
      return (u & 0x807FFFFFu) | (ne << 23);
    }
  }
}

// Space: fp32 sum for all pairs of 36 specials plus 1e6 random pairs (raw, special, and nearby
// exponents), checked against host float addition (NaN -> 0x7FC00000) and against an
// independent double-then-float reference; scalar in both orders and through alu_reduce.
TEST(AluFloatSum, Fp32AddRandomAndSpecialVsHost) {
  auto rng = make_rng("Fp32AddRandomAndSpecialVsHost");
  const auto sp = fp32_specials();
  std::vector<uint32_t> a, b;
  for (uint32_t x : sp) {
    for (uint32_t y : sp) {
      a.push_back(x);
      b.push_back(y);
    }
  }
  for (int i = 0; i < 1000000; ++i) {
    const uint32_t x = random_fp32(rng, sp, static_cast<uint32_t>(rng()));
    a.push_back(x);
    b.push_back(random_fp32(rng, sp, x));
  }
  std::vector<uint32_t> local = a;
  AluCfg cfg;
  cfg.dtype = DType::kFp32;
  alu_reduce(cfg, bytes(local.data()), cbytes(b.data()), local.size() * 4);
  uint64_t n = 0;
  int fails = 0;
  for (size_t i = 0; i < a.size(); ++i) {
    volatile float fa = u2f(a[i]), fb = u2f(b[i]);
    const float host = fa + fb;
    const uint32_t want_host = std::isnan(host) ? 0x7FC00000u : f2u(host);
    const uint32_t want_ref = ref_fp32_add(a[i], b[i]);
    const uint32_t s_ab = fp32_add(a[i], b[i]);
    const uint32_t s_ba = fp32_add(b[i], a[i]);
    n += 3;
    if ((want_host != want_ref || s_ab != want_ref || s_ba != want_ref || local[i] != want_ref) &&
        fails++ < kMaxReportedFailures) {
      ADD_FAILURE() << "fp32 " << hex(a[i]) << " + " << hex(b[i]) << ": host " << hex(want_host)
                    << ", ref " << hex(want_ref) << ", add(a,b) " << hex(s_ab) << ", add(b,a) "
                    << hex(s_ba) << ", alu_reduce " << hex(local[i]);
    }
  }
  EXPECT_EQ(fails, 0);
  report_count("Fp32AddRandomAndSpecialVsHost", n);
}

// ---- Float max/min ---------------------------------------------------------------------------

// Space: fp16 and bf16 max and min for all 65536 first operands x 300 second operands (specials,
// powers of two, random), through alu_reduce, against a std::fmax/std::fmin reference with the
// NaN and signed-zero rules.
TEST(AluFloatMaxMin, Fp16Bf16StructuredSubsetVsReference) {
  auto rng = make_rng("Fp16Bf16StructuredSubsetVsReference");
  uint64_t n = 0;
  int fails = 0;
  for (DType dt : {DType::kFp16, DType::kBf16}) {
    const NarrowFormat& fmt = dt == DType::kFp16 ? kFp16Fmt : kBf16Fmt;
    const auto bset = dt == DType::kFp16 ? narrow_operand_set(fp16_specials(), 5, 10, rng)
                                         : narrow_operand_set(bf16_specials(), 8, 7, rng);
    std::vector<uint16_t> a(65536), local, in(65536);
    for (uint32_t i = 0; i < 65536; ++i) a[i] = static_cast<uint16_t>(i);
    for (RedOp op : {RedOp::kMax, RedOp::kMin}) {
      AluCfg cfg;
      cfg.dtype = dt;
      cfg.op = op;
      for (uint16_t b : bset) {
        local = a;
        std::fill(in.begin(), in.end(), b);
        alu_reduce(cfg, bytes(local.data()), cbytes(in.data()), local.size() * 2);
        const bool b_nan = fmt.is_nan(b);
        const double vb = b_nan ? 0.0 : fmt.value(b);
        for (uint32_t i = 0; i < 65536; ++i) {
          const bool a_nan = fmt.is_nan(a[i]);
          const double va = a_nan ? 0.0 : fmt.value(a[i]);
          const uint16_t want = ref_maxmin<uint16_t>(op == RedOp::kMax, a[i], b, a_nan, b_nan, va,
                                                     vb, fmt.nan, 0x8000u);
          ++n;
          if (local[i] != want && fails++ < kMaxReportedFailures) {
            ADD_FAILURE() << to_string(dt) << " " << to_string(op) << "(" << hex(a[i]) << ", "
                          << hex(b) << "): got " << hex(local[i]) << " want " << hex(want);
          }
        }
      }
    }
  }
  EXPECT_EQ(fails, 0);
  report_count("Fp16Bf16StructuredSubsetVsReference", n);
}

// Space: fp32 max and min for all pairs of 36 specials plus 1e6 random pairs, against the
// std::fmax/std::fmin reference with the NaN and signed-zero rules.
TEST(AluFloatMaxMin, Fp32RandomAndSpecialVsReference) {
  auto rng = make_rng("Fp32RandomAndSpecialVsReference");
  const auto sp = fp32_specials();
  std::vector<uint32_t> a, b;
  for (uint32_t x : sp) {
    for (uint32_t y : sp) {
      a.push_back(x);
      b.push_back(y);
    }
  }
  for (int i = 0; i < 1000000; ++i) {
    const uint32_t x = random_fp32(rng, sp, static_cast<uint32_t>(rng()));
    a.push_back(x);
    b.push_back(random_fp32(rng, sp, x));
  }
  uint64_t n = 0;
  int fails = 0;
  for (RedOp op : {RedOp::kMax, RedOp::kMin}) {
    AluCfg cfg;
    cfg.dtype = DType::kFp32;
    cfg.op = op;
    std::vector<uint32_t> local = a;
    alu_reduce(cfg, bytes(local.data()), cbytes(b.data()), local.size() * 4);
    for (size_t i = 0; i < a.size(); ++i) {
      const bool a_nan = fp32_nan(a[i]), b_nan = fp32_nan(b[i]);
      const uint32_t want = ref_maxmin<uint32_t>(op == RedOp::kMax, a[i], b[i], a_nan, b_nan,
                                                 u2f(a[i]), u2f(b[i]), 0x7FC00000u, 0x80000000u);
      ++n;
      if (local[i] != want && fails++ < kMaxReportedFailures) {
        ADD_FAILURE() << "fp32 " << to_string(op) << "(" << hex(a[i]) << ", " << hex(b[i])
                      << "): got " << hex(local[i]) << " want " << hex(want);
      }
    }
  }
  EXPECT_EQ(fails, 0);
  report_count("Fp32RandomAndSpecialVsReference", n);
}

// ---- Commutativity ---------------------------------------------------------------------------

// Random buffer of `nbytes` for a dtype; for float types a quarter of the elements are specials
// (zeros, subnormals, max, inf, NaNs of several payloads and signs); for integers a quarter are
// the type's extremes.
std::vector<uint8_t> random_buffer(DType dt, size_t nbytes, std::mt19937_64& rng) {
  std::vector<uint8_t> buf(nbytes);
  const size_t es = dtype_size(dt);
  const auto sp16 = dt == DType::kBf16 ? bf16_specials() : fp16_specials();
  const auto sp32 = fp32_specials();
  const uint32_t int_edges[] = {0u,          1u,          0xFFFFFFFFu, 0x7Fu,   0x80u,
                                0xFFu,       0x7FFFu,     0x8000u,     0xFFFFu, 0x7FFFFFFFu,
                                0x80000000u, 0xFFFFFF80u, 0xFFFF8000u};
  for (size_t i = 0; i < nbytes; i += es) {
    const uint64_t x = rng();
    uint32_t v = static_cast<uint32_t>(x);
    if (((x >> 32) & 3u) == 0) {
      const uint64_t k = x >> 34;
      if (dt == DType::kFp16 || dt == DType::kBf16) {
        v = sp16[k % sp16.size()];
      } else if (dt == DType::kFp32) {
        v = sp32[k % sp32.size()];
      } else {
        v = int_edges[k % (sizeof int_edges / sizeof int_edges[0])];
      }
    }
    std::memcpy(&buf[i], &v, es);  // little-endian: the low bytes of v
  }
  return buf;
}

const DType kAllDtypes[] = {DType::kInt8, DType::kUint8, DType::kInt16, DType::kInt32,
                            DType::kFp16, DType::kBf16,  DType::kFp32};

bool commutes(const AluCfg& cfg, const std::vector<uint8_t>& a, const std::vector<uint8_t>& b,
              size_t* first_diff) {
  std::vector<uint8_t> ab = a, ba = b;
  alu_reduce(cfg, ab.data(), b.data(), ab.size());
  alu_reduce(cfg, ba.data(), a.data(), ba.size());
  for (size_t i = 0; i < ab.size(); ++i) {
    if (ab[i] != ba[i]) {
      *first_diff = i;
      return false;
    }
  }
  return true;
}

// Space: every dtype x {sum, sum sat (integers), max, min} on 64 KiB random buffers with a
// quarter special values: alu_reduce(a, b) == alu_reduce(b, a) byte for byte.
TEST(AluCommutativity, SumMaxMinAllDtypes) {
  auto rng = make_rng("SumMaxMinAllDtypes");
  constexpr size_t kBytes = 65536;
  uint64_t n = 0;
  for (DType dt : kAllDtypes) {
    const auto a = random_buffer(dt, kBytes, rng);
    const auto b = random_buffer(dt, kBytes, rng);
    for (RedOp op : {RedOp::kSum, RedOp::kMax, RedOp::kMin}) {
      for (bool sat : {false, true}) {
        if (sat && (dtype_is_float(dt) || op != RedOp::kSum)) continue;
        AluCfg cfg;
        cfg.dtype = dt;
        cfg.op = op;
        cfg.sat = sat;
        size_t at = 0;
        EXPECT_TRUE(commutes(cfg, a, b, &at))
            << to_string(dt) << " " << to_string(op) << (sat ? " sat" : "") << ": byte " << at;
        n += kBytes / dtype_size(dt);
      }
    }
  }
  report_count("SumMaxMinAllDtypes", n);
}

// Space: integer dtypes x avg. With avg_shift 0 the average is commutative, with or without the
// final scale (the scale is applied to a commutative value); with a non-zero shift it is not
// (only b is shifted), which the test also demonstrates on the same data.
TEST(AluCommutativity, AvgOnlyWithoutShift) {
  auto rng = make_rng("AvgOnlyWithoutShift");
  constexpr size_t kBytes = 65536;
  uint64_t n = 0;
  for (DType dt : {DType::kInt8, DType::kUint8, DType::kInt16, DType::kInt32}) {
    const auto a = random_buffer(dt, kBytes, rng);
    const auto b = random_buffer(dt, kBytes, rng);
    for (bool fin : {false, true}) {
      for (uint32_t scale : {32768u, 16384u, 21845u, 65535u}) {
        if (!fin && scale != 32768u) continue;
        AluCfg cfg;
        cfg.dtype = dt;
        cfg.op = RedOp::kAvg;
        cfg.avg_shift = 0;
        cfg.avg_final = fin;
        cfg.avg_scale = scale;
        size_t at = 0;
        EXPECT_TRUE(commutes(cfg, a, b, &at))
            << to_string(dt) << " avg final " << fin << " scale " << scale << ": byte " << at;
        n += kBytes / dtype_size(dt);
      }
    }
    AluCfg shifted;
    shifted.dtype = dt;
    shifted.op = RedOp::kAvg;
    shifted.avg_shift = 1;
    size_t at = 0;
    EXPECT_FALSE(commutes(shifted, a, b, &at)) << to_string(dt) << " avg shift 1 commuted";
    n += kBytes / dtype_size(dt);
  }
  report_count("AvgOnlyWithoutShift", n);
}

// ---- Integers --------------------------------------------------------------------------------

// floor(x / 2^s) by ordinary division with an explicit correction toward -inf.
int64_t ref_floor_pow2(int64_t x, unsigned s) {
  if (s >= 40) return x < 0 ? -1 : 0;  // every x here has |x| < 2^40
  const int64_t d = int64_t{1} << s;
  int64_t q = x / d;
  if (x % d != 0 && x < 0) --q;
  return q;
}

// Expected integer result (as a value of the type) by the formulas of the header.
int64_t ref_int(const AluCfg& cfg, int64_t lo, int64_t hi, int64_t a, int64_t b) {
  switch (cfg.op) {
    case RedOp::kSum: {
      const int64_t s = a + b;
      if (cfg.sat) return std::min(hi, std::max(lo, s));
      const int64_t m = hi - lo + 1;
      return ((s - lo) % m + m) % m + lo;
    }
    case RedOp::kMax:
      return std::max(a, b);
    case RedOp::kMin:
      return std::min(a, b);
    case RedOp::kAvg: {
      const int64_t x = ref_floor_pow2(a + ref_floor_pow2(b, cfg.avg_shift), 1);
      if (!cfg.avg_final) return x;
      const int64_t y = ref_floor_pow2(x * static_cast<int64_t>(cfg.avg_scale), kAvgScaleFracBits);
      return std::min(hi, std::max(lo, y));
    }
    default:
      ADD_FAILURE() << "ref_int: unexpected op";
      return 0;
  }
}

std::string cfg_name(const AluCfg& c) {
  std::string s = std::string(to_string(c.dtype)) + " " + to_string(c.op);
  if (c.op == RedOp::kSum && c.sat) s += " sat";
  if (c.op == RedOp::kAvg) {
    s += " shift " + std::to_string(c.avg_shift);
    if (c.avg_final) s += " final scale " + std::to_string(c.avg_scale);
  }
  return s;
}

// Every integer configuration exercised: sum wrap/sat, max, min, avg with shifts 0..15 (the
// header field) and beyond (defined as floor(b / 2^shift)), avg final with Q1.15 scales incl. 0,
// 1, 0.5, 1 - 2^-15, 1.0, 2 - 2^-15, and out-of-range 32-bit scales.
std::vector<AluCfg> int_configs(DType dt, bool full) {
  std::vector<AluCfg> v;
  AluCfg c;
  c.dtype = dt;
  for (bool sat : {false, true}) {
    c.op = RedOp::kSum;
    c.sat = sat;
    v.push_back(c);
  }
  c.sat = false;
  c.op = RedOp::kMax;
  v.push_back(c);
  c.op = RedOp::kMin;
  v.push_back(c);
  c.op = RedOp::kAvg;
  const std::vector<uint8_t> shifts =
      full ? std::vector<uint8_t>{0,  1,  2,  3,  4,  5,  6,  7,  8,  9,  10,
                                  11, 12, 13, 14, 15, 16, 31, 32, 63, 64, 255}
           : std::vector<uint8_t>{0, 1, 3, 7, 15, 31, 32, 255};
  for (uint8_t s : shifts) {
    c.avg_shift = s;
    v.push_back(c);
  }
  c.avg_final = true;
  for (uint8_t s : {0, 1, 2, 3}) {
    for (uint32_t scale : {0u, 1u, 12345u, 16384u, 21845u, 32767u, 32768u, 32769u, 49152u, 65535u,
                           65536u, 0xFFFFFFFFu}) {
      if (!full && s > 1) continue;
      c.avg_shift = s;
      c.avg_scale = scale;
      v.push_back(c);
    }
  }
  return v;
}

// Runs every config over the element pairs (a[i], b[i]) of type T through alu_reduce.
template <typename T>
void check_int_pairs(DType dt, const std::vector<T>& a, const std::vector<T>& b, bool full,
                     uint64_t* n) {
  const int64_t lo = std::numeric_limits<T>::min(), hi = std::numeric_limits<T>::max();
  int fails = 0;
  for (const AluCfg& cfg : int_configs(dt, full)) {
    std::vector<T> local = a;
    alu_reduce(cfg, bytes(local.data()), cbytes(b.data()), local.size() * sizeof(T));
    for (size_t i = 0; i < a.size(); ++i) {
      const int64_t want = ref_int(cfg, lo, hi, a[i], b[i]);
      ++*n;
      if (static_cast<int64_t>(local[i]) != want && fails++ < kMaxReportedFailures) {
        ADD_FAILURE() << cfg_name(cfg) << " (" << static_cast<int64_t>(a[i]) << ", "
                      << static_cast<int64_t>(b[i]) << "): got " << static_cast<int64_t>(local[i])
                      << " want " << want;
      }
    }
  }
  EXPECT_EQ(fails, 0);
}

// Space: int8 and uint8, all 65536 (a, b) pairs x 74 configurations (sum wrap/sat, max, min,
// avg shift 0..15 and 16/31/32/63/64/255, avg final shift 0..3 x 12 scales).
TEST(AluInt, Int8Uint8Exhaustive) {
  uint64_t n = 0;
  {
    std::vector<int8_t> a, b;
    for (int x = -128; x < 128; ++x) {
      for (int y = -128; y < 128; ++y) {
        a.push_back(static_cast<int8_t>(x));
        b.push_back(static_cast<int8_t>(y));
      }
    }
    check_int_pairs(DType::kInt8, a, b, true, &n);
  }
  {
    std::vector<uint8_t> a, b;
    for (int x = 0; x < 256; ++x) {
      for (int y = 0; y < 256; ++y) {
        a.push_back(static_cast<uint8_t>(x));
        b.push_back(static_cast<uint8_t>(y));
      }
    }
    check_int_pairs(DType::kUint8, a, b, true, &n);
  }
  report_count("Int8Uint8Exhaustive", n);
}

// Random pairs for int16/int32: all pairs of the type's edge values, then random values where
// each operand is with some probability an edge value, a small value, or uniform.
template <typename T>
void make_int_pairs(std::mt19937_64& rng, size_t count, std::vector<T>* a, std::vector<T>* b) {
  const T mn = std::numeric_limits<T>::min(), mx = std::numeric_limits<T>::max();
  const std::vector<T> edges = {mn, static_cast<T>(mn + 1), static_cast<T>(mn / 2), -2, -1, 0, 1,
                                2,  static_cast<T>(mx / 2), static_cast<T>(mx - 1), mx};
  for (T x : edges) {
    for (T y : edges) {
      a->push_back(x);
      b->push_back(y);
    }
  }
  auto pick = [&]() -> T {
    const uint64_t r = rng();
    switch (r % 4u) {
      case 0:
        return edges[(r >> 8) % edges.size()];
      case 1:
        return static_cast<T>(static_cast<int64_t>((r >> 8) % 257u) - 128);
      default: {
        T v;
        const uint64_t bits = r >> 16;
        std::memcpy(&v, &bits, sizeof v);
        return v;
      }
    }
  };
  for (size_t i = 0; i < count; ++i) {
    a->push_back(pick());
    b->push_back(pick());
  }
}

// Space: int16 and int32, edge x edge pairs plus 1e6 random pairs each, x 36 configurations
// (sum wrap/sat, max, min, avg shifts 0/1/3/7/15/31/32/255, avg final shift 0..1 x 12 scales).
TEST(AluInt, Int16Int32Random) {
  auto rng = make_rng("Int16Int32Random");
  uint64_t n = 0;
  {
    std::vector<int16_t> a, b;
    make_int_pairs(rng, 1000000, &a, &b);
    check_int_pairs(DType::kInt16, a, b, false, &n);
  }
  {
    std::vector<int32_t> a, b;
    make_int_pairs(rng, 1000000, &a, &b);
    check_int_pairs(DType::kInt32, a, b, false, &n);
  }
  report_count("Int16Int32Random", n);
}

// ---- fp32 multiplication and ScaleAdd ----------------------------------------------------------

// Checks fp32_mul(a, b) and fp32_mul(b, a) against ref_fp32_mul and the host's float product.
void check_mul(uint32_t a, uint32_t b, uint64_t* n, int* fails) {
  volatile float fa = u2f(a), fb = u2f(b);
  const float host = fa * fb;
  const uint32_t want_host = std::isnan(host) ? 0x7FC00000u : f2u(host);
  const uint32_t want = ref_fp32_mul(a, b);
  const uint32_t ab = fp32_mul(a, b), ba = fp32_mul(b, a);
  *n += 2;
  if ((want_host != want || ab != want || ba != want) && (*fails)++ < kMaxReportedFailures) {
    ADD_FAILURE() << "fp32 " << hex(a) << " * " << hex(b) << ": ref " << hex(want) << ", host "
                  << hex(want_host) << ", mul(a,b) " << hex(ab) << ", mul(b,a) " << hex(ba);
  }
}

// Space: fp32_mul on every pair of the 36 specials (zeros of both signs, subnormal edges, one and
// its neighbours, max, infinities, NaNs of several signs and payloads) and on hand-picked
// results: inf * 0 and NaN inputs give the canonical NaN, signs XOR, overflow to infinity,
// subnormal products, underflow to +-0, and ties rounding to even in the normal and the
// subnormal range.
TEST(AluFloatMul, Fp32SpecialsAndEdges) {
  const auto sp = fp32_specials();
  uint64_t n = 0;
  int fails = 0;
  for (uint32_t x : sp) {
    for (uint32_t y : sp) check_mul(x, y, &n, &fails);
  }
  EXPECT_EQ(fails, 0);
  EXPECT_EQ(fp32_mul(0x7F800000u, 0x00000000u), 0x7FC00000u);  // inf * 0
  EXPECT_EQ(fp32_mul(0x80000000u, 0xFF800000u), 0x7FC00000u);  // -0 * -inf
  EXPECT_EQ(fp32_mul(0xFFC00001u, 0x3F800000u), 0x7FC00000u);  // NaN sign and payload dropped
  EXPECT_EQ(fp32_mul(0x7F800001u, 0x00000000u), 0x7FC00000u);  // signalling NaN
  EXPECT_EQ(fp32_mul(0xFF800000u, 0xBF800000u), 0x7F800000u);  // -inf * -1 = +inf
  EXPECT_EQ(fp32_mul(0x80000000u, 0x3F800000u), 0x80000000u);  // -0 * 1 = -0
  EXPECT_EQ(fp32_mul(0x80000000u, 0x80000000u), 0x00000000u);  // -0 * -0 = +0
  EXPECT_EQ(fp32_mul(0x7F7FFFFFu, 0x40000000u), 0x7F800000u);  // max * 2 overflows
  EXPECT_EQ(fp32_mul(0xFF7FFFFFu, 0x3F800001u), 0xFF800000u);  // max * (1 + ulp): rounds to -inf
  EXPECT_EQ(fp32_mul(0x7F7FFFFFu, 0x3F800000u), 0x7F7FFFFFu);  // max * 1
  EXPECT_EQ(fp32_mul(0x00800000u, 0x3F000000u), 0x00400000u);  // 2^-126 / 2: subnormal, exact
  EXPECT_EQ(fp32_mul(0x00000001u, 0x40000000u), 0x00000002u);  // subnormal * 2
  EXPECT_EQ(fp32_mul(0x00000001u, 0x3F000000u), 0x00000000u);  // 2^-150: tie, even is 0
  EXPECT_EQ(fp32_mul(0x00000001u, 0x3F000001u), 0x00000001u);  // just above the tie
  EXPECT_EQ(fp32_mul(0x00000003u, 0x3F000000u), 0x00000002u);  // 1.5 units: tie, even is 2
  EXPECT_EQ(fp32_mul(0x80000001u, 0x3E800000u), 0x80000000u);  // underflow to -0
  EXPECT_EQ(fp32_mul(0x00000001u, 0x00000001u), 0x00000000u);  // 2^-298
  EXPECT_EQ(fp32_mul(0x007FFFFFu, 0x3F800001u), 0x00800000u);  // rounds up into the normals
  EXPECT_EQ(fp32_mul(0x00400000u, 0x4B000000u), 0x0B800000u);  // 2^-127 * 2^23 = 2^-104
  // (1 + 2^-12)^2 = 1 + 2^-11 + 2^-24: half an ulp (2^-23) above 1 + 2^-11, a tie; the even
  // neighbour is below. (1 + 2^-12)(1 + 3 * 2^-12) = 1 + 2^-10 + 1.5 ulp: a tie between 1 and 2
  // ulps, the even one is above. With 1 + 2^-12 + 2^-23 the first is just above its tie: up.
  EXPECT_EQ(fp32_mul(0x3F800800u, 0x3F800800u), 0x3F801000u);
  EXPECT_EQ(fp32_mul(0x3F800800u, 0x3F801800u), 0x3F802002u);
  EXPECT_EQ(fp32_mul(0x3F800800u, 0x3F800801u), 0x3F801002u);
  n += 23;
  report_count("Fp32SpecialsAndEdges", n);
}

// Random fp32 operand for products: raw patterns, specials, or any sign and fraction with an
// exponent field in [lo, hi].
uint32_t random_mul_operand(std::mt19937_64& rng, const std::vector<uint32_t>& sp, uint32_t lo,
                            uint32_t hi) {
  const uint64_t x = rng();
  const uint32_t u = static_cast<uint32_t>(x);
  switch ((x >> 32) % 8u) {
    case 0:
      return u;
    case 1:
      return sp[(x >> 40) % sp.size()];
    case 2:
      return u & 0x807FFFFFu;  // subnormal or zero
    default:
      return (u & 0x807FFFFFu) | ((lo + static_cast<uint32_t>((x >> 40) % (hi - lo + 1))) << 23);
  }
}

// Space: 4 million random pairs whose exponent sums are drawn from six ranges (raw patterns,
// specials, subnormals, and exponents placing the product around 1, near the overflow threshold,
// in the subnormal range and below it), against the exact-double reference and the host, in both
// orders.
TEST(AluFloatMul, Fp32RandomVsReference) {
  auto rng = make_rng("Fp32RandomVsReference");
  const auto sp = fp32_specials();
  // Exponent windows (field values) for the two operands: product exponent field ~ ea + eb - 127.
  const uint32_t win[][4] = {
      {1, 254, 1, 254},      // anywhere
      {100, 154, 100, 154},  // around 1
      {190, 254, 190, 254},  // overflow threshold (ea + eb - 127 near 254)
      {40, 90, 1, 60},       // subnormal results (ea + eb - 127 around -24..0)
      {1, 30, 1, 40},        // underflow to zero
      {1, 5, 100, 160},      // subnormal-range inputs times ordinary values
  };
  uint64_t n = 0;
  int fails = 0;
  for (int i = 0; i < 4000000; ++i) {
    const auto& w = win[i % 6];
    const uint32_t a = random_mul_operand(rng, sp, w[0], w[1]);
    const uint32_t b = random_mul_operand(rng, sp, w[2], w[3]);
    check_mul(a, b, &n, &fails);
  }
  EXPECT_EQ(fails, 0);
  report_count("Fp32RandomVsReference", n);
}

// Space: 24 structured fractions (zero, the top and bottom bits, all ones, patterns whose products
// land exactly on or next to rounding ties) x 24 fractions x every pair of exponent fields 0..255
// (so every normal, subnormal, overflow and underflow transition is crossed with every tie
// pattern) x both signs of the first operand: 75.5 million products.
TEST(AluFloatMul, Fp32StructuredExhaustiveExponents) {
  const uint32_t frac[] = {0x000000u, 0x000001u, 0x000002u, 0x000003u, 0x000800u, 0x000801u,
                           0x001000u, 0x001800u, 0x002000u, 0x0007FFu, 0x400000u, 0x400001u,
                           0x200000u, 0x600000u, 0x7FFFFFu, 0x7FFFFEu, 0x7FF800u, 0x7FF000u,
                           0x555555u, 0x2AAAAAu, 0x3FFFFFu, 0x0FFFFFu, 0x100000u, 0x7C0000u};
  uint64_t n = 0;
  int fails = 0;
  for (uint32_t fa : frac) {
    for (uint32_t fb : frac) {
      for (uint32_t ea = 0; ea < 256; ++ea) {
        for (uint32_t eb = 0; eb < 256; ++eb) {
          const uint32_t a = (ea << 23) | fa, b = (eb << 23) | fb;
          const uint32_t want = ref_fp32_mul(a, b);
          const uint32_t got = fp32_mul(a, b), got_neg = fp32_mul(a | 0x80000000u, b);
          const uint32_t want_neg = ref_fp32_mul(a | 0x80000000u, b);
          n += 2;
          if ((got != want || got_neg != want_neg) && fails++ < kMaxReportedFailures) {
            ADD_FAILURE() << "fp32 " << hex(a) << " * " << hex(b) << ": ref " << hex(want)
                          << " got " << hex(got) << "; negated ref " << hex(want_neg) << " got "
                          << hex(got_neg);
          }
        }
      }
    }
  }
  EXPECT_EQ(fails, 0);
  report_count("Fp32StructuredExhaustiveExponents", n);
}

// Space: ScaleAdd through alu_reduce: 4096 scales (specials, random, powers of two, values near 1
// and tiny ones) each with 256 random (a, b) pairs (a quarter specials, b near a / s so the sum
// cancels), against `a + s * b` in volatile floats and against the exact references composed
// (ref_fp32_add(a, ref_fp32_mul(s, b))); plus ScaleAdd with the default scale (1.0) equal to Sum.
TEST(AluScaleAdd, Fp32RandomVsVolatileFloat) {
  auto rng = make_rng("Fp32RandomVsVolatileFloat");
  const auto sp = fp32_specials();
  constexpr size_t kPerScale = 256;
  uint64_t n = 0;
  int fails = 0;
  for (int k = 0; k < 4096; ++k) {
    uint32_t s;
    switch (k % 4) {
      case 0:
        s = sp[(k / 4) % sp.size()];
        break;
      case 1:
        s = static_cast<uint32_t>(rng());
        break;
      case 2:
        s = (static_cast<uint32_t>(rng() % 254u + 1u) << 23) | (rng() & 0x80000000u);
        break;
      default:
        s = random_fp32(rng, sp, 0x3F800000u);  // near 1 (or raw, or special)
        break;
    }
    std::vector<uint32_t> a(kPerScale), b(kPerScale);
    for (size_t i = 0; i < kPerScale; ++i) {
      a[i] = random_fp32(rng, sp, static_cast<uint32_t>(rng()));
      // b such that s * b is near a in magnitude: exponent of a minus that of s, plus bias.
      const int eb = static_cast<int>((a[i] >> 23) & 0xFFu) - static_cast<int>((s >> 23) & 0xFFu) +
                     127 + static_cast<int>(rng() % 5u) - 2;
      const uint32_t near =
          static_cast<uint32_t>(std::min(254, std::max(0, eb))) << 23 | (rng() & 0x807FFFFFu);
      b[i] = rng() % 4u == 0 ? random_fp32(rng, sp, static_cast<uint32_t>(rng()))
                             : random_fp32(rng, sp, near);
    }
    AluCfg cfg;
    cfg.dtype = DType::kFp32;
    cfg.op = RedOp::kScaleAdd;
    cfg.scale = s;
    std::vector<uint32_t> local = a;
    alu_reduce(cfg, bytes(local.data()), cbytes(b.data()), local.size() * 4);
    for (size_t i = 0; i < kPerScale; ++i) {
      const uint32_t want = host_scale_add(a[i], s, b[i]);
      const uint32_t ref = ref_fp32_add(a[i], ref_fp32_mul(s, b[i]));
      ++n;
      if ((local[i] != want || ref != want) && fails++ < kMaxReportedFailures) {
        ADD_FAILURE() << "scale_add a " << hex(a[i]) << " s " << hex(s) << " b " << hex(b[i])
                      << ": host " << hex(want) << ", ref " << hex(ref) << ", alu_reduce "
                      << hex(local[i]);
      }
    }
  }
  EXPECT_EQ(fails, 0);
  // The default scale is 1.0: ScaleAdd is then Sum bit for bit (s * b = b exactly, NaN aside,
  // and a NaN b gives a NaN either way).
  AluCfg sum_cfg, sa_cfg;
  sum_cfg.dtype = sa_cfg.dtype = DType::kFp32;
  sa_cfg.op = RedOp::kScaleAdd;
  EXPECT_EQ(sa_cfg.scale, 0x3F800000u);
  std::vector<uint8_t> a8 = random_buffer(DType::kFp32, 65536, rng);
  const std::vector<uint8_t> b8 = random_buffer(DType::kFp32, 65536, rng);
  std::vector<uint8_t> via_sum = a8;
  alu_reduce(sum_cfg, via_sum.data(), b8.data(), via_sum.size());
  alu_reduce(sa_cfg, a8.data(), b8.data(), a8.size());
  EXPECT_EQ(a8, via_sum);
  n += 65536 / 4;
  report_count("Fp32RandomVsVolatileFloat", n);
}

// Space: hand vectors of ScaleAdd: the two roundings (a fused multiply-add would give a different
// result), a scale of 0 (s * b = +-0, so a is kept, NaN and inf * 0 aside), a negative scale,
// overflow of the product, and the operand roles (only b is scaled).
TEST(AluScaleAdd, HandVectors) {
  AluCfg cfg;
  cfg.dtype = DType::kFp32;
  cfg.op = RedOp::kScaleAdd;
  auto one = [&](uint32_t s, uint32_t a, uint32_t b) {
    cfg.scale = s;
    uint32_t l = a;
    alu_reduce(cfg, bytes(&l), cbytes(&b), 4);
    return l;
  };
  // s = b = 1 + 2^-12: s * b = 1 + 2^-11 + 2^-24 rounds (tie, even) to 1 + 2^-11, and a = -that
  // cancels it to +0. One rounding (FMA) would give 2^-24 = 0x33800000.
  EXPECT_EQ(one(0x3F800800u, 0xBF801000u, 0x3F800800u), 0x00000000u);
  EXPECT_EQ(one(0x3F000000u, 0x3F800000u, 0x40000000u), 0x40000000u);  // 1 + 0.5 * 2 = 2
  EXPECT_EQ(one(0xBDCCCCCDu, 0x40000000u, 0x40A00000u), 0x3FC00000u);  // 2 + (-0.1f) * 5 = 1.5
  EXPECT_EQ(one(0x00000000u, 0x3F800000u, 0x7F7FFFFFu), 0x3F800000u);  // s = 0 keeps a
  EXPECT_EQ(one(0x00000000u, 0x80000000u, 0x3F800000u), 0x00000000u);  // -0 + +0 = +0
  EXPECT_EQ(one(0x00000000u, 0x3F800000u, 0x7F800000u), 0x7FC00000u);  // 0 * inf: NaN
  EXPECT_EQ(one(0x40000000u, 0x3F800000u, 0x7F7FFFFFu), 0x7F800000u);  // 2 * max = inf
  EXPECT_EQ(one(0x40000000u, 0xFF800000u, 0x7F7FFFFFu), 0x7FC00000u);  // -inf + inf: NaN
  EXPECT_EQ(one(0x3F800000u, 0x00000001u, 0x00000001u), 0x00000002u);  // subnormals kept
  EXPECT_EQ(one(0x3F000000u, 0x00000000u, 0x00000001u), 0x00000000u);  // 2^-150 ties to 0
  EXPECT_EQ(one(0x40000000u, 0x3F800000u, 0x40400000u), 0x40E00000u);  // 1 + 2 * 3 = 7, not 5
  EXPECT_EQ(one(0x40000000u, 0x40400000u, 0x3F800000u), 0x40A00000u);  // 3 + 2 * 1 = 5
}

// ---- Types and error paths -------------------------------------------------------------------

// Space: the full dtype x op table (plus out-of-range enum values) of dtype_size,
// dtype_is_float and valid_pair.
TEST(AluTypes, SizesAndValidPairs) {
  const size_t sizes[] = {1, 1, 2, 4, 2, 2, 4};
  for (uint32_t t = 0; t < kDTypeCount; ++t) {
    const DType dt = static_cast<DType>(t);
    EXPECT_EQ(dtype_size(dt), sizes[t]) << to_string(dt);
    EXPECT_EQ(dtype_is_float(dt), t >= 4) << to_string(dt);
    for (uint32_t o = 0; o < 8; ++o) {
      const RedOp op = static_cast<RedOp>(o);
      const bool want = o <= 2 || (o == 3 && t < 4) || (o == 4 && t == 6);
      EXPECT_EQ(valid_pair(dt, op), want) << to_string(dt) << " op " << o;
    }
  }
  for (uint32_t t = kDTypeCount; t < 8; ++t) {
    EXPECT_FALSE(valid_pair(static_cast<DType>(t), RedOp::kSum));
    EXPECT_FALSE(dtype_is_float(static_cast<DType>(t)));
    EXPECT_THROW(dtype_size(static_cast<DType>(t)), std::invalid_argument);
  }
}

// Space: every invalid (dtype, op) pair (avg on floats, scale_add on every dtype but fp32, op and
// dtype codes outside the enums): alu_reduce throws std::invalid_argument naming the pair and
// leaves the buffer untouched.
TEST(AluErrors, InvalidPairThrows) {
  int checked = 0;
  for (uint32_t t = 0; t < 8; ++t) {
    for (uint32_t o = 0; o < 8; ++o) {
      AluCfg cfg;
      cfg.dtype = static_cast<DType>(t);
      cfg.op = static_cast<RedOp>(o);
      if (valid_pair(cfg.dtype, cfg.op)) continue;
      std::vector<uint8_t> local(16, 0x5A), in(16, 0x11);
      try {
        alu_reduce(cfg, local.data(), in.data(), local.size());
        ADD_FAILURE() << "dtype " << t << " op " << o << " did not throw";
      } catch (const std::invalid_argument& e) {
        EXPECT_NE(std::string(e.what()).find("invalid dtype/op pair"), std::string::npos)
            << e.what();
      }
      EXPECT_EQ(local, std::vector<uint8_t>(16, 0x5A));
      ++checked;
    }
  }
  EXPECT_EQ(checked, 8 * 8 - (3 * 7 + 4 + 1));  // 26 valid pairs
}

// Space: every dtype with nbytes 0..17: lengths that are not a multiple of the element size
// throw std::invalid_argument (buffer untouched); valid lengths work; 0 bytes is a no-op even
// with null pointers; a null buffer with a non-zero length throws.
TEST(AluErrors, BadLengthThrows) {
  for (DType dt : kAllDtypes) {
    AluCfg cfg;
    cfg.dtype = dt;
    for (size_t nb = 0; nb <= 17; ++nb) {
      std::vector<uint8_t> local(17, 0x01), in(17, 0x01);
      if (nb % dtype_size(dt) != 0) {
        EXPECT_THROW(alu_reduce(cfg, local.data(), in.data(), nb), std::invalid_argument)
            << to_string(dt) << " nbytes " << nb;
        EXPECT_EQ(local, std::vector<uint8_t>(17, 0x01));
      } else {
        EXPECT_NO_THROW(alu_reduce(cfg, local.data(), in.data(), nb))
            << to_string(dt) << " nbytes " << nb;
      }
    }
    EXPECT_NO_THROW(alu_reduce(cfg, nullptr, nullptr, 0));
    uint8_t buf[4] = {};
    EXPECT_THROW(alu_reduce(cfg, nullptr, buf, 4), std::invalid_argument);
    EXPECT_THROW(alu_reduce(cfg, buf, nullptr, 4), std::invalid_argument);
  }
}

// Space: a few hand-computed vectors that pin down the documented semantics and the
// little-endian layout independently of any reference formula.
TEST(AluSemantics, HandVectors) {
  AluCfg cfg;
  // int16 wrap, little-endian: 0x7FFF + 1 = 0x8000.
  cfg.dtype = DType::kInt16;
  uint8_t l16[2] = {0xFF, 0x7F}, i16[2] = {0x01, 0x00};
  alu_reduce(cfg, l16, i16, 2);
  EXPECT_EQ(l16[0], 0x00);
  EXPECT_EQ(l16[1], 0x80);
  // int8 avg shift 1: (-3 + (-3 >>> 1)) >>> 1 = (-3 + -2) >>> 1 = -3.
  cfg.dtype = DType::kInt8;
  cfg.op = RedOp::kAvg;
  cfg.avg_shift = 1;
  int8_t a8 = -3, b8 = -3;
  alu_reduce(cfg, bytes(&a8), cbytes(&b8), 1);
  EXPECT_EQ(a8, -3);
  // int8 avg final with scale 1.5: floor(-1 * 1.5) = -2; 127 * 1.5 clamps to 127.
  cfg.avg_shift = 0;
  cfg.avg_final = true;
  cfg.avg_scale = 0xC0000000u;  // 1.5 in Q1.31
  int8_t av[2] = {-1, 127}, bv[2] = {-1, 127};
  alu_reduce(cfg, bytes(av), cbytes(bv), 2);
  EXPECT_EQ(av[0], -2);
  EXPECT_EQ(av[1], 127);
  // fp32: inf + -inf = canonical NaN; max(NaN, 1) = 1; max(-0, +0) = +0; min = -0.
  EXPECT_EQ(fp32_add(0x7F800000u, 0xFF800000u), 0x7FC00000u);
  EXPECT_EQ(fp16_add(0x7C00, 0xFC00), 0x7E00);
  EXPECT_EQ(bf16_add(0x7F80, 0xFF80), 0x7FC0);
  EXPECT_EQ(fp16_add(0x7BFF, 0x4C00), 0x7C00);  // 65504 + 16 = 65520: tie, even is 2^16 = inf
  EXPECT_EQ(fp16_add(0x7BFF, 0x4BFF), 0x7BFF);  // 65504 + 15.99 < 65520: stays max
  EXPECT_EQ(fp16_add(0x0001, 0x8001), 0x0000);  // x + -x = +0
  EXPECT_EQ(fp16_add(0x8000, 0x8000), 0x8000);  // -0 + -0 = -0
  cfg = AluCfg();
  cfg.dtype = DType::kFp32;
  cfg.op = RedOp::kMax;
  uint32_t fa[3] = {0xFFC12345u, 0x80000000u, 0x7FC00001u};
  uint32_t fb[3] = {0x3F800000u, 0x00000000u, 0xFF800001u};
  alu_reduce(cfg, bytes(fa), cbytes(fb), sizeof fa);
  EXPECT_EQ(fa[0], 0x3F800000u);
  EXPECT_EQ(fa[1], 0x00000000u);
  EXPECT_EQ(fa[2], 0x7FC00000u);
  cfg.op = RedOp::kMin;
  uint32_t ma[1] = {0x00000000u}, mb[1] = {0x80000000u};
  alu_reduce(cfg, bytes(ma), cbytes(mb), sizeof ma);
  EXPECT_EQ(ma[0], 0x80000000u);
  // Conversions: smallest fp16 subnormal, the 2^-25 tie rounds to even (zero), just above to 1.
  EXPECT_EQ(float_to_fp16(std::ldexp(1.0f, -24)), 0x0001);
  EXPECT_EQ(float_to_fp16(std::ldexp(1.0f, -25)), 0x0000);
  EXPECT_EQ(float_to_fp16(-std::ldexp(1.0f, -25)), 0x8000);
  EXPECT_EQ(float_to_fp16(std::nextafter(std::ldexp(1.0f, -25), 1.0f)), 0x0001);
  EXPECT_EQ(float_to_fp16(65519.0f), 0x7BFF);
  EXPECT_EQ(float_to_fp16(65520.0f), 0x7C00);
  EXPECT_EQ(float_to_fp16(u2f(0xFFC00001u)), 0x7E00);
  EXPECT_EQ(float_to_bf16(u2f(0x3F808000u)), 0x3F80);  // tie, even stays
  EXPECT_EQ(float_to_bf16(u2f(0x3F818000u)), 0x3F82);  // tie, odd rounds up
  EXPECT_EQ(float_to_bf16(u2f(0x7F7FFFFFu)), 0x7F80);  // overflow to inf
  EXPECT_EQ(float_to_bf16(u2f(0xFF800001u)), 0x7FC0);
}

}  // namespace
}  // namespace xf
