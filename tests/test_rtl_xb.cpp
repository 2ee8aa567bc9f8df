// RTL_TOP: xf_xb
// RTL_TOP: xf_xb Vxf_xb_w32 -GFlitBits=32 -GSyncBuffers=1'b1
// RTL_TOP: xf_xb Vxf_xb_w64 -GFlitBits=64
// RTL_SRCS: rtl/xf_defs_pkg.sv rtl/xf_buf_ram.sv rtl/xf_fifo.sv rtl/xf_xb.sv
// Block test of the RTL exchange block (rtl/xf_xb.sv, Verilated with its defaults: NumTiles =
// 16, QueueFlits = 32, XOFF at 24, XON at 8, at each flit width FlitBits 32, 64 and 128: every
// test runs at the three, names ending in /w32 ... or W32 ...; the thresholds count flits at
// every width, so the budgets and the traces are the same; the 32-bit class keeps its queue in
// the block RAM form, SyncBuffers = 1, rtl/xf_buf_ram.sv, which must not change a cycle) driven
// by C++ models of the tiles that obey the XB protocol of docs/exchange.md section 3 with the real
// latencies: a message the XB sends in cycle t reaches its tile in t + XbCtrlLatencyCycles (2), and
// an XREQ, flit or XDONE the tile emits in cycle t reaches the XB in t + ExchangeLatencyCycles (2);
// one emission per tile and cycle; XDONE after the session's last flit.
//
// Checks, every cycle: the RTL against the model's XB (xf::model::Xb, model/xb.hpp, driven as
// its header says: tile control and data first, then the XB decision on the occupancy after the
// enqueue, then the dequeue): msg_valid_o / msg_kind_o, out_valid_o / out_flit_o and every
// stat_* output. End to end, independently of the model: grants in
// the order the requests reached the XB (ascending tile order within a cycle), at most one tile
// granted, XON/XOFF only to the granted tile, every flit of every session out on the link in
// order and intact with whole sessions one after another, every session completed (no hang),
// stat_max_occupancy_o within the budget (27 for a tile that applies XOFF in the cycle it
// arrives, as the model's tile; 28 for one that stops a cycle later) and never above
// QueueFlits, stat_overflow_o and stat_proto_err_o never set.
//
// Space covered (RandomSessions, a parameter sweep): active tiles {1, 2, 4, 16} (tiles above
// that idle; 1 = only tile 0) x link stalls (out_ready_i low) {0, 25, 50, 75, 90} % x tile idle
// insertion {0, 30} % x tile XOFF reaction {same cycle, one cycle later} x flit width (at 32 and
// 64 bits without the 30 % idle half). Sessions of 1..3 packets of H = 128/FlitBits header flits
// and 0..127 grains of 128/FlitBits payload flits (mostly short), random gaps 0..12 cycles between
// sessions
// (0: XREQ right after XDONE). Directed tests: reset state; the two-session trace of
// docs/exchange.md 3.1 (cycle-exact, pin level); the XOFF/XON episode of 3.2 (peak 27/28, XON
// at 8, queue bottoms at 4/3 without running dry); simultaneous and interleaved requests;
// protocol errors (stat_proto_err_o); a tile that ignores XOFF overflows the queue:
// QueueNoOverflow_A fires, stat_overflow_o latches, the XB keeps running and the next session
// comes out intact.
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
#include <set>
#include <string>
#include <tuple>
#include <vector>

#include "Vxf_xb.h"
#include "Vxf_xb_w32.h"
#include "Vxf_xb_w64.h"
#include "model_test_main.hpp"
#include "rtl_kit.hpp"
#include "rtl_kit_model.hpp"
#include "xb.hpp"
#include "xf/defs.hpp"

namespace xf {
namespace {

using kit::Flit;
using kit::hdr::kDstAddr;
using kit::hdr::kDstChip;
using kit::hdr::kDstTile;
using kit::hdr::kLen;
using kit::hdr::kOpcode;
using kit::hdr::kSeq;
using kit::hdr::kSrcTile;

constexpr int kNumTiles = 16;  // NumTiles of the Verilated model (its default)
const kit::TestFile kFile{0xB0u, "test_rtl_xb"};
constexpr int kCtrlLat = static_cast<int>(kXbCtrlLatencyCycles);
constexpr int kExchLat = static_cast<int>(kExchangeLatencyCycles);
constexpr uint32_t kQueue = kXbQueueFlits;
constexpr uint32_t kXoffFlits = kXbXoffThresholdFlits;
constexpr uint32_t kXonFlits = kXbXonThresholdFlits;

// msg_kind_o (the model's XbMsg order).
enum MsgKind : int { kMsgGrant = 0, kMsgXon = 1, kMsgXoff = 2 };
static_assert(kMsgGrant == static_cast<int>(XbMsg::kGrant) &&
                  kMsgXon == static_cast<int>(XbMsg::kXon) &&
                  kMsgXoff == static_cast<int>(XbMsg::kXoff),
              "msg_kind_o is XbMsg");
const char* kind_name(int k) { return k == kMsgGrant ? "GRANT" : k == kMsgXon ? "XON" : "XOFF"; }

using W32 = kit::Width<Vxf_xb_w32, 32>;
using W64 = kit::Width<Vxf_xb_w64, 64>;
using W128 = kit::Width<Vxf_xb, 128>;
using Widths = ::testing::Types<W32, W64, W128>;

// Runs f(W{}) for the width `bits` (the value-parameterised suites).
template <class F>
void with_width(uint32_t bits, F&& f) {
  kit::with_width<W32, W64, W128>(bits, f);
}

uint32_t mix(uint32_t x) {
  x ^= x >> 16;
  x *= 0x7FEB352Du;
  x ^= x >> 15;
  x *= 0x846CA68Bu;
  return x ^ (x >> 16);
}

// Packet p of session s of tile t at flit width `bits`: a Write header (src_tile, seq, len of
// `grains` grains; dst_chip, dst_tile, dst_addr and the reserved tag bits name tile, session and
// packet, so that the header flits of a narrow width differ between the packets of a session and
// between tiles: the overflow test finds its lost flits by value) as H header flits, and grains *
// 128/bits payload flits whose words hash the tile, session, packet and flit, so any misplaced
// flit is recognisable and every data bit takes both values.
std::vector<Flit> make_packet(int tile, uint32_t session, uint32_t pkt, uint32_t seq,
                              uint32_t grains, uint32_t bits) {
  const uint32_t t = static_cast<uint32_t>(tile);
  Flit h = Flit::header({{kOpcode, 0},  // Write
                         {kLen, grains * kGrainBytes},
                         {kSrcTile, t},
                         {kSeq, seq},
                         {kDstChip, ((session & 0xFFu) << 4) | (pkt & 0xFu)},
                         {kDstTile, t},
                         {kDstAddr, (t << 20) | ((pkt & 0xFu) << 16) | ((session & 0xFFFu) << 4)},
                         {kit::hdr::kTagSrc, t},
                         {kit::hdr::kTagNum, ((session << 2) | pkt) & 0xFFFFu}},
                        grains == 0);
  std::vector<Flit> v = kit::split_packet({h}, bits);
  const uint32_t n = grains * kit::grain_flits(bits);
  for (uint32_t i = 0; i < n; ++i) {
    Flit d;
    d.tail = i + 1 == n;
    for (uint32_t k = 0; k < bits / 32; ++k)
      d.w[k] = mix((t << 28) ^ (session << 14) ^ (pkt << 12) ^ (i << 2) ^ k);
    v.back().tail = false;
    v.push_back(d);
  }
  return v;
}

// ---- Stimulus: the tiles ------------------------------------------------------------------------

// A tile's send side as the protocol (docs/exchange.md section 3, model/tile.cpp) has it.
struct TileModel {
  enum class Item { kReq, kData, kDone };
  struct Emit {
    uint64_t at;  // cycle it reaches the XB
    Item item;
    Flit flit;
  };
  int id = 0;
  bool active = false;
  bool react_late = false;   // stop one cycle after seeing XOFF (a registered tile)
  bool ignore_xoff = false;  // protocol violation: keeps sending after XOFF
  int idle_pct = 0;          // chance of not sending in a cycle it could
  uint64_t stop_at = 0;      // no new session starts at or after this cycle
  int sessions_left = -1;    // < 0: unlimited (until stop_at)
  int gap = 0;               // cycles before the next session
  int max_payload = 127;     // largest packet payload in grains
  uint32_t bits = 128;       // flit width
  // Protocol state.
  bool in_session = false, requested = false, xon = false;
  uint32_t session = 0, seq = 0;
  std::vector<Flit> cur;                      // the session's flits
  size_t next = 0;                            // next flit of cur to send
  std::deque<std::pair<uint64_t, int>> msgs;  // (cycle it arrives, kind)
  std::deque<Emit> path;                      // into the exchange
  std::deque<std::vector<Flit>> scripted;     // sessions to send before random ones
  uint64_t sessions_done = 0, flits_sent = 0;

  bool busy() const { return in_session || !path.empty() || !msgs.empty(); }

  void new_session(kit::Rng& rng) {
    cur.clear();
    next = 0;
    if (!scripted.empty()) {
      cur = scripted.front();
      scripted.pop_front();
      return;
    }
    const int pkts = 1 + static_cast<int>(rng() % 3);
    for (int p = 0; p < pkts; ++p) {
      const uint32_t r = static_cast<uint32_t>(rng() % 100);
      uint32_t len = r < 70   ? static_cast<uint32_t>(rng() % 5)
                     : r < 95 ? 5 + static_cast<uint32_t>(rng() % 16)
                              : static_cast<uint32_t>(rng() % 128);
      len = std::min<uint32_t>(len, static_cast<uint32_t>(max_payload));
      const auto pk = make_packet(id, session, static_cast<uint32_t>(p), seq++, len, bits);
      cur.insert(cur.end(), pk.begin(), pk.end());
    }
  }

  // Cycle `now`: messages that arrive now, then at most one emission.
  void tick(uint64_t now, kit::Rng& rng) {
    const bool xon_before = xon;
    while (!msgs.empty() && msgs.front().first <= now) {
      const int m = msgs.front().second;
      msgs.pop_front();
      if (!in_session) continue;  // stale: from a session already closed
      if (requested) {
        if (m == kMsgGrant) {
          requested = false;
          xon = true;
        }
      } else if (m != kMsgGrant) {
        if (!(ignore_xoff && m == kMsgXoff)) xon = m == kMsgXon;
      }
    }
    const bool may_send = react_late ? xon_before : xon;
    if (!in_session) {
      if (!active || sessions_left == 0 || now >= stop_at) return;
      if (gap > 0) {
        --gap;
        return;
      }
      new_session(rng);
      emit(now, Item::kReq, Flit{});
      in_session = requested = true;
      xon = false;
      if (sessions_left > 0) --sessions_left;
      return;
    }
    if (requested) return;
    if (next == cur.size()) {  // the session's last flit has left: end it
      emit(now, Item::kDone, Flit{});
      in_session = xon = false;
      ++session;
      ++sessions_done;
      gap = static_cast<int>(rng() % 13);
      return;
    }
    if (!may_send) return;
    if (idle_pct > 0 && static_cast<int>(rng() % 100) < idle_pct) return;
    emit(now, Item::kData, cur[next++]);
    ++flits_sent;
  }

  void emit(uint64_t now, Item it, const Flit& f) {
    path.push_back(Emit{now + static_cast<uint64_t>(kExchLat), it, f});
  }
};

struct Config {
  int tiles = 1;
  int stall_pct = 0;
  int idle_pct = 0;
  bool react_late = false;
};

// The Verilated XB at flit width W::kBits, the tiles, the model's XB and the end-to-end
// scoreboard.
template <class W>
class XbBench {
 public:
  using V = typename W::Dut;
  explicit XbBench(kit::Rng& rng) : rng_(rng), fails_(kFile) {
    for (int t = 0; t < kNumTiles; ++t) {
      tiles_[t].id = t;
      tiles_[t].bits = W::kBits;
    }
    dut_.reset([this](V&) { drive_idle(); });
  }

  TileModel& tile(int t) { return tiles_[t]; }
  VerilatedContext& ctx() { return dut_.ctx(); }
  V& dut() { return *dut_; }
  const model::Xb& ref() const { return ref_; }
  uint64_t now() const { return dut_.cycle(); }
  int failures() const { return fails_.count(); }
  uint64_t flits_out() const { return flits_out_; }
  uint64_t sessions_granted() const { return grants_; }
  kit::Sink link;                    // out_ready_i: stall_pct, force_stall
  bool check_budget = true;          // occupancy within the XOFF budget (off for the violator)
  uint32_t budget_peak = 28;         // largest legal occupancy for the tiles in use
  uint32_t min_occ_after_xon = ~0u;  // lowest queue seen after an XON, while refilling
  std::array<uint64_t, 3> msgs_of_kind{};  // GRANT, XON, XOFF messages seen

  // One cycle: drive the tile paths' outputs, check the XB's outputs against the model's XB
  // and the scoreboard, deliver the messages, let the tiles act, clock.
  void cycle() {
    uint32_t xreq = 0, xdone = 0;
    bool in_valid = false;
    Flit in;
    for (auto& t : tiles_) {
      if (t.path.empty() || t.path.front().at > now()) continue;
      const TileModel::Emit e = t.path.front();
      t.path.pop_front();
      if (e.item == TileModel::Item::kReq) {
        xreq |= 1u << t.id;
      } else if (e.item == TileModel::Item::kDone) {
        xdone |= 1u << t.id;
      } else {
        if (in_valid) fail("test bug: two tiles send data in one cycle");
        in_valid = true;
        in = e.flit;
      }
    }
    const bool ready = link.ready(rng_);
    drive(xreq, xdone, in_valid, in, ready);
    check_stats();
    dut_->eval();
    // The model's XB, steps 1-4 of model/xb.hpp (it carries the raw 128 bits of every flit).
    const uint32_t occ_before = ref_.occupancy();
    for (int t = 0; t < kNumTiles; ++t) {
      if ((xdone >> t) & 1u) ref_.done(t);
      if ((xreq >> t) & 1u) ref_.request(t);
    }
    if (in_valid) ref_.push(kit::to_model_raw(in));
    const model::Xb::Msg msg = ref_.decide();
    const int rt = msg.tile, rk = static_cast<int>(msg.kind);
    const bool rv = ref_.out_valid();
    const Flit rf = rv ? kit::from_model_raw(ref_.front()) : Flit{};
    if (rv && ready) ref_.pop();
    if (ref_.end_cycle()) dropped_.insert(in.w);
    const uint32_t mv = dut_->msg_valid_o;
    const uint32_t want_mv = rt >= 0 ? 1u << rt : 0u;
    if (mv != want_mv || (mv != 0 && static_cast<int>(dut_->msg_kind_o) != rk)) {
      fail("msg_valid_o 0x" + hex(mv) + " kind " + std::to_string(dut_->msg_kind_o) +
           ", expected 0x" + hex(want_mv) + " " + kind_name(rk));
    }
    const Flit got = out_flit();
    if (static_cast<bool>(dut_->out_valid_o) != rv || (rv && got != rf)) {
      fail(std::string("out_valid_o ") + (dut_->out_valid_o ? "1 " + describe(got) : "0") +
           ", expected " + (rv ? "1 " + describe(rf) : "0"));
    }
    // End to end: requests in arrival order, one grant at a time.
    if (xdone & (holder_ >= 0 ? 1u << holder_ : 0u)) holder_ = -1;
    for (int t = 0; t < kNumTiles; ++t)
      if ((xreq >> t) & 1u) arrivals_.push_back(t);
    if (mv != 0) {
      const int t = __builtin_ctz(mv);
      const int k = dut_->msg_kind_o;
      if (k == kMsgGrant) {
        if (holder_ >= 0)
          fail("GRANT to tile " + std::to_string(t) + " while tile " + std::to_string(holder_) +
               " holds the grant");
        if (arrivals_.empty() || arrivals_.front() != t) {
          fail("GRANT to tile " + std::to_string(t) + ", oldest request is " +
               (arrivals_.empty() ? std::string("none") : std::to_string(arrivals_.front())));
        } else {
          arrivals_.pop_front();
        }
        holder_ = t;
        ++grants_;
        // The granted session's flits must now leave, whole, before any other session's.
        for (const Flit& f : tiles_[t].cur) expected_.push_back(f);
      } else if (t != holder_) {
        fail(std::string(kind_name(k)) + " to tile " + std::to_string(t) + " which has no grant");
      }
      ++msgs_of_kind[k];
      if (k == kMsgXon) watch_refill_ = true;
      if (k == kMsgXoff) watch_refill_ = false;
      tiles_[t].msgs.emplace_back(now() + static_cast<uint64_t>(kCtrlLat), k);
    }
    if (watch_refill_) {  // the queue at the start of each cycle up to the first new flit
      min_occ_after_xon = std::min(min_occ_after_xon, occ_before);
      if (in_valid) watch_refill_ = false;
    }
    if (dut_->out_valid_o && ready) {
      while (!expected_.empty() && dropped_.count(expected_.front().w) != 0) {
        expected_.pop_front();
      }
      if (expected_.empty()) {
        fail("flit " + describe(got) + " left with no granted session flit expected");
      } else if (expected_.front() != got) {
        fail("link flit " + describe(got) + ", expected " + describe(expected_.front()));
        expected_.pop_front();
      } else {
        expected_.pop_front();
      }
      ++flits_out_;
    }
    for (auto& t : tiles_) t.tick(now(), rng_);
    clock();
  }

  // Cycles until every tile is idle and the queue is empty (bounded: a hang fails).
  void drain(uint64_t limit) {
    const uint64_t end = now() + limit;
    while (now() < end && (busy() || ref_.out_valid())) cycle();
    if (busy() || ref_.out_valid()) fail("no progress: tiles or queue still busy after drain");
    while (!expected_.empty() && dropped_.count(expected_.front().w) != 0) expected_.pop_front();
    if (!expected_.empty()) {
      fail(std::to_string(expected_.size()) + " granted flits never left, first " +
           describe(expected_.front()));
    }
    if (!arrivals_.empty()) fail(std::to_string(arrivals_.size()) + " requests never granted");
  }

  bool busy() const {
    for (const auto& t : tiles_)
      if (t.busy()) return true;
    return false;
  }

  void fail(const std::string& what) { fails_.fail(now(), what); }

  void drive(uint32_t xreq, uint32_t xdone, bool in_valid, const Flit& in, bool ready) {
    dut_->xreq_i = static_cast<uint16_t>(xreq);
    dut_->xdone_i = static_cast<uint16_t>(xdone);
    dut_->in_valid_i = in_valid;
    kit::put_flit(dut_->in_flit_i, 0, in, W::kBits);
    dut_->out_ready_i = ready;
  }
  void drive_idle() { drive(0, 0, false, Flit{}, false); }

  Flit out_flit() { return kit::get_flit(dut_->out_flit_o, 0, W::kBits); }

  // Rising edge, inputs held; then the falling edge (inputs change after it).
  void clock() { dut_.tick(); }

 private:
  static std::string hex(uint32_t v) {
    char b[16];
    std::snprintf(b, sizeof b, "%x", v);
    return b;
  }

  // The registered status outputs show the state at the start of the cycle.
  void check_stats() {
    dut_->eval();
    const uint32_t want_occ = ref_.occupancy();
    if (dut_->stat_occupancy_o != want_occ || dut_->stat_max_occupancy_o != ref_.max_occupancy() ||
        static_cast<bool>(dut_->stat_granted_valid_o) != (ref_.granted() >= 0) ||
        (ref_.granted() >= 0 && static_cast<int>(dut_->stat_granted_tile_o) != ref_.granted()) ||
        static_cast<bool>(dut_->stat_xoff_o) != ref_.xoff() ||
        static_cast<bool>(dut_->stat_overflow_o) != (ref_.overflows() != 0) ||
        dut_->stat_overflow_count_o != std::min<uint64_t>(ref_.overflows(), 0xFFFF)) {
      fail("stat: occupancy " + std::to_string(dut_->stat_occupancy_o) + "/" +
           std::to_string(want_occ) + " max " + std::to_string(dut_->stat_max_occupancy_o) + "/" +
           std::to_string(ref_.max_occupancy()) + " granted " +
           std::to_string(dut_->stat_granted_valid_o) + ":" +
           std::to_string(dut_->stat_granted_tile_o) + "/" + std::to_string(ref_.granted()) +
           " xoff " + std::to_string(dut_->stat_xoff_o) + "/" + std::to_string(ref_.xoff()) +
           " overflows " + std::to_string(dut_->stat_overflow_count_o) + "/" +
           std::to_string(ref_.overflows()) + " (seen/expected)");
    }
    if (dut_->stat_max_occupancy_o > kQueue && check_budget) {
      fail("queue occupancy " + std::to_string(dut_->stat_max_occupancy_o) + " above " +
           std::to_string(kQueue));
    }
    if (check_budget && dut_->stat_max_occupancy_o > budget_peak) {
      fail("queue occupancy " + std::to_string(dut_->stat_max_occupancy_o) +
           " above the XOFF budget's peak " + std::to_string(budget_peak));
    }
  }

  kit::Rng& rng_;
  kit::Dut<V> dut_;
  kit::Failures fails_;
  std::array<TileModel, kNumTiles> tiles_;
  model::Xb ref_;  // the golden XB: the model's own class
  uint64_t flits_out_ = 0, grants_ = 0;
  int holder_ = -1;
  bool watch_refill_ = false;
  std::deque<int> arrivals_;
  std::deque<Flit> expected_;
  std::set<std::array<uint32_t, 4>> dropped_;
};

// ---- Random sessions: the parameter sweep -------------------------------------------------------

class XbRandom : public ::testing::TestWithParam<std::tuple<uint32_t, int, int, int, bool>> {};

template <class W>
void random_sessions(const Config& c, kit::Rng& rng) {
  XbBench<W> b(rng);
  b.link.stall_pct = c.stall_pct;
  b.budget_peak = kXoffFlits + (c.react_late ? 4 : 3);
  constexpr uint64_t kCycles = 40000;
  for (int t = 0; t < c.tiles; ++t) {
    TileModel& m = b.tile(t);
    m.active = true;
    m.react_late = c.react_late;
    m.idle_pct = c.idle_pct;
    m.stop_at = kCycles;
    m.gap = static_cast<int>(rng() % 8);
    // Long packets only where the link is fast enough to drain them within the run.
    m.max_payload = (c.stall_pct >= 75 ? 32 : 127) * static_cast<int>(W::kBits) / 128;
  }
  while (b.now() < kCycles) b.cycle();
  b.drain(200000);
  uint64_t sessions = 0, flits = 0;
  for (int t = 0; t < kNumTiles; ++t) {
    sessions += b.tile(t).sessions_done;
    flits += b.tile(t).flits_sent;
  }
  EXPECT_EQ(b.failures(), 0);
  EXPECT_EQ(b.flits_out(), flits);
  EXPECT_EQ(b.sessions_granted(), sessions);
  EXPECT_GT(sessions, 0u);
  EXPECT_EQ(b.dut().stat_overflow_o, 0);
  EXPECT_EQ(b.dut().stat_proto_err_o, 0);
  EXPECT_LE(b.dut().stat_max_occupancy_o, kQueue);
  if (c.stall_pct >= 75) {  // the sweep must reach the thresholds where they matter
    EXPECT_GT(b.msgs_of_kind[kMsgXoff], 0u);
    EXPECT_GT(b.msgs_of_kind[kMsgXon], 0u);
  }
  std::printf("[   INFO   ] FlitBits %3u tiles %2d stall %2d%% idle %2d%% xoff %s: %" PRIu64
              " sessions, %" PRIu64 " flits, %" PRIu64 " cycles, %" PRIu64
              " XOFF, max occupancy %u/%u\n",
              W::kBits, c.tiles, c.stall_pct, c.idle_pct, c.react_late ? "late" : "same", sessions,
              flits, b.now(), b.msgs_of_kind[kMsgXoff],
              static_cast<unsigned>(b.dut().stat_max_occupancy_o), kQueue);
}

TEST_P(XbRandom, RandomSessions) {
  Config c;
  uint32_t bits = 0;
  std::tie(bits, c.tiles, c.stall_pct, c.idle_pct, c.react_late) = GetParam();
  auto rng = kFile.rng();
  with_width(bits, [&](auto w) { random_sessions<decltype(w)>(c, rng); });
}

std::string sweep_name(const ::testing::TestParamInfo<XbRandom::ParamType>& p) {
  return "Tiles" + std::to_string(std::get<1>(p.param)) + "Stall" +
         std::to_string(std::get<2>(p.param)) + "Idle" + std::to_string(std::get<3>(p.param)) +
         (std::get<4>(p.param) ? "XoffLate" : "XoffSame") + "W" +
         std::to_string(std::get<0>(p.param));
}

INSTANTIATE_TEST_SUITE_P(Sweep, XbRandom,
                         ::testing::Combine(::testing::Values(128u), ::testing::Values(1, 2, 4, 16),
                                            ::testing::Values(0, 25, 50, 75, 90),
                                            ::testing::Values(0, 30), ::testing::Bool()),
                         sweep_name);
// The narrow widths without the idle half (the tiles' idle insertion does not depend on it).
INSTANTIATE_TEST_SUITE_P(SweepNarrow, XbRandom,
                         ::testing::Combine(::testing::Values(32u, 64u),
                                            ::testing::Values(1, 2, 4, 16),
                                            ::testing::Values(0, 25, 50, 75, 90),
                                            ::testing::Values(0), ::testing::Bool()),
                         sweep_name);

// ---- Directed tests ---------------------------------------------------------------------------

template <class W>
class Xb : public ::testing::Test {};
TYPED_TEST_SUITE(Xb, Widths, kit::WidthName);

TYPED_TEST(Xb, ResetState) {
  using W = TypeParam;
  auto rng = kFile.rng();
  XbBench<W> b(rng);
  b.drive_idle();
  b.dut().eval();
  EXPECT_EQ(b.dut().msg_valid_o, 0);
  EXPECT_EQ(b.dut().out_valid_o, 0);
  EXPECT_EQ(b.dut().stat_occupancy_o, 0);
  EXPECT_EQ(b.dut().stat_max_occupancy_o, 0);
  EXPECT_EQ(b.dut().stat_granted_valid_o, 0);
  EXPECT_EQ(b.dut().stat_xoff_o, 0);
  EXPECT_EQ(b.dut().stat_overflow_o, 0);
  EXPECT_EQ(b.dut().stat_proto_err_o, 0);
  for (int i = 0; i < 20; ++i) b.cycle();  // idle tiles: nothing happens
  EXPECT_EQ(b.failures(), 0);
  EXPECT_EQ(b.dut().out_valid_o, 0);
}

// docs/exchange.md section 3.1 at the XB's pins (cycle numbers of the trace at 128 bits): XREQs
// of tiles 0 and 1 arrive in 16, GRANT 0 in 16; tile 0's H D D arrive in 20..22 and leave the
// same cycles; its XDONE arrives in 23, GRANT 1 in 23; tile 1's flits arrive in 27..29; XDONE in
// 30. At a narrow width the packets (a header and two grains) have n = H + 2*128/FlitBits flits
// and the trace stretches by n - 3 cycles per packet.
TYPED_TEST(Xb, SessionTrace) {
  using W = TypeParam;
  auto rng = kFile.rng();
  XbBench<W> b(rng);
  const auto p0 = make_packet(0, 0, 0, 0, 2, W::kBits), p1 = make_packet(1, 0, 0, 0, 2, W::kBits);
  const uint64_t n = p0.size();  // 3 at 128 bits
  const uint64_t done0 = 20 + n, start1 = done0 + 4, done1 = start1 + n;
  for (uint64_t cyc = 0; cyc <= done1 + 2; ++cyc) {
    uint32_t xreq = 0, xdone = 0, want_msg = 0;
    int data = -1, tile = 0;
    if (cyc == 16) {  // both XREQs arrive; tile 0 is granted at once
      xreq = 3;
      want_msg = 1;
    }
    if (cyc >= 20 && cyc < done0) data = static_cast<int>(cyc - 20);
    if (cyc == done0) {  // tile 0's XDONE: tile 1 is granted in the same cycle
      xdone = 1;
      want_msg = 2;
    }
    if (cyc >= start1 && cyc < done1) {
      data = static_cast<int>(cyc - start1);
      tile = 1;
    }
    if (cyc == done1) xdone = 2;
    const Flit in = data >= 0 ? (tile == 0 ? p0 : p1)[static_cast<size_t>(data)] : Flit{};
    b.drive(xreq, xdone, data >= 0, in, true);
    b.dut().eval();
    EXPECT_EQ(b.dut().msg_valid_o, want_msg) << "cycle " << cyc;
    if (want_msg != 0) {
      EXPECT_EQ(b.dut().msg_kind_o, kMsgGrant) << "cycle " << cyc;
    }
    EXPECT_EQ(b.dut().out_valid_o, data >= 0 ? 1 : 0) << "cycle " << cyc;  // fall-through
    if (data >= 0) {
      EXPECT_TRUE(b.out_flit() == in) << "cycle " << cyc;
    }
    if (cyc == done0 + 1) {
      EXPECT_EQ(b.dut().stat_granted_valid_o, 1);
      EXPECT_EQ(b.dut().stat_granted_tile_o, 1);
    }
    b.clock();
  }
  EXPECT_EQ(b.dut().stat_granted_valid_o, 0);
  EXPECT_EQ(b.dut().stat_max_occupancy_o, 1);
  EXPECT_EQ(b.dut().stat_proto_err_o, 0);
}

// docs/exchange.md section 3.2: one tile streams while the link takes nothing; the XB sends
// XOFF when the queue reaches 24; the queue peaks at 27 (tile stops in the cycle it sees XOFF)
// or 28 (one cycle later). Then the link drains one flit per cycle: XON at 8, and the queue
// bottoms out at 4 (3) before the tile's flits arrive again; it never runs dry.
TYPED_TEST(Xb, XoffXonEpisode) {
  using W = TypeParam;
  auto rng = kFile.rng();
  for (const bool late : {false, true}) {
    XbBench<W> b(rng);
    b.budget_peak = kXoffFlits + (late ? 4 : 3);
    TileModel& m = b.tile(0);
    m.active = true;
    m.react_late = late;
    m.sessions_left = 1;
    m.stop_at = ~0ull;
    m.max_payload = 0;
    b.link.force_stall = true;
    // One long session: 3 packets of 40 payload flits (123 flits at 128 bits; 40*FlitBits/128
    // grains at a narrow width, 126 flits at 64 bits, 132 at 32).
    std::vector<Flit> sess;
    for (uint32_t p = 0; p < 3; ++p) {
      const auto pk = make_packet(0, 0, p, p, 40 * W::kBits / 128, W::kBits);
      sess.insert(sess.end(), pk.begin(), pk.end());
    }
    m.scripted.push_back(sess);
    uint64_t xoff_cycle = 0, xon_cycle = 0;
    while (b.now() < 200) {
      b.cycle();
      if (b.dut().stat_xoff_o && xoff_cycle == 0) xoff_cycle = b.now();
    }
    EXPECT_EQ(b.dut().stat_max_occupancy_o, kXoffFlits + (late ? 4u : 3u)) << "late " << late;
    EXPECT_EQ(b.dut().stat_occupancy_o, kXoffFlits + (late ? 4u : 3u)) << "late " << late;
    EXPECT_NE(xoff_cycle, 0u);
    b.link.force_stall = false;
    b.link.stall_pct = 0;
    while (b.now() < 260) {
      b.cycle();
      if (!b.dut().stat_xoff_o && xon_cycle == 0) xon_cycle = b.now();
    }
    EXPECT_NE(xon_cycle, 0u);
    EXPECT_EQ(b.min_occ_after_xon, late ? 3u : 4u) << "late " << late;
    b.drain(2000);
    EXPECT_EQ(b.failures(), 0);
    EXPECT_EQ(b.flits_out(), sess.size());
    std::printf("[   INFO   ] XOFF reaction %s: peak %u, XON at %u, refill bottom %u\n",
                late ? "one cycle late" : "same cycle", kXoffFlits + (late ? 4u : 3u), kXonFlits,
                b.min_occ_after_xon);
  }
}

// Simultaneous requests are served in ascending tile order, later ones after them; an XDONE
// and a new XREQ in the same cycle; requests wait while the queue is at or above XOFF.
TYPED_TEST(Xb, RequestOrder) {
  using W = TypeParam;
  auto rng = kFile.rng();
  XbBench<W> b(rng);
  auto step = [&](uint32_t xreq, uint32_t xdone, bool valid, bool ready) -> uint32_t {
    Flit f;
    f.head = f.tail = true;
    b.drive(xreq, xdone, valid, f, ready);
    b.dut().eval();
    const uint32_t m = b.dut().msg_valid_o;
    const uint32_t k = b.dut().msg_kind_o;
    b.clock();
    return m != 0 ? (m | (k << 16)) : 0;
  };
  EXPECT_EQ(step(1u << 7, 0, false, true), 1u << 7);  // tile 7 granted at once
  EXPECT_EQ(step((1u << 5) | (1u << 2), 0, false, true), 0u);
  EXPECT_EQ(step(1u << 1, 0, false, true), 0u);
  EXPECT_EQ(step(1u << 0, 1u << 7, false, true), 1u << 2);  // XDONE 7: oldest is 2 (not 5)
  EXPECT_EQ(step(0, 1u << 2, false, true), 1u << 5);
  EXPECT_EQ(step(0, 1u << 5, false, true), 1u << 1);
  // Tile 1 fills the queue to the XOFF threshold with the link stalled.
  uint32_t xoff_msg = 0;
  for (uint32_t i = 0; i < kXoffFlits; ++i) xoff_msg |= step(0, 0, true, false);
  EXPECT_EQ(xoff_msg, (1u << 1) | (static_cast<uint32_t>(kMsgXoff) << 16));
  EXPECT_EQ(b.dut().stat_xoff_o, 1);
  // XDONE of tile 1 at 24 queued: tile 0 is not granted until the queue falls below 24.
  EXPECT_EQ(step(0, 1u << 1, false, false), 0u);
  EXPECT_EQ(step(0, 0, false, false), 0u);
  EXPECT_EQ(step(0, 0, false, true), 0u);       // 24 at the decision, one leaves
  EXPECT_EQ(step(0, 0, false, true), 1u << 0);  // 23: GRANT 0
  EXPECT_EQ(b.dut().stat_xoff_o, 0);
  EXPECT_EQ(b.dut().stat_proto_err_o, 0);
}

// Protocol errors latch stat_proto_err_o (and change nothing else): data with no grant, an
// XDONE from a tile without the grant, an XREQ from a tile that already waits, from the tile
// that holds the grant, and from every tile at every position of the request queue, the queue
// ending there or full (the next tile holds the grant, one request per cycle; the mutation
// testing of docs/mutation.md found the search checked at some (tile, position, length) only).
TYPED_TEST(Xb, ProtocolErrors) {
  using W = TypeParam;
  auto rng = kFile.rng();
  constexpr int kPositions = kNumTiles - 1;
  for (int which = 0; which < 4 + 2 * kNumTiles * kPositions; ++which) {
    XbBench<W> b(rng);
    b.ctx().errorLimit(1000000);  // none of these is an assertion; keep running regardless
    Flit f;
    f.head = f.tail = true;
    if (which == 0) {
      b.drive(0, 0, true, f, true);
    } else if (which == 1) {
      b.drive(0, 1u << 3, false, f, true);
    } else if (which == 2) {
      b.drive(1u << 3, 0, false, f, true);
      b.clock();
      b.drive(1u << 4, 0, false, f, true);
      b.clock();
      b.drive(1u << 4, 0, false, f, true);
    } else if (which == 3) {
      b.drive(1u << 3, 0, false, f, true);
      b.clock();
      b.drive(1u << 3, 0, false, f, true);
    } else {
      // Cases 4.. : tile, position, and a queue that ends at the tile or is full.
      const int c = which - 4, full = c / (kNumTiles * kPositions);
      const int tile = c % (kNumTiles * kPositions) / kPositions, pos = c % kPositions;
      const int holder = (tile + 1) % kNumTiles;
      std::vector<int> order;
      for (int k = 0; k < kNumTiles; ++k)
        if (k != holder && k != tile) order.push_back(k);
      order.insert(order.begin() + pos, tile);
      if (!full) order.resize(static_cast<size_t>(pos) + 1);
      b.drive(1u << holder, 0, false, f, true);
      b.clock();
      for (int k : order) {
        b.drive(1u << k, 0, false, f, true);
        b.clock();
      }
      b.drive(1u << tile, 0, false, f, true);
    }
    b.dut().eval();
    EXPECT_EQ(b.dut().stat_proto_err_o, 0);
    b.clock();
    b.drive_idle();
    b.dut().eval();
    EXPECT_EQ(b.dut().stat_proto_err_o, 1) << "case " << which;
    EXPECT_EQ(b.dut().stat_overflow_o, 0);
  }
}

// Tile `tile` ignoring XOFF, with one scripted session of at least `flits` flits (packets of 20
// flits at every width), on a bench that counts assertion failures (QueueNoOverflow_A) and goes
// on instead of stopping, with the budget check off.
template <class W>
TileModel& xoff_violator(XbBench<W>& b, int tile, size_t flits) {
  b.ctx().errorLimit(100000000);
  b.ctx().fatalOnError(false);
  b.check_budget = false;
  TileModel& bad = b.tile(tile);
  bad.active = true;
  bad.ignore_xoff = true;
  bad.sessions_left = 1;
  bad.stop_at = ~0ull;
  std::vector<Flit> sess;
  for (uint32_t p = 0; sess.size() < flits; ++p) {
    const auto pk = make_packet(tile, 0, p, p, 19 * W::kBits / 128, W::kBits);
    sess.insert(sess.end(), pk.begin(), pk.end());
  }
  bad.scripted.push_back(sess);
  return bad;
}

// A tile that keeps sending after XOFF (protocol violation) with the link stalled overflows the
// queue: QueueNoOverflow_A fires (counted, not fatal, here), stat_overflow_o latches and
// stat_overflow_count_o counts the flits that found the queue full. The XB does not hang: the
// link drains, the violator's session ends and the next tile's session comes out intact.
TYPED_TEST(Xb, XoffViolationOverflows) {
  using W = TypeParam;
  auto rng = kFile.rng();
  XbBench<W> b(rng);
  TileModel& bad = xoff_violator(b, 3, 60);  // 3 packets of 20 flits
  TileModel& good = b.tile(9);
  good.active = true;
  good.sessions_left = 1;
  good.stop_at = ~0ull;
  good.gap = 5;  // requests after tile 3
  b.link.force_stall = true;
  while (b.now() < 120) b.cycle();
  EXPECT_EQ(b.dut().stat_overflow_o, 1);
  EXPECT_EQ(b.dut().stat_occupancy_o, kQueue);
  EXPECT_EQ(b.dut().stat_max_occupancy_o, kQueue + 1);
  EXPECT_EQ(b.dut().stat_overflow_count_o, 60u - kQueue);
  EXPECT_GT(b.ctx().errorCount(), 0) << "QueueNoOverflow_A did not fire";
  b.link.force_stall = false;
  b.link.stall_pct = 50;
  b.drain(20000);
  EXPECT_EQ(b.failures(), 0);
  EXPECT_EQ(good.sessions_done, 1u);
  EXPECT_EQ(bad.sessions_done, 1u);
  EXPECT_EQ(b.flits_out(), kQueue + good.flits_sent);  // the 28 flits that found it full: lost
  EXPECT_EQ(b.dut().stat_overflow_o, 1);               // sticky
  std::printf("[   INFO   ] violator: %u overflows, assertion fired %d times\n",
              static_cast<unsigned>(b.dut().stat_overflow_count_o), b.ctx().errorCount());
}

// stat_overflow_count_o counts every flit that arrives at a full queue, as the model's XB does,
// up to 0xFFFF where it stays: a violator ignoring XOFF streams 68,000 flits into a queue the
// stalled link never drains. Without the assertion check of XoffViolationOverflows
// (QueueNoOverflow_A fires here too; this test counts only), so it also runs on a netlist
// without assertions (docs/mutation.md).
TYPED_TEST(Xb, OverflowCountSaturates) {
  using W = TypeParam;
  auto rng = kFile.rng();
  XbBench<W> b(rng);
  TileModel& bad = xoff_violator(b, 5, 68000);
  const size_t flits = bad.scripted.front().size();  // the session: popped when it starts
  b.link.force_stall = true;
  // The bench checks stat_overflow_count_o against the model's XB every cycle.
  while (bad.flits_sent < flits && b.failures() == 0) {
    b.cycle();
    ASSERT_LT(b.now(), 4 * flits) << "the violator stopped sending";
  }
  for (int i = 0; i < 10; ++i) b.cycle();
  EXPECT_EQ(b.failures(), 0);
  EXPECT_EQ(b.dut().stat_overflow_count_o, 0xFFFFu);
  EXPECT_EQ(b.dut().stat_overflow_o, 1);
  EXPECT_EQ(b.dut().stat_occupancy_o, kQueue);
}

}  // namespace
}  // namespace xf
