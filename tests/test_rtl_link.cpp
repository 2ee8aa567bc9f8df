// RTL_TOP: xf_link_phy
// RTL_TOP: xf_link_phy Vxf_link_phy_w32 -GFlitBits=32 -GSyncBuffers=1'b1
// RTL_TOP: xf_link_phy Vxf_link_phy_w64 -GFlitBits=64
// RTL_SRCS: rtl/xf_defs_pkg.sv rtl/xf_buf_ram.sv rtl/xf_crc32.sv rtl/xf_link.sv rtl/xf_link_phy.sv
// Block test of the RTL link endpoint (rtl/xf_link_phy.sv: the retry layer rtl/xf_link.sv,
// docs/reliability.md, between its CRC stages): two Verilated xf_link_phy endpoints A and B joined
// by two C++ PHY wires of LinkLatencyCycles - LinkRegCycles = 3 cycles
// (sw/backends/rtl/phy_wire.hpp), traffic in both directions at once. Every test runs at the
// three flit widths, FlitBits 32, 64 and 128 (xf_link_phy Verilated three times; test names end in
// /w32, /w64, /w128 or _w32 ...), against the same model link: its timing counts flits at every
// width. The 32-bit class keeps its buffers in the block RAM form (SyncBuffers = 1,
// rtl/xf_buf_ram.sv), which must not change a cycle.
//
// On a clean wire every cycle is checked against the model's link direction, xf::model::Link(0)
// (model/link.hpp; xf_link alone, no router stage): a flit accepted by a transmitter in cycle t
// is at the far buffer's output from
// cycle t + 8, a flit taken from a buffer in cycle s returns its credit to the far transmitter for
// use in cycle s + 8, credits start at LinkRxBufferFlits = 32: tx_ready_o == (credits > 0) and the
// credit count (stat_tx_credits_o) equal to the model's; rx_valid_o, rx_flit_o and the buffer
// level equal to the model's; stat_tx_packets_o and stat_rx_packets_o equal to the tails sent and
// arrived; every word on the wire carries the CRC-32 that zlib computes over its FlitBits/8 + 5
// bytes (21 at 128 bits, 13 at 64, 9 at 32).
//
// On a faulty wire (bit flips, drops, stalls, a link held down; sw/include/xf/faults.hpp) the
// timing is not the model's, and what is checked is what retry promises: every flit taken equals
// the next flit sent (nothing lost, duplicated, reordered or corrupted), all traffic completes, the
// credits come home to 32, stat_crc_errors_o equals the words the wire corrupted, and the replay
// counters show the layer worked. In both cases the RTL's own assertions (buffer and replay
// overflow, credit range, valid/ready, framing) run under Verilator --assert.
//
// Space covered:
//  - RandomTraffic (parameterised, clean wire): receiver stall probability {0, 30, 60, 90}%
//    crossed with transmitter idle probability {0, 30, 70}%, 16000 flits each way, the B->A
//    direction with a different pair than A->B; on top, random stall and idle bursts of 20..80
//    cycles. Packets of H = 128/FlitBits header flits and 0..128 grains of 128/FlitBits payload
//    flits each (0, 1 and 128 grains weighted up: 1..129 flits at 128 bits, 4..516 at 32),
//    random header bits 106:0 and payloads; the data bits of idle inputs are random. At 32 and
//    64 bits 8000 flits each way.
//  - Faults (parameterised): word error rate 1e-2, bit error rate 1e-4, drops 1e-2, stalls 10%,
//    a link held down for 300 cycles at rate 1e-3, all combined, and a long outage that escalates;
//    12000 flits each way with receiver stalls and idles.
//  - LatencyAndCreditReturn, FullRateStream, BufferFillsToExactlyRxBufferFlits: exact timing on a
//    clean wire.
//  - CrcKnownAnswer, Crc.DetectsEveryErrorOfUpToThreeBits (the C++ CRC over the word of
//    FlitBits + 40 bits: 168, 104 and 72).
//
// Inputs change half a period away from the rising edge. Random data: std::mt19937_64 seeded
// with a fixed default that XF_SEED (decimal or 0x-hex) overrides; each test prints its seed. On
// a mismatch the test prints the cycle, the direction, expected and seen, and the command that
// reproduces it.
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cinttypes>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <deque>
#include <iterator>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "Vxf_link_phy.h"
#include "Vxf_link_phy_w32.h"
#include "Vxf_link_phy_w64.h"
#include "link.hpp"
#include "model_test_main.hpp"
#include "phy_wire.hpp"
#include "rtl_kit.hpp"
#include "rtl_kit_model.hpp"
#include "xf/crc32.hpp"
#include "xf/defs.hpp"
#include "xf/faults.hpp"

namespace xf {
namespace {

using kit::Flit;
using kit::test_name;

constexpr uint64_t kLatency = kLinkLatencyCycles;  // flit and credit latency, each way
constexpr int kCredits = kLinkRxBufferFlits;       // receive buffer depth, initial credits
constexpr int kMaxPacketGrains = kMaxPacketPayloadBytes / kGrainBytes;  // 128
const kit::TestFile kFile{0x11Bu, "test_rtl_link"};

// The Verilated link at each flit width.
using W32 = kit::Width<Vxf_link_phy_w32, 32>;
using W64 = kit::Width<Vxf_link_phy_w64, 64>;
using W128 = kit::Width<Vxf_link_phy, 128>;
using Widths = ::testing::Types<W32, W64, W128>;

// Runs f(W{}) for the width `bits` (the value-parameterised suites).
template <class F>
void with_width(uint32_t bits, F&& f) {
  kit::with_width<W32, W64, W128>(bits, f);
}

uint32_t packet_crc(const std::vector<Flit>& pkt) {
  uint32_t crc = 0;
  for (const Flit& f : pkt) {
    uint8_t bytes[16];
    for (int i = 0; i < 16; ++i) bytes[i] = static_cast<uint8_t>(f.w[i / 4] >> (8 * (i % 4)));
    crc = crc32_update(crc, bytes, 16);
  }
  return crc;
}

struct Packet {
  std::vector<Flit> flits;
};

// Random traffic parameters of one direction (probabilities per cycle).
struct Knobs {
  double tx_idle = 0;   // the transmitter offers no flit in a cycle it could
  double rx_stall = 0;  // the receiver's exchange is not ready
  double burst = 0;     // a stall or idle burst of 20..80 cycles starts (each side)
};

// A direction's transmitter (kit::Source) and receiver (kit::Sink) with these knobs.
void set_knobs(kit::Source& tx, kit::Sink& rx, const Knobs& k) {
  tx.idle_pct = static_cast<int>(k.tx_idle * 100 + 0.5);
  rx.stall_pct = static_cast<int>(k.rx_stall * 100 + 0.5);
  tx.burst_permille = rx.burst_permille = static_cast<int>(k.burst * 1000 + 0.5);
}

// A packet of 0..128 grains (0, 1 and 128 weighted up) built at 128 bits, random header bits
// 106:0 (every field), reserved bits 127:107 zero (docs/packets.md), random payload; then cut
// into flits of `bits` (H header flits, 128/bits flits per grain).
Packet random_packet(kit::Rng& rng, uint32_t bits) {
  std::uniform_real_distribution<double> u(0, 1);
  const double r = u(rng);
  int grains;
  if (r < 0.15) {
    grains = 0;
  } else if (r < 0.25) {
    grains = 1;
  } else if (r < 0.4) {
    grains = kMaxPacketGrains;
  } else {
    grains = std::uniform_int_distribution<int>(0, kMaxPacketGrains)(rng);
  }
  const int n = 1 + grains;
  std::vector<Flit> wide(n);
  for (int i = 0; i < n; ++i) {
    Flit& f = wide[i];
    f.head = (i == 0);
    f.tail = (i == n - 1);
    for (auto& w : f.w) w = static_cast<uint32_t>(rng());
  }
  wide[0].set_bits(kit::hdr::kReservedLsb, kFlitBits - kit::hdr::kReservedLsb, 0);
  return Packet{kit::split_packet(wide, bits)};
}

// The PHY word of a Verilated phy_*_flit port (a VlWide, or a QData at 32 bits) and back.
template <class P>
rtl::PhyWord phy_word(const P& flit_port, uint32_t bits) {
  const Flit f = kit::get_flit(flit_port, 0, bits);
  rtl::PhyWord w;
  w.flit_bits = bits;
  for (uint32_t i = 0; i < bits / 32; ++i) w.flit[i] = f.w[i];
  w.flit[bits / 32] = (f.head ? 2u : 0u) | (f.tail ? 1u : 0u);
  return w;
}

template <class P>
void put_phy_flit(P& flit_port, const rtl::PhyWord& w, uint32_t bits) {
  Flit f;
  for (uint32_t i = 0; i < bits / 32; ++i) f.w[i] = w.flit[i];
  f.head = (w.flit[bits / 32] >> 1) & 1u;
  f.tail = w.flit[bits / 32] & 1u;
  kit::put_flit(flit_port, 0, f, bits);
}

// ---- One direction: the RTL's ports, the model's link and the scoreboard -----------------------

// One direction of the pair: the transmitting and the receiving Verilated link (their ports are
// read through these), the model's link direction (the golden timing) and the flits in flight
// (the scoreboard).
template <class V>
struct Dir {
  const char* name = nullptr;
  V* near = nullptr;  // the transmitting endpoint
  V* far = nullptr;   // the receiving endpoint
  std::unique_ptr<rtl::PhyWire> wire;

  std::vector<Packet> packets;  // everything this direction will send, in order
  kit::Source tx;               // offers packets[tx_pkt].flits[tx_idx]
  kit::Sink rx;                 // the far exchange's rx_ready_i
  void set(const Knobs& k) { set_knobs(tx, rx, k); }
  // transmitter cursor
  size_t tx_pkt = 0;
  int tx_idx = 0;
  // The model's link direction, xf_link alone (no router stage): its flit pipe and credit
  // counter are the golden timing on a clean wire. On a faulty wire it keeps only the credit
  // bookkeeping (a credit spent per flit sent, returned LinkLatencyCycles after it is taken).
  model::Link model{0};
  // The scoreboard: (packet, flit) of every flit sent and not yet taken, in order; the first
  // n_arrived of them are in the far buffer as the model counts it (tails counted on arrival).
  struct InFlight {
    size_t pkt;
    int idx;
  };
  std::deque<InFlight> flits;
  size_t n_arrived = 0;
  bool sent_last_cycle = false;
  // receiver cursor and expected statistics
  size_t rx_pkt = 0;
  int rx_idx = 0;
  uint32_t exp_tx_packets = 0, exp_rx_packets = 0;
  // measurements
  std::vector<uint64_t> send_cycle, recv_cycle;  // per flit, in order
  int min_credits = kCredits, max_level = 0;     // stat_tx_credits_o, stat_rx_level_o
  uint64_t flits_total = 0;

  int credits() const { return model.credits(); }
  bool done() const { return rx_pkt == packets.size() && flits.empty(); }
  int tx_credits() const { return near->stat_tx_credits_o; }
};

template <class W>
class LinkBench {
 public:
  using V = typename W::Dut;
  static constexpr uint32_t kBits = W::kBits;

  // `faults` (may be null: a clean wire, checked cycle by cycle against the model's Link).
  explicit LinkBench(kit::Rng& rng, const FaultSpec* faults = nullptr) : rng_(rng), fails_(kFile) {
    faulty_ = faults && faults->any();
    bind(dirs_[0], "A->B", dut_[0], dut_[1]);
    bind(dirs_[1], "B->A", dut_[1], dut_[0]);
    const int wire = static_cast<int>(kLatency - kLinkRegCycles);
    dirs_[0].wire = std::make_unique<rtl::PhyWire>(wire, faults, 0x0100);
    dirs_[1].wire = std::make_unique<rtl::PhyWire>(wire, faults, 0x0001);
    dut_.reset([](V& m) {
      m.clr_i = 0;
      m.tx_valid_i = 0;
      m.rx_ready_i = 0;
    });
  }

  Dir<V>& dir(int i) { return dirs_[i]; }
  uint64_t cycle() const { return dut_.cycle(); }
  int failures() const { return fails_.count(); }
  bool done() const { return dirs_[0].done() && dirs_[1].done(); }

  // Random packets for direction i until it holds at least `flits` flits.
  void add_random_packets(int i, uint64_t flits) {
    Dir<V>& x = dirs_[i];
    while (x.flits_total < flits) {
      x.packets.push_back(random_packet(rng_, kBits));
      x.flits_total += x.packets.back().flits.size();
    }
  }

  // One cycle: check the outputs against the model, drive the inputs, account the handshakes,
  // clock.
  void step() {
    for (Dir<V>& x : dirs_) check_outputs(x);
    for (Dir<V>& x : dirs_) drive_inputs(x);
    dut_.eval();
    for (Dir<V>& x : dirs_) handshakes(x);
    dut_.tick();
  }
  bool faulty() const { return faulty_; }
  V& a() { return dut_[0]; }

  // Steps until both directions have delivered everything; fails after max_cycles.
  void run(uint64_t max_cycles) {
    while (!done() && cycle() < max_cycles && !fails_.too_many()) step();
    if (!done()) fail(dirs_[0], "traffic did not complete within the cycle limit");
    // Credits come home (on a faulty wire, after any last replays and lost control words).
    const int settle = faulty_ ? 2000 : 2 * static_cast<int>(kLatency) + 2;
    for (int i = 0; i < settle; ++i) step();
    for (Dir<V>& x : dirs_) {
      if (x.credits() != kCredits) fail(x, "model credits not back to 32 at the end");
      if (x.tx_credits() != kCredits) fail(x, "the RTL's credits are not back to 32 at the end");
    }
  }

  void fail(const Dir<V>& x, const std::string& what) {
    fails_.fail(cycle(),
                std::string(x.name) + " (FlitBits " + std::to_string(kBits) + "): " + what);
  }

 private:
  static void bind(Dir<V>& x, const char* name, V& near, V& far) {
    x.name = name;
    x.near = &near;
    x.far = &far;
  }

  // The wire of direction x: the word the far end sees now, then the near end's word of this
  // cycle (its output register) onto the wire; checks the transmitted CRC.
  void wire(Dir<V>& x) {
    rtl::PhyWord in = x.wire->deliver();
    x.far->phy_rx_valid_i = in.valid;
    put_phy_flit(x.far->phy_rx_flit_i, in, kBits);
    x.far->phy_rx_ctl_i = in.ctl;
    x.far->phy_rx_crc_i = in.crc;
    rtl::PhyWord out = phy_word(x.near->phy_tx_flit_o, kBits);
    out.valid = x.near->phy_tx_valid_o;
    out.ctl = x.near->phy_tx_ctl_o;
    out.crc = x.near->phy_tx_crc_o;
    if (out.valid && out.crc != out.expected_crc())
      fail(x, "phy_tx_crc_o differs from zlib crc32 of the word");
    x.wire->push(out);
  }

  template <typename T>
  void expect_eq(const Dir<V>& x, const char* what, T seen, T want) {
    if (seen != want) {
      fail(x, std::string(what) + ": expected " + std::to_string(want) + ", seen " +
                  std::to_string(seen));
    }
  }

  // The state of cycle cycle(): every output is a register, so it is checked before the inputs.
  void check_outputs(Dir<V>& x) {
    const uint64_t now = cycle();
    x.model.collect(now, nullptr);  // credits that are back (model/link.hpp step 2)
    const size_t level = x.model.rx_level(now);
    while (x.n_arrived < level) {
      const typename Dir<V>::InFlight& e = x.flits[x.n_arrived++];
      if (e.idx == static_cast<int>(x.packets[e.pkt].flits.size()) - 1) ++x.exp_rx_packets;
    }
    const int rx_level = x.far->stat_rx_level_o;
    x.min_credits = std::min<int>(x.min_credits, x.tx_credits());  // as the RTL shows them
    x.max_level = std::max<int>(x.max_level, rx_level);
    expect_eq<uint32_t>(x, "stat_tx_packets_o", x.near->stat_tx_packets_o, x.exp_tx_packets);
    if (faulty_) return;  // the timing is the retry layer's, not the model's
    expect_eq<int>(x, "stat_tx_credits_o", x.tx_credits(), x.model.credits());
    expect_eq<int>(x, "tx_ready_o", x.near->tx_ready_o, x.model.tx_ready());
    expect_eq<int>(x, "stat_rx_level_o", rx_level, static_cast<int>(level));
    expect_eq<int>(x, "rx_valid_o", x.far->rx_valid_o, x.model.rx_valid(now));
    if (x.model.rx_valid(now) && x.far->rx_valid_o) {
      const typename Dir<V>::InFlight& e = x.flits.front();
      const Flit want = kit::from_model_raw(x.model.rx_front());
      const Flit seen = rx_flit(x);
      if (!(seen == want)) {
        fail(x, "rx_flit_o of packet " + std::to_string(e.pkt) + " flit " + std::to_string(e.idx) +
                    ": expected " + describe(want) + ", seen " + describe(seen));
      }
    }
    expect_eq<uint32_t>(x, "stat_rx_packets_o", x.far->stat_rx_packets_o, x.exp_rx_packets);
    expect_eq<uint32_t>(x, "stat_crc_errors_o", x.far->stat_crc_errors_o, 0);
    expect_eq<uint32_t>(x, "stat_replays_o", x.near->stat_replays_o, 0);
  }

  Flit rx_flit(const Dir<V>& x) const { return kit::get_flit(x.far->rx_flit_o, 0, kBits); }

  void drive_inputs(Dir<V>& x) {
    // Transmitter: valid and flit hold until accepted; idle insertion only between offers.
    if (x.tx.empty() && x.tx_pkt < x.packets.size()) x.tx.push(x.packets[x.tx_pkt].flits[x.tx_idx]);
    x.near->tx_valid_i = x.tx.offer(rng_);
    kit::put_flit(x.near->tx_flit_i, 0,
                  x.near->tx_valid_i ? x.tx.flit() : kit::junk_flit(rng_, kBits), kBits);
    // Receiver: random stalls and stall bursts.
    x.far->rx_ready_i = x.rx.ready(rng_);
    wire(x);
  }

  void handshakes(Dir<V>& x) {
    const uint64_t now = cycle();
    x.sent_last_cycle = false;
    if (x.near->tx_valid_i && x.near->tx_ready_o) {
      if (!x.model.tx_ready()) fail(x, "flit accepted with no credit (credit underflow)");
      const Packet& p = x.packets[x.tx_pkt];
      x.model.send(now, kit::to_model_raw(p.flits[x.tx_idx]));
      x.flits.push_back({x.tx_pkt, x.tx_idx});
      x.send_cycle.push_back(now);
      x.sent_last_cycle = true;
      x.tx.take();
      if (++x.tx_idx == static_cast<int>(p.flits.size())) {
        ++x.exp_tx_packets;
        x.tx_idx = 0;
        ++x.tx_pkt;
      }
    }
    if (x.far->rx_valid_o && x.far->rx_ready_i) {
      // On a faulty wire the retry layer's timing is not the model's: any flit in flight may be
      // taken.
      if (faulty_ ? x.flits.empty() : !x.model.rx_valid(now)) {
        fail(x, "rx_valid_o high with nothing in the model's buffer");
        return;
      }
      const typename Dir<V>::InFlight e = x.flits.front();
      if (e.pkt != x.rx_pkt || e.idx != x.rx_idx) fail(x, "receiver order bookkeeping");
      const Flit& want = x.packets[e.pkt].flits[e.idx];
      if (!(rx_flit(x) == want))
        fail(x, "flit taken (packet " + std::to_string(e.pkt) + " flit " + std::to_string(e.idx) +
                    ") differs from the flit sent: expected " + describe(want) + ", seen " +
                    describe(rx_flit(x)));
      x.flits.pop_front();
      if (x.n_arrived > 0) --x.n_arrived;
      x.model.rx_pop(now);  // the credit returns LinkLatencyCycles later
      x.recv_cycle.push_back(now);
      if (++x.rx_idx == static_cast<int>(x.packets[x.rx_pkt].flits.size())) {
        x.rx_idx = 0;
        ++x.rx_pkt;
      }
    }
  }

  kit::Rng& rng_;
  kit::Dut<V> dut_{"a", "b"};
  kit::Failures fails_;
  bool faulty_ = false;
  std::array<Dir<V>, 2> dirs_;
};

template <class W>
void report(LinkBench<W>& b) {
  for (int i = 0; i < 2; ++i) {
    const auto& x = b.dir(i);
    std::printf("[   INFO   ] %s %s: %zu packets, %" PRIu64
                " flits, crc errors %u, replays %u, discards %u, timeouts %u, min credits %d, max "
                "buffer level %d\n",
                test_name().c_str(), x.name, x.packets.size(), x.flits_total,
                static_cast<unsigned>(x.far->stat_crc_errors_o),
                static_cast<unsigned>(x.near->stat_replays_o),
                static_cast<unsigned>(x.far->stat_discards_o),
                static_cast<unsigned>(x.near->stat_timeouts_o), x.min_credits, x.max_level);
  }
  std::printf("[   INFO   ] %s: FlitBits %u, %" PRIu64 " cycles, %d failures\n",
              test_name().c_str(), W::kBits, b.cycle(), b.failures());
}

// Flits per direction of the long random runs: fewer at the narrow widths (their packets are
// longer in flits, the flit handling the same).
uint64_t traffic_flits(uint32_t bits, uint64_t at128) { return bits == 128 ? at128 : at128 / 2; }

// ---- Random traffic, stall x idle sweep ------------------------------------------------------

constexpr std::array<double, 4> kStalls = {0.0, 0.3, 0.6, 0.9};
constexpr std::array<double, 3> kIdles = {0.0, 0.3, 0.7};

class RtlLinkSweep : public ::testing::TestWithParam<std::tuple<uint32_t, int, int>> {};

TEST_P(RtlLinkSweep, RandomTraffic) {
  kit::Rng rng = kFile.rng();
  const int s = std::get<1>(GetParam()), i = std::get<2>(GetParam());
  with_width(std::get<0>(GetParam()), [&](auto w) {
    using W = decltype(w);
    LinkBench<W> b(rng);
    b.dir(0).set(Knobs{kIdles[i], kStalls[s], 0.003});
    b.dir(1).set(Knobs{kIdles[(i + 1) % kIdles.size()], kStalls[(s + 2) % kStalls.size()], 0.003});
    // About 16000 flits each way at 128 bits: at 90% stall that is ~160k cycles (about 1 s).
    b.add_random_packets(0, traffic_flits(W::kBits, 16000));
    b.add_random_packets(1, traffic_flits(W::kBits, 16000));
    b.run(1000000);
    report(b);
    EXPECT_EQ(b.failures(), 0);
    for (int d = 0; d < 2; ++d) EXPECT_LE(b.dir(d).max_level, kCredits);
  });
}

INSTANTIATE_TEST_SUITE_P(
    StallByIdle, RtlLinkSweep,
    ::testing::Combine(::testing::ValuesIn(kit::kFlitWidths), ::testing::Range(0, 4),
                       ::testing::Range(0, 3)),
    [](const ::testing::TestParamInfo<std::tuple<uint32_t, int, int>>& info) {
      return "stall" + std::to_string(static_cast<int>(kStalls[std::get<1>(info.param)] * 100)) +
             "_idle" + std::to_string(static_cast<int>(kIdles[std::get<2>(info.param)] * 100)) +
             "_w" + std::to_string(std::get<0>(info.param));
    });

// ---- Faults: retry hides them -----------------------------------------------------------------

struct FaultCase {
  const char* name;
  const char* spec;
  bool expect_escalation;
};
const FaultCase kFaultCases[] = {
    {"wer1e2", "wer=1e-2", false},
    {"ber1e4", "ber=1e-4", false},
    {"drop1e2", "drop=1e-2", false},
    {"stall10", "stall=0.1", false},
    {"down", "down=1e-3,downlen=300", false},
    {"all", "ber=2e-5,wer=3e-3,drop=3e-3,stall=0.05,down=2e-4,downlen=200", false},
    {"outage", "down=2e-4,downlen=3000", true},
};

class RtlLinkFaults : public ::testing::TestWithParam<std::tuple<uint32_t, int>> {};

TEST_P(RtlLinkFaults, DeliversEveryFlitOnceInOrder) {
  const FaultCase& fc = kFaultCases[std::get<1>(GetParam())];
  kit::Rng rng = kFile.rng();
  FaultSpec f = parse_faults(fc.spec);
  f.seed = kFile.seed();
  std::printf("[   INFO   ] %s faults %s\n", test_name().c_str(), f.str().c_str());
  with_width(std::get<0>(GetParam()), [&](auto w) {
    using W = decltype(w);
    LinkBench<W> b(rng, &f);
    b.dir(0).set(Knobs{0.2, 0.3, 0.002});
    b.dir(1).set(Knobs{0.0, 0.1, 0.002});
    b.add_random_packets(0, traffic_flits(W::kBits, 12000));
    b.add_random_packets(1, traffic_flits(W::kBits, 12000));
    b.run(4000000);
    report(b);
    EXPECT_EQ(b.failures(), 0);
    for (int d = 0; d < 2; ++d) {
      const auto& x = b.dir(d);
      const FaultCounts& c = *x.wire->counts();
      std::printf("[   INFO   ] %s %s wire: %" PRIu64 " words, %" PRIu64 " corrupted, %" PRIu64
                  " dropped, %" PRIu64 " stall cycles, %" PRIu64 " down cycles\n",
                  test_name().c_str(), x.name, c.words, c.flipped_words, c.dropped, c.stall_cycles,
                  c.down_cycles);
      EXPECT_EQ(x.rx_pkt, x.packets.size()) << x.name << ": every packet delivered";
      // Every corrupted word is caught by the CRC (the counter saturates at 0xFFFF).
      EXPECT_EQ(x.far->stat_crc_errors_o, std::min<uint64_t>(c.flipped_words, 0xFFFF)) << x.name;
      if (c.flipped_words + c.dropped + c.down_cycles > 50) {
        EXPECT_GT(x.near->stat_replays_o, 0u) << x.name << ": faults but no replay";
      }
    }
    const bool escalated = b.a().stat_escalated_o;
    if (fc.expect_escalation) {
      EXPECT_TRUE(escalated) << "a 3000-cycle outage must escalate";
      // Control bit 1 (clr_i) clears it; the link is healthy again.
      b.a().clr_i = 1;
      b.step();
      b.a().clr_i = 0;
      b.step();
      EXPECT_FALSE(b.a().stat_escalated_o);
    }
  });
}

INSTANTIATE_TEST_SUITE_P(
    Kinds, RtlLinkFaults,
    ::testing::Combine(::testing::ValuesIn(kit::kFlitWidths),
                       ::testing::Range(0, static_cast<int>(std::size(kFaultCases)))),
    [](const ::testing::TestParamInfo<std::tuple<uint32_t, int>>& info) {
      return std::string(kFaultCases[std::get<1>(info.param)].name) + "_w" +
             std::to_string(std::get<0>(info.param));
    });

// ---- CRC ---------------------------------------------------------------------------------------

class Crc : public ::testing::TestWithParam<uint32_t> {};

// Every error of 1, 2 or 3 bits in a link word (FlitBits + 40 CRC'd bits, six of them the zero
// bits beside head and tail that are not on the wire, plus the 32-bit CRC) is detected: at 128
// bits 194 + 18721 + 1198144 patterns (docs/reliability.md section 2).
TEST_P(Crc, DetectsEveryErrorOfUpToThreeBits) {
  const uint32_t bits = GetParam();
  kit::Rng rng = kFile.rng();
  rtl::PhyWord w;
  w.flit_bits = bits;
  for (uint32_t i = 0; i < bits / 32; ++i) w.flit[i] = static_cast<uint32_t>(rng());
  w.flit[bits / 32] = static_cast<uint32_t>(rng()) & 3u;
  w.ctl = static_cast<uint32_t>(rng()) & 0x1FFFFFFFu;
  w.crc = w.expected_crc();
  // The CRC is linear: the syndrome of an error pattern is the XOR of the single-bit syndromes
  // (the check fails exactly when the syndrome is non-zero). Bit numbers: data, head/tail, the
  // six zero bits (skipped), ctl, crc.
  const uint32_t crc_bits = bits + 40, all = crc_bits + 32, pad_lo = bits + 2, pad_hi = bits + 8;
  std::vector<uint32_t> syn(all);
  for (uint32_t b = 0; b < all; ++b) {
    rtl::PhyWord e = w;
    if (b < crc_bits) {
      if (b < pad_lo)
        e.flit[b / 32] ^= 1u << (b % 32);
      else if (b < pad_hi)
        continue;  // the six zero bits beside head and tail: not on the wire
      else
        e.ctl ^= 1u << (b - pad_hi);
    } else {
      e.crc ^= 1u << (b - crc_bits);
    }
    syn[b] = e.crc ^ e.expected_crc();
  }
  auto pad = [&](uint32_t b) { return b >= pad_lo && b < pad_hi; };
  uint64_t patterns = 0, missed = 0;
  for (uint32_t i = 0; i < all; ++i) {
    if (pad(i)) continue;
    ++patterns;
    missed += syn[i] == 0;
    for (uint32_t j = i + 1; j < all; ++j) {
      if (pad(j)) continue;
      ++patterns;
      missed += (syn[i] ^ syn[j]) == 0;
      for (uint32_t k = j + 1; k < all; ++k) {
        if (pad(k)) continue;
        ++patterns;
        missed += (syn[i] ^ syn[j] ^ syn[k]) == 0;
      }
    }
  }
  std::printf("[   INFO   ] FlitBits %u: %" PRIu64 " error patterns of 1-3 bits, %" PRIu64
              " undetected\n",
              bits, patterns, missed);
  EXPECT_EQ(missed, 0u);
  const uint64_t n = all - 6;  // 194 at 128 bits
  EXPECT_EQ(n, w.bits());
  EXPECT_EQ(patterns, n + n * (n - 1) / 2 + n * (n - 1) * (n - 2) / 6);
}

INSTANTIATE_TEST_SUITE_P(Widths, Crc, ::testing::ValuesIn(kit::kFlitWidths),
                         [](const ::testing::TestParamInfo<uint32_t>& info) {
                           return "w" + std::to_string(info.param);
                         });

TEST(RtlLink, CrcKnownAnswer) {
  const char* check = "123456789";
  EXPECT_EQ(crc32_update(0, reinterpret_cast<const uint8_t*>(check), 9), 0xCBF43926u);
  // docs/packets.md section 4's example header as a header-only packet (docs/exchange.md,
  // "RTL: xf_link" quotes this CRC).
  Flit h;
  h.head = h.tail = true;
  h.w = {0xC0120011u, 0x18400000u, 0x290000C0u, 0x00000000u};
  EXPECT_EQ(packet_crc({h}), 0x011A45ACu);  // Python: zlib.crc32(bytes.fromhex("1100..."))
  // A link word's CRC: the FlitBits / 8 data bytes, {head, tail}, ctl (docs/reliability.md
  // section 2): 21 bytes at 128 bits, 13 at 64, 9 at 32 (the head flit of that header).
  for (uint32_t bits : kit::kFlitWidths) {
    rtl::PhyWord w;
    w.flit_bits = bits;
    for (uint32_t i = 0; i < bits / 32; ++i) w.flit[i] = h.w[i];
    w.flit[bits / 32] = 3u;
    w.ctl = 0x10000005u;  // fv, seq 5
    uint8_t bytes[21];
    const uint32_t n = bits / 8;
    std::memcpy(bytes, h.w.data(), n);
    bytes[n] = 3;
    const uint8_t ctl[4] = {5, 0, 0, 0x10};
    std::memcpy(bytes + n + 1, ctl, 4);
    EXPECT_EQ(w.expected_crc(), crc32_update(0, bytes, n + 5)) << "FlitBits " << bits;
  }
}

// ---- Latency, throughput, buffer ---------------------------------------------------------------

template <class W>
class RtlLink : public ::testing::Test {};
TYPED_TEST_SUITE(RtlLink, Widths, kit::WidthName);

TYPED_TEST(RtlLink, LatencyAndCreditReturn) {
  using W = TypeParam;
  kit::Rng rng = kFile.rng();
  LinkBench<W> b(rng);
  Packet p;
  p.flits.resize(1);
  p.flits[0].head = p.flits[0].tail = true;
  p.flits[0].w = {0x11u, 0x22u, 0x33u, 0x44u};
  p.flits[0].clip(W::kBits);
  for (int d = 0; d < 2; ++d) b.dir(d).packets.push_back(p);
  std::vector<int> credits;  // A's credit count per cycle
  while (!b.done() || b.cycle() < 40) {
    credits.push_back(b.dir(0).tx_credits());  // stat_tx_credits_o in this cycle
    b.step();
  }
  for (int d = 0; d < 2; ++d) {
    const auto& x = b.dir(d);
    ASSERT_EQ(x.send_cycle.size(), 1u);
    ASSERT_EQ(x.recv_cycle.size(), 1u);
    EXPECT_EQ(x.recv_cycle[0] - x.send_cycle[0], kLatency) << x.name;
  }
  // A sends in cycle t, B takes it in t + 8, the credit pays again from t + 16: 31 in between.
  const uint64_t t = b.dir(0).send_cycle[0];
  const uint64_t s = b.dir(0).recv_cycle[0];
  for (uint64_t c = 0; c < credits.size(); ++c) {
    const int want = (c <= t || c >= s + kLatency) ? kCredits : kCredits - 1;
    EXPECT_EQ(credits[c], want) << "cycle " << c;
  }
  EXPECT_EQ(b.failures(), 0);  // and the RTL's credit count equalled the model's every cycle
}

TYPED_TEST(RtlLink, FullRateStream) {
  using W = TypeParam;
  kit::Rng rng = kFile.rng();
  LinkBench<W> b(rng);
  b.add_random_packets(0, 4000);
  b.add_random_packets(1, 4000);
  b.run(20000);
  report(b);
  EXPECT_EQ(b.failures(), 0);
  for (int d = 0; d < 2; ++d) {
    const auto& x = b.dir(d);
    const uint64_t n = x.flits_total;
    ASSERT_EQ(x.send_cycle.size(), n);
    ASSERT_EQ(x.recv_cycle.size(), n);
    // N flits sent in N consecutive cycles, received in N + LinkLatencyCycles.
    EXPECT_EQ(x.send_cycle.back() - x.send_cycle.front() + 1, n) << x.name;
    EXPECT_EQ(x.recv_cycle.back() - x.send_cycle.front() + 1, n + kLatency) << x.name;
    for (uint64_t k = 0; k < n; ++k) {
      ASSERT_EQ(x.recv_cycle[k], x.send_cycle[k] + kLatency) << x.name << " flit " << k;
    }
    // The credit loop is 2 x 8 cycles: the count after each cycle's send settles at 32 - 16
    // (docs/exchange.md section 8); the register, before the send, at 17.
    EXPECT_EQ(x.min_credits, kCredits - 2 * static_cast<int>(kLatency) + 1) << x.name;
  }
}

TYPED_TEST(RtlLink, BufferFillsToExactlyRxBufferFlits) {
  using W = TypeParam;
  kit::Rng rng = kFile.rng();
  LinkBench<W> b(rng);
  b.add_random_packets(0, 200);
  b.dir(0).rx.force_stall = true;  // B's exchange takes nothing
  for (int c = 0; c < 100; ++c) b.step();
  EXPECT_EQ(b.dir(0).send_cycle.size(), static_cast<size_t>(kCredits));
  EXPECT_EQ(b.dir(0).max_level, kCredits);
  EXPECT_EQ(b.dir(0).credits(), 0);
  b.dir(0).rx.force_stall = false;
  b.run(20000);
  report(b);
  EXPECT_EQ(b.failures(), 0);
}

// One endpoint alone, out of reset with nothing offered and its PHY input silent.
template <class V>
void reset_alone(kit::Dut<V>& dut) {
  dut.reset([](V& m) {
    m.clr_i = 0;
    m.tx_valid_i = 0;
    m.rx_ready_i = 0;
    m.phy_rx_valid_i = 0;
  });
}

// tx_ready_o (rtl/xf_link.sv): high while credits remain, no replay runs and the replay buffer
// has a free entry (fewer than LinkReplayFlits unacknowledged). One endpoint, the test playing
// the far end: 20 flits go out and come back acknowledged with their credits (one idle word,
// ack 20, credits 20), then the transmitter is offered flits every cycle and must take exactly
// its 32 credits' worth in 32 consecutive cycles (unacknowledged 1..32, the replay buffer never
// full before the last) before tx_ready_o falls for want of credits.
TYPED_TEST(RtlLink, ReadyWhileCreditsAndReplayEntriesRemain) {
  using W = TypeParam;
  using V = typename W::Dut;
  kit::Rng rng = kFile.rng();
  kit::Dut<V> dut;
  reset_alone(dut);
  uint32_t seq = 0;
  auto offer = [&](bool valid) {
    Flit f;
    f.head = f.tail = true;
    for (auto& w : f.w) w = static_cast<uint32_t>(rng());
    f.clip(W::kBits);
    kit::put_flit(dut->tx_flit_i, 0, f, W::kBits);
    dut->tx_valid_i = valid;
    dut->eval();
    const bool taken = valid && dut->tx_ready_o;
    dut.tick();
    if (taken) ++seq;
    return taken;
  };
  for (int i = 0; i < 20; ++i) ASSERT_TRUE(offer(true)) << "flit " << i;
  // The far end's idle word: flits 0..19 accepted (ack 20) and taken (20 credits returned).
  rtl::PhyWord w;
  w.flit_bits = W::kBits;
  w.valid = true;
  w.ctl = (20u << linkctl::kAckLsb) | (20u << linkctl::kCreditsLsb);
  w.crc = w.expected_crc();
  put_phy_flit(dut->phy_rx_flit_i, w, W::kBits);
  dut->phy_rx_ctl_i = w.ctl;
  dut->phy_rx_crc_i = w.crc;
  dut->phy_rx_valid_i = 1;
  offer(false);
  dut->phy_rx_valid_i = 0;
  for (int i = 0; i < 4; ++i) offer(false);
  ASSERT_EQ(dut->stat_tx_credits_o, static_cast<uint32_t>(kCredits)) << "credits back";
  ASSERT_EQ(dut->stat_crc_errors_o, 0u);
  for (int i = 0; i < kCredits; ++i)
    ASSERT_TRUE(offer(true)) << "tx_ready_o low with " << kCredits - i << " credits and " << i
                             << " flits unacknowledged (sequence number " << seq << ")";
  EXPECT_FALSE(offer(true)) << "a flit taken without a credit";
  EXPECT_EQ(dut->stat_tx_credits_o, 0u);
}

// The replay timer (rtl/xf_link.sv, docs/reliability.md): a flit sent to a far end that never
// answers (no word arrives) is replayed every LinkReplayTimeoutCycles cycles without ack
// progress, each expiry counted in stat_timeouts_o, and the replayed word carries the flit's
// sequence number again. One endpoint alone, its PHY input silent.
TYPED_TEST(RtlLink, TimeoutReplaysAfterReplayTimeoutCycles) {
  using W = TypeParam;
  using V = typename W::Dut;
  kit::Dut<V> dut;
  reset_alone(dut);
  Flit f;
  f.head = f.tail = true;
  f.w = {0x1234u, 0x5678u, 0x9ABCu, 0xDEF0u};
  f.clip(W::kBits);
  kit::put_flit(dut->tx_flit_i, 0, f, W::kBits);
  dut->tx_valid_i = 1;
  dut->eval();
  ASSERT_TRUE(dut->tx_ready_o);
  const uint64_t sent = dut.cycle();
  dut.tick();
  dut->tx_valid_i = 0;
  std::vector<uint64_t> expiries, replays;  // cycles
  uint32_t timeouts = 0;
  for (int c = 0; c < 4 * static_cast<int>(kLinkReplayTimeoutCycles) + 20; ++c) {
    dut->eval();
    if (dut->stat_timeouts_o != timeouts) {
      timeouts = dut->stat_timeouts_o;
      expiries.push_back(dut.cycle());
    }
    const uint32_t ctl = dut->phy_tx_ctl_o;
    if (dut.cycle() > sent + 2 && ((ctl >> linkctl::kFvLsb) & 1)) {  // the send is on in sent + 2
      EXPECT_EQ((ctl >> linkctl::kSeqLsb) & 0xFF, 0u) << "cycle " << dut.cycle();
      replays.push_back(dut.cycle());
    }
    dut.tick();
  }
  ASSERT_EQ(expiries.size(), 4u) << "replay timer expiries in " << 4 * kLinkReplayTimeoutCycles + 20
                                 << " cycles";
  ASSERT_EQ(replays.size(), 4u) << "replayed words";
  // The first expiry LinkReplayTimeoutCycles after the send (+ the output register), the others
  // that long after the previous replay left xf_link; each replay leaves xf_link in the cycle
  // after its expiry and is on the wire one cycle later (xf_link_phy's transmit CRC stage).
  const uint64_t t = kLinkReplayTimeoutCycles, crc_stage = 1;
  EXPECT_GE(expiries[0] - sent, t);
  EXPECT_LE(expiries[0] - sent, t + 2);
  for (size_t k = 0; k < expiries.size(); ++k) {
    const uint64_t left = replays[k] - crc_stage;  // in xf_link's output register
    if (k > 0) {
      const uint64_t prev = replays[k - 1] - crc_stage;
      EXPECT_GE(expiries[k] - prev, t) << "expiry " << k;
      EXPECT_LE(expiries[k] - prev, t + 2) << "expiry " << k;
    }
    EXPECT_LE(left - expiries[k], 1u) << "replay " << k;
  }
}

}  // namespace
}  // namespace xf
