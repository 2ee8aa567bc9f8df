// RTL_TOP: xf_link_pair_tb
// RTL_SRCS: rtl/xf_defs_pkg.sv rtl/xf_delay.sv rtl/xf_crc32.sv rtl/xf_link.sv
// RTL_SRCS: tests/xf_link_pair_tb.sv
// Block test of the RTL link (rtl/xf_link.sv): two endpoints A and B joined by two PHY wires of
// LinkLatencyCycles - 3 = 5 cycles (tests/xf_link_pair_tb.sv), traffic in both directions at
// once, checked cycle by cycle against a C++ copy of the model's `Channel` (model/chip.*): a flit
// accepted by a transmitter in cycle t is at the far buffer's output from cycle t + 8, a flit
// taken from a buffer in cycle s returns its credit to the far transmitter for use in cycle
// s + 8, credits start at LinkRxBufferFlits = 32.
//
// Checked in every cycle, for both directions: tx_ready_o == (credits > 0) and the credit count
// (stat_tx_credits_o) equal to the model's, so no credit is lost, invented or spent below zero;
// rx_valid_o, rx_flit_o and the buffer level (stat_rx_level_o) equal to the model's, so the
// latency is exactly 8 and the buffer never holds more than 32; every flit taken equals the next
// flit sent (packets intact and in order, corrupted bits exactly where the test flipped them);
// stat_tx_packets_o, stat_rx_packets_o, stat_crc_errors_o and stat_crc_err_o equal to the counts
// of tails sent, tails arrived and corrupted tails arrived; the CRC on the wire with every tail
// equals zlib's crc32() of the packet's bytes. The RTL's own assertions (buffer overflow, credit
// range, valid/ready, framing) run under Verilator --assert and stop the test on a failure.
//
// Space covered:
//  - RandomTraffic (parameterised): receiver stall probability {0, 30, 60, 90}% crossed with
//    transmitter idle probability {0, 30, 70}%, 16000 flits each way, the B->A direction with a
//    different pair than A->B; on top, random stall and idle bursts of 20..80 cycles (the buffer
//    fills to 32 and the transmitter runs out of credits). Packets of 1..129 flits (1, 2 and 129
//    weighted up), random header bits 106:0 and payloads; the data bits of idle inputs are random.
//  - CrcErrorsCountExactlyTheCorruptedPackets: 30000 flits each way, 30% of the packets get one bit
//    flipped on the wire, in a data bit of a random flit or in the CRC sideband of the tail.
//  - LatencyAndCreditReturn: one header-only packet: arrives exactly 8 cycles after it is sent,
//    its credit is back exactly 8 cycles after it is taken.
//  - FullRateStream: 4000 flits back to back each way with no stalls: sent in 4000 consecutive
//    cycles, received in 4000 + 8 cycles, the credit count settling at 32 - 16 = 16.
//  - BufferFillsToExactlyRxBufferFlits: the receiver stops; the transmitter sends exactly 32
//    flits, then tx_ready_o stays low until the receiver resumes.
//  - CrcKnownAnswer: the C++ CRC gives zlib's check value; the doc's example packet's CRC.
//
// Inputs change half a period away from the rising edge. Random data: std::mt19937_64 seeded
// with a fixed default that XF_SEED (decimal or 0x-hex) overrides; each test prints its seed. On
// a mismatch the test prints the cycle, the direction, expected and seen, and the command that
// reproduces it.
#include <gtest/gtest.h>
#include <verilated.h>

#include <algorithm>
#include <array>
#include <cinttypes>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <deque>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "Vxf_link_pair_tb.h"
#include "rtl_test_util.hpp"
#include "xf/defs.hpp"

namespace xf {
namespace {

constexpr uint64_t kLatency = kLinkLatencyCycles;  // flit and credit latency, each way
constexpr int kCredits = kLinkRxBufferFlits;       // receive buffer depth, initial credits
constexpr uint64_t kDefaultSeed = 0x11Bu;
constexpr int kMaxReportedFailures = 10;
constexpr int kMaxPacketFlits = 1 + kMaxPacketPayloadBytes / kFlitBytes;  // 129

uint64_t base_seed() { return rtltest::base_seed(kDefaultSeed); }
std::mt19937_64 make_rng() { return rtltest::make_rng(kDefaultSeed); }
using rtltest::test_name;

// CRC-32 as zlib's crc32() (reflected 0xEDB88320, all-ones initial and final value), the same
// as model/chip.cpp crc32_update.
uint32_t crc32_update(uint32_t crc, const uint8_t* p, size_t n) {
  crc = ~crc;
  for (size_t i = 0; i < n; ++i) {
    crc ^= p[i];
    for (int k = 0; k < 8; ++k) crc = (crc >> 1) ^ (0xEDB88320u & (0u - (crc & 1u)));
  }
  return ~crc;
}

struct Flit {
  bool head = false, tail = false;
  std::array<uint32_t, 4> data{};  // little-endian words: byte i is bits 8i+7:8i
  bool operator==(const Flit& o) const {
    return head == o.head && tail == o.tail && data == o.data;
  }
};

std::string to_string(const Flit& f) {
  char buf[80];
  std::snprintf(buf, sizeof buf, "{head %d tail %d data 0x%08x_%08x_%08x_%08x}", f.head, f.tail,
                f.data[3], f.data[2], f.data[1], f.data[0]);
  return buf;
}

uint32_t packet_crc(const std::vector<Flit>& pkt) {
  uint32_t crc = 0;
  for (const Flit& f : pkt) {
    uint8_t bytes[16];
    for (int i = 0; i < 16; ++i) bytes[i] = static_cast<uint8_t>(f.data[i / 4] >> (8 * (i % 4)));
    crc = crc32_update(crc, bytes, 16);
  }
  return crc;
}

// A packet and the bit the wire flips in it (none when flip_flit < 0): data bit flip_bit of
// flit flip_flit for flip_bit < 128, CRC sideband bit flip_bit - 128 of the tail otherwise.
struct Packet {
  std::vector<Flit> flits;
  int flip_flit = -1, flip_bit = 0;
};

// What the far receiver must deliver: the packet with its data flip applied.
Flit expected_flit(const Packet& p, int idx) {
  Flit f = p.flits[idx];
  if (idx == p.flip_flit && p.flip_bit < 128) f.data[p.flip_bit / 32] ^= 1u << (p.flip_bit % 32);
  return f;
}

// Random traffic parameters of one direction (probabilities per cycle).
struct Knobs {
  double tx_idle = 0;   // the transmitter offers no flit in a cycle it could
  double rx_stall = 0;  // the receiver's exchange is not ready
  double burst = 0;     // a stall or idle burst of 20..80 cycles starts (each side)
  double flip = 0;      // a packet gets one bit flipped on the wire
};

Packet random_packet(std::mt19937_64& rng, double flip) {
  std::uniform_real_distribution<double> u(0, 1);
  const double r = u(rng);
  int n;
  if (r < 0.15) {
    n = 1;
  } else if (r < 0.25) {
    n = 2;
  } else if (r < 0.4) {
    n = kMaxPacketFlits;
  } else {
    n = std::uniform_int_distribution<int>(1, kMaxPacketFlits)(rng);
  }
  Packet p;
  p.flits.resize(n);
  for (int i = 0; i < n; ++i) {
    Flit& f = p.flits[i];
    f.head = (i == 0);
    f.tail = (i == n - 1);
    for (auto& w : f.data) w = static_cast<uint32_t>(rng());
  }
  // Header: bits 106:0 random (every field), reserved bits 127:107 zero (docs/packets.md).
  p.flits[0].data[3] &= (1u << (106 - 96 + 1)) - 1;
  if (u(rng) < flip) {
    p.flip_flit = std::uniform_int_distribution<int>(0, n - 1)(rng);
    const int bits = p.flip_flit == n - 1 ? 160 : 128;
    p.flip_bit = std::uniform_int_distribution<int>(0, bits - 1)(rng);
  }
  return p;
}

// One direction of the pair: the Verilated ports of the transmitting and the receiving link,
// and the model's expectation.
struct Dir {
  const char* name = nullptr;
  // transmitter (near link) and receiver (far link) ports
  CData* tx_valid = nullptr;
  CData* tx_ready = nullptr;
  VlWide<5>* tx_flit = nullptr;
  CData* tx_credits = nullptr;
  IData* tx_packets = nullptr;
  CData* rx_valid = nullptr;
  CData* rx_ready = nullptr;
  VlWide<5>* rx_flit = nullptr;
  CData* rx_level = nullptr;
  IData* rx_packets = nullptr;
  SData* crc_errors = nullptr;
  CData* crc_err = nullptr;
  VlWide<4>* flip_data = nullptr;
  IData* flip_crc = nullptr;
  CData* wire_valid = nullptr;
  IData* wire_crc = nullptr;

  Knobs knobs;
  std::vector<Packet> packets;  // everything this direction will send, in order
  // transmitter cursor
  size_t tx_pkt = 0;
  int tx_idx = 0;
  bool offering = false;
  int idle_burst = 0, stall_burst = 0;
  // the model's Channel: flits sent (visible at the far buffer from `visible`), credits
  struct InFlight {
    uint64_t visible;
    size_t pkt;
    int idx;
  };
  std::deque<InFlight> flits;
  size_t n_visible = 0;           // the first n_visible entries of flits are in the far buffer
  std::deque<uint64_t> credit_q;  // cycles from which returned credits can be spent
  int credits = kCredits;
  bool sent_last_cycle = false;
  // receiver cursor and expected statistics
  size_t rx_pkt = 0;
  int rx_idx = 0;
  uint32_t exp_tx_packets = 0, exp_rx_packets = 0, exp_crc_errors = 0;
  // measurements
  std::vector<uint64_t> send_cycle, recv_cycle;  // per flit, in order
  int min_credits = kCredits, max_level = 0;     // stat_tx_credits_o, stat_rx_level_o
  uint64_t flits_total = 0;

  bool done() const { return rx_pkt == packets.size() && flits.empty(); }
};

void put_flit(VlWide<5>* w, const Flit& f) {
  for (int i = 0; i < 4; ++i) (*w)[i] = f.data[i];
  (*w)[4] = (f.head ? 2u : 0u) | (f.tail ? 1u : 0u);
}

Flit get_flit(const VlWide<5>* w) {
  Flit f;
  for (int i = 0; i < 4; ++i) f.data[i] = (*w)[i];
  f.head = ((*w)[4] >> 1) & 1u;
  f.tail = (*w)[4] & 1u;
  return f;
}

class LinkBench {
 public:
  explicit LinkBench(std::mt19937_64& rng) : rng_(rng) {
    ctx_ = std::make_unique<VerilatedContext>();
    ctx_->fatalOnError(true);
    dut_ = std::make_unique<Vxf_link_pair_tb>(ctx_.get(), "dut");
    Vxf_link_pair_tb& d = *dut_;
    bind(dirs_[0], "A->B", &d.a_tx_valid_i, &d.a_tx_ready_o, &d.a_tx_flit_i, &d.a_stat_tx_credits_o,
         &d.a_stat_tx_packets_o);
    bind_rx(dirs_[0], &d.b_rx_valid_o, &d.b_rx_ready_i, &d.b_rx_flit_o, &d.b_stat_rx_level_o,
            &d.b_stat_rx_packets_o, &d.b_stat_crc_errors_o, &d.b_stat_crc_err_o);
    bind_wire(dirs_[0], &d.ab_flip_data_i, &d.ab_flip_crc_i, &d.ab_wire_valid_o, &d.ab_wire_crc_o);
    bind(dirs_[1], "B->A", &d.b_tx_valid_i, &d.b_tx_ready_o, &d.b_tx_flit_i, &d.b_stat_tx_credits_o,
         &d.b_stat_tx_packets_o);
    bind_rx(dirs_[1], &d.a_rx_valid_o, &d.a_rx_ready_i, &d.a_rx_flit_o, &d.a_stat_rx_level_o,
            &d.a_stat_rx_packets_o, &d.a_stat_crc_errors_o, &d.a_stat_crc_err_o);
    bind_wire(dirs_[1], &d.ba_flip_data_i, &d.ba_flip_crc_i, &d.ba_wire_valid_o, &d.ba_wire_crc_o);
    d.clk_i = 0;
    d.rst_ni = 0;
    for (Dir& x : dirs_) {
      *x.tx_valid = 0;
      *x.rx_ready = 0;
    }
    d.eval();
    for (int i = 0; i < 3; ++i) tick();
    d.rst_ni = 1;
    d.eval();
    cycle_ = 0;
  }
  ~LinkBench() { dut_->final(); }

  Dir& dir(int i) { return dirs_[i]; }
  uint64_t cycle() const { return cycle_; }
  int failures() const { return failures_; }
  bool done() const { return dirs_[0].done() && dirs_[1].done(); }

  // Random packets for direction i until it holds at least `flits` flits.
  void add_random_packets(int i, uint64_t flits) {
    Dir& x = dirs_[i];
    while (x.flits_total < flits) {
      x.packets.push_back(random_packet(rng_, x.knobs.flip));
      x.flits_total += x.packets.back().flits.size();
    }
  }

  // One cycle: check the outputs against the model, drive the inputs, account the handshakes,
  // clock.
  void step() {
    for (Dir& x : dirs_) check_outputs(x);
    for (Dir& x : dirs_) drive_inputs(x);
    dut_->eval();
    for (Dir& x : dirs_) handshakes(x);
    tick();
  }

  // Steps until both directions have delivered everything; fails after max_cycles.
  void run(uint64_t max_cycles) {
    while (!done() && cycle_ < max_cycles && failures_ <= kMaxReportedFailures) step();
    if (!done()) fail(dirs_[0], "traffic did not complete within the cycle limit");
    for (int i = 0; i < 2 * static_cast<int>(kLatency) + 2; ++i) step();  // credits come home
    for (Dir& x : dirs_) {
      if (x.credits != kCredits) fail(x, "model credits not back to 32 at the end");
    }
  }

  void fail(const Dir& x, const std::string& what) {
    ++failures_;
    if (failures_ <= kMaxReportedFailures) {
      ADD_FAILURE() << "cycle " << cycle_ << " " << x.name << ": " << what
                    << "\n  reproduce: XF_SEED=" << base_seed()
                    << " build/cmake/test_rtl_link --gtest_filter=" << test_name();
    }
  }

 private:
  static void bind(Dir& x, const char* name, CData* tx_valid, CData* tx_ready, VlWide<5>* tx_flit,
                   CData* tx_credits, IData* tx_packets) {
    x.name = name;
    x.tx_valid = tx_valid;
    x.tx_ready = tx_ready;
    x.tx_flit = tx_flit;
    x.tx_credits = tx_credits;
    x.tx_packets = tx_packets;
  }
  static void bind_rx(Dir& x, CData* rx_valid, CData* rx_ready, VlWide<5>* rx_flit, CData* rx_level,
                      IData* rx_packets, SData* crc_errors, CData* crc_err) {
    x.rx_valid = rx_valid;
    x.rx_ready = rx_ready;
    x.rx_flit = rx_flit;
    x.rx_level = rx_level;
    x.rx_packets = rx_packets;
    x.crc_errors = crc_errors;
    x.crc_err = crc_err;
  }
  static void bind_wire(Dir& x, VlWide<4>* flip_data, IData* flip_crc, CData* wire_valid,
                        IData* wire_crc) {
    x.flip_data = flip_data;
    x.flip_crc = flip_crc;
    x.wire_valid = wire_valid;
    x.wire_crc = wire_crc;
  }

  void tick() {
    ctx_->timeInc(1);
    dut_->clk_i = 1;
    dut_->eval();
    ++cycle_;
    ctx_->timeInc(1);
    dut_->clk_i = 0;
    dut_->eval();
  }

  template <typename T>
  void expect_eq(const Dir& x, const char* what, T seen, T want) {
    if (seen != want) {
      fail(x, std::string(what) + ": expected " + std::to_string(want) + ", seen " +
                  std::to_string(seen));
    }
  }

  // The state of cycle cycle_: every output is a register, so it is checked before the inputs.
  void check_outputs(Dir& x) {
    const uint64_t now = cycle_;
    while (!x.credit_q.empty() && x.credit_q.front() <= now) {  // Node::tick step 1
      ++x.credits;
      x.credit_q.pop_front();
    }
    while (x.n_visible < x.flits.size() && x.flits[x.n_visible].visible <= now) {
      const Dir::InFlight& e = x.flits[x.n_visible++];
      const Packet& p = x.packets[e.pkt];
      if (e.idx == static_cast<int>(p.flits.size()) - 1) {
        ++x.exp_rx_packets;
        if (p.flip_flit >= 0) ++x.exp_crc_errors;
      }
    }
    x.min_credits = std::min<int>(x.min_credits, *x.tx_credits);  // as the RTL shows them
    x.max_level = std::max<int>(x.max_level, *x.rx_level);
    expect_eq<int>(x, "stat_tx_credits_o", *x.tx_credits, x.credits);
    expect_eq<int>(x, "tx_ready_o", *x.tx_ready, x.credits > 0);
    expect_eq<int>(x, "stat_rx_level_o", *x.rx_level, static_cast<int>(x.n_visible));
    expect_eq<int>(x, "rx_valid_o", *x.rx_valid, x.n_visible > 0);
    if (x.n_visible > 0 && *x.rx_valid) {
      const Dir::InFlight& e = x.flits.front();
      const Flit want = expected_flit(x.packets[e.pkt], e.idx);
      const Flit seen = get_flit(x.rx_flit);
      if (!(seen == want)) {
        fail(x, "rx_flit_o of packet " + std::to_string(e.pkt) + " flit " + std::to_string(e.idx) +
                    ": expected " + to_string(want) + ", seen " + to_string(seen));
      }
    }
    expect_eq<uint32_t>(x, "stat_tx_packets_o", *x.tx_packets, x.exp_tx_packets);
    expect_eq<uint32_t>(x, "stat_rx_packets_o", *x.rx_packets, x.exp_rx_packets);
    expect_eq<uint32_t>(x, "stat_crc_errors_o", *x.crc_errors, x.exp_crc_errors);
    expect_eq<int>(x, "stat_crc_err_o", *x.crc_err, x.exp_crc_errors > 0);
    // The PHY word entering the wire now is the flit accepted in the previous cycle.
    expect_eq<int>(x, "phy_tx_valid_o", *x.wire_valid, x.sent_last_cycle);
    if (x.sent_last_cycle) {
      const Dir::InFlight& e = x.flits.back();
      const Packet& p = x.packets[e.pkt];
      if (e.idx == static_cast<int>(p.flits.size()) - 1) {
        expect_eq<uint32_t>(x, "phy_tx_crc_o (tail) vs zlib crc32", *x.wire_crc,
                            packet_crc(p.flits));
      }
    }
  }

  void drive_inputs(Dir& x) {
    std::uniform_real_distribution<double> u(0, 1);
    // Transmitter: valid and flit hold until accepted; idle insertion only between offers.
    if (x.idle_burst > 0) --x.idle_burst;
    if (!x.offering && x.tx_pkt < x.packets.size()) {
      if (x.idle_burst == 0 && u(rng_) < x.knobs.burst) {
        x.idle_burst = std::uniform_int_distribution<int>(20, 80)(rng_);
      }
      x.offering = x.idle_burst == 0 && !(u(rng_) < x.knobs.tx_idle);
    }
    *x.tx_valid = x.offering;
    if (x.offering) {
      put_flit(x.tx_flit, x.packets[x.tx_pkt].flits[x.tx_idx]);
    } else {
      Flit junk;
      junk.head = rng_() & 1;
      junk.tail = rng_() & 1;
      for (auto& w : junk.data) w = static_cast<uint32_t>(rng_());
      put_flit(x.tx_flit, junk);
    }
    // Receiver: random stalls and stall bursts.
    if (x.stall_burst > 0) {
      --x.stall_burst;
    } else if (u(rng_) < x.knobs.burst) {
      x.stall_burst = std::uniform_int_distribution<int>(20, 80)(rng_);
    }
    *x.rx_ready = x.stall_burst == 0 && !(u(rng_) < x.knobs.rx_stall);
    // Wire: flip the chosen bit of the word entering it now.
    for (int i = 0; i < 4; ++i) (*x.flip_data)[i] = 0;
    *x.flip_crc = 0;
    if (x.sent_last_cycle) {
      const Dir::InFlight& e = x.flits.back();
      const Packet& p = x.packets[e.pkt];
      if (e.idx == p.flip_flit) {
        if (p.flip_bit < 128) {
          (*x.flip_data)[p.flip_bit / 32] = 1u << (p.flip_bit % 32);
        } else {
          *x.flip_crc = 1u << (p.flip_bit - 128);
        }
      }
    }
  }

  void handshakes(Dir& x) {
    const uint64_t now = cycle_;
    x.sent_last_cycle = false;
    if (*x.tx_valid && *x.tx_ready) {
      if (x.credits <= 0) fail(x, "flit accepted with no credit (credit underflow)");
      --x.credits;
      const Packet& p = x.packets[x.tx_pkt];
      x.flits.push_back({now + kLatency, x.tx_pkt, x.tx_idx});
      x.send_cycle.push_back(now);
      x.sent_last_cycle = true;
      x.offering = false;
      if (++x.tx_idx == static_cast<int>(p.flits.size())) {
        ++x.exp_tx_packets;
        x.tx_idx = 0;
        ++x.tx_pkt;
      }
    }
    if (*x.rx_valid && *x.rx_ready) {
      if (x.n_visible == 0) {
        fail(x, "rx_valid_o high with nothing in the model's buffer");
        return;
      }
      const Dir::InFlight e = x.flits.front();
      if (e.pkt != x.rx_pkt || e.idx != x.rx_idx) fail(x, "receiver order bookkeeping");
      const Flit want = expected_flit(x.packets[e.pkt], e.idx);
      if (!(get_flit(x.rx_flit) == want)) fail(x, "flit taken differs from the flit sent");
      x.flits.pop_front();
      --x.n_visible;
      x.credit_q.push_back(now + kLatency);  // credit on pop (Node::pop)
      x.recv_cycle.push_back(now);
      if (++x.rx_idx == static_cast<int>(x.packets[x.rx_pkt].flits.size())) {
        x.rx_idx = 0;
        ++x.rx_pkt;
      }
    }
  }

  std::mt19937_64& rng_;
  std::unique_ptr<VerilatedContext> ctx_;
  std::unique_ptr<Vxf_link_pair_tb> dut_;
  std::array<Dir, 2> dirs_;
  uint64_t cycle_ = 0;
  int failures_ = 0;
};

void report(LinkBench& b) {
  for (int i = 0; i < 2; ++i) {
    const Dir& x = b.dir(i);
    std::printf("[   INFO   ] %s %s: %zu packets, %" PRIu64
                " flits, crc errors %u, min credits %d, max buffer level %d\n",
                test_name().c_str(), x.name, x.packets.size(), x.flits_total, x.exp_crc_errors,
                x.min_credits, x.max_level);
  }
  std::printf("[   INFO   ] %s: %" PRIu64 " cycles, %d failures\n", test_name().c_str(), b.cycle(),
              b.failures());
}

// ---- Random traffic, stall x idle sweep ------------------------------------------------------

constexpr std::array<double, 4> kStalls = {0.0, 0.3, 0.6, 0.9};
constexpr std::array<double, 3> kIdles = {0.0, 0.3, 0.7};

class RtlLinkSweep : public ::testing::TestWithParam<std::tuple<int, int>> {};

TEST_P(RtlLinkSweep, RandomTraffic) {
  std::mt19937_64 rng = make_rng();
  const int s = std::get<0>(GetParam()), i = std::get<1>(GetParam());
  LinkBench b(rng);
  b.dir(0).knobs = Knobs{kIdles[i], kStalls[s], 0.003, 0};
  b.dir(1).knobs =
      Knobs{kIdles[(i + 1) % kIdles.size()], kStalls[(s + 2) % kStalls.size()], 0.003, 0};
  // About 16000 flits each way: at 90% stall that is ~160k cycles (about 1 s).
  b.add_random_packets(0, 16000);
  b.add_random_packets(1, 16000);
  b.run(1000000);
  report(b);
  EXPECT_EQ(b.failures(), 0);
  for (int d = 0; d < 2; ++d) {
    EXPECT_EQ(b.dir(d).exp_crc_errors, 0u);
    EXPECT_LE(b.dir(d).max_level, kCredits);
  }
}

INSTANTIATE_TEST_SUITE_P(
    StallByIdle, RtlLinkSweep, ::testing::Combine(::testing::Range(0, 4), ::testing::Range(0, 3)),
    [](const ::testing::TestParamInfo<std::tuple<int, int>>& info) {
      return "stall" + std::to_string(static_cast<int>(kStalls[std::get<0>(info.param)] * 100)) +
             "_idle" + std::to_string(static_cast<int>(kIdles[std::get<1>(info.param)] * 100));
    });

// ---- CRC ---------------------------------------------------------------------------------------

TEST(RtlLink, CrcErrorsCountExactlyTheCorruptedPackets) {
  std::mt19937_64 rng = make_rng();
  LinkBench b(rng);
  b.dir(0).knobs = Knobs{0.2, 0.3, 0.003, 0.3};
  b.dir(1).knobs = Knobs{0.1, 0.5, 0.003, 0.3};
  b.add_random_packets(0, 30000);
  b.add_random_packets(1, 30000);
  b.run(1000000);
  report(b);
  EXPECT_EQ(b.failures(), 0);
  for (int d = 0; d < 2; ++d) {
    uint32_t corrupted = 0, crc_side = 0;
    for (const Packet& p : b.dir(d).packets) {
      corrupted += p.flip_flit >= 0;
      crc_side += p.flip_flit >= 0 && p.flip_bit >= 128;
    }
    EXPECT_GT(corrupted, 10u) << "too few corrupted packets to mean anything";
    EXPECT_GT(crc_side, 0u) << "no flip in the CRC sideband";
    EXPECT_EQ(b.dir(d).exp_crc_errors, corrupted);  // and the RTL equalled it every cycle
  }
}

TEST(RtlLink, CrcKnownAnswer) {
  const char* check = "123456789";
  EXPECT_EQ(crc32_update(0, reinterpret_cast<const uint8_t*>(check), 9), 0xCBF43926u);
  // docs/packets.md section 4's example header as a header-only packet (docs/exchange.md,
  // "RTL: xf_link" quotes this CRC).
  Flit h;
  h.head = h.tail = true;
  h.data = {0x30020011u, 0x06100000u, 0x29000230u, 0x00000000u};
  EXPECT_EQ(packet_crc({h}), 0xC8D43A9Bu);  // Python: zlib.crc32(bytes.fromhex("1100..."))
}

// ---- Latency, throughput, buffer ---------------------------------------------------------------

TEST(RtlLink, LatencyAndCreditReturn) {
  std::mt19937_64 rng = make_rng();
  LinkBench b(rng);
  Packet p;
  p.flits.resize(1);
  p.flits[0].head = p.flits[0].tail = true;
  p.flits[0].data = {0x11u, 0x22u, 0x33u, 0x44u};
  for (int d = 0; d < 2; ++d) b.dir(d).packets.push_back(p);
  std::vector<int> credits;  // A's credit count per cycle
  while (!b.done() || b.cycle() < 40) {
    credits.push_back(*b.dir(0).tx_credits);  // stat_tx_credits_o in this cycle
    b.step();
  }
  for (int d = 0; d < 2; ++d) {
    const Dir& x = b.dir(d);
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

TEST(RtlLink, FullRateStream) {
  std::mt19937_64 rng = make_rng();
  LinkBench b(rng);
  b.add_random_packets(0, 4000);
  b.add_random_packets(1, 4000);
  b.run(20000);
  report(b);
  EXPECT_EQ(b.failures(), 0);
  for (int d = 0; d < 2; ++d) {
    const Dir& x = b.dir(d);
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

TEST(RtlLink, BufferFillsToExactlyRxBufferFlits) {
  std::mt19937_64 rng = make_rng();
  LinkBench b(rng);
  b.add_random_packets(0, 200);
  b.dir(0).knobs.rx_stall = 1.0;  // B's exchange takes nothing
  for (int c = 0; c < 100; ++c) b.step();
  EXPECT_EQ(b.dir(0).send_cycle.size(), static_cast<size_t>(kCredits));
  EXPECT_EQ(b.dir(0).max_level, kCredits);
  EXPECT_EQ(b.dir(0).credits, 0);
  b.dir(0).knobs.rx_stall = 0.0;
  b.run(20000);
  report(b);
  EXPECT_EQ(b.failures(), 0);
}

}  // namespace
}  // namespace xf
