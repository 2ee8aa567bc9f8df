// The RTL test kit: what every block test (tests/test_rtl_*.cpp) needs before its first test.
//
//  - Seeds: a test's generator is XF_SEED (or the file's default) mixed with the test's name, so
//    one test reruns alone with the same numbers; the seed is printed (TestFile::rng).
//  - Failures: counts mismatches, reports the first ten with the cycle and the command that
//    reproduces the test (XF_SEED=... build/cmake/<binary> --gtest_filter=<test>).
//  - Dut<V>: any Verilated class V (one or more instances in one VerilatedContext) with the
//    asynchronous reset (rst_ni low), tick() (the rising edge with the inputs held, then the
//    falling edge: a test changes inputs between ticks, half a period away from the sampling
//    edge), a cycle counter, and FST tracing when the target is Verilated with it (TRACE_FST)
//    and XF_TRACE=file.fst is set at run time.
//  - Flit: the stream flit {head, tail, data} as the RTL packs it at any flit width (FlitBits
//    32, 64 or 128: the functions take the width, 128 by default; a narrow flit's data words
//    above FlitBits are zero), header fields through the generated positions (hdr::kDstChip, ...
//    from sw/include/xf/defs.hpp), to and from the Verilated signals of port k of a flattened
//    bus (get_flit, put_flit; a 34-bit port is a QData); a 128-bit packet cut into the flits of a
//    narrow width (split_packet: H = 128 / FlitBits header flits, W-byte payload flits) and the
//    header gathered back (header_of); bit helpers for any other packed bus (get_bits, put_bits,
//    get_field, put_field).
//  - Widths: Width<V, B> names a Verilated class built with -GFlitBits=B, for typed tests over
//    the three widths (WidthName prints "w32", ...).
//    32-bit words of a data port of any width: get_word, put_word.
//  - Streams: Source (holds a flit offered until taken; idle_pct and idle bursts), Sink
//    (stall_pct, stall bursts, force_stall; checks that an offered flit holds until taken),
//    Packet and PacketScoreboard (expected packets per output and source, tagged in the reserved
//    header bits, read once the packet's H header flits are in; wormhole order; reports cycle,
//    output, source, expected and seen).
//  - The model's flit (xf::model::Flit) converts through tests/rtl_kit_model.hpp (tests that
//    link the model only).
//
// A test (the XB passes a flit through in the cycle it arrives):
//   const kit::TestFile kFile{0xB0, "test_rtl_xb"};  // default seed, binary name
//   TEST(Xb, Example) {
//     kit::Rng rng = kFile.rng();  // prints the seed
//     kit::Dut<Vxf_xb> dut;
//     dut.reset([](Vxf_xb& d) { d.in_valid_i = 0; d.out_ready_i = 1; });
//     const kit::Flit f = kit::Flit::header({{kit::hdr::kSeq, kit::rnd(rng, 100)}}, true);
//     kit::put_flit(dut->in_flit_i, 0, f);  // port 0 of the (here one-port) bus
//     dut->in_valid_i = 1;
//     dut->eval();
//     EXPECT_TRUE(kit::get_flit(dut->out_flit_o) == f) << kit::describe(f);
//     dut.tick();  // the rising edge takes it; inputs change again after this
//   }
#pragma once

#include <gtest/gtest.h>
#include <verilated.h>

#include <algorithm>
#include <array>
#include <cinttypes>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <deque>
#include <functional>
#include <initializer_list>
#include <memory>
#include <random>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "coverage.hpp"
#include "xf/defs.hpp"

#if VM_TRACE_FST
#include <verilated_fst_c.h>
#endif

namespace xf::kit {

// ---- Seeds --------------------------------------------------------------------------------------

using Rng = std::mt19937_64;

inline std::string test_name() {
  const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
  return std::string(info->test_suite_name()) + "." + info->name();
}

// Uniform in 0 .. n-1; true with pct percent probability (no draw when pct is 0).
inline uint32_t rnd(Rng& rng, uint32_t n) { return static_cast<uint32_t>(rng() % n); }
inline bool chance(Rng& rng, int pct) { return pct > 0 && static_cast<int>(rnd(rng, 100)) < pct; }

// One test binary: its default seed and its name (for the reproduce line).
struct TestFile {
  uint64_t default_seed;
  const char* binary;

  uint64_t seed() const {
    const char* s = std::getenv("XF_SEED");
    return (s != nullptr && *s != '\0') ? std::strtoull(s, nullptr, 0) : default_seed;
  }
  // The current test's generator: the seed mixed with the test's name (FNV-1a). Prints it.
  Rng rng() const {
    const std::string name = test_name();
    uint64_t h = 1469598103934665603ull;
    for (char c : name) h = (h ^ static_cast<uint8_t>(c)) * 1099511628211ull;
    std::printf("[   SEED   ] %s: XF_SEED=%" PRIu64 "%s\n", name.c_str(), seed(),
                std::getenv("XF_SEED") != nullptr ? "" : " (default; set XF_SEED to override)");
    return Rng(seed() ^ h);
  }
  std::string repro() const {
    return "XF_SEED=" + std::to_string(seed()) + " build/cmake/" + binary +
           " --gtest_filter=" + test_name();
  }
};

// Counts failures; reports the first `max_reported` with the cycle and the reproduce line.
class Failures {
 public:
  explicit Failures(const TestFile& file, int max_reported = 10)
      : file_(file), max_reported_(max_reported) {}
  void fail(uint64_t cycle, const std::string& what) {
    ++count_;
    if (count_ <= max_reported_) {
      ADD_FAILURE() << "cycle " << cycle << ": " << what << "\n  reproduce: " << file_.repro();
    }
  }
  int count() const { return count_; }
  bool too_many() const { return count_ > max_reported_; }

 private:
  const TestFile& file_;
  int max_reported_;
  int count_ = 0;
};

// ---- Bits of packed buses -----------------------------------------------------------------------

// Bits lsb .. lsb+n-1 (n <= 64) of an array of 32-bit words (VlWide, std::array<uint32_t, N>).
template <class W>
uint64_t get_bits(const W& w, uint32_t lsb, uint32_t n) {
  uint64_t v = 0;
  for (uint32_t done = 0; done < n;) {
    const uint32_t i = lsb + done, off = i % 32, take = std::min(32 - off, n - done);
    const uint64_t mask = (take == 32) ? 0xFFFFFFFFull : ((1ull << take) - 1);
    v |= ((static_cast<uint64_t>(w[i / 32]) >> off) & mask) << done;
    done += take;
  }
  return v;
}

template <class W>
void put_bits(W& w, uint32_t lsb, uint32_t n, uint64_t v) {
  for (uint32_t done = 0; done < n;) {
    const uint32_t i = lsb + done, off = i % 32, take = std::min(32 - off, n - done);
    const uint32_t mask =
        static_cast<uint32_t>(((take == 32) ? 0xFFFFFFFFull : ((1ull << take) - 1)) << off);
    const uint32_t bits = static_cast<uint32_t>((v >> done) << off) & mask;
    w[i / 32] = (w[i / 32] & ~mask) | bits;
    done += take;
  }
}

// Bits of a scalar bus (CData .. QData): field k of width n is get_field(bus, k * n, n).
template <class T>
uint64_t get_field(T v, uint32_t lsb, uint32_t n) {
  const uint64_t m = n >= 64 ? ~0ull : ((1ull << n) - 1);
  return (static_cast<uint64_t>(v) >> lsb) & m;
}

template <class T>
void put_field(T& v, uint32_t lsb, uint32_t n, uint64_t x) {
  const uint64_t m = (n >= 64 ? ~0ull : ((1ull << n) - 1)) << lsb;
  v = static_cast<T>((static_cast<uint64_t>(v) & ~m) | ((x << lsb) & m));
}

// ---- Flits --------------------------------------------------------------------------------------

// A header field: its position, from the generated constants.
struct Field {
  uint32_t lsb, bits;
};

namespace hdr {
inline constexpr Field kOpcode{header::kOpcodeLsb, header::kOpcodeBits};
inline constexpr Field kDstChip{header::kDstChipLsb, header::kDstChipBits};
inline constexpr Field kDstTile{header::kDstTileLsb, header::kDstTileBits};
inline constexpr Field kDstAddr{header::kDstAddrLsb, header::kDstAddrBits};
inline constexpr Field kLen{header::kLenLsb, header::kLenBits};
inline constexpr Field kDtype{header::kDtypeLsb, header::kDtypeBits};
inline constexpr Field kOp{header::kOpLsb, header::kOpBits};
inline constexpr Field kSat{header::kSatLsb, header::kSatBits};
inline constexpr Field kAvgFinal{header::kAvgFinalLsb, header::kAvgFinalBits};
inline constexpr Field kAvgShift{header::kAvgShiftLsb, header::kAvgShiftBits};
inline constexpr Field kCtr{header::kCtrLsb, header::kCtrBits};
inline constexpr Field kLane{header::kLaneLsb, header::kLaneBits};
inline constexpr Field kSrcChip{header::kSrcChipLsb, header::kSrcChipBits};
inline constexpr Field kSrcTile{header::kSrcTileLsb, header::kSrcTileBits};
inline constexpr Field kSeq{header::kSeqLsb, header::kSeqBits};
// The reserved bits above the last field (zero in real packets): the tests' scoreboards tag a
// packet's source and number there (PacketScoreboard).
inline constexpr uint32_t kReservedLsb = header::kSeqLsb + header::kSeqBits;
inline constexpr Field kTagSrc{kReservedLsb, 5};
inline constexpr Field kTagNum{kReservedLsb + 5, 16};
static_assert(kTagNum.lsb + kTagNum.bits <= kFlitBits, "the tags fit in the reserved bits");
}  // namespace hdr

inline constexpr uint32_t kFlitWords = kFlitBits / 32;  // at the default (widest) flit width
inline constexpr uint32_t kFlitWidth = kFlitBits + 2;   // a flit on a bus: {head, tail, data}

// The flit widths (docs/packets.md section 2) and what follows from one.
inline constexpr uint32_t kFlitWidths[] = {32, 64, 128};
inline constexpr uint32_t header_flits(uint32_t bits) { return kHeaderBits / bits; }  // H
inline constexpr uint32_t grain_flits(uint32_t bits) { return kGrainBytes * 8 / bits; }

// A Verilated top built at flit width B (-GFlitBits=B) for a typed test over the widths:
//   using Widths = ::testing::Types<kit::Width<Vxf_xb_w32, 32>, ..., kit::Width<Vxf_xb, 128>>;
//   TYPED_TEST_SUITE(RtlXb, Widths, kit::WidthName);
template <class V, uint32_t B>
struct Width {
  using Dut = V;
  static constexpr uint32_t kBits = B;
};
struct WidthName {
  template <class W>
  static std::string GetName(int) {
    return "w" + std::to_string(W::kBits);
  }
};
// Runs f(A{}), f(B{}) or f(C{}) for the flit width `bits` 32, 64 or anything else (128): a
// value-parameterised suite's way to its Verilated class.
template <class A, class B, class C, class F>
void with_width(uint32_t bits, F&& f) {
  if (bits == 32)
    f(A{});
  else if (bits == 64)
    f(B{});
  else
    f(C{});
}

// A flit of an RTL stream: bit FlitBits+1 head, bit FlitBits tail, data below; data word i is
// data bits 32i+31 .. 32i (byte j of a payload is bits 8j+7 .. 8j). Held at the widest width: at
// a narrow one the words from FlitBits / 32 on are zero.
struct Flit {
  bool head = false, tail = false;
  std::array<uint32_t, kFlitWords> w{};

  uint64_t bits(uint32_t lsb, uint32_t n) const { return get_bits(w, lsb, n); }
  Flit& set_bits(uint32_t lsb, uint32_t n, uint64_t v) {
    put_bits(w, lsb, n, v);
    return *this;
  }
  uint64_t get(Field f) const { return bits(f.lsb, f.bits); }
  Flit& set(Field f, uint64_t v) { return set_bits(f.lsb, f.bits, v); }
  // 64-bit halves of the data (bits 63:0 and 127:64).
  uint64_t lo() const { return bits(0, 64); }
  uint64_t hi() const { return bits(64, 64); }
  // Random data: two draws, bits 63:0 then 127:64, kept below `bits` (the flit width).
  Flit& random_data(Rng& rng, uint32_t bits = kFlitBits) {
    set_bits(0, 64, rng());
    set_bits(64, 64, rng());
    return clip(bits);
  }
  // Zero the data bits from `bits` on (a flit of that width).
  Flit& clip(uint32_t bits) {
    for (uint32_t i = bits / 32; i < kFlitWords; ++i) w[i] = 0;
    return *this;
  }
  // A header flit with the given fields (others zero).
  static Flit header(std::initializer_list<std::pair<Field, uint64_t>> fields, bool tail = false) {
    Flit f;
    f.head = true;
    f.tail = tail;
    for (const auto& fv : fields) f.set(fv.first, fv.second);
    return f;
  }
  bool operator==(const Flit& o) const { return head == o.head && tail == o.tail && w == o.w; }
  bool operator!=(const Flit& o) const { return !(*this == o); }
};

inline std::string describe(const Flit& f) {
  std::string s =
      "{head " + std::to_string(f.head) + " tail " + std::to_string(f.tail) + " data 0x";
  for (uint32_t i = kFlitWords; i-- > 0;) {
    char b[10];
    std::snprintf(b, sizeof b, "%08x", f.w[i]);
    s += b;
    if (i != 0) s += '_';
  }
  return s + "}";
}

// Flit k of a flattened bus of flits of width `bits` (a VlWide of a Verilated port).
template <class W>
Flit get_flit(const W& bus, uint32_t k = 0, uint32_t bits = kFlitBits) {
  const uint32_t base = k * (bits + 2), w0 = base / 32, off = base % 32;
  Flit f;
  for (uint32_t i = 0; i < bits / 32; ++i) {  // word by word: this runs every cycle
    f.w[i] = static_cast<uint32_t>(bus[w0 + i]) >> off;
    if (off != 0) f.w[i] |= static_cast<uint32_t>(bus[w0 + i + 1]) << (32 - off);
  }
  const uint64_t ht = get_bits(bus, base + bits, 2);
  f.tail = ht & 1u;
  f.head = (ht >> 1) & 1u;
  return f;
}

template <class W>
void put_flit(W& bus, uint32_t k, const Flit& f, uint32_t bits = kFlitBits) {
  const uint32_t base = k * (bits + 2), w0 = base / 32, off = base % 32;
  for (uint32_t i = 0; i < bits / 32; ++i) {
    bus[w0 + i] = (bus[w0 + i] & ~(~0u << off)) | (f.w[i] << off);
    if (off != 0) bus[w0 + i + 1] = (bus[w0 + i + 1] & (~0u << off)) | (f.w[i] >> (32 - off));
  }
  put_bits(bus, base + bits, 2, (f.head ? 2u : 0u) | (f.tail ? 1u : 0u));
}

// A port of 33..64 bits (one 32-bit flit and its framing) is a QData, not a VlWide.
inline Flit get_flit(const uint64_t& bus, uint32_t k = 0, uint32_t bits = kFlitBits) {
  const std::array<uint32_t, 2> w = {static_cast<uint32_t>(bus), static_cast<uint32_t>(bus >> 32)};
  return get_flit(w, k, bits);
}
inline void put_flit(uint64_t& bus, uint32_t k, const Flit& f, uint32_t bits = kFlitBits) {
  std::array<uint32_t, 2> w = {static_cast<uint32_t>(bus), static_cast<uint32_t>(bus >> 32)};
  put_flit(w, k, f, bits);
  bus = w[0] | static_cast<uint64_t>(w[1]) << 32;
}

// A packet of 128-bit flits (flit 0 the whole header, then one flit per 16-byte grain) as the
// flits of width `bits` (docs/packets.md section 3): H = 128 / bits header flits, header flit i
// holding header bits [i*bits +: bits], then each grain as 128 / bits payload flits, byte j of
// the grain in the flit j / W. Only the first flit keeps the head bit, only the last the tail
// bit (of the packet's last flit). At 128 bits the packet as it is.
inline std::vector<Flit> split_packet(const std::vector<Flit>& wide, uint32_t bits) {
  if (bits == kFlitBits) return wide;
  const uint32_t per = kFlitBits / bits;
  std::vector<Flit> out;
  const uint32_t words = bits / 32;
  for (const Flit& g : wide) {
    for (uint32_t i = 0; i < per; ++i) {
      Flit f;
      for (uint32_t j = 0; j < words; ++j) f.w[j] = g.w[i * words + j];
      out.push_back(f);
    }
  }
  if (!wide.empty()) {
    out.front().head = wide.front().head;
    out.back().tail = wide.back().tail;
  }
  return out;
}

// The 128-bit header of a packet's first header_flits(bits) flits of width `bits` (as a head
// flit at 128 bits).
inline Flit header_of(const std::vector<Flit>& flits, uint32_t bits) {
  Flit h;
  h.head = true;
  const uint32_t words = bits / 32;
  for (uint32_t i = 0; i < header_flits(bits) && i < flits.size(); ++i)
    for (uint32_t j = 0; j < words; ++j) h.w[i * words + j] = flits[i].w[j];
  return h;
}

// 32-bit word i of a data port of any width (a scalar up to 64 bits, else a VlWide).
template <class W>
uint32_t get_word(const W& port, uint32_t i) {
  if constexpr (std::is_integral_v<W>) {
    return static_cast<uint32_t>(static_cast<uint64_t>(port) >> (32 * i));
  } else {
    return static_cast<uint32_t>(port[i]);
  }
}

template <class W>
void put_word(W& port, uint32_t i, uint32_t v) {
  if constexpr (std::is_integral_v<W>) {
    const uint64_t m = 0xFFFFFFFFull << (32 * i);
    port =
        static_cast<W>((static_cast<uint64_t>(port) & ~m) | (static_cast<uint64_t>(v) << (32 * i)));
  } else {
    port[i] = v;
  }
}

// ---- The clocked wrapper ------------------------------------------------------------------------

// XF_TRACE: the FST file a test writes its waves to ("" for none).
inline std::string trace_file() {
  const char* t = std::getenv("XF_TRACE");
  return t != nullptr ? t : "";
}

// A context for Verilated models: errors fatal, no plusargs, tracing on when XF_TRACE is set in
// a build with FST tracing.
inline std::unique_ptr<VerilatedContext> make_context() {
  auto ctx = std::make_unique<VerilatedContext>();
  ctx->debug(0);
  ctx->randReset(0);
  ctx->commandArgs(0, static_cast<const char**>(nullptr));
  ctx->fatalOnError(true);
#if VM_TRACE_FST
  if (!trace_file().empty()) ctx->traceEverOn(true);
#endif
  return ctx;
}

// XF_TRACE for a system that clocks and traces its own nodes (sw/backends/rtl/rtl_system.hpp's
// RtlSystem; its context from make_context()).
template <class S>
void open_trace_if_asked(S& sys) {
  if (!trace_file().empty()) sys.open_trace(trace_file());
}

// Instances of a Verilated class V sharing one context and one clock (clk_i, rst_ni).
template <class V>
class Dut {
 public:
  explicit Dut(std::initializer_list<const char*> names = {"dut"}) : ctx_(make_context()) {
    for (const char* n : names) models_.push_back(std::make_unique<V>(ctx_.get(), n));
#if VM_TRACE_FST
    if (!trace_file().empty()) open_trace(trace_file());
#endif
  }
  ~Dut() {
    for (auto& m : models_) m->final();
    xf::rtl::coverage_flush(*ctx_);  // make coverage: read the counts while the models live
#if VM_TRACE_FST
    if (trace_) trace_->close();
#endif
  }
  Dut(const Dut&) = delete;
  Dut& operator=(const Dut&) = delete;

  V& operator*() { return *models_[0]; }
  V* operator->() { return models_[0].get(); }
  const V* operator->() const { return models_[0].get(); }
  V& operator[](size_t i) { return *models_[i]; }
  size_t size() const { return models_.size(); }
  VerilatedContext& ctx() { return *ctx_; }
  uint64_t cycle() const { return cycle_; }

  // The asynchronous reset: rst_ni falls with the clock low and `idle` inputs driven, holds for
  // `cycles` clock cycles, rises between edges. The cycle counter then starts at 0.
  template <class F>
  void reset(F&& idle, int cycles = 3) {
    for (auto& m : models_) {
      m->clk_i = 0;
      m->rst_ni = 1;
      idle(*m);
      m->eval();
      m->rst_ni = 0;
      m->eval();
    }
    for (int i = 0; i < cycles; ++i) tick();
    for (auto& m : models_) {
      m->rst_ni = 1;
      m->eval();
    }
    cycle_ = 0;
  }
  void reset(int cycles = 3) {
    reset([](V&) {}, cycles);
  }

  void eval() {
    for (auto& m : models_) m->eval();
  }

  // One cycle: the rising edge with the inputs as driven, then the falling edge.
  void tick() {
    ctx_->timeInc(1);
    for (auto& m : models_) {
      m->clk_i = 1;
      m->eval();
    }
    dump();
    ++cycle_;
    ctx_->timeInc(1);
    for (auto& m : models_) {
      m->clk_i = 0;
      m->eval();
    }
    dump();
  }

 private:
#if VM_TRACE_FST
  // Every instance into one FST file, each under its own name.
  void open_trace(const std::string& file) {
    trace_ = std::make_unique<VerilatedFstC>();
    for (auto& m : models_) m->trace(trace_.get(), 99);
    trace_->open(file.c_str());
    std::printf("[  TRACE   ] %s\n", file.c_str());
  }
  void dump() {
    if (trace_) trace_->dump(ctx_->time());
  }
  std::unique_ptr<VerilatedFstC> trace_;
#else
  void dump() {}
#endif

  std::unique_ptr<VerilatedContext> ctx_;
  std::vector<std::unique_ptr<V>> models_;
  uint64_t cycle_ = 0;
};

// ---- Streams ------------------------------------------------------------------------------------

// Runs of idle cycles on top of the per-cycle draws: a run starts with burst_permille per mille
// chance in a cycle and lasts burst_min .. burst_max cycles (both 0 per mille: none).
class Bursts {
 public:
  int burst_permille = 0, burst_min = 20, burst_max = 80;

  // Counts the current run down, or draws whether one starts; true while a run lasts.
  bool in_burst(Rng& rng) {
    if (left_ > 0) {
      --left_;
    } else if (burst_permille > 0 && static_cast<int>(rnd(rng, 1000)) < burst_permille) {
      left_ =
          burst_min + static_cast<int>(rnd(rng, static_cast<uint32_t>(burst_max - burst_min + 1)));
    }
    return left_ > 0;
  }

 private:
  int left_ = 0;
};

// A valid/ready source: offers its flits in order, holds an offered flit until taken, and
// between offers stays idle idle_pct percent of the cycles and in bursts.
class Source : public Bursts {
 public:
  int idle_pct = 0;

  void push(const Flit& f) { q_.push_back(f); }
  void push(const std::vector<Flit>& v) { q_.insert(q_.end(), v.begin(), v.end()); }
  bool empty() const { return q_.empty(); }
  size_t size() const { return q_.size(); }

  // This cycle's valid: the flit offered stays; a new one is offered unless `hold`, a burst or
  // the idle draw says not.
  bool offer(Rng& rng, bool hold = false) {
    if (!offering_ && !q_.empty() && !hold && !in_burst(rng) && !chance(rng, idle_pct))
      offering_ = true;
    return offering_;
  }
  bool offering() const { return offering_; }
  const Flit& flit() const { return q_.front(); }
  // The handshake of this cycle took the offered flit: returns it.
  Flit take() {
    Flit f = q_.front();
    q_.pop_front();
    offering_ = false;
    return f;
  }

 private:
  std::deque<Flit> q_;
  bool offering_ = false;
};

// Random bus contents for a cycle without valid (the DUT must ignore them).
inline Flit junk_flit(Rng& rng, uint32_t bits = kFlitBits) {
  Flit f;
  f.random_data(rng, bits);
  f.head = rng() & 1u;
  f.tail = rng() & 1u;
  return f;
}

// A valid/ready sink: not ready stall_pct percent of the cycles, in bursts, or always
// (force_stall); checks that a flit offered and not taken is offered again, unchanged.
class Sink : public Bursts {
 public:
  int stall_pct = 0;
  bool force_stall = false;

  // This cycle's ready (call once a cycle: it counts the bursts down).
  bool ready(Rng& rng) {
    const bool burst = in_burst(rng);
    return !force_stall && !burst && !chance(rng, stall_pct);
  }
  // This cycle's valid, ready and flit; returns an error, or "" when the rule holds.
  std::string watch(bool valid, bool ready, const Flit& f) {
    std::string err;
    if (held_ && (!valid || f != held_flit_)) {
      err = "dropped or changed a flit before ready: was " + describe(held_flit_) + ", now valid " +
            std::to_string(valid) + " " + describe(f);
    }
    held_ = valid && !ready;
    held_flit_ = f;
    return err;
  }

 private:
  bool held_ = false;
  Flit held_flit_;
};

// A packet through a block: its source, its number in that source's stream, the output it must
// leave on (-1: a misroute the block drops) and its flits.
struct Packet {
  int src = 0, number = 0;
  int out = -1;
  std::vector<Flit> flits;
};

// Expected packets per (output, source), each source's packets in order; headers carry the
// source and the packet's number in hdr::kTagSrc and hdr::kTagNum, which at a narrow width
// (`flit_bits`) are in the last header flit: a packet is identified once its H header flits (or
// its tail) are in, and its flits compared then. Wormhole: once a head opens a packet on an
// output, the output's flits are that packet's until its tail.
class PacketScoreboard {
 public:
  PacketScoreboard(int outputs, int sources, Failures& failures,
                   std::function<std::string(int)> out_name, uint32_t flit_bits = kFlitBits)
      : expect_(outputs, std::vector<std::deque<Packet>>(sources)),
        open_(outputs, -1),
        pos_(outputs, 0),
        pending_(outputs),
        bits_(flit_bits),
        failures_(failures),
        out_name_(std::move(out_name)) {}

  static Flit& tag(Flit& head, int src, int number) {
    return head.set(hdr::kTagSrc, static_cast<uint64_t>(src))
        .set(hdr::kTagNum, static_cast<uint64_t>(number));
  }

  // A packet that must leave on p.out (nothing for a misroute).
  void expect(const Packet& p) {
    if (p.out >= 0) expect_[p.out][p.src].push_back(p);
  }

  // A flit taken from output `out` in `cycle`. Returns the source of the packet it identifies
  // (its head at 128 bits, its last header flit at a narrow width), -1 for any other flit or an
  // error.
  int on_flit(int out, const Flit& f, uint64_t cycle) {
    std::vector<Flit>& pend = pending_[out];
    if (open_[out] < 0 && pend.empty() && !f.head) {
      fail(cycle, out, "body flit outside a packet " + describe(f));
      return -1;
    }
    if (open_[out] >= 0) {
      compare(out, f, cycle);
      return -1;
    }
    if (f.head && !pend.empty()) {
      fail(cycle, out, "head flit inside a packet's header " + describe(f));
      pend.clear();
    }
    pend.push_back(f);
    if (pend.size() < header_flits(bits_) && !f.tail) return -1;
    const std::vector<Flit> flits = std::move(pend);
    pend.clear();
    const int src = identify(out, header_of(flits, bits_), cycle);
    if (src < 0) return -1;
    for (const Flit& x : flits) {
      if (open_[out] < 0) {
        fail(cycle, out, "flit after the end of source " + std::to_string(src) + "'s packet");
        break;
      }
      compare(out, x, cycle);
    }
    return src;
  }

  // Nothing expected and no packet open.
  bool idle() const {
    for (size_t o = 0; o < expect_.size(); ++o) {
      if (open_[o] >= 0 || !pending_[o].empty()) return false;
      for (const auto& q : expect_[o])
        if (!q.empty()) return false;
    }
    return true;
  }

 private:
  // Opens the expected packet whose tags the header carries; returns its source, or -1.
  int identify(int out, const Flit& h, uint64_t cycle) {
    const int src = static_cast<int>(h.get(hdr::kTagSrc));
    if (src >= static_cast<int>(expect_[out].size()) || expect_[out][src].empty()) {
      fail(cycle, out, "unexpected packet from source " + std::to_string(src) + " " + describe(h));
      return -1;
    }
    const Packet& p = expect_[out][src].front();
    const int num = static_cast<int>(h.get(hdr::kTagNum));
    if (num != (p.number & 0xFFFF)) {
      fail(cycle, out,
           "source " + std::to_string(src) + " packet " + std::to_string(num) +
               " out of order, expected packet " + std::to_string(p.number));
    }
    open_[out] = src;
    pos_[out] = 0;
    return src;
  }

  // The next flit of the open packet.
  void compare(int out, const Flit& f, uint64_t cycle) {
    const Packet& p = expect_[out][open_[out]].front();
    const Flit& want = p.flits[pos_[out]];
    if (f != want) {
      fail(cycle, out,
           "flit " + std::to_string(pos_[out]) + " of source " + std::to_string(open_[out]) +
               " packet " + std::to_string(p.number) + " is " + describe(f) + ", expected " +
               describe(want));
    }
    if (++pos_[out] == p.flits.size() || f.tail) {
      expect_[out][open_[out]].pop_front();
      open_[out] = -1;
    }
  }

  void fail(uint64_t cycle, int out, const std::string& what) {
    failures_.fail(cycle, "output " + out_name_(out) + ": " + what);
  }

  std::vector<std::vector<std::deque<Packet>>> expect_;  // [output][source]
  std::vector<int> open_;
  std::vector<size_t> pos_;
  std::vector<std::vector<Flit>> pending_;  // [output]: header flits of a packet not yet known
  uint32_t bits_;
  Failures& failures_;
  std::function<std::string(int)> out_name_;
};

}  // namespace xf::kit
