// RTL_TOP: xf_router
// RTL_TOP: xf_router Vxf_router_w32 -GFlitBits=32
// RTL_TOP: xf_router Vxf_router_w64 -GFlitBits=64
// RTL_TOP: xf_router Vxf_router_early -GFlitBits=32 -GEarlyRouteMax=16384
// RTL_SRCS: rtl/xf_defs_pkg.sv rtl/xf_router.sv
// Block test of the RTL wormhole crossbar (rtl/xf_router.sv, Verilated with its defaults
// NumIn = 8, NumOut = 8, TableLanes = 4, at each flit width FlitBits 32, 64 and 128, and at 32 bits
// with the table read as a flit enters its stage (EarlyRouteMax above the table's 16,384 entries,
// the boards' small-table path): every test runs at the four, names ending in /w32, /w64, /w128,
// /w32_early) against a C++ scoreboard that routes
// every packet by the rule of docs/exchange.md section 7 and packets.md section 8: the model's
// own (Router::route_of, model/router.hpp), applied to the whole 128-bit header while the RTL
// sees only the head flit (header bits FlitBits-1:0, which hold the routing fields); the later
// header flits of a narrow packet follow as body flits.
//
// Space covered:
//  - node configurations (RandomTraffic): chips with (ports, tiles) = (3, 5), (2, 4), (4, 2),
//    (1, 1), (0, 1), (2, 6) and switch nodes with 8 and 1 ports, with 1, 2, 3, 5 or 8 active
//    inputs (smaller routers are the Verilated 8x8 one with idle inputs and unused outputs,
//    whose outputs must stay silent); a fresh random routing table per configuration, loaded
//    through the host port (every entry: mostly a real port, some 0xFF, some ports at or above
//    cfg_num_ports), spot-checked through the host read port;
//  - crossed with output stalls (out_ready low 0%, 30%, 60%, 90% of cycles, drawn per output)
//    and input idle insertion (0%, 30%, 70%): valid held until ready on every input;
//  - packets of 1..40 flits at 128 bits (a header flit and 0..39 grains; at 64 and 32 bits
//    H = 2 or 4 header flits and proportionally fewer grains, so about as many flits) with
//    random headers (every field random except the destination choice: local tiles, tiles that
//    do not exist, remote chips on random lanes) and random payload; the reserved header bits
//    127:107 (in the last header flit) carry (input, packet number) for the scoreboard.
// Checks: every routed packet arrives whole at its output, flit for flit, never interleaved
// with another packet on that output, in order per (input, output); misroutes are dropped and
// stat_misroutes_o equals their count exactly; no flit on an unused output; valid/ready rules
// on the outputs; in_done_o once per flit taken; the round-robin bound (after an input's head is
// taken, at most active inputs - 1 heads of other inputs move on its output before it); draining
// completes. Directed tests: strict round-robin order and one flit per cycle under saturation (8
// inputs into one output, back to back, no bubble between inputs), one input streaming back to
// back, a misrouted packet consumed at one flit per cycle, latency 1, the host table port.
//
// Inputs change half a period away from the rising edge. Random data: std::mt19937_64 seeded
// with a fixed default that XF_SEED (decimal or 0x-hex) overrides; each test prints its seed.
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cinttypes>
#include <cstdint>
#include <cstdio>
#include <deque>
#include <string>
#include <type_traits>
#include <vector>

#include "Vxf_router.h"
#include "Vxf_router_early.h"
#include "Vxf_router_w32.h"
#include "Vxf_router_w64.h"
#include "model_test_main.hpp"
#include "router.hpp"
#include "rtl_kit.hpp"
#include "rtl_kit_model.hpp"

namespace xf {
namespace {

using kit::Flit;
using kit::Packet;  // src: the input
using kit::rnd;
using kit::Rng;
using kit::test_name;
using kit::hdr::kDstChip;
using kit::hdr::kDstTile;
using kit::hdr::kLane;

constexpr int kNumIn = 8;  // the Verilated top's parameters
constexpr int kNumOut = 8;
constexpr int kTableEntries = 4 * 4096;
constexpr int kMaxReportedFailures = 10;
const kit::TestFile kFile{0x70u, "test_rtl_router"};

// The early-read router: the same tests at 32 bits, a name of its own.
struct EarlyRead : kit::Width<Vxf_router_early, 32> {};
struct RouterName {
  template <class W>
  static std::string GetName(int) {
    return kit::WidthName::GetName<W>(0) + (std::is_same_v<W, EarlyRead> ? "_early" : "");
  }
};
using Widths = ::testing::Types<kit::Width<Vxf_router_w32, 32>, kit::Width<Vxf_router_w64, 64>,
                                kit::Width<Vxf_router, 128>, EarlyRead>;
template <class W>
class RtlRouter : public ::testing::Test {};
TYPED_TEST_SUITE(RtlRouter, Widths, RouterName);

// Node configuration (the cfg_* ports).
struct NodeCfg {
  int ports = 0, tiles = 0;
  bool is_chip = true;
  uint32_t chip_id = 0;
};

// The routing rule of docs/exchange.md section 7: the model's (Router::route_of) on the RTL's
// configuration, every link port connected. A switch node (cfg_is_chip_i low) routes every
// destination by the table: the model's node id is then kMaxChips, above every chip. Outputs
// are the model's (ports, then tiles); every configuration here fits the Verilated 8 x 8.
int route_of(const NodeCfg& c, const std::vector<uint8_t>& table, const Flit& h) {
  static_assert(kTableEntries == kNumLanes * kMaxChips, "the RTL's table is the model's");
  const int node = c.is_chip ? static_cast<int>(c.chip_id) : static_cast<int>(kMaxChips);
  model::Router r(node, static_cast<int>(kMaxChips), c.ports, c.is_chip ? c.tiles : 0);
  EXPECT_LE(r.num_outputs(), kNumOut) << "a configuration larger than the Verilated router";
  r.table() = table;
  for (int p = 0; p < c.ports; ++p) r.connect(p);
  return r.route_of(kit::to_model(h));
}

// The Verilated router at flit width W::kBits and its configuration and table ports.
template <class W>
class RouterBench {
 public:
  using V = typename W::Dut;
  RouterBench() {
    dut_.reset([](V& d) {
      d.in_valid_i = 0;
      d.out_ready_i = 0;
      d.cfg_route_we_i = 0;
    });
  }

  V& dut() { return *dut_; }
  uint64_t cycle() const { return dut_.cycle(); }
  void tick() { dut_.tick(); }

  void set_cfg(const NodeCfg& c) {
    dut_->cfg_chip_id_i = c.chip_id;
    dut_->cfg_is_chip_i = c.is_chip;
    dut_->cfg_num_ports_i = c.ports;
    dut_->cfg_num_tiles_i = c.tiles;
    dut_->eval();
  }

  // Loads the whole table through the host write port, one entry per cycle.
  void load_table(const std::vector<uint8_t>& t) {
    dut_->in_valid_i = 0;
    for (int a = 0; a < kTableEntries; ++a) {
      dut_->cfg_route_we_i = 1;
      dut_->cfg_route_addr_i = a;
      dut_->cfg_route_wdata_i = t[a];
      tick();
    }
    dut_->cfg_route_we_i = 0;
    dut_->eval();
  }

  uint8_t read_table(int a) {
    dut_->cfg_route_raddr_i = a;
    tick();
    return dut_->cfg_route_rdata_o;
  }

  void set_in(int i, bool valid, const Flit& f) {
    kit::put_field(dut_->in_valid_i, i, 1, valid);
    kit::put_flit(dut_->in_flit_i, i, f, W::kBits);
  }
  Flit out_flit(int o) const { return kit::get_flit(dut_->out_flit_o, o, W::kBits); }

 private:
  kit::Dut<V> dut_;
};

// Destination choice for a packet's header.
enum class Dst { kLocal, kBadTile, kRemote, kAny };

// A packet of `len` flits at 128 bits (a header and len - 1 grains), built and routed at 128 bits
// and cut into flits of `bits`: at 64 and 32 bits (len - 1) * bits / 128 grains after H header
// flits, about as many flits.
Packet make_packet(Rng& rng, const NodeCfg& c, const std::vector<uint8_t>& table, int input,
                   int number, int len, Dst dst, uint32_t bits) {
  Packet p;
  p.src = input;
  p.number = number;
  len = 1 + (len - 1) * static_cast<int>(bits) / 128;
  for (int k = 0; k < len; ++k) {
    Flit f;
    f.head = (k == 0);
    f.tail = (k == len - 1);
    f.random_data(rng);
    p.flits.push_back(f);
  }
  Flit& h = p.flits[0];
  if (dst == Dst::kAny) {
    const uint32_t r = rnd(rng, 100);
    dst = (c.is_chip && r < 35) ? (r < 2 ? Dst::kBadTile : Dst::kLocal) : Dst::kRemote;
  }
  uint32_t chip = 0, tile = static_cast<uint32_t>(rng() & 0xF);
  switch (dst) {
    case Dst::kLocal:
      chip = c.chip_id;
      tile = c.tiles > 0 ? rnd(rng, c.tiles) : 0;
      break;
    case Dst::kBadTile:
      chip = c.chip_id;
      tile = c.tiles + rnd(rng, 16 - c.tiles);
      break;
    default:
      do {
        chip = rnd(rng, 4096);
      } while (c.is_chip && chip == c.chip_id);
      break;
  }
  h.set(kDstChip, chip).set(kDstTile, tile);
  // The reserved header bits carry the scoreboard's tag: input and packet number.
  kit::PacketScoreboard::tag(h, input, number & 0xFFFF);
  p.out = route_of(c, table, h);
  p.flits = kit::split_packet(p.flits, bits);
  return p;
}

std::vector<uint8_t> random_table(Rng& rng, int ports) {
  std::vector<uint8_t> t(kTableEntries);
  for (auto& e : t) {
    const uint32_t r = rnd(rng, 100);
    if (r < 6 || ports == 0) {
      e = 0xFF;
    } else if (r < 12) {
      e = static_cast<uint8_t>(ports + rnd(rng, 255 - ports));  // a port the node lacks
    } else {
      e = static_cast<uint8_t>(rnd(rng, ports));
    }
  }
  return t;
}

// Drives packets into the router and checks everything that comes out.
template <class W>
class Traffic {
 public:
  Traffic(RouterBench<W>& b, const NodeCfg& c, int active_inputs)
      : b_(b),
        cfg_(c),
        active_(active_inputs),
        fails_(kFile),
        sb_(
            kNumOut, kNumIn, fails_, [](int o) { return std::to_string(o); }, W::kBits),
        src_(kNumIn),
        outs_(kNumIn),
        waiting_(kNumOut, std::vector<int>(kNumIn, -1)) {}

  void add(const Packet& p) {
    src_[p.src].push(p.flits);
    outs_[p.src].push_back(p.out);
    ++packets_;
    if (p.out < 0) {
      ++misroutes_expected_;
    } else {
      sb_.expect(p);
    }
  }
  void set_idle(int i, int pct) { src_[i].idle_pct = pct; }
  void set_stall(int o, int pct) { sink_[o].stall_pct = pct; }

  // One cycle: drive, sample both sides, clock.
  void step(Rng& rng) {
    auto& d = b_.dut();
    for (int i = 0; i < kNumIn; ++i) {
      const bool valid = src_[i].offer(rng);
      // garbage if not valid
      b_.set_in(i, valid, valid ? src_[i].flit() : kit::junk_flit(rng, W::kBits));
    }
    uint32_t ready = 0;
    for (int o = 0; o < kNumOut; ++o) {
      if (sink_[o].ready(rng)) ready |= 1u << o;
    }
    d.out_ready_i = ready;
    d.eval();
    // Outputs first (moves in this cycle are not counted against heads taken in this cycle).
    for (int o = 0; o < kNumOut; ++o) {
      const bool valid = (d.out_valid_o >> o) & 1;
      const Flit f = b_.out_flit(o);
      const std::string held = sink_[o].watch(valid, (ready >> o) & 1, f);
      if (!held.empty()) fail("output " + std::to_string(o) + " " + held);
      if (valid && o >= used_outputs()) {
        fail("flit on unused output " + std::to_string(o) + ": " + describe(f));
      }
      if (valid && ((ready >> o) & 1)) on_output(o, f);
    }
    for (int i = 0; i < kNumIn; ++i) {
      if ((d.in_done_o >> i) & 1) ++flits_done_;
      if (!src_[i].offering() || !((d.in_ready_o >> i) & 1)) continue;
      const Flit f = src_[i].take();
      if (f.head && outs_[i].front() >= 0) waiting_[outs_[i].front()][i] = 0;  // round robin
      if (f.tail) outs_[i].pop_front();
      ++flits_in_;
    }
    b_.tick();
  }

  bool idle() const {
    for (int i = 0; i < kNumIn; ++i)
      if (!src_[i].empty()) return false;
    return sb_.idle();
  }

  // Runs until everything has been delivered; fails on a hang.
  void run(Rng& rng, uint64_t max_cycles) {
    const uint64_t start = b_.cycle();
    while (!idle()) {
      if (b_.cycle() - start > max_cycles || fails_.too_many()) {
        fail("no progress: traffic not drained after " + std::to_string(max_cycles) + " cycles");
        return;
      }
      step(rng);
    }
    for (int k = 0; k < 4; ++k) step(rng);  // the last drops reach the counter
    if (flits_done_ != flits_in_) {
      fail("in_done_o pulsed " + std::to_string(flits_done_) + " times for " +
           std::to_string(flits_in_) + " flits taken");
    }
    if (b_.dut().stat_misroutes_o != misroutes_base_ + misroutes_expected_) {
      fail("stat_misroutes_o " + std::to_string(b_.dut().stat_misroutes_o) + ", expected " +
           std::to_string(misroutes_base_ + misroutes_expected_));
    }
  }

  void set_misroutes_base(uint32_t v) { misroutes_base_ = v; }
  int failures() const { return fails_.count(); }
  uint64_t packets() const { return packets_; }
  uint64_t misroutes() const { return misroutes_expected_; }
  uint64_t flits_out() const { return flits_out_; }
  const std::vector<int>& heads_on(int o) const { return head_order_[o]; }
  const std::vector<uint64_t>& out_cycles(int o) const { return out_cycles_[o]; }
  int max_wait() const { return max_wait_; }

 private:
  int used_outputs() const { return cfg_.ports + (cfg_.is_chip ? cfg_.tiles : 0); }

  void on_output(int o, const Flit& f) {
    ++flits_out_;
    out_cycles_[o].push_back(b_.cycle());
    const int in = sb_.on_flit(o, f, b_.cycle());
    if (in < 0) return;
    // A packet opened: round robin, heads of other inputs that moved while one waited.
    for (int i = 0; i < kNumIn; ++i) {
      if (waiting_[o][i] < 0) continue;
      if (i == in) {
        max_wait_ = std::max(max_wait_, waiting_[o][i]);
        if (waiting_[o][i] > active_ - 1) {
          fail("output " + std::to_string(o) + ": input " + std::to_string(i) + " waited " +
               std::to_string(waiting_[o][i]) + " packets (bound " + std::to_string(active_ - 1) +
               ")");
        }
        waiting_[o][i] = -1;
      } else {
        ++waiting_[o][i];
      }
    }
    head_order_[o].push_back(in);
  }

  void fail(const std::string& what) { fails_.fail(b_.cycle(), what); }

  RouterBench<W>& b_;
  NodeCfg cfg_;
  int active_;
  kit::Failures fails_;
  kit::PacketScoreboard sb_;
  std::vector<kit::Source> src_;
  std::vector<std::deque<int>> outs_;  // [input]: expected output of each packet queued
  std::array<kit::Sink, kNumOut> sink_;
  std::vector<std::vector<int>> waiting_;  // [output][input]: other heads moved, -1 = none
  std::array<std::vector<int>, kNumOut> head_order_;
  std::array<std::vector<uint64_t>, kNumOut> out_cycles_;
  uint64_t packets_ = 0, misroutes_expected_ = 0, flits_in_ = 0, flits_out_ = 0, flits_done_ = 0;
  uint32_t misroutes_base_ = 0;
  int max_wait_ = 0;
};

struct Config {
  NodeCfg node;
  int active;
};

TYPED_TEST(RtlRouter, RandomTraffic) {
  using W = TypeParam;
  Rng rng = kFile.rng();
  const Config configs[] = {
      {{3, 5, true, 0x123}, 8}, {{8, 0, false, 0x7FF}, 8}, {{2, 4, true, 5}, 5},
      {{4, 2, true, 4095}, 3},  {{1, 1, true, 0}, 2},      {{0, 1, true, 77}, 1},
      {{1, 0, false, 0}, 8},    {{2, 6, true, 1}, 8},
  };
  const int stalls[] = {0, 30, 60, 90};
  const int idles[] = {0, 30, 70};
  uint64_t packets = 0, misroutes = 0, flits = 0, runs = 0;
  int max_wait = 0, failures = 0;
  for (const Config& cfg : configs) {
    RouterBench<W> bench;
    bench.set_cfg(cfg.node);
    const std::vector<uint8_t> table = random_table(rng, cfg.node.ports);
    bench.load_table(table);
    for (int k = 0; k < 64; ++k) {  // host read port spot checks
      const int a = static_cast<int>(rnd(rng, kTableEntries));
      EXPECT_EQ(bench.read_table(a), table[a]) << "table entry " << a;
    }
    uint32_t misroutes_so_far = 0;
    for (int stall : stalls) {
      for (int idle : idles) {
        Traffic<W> t(bench, cfg.node, cfg.active);
        t.set_misroutes_base(misroutes_so_far);
        for (int o = 0; o < kNumOut; ++o)
          t.set_stall(o, stall ? static_cast<int>(rnd(rng, stall + 1)) : 0);
        for (int i = 0; i < kNumIn; ++i)
          t.set_idle(i, idle ? static_cast<int>(rnd(rng, idle + 1)) : 0);
        for (int i = 0; i < cfg.active; ++i) {
          for (int n = 0; n < 40; ++n) {
            const int len = rnd(rng, 4) == 0 ? 1 : 1 + static_cast<int>(rnd(rng, 40));
            t.add(make_packet(rng, cfg.node, table, i, n, len, Dst::kAny, W::kBits));
          }
        }
        t.run(rng, 400000);
        misroutes_so_far += static_cast<uint32_t>(t.misroutes());
        packets += t.packets();
        misroutes += t.misroutes();
        flits += t.flits_out();
        max_wait = std::max(max_wait, t.max_wait());
        failures += t.failures();
        ++runs;
        if (failures > kMaxReportedFailures) break;
      }
    }
  }
  std::printf("[  VECTORS ] %s: %" PRIu64 " runs, %" PRIu64 " packets (%" PRIu64
              " misrouted), %" PRIu64 " flits delivered, longest round-robin wait %d packets\n",
              test_name().c_str(), runs, packets, misroutes, flits, max_wait);
  EXPECT_EQ(failures, 0);
  EXPECT_GT(misroutes, 0u);
}

// All 8 inputs saturate one output: heads in strict round-robin order, one flit every cycle.
TYPED_TEST(RtlRouter, SaturationRoundRobin) {
  using W = TypeParam;
  Rng rng = kFile.rng();
  for (int stall : {0, 50}) {
    RouterBench<W> bench;
    const NodeCfg node{0, 1, true, 9};  // one tile: every packet to output 0
    bench.set_cfg(node);
    const std::vector<uint8_t> table = random_table(rng, 0);
    bench.load_table(table);
    Traffic<W> t(bench, node, kNumIn);
    t.set_stall(0, stall);
    int flits = 0;
    for (int i = 0; i < kNumIn; ++i) {
      for (int n = 0; n < 30; ++n) {
        const int len = 1 + static_cast<int>(rnd(rng, 40));
        const Packet p = make_packet(rng, node, table, i, n, len, Dst::kLocal, W::kBits);
        flits += static_cast<int>(p.flits.size());
        t.add(p);
      }
    }
    t.run(rng, 100000);
    EXPECT_EQ(t.failures(), 0);
    const std::vector<int>& order = t.heads_on(0);
    ASSERT_EQ(order.size(), static_cast<size_t>(kNumIn * 30));
    // All inputs wait from the first cycle: the grant order is 0, 1, ..., 7, 0, 1, ...
    for (size_t k = 0; k < order.size(); ++k) {
      EXPECT_EQ(order[k], static_cast<int>(k % kNumIn)) << "packet " << k << " stall " << stall;
    }
    const std::vector<uint64_t>& cyc = t.out_cycles(0);
    ASSERT_EQ(cyc.size(), static_cast<size_t>(flits));
    if (stall == 0) {  // no bubble, also between packets of different inputs
      EXPECT_EQ(cyc.back() - cyc.front(), static_cast<uint64_t>(flits - 1));
    }
    std::printf("[  VECTORS ] %s: stall %d%%: %d packets, %d flits in %" PRIu64 " cycles\n",
                test_name().c_str(), stall, kNumIn * 30, flits, cyc.back() - cyc.front() + 1);
  }
}

// One input streams back-to-back packets to one output; every output used at once by its own
// input (8 disjoint streams): each output moves a flit every cycle; latency is 1 cycle.
TYPED_TEST(RtlRouter, BackToBackThroughput) {
  using W = TypeParam;
  Rng rng = kFile.rng();
  RouterBench<W> bench;
  const NodeCfg node{0, 8, true, 3};  // 8 tiles: output o = tile o
  bench.set_cfg(node);
  const std::vector<uint8_t> table = random_table(rng, 0);
  bench.load_table(table);
  // Latency: a lone one-flit packet taken in cycle t leaves in t + 1.
  {
    Packet p = make_packet(rng, node, table, 2, 0, 1, Dst::kLocal, W::kBits);
    p.flits.resize(1);  // one flit at every width (as XREQ)
    p.flits[0].tail = true;
    auto& d = bench.dut();
    d.out_ready_i = 0xFF;
    bench.set_in(2, true, p.flits[0]);
    d.eval();
    ASSERT_EQ((d.in_ready_o >> 2) & 1, 1u);
    EXPECT_EQ(d.out_valid_o, 0u);
    bench.tick();
    bench.set_in(2, false, p.flits[0]);
    d.eval();
    EXPECT_EQ(d.out_valid_o, 1u << p.out) << "latency is not 1 cycle";
    EXPECT_TRUE(bench.out_flit(p.out) == p.flits[0]);
    bench.tick();
    d.eval();
    EXPECT_EQ(d.out_valid_o, 0u);
  }
  Traffic<W> t(bench, node, 1);
  std::vector<int> flits(kNumOut, 0);
  for (int i = 0; i < kNumIn; ++i) {
    for (int n = 0; n < 50; ++n) {
      const int len = 1 + static_cast<int>(rnd(rng, 40));
      Packet p = make_packet(rng, node, table, i, n, len, Dst::kLocal, W::kBits);
      // Input i to tile i.
      p.flits[0].set(kDstTile, static_cast<uint64_t>(i));
      p.out = route_of(node, table, p.flits[0]);
      ASSERT_EQ(p.out, i);
      flits[i] += static_cast<int>(p.flits.size());
      t.add(p);
    }
  }
  t.run(rng, 100000);
  EXPECT_EQ(t.failures(), 0);
  for (int o = 0; o < kNumOut; ++o) {
    const std::vector<uint64_t>& cyc = t.out_cycles(o);
    ASSERT_EQ(cyc.size(), static_cast<size_t>(flits[o]));
    EXPECT_EQ(cyc.back() - cyc.front(), static_cast<uint64_t>(flits[o] - 1)) << "output " << o;
  }
}

// A misrouted packet is consumed at one flit per cycle and counted once; the packet behind it
// still arrives; misroutes of every kind (0xFF, port >= cfg_num_ports, missing tile).
TYPED_TEST(RtlRouter, MisrouteDrop) {
  using W = TypeParam;
  Rng rng = kFile.rng();
  RouterBench<W> bench;
  const NodeCfg node{2, 3, true, 40};
  bench.set_cfg(node);
  std::vector<uint8_t> table(kTableEntries, 0xFF);
  table[1 * 4096 + 41] = 1;  // lane 1, chip 41: port 1
  table[0 * 4096 + 42] = 2;  // chip 42: port 2, which this node lacks
  table[3 * 4096 + 43] = 7;  // an output that exists but is a tile output: not a link
  bench.load_table(table);
  auto header_for = [&](uint32_t chip, uint32_t tile, uint32_t lane, int len, int number) {
    Packet p = make_packet(rng, node, table, 0, number, len, Dst::kRemote, W::kBits);
    Flit& h = p.flits[0];
    h.set(kDstChip, chip).set(kDstTile, tile).set(kLane, lane);
    p.out = route_of(node, table, h);
    return p;
  };
  struct Case {
    uint32_t chip, tile, lane;
    int want_out;
  };
  const Case cases[] = {{41, 0, 1, 1}, {41, 0, 0, -1}, {42, 0, 0, -1},  {43, 0, 3, -1},
                        {40, 2, 0, 4}, {40, 3, 2, -1}, {40, 15, 1, -1}, {999, 0, 2, -1}};
  uint32_t expected_misroutes = 0;
  int number = 0;
  for (const Case& c : cases) {
    Packet bad = header_for(c.chip, c.tile, c.lane, 40, number++);
    ASSERT_EQ(bad.out, c.want_out) << "chip " << c.chip << " tile " << c.tile;
    Packet good = header_for(41, 0, 1, 5, number++);
    // Drive directly: every flit presented back to back; count the cycles to take them.
    auto& d = bench.dut();
    d.out_ready_i = 0xFF;
    uint64_t first = 0, last = 0;
    int seen_good = 0;
    for (const Packet* p : {&bad, &good}) {
      for (size_t k = 0; k < p->flits.size();) {
        bench.set_in(0, true, p->flits[k]);
        d.eval();
        if ((d.out_valid_o >> 1) & 1) ++seen_good;
        if ((d.in_ready_o & 1) != 0) {
          if (p == &bad && k == 0) first = bench.cycle();
          if (p == &bad) last = bench.cycle();
          ++k;
        }
        bench.tick();
      }
    }
    bench.set_in(0, false, Flit{});
    for (int k = 0; k < 10; ++k) {
      d.eval();
      if ((d.out_valid_o >> 1) & 1) ++seen_good;
      bench.tick();
    }
    if (bad.out < 0) ++expected_misroutes;
    // The bad packet's flits (40 at 128 bits) taken in as many consecutive cycles, routed or
    // dropped.
    const int nb = static_cast<int>(bad.flits.size()), ng = static_cast<int>(good.flits.size());
    EXPECT_EQ(last - first, static_cast<uint64_t>(nb - 1))
        << "chip " << c.chip << " tile " << c.tile;
    EXPECT_EQ(seen_good, ng + (bad.out == 1 ? nb : 0)) << "chip " << c.chip;
    EXPECT_EQ(d.stat_misroutes_o, expected_misroutes) << "chip " << c.chip;
  }
  std::printf("[  VECTORS ] %s: %zu cases, %u misroutes\n", test_name().c_str(),
              sizeof cases / sizeof cases[0], expected_misroutes);
}

// The host port: every entry written is read back; a switch node routes its own id remotely.
TYPED_TEST(RtlRouter, HostTablePort) {
  using W = TypeParam;
  Rng rng = kFile.rng();
  RouterBench<W> bench;
  const NodeCfg node{4, 0, false, 12};
  bench.set_cfg(node);
  std::vector<uint8_t> table(kTableEntries);
  for (auto& e : table) e = static_cast<uint8_t>(rng());
  bench.load_table(table);
  int errors = 0;
  for (int a = 0; a < kTableEntries; ++a) {
    if (bench.read_table(a) != table[a] && ++errors <= 5) {
      ADD_FAILURE() << "entry " << a << " reads " << static_cast<int>(bench.read_table(a));
    }
  }
  EXPECT_EQ(errors, 0);
  // A switch node: a packet for chip 12 (its own id) follows the table, not a tile.
  table[2 * 4096 + 12] = 3;
  bench.load_table(table);
  Traffic<W> t(bench, node, 1);
  Packet p = make_packet(rng, node, table, 0, 0, 3, Dst::kRemote, W::kBits);
  p.flits[0].set(kDstChip, 12).set(kLane, 2);
  p.out = route_of(node, table, p.flits[0]);
  ASSERT_EQ(p.out, 3);
  t.add(p);
  t.run(rng, 1000);
  EXPECT_EQ(t.failures(), 0);
}

}  // namespace
}  // namespace xf
