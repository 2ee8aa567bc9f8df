// RTL_TOP: xf_reduce_alu
// RTL_SRCS: rtl/xf_defs_pkg.sv rtl/xf_delay.sv rtl/xf_int_lane.sv rtl/xf_fp_add.sv
// RTL_SRCS: rtl/xf_fp_maxmin.sv rtl/xf_reduce_alu.sv
// Block test of the RTL reduction ALU (rtl/xf_reduce_alu.sv, Verilated) against the C++
// reference xf::alu_reduce (sw/lib/alu.cpp): every output flit must equal the reference bit for
// bit, with its tag, its error bit and its valid exactly LatencyCycles after the input.
//
// Space covered (the MixedStream test; every vector is one 16-byte flit):
//  - int8 and uint8: every (a, b) lane pair (65536 per configuration, 16 lanes a flit) for Sum
//    wrap, Sum sat, Max, Min and Avg with avg_shift 0..3, each without the final scale and with
//    final scales 1.0, 4/3, 1.6, 0.5, 2^-31 and 2 - 2^-31;
//  - int8, uint8, int16, int32: random values biased to the range ends, 0, +-1 and values close
//    to each other, for all four ops with random sat, avg_shift 0..15, avg_final and scale;
//  - fp16, bf16, fp32 Sum/Max/Min: at least 2 million random lane pairs per type, drawn from
//    +-0, +-inf, quiet and signalling NaNs of both signs with random payloads, subnormals, the
//    extreme normals, +-1, uniform bit patterns and pairs built to stress the adder (exponents
//    within the alignment range, cancellation of near-opposite values, exact ties, overflow);
//  - fp16 and bf16 Sum: all 65536 a values, each with 64 structured b values (16 specials and
//    48 built from a: exponent offsets 0..15 with a's fraction and the opposite sign, with a zero
//    fraction, or with a random fraction and sign);
//  - invalid dtype/op pairs (dtype 7, op 4..7, Avg on floats): err_o with a passed through;
//  - the configuration (dtype, op, sat, avg_shift, avg_final, avg_scale, tag) is random in every
//    cycle, fields that do not matter to the op included, so a pipeline that mixed two flits'
//    configurations would fail; about 1% of the cycles are idle (in_valid low, random inputs).
// The other tests check reset, latency and idle behaviour, the docs/alu.md examples, and every
// (dtype, op) code for the error output.
//
// Inputs change half a period away from the rising edge. Random data: std::mt19937_64 seeded
// with a fixed default that XF_SEED (decimal or 0x-hex) overrides; each test prints its seed and
// its vector count. On a mismatch the test prints the cycle, the configuration, the lane, the
// operands, the expected and seen results, and the command that reproduces it.
#include <gtest/gtest.h>
#include <verilated.h>

#include <algorithm>
#include <array>
#include <cinttypes>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "Vxf_reduce_alu.h"
#include "xf/alu.hpp"

namespace xf {
namespace {

// rtl/xf_reduce_alu.sv LatencyCycles: a flit presented in cycle t leaves in cycle t + 4.
constexpr int kLatencyCycles = 4;
constexpr uint64_t kDefaultSeed = 0xA1u;
constexpr int kMaxReportedFailures = 10;

uint64_t base_seed() {
  const char* s = std::getenv("XF_SEED");
  return (s != nullptr && *s != '\0') ? std::strtoull(s, nullptr, 0) : kDefaultSeed;
}

std::string test_name() {
  const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
  return std::string(info->test_suite_name()) + "." + info->name();
}

// Per-test generator: the base seed mixed with the test name. Prints the seed.
std::mt19937_64 make_rng() {
  const std::string name = test_name();
  uint64_t h = 1469598103934665603ull;  // FNV-1a of the test name
  for (char c : name) h = (h ^ static_cast<uint8_t>(c)) * 1099511628211ull;
  std::printf("[   SEED   ] %s: XF_SEED=%" PRIu64 "%s\n", name.c_str(), base_seed(),
              std::getenv("XF_SEED") != nullptr ? "" : " (default; set XF_SEED to override)");
  return std::mt19937_64(base_seed() ^ h);
}

// One input flit with its configuration. dtype and op may hold undefined codes.
struct Vec {
  bool valid = true;
  AluCfg cfg;
  std::array<uint8_t, 16> a{};
  std::array<uint8_t, 16> b{};
  uint32_t tag = 0;
};

size_t lane_bytes(DType t) { return static_cast<unsigned>(t) < kDTypeCount ? dtype_size(t) : 1; }

uint64_t get_lane(const std::array<uint8_t, 16>& f, size_t lane, size_t bytes) {
  uint64_t v = 0;
  std::memcpy(&v, f.data() + lane * bytes, bytes);
  return v;
}

void set_lane(std::array<uint8_t, 16>& f, size_t lane, size_t bytes, uint64_t v) {
  std::memcpy(f.data() + lane * bytes, &v, bytes);
}

std::string describe(const Vec& v) {
  char buf[200];
  std::snprintf(buf, sizeof buf,
                "dtype %u (%s) op %u (%s) sat %d avg_shift %u avg_final %d avg_scale 0x%08x tag "
                "0x%08x",
                static_cast<unsigned>(v.cfg.dtype),
                static_cast<unsigned>(v.cfg.dtype) < kDTypeCount ? to_string(v.cfg.dtype) : "?",
                static_cast<unsigned>(v.cfg.op),
                static_cast<unsigned>(v.cfg.op) < kRedOpCount ? to_string(v.cfg.op) : "?",
                v.cfg.sat, v.cfg.avg_shift, v.cfg.avg_final, v.cfg.avg_scale, v.tag);
  return buf;
}

// The Verilated ALU with a scoreboard: step() presents one input (or an idle cycle), clocks
// once and checks the output of the flit presented kLatencyCycles earlier.
class AluBench {
 public:
  AluBench() : ctx_(std::make_unique<VerilatedContext>()) {
    ctx_->fatalOnError(true);
    dut_ = std::make_unique<Vxf_reduce_alu>(ctx_.get(), "dut");
    dut_->clk_i = 0;
    dut_->rst_ni = 0;
    dut_->in_valid_i = 0;
    dut_->eval();
    for (int i = 0; i < 3; ++i) tick();
    dut_->rst_ni = 1;
    dut_->eval();
  }
  ~AluBench() { dut_->final(); }

  // Presents v (or an idle cycle when !v.valid), clocks, and checks the oldest flit in flight.
  void step(const Vec& v) {
    for (int w = 0; w < 4; ++w) {
      uint32_t wa, wb;
      std::memcpy(&wa, v.a.data() + 4 * w, 4);
      std::memcpy(&wb, v.b.data() + 4 * w, 4);
      dut_->in_a_i[w] = wa;
      dut_->in_b_i[w] = wb;
    }
    dut_->in_valid_i = v.valid;
    dut_->in_dtype_i = static_cast<uint8_t>(v.cfg.dtype);
    dut_->in_op_i = static_cast<uint8_t>(v.cfg.op);
    dut_->in_sat_i = v.cfg.sat;
    dut_->in_avg_shift_i = v.cfg.avg_shift;
    dut_->in_avg_final_i = v.cfg.avg_final;
    dut_->in_avg_scale_i = v.cfg.avg_scale;
    dut_->in_tag_i = v.tag;
    in_flight_.push_back(v);
    tick();
    if (static_cast<int>(in_flight_.size()) == kLatencyCycles) {
      check(in_flight_.front());
      in_flight_.pop_front();
    } else if (dut_->out_valid_o) {
      fail("out_valid_o high with no flit in flight since reset");
    }
    if (v.valid) ++vectors_;
  }

  // Idle cycles until every flit in flight has been checked.
  void drain() {
    Vec idle;
    idle.valid = false;
    for (int i = 0; i < kLatencyCycles; ++i) step(idle);
  }

  uint64_t vectors() const { return vectors_; }
  uint64_t cycles() const { return cycle_; }
  int failures() const { return failures_; }

 private:
  void tick() {
    ctx_->timeInc(1);
    dut_->clk_i = 1;
    dut_->eval();
    ++cycle_;
    ctx_->timeInc(1);
    dut_->clk_i = 0;
    dut_->eval();
  }

  void fail(const std::string& what) {
    ++failures_;
    if (failures_ <= kMaxReportedFailures) {
      ADD_FAILURE() << "cycle " << cycle_ << ": " << what
                    << "\n  reproduce: XF_SEED=" << base_seed()
                    << " build/cmake/test_rtl_alu --gtest_filter=" << test_name();
    }
  }

  void check(const Vec& v) {
    if (dut_->out_valid_o != (v.valid ? 1 : 0)) {
      fail(std::string("out_valid_o is ") + (dut_->out_valid_o ? "1" : "0") + ", expected " +
           (v.valid ? "1" : "0") + " for " + describe(v));
      return;
    }
    if (!v.valid) return;
    std::array<uint8_t, 16> want = v.a;
    const bool want_err = !valid_pair(v.cfg.dtype, v.cfg.op);
    if (!want_err) alu_reduce(v.cfg, want.data(), v.b.data(), want.size());
    std::array<uint8_t, 16> got{};
    for (int w = 0; w < 4; ++w) {
      const uint32_t word = dut_->out_data_o[w];
      std::memcpy(got.data() + 4 * w, &word, 4);
    }
    if (dut_->err_o != (want_err ? 1 : 0)) {
      fail(std::string("err_o is ") + (dut_->err_o ? "1" : "0") + " for " + describe(v));
    }
    if (dut_->out_tag_o != v.tag) {
      char buf[80];
      std::snprintf(buf, sizeof buf, "out_tag_o 0x%08x, expected 0x%08x for ", dut_->out_tag_o,
                    v.tag);
      fail(buf + describe(v));
    }
    if (got != want) {
      const size_t bytes = lane_bytes(v.cfg.dtype);
      for (size_t lane = 0; lane < 16 / bytes; ++lane) {
        if (get_lane(got, lane, bytes) == get_lane(want, lane, bytes)) continue;
        char buf[160];
        std::snprintf(buf, sizeof buf,
                      "lane %zu: a 0x%0*" PRIx64 " b 0x%0*" PRIx64 " expected 0x%0*" PRIx64
                      " seen 0x%0*" PRIx64 " for ",
                      lane, static_cast<int>(2 * bytes), get_lane(v.a, lane, bytes),
                      static_cast<int>(2 * bytes), get_lane(v.b, lane, bytes),
                      static_cast<int>(2 * bytes), get_lane(want, lane, bytes),
                      static_cast<int>(2 * bytes), get_lane(got, lane, bytes));
        fail(buf + describe(v));
      }
    }
  }

  std::unique_ptr<VerilatedContext> ctx_;
  std::unique_ptr<Vxf_reduce_alu> dut_;
  std::deque<Vec> in_flight_;
  uint64_t cycle_ = 0;
  uint64_t vectors_ = 0;
  int failures_ = 0;
};

// ---- Value generators ----------------------------------------------------------------------

using Rng = std::mt19937_64;

uint32_t rnd(Rng& rng, uint32_t n) { return static_cast<uint32_t>(rng() % n); }

const uint32_t kScaleSpecials[] = {0x80000000u, 0xAAAAAAAAu, 0xCCCCCCCCu, 0x40000000u,
                                   0x00000001u, 0xFFFFFFFFu, 0x00000000u, 0x55555555u};

// Random configuration fields that the op may or may not use.
void random_cfg_fields(Rng& rng, AluCfg& cfg) {
  cfg.sat = rng() & 1;
  cfg.avg_shift = static_cast<uint8_t>(rnd(rng, 2) ? rnd(rng, 4) : rnd(rng, 16));
  cfg.avg_final = rng() & 1;
  cfg.avg_scale = rnd(rng, 2) ? kScaleSpecials[rnd(rng, 8)] : static_cast<uint32_t>(rng());
}

// Integer lane value of `bits` bits (two's complement pattern), biased to the interesting ones.
uint64_t pick_int(Rng& rng, unsigned bits, uint64_t other) {
  const uint64_t mask = (bits == 64) ? ~0ull : ((1ull << bits) - 1);
  const uint64_t smin = 1ull << (bits - 1);
  switch (rnd(rng, 10)) {
    case 0: {
      const uint64_t specials[] = {0, 1, mask, smin, smin - 1, smin + 1, mask - 1, 2, smin >> 1};
      return specials[rnd(rng, 9)] & mask;
    }
    case 1:
      return (other + rnd(rng, 9) - 4) & mask;  // close to the other operand
    case 2:
      return (0 - other) & mask;  // its negation
    case 3:
      return (rng() % 512 - 256) & mask;  // small
    default:
      return rng() & mask;
  }
}

struct Fmt {
  DType dtype;
  unsigned width, ebits, mbits;
  uint64_t sign() const { return 1ull << (width - 1); }
  uint64_t emax() const { return (1ull << ebits) - 1; }  // all-ones exponent field
  uint64_t mmask() const { return (1ull << mbits) - 1; }
  uint64_t pack(uint64_t s, uint64_t e, uint64_t m) const {
    return (s ? sign() : 0) | (e << mbits) | (m & mmask());
  }
  uint64_t exp(uint64_t v) const { return (v >> mbits) & emax(); }
};

const Fmt kFp16{DType::kFp16, 16, 5, 10};
const Fmt kBf16{DType::kBf16, 16, 8, 7};
const Fmt kFp32{DType::kFp32, 32, 8, 23};

uint64_t float_special(const Fmt& f, Rng& rng) {
  const uint64_t s = rng() & 1;
  const uint64_t one = (f.emax() >> 1);
  switch (rnd(rng, 12)) {
    case 0:
      return f.pack(s, 0, 0);  // +-0
    case 1:
      return f.pack(s, f.emax(), 0);  // +-inf
    case 2:
      return f.pack(s, f.emax(), 1ull << (f.mbits - 1));  // quiet NaN
    case 3:
      return f.pack(s, f.emax(), 1 + rng() % (f.mmask() >> 1));  // signalling NaN, payload
    case 4:
      return f.pack(s, f.emax(), (1ull << (f.mbits - 1)) | rng());  // quiet NaN, payload
    case 5:
      return f.pack(s, 0, 1);  // smallest subnormal
    case 6:
      return f.pack(s, 0, f.mmask());  // largest subnormal
    case 7:
      return f.pack(s, 1, 0);  // smallest normal
    case 8:
      return f.pack(s, f.emax() - 1, f.mmask());  // largest normal
    case 9:
      return f.pack(s, one, 0);  // +-1
    case 10:
      return f.pack(s, 0, rng());  // random subnormal
    default:
      return f.pack(s, f.emax() - 1 - rnd(rng, 2), rng());  // near overflow
  }
}

uint64_t float_any(const Fmt& f, Rng& rng) {
  return rnd(rng, 4) == 0 ? float_special(f, rng) : (rng() & ((1ull << f.width) - 1));
}

// Second operand built to stress the adder against a.
uint64_t float_partner(const Fmt& f, Rng& rng, uint64_t a) {
  const uint64_t ea = f.exp(a);
  const uint64_t sa = (a & f.sign()) ? 1 : 0;
  const int span = static_cast<int>(f.mbits) + 4;
  auto clamp_exp = [&](int64_t e) {
    return static_cast<uint64_t>(std::clamp<int64_t>(e, 0, static_cast<int64_t>(f.emax()) - 1));
  };
  switch (rnd(rng, 10)) {
    case 0:
    case 1:
      return float_any(f, rng);
    case 2:
    case 3: {  // exponent within the alignment range, random sign and fraction
      const int64_t d = static_cast<int64_t>(rnd(rng, 2 * span + 1)) - span;
      return f.pack(rng() & 1, clamp_exp(static_cast<int64_t>(ea) + d), rng());
    }
    case 4: {  // near-opposite: cancellation
      const unsigned k = rnd(rng, f.mbits + 1);
      return (a ^ f.sign()) ^ (rng() & ((1ull << k) - 1));
    }
    case 5: {  // exact ties and their neighbours: a power of two just below a's last bit
      const int64_t d = static_cast<int64_t>(f.mbits) + 1 + rnd(rng, 2);
      const uint64_t m = rnd(rng, 2) ? 0 : (rnd(rng, 2) ? 1 : f.mmask());
      return f.pack(rnd(rng, 2) ? sa : !sa, clamp_exp(static_cast<int64_t>(ea) - d), m);
    }
    case 6:  // overflow region, same sign
      return f.pack(sa, f.emax() - 1 - rnd(rng, 2), rng());
    case 7:  // equal, or the other zero
      return rnd(rng, 2) ? a : (a ^ f.sign());
    default:
      return f.pack(rng() & 1, clamp_exp(static_cast<int64_t>(ea) - rnd(rng, 4)), rng());
  }
}

// b number j (0..63) of the structured fp16/bf16 set for a.
uint64_t structured_b(const Fmt& f, Rng& rng, uint64_t a, unsigned j) {
  if (j < 16) {
    const uint64_t one = f.emax() >> 1;
    const uint64_t specials[16] = {f.pack(0, 0, 0),
                                   f.pack(1, 0, 0),
                                   f.pack(0, f.emax(), 0),
                                   f.pack(1, f.emax(), 0),
                                   f.pack(0, f.emax(), 1ull << (f.mbits - 1)),
                                   f.pack(1, f.emax(), 1),
                                   f.pack(0, 0, 1),
                                   f.pack(1, 0, 1),
                                   f.pack(0, 0, f.mmask()),
                                   f.pack(1, 1, 0),
                                   f.pack(0, f.emax() - 1, f.mmask()),
                                   f.pack(1, f.emax() - 1, f.mmask()),
                                   f.pack(0, one, 0),
                                   f.pack(1, one, 0),
                                   f.pack(0, f.emax() - 1, 0),
                                   f.pack(1, one - f.mbits - 1, 0)};
    return specials[j];
  }
  const unsigned k = (j - 16) % 16;  // exponent offset below a
  const unsigned variant = (j - 16) / 16;
  const uint64_t sa = (a & f.sign()) ? 1 : 0;
  const int64_t e = static_cast<int64_t>(f.exp(a)) - k;
  const uint64_t eb = static_cast<uint64_t>(std::clamp<int64_t>(e, 0, f.emax()));
  switch (variant) {
    case 0:
      return f.pack(!sa, eb, a);  // opposite sign, a's fraction: cancellation
    case 1:
      return f.pack(rng() & 1, eb, 0);  // power of two: ties at k = mbits + 1
    default:
      return f.pack(rng() & 1, eb, rng());
  }
}

// ---- The mixed stream ----------------------------------------------------------------------

// A family of vectors: count() flits, vector i made on demand.
struct Source {
  const char* name;
  unsigned lanes;  // lane pairs per flit
  uint64_t count;
  void (*make)(uint64_t i, Rng& rng, Vec& v);
};

// int8/uint8 exhaustive: configuration c covers 4096 flits of 16 lane pairs (a = p >> 8,
// b = p & 255 for pair p).
struct Int8Config {
  RedOp op;
  bool sat;
  uint8_t shift;
  bool final_scale;
  uint32_t scale;
};
std::vector<Int8Config> int8_configs() {
  std::vector<Int8Config> c = {{RedOp::kSum, false, 0, false, 0},
                               {RedOp::kSum, true, 0, false, 0},
                               {RedOp::kMax, false, 0, false, 0},
                               {RedOp::kMin, false, 0, false, 0}};
  const uint32_t scales[] = {0x80000000u, 0xAAAAAAAAu, 0xCCCCCCCCu,
                             0x40000000u, 0x00000001u, 0xFFFFFFFFu};
  for (uint8_t s = 0; s < 4; ++s) {
    c.push_back({RedOp::kAvg, false, s, false, 0});
    for (uint32_t sc : scales) c.push_back({RedOp::kAvg, false, s, true, sc});
  }
  return c;
}
const std::vector<Int8Config> kInt8Configs = int8_configs();

void make_int8_exhaustive(uint64_t i, Rng& rng, Vec& v) {
  const uint64_t per_type = kInt8Configs.size() * 4096;
  v.cfg.dtype = (i < per_type) ? DType::kInt8 : DType::kUint8;
  i %= per_type;
  const Int8Config& c = kInt8Configs[i / 4096];
  random_cfg_fields(rng, v.cfg);  // then the fields that matter:
  v.cfg.op = c.op;
  if (c.op == RedOp::kSum) v.cfg.sat = c.sat;
  if (c.op == RedOp::kAvg) {
    v.cfg.avg_shift = c.shift;
    v.cfg.avg_final = c.final_scale;
    if (c.final_scale) v.cfg.avg_scale = c.scale;
  }
  const uint64_t flit = i % 4096;
  for (unsigned lane = 0; lane < 16; ++lane) {
    const uint64_t p = flit * 16 + lane;
    v.a[lane] = static_cast<uint8_t>(p >> 8);
    v.b[lane] = static_cast<uint8_t>(p & 0xFF);
  }
}

void make_int_random(DType t, Rng& rng, Vec& v) {
  v.cfg.dtype = t;
  random_cfg_fields(rng, v.cfg);
  v.cfg.op = static_cast<RedOp>(rnd(rng, 4));  // Sum, Max, Min, Avg
  const size_t bytes = dtype_size(t);
  for (size_t lane = 0; lane < 16 / bytes; ++lane) {
    const uint64_t a = pick_int(rng, static_cast<unsigned>(8 * bytes), 0);
    set_lane(v.a, lane, bytes, a);
    set_lane(v.b, lane, bytes, pick_int(rng, static_cast<unsigned>(8 * bytes), a));
  }
}

void make_float_random(const Fmt& f, Rng& rng, Vec& v) {
  v.cfg.dtype = f.dtype;
  random_cfg_fields(rng, v.cfg);
  const uint32_t r = rnd(rng, 10);
  v.cfg.op = r < 6 ? RedOp::kSum : (r < 8 ? RedOp::kMax : RedOp::kMin);
  const size_t bytes = f.width / 8;
  for (size_t lane = 0; lane < 16 / bytes; ++lane) {
    const uint64_t a = float_any(f, rng);
    const uint64_t b = float_partner(f, rng, a);
    const bool swap = rng() & 1;
    set_lane(v.a, lane, bytes, swap ? b : a);
    set_lane(v.b, lane, bytes, swap ? a : b);
  }
}

void make_structured(const Fmt& f, uint64_t i, Rng& rng, Vec& v) {
  v.cfg.dtype = f.dtype;
  random_cfg_fields(rng, v.cfg);
  v.cfg.op = RedOp::kSum;
  for (size_t lane = 0; lane < 8; ++lane) {
    const uint64_t p = i * 8 + lane;  // pair p: a = p / 64, b number p % 64
    const uint64_t a = p / 64;
    set_lane(v.a, lane, 2, a);
    set_lane(v.b, lane, 2, structured_b(f, rng, a, static_cast<unsigned>(p % 64)));
  }
}

void make_invalid(uint64_t, Rng& rng, Vec& v) {
  random_cfg_fields(rng, v.cfg);
  do {
    v.cfg.dtype = static_cast<DType>(rnd(rng, 8));
    v.cfg.op = static_cast<RedOp>(rnd(rng, 8));
  } while (valid_pair(v.cfg.dtype, v.cfg.op));
  for (auto& x : v.a) x = static_cast<uint8_t>(rng());
  for (auto& x : v.b) x = static_cast<uint8_t>(rng());
}

const Source kSources[] = {
    {"int8/uint8 exhaustive", 16, 2 * kInt8Configs.size() * 4096, make_int8_exhaustive},
    {"int8 random", 16, 25000,
     [](uint64_t, Rng& r, Vec& v) { make_int_random(DType::kInt8, r, v); }},
    {"uint8 random", 16, 25000,
     [](uint64_t, Rng& r, Vec& v) { make_int_random(DType::kUint8, r, v); }},
    {"int16 random", 8, 150000,
     [](uint64_t, Rng& r, Vec& v) { make_int_random(DType::kInt16, r, v); }},
    {"int32 random", 4, 150000,
     [](uint64_t, Rng& r, Vec& v) { make_int_random(DType::kInt32, r, v); }},
    {"fp16 random", 8, 262144, [](uint64_t, Rng& r, Vec& v) { make_float_random(kFp16, r, v); }},
    {"bf16 random", 8, 262144, [](uint64_t, Rng& r, Vec& v) { make_float_random(kBf16, r, v); }},
    {"fp32 random", 4, 524288, [](uint64_t, Rng& r, Vec& v) { make_float_random(kFp32, r, v); }},
    {"fp16 structured add", 8, 65536 * 64 / 8,
     [](uint64_t i, Rng& r, Vec& v) { make_structured(kFp16, i, r, v); }},
    {"bf16 structured add", 8, 65536 * 64 / 8,
     [](uint64_t i, Rng& r, Vec& v) { make_structured(kBf16, i, r, v); }},
    {"invalid pairs", 16, 20000, make_invalid},
};

// Streams every vector of every source, in one random order across sources.
TEST(RtlAlu, MixedStream) {
  ASSERT_EQ(kInt8Configs.size(), 32u);  // 4 + 4 shifts x (no scale + 6 scales)
  Rng rng = make_rng();
  std::vector<uint64_t> first;  // first global index of each source
  uint64_t total = 0;
  for (const Source& s : kSources) {
    first.push_back(total);
    total += s.count;
  }
  std::vector<uint32_t> order;
  order.reserve(total);
  for (uint64_t g = 0; g < total; ++g) order.push_back(static_cast<uint32_t>(g));
  std::shuffle(order.begin(), order.end(), rng);
  AluBench bench;
  std::vector<uint64_t> per_source(first.size(), 0);
  for (uint32_t g : order) {
    if (rnd(rng, 100) == 0) {  // an idle cycle with random inputs
      Vec idle;
      make_invalid(0, rng, idle);
      idle.valid = false;
      bench.step(idle);
    }
    const size_t s = std::upper_bound(first.begin(), first.end(), g) - first.begin() - 1;
    Vec v;
    kSources[s].make(g - first[s], rng, v);
    v.tag = static_cast<uint32_t>(rng());
    bench.step(v);
    ++per_source[s];
    if (bench.failures() > kMaxReportedFailures) break;
  }
  bench.drain();
  for (size_t s = 0; s < first.size(); ++s) {
    std::printf("[  VECTORS ] %-24s %8" PRIu64 " flits (%" PRIu64 " lane pairs)\n",
                kSources[s].name, per_source[s], per_source[s] * kSources[s].lanes);
  }
  std::printf("[  VECTORS ] %s: %" PRIu64 " flits in %" PRIu64 " cycles, %d mismatches\n",
              test_name().c_str(), bench.vectors(), bench.cycles(), bench.failures());
  EXPECT_EQ(bench.failures(), 0);
  EXPECT_EQ(bench.vectors(), order.size());
}

// Reset, idle cycles, the exact latency of a lone flit and back-to-back flits.
TEST(RtlAlu, LatencyAndIdle) {
  Rng rng = make_rng();
  AluBench bench;
  Vec idle;
  idle.valid = false;
  for (int i = 0; i < 50; ++i) {
    make_invalid(0, rng, idle);  // garbage on the inputs while in_valid is low
    idle.valid = false;
    bench.step(idle);
  }
  for (int gap = 0; gap < 8; ++gap) {
    for (int burst = 1; burst < 6; ++burst) {
      for (int k = 0; k < burst; ++k) {
        Vec v;
        make_int_random(DType::kInt32, rng, v);
        v.tag = static_cast<uint32_t>(rng());
        bench.step(v);
      }
      for (int k = 0; k < gap; ++k) bench.step(idle);
    }
  }
  bench.drain();
  std::printf("[  VECTORS ] %s: %" PRIu64 " flits\n", test_name().c_str(), bench.vectors());
  EXPECT_EQ(bench.failures(), 0);
}

// Every (dtype, op) code 0..7 x 0..7, with random data: err_o exactly for the invalid pairs.
TEST(RtlAlu, ErrorForEveryCode) {
  Rng rng = make_rng();
  AluBench bench;
  uint64_t invalid = 0;
  for (int rep = 0; rep < 16; ++rep) {
    for (unsigned t = 0; t < 8; ++t) {
      for (unsigned op = 0; op < 8; ++op) {
        Vec v;
        make_invalid(0, rng, v);
        v.cfg.dtype = static_cast<DType>(t);
        v.cfg.op = static_cast<RedOp>(op);
        v.tag = static_cast<uint32_t>(rng());
        if (!valid_pair(v.cfg.dtype, v.cfg.op)) ++invalid;
        bench.step(v);
      }
    }
  }
  bench.drain();
  std::printf("[  VECTORS ] %s: %" PRIu64 " flits, %" PRIu64 " invalid\n", test_name().c_str(),
              bench.vectors(), invalid);
  // 64 codes, 25 valid: Sum/Max/Min on the 7 dtypes and Avg on the 4 integer ones.
  EXPECT_EQ(invalid, 16u * 39u);
  EXPECT_EQ(bench.failures(), 0);
}

// The examples of docs/alu.md, each checked against both the documented result and the RTL.
TEST(RtlAlu, DocExamples) {
  struct Ex {
    DType t;
    RedOp op;
    uint64_t a, b;
    bool sat;
    uint8_t shift;
    bool fin;
    uint32_t scale;
    uint64_t want;
  };
  const uint32_t one = 0x80000000u;
  const Ex ex[] = {
      {DType::kInt8, RedOp::kSum, 100, 100, false, 0, false, one, 0xC8},
      {DType::kInt8, RedOp::kSum, 100, 100, true, 0, false, one, 0x7F},
      {DType::kInt8, RedOp::kSum, 0x9C, 0x9C, true, 0, false, one, 0x80},
      {DType::kUint8, RedOp::kSum, 200, 100, false, 0, false, one, 44},
      {DType::kUint8, RedOp::kSum, 200, 100, true, 0, false, one, 255},
      {DType::kInt8, RedOp::kAvg, 127, 127, false, 0, false, one, 127},
      {DType::kInt8, RedOp::kAvg, 0x80, 0x80, false, 0, false, one, 0x80},
      {DType::kInt8, RedOp::kAvg, 0xFD, 0, false, 0, false, one, 0xFE},
      {DType::kInt8, RedOp::kAvg, 3, 0, false, 0, false, one, 1},
      {DType::kInt8, RedOp::kAvg, 5, 0xF9, false, 1, false, one, 0},
      {DType::kUint8, RedOp::kAvg, 255, 255, false, 0, false, one, 255},
      {DType::kInt8, RedOp::kAvg, 0xF9, 0, false, 0, true, 0xAAAAAAAAu, 0xFA},
      {DType::kInt8, RedOp::kAvg, 100, 100, false, 0, true, 0xCCCCCCCCu, 127},
      {DType::kInt32, RedOp::kAvg, 0x7FFFFFFF, 0x7FFFFFFF, false, 0, false, one, 0x7FFFFFFF},
      {DType::kFp16, RedOp::kSum, 0x3C00, 0x3C00, false, 0, false, one, 0x4000},
      {DType::kFp16, RedOp::kSum, 0x7BFF, 0x3C00, false, 0, false, one, 0x7BFF},
      {DType::kFp16, RedOp::kSum, 0x7BFF, 0x5000, false, 0, false, one, 0x7C00},
      {DType::kFp16, RedOp::kSum, 0x0001, 0x0001, false, 0, false, one, 0x0002},
      {DType::kFp16, RedOp::kSum, 0x7C00, 0xFC00, false, 0, false, one, 0x7E00},
      {DType::kFp16, RedOp::kSum, 0x7D00, 0x3C00, false, 0, false, one, 0x7E00},
      {DType::kFp16, RedOp::kSum, 0x8000, 0x0000, false, 0, false, one, 0x0000},
      {DType::kBf16, RedOp::kSum, 0x3F80, 0x3B80, false, 0, false, one, 0x3F80},
      {DType::kBf16, RedOp::kSum, 0x3F81, 0x3B80, false, 0, false, one, 0x3F82},
      {DType::kFp32, RedOp::kSum, 0xFFC00001, 0x3F800000, false, 0, false, one, 0x7FC00000},
      {DType::kFp32, RedOp::kSum, 1, 1, false, 0, false, one, 2},
      {DType::kFp32, RedOp::kMax, 0x80000000, 0, false, 0, false, one, 0},
      {DType::kFp32, RedOp::kMin, 0, 0x80000000, false, 0, false, one, 0x80000000},
      {DType::kFp32, RedOp::kMax, 0x7FC00001, 0x3F800000, false, 0, false, one, 0x3F800000},
      {DType::kFp32, RedOp::kMax, 0xFFC00001, 0x7F800001, false, 0, false, one, 0x7FC00000},
  };
  make_rng();
  AluBench bench;
  for (const Ex& e : ex) {
    Vec v;
    v.cfg.dtype = e.t;
    v.cfg.op = e.op;
    v.cfg.sat = e.sat;
    v.cfg.avg_shift = e.shift;
    v.cfg.avg_final = e.fin;
    v.cfg.avg_scale = e.scale;
    const size_t bytes = dtype_size(e.t);
    for (size_t lane = 0; lane < 16 / bytes; ++lane) {
      set_lane(v.a, lane, bytes, e.a);
      set_lane(v.b, lane, bytes, e.b);
    }
    std::array<uint8_t, 16> ref = v.a;
    alu_reduce(v.cfg, ref.data(), v.b.data(), ref.size());
    EXPECT_EQ(get_lane(ref, 0, bytes), e.want) << describe(v);
    bench.step(v);
  }
  bench.drain();
  std::printf("[  VECTORS ] %s: %" PRIu64 " flits\n", test_name().c_str(), bench.vectors());
  EXPECT_EQ(bench.failures(), 0);
}

}  // namespace
}  // namespace xf
