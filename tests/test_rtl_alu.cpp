// RTL_TOP: xf_reduce_alu
// RTL_TOP: xf_reduce_alu Vxf_reduce_alu_d08 -GAluDtypes=8'h08
// RTL_TOP: xf_reduce_alu Vxf_reduce_alu_d03 -GAluDtypes=8'h03
// RTL_TOP: xf_reduce_alu Vxf_reduce_alu_d24 -GAluDtypes=8'h24
// RTL_TOP: xf_reduce_alu Vxf_reduce_alu_d50 -GAluDtypes=8'h50
// RTL_TOP: xf_reduce_alu Vxf_reduce_alu_d00 -GAluDtypes=8'h00
// RTL_TOP: xf_reduce_alu Vxf_reduce_alu_w64 -GFlitBits=64
// RTL_TOP: xf_reduce_alu Vxf_reduce_alu_w32 -GFlitBits=32
// RTL_SRCS: rtl/xf_defs_pkg.sv rtl/xf_delay.sv rtl/xf_int_lane.sv rtl/xf_fp_add.sv
// RTL_SRCS: rtl/xf_fp_mul.sv rtl/xf_fp_maxmin.sv rtl/xf_reduce_alu.sv
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
//  - int8 and uint8 Avg with the final scale where floor(x * scale / 2^31) steps: one lane per
//    flit, every lane in turn, with x * scale within 2|x| of a multiple of 2^31;
//  - fp16, bf16, fp32 Sum/Max/Min: at least 2 million random lane pairs per type, drawn from
//    +-0, +-inf, quiet and signalling NaNs of both signs with random or single-bit payloads,
//    subnormals, the extreme normals, +-1, uniform bit patterns and pairs built to stress the
//    adder (exponents within the alignment range, cancellation of near-opposite values, exact
//    ties, overflow) (the fp32 ScaleAdd factors draw from the same specials);
//  - fp16 and bf16 Sum: all 65536 a values, each with 64 structured b values (16 specials and
//    48 built from a: exponent offsets 0..15 with a's fraction and the opposite sign, with a zero
//    fraction, or with a random fraction and sign);
//  - fp32 ScaleAdd (a + s*b): 262144 flits (1,048,576 lane triples), each flit with its own
//    scale s (specials, subnormals, values near 1, powers of two, raw patterns), b of every kind
//    and often with an exponent that puts s*b near the subnormal or the overflow range, and a
//    built against the rounded product s*b like the Sum partners (cancellation, ties, overflow);
//  - invalid dtype/op pairs (dtype 7, op 4..7 except fp32 ScaleAdd, Avg on floats): err_o with a
//    passed through;
//  - the configuration (dtype, op, sat, avg_shift, avg_final, avg_scale, scale, tag) is random in
//    every
//    cycle, fields that do not matter to the op included, so a pipeline that mixed two flits'
//    configurations would fail; about 1% of the cycles are idle (in_valid low, random inputs).
// The other tests check reset, latency and idle behaviour, the docs/alu.md examples, and every
// (dtype, op) code for the error output.
//
// Subset builds (RtlAluSubset.*, docs/alu.md section 9): five more Verilated models of the ALU
// with AluDtypes = 8'h08 (int32 only: a passed through by the int32 lanes), 8'h03 (int8 and
// uint8), 8'h24 (int16 and bf16: a through the int16 lanes), 8'h50 (fp16 and fp32: a through
// the max/min delay line) and 8'h00 (nothing: a through a delay line of its own). Each gets a
// random mixed stream of every source below (the int8/uint8 exhaustive pairs thinned to every
// 4th flit, the structured sweeps left out, 40000 flits of each random source) plus every
// (dtype, op) code 16 times: a built dtype must match xf::alu_reduce bit for bit, an unbuilt one
// must give err_o with out_data_o = a, with its tag and valid, exactly as an invalid pair.
//
// 16-bit sweeps (Fp16AllVsSubset, Bf16AllVsSubset, Int16AllVsSubset; one configuration per run,
// one flit of 8 lanes per cycle, no idle cycles): every one of the 65536 values x against values
// y of the type's documented 4096 set (set16), a = x and b = y, swapped for the odd positions of
// y, so each position sees every value. The 4096 sets:
//  - fp16, bf16: for each (sign, exponent) pair, all exponents 0 .. max of both signs (64 pairs
//    for fp16, 512 for bf16), 64 (fp16) or 8 (bf16) fractions: first, in this order, 0, 1, all
//    ones, the top bit, top bit - 1, top bit + 1, 2, all ones - 1, 3, 2^(mbits-2), 3 * 2^(mbits-2),
//    m/3, 2m/3, m/4, 5, m - 2 (m = all ones), then (j * 40503) mod 2^mbits for j = g*F + 1, ... not
//    yet taken (g = the pair's index, F its fraction count): so both zeros, subnormals (smallest,
//    largest, others), every power of two (with every x, b = 2^(e_x - mbits - 1) is an exact tie,
//    and x with an odd or even last bit gives both tie directions), infinities, quiet and
//    signalling NaNs of both signs with several payloads;
//  - int16: 0 .. 255, -256 .. -1, 0x7F00 .. 0x80FF (the range ends), +-2^k and +-2^k +- 1, then
//    (k * 40503) mod 2^16 for k = 1, 2, ... not yet taken, up to 4096.
// make test sweeps a subset of each set (subset16: the type's specials -- fp: +-0, smallest and
// largest subnormal, smallest normal, largest normal, +-inf, quiet NaN, signalling NaN payload 1,
// +-1, 1 + ulp, 2^-(mbits+1), the largest power of two; int16: 0, +-1, +-2, max, min, max-1, min+1,
// +-2^14, 2^14-1, -2^14+1, 0x100, -0x100, 0xFF -- then set[(i * 2731) mod 4096] for i = 0, 1, ...):
// 65536 x 512 for fp16/bf16 Sum, 65536 x 128 for fp16/bf16 Max and Min and int16 Sum wrap and
// Sum sat, 65536 x 64 for int16 Max, Min and Avg (shift 0; shift 1 scale 4/3; shift 4 scale 0.5;
// shift 15 scale 2 - 2^-31). The 4096 sets in full and all 2^32 pairs run in `make regress-alu`
// (tests/test_rtl_alu_regress.cpp): at ~0.47 Mflit/s the full 4096 set takes ~70 s per
// configuration, too slow for make test's budget.
//
// fp32 ScaleAdd (Fp32ScaleAddEdgeCases): every (s, b, a) triple of the 62 directed edge values
// below (238,328 lane triples, the scale changing between flits), and the docs/alu.md section 6
// examples.
//
// fp32 (Fp32RandomPerOp, Fp32EdgeCases): 2^18 flits = 1,048,576 random lane pairs for each of
// Sum, Max, Min (10^7 per op in make regress-alu), and every ordered pair of this directed list
// of IEEE edge cases (62 x 62 = 3844 pairs per op), the magnitudes with both signs: 0, smallest
// subnormal 0x00000001, 0x00000002, 0x00400000, largest subnormal 0x007FFFFF, smallest normal
// 0x00800000 and its successor, 0x00FFFFFF, 0x01000000, 2^-24 = half an ulp of 1.0 (0x33800000,
// its neighbours 0x33800001, 0x337FFFFF, and 1.5 * 2^-24), 2^-23 (one ulp of 1.0), 1 - 2^-24
// (0x3F7FFFFF), 1.0, 1 + 2^-23, 1.5, 2.0, 2^24 (0x4B800000), 2^103 = half an ulp of the largest
// normal (0x73000000, 0x737FFFFF, 0x73400000: overflow ties), 2^127, the largest normal - ulp,
// the largest normal, infinity; then the NaNs 0x7FC00000, 0xFFC00000, 0x7FC00001, 0x7FFFFFFF,
// 0x7F800001, 0xFF800001, 0x7FBFFFFF, 0xFFFFFFFF (quiet and signalling, both signs, payloads).
//
// Flit widths (RtlAluWidth.*, docs/alu.md section 1): two more models with FlitBits = 64 (8 int8,
// 4 16-bit, 2 32-bit lanes) and 32 (4, 2, 1). Every 16-byte vector goes in as 16 / W flits of
// W = FlitBits / 8 bytes in consecutive cycles, each with the vector's configuration, and every
// flit's result must be its W bytes of xf::alu_reduce on the whole vector: the same per-element
// results as at 128 bits. Each model gets a random mixed stream of every source below (an
// eighth of each), every (dtype, op) code 16 times, and the latency and throughput checks (a
// result in every cycle).
//
// Throughput: 10^5 flits with random valid (dtype, op) and configuration in 10^5 consecutive
// cycles; the test checks each result and that the 10^5 results leave in 10^5 consecutive
// cycles (one result per cycle).
//
// Inputs change half a period away from the rising edge. Random data: std::mt19937_64 seeded
// with a fixed default that XF_SEED (decimal or 0x-hex) overrides; each test prints its seed and
// its vector count. On a mismatch the test prints the cycle, the configuration, the lane, the
// operands, the expected and seen results, and the command that reproduces it.
#include <gtest/gtest.h>
#include <verilated.h>

#include <algorithm>
#include <array>
#include <chrono>
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
#ifndef XF_ALU_REGRESS
#include "Vxf_reduce_alu_d00.h"
#include "Vxf_reduce_alu_d03.h"
#include "Vxf_reduce_alu_d08.h"
#include "Vxf_reduce_alu_d24.h"
#include "Vxf_reduce_alu_d50.h"
#include "Vxf_reduce_alu_w32.h"
#include "Vxf_reduce_alu_w64.h"
#endif
#include "alu_drive_cfg.hpp"
#include "rtl_kit.hpp"
#include "xf/alu.hpp"

namespace xf {
namespace {

// rtl/xf_reduce_alu.sv LatencyCycles: a flit presented in cycle t leaves in cycle t + 4.
constexpr int kLatencyCycles = 4;
constexpr int kMaxReportedFailures = 10;
const kit::TestFile kFile{0xA1u, "test_rtl_alu"};

using kit::rnd;
using kit::Rng;
using kit::test_name;

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
  char buf[240];
  std::snprintf(buf, sizeof buf,
                "dtype %u (%s) op %u (%s) sat %d avg_shift %u avg_final %d avg_scale 0x%08x scale "
                "0x%08x tag 0x%08x",
                static_cast<unsigned>(v.cfg.dtype),
                static_cast<unsigned>(v.cfg.dtype) < kDTypeCount ? to_string(v.cfg.dtype) : "?",
                static_cast<unsigned>(v.cfg.op),
                static_cast<unsigned>(v.cfg.op) < kRedOpCount ? to_string(v.cfg.op) : "?",
                v.cfg.sat, v.cfg.avg_shift, v.cfg.avg_final, v.cfg.avg_scale, v.cfg.scale, v.tag);
  return buf;
}

// FlitBits of a Verilated ALU class (its RTL_TOP line): 128 unless named here.
template <class Dut>
struct FlitBitsOf {
  static constexpr uint32_t kBits = 128;
};
#ifndef XF_ALU_REGRESS
template <>
struct FlitBitsOf<Vxf_reduce_alu_w64> {
  static constexpr uint32_t kBits = 64;
};
template <>
struct FlitBitsOf<Vxf_reduce_alu_w32> {
  static constexpr uint32_t kBits = 32;
};
#endif

// The Verilated ALU with a scoreboard: step() presents one input (or an idle cycle), clocks
// once and checks the output of the flit presented kLatencyCycles earlier. Dut is a Verilated
// class of xf_reduce_alu built with AluDtypes = dtypes: a flit of a dtype outside it must come
// out as an invalid pair's (err_o, a unchanged). A Dut narrower than 128 bits takes a vector as
// kParts flits of kBytes bytes in consecutive cycles (step() clocks kParts times).
template <class Dut>
class AluBenchT {
 public:
  static constexpr uint32_t kBytes = FlitBitsOf<Dut>::kBits / 8;
  static constexpr uint32_t kParts = 16 / kBytes;

  explicit AluBenchT(uint8_t dtypes = kAluAllUnits) : dtypes_(dtypes), fails_(kFile) {
    dut_.reset([](Dut& d) { d.in_valid_i = 0; });
  }

  // Presents v (or an idle cycle when !v.valid), clocks, and checks the oldest flit in flight.
  void step(const Vec& v) {
    for (uint32_t part = 0; part < kParts; ++part) step_part(v, part);
    if (v.valid) ++vectors_;
  }

  // Idle cycles until every flit in flight has been checked.
  void drain() {
    Vec idle;
    idle.valid = false;
    for (int i = 0; i < kLatencyCycles; ++i) step_part(idle, 0);
  }

  uint64_t vectors() const { return vectors_; }
  uint64_t cycles() const { return dut_.cycle(); }
  int failures() const { return fails_.count(); }
  uint64_t results() const { return results_; }  // cycles with out_valid_o high
  uint64_t first_result_cycle() const { return first_result_cycle_; }
  uint64_t last_result_cycle() const { return last_result_cycle_; }

 private:
  struct InFlight {
    Vec v;
    uint32_t part;
  };

  // One flit: bytes [part * kBytes, part * kBytes + kBytes) of the vector's a and b.
  void step_part(const Vec& v, uint32_t part) {
    for (uint32_t w = 0; w < kBytes / 4; ++w) {
      uint32_t wa, wb;
      std::memcpy(&wa, v.a.data() + part * kBytes + 4 * w, 4);
      std::memcpy(&wb, v.b.data() + part * kBytes + 4 * w, 4);
      kit::put_word(dut_->in_a_i, w, wa);
      kit::put_word(dut_->in_b_i, w, wb);
    }
    dut_->in_valid_i = v.valid;
    drive_cfg(*dut_, v.cfg);
    dut_->in_tag_i = v.tag;
    in_flight_.push_back({v, part});
    dut_.tick();
    if (dut_->out_valid_o) {
      if (results_ == 0) first_result_cycle_ = dut_.cycle();
      last_result_cycle_ = dut_.cycle();
      ++results_;
    }
    if (static_cast<int>(in_flight_.size()) == kLatencyCycles) {
      check(in_flight_.front().v, in_flight_.front().part);
      in_flight_.pop_front();
    } else if (dut_->out_valid_o) {
      fail("out_valid_o high with no flit in flight since reset");
    }
  }

  void fail(const std::string& what) { fails_.fail(dut_.cycle(), what); }

  // The flit `part` of v: its kBytes of the reference result on the whole vector.
  void check(const Vec& v, uint32_t part) {
    if (dut_->out_valid_o != (v.valid ? 1 : 0)) {
      fail(std::string("out_valid_o is ") + (dut_->out_valid_o ? "1" : "0") + ", expected " +
           (v.valid ? "1" : "0") + " for " + describe(v));
      return;
    }
    if (!v.valid) return;
    std::array<uint8_t, 16> want = v.a;
    const bool want_err = !built_pair(dtypes_, v.cfg.dtype, v.cfg.op);
    if (!want_err) alu_reduce(v.cfg, want.data(), v.b.data(), want.size());
    std::array<uint8_t, 16> got = want;  // the other parts of the vector: as expected
    for (uint32_t w = 0; w < kBytes / 4; ++w) {
      const uint32_t word = kit::get_word(dut_->out_data_o, w);
      std::memcpy(got.data() + part * kBytes + 4 * w, &word, 4);
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

  uint8_t dtypes_;
  kit::Dut<Dut> dut_;
  kit::Failures fails_;
  std::deque<InFlight> in_flight_;
  uint64_t vectors_ = 0;
  uint64_t results_ = 0;
  uint64_t first_result_cycle_ = 0;
  uint64_t last_result_cycle_ = 0;
};
using AluBench = AluBenchT<Vxf_reduce_alu>;

// ---- Value generators ----------------------------------------------------------------------

const uint32_t kScaleSpecials[] = {0x80000000u, 0xAAAAAAAAu, 0xCCCCCCCCu, 0x40000000u,
                                   0x00000001u, 0xFFFFFFFFu, 0x00000000u, 0x55555555u};

// ScaleAdd factors: 1, -1, +-0, inf, NaN, the smallest subnormal, the largest normal, 0.1f,
// 1 + 2^-12 (whose square is a rounding tie), 2^-126, 2^64.
const uint32_t kFpScaleSpecials[] = {0x3F800000u, 0xBF800000u, 0x00000000u, 0x80000000u,
                                     0x7F800000u, 0x7FC00000u, 0x00000001u, 0x7F7FFFFFu,
                                     0x3DCCCCCDu, 0x3F800800u, 0x00800000u, 0x5F800000u};

// Random configuration fields that the op may or may not use.
void random_cfg_fields(Rng& rng, AluCfg& cfg) {
  cfg.sat = rng() & 1;
  cfg.avg_shift = static_cast<uint8_t>(rnd(rng, 2) ? rnd(rng, 4) : rnd(rng, 16));
  cfg.avg_final = rng() & 1;
  cfg.avg_scale = rnd(rng, 2) ? kScaleSpecials[rnd(rng, 8)] : static_cast<uint32_t>(rng());
  cfg.scale = rnd(rng, 2) ? kFpScaleSpecials[rnd(rng, 12)] : static_cast<uint32_t>(rng());
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
      return f.pack(s, f.emax(),  // signalling NaN: a payload, or a single payload bit
                    (rng() & 1) ? 1ull << rnd(rng, f.mbits - 1) : 1 + rng() % (f.mmask() >> 1));
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

// A ScaleAdd factor: a special, a value near 1, a power of two, a subnormal or any pattern.
uint32_t scale_any(Rng& rng) {
  switch (rnd(rng, 6)) {
    case 0:
      return kFpScaleSpecials[rnd(rng, 12)];
    case 1:
      return static_cast<uint32_t>(float_special(kFp32, rng));
    case 2:  // near 1
      return static_cast<uint32_t>(kFp32.pack(rng() & 1, 125 + rnd(rng, 5), rng()));
    case 3:  // a power of two
      return static_cast<uint32_t>(kFp32.pack(rng() & 1, 1 + rnd(rng, 254), 0));
    case 4:
      return static_cast<uint32_t>(kFp32.pack(rng() & 1, 0, rng()));  // subnormal
    default:
      return static_cast<uint32_t>(rng());
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

// int8/uint8 Avg with the final scale at the floor's edges: one lane per flit (every lane in
// turn) gets x = a = b and a scale s with x * s within 2 * |x| of a multiple k * 2^31 (either
// side), where floor(x * s / 2^31) steps; the other lanes random.
void make_int8_avg_edge(uint64_t i, Rng& rng, Vec& v) {
  v.cfg.dtype = (i & 16) ? DType::kUint8 : DType::kInt8;
  random_cfg_fields(rng, v.cfg);
  v.cfg.op = RedOp::kAvg;
  v.cfg.avg_shift = 0;
  v.cfg.avg_final = true;
  const bool sgn = v.cfg.dtype == DType::kInt8;
  int64_t x = 16 + static_cast<int64_t>(rnd(rng, sgn ? 112 : 240));  // |x| 16..127 or 16..255
  if (sgn && (rng() & 1)) x = -x;
  const int64_t ax = x < 0 ? -x : x;
  const int64_t k = 1 + static_cast<int64_t>(rnd(rng, static_cast<uint32_t>(2 * ax - 1)));
  const int64_t s = (k << 31) / ax + static_cast<int64_t>(rnd(rng, 3)) - 1;
  v.cfg.avg_scale = static_cast<uint32_t>(std::min<int64_t>(s, 0xFFFFFFFFll));
  for (unsigned lane = 0; lane < 16; ++lane) {
    v.a[lane] = static_cast<uint8_t>(rng());
    v.b[lane] = static_cast<uint8_t>(rng());
  }
  const unsigned lane = static_cast<unsigned>(i % 16);
  v.a[lane] = v.b[lane] = static_cast<uint8_t>(x);  // avg_shift 0: the average of a and a
}

// fp32 ScaleAdd: the flit's scale s from scale_any; per lane b of any kind, or with an exponent
// that puts s*b around the subnormal range or the overflow threshold; a against the rounded
// product (float_partner, as for Sum), in both roles.
void make_scale_add_random(Rng& rng, Vec& v) {
  v.cfg.dtype = DType::kFp32;
  random_cfg_fields(rng, v.cfg);
  v.cfg.op = RedOp::kScaleAdd;
  v.cfg.scale = scale_any(rng);
  const int64_t es = static_cast<int64_t>(kFp32.exp(v.cfg.scale));
  for (size_t lane = 0; lane < 4; ++lane) {
    uint64_t b;
    switch (rnd(rng, 4)) {
      case 0: {  // product exponent field around 0 (subnormal results, underflow, ties there)
        const int64_t eb = std::clamp<int64_t>(127 - es + rnd(rng, 30) - 25, 0, 254);
        b = kFp32.pack(rng() & 1, static_cast<uint64_t>(eb), rng());
        break;
      }
      case 1: {  // product exponent field around 254 (overflow, rounding to infinity)
        const int64_t eb = std::clamp<int64_t>(254 + 127 - es + rnd(rng, 5) - 2, 0, 254);
        b = kFp32.pack(rng() & 1, static_cast<uint64_t>(eb), rng());
        break;
      }
      default:
        b = float_any(kFp32, rng);
        break;
    }
    const uint64_t a = float_partner(kFp32, rng, fp32_mul(v.cfg.scale, static_cast<uint32_t>(b)));
    set_lane(v.a, lane, 4, a);
    set_lane(v.b, lane, 4, b);
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
    {"int8/uint8 avg scale edges", 16, 20000, make_int8_avg_edge},
    {"int16 random", 8, 150000,
     [](uint64_t, Rng& r, Vec& v) { make_int_random(DType::kInt16, r, v); }},
    {"int32 random", 4, 150000,
     [](uint64_t, Rng& r, Vec& v) { make_int_random(DType::kInt32, r, v); }},
    {"fp16 random", 8, 262144, [](uint64_t, Rng& r, Vec& v) { make_float_random(kFp16, r, v); }},
    {"bf16 random", 8, 262144, [](uint64_t, Rng& r, Vec& v) { make_float_random(kBf16, r, v); }},
    {"fp32 random", 4, 524288, [](uint64_t, Rng& r, Vec& v) { make_float_random(kFp32, r, v); }},
    {"fp32 scale-add random", 4, 262144,
     [](uint64_t, Rng& r, Vec& v) { make_scale_add_random(r, v); }},
    {"fp16 structured add", 8, 65536 * 64 / 8,
     [](uint64_t i, Rng& r, Vec& v) { make_structured(kFp16, i, r, v); }},
    {"bf16 structured add", 8, 65536 * 64 / 8,
     [](uint64_t i, Rng& r, Vec& v) { make_structured(kBf16, i, r, v); }},
    {"invalid pairs", 16, 20000, make_invalid},
};

#ifndef XF_ALU_REGRESS
// Streams every vector of every source, in one random order across sources.
TEST(RtlAlu, MixedStream) {
  ASSERT_EQ(kInt8Configs.size(), 32u);  // 4 + 4 shifts x (no scale + 6 scales)
  Rng rng = kFile.rng();
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
  Rng rng = kFile.rng();
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
  Rng rng = kFile.rng();
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
  // 64 codes, 26 valid: Sum/Max/Min on the 7 dtypes, Avg on the 4 integer ones, fp32 ScaleAdd.
  EXPECT_EQ(invalid, 16u * 38u);
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
  kFile.rng();  // prints the seed
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

// A subset build (AluDtypes = dtypes, the Verilated class Dut): a random mixed stream of every
// source (int8/uint8 exhaustive: every 4th flit; no structured sweeps; at most 40000 flits of
// the others) and every (dtype, op) code 16 times. The bench expects alu_reduce's result for a
// valid pair of a built dtype and err_o with a passed through for everything else.
template <class Dut>
void subset_stream(uint8_t dtypes) {
  Rng rng = kFile.rng();
  std::vector<std::pair<size_t, uint64_t>> work;  // (source, vector index)
  for (size_t s = 0; s < std::size(kSources); ++s) {
    if (std::string(kSources[s].name).find("structured") != std::string::npos) continue;
    if (s == 0) {  // the exhaustive int8/uint8 pairs
      for (uint64_t k = 0; k < kSources[s].count / 4; ++k) work.push_back({s, k * 4 + k % 4});
    } else {
      for (uint64_t k = 0; k < std::min<uint64_t>(kSources[s].count, 40000); ++k)
        work.push_back({s, k});
    }
  }
  std::shuffle(work.begin(), work.end(), rng);
  AluBenchT<Dut> bench(dtypes);
  uint64_t built = 0, unbuilt = 0, invalid = 0;
  auto step = [&](Vec& v) {
    v.tag = static_cast<uint32_t>(rng());
    if (!valid_pair(v.cfg.dtype, v.cfg.op))
      ++invalid;
    else if (built_pair(dtypes, v.cfg.dtype, v.cfg.op))
      ++built;
    else
      ++unbuilt;
    bench.step(v);
  };
  for (const auto& [s, i] : work) {
    if (rnd(rng, 100) == 0) {  // an idle cycle with random inputs
      Vec idle;
      make_invalid(0, rng, idle);
      idle.valid = false;
      bench.step(idle);
    }
    Vec v;
    kSources[s].make(i, rng, v);
    step(v);
    if (bench.failures() > kMaxReportedFailures) break;
  }
  for (int rep = 0; rep < 16; ++rep) {
    for (unsigned t = 0; t < 8; ++t) {
      for (unsigned op = 0; op < 8; ++op) {
        Vec v;
        make_invalid(0, rng, v);
        v.cfg.dtype = static_cast<DType>(t);
        v.cfg.op = static_cast<RedOp>(op);
        step(v);
      }
    }
  }
  bench.drain();
  std::printf(
      "[  VECTORS ] %s: AluDtypes 0x%02x, %" PRIu64 " flits: %" PRIu64 " of built dtypes, %" PRIu64
      " of dtypes left out, %" PRIu64 " invalid pairs; %d mismatches\n",
      test_name().c_str(), dtypes, bench.vectors(), built, unbuilt, invalid, bench.failures());
  EXPECT_EQ(bench.failures(), 0);
  EXPECT_EQ(bench.vectors(), built + unbuilt + invalid);
  EXPECT_GT(unbuilt, 10000u);
  EXPECT_GT(invalid, 10000u);
  if (dtypes != 0) {
    EXPECT_GT(built, 10000u);
  }
}

TEST(RtlAluSubset, Int32Only) { subset_stream<Vxf_reduce_alu_d08>(0x08); }
TEST(RtlAluSubset, Int8AndUint8) { subset_stream<Vxf_reduce_alu_d03>(0x03); }
TEST(RtlAluSubset, Int16AndBf16) { subset_stream<Vxf_reduce_alu_d24>(0x24); }
TEST(RtlAluSubset, Fp16AndFp32) { subset_stream<Vxf_reduce_alu_d50>(0x50); }
TEST(RtlAluSubset, NoDtypes) { subset_stream<Vxf_reduce_alu_d00>(0x00); }

// A narrower ALU (the header's "Flit widths"): a random mixed stream of an eighth of every
// source, every (dtype, op) code 16 times, with an idle cycle now and then; then 10^4 vectors
// back to back, whose flits' results must leave in consecutive cycles.
template <class Dut>
void width_stream() {
  Rng rng = kFile.rng();
  AluBenchT<Dut> bench;
  std::vector<uint64_t> per_source(std::size(kSources), 0);
  uint64_t total = 0;
  for (size_t s = 0; s < std::size(kSources); ++s) {
    for (uint64_t i = 0; i < kSources[s].count; i += 8) {
      if (rnd(rng, 100) == 0) {
        Vec idle;
        make_invalid(0, rng, idle);
        idle.valid = false;
        bench.step(idle);
      }
      Vec v;
      kSources[s].make(i + rnd(rng, 8) % (kSources[s].count - i), rng, v);
      v.tag = static_cast<uint32_t>(rng());
      bench.step(v);
      ++per_source[s];
      ++total;
    }
    if (bench.failures() > kMaxReportedFailures) break;
  }
  for (int rep = 0; rep < 16; ++rep) {
    for (unsigned t = 0; t < 8; ++t) {
      for (unsigned op = 0; op < 8; ++op) {
        Vec v;
        make_invalid(0, rng, v);
        v.cfg.dtype = static_cast<DType>(t);
        v.cfg.op = static_cast<RedOp>(op);
        v.tag = static_cast<uint32_t>(rng());
        bench.step(v);
        ++total;
      }
    }
  }
  bench.drain();
  const uint64_t before = bench.results();
  constexpr uint64_t kBurst = 10000;
  for (uint64_t i = 0; i < kBurst; ++i) {
    Vec v;
    const uint32_t t = rnd(rng, 7);
    if (t < 4) {
      make_int_random(static_cast<DType>(t), rng, v);
    } else {
      make_float_random(t == 4 ? kFp16 : (t == 5 ? kBf16 : kFp32), rng, v);
    }
    v.tag = static_cast<uint32_t>(rng());
    bench.step(v);
    ++total;
  }
  bench.drain();
  for (size_t s = 0; s < std::size(kSources); ++s)
    std::printf("[  VECTORS ] %-24s %8" PRIu64 " vectors\n", kSources[s].name, per_source[s]);
  std::printf("[  VECTORS ] %s: FlitBits %u, %" PRIu64 " vectors as %" PRIu64 " flits in %" PRIu64
              " cycles, %d mismatches\n",
              test_name().c_str(), AluBenchT<Dut>::kBytes * 8, bench.vectors(),
              bench.vectors() * AluBenchT<Dut>::kParts, bench.cycles(), bench.failures());
  EXPECT_EQ(bench.failures(), 0);
  EXPECT_EQ(bench.vectors(), total);
  // One result per cycle: every flit of the burst left exactly kLatencyCycles after it went in
  // (the bench checks each), the last of them one cycle before the drain ends.
  EXPECT_EQ(bench.results() - before, kBurst * AluBenchT<Dut>::kParts);
  EXPECT_EQ(bench.last_result_cycle() + 1, bench.cycles());
}

TEST(RtlAluWidth, Flit64) { width_stream<Vxf_reduce_alu_w64>(); }
TEST(RtlAluWidth, Flit32) { width_stream<Vxf_reduce_alu_w32>(); }

#endif  // XF_ALU_REGRESS

// ---- Fixed-configuration sweeps ------------------------------------------------------------

// A lean bench for long sweeps: one configuration for the whole run, one flit per cycle with no
// idle cycles, every output checked bit for bit (data, valid, err, tag) against alu_reduce
// LatencyCycles after its input. The configuration fields the op does not use are random.
class StreamBench {
 public:
  explicit StreamBench(const AluCfg& cfg) : cfg_(cfg) {
    dut_.reset([](Vxf_reduce_alu& d) { d.in_valid_i = 0; });
    drive_cfg(*dut_, cfg);
    dut_->eval();
  }

  // Changes the ScaleAdd factor from the next flit on (the ALU samples it with each flit).
  void set_scale(uint32_t s) {
    cfg_.scale = s;
    dut_->in_scale_i = s;
  }

  // Presents one flit (a, b as four little-endian 32-bit words each), clocks, checks.
  void push(const uint32_t (&a)[4], const uint32_t (&b)[4]) {
    Slot& s = ring_[pushed_ % kRing];
    std::memcpy(s.a, a, sizeof a);
    std::memcpy(s.b, b, sizeof b);
    std::memcpy(s.want, a, sizeof a);
    alu_reduce(cfg_, reinterpret_cast<uint8_t*>(s.want), reinterpret_cast<const uint8_t*>(b), 16);
    for (int w = 0; w < 4; ++w) {
      dut_->in_a_i[w] = a[w];
      dut_->in_b_i[w] = b[w];
    }
    dut_->in_valid_i = 1;
    dut_->in_tag_i = static_cast<uint32_t>(pushed_);
    ++pushed_;
    dut_.tick();
    if (pushed_ >= static_cast<uint64_t>(kLatencyCycles)) check(pushed_ - kLatencyCycles);
  }

  // Idle cycles until every flit has been checked.
  void drain() {
    dut_->in_valid_i = 0;
    for (int i = 0; i < kLatencyCycles; ++i) {
      dut_.tick();
      ++drained_;
      const uint64_t n = pushed_ + drained_;
      if (n >= static_cast<uint64_t>(kLatencyCycles) && n - kLatencyCycles < pushed_) {
        check(n - kLatencyCycles);
      }
    }
    if (dut_->out_valid_o) report(pushed_, "out_valid_o high after the last result");
  }

  uint64_t flits() const { return pushed_; }
  uint64_t checked() const { return checked_; }
  int failures() const { return failures_; }
  std::string repro;  // command line that reproduces the run, printed with a mismatch

 private:
  static constexpr uint64_t kRing = 8;
  struct Slot {
    uint32_t a[4], b[4], want[4];
  };

  void report(uint64_t flit, const std::string& what) {
    ++failures_;
    if (failures_ <= kMaxReportedFailures) {
      ADD_FAILURE() << "flit " << flit << ": " << what << "\n  configuration: " << describe_cfg()
                    << "\n  reproduce: " << repro;
    }
  }

  std::string describe_cfg() const {
    Vec v;
    v.cfg = cfg_;
    return describe(v);
  }

  void check(uint64_t flit) {
    const Slot& s = ring_[flit % kRing];
    ++checked_;
    if (!dut_->out_valid_o) return report(flit, "out_valid_o low, a result was due");
    if (dut_->err_o) report(flit, "err_o high for a valid pair");
    if (dut_->out_tag_o != static_cast<uint32_t>(flit)) report(flit, "wrong out_tag_o");
    bool same = true;
    for (int w = 0; w < 4; ++w) same = same && dut_->out_data_o[w] == s.want[w];
    if (same) return;
    const size_t bytes = dtype_size(cfg_.dtype);
    std::array<uint8_t, 16> a{}, b{}, want{}, got{};
    std::memcpy(a.data(), s.a, 16);
    std::memcpy(b.data(), s.b, 16);
    std::memcpy(want.data(), s.want, 16);
    for (int w = 0; w < 4; ++w) {
      const uint32_t word = dut_->out_data_o[w];
      std::memcpy(got.data() + 4 * w, &word, 4);
    }
    for (size_t lane = 0; lane < 16 / bytes; ++lane) {
      if (get_lane(got, lane, bytes) == get_lane(want, lane, bytes)) continue;
      char buf[160];
      const int d = static_cast<int>(2 * bytes);
      std::snprintf(buf, sizeof buf,
                    "lane %zu: a 0x%0*" PRIx64 " b 0x%0*" PRIx64 " expected 0x%0*" PRIx64
                    " seen 0x%0*" PRIx64,
                    lane, d, get_lane(a, lane, bytes), d, get_lane(b, lane, bytes), d,
                    get_lane(want, lane, bytes), d, get_lane(got, lane, bytes));
      report(flit, buf);
    }
  }

  AluCfg cfg_;
  kit::Dut<Vxf_reduce_alu> dut_;
  Slot ring_[kRing];
  uint64_t pushed_ = 0;
  uint64_t drained_ = 0;
  uint64_t checked_ = 0;
  int failures_ = 0;
};

// The documented set of 4096 distinct 16-bit b values (see the header comment).
std::vector<uint16_t> set16(DType t) {
  std::vector<uint16_t> out;
  std::vector<bool> taken(65536, false);
  auto add = [&](uint64_t v) {
    v &= 0xFFFF;
    if (out.size() < 4096 && !taken[v]) {
      taken[v] = true;
      out.push_back(static_cast<uint16_t>(v));
    }
  };
  if (t == DType::kInt16) {
    for (uint64_t v = 0; v < 256; ++v) add(v);           // 0 .. 255
    for (uint64_t v = 0xFF00; v < 0x10000; ++v) add(v);  // -256 .. -1
    for (uint64_t v = 0x7F00; v < 0x8100; ++v) add(v);   // max - 255 .. min + 255
    for (unsigned k = 0; k < 16; ++k) {                  // +-2^k, +-2^k +- 1
      for (int64_t d = -1; d <= 1; ++d) {
        add((1ull << k) + d);
        add(0 - (1ull << k) + d);
      }
    }
  } else {
    const Fmt& f = t == DType::kFp16 ? kFp16 : kBf16;
    const uint64_t groups = 2 * (f.emax() + 1);  // (sign, exponent) pairs: 64 or 512
    const uint64_t per = 4096 / groups;          // fractions per pair: 64 or 8
    const uint64_t m = f.mmask();
    const uint64_t fixed[] = {0,
                              1,
                              m,
                              1ull << (f.mbits - 1),
                              (1ull << (f.mbits - 1)) - 1,
                              (1ull << (f.mbits - 1)) + 1,
                              2,
                              m - 1,
                              3,
                              1ull << (f.mbits - 2),
                              3ull << (f.mbits - 2),
                              m / 3,
                              2 * (m / 3),
                              m >> 2,
                              5,
                              m - 2};
    for (uint64_t g = 0; g < groups; ++g) {
      const uint64_t s = g & 1, e = g >> 1;
      std::vector<bool> used(m + 1, false);
      uint64_t n = 0;
      for (uint64_t fr : fixed) {
        if (n < per && !used[fr]) {
          used[fr] = true;
          add(f.pack(s, e, fr));
          ++n;
        }
      }
      for (uint64_t j = g * per + 1; n < per; ++j) {  // then fractions j * 40503 mod 2^mbits
        const uint64_t fr = (j * 40503u) & m;
        if (!used[fr]) {
          used[fr] = true;
          add(f.pack(s, e, fr));
          ++n;
        }
      }
    }
  }
  for (uint64_t k = 1; out.size() < 4096; ++k) add(k * 40503u);  // top up: k * 40503 mod 2^16
  return out;
}

// The first n values of the make-test subset of a 4096 set: the specials of the type (see the
// header comment) followed by set[(i * 2731) mod 4096] for i = 0, 1, ..., skipping repeats.
std::vector<uint16_t> subset16(DType t, const std::vector<uint16_t>& set, size_t n) {
  std::vector<uint16_t> specials;
  if (t == DType::kInt16) {
    specials = {0,      1,      0xFFFF, 2,      0xFFFE, 0x7FFF, 0x8000, 0x7FFE,
                0x8001, 0x4000, 0xC000, 0x3FFF, 0xC001, 0x0100, 0xFF00, 0x00FF};
  } else {
    const Fmt& f = t == DType::kFp16 ? kFp16 : kBf16;
    const uint64_t one = f.emax() >> 1;
    for (uint64_t s = 0; s < 2; ++s) {
      for (uint64_t v :
           {f.pack(s, 0, 0), f.pack(s, 0, 1), f.pack(s, 0, f.mmask()), f.pack(s, 1, 0),
            f.pack(s, f.emax() - 1, f.mmask()), f.pack(s, f.emax(), 0),
            f.pack(s, f.emax(), 1ull << (f.mbits - 1)), f.pack(s, f.emax(), 1), f.pack(s, one, 0),
            f.pack(s, one, 1), f.pack(s, one - f.mbits - 1, 0), f.pack(s, f.emax() - 1, 0)}) {
        specials.push_back(static_cast<uint16_t>(v));
      }
    }
  }
  std::vector<uint16_t> out;
  std::vector<bool> taken(65536, false);
  auto add = [&](uint16_t v) {
    if (out.size() < n && !taken[v]) {
      taken[v] = true;
      out.push_back(v);
    }
  };
  for (uint16_t v : specials) add(v);
  for (uint64_t i = 0; out.size() < n && i < set.size(); ++i) add(set[(i * 2731) % set.size()]);
  return out;
}

std::string gtest_repro() {
  return "XF_SEED=" + std::to_string(kFile.seed()) +
         " build/cmake/test_rtl_alu --gtest_filter=" + test_name();
}

// Every 16-bit value x against every value y of `set`, 8 lane pairs a flit: a = x, b = y, or with
// `swap` a = y, b = x for the odd positions of y in the set. With `progress`, prints a progress
// line every ~30 s. Returns the lane pairs checked.
uint64_t sweep16(const AluCfg& cfg, const std::vector<uint16_t>& set, const std::string& what,
                 bool swap, const std::string& repro, bool progress = false) {
  StreamBench bench(cfg);
  bench.repro = repro;
  uint32_t a[4], b[4];
  const auto t0 = std::chrono::steady_clock::now();
  auto last = t0;
  for (size_t j = 0; j < set.size() && bench.failures() <= kMaxReportedFailures; ++j) {
    const uint32_t y = set[j];
    const bool sw = swap && (j & 1);
    for (uint32_t x = 0; x < 65536; x += 8) {
      for (int w = 0; w < 4; ++w) {
        const uint32_t xs = (x + 2 * w) | ((x + 2 * w + 1) << 16), ys = y | (y << 16);
        a[w] = sw ? ys : xs;
        b[w] = sw ? xs : ys;
      }
      bench.push(a, b);
    }
    const auto now = std::chrono::steady_clock::now();
    if (progress && (now - last > std::chrono::seconds(30) || j + 1 == set.size())) {
      last = now;
      const double el = std::chrono::duration<double>(now - t0).count();
      const double rate = static_cast<double>(bench.flits()) / el;
      const double left = static_cast<double>((set.size() - j - 1) * 8192) / rate;
      std::printf("[ PROGRESS ] %s: b %zu/%zu (%.1f%%), %" PRIu64
                  " flits, %.2f Mflit/s, %.0f s elapsed, ETA %.0f s\n",
                  what.c_str(), j + 1, set.size(), 100.0 * (j + 1) / set.size(), bench.flits(),
                  rate / 1e6, el, left);
      std::fflush(stdout);
    }
  }
  bench.drain();
  const uint64_t pairs = bench.checked() * 8;
  std::printf("[  VECTORS ] %-38s %10" PRIu64 " flits %11" PRIu64
              " lane pairs (65536 x %zu), %d mismatches\n",
              what.c_str(), bench.checked(), pairs, set.size(), bench.failures());
  std::fflush(stdout);
  EXPECT_EQ(bench.failures(), 0) << what;
  EXPECT_EQ(pairs, 65536ull * set.size()) << what;
  return pairs;
}

AluCfg sweep_cfg(Rng& rng, DType t, RedOp op) {
  AluCfg cfg;
  random_cfg_fields(rng, cfg);  // fields the op does not use stay random
  cfg.dtype = t;
  cfg.op = op;
  return cfg;
}

// One sweep configuration: op, its fields, and the size of the make-test subset.
struct Sweep16 {
  DType t;
  RedOp op;
  bool sat;
  uint8_t shift;
  bool fin;
  uint32_t scale;
  size_t quick_n;  // values of the set swept in make test (4096 in make regress-alu)
  std::string name() const {
    char buf[96];
    if (op == RedOp::kAvg) {
      std::snprintf(buf, sizeof buf, "%s avg shift %u%s", to_string(t), shift, fin ? " scale" : "");
      if (fin) std::snprintf(buf + std::strlen(buf), 16, " 0x%08X", scale);
    } else {
      std::snprintf(buf, sizeof buf, "%s %s%s", to_string(t), to_string(op),
                    op == RedOp::kSum && t == DType::kInt16 ? (sat ? " sat" : " wrap") : "");
    }
    return buf;
  }
  AluCfg cfg(Rng& rng) const {
    AluCfg c = sweep_cfg(rng, t, op);
    if (op == RedOp::kSum) c.sat = sat;
    if (op == RedOp::kAvg) {
      c.avg_shift = shift;
      c.avg_final = fin;
      if (fin) c.avg_scale = scale;
    }
    return c;
  }
};

const Sweep16 kSweeps16[] = {
    {DType::kFp16, RedOp::kSum, false, 0, false, 0, 512},
    {DType::kFp16, RedOp::kMax, false, 0, false, 0, 128},
    {DType::kFp16, RedOp::kMin, false, 0, false, 0, 128},
    {DType::kBf16, RedOp::kSum, false, 0, false, 0, 512},
    {DType::kBf16, RedOp::kMax, false, 0, false, 0, 128},
    {DType::kBf16, RedOp::kMin, false, 0, false, 0, 128},
    {DType::kInt16, RedOp::kSum, false, 0, false, 0, 128},
    {DType::kInt16, RedOp::kSum, true, 0, false, 0, 128},
    {DType::kInt16, RedOp::kMax, false, 0, false, 0, 64},
    {DType::kInt16, RedOp::kMin, false, 0, false, 0, 64},
    {DType::kInt16, RedOp::kAvg, false, 0, false, 0, 64},
    {DType::kInt16, RedOp::kAvg, false, 1, true, 0xAAAAAAAAu, 64},   // 4/3
    {DType::kInt16, RedOp::kAvg, false, 4, true, 0x40000000u, 64},   // 0.5
    {DType::kInt16, RedOp::kAvg, false, 15, true, 0xFFFFFFFFu, 64},  // 2 - 2^-31
};

// The make-test sweeps of one type: every value against the subset of its 4096 set.
void sweep_type_quick(DType t) {
  Rng rng = kFile.rng();
  const std::vector<uint16_t> set = set16(t);
  ASSERT_EQ(set.size(), 4096u);
  uint64_t total = 0;
  for (const Sweep16& s : kSweeps16) {
    if (s.t != t) continue;
    total += sweep16(s.cfg(rng), subset16(t, set, s.quick_n), s.name() + " (subset)", true,
                     gtest_repro());
  }
  std::printf("[  VECTORS ] %s: %" PRIu64 " lane pairs\n", test_name().c_str(), total);
}

#ifndef XF_ALU_REGRESS
TEST(RtlAlu, Fp16AllVsSubset) { sweep_type_quick(DType::kFp16); }
TEST(RtlAlu, Bf16AllVsSubset) { sweep_type_quick(DType::kBf16); }
TEST(RtlAlu, Int16AllVsSubset) { sweep_type_quick(DType::kInt16); }
#endif

// ---- fp32: random vectors per op and the directed IEEE edge cases --------------------------

// `flits` random fp32 flits (4 lane pairs each) of one op, drawn like the MixedStream fp32
// vectors (float_any against float_partner, in random operand order). Returns the lane pairs.
uint64_t fp32_random(Rng& rng, RedOp op, uint64_t flits, const std::string& repro,
                     bool progress = false) {
  StreamBench bench(sweep_cfg(rng, DType::kFp32, op));
  bench.repro = repro;
  uint32_t a[4], b[4];
  const auto t0 = std::chrono::steady_clock::now();
  auto last = t0;
  for (uint64_t i = 0; i < flits && bench.failures() <= kMaxReportedFailures; ++i) {
    for (int w = 0; w < 4; ++w) {
      const uint64_t x = float_any(kFp32, rng);
      const uint64_t y = float_partner(kFp32, rng, x);
      const bool sw = rng() & 1;
      a[w] = static_cast<uint32_t>(sw ? y : x);
      b[w] = static_cast<uint32_t>(sw ? x : y);
    }
    bench.push(a, b);
    if (progress && (i & 0xFFFF) == 0) {
      const auto now = std::chrono::steady_clock::now();
      if (now - last > std::chrono::seconds(30)) {
        last = now;
        const double el = std::chrono::duration<double>(now - t0).count();
        std::printf("[ PROGRESS ] fp32 %s random: %" PRIu64 "/%" PRIu64
                    " flits (%.1f%%), %.0f s elapsed, ETA %.0f s\n",
                    to_string(op), i, flits, 100.0 * i / flits, el,
                    el * static_cast<double>(flits - i) / static_cast<double>(i));
        std::fflush(stdout);
      }
    }
  }
  bench.drain();
  std::printf("[  VECTORS ] fp32 %-4s random %10" PRIu64 " flits %11" PRIu64
              " lane pairs, %d mismatches\n",
              to_string(op), bench.checked(), bench.checked() * 4, bench.failures());
  std::fflush(stdout);
  EXPECT_EQ(bench.failures(), 0);
  EXPECT_EQ(bench.checked(), flits);
  return bench.checked() * 4;
}

// The directed fp32 edge list of the header comment: these magnitudes with both signs, then
// the NaNs as they are.
std::vector<uint32_t> fp32_edges() {
  const uint32_t mags[] = {0x00000000, 0x00000001, 0x00000002, 0x00400000, 0x007FFFFF, 0x00800000,
                           0x00800001, 0x00FFFFFF, 0x01000000, 0x33800000, 0x33800001, 0x337FFFFF,
                           0x33C00000, 0x34000000, 0x3F7FFFFF, 0x3F800000, 0x3F800001, 0x3FC00000,
                           0x40000000, 0x4B800000, 0x73000000, 0x737FFFFF, 0x73400000, 0x7F000000,
                           0x7F7FFFFE, 0x7F7FFFFF, 0x7F800000};
  std::vector<uint32_t> v;
  for (uint32_t m : mags) {
    v.push_back(m);
    v.push_back(m | 0x80000000u);
  }
  for (uint32_t n : {0x7FC00000u, 0xFFC00000u, 0x7FC00001u, 0x7FFFFFFFu, 0x7F800001u, 0xFF800001u,
                     0x7FBFFFFFu, 0xFFFFFFFFu}) {
    v.push_back(n);
  }
  return v;
}

#ifndef XF_ALU_REGRESS
// 2^18 flits = 1,048,576 random lane pairs for each of Sum, Max, Min.
TEST(RtlAlu, Fp32RandomPerOp) {
  Rng rng = kFile.rng();
  uint64_t total = 0;
  for (RedOp op : {RedOp::kSum, RedOp::kMax, RedOp::kMin}) {
    total += fp32_random(rng, op, 1u << 18, gtest_repro());
  }
  std::printf("[  VECTORS ] %s: %" PRIu64 " lane pairs\n", test_name().c_str(), total);
}

// Every ordered pair of the directed edge list, for Sum, Max and Min.
TEST(RtlAlu, Fp32EdgeCases) {
  Rng rng = kFile.rng();
  const std::vector<uint32_t> e = fp32_edges();
  ASSERT_EQ(e.size(), 62u);
  for (RedOp op : {RedOp::kSum, RedOp::kMax, RedOp::kMin}) {
    StreamBench bench(sweep_cfg(rng, DType::kFp32, op));
    bench.repro = gtest_repro();
    uint32_t a[4], b[4];
    uint64_t p = 0;
    const uint64_t pairs = e.size() * e.size();
    while (p < pairs) {  // the last flit repeats pair 0 in its unused lanes
      for (int w = 0; w < 4; ++w, ++p) {
        const uint64_t q = p < pairs ? p : 0;
        a[w] = e[q / e.size()];
        b[w] = e[q % e.size()];
      }
      bench.push(a, b);
    }
    bench.drain();
    std::printf("[  VECTORS ] fp32 %-4s edge cases: %" PRIu64 " ordered pairs (%zu x %zu), %" PRIu64
                " flits, %d mismatches\n",
                to_string(op), pairs, e.size(), e.size(), bench.checked(), bench.failures());
    EXPECT_EQ(bench.failures(), 0);
  }
}

// Every (s, b, a) triple of the directed edge list for ScaleAdd, s changing every 961 flits, and
// the examples of docs/alu.md section 6 against their documented results.
TEST(RtlAlu, Fp32ScaleAddEdgeCases) {
  Rng rng = kFile.rng();
  const std::vector<uint32_t> e = fp32_edges();
  ASSERT_EQ(e.size(), 62u);
  StreamBench bench(sweep_cfg(rng, DType::kFp32, RedOp::kScaleAdd));
  bench.repro = gtest_repro();
  uint32_t a[4], b[4];
  const uint64_t pairs = e.size() * e.size();
  for (uint32_t s : e) {
    bench.set_scale(s);
    uint64_t p = 0;
    while (p < pairs) {  // the last flit repeats pair 0 in its unused lanes
      for (int w = 0; w < 4; ++w, ++p) {
        const uint64_t q = p < pairs ? p : 0;
        a[w] = e[q / e.size()];
        b[w] = e[q % e.size()];
      }
      bench.push(a, b);
    }
  }
  // docs/alu.md section 6: {s, a, b, a + s*b}.
  const uint32_t ex[][4] = {
      {0x3F000000u, 0x3F800000u, 0x40000000u, 0x40000000u},  // 1 + 0.5 * 2 = 2
      {0xBDCCCCCDu, 0x40000000u, 0x40A00000u, 0x3FC00000u},  // 2 + (-0.1f) * 5 = 1.5
      {0x3F800800u, 0xBF801000u, 0x3F800800u, 0x00000000u},  // two roundings: 0 (FMA: 2^-24)
      {0x00000000u, 0x3F800000u, 0x7F800000u, 0x7FC00000u},  // 0 * inf: NaN
      {0x40000000u, 0x3F800000u, 0x7F7FFFFFu, 0x7F800000u},  // 2 * max overflows
      {0x3F000000u, 0x00000000u, 0x00000001u, 0x00000000u},  // 2^-150: tie to even, 0
      {0x3F800000u, 0x00000001u, 0x00000001u, 0x00000002u},  // subnormals kept
  };
  for (const auto& x : ex) {
    AluCfg c;
    c.dtype = DType::kFp32;
    c.op = RedOp::kScaleAdd;
    c.scale = x[0];
    uint32_t want = x[1];
    alu_reduce(c, reinterpret_cast<uint8_t*>(&want), reinterpret_cast<const uint8_t*>(&x[2]), 4);
    EXPECT_EQ(want, x[3]) << std::hex << "s " << x[0] << " a " << x[1] << " b " << x[2];
    bench.set_scale(x[0]);
    const uint32_t fa[4] = {x[1], x[1], x[1], x[1]}, fb[4] = {x[2], x[2], x[2], x[2]};
    bench.push(fa, fb);
  }
  bench.drain();
  std::printf("[  VECTORS ] fp32 scaleadd edge cases: %" PRIu64
              " triples (%zu^3) + %zu examples, "
              "%" PRIu64 " flits, %d mismatches\n",
              static_cast<uint64_t>(pairs * e.size()), e.size(), std::size(ex), bench.checked(),
              bench.failures());
  EXPECT_EQ(bench.failures(), 0);
}

// Throughput: 10^5 flits in 10^5 consecutive cycles, random valid dtype/op and configuration in
// every cycle; the results must leave in 10^5 consecutive cycles, each checked.
TEST(RtlAlu, Throughput) {
  constexpr uint64_t kFlits = 100000;
  Rng rng = kFile.rng();
  AluBench bench;
  for (uint64_t i = 0; i < kFlits; ++i) {
    Vec v;
    const uint32_t t = rnd(rng, 7);
    if (t < 4) {
      make_int_random(static_cast<DType>(t), rng, v);
    } else {
      make_float_random(t == 4 ? kFp16 : (t == 5 ? kBf16 : kFp32), rng, v);
    }
    v.tag = static_cast<uint32_t>(rng());
    bench.step(v);
  }
  bench.drain();
  std::printf("[  VECTORS ] %s: %" PRIu64 " flits in, %" PRIu64 " results in cycles %" PRIu64
              "..%" PRIu64 ", %d mismatches\n",
              test_name().c_str(), bench.vectors(), bench.results(), bench.first_result_cycle(),
              bench.last_result_cycle(), bench.failures());
  EXPECT_EQ(bench.vectors(), kFlits);
  EXPECT_EQ(bench.results(), kFlits);
  EXPECT_EQ(bench.last_result_cycle() - bench.first_result_cycle() + 1, kFlits);
  EXPECT_EQ(bench.failures(), 0);
}
#endif

}  // namespace
}  // namespace xf
