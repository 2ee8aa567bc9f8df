// RTL_TOP: xf_exchange
// RTL_TOP: xf_exchange Vxf_exchange_w32 -GFlitBits=32 -GSyncBuffers=1'b1
// RTL_TOP: xf_exchange Vxf_exchange_w64 -GFlitBits=64
// RTL_SRCS: rtl/xf_defs_pkg.sv rtl/xf_buf_ram.sv rtl/xf_fifo.sv rtl/xf_xb.sv rtl/xf_router.sv
// RTL_SRCS: rtl/xf_exchange.sv
// Block test of the chip's exchange (rtl/xf_exchange.sv: tile paths, one xf_xb per link,
// xf_router, the XB -> tile message delay, the tiles' route lookups), Verilated with its defaults
// NumTiles = 4, NumLinks = 4, TableChips = 64, XB queue 32 / XOFF 24 / XON 8, at each flit width
// FlitBits 32, 64 and 128 (every test runs at the three, names ending in /w32, /w64, /w128; the
// 32-bit class keeps its XB queues in the block RAM form, SyncBuffers = 1, rtl/xf_buf_ram.sv).
// Packets are built at 128 bits and cut into H = 128/FlitBits header flits and 128/FlitBits
// flits per grain (kit::split_packet), with proportionally fewer grains at the narrow widths so
// that a packet has about as many flits; XREQ and XDONE are one flit at every width; the
// exchange routes a packet by its head flit (the routing fields, header bits 21:0).
//
// Around the DUT: C++ tiles that obey the tile side of docs/exchange.md section 3 and
// tile.md "Interfaces" as the model's Tile::send_engine does (3 credits, one spent per emission and
// returned by tx_credit_o; the decision of cycle c on tx_* in c+1, as a tile's output register;
// messages applied in the cycle they arrive, in link order, before the decision; XREQ, wait for
// GRANT on the session's link ignoring everything else, stop on XOFF in the cycle it arrives,
// resume on XON, keep the session across consecutive jobs to the same link, XDONE when the job
// queue empties or the next job goes elsewhere; tile-bound packets to other tiles and to
// themselves; the port of an off-chip job looked up through route_raddr_i/route_rdata_o and
// checked against the host-written table; in every cycle without such a lookup a random entry
// is read and checked), and C++ link ends (link_tx_ready_i back-pressure, with stall bursts that
// hold a link for 60..200 cycles; link_rx_* packets with idle insertion, to local tiles, forwarded
// link to link, and misrouted).
//
// Checks: every packet arrives exactly once, flit for flit, at the output the routing rule
// (docs/exchange.md section 7) gives it, in order per (source, output) stream; no interleaving on
// any output (wormhole); unused outputs (links >= cfg_num_ports_i, tiles >= cfg_num_tiles_i) stay
// silent; output valid/flit hold until ready; misroutes dropped and stat_misroutes_o equal to
// their count; a tile's credits never exceed 3 and are all back at the end; every lookup returns
// the table entry (0xFF outside TableChips); no GRANT without a request; XB stat_xb_overflow_o
// and stat_xb_proto_err_o never set, stat_xb_max_occupancy_o <= XOFF + 3 = 27 (a tile that
// stops in the cycle it sees XOFF), and the Verilated assertions (QueueNoOverflow_A,
// PathAtMostThree_A, the router's and the FIFOs') are fatal.
//
// Space covered (RandomTraffic): node configurations (cfg_num_ports_i, cfg_num_tiles_i, active
// sending tiles, active receiving links) = (4,4,4,4) (1,1,1,1) (2,2,2,2) (3,4,2,3) (4,2,1,4)
// (0,4,4,0) (2,4,4,1) (4,4,4,2), each with two random tables, crossed with {no idle, 30 %
// idle on tiles and link receivers} x {no back-pressure, link_tx_ready_i low up to 50 % plus
// stall bursts, and rx_ready_i low 10 %}. Directed: reset state; zero-load latencies and credit
// timing at the pins (tile -> tile 3, tile -> link 3, link -> tile 1, link -> link 1, XB message 2,
// XREQ -> GRANT 4); one flit per cycle per tile, local and off chip; the XOFF/XON episode with a
// stalled link (XOFF at 24, peak 27, XON at 8, every flit delivered); route lookups on all four
// ports and the host port; every misroute kind.
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
#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "Vxf_exchange.h"
#include "Vxf_exchange_w32.h"
#include "Vxf_exchange_w64.h"
#include "rtl_kit.hpp"
#include "xf/defs.hpp"

namespace xf {
namespace {

using kit::chance;
using kit::Flit;
using kit::get_field;
using kit::put_field;
using kit::rnd;
using kit::Rng;
using kit::test_name;
namespace hdr = kit::hdr;

constexpr int kT = 4;  // NumTiles of the Verilated top
constexpr int kL = 4;  // NumLinks
constexpr int kTableChips = 64;
constexpr int kOccBits = 6;  // XbOccBits = $clog2(32 + 2)
constexpr int kCredits = static_cast<int>(kExchangeLatencyCycles) + 1;
constexpr uint32_t kXoff = kXbXoffThresholdFlits;
constexpr uint32_t kXon = kXbXonThresholdFlits;
const kit::TestFile kFile{0xE7u, "test_rtl_exchange"};

using Widths = ::testing::Types<kit::Width<Vxf_exchange_w32, 32>, kit::Width<Vxf_exchange_w64, 64>,
                                kit::Width<Vxf_exchange, 128>>;
template <class W>
class RtlExchange : public ::testing::Test {};
TYPED_TEST_SUITE(RtlExchange, Widths, kit::WidthName);

enum MsgKind : int { kGrant = 0, kXonMsg = 1, kXoffMsg = 2 };
enum Ctrl : int { kData = 0, kXreq = 1, kXdone = 2 };

// A packet's source: tiles 0..3, links 4..7; its output: links 0..3, tile t at 4 + t. Its head
// carries the scoreboard's tag (source, number) in the reserved header bits.
using kit::Packet;

// Node configuration and routing table.
struct NodeCfg {
  int ports = 4, tiles = 4;                // cfg_num_ports_i, cfg_num_tiles_i
  int active_tiles = 4, active_links = 4;  // tiles that send, links that receive
  uint32_t chip = 5;
};

using Table = std::vector<uint8_t>;  // lane * 4096 + chip, 0xFF beyond TableChips

// The routing rule (docs/exchange.md section 7, xf_router), outputs numbered as xf_exchange.
int route_of(const NodeCfg& c, const Table& table, const Flit& h) {
  const auto chip = static_cast<uint32_t>(h.get(hdr::kDstChip));
  const auto tile = static_cast<int>(h.get(hdr::kDstTile));
  const auto lane = static_cast<uint32_t>(h.get(hdr::kLane));
  if (chip == c.chip) return tile < c.tiles ? kL + tile : -1;
  const uint8_t e = table[lane * kMaxChips + chip];
  return (e == 0xFF || e >= c.ports) ? -1 : e;
}

Table random_table(Rng& rng, int ports) {
  Table t(kNumLanes * kMaxChips, 0xFF);
  for (uint32_t lane = 0; lane < kNumLanes; ++lane) {
    for (int chip = 0; chip < kTableChips; ++chip) {
      const uint32_t r = rnd(rng, 100);
      uint8_t e = 0xFF;
      if (r >= 8 && r < 16) {
        e = static_cast<uint8_t>(ports + static_cast<int>(rnd(rng, 255 - ports)));  // no port
      } else if (r >= 16 && ports > 0) {
        e = static_cast<uint8_t>(rnd(rng, ports));
      }
      t[lane * kMaxChips + chip] = e;
    }
  }
  return t;
}

// A packet of `len` flits at 128 bits (a header and len - 1 grains), cut into flits of `bits`
// with (len - 1) * bits / 128 grains: about as many flits at every width.
Packet make_packet(Rng& rng, int src, int number, int len, uint32_t src_chip, uint32_t dst_chip,
                   int dst_tile, uint32_t lane, uint32_t bits) {
  Packet p;
  p.src = src;
  p.number = number;
  len = 1 + (len - 1) * static_cast<int>(bits) / 128;
  for (int k = 0; k < len; ++k) {
    Flit f;
    f.head = k == 0;
    f.tail = k == len - 1;
    f.random_data(rng);
    p.flits.push_back(f);
  }
  Flit& h = p.flits[0];
  h = Flit::header({{hdr::kOpcode, 0},  // Write
                    {hdr::kDstChip, dst_chip},
                    {hdr::kDstTile, static_cast<uint64_t>(dst_tile)},
                    {hdr::kDstAddr, rnd(rng, 1u << 16) * 16},
                    {hdr::kLen, static_cast<uint64_t>(len - 1) * kFlitBytes},
                    {hdr::kLane, lane},
                    {hdr::kSrcChip, src_chip},
                    {hdr::kSrcTile, static_cast<uint64_t>(src & 0xF)},
                    {hdr::kSeq, static_cast<uint64_t>(number)}},
                   len == 1);
  kit::PacketScoreboard::tag(h, src, number);
  p.flits = kit::split_packet(p.flits, bits);
  return p;
}

// The packet's first n flits, the last of them its tail (a packet of n flits at every width).
Packet truncate(Packet p, size_t n) {
  p.flits.resize(n);
  p.flits.back().tail = true;
  return p;
}

int random_len(Rng& rng) {
  const uint32_t r = rnd(rng, 100);
  if (r < 70) return 1 + static_cast<int>(rnd(rng, 8));
  if (r < 95) return 9 + static_cast<int>(rnd(rng, 32));
  return 41 + static_cast<int>(rnd(rng, 89));  // up to 129 flits (2048-byte payload)
}

// The Verilated exchange at flit width W::kBits with pin-level helpers.
template <class W>
class Bench {
 public:
  using V = typename W::Dut;
  Bench() {
    dut_.reset([](V& d) {
      d.cfg_route_we_i = 0;
      d.clear_i = 0;
      d.tx_valid_i = 0;
      d.rx_ready_i = 0xF;
      d.link_tx_ready_i = 0xF;
      d.link_rx_valid_i = 0;
    });
  }

  V& dut() { return *dut_; }
  uint64_t now() const { return dut_.cycle(); }
  void tick() { dut_.tick(); }

  void set_cfg(const NodeCfg& c) {
    dut_->cfg_chip_id_i = c.chip;
    dut_->cfg_num_ports_i = static_cast<uint8_t>(c.ports);
    dut_->cfg_num_tiles_i = static_cast<uint8_t>(c.tiles);
    dut_->eval();
  }

  // Writes the TableChips entries of every lane through the host port.
  void load_table(const Table& t) {
    for (uint32_t lane = 0; lane < kNumLanes; ++lane) {
      for (int chip = 0; chip < kTableChips; ++chip) {
        dut_->cfg_route_we_i = 1;
        dut_->cfg_route_addr_i = lane * kMaxChips + chip;
        dut_->cfg_route_wdata_i = t[lane * kMaxChips + chip];
        tick();
      }
    }
    dut_->cfg_route_we_i = 0;
    dut_->eval();
  }

  void set_tx(int t, bool valid, const Flit& f, bool link, int port, int ctrl) {
    V& d = *dut_;
    put_field(d.tx_valid_i, t, 1, valid);
    put_field(d.tx_link_i, t, 1, link);
    put_field(d.tx_port_i, t * 4, 4, static_cast<uint64_t>(port));
    put_field(d.tx_ctrl_i, t * 2, 2, static_cast<uint64_t>(ctrl));
    kit::put_flit(d.tx_flit_i, t, f, W::kBits);
  }
  void set_link_rx(int l, bool valid, const Flit& f) {
    put_field(dut_->link_rx_valid_i, l, 1, valid);
    kit::put_flit(dut_->link_rx_flit_i, l, f, W::kBits);
  }
  void set_raddr(int t, uint32_t a) { put_field(dut_->route_raddr_i, t * 14, 14, a); }

  bool credit(int t) const { return get_field(dut_->tx_credit_o, t, 1); }
  bool rx_valid(int t) const { return get_field(dut_->rx_valid_o, t, 1); }
  Flit rx_flit(int t) const { return kit::get_flit(dut_->rx_flit_o, t, W::kBits); }
  bool tx_link_valid(int l) const { return get_field(dut_->link_tx_valid_o, l, 1); }
  Flit link_tx_flit(int l) const { return kit::get_flit(dut_->link_tx_flit_o, l, W::kBits); }
  bool link_rx_ready(int l) const { return get_field(dut_->link_rx_ready_o, l, 1); }
  // Message from XB l to tile t this cycle: -1 none, else its kind.
  int msg(int t, int l) const {
    if (!get_field(dut_->xb_msg_valid_o, t * kL + l, 1)) return -1;
    return static_cast<int>(get_field(dut_->xb_msg_kind_o, (t * kL + l) * 2, 2));
  }
  uint32_t rdata(int t) const {
    return static_cast<uint32_t>(get_field(dut_->route_rdata_o, t * 8, 8));
  }
  uint32_t xb_occ(int l) const {
    return static_cast<uint32_t>(get_field(dut_->stat_xb_occupancy_o, l * kOccBits, kOccBits));
  }
  uint32_t xb_max_occ(int l) const {
    return static_cast<uint32_t>(get_field(dut_->stat_xb_max_occupancy_o, l * kOccBits, kOccBits));
  }

 private:
  kit::Dut<V> dut_;
};

// A send job of a tile: one packet, to a tile of this chip or off chip.
struct Job {
  uint64_t release = 0;  // cycle from which the tile may start it
  bool local = true;
  uint32_t addr = 0;   // route lookup address (lane * 4096 + chip) of an off-chip job
  int want_port = -1;  // the table's port for it
  int port = -1;       // the port the tile looked up (-1: not yet)
  bool lookup_inflight = false;
  uint64_t id = 0;
  Packet pkt;
};

// A tile's send side, as the model's Tile::send_engine (see the header).
class TileSim {
 public:
  int id = 0;
  int idle_pct = 0;
  std::deque<Job> pending, jobs;  // not yet released, released
  int credits = kCredits;
  bool in_session = false, requested = false, xon = false;
  int session_link = -1;
  size_t pos = 0;  // next flit of jobs.front()
  uint64_t next_job_id = 0;
  // Output register: decided last cycle, on tx_* this cycle.
  bool tx_valid = false, tx_link = false;
  Flit tx_flit;
  int tx_port = 0, tx_ctrl = 0;
  // Lookup addresses: driven this cycle, driven last cycle (its data arrives now).
  uint32_t addr_cur = 0, addr_prev = 0;
  bool cur_for_job = false, prev_for_job = false, prev_valid = false;
  uint64_t cur_job = 0, prev_job = 0;  // the job a lookup is for
  uint64_t flits_sent = 0, sessions = 0, lookups = 0, last_decision = 0;
  std::array<uint64_t, 3> msgs{};

  bool idle() const {
    return pending.empty() && jobs.empty() && !in_session && !tx_valid && credits == kCredits;
  }
};

// One traffic run on a bench: tiles, links, scoreboard.
template <class W>
class Traffic {
 public:
  static constexpr uint32_t kBits = W::kBits;
  Traffic(Bench<W>& b, const NodeCfg& c, const Table& table, Rng& rng)
      : b_(b),
        cfg_(c),
        table_(table),
        rng_(rng),
        fails_(kFile),
        sb_(kL + kT, 8, fails_, out_name, kBits) {
    for (int t = 0; t < kT; ++t) tiles_[t].id = t;
    for (int l = 0; l < kL; ++l) {  // a link's back-pressure bursts hold it 60..200 cycles
      sinks_[l].burst_min = 60;
      sinks_[l].burst_max = 200;
    }
    // Ports reachable from this chip: (lane, chip) pairs whose entry is a connected port.
    for (uint32_t lane = 0; lane < kNumLanes; ++lane) {
      for (int chip = 0; chip < kTableChips; ++chip) {
        const uint8_t e = table[lane * kMaxChips + chip];
        if (static_cast<uint32_t>(chip) != c.chip && e < c.ports)
          remote_.push_back(lane * kMaxChips + static_cast<uint32_t>(chip));
      }
    }
  }

  TileSim& tile(int t) { return tiles_[t]; }
  kit::Source& link_rx(int l) { return links_[l]; }  // link_rx_* of link l
  kit::Sink& out(int o) { return sinks_[o]; }        // output o's ready: link o, tile o - kL
  uint64_t misroutes_expected() const { return misroutes_; }
  int failures() const { return fails_.count(); }
  uint64_t packets() const { return packets_; }
  uint64_t flits_out() const { return flits_out_; }
  const std::vector<uint64_t>& arrivals(int o) const { return arrivals_[o]; }
  uint64_t msgs(int k) const {
    uint64_t n = 0;
    for (const TileSim& t : tiles_) n += t.msgs[k];
    return n;
  }
  uint64_t lookups() const {
    uint64_t n = 0;
    for (const TileSim& t : tiles_) n += t.lookups;
    return n;
  }
  uint32_t max_occ() const {
    uint32_t m = 0;
    for (int l = 0; l < kL; ++l) m = std::max(m, b_.xb_max_occ(l));
    return m;
  }

  void expect(const Packet& p) {
    ++packets_;
    if (p.out < 0) {
      ++misroutes_;
    } else {
      sb_.expect(p);
    }
  }

  // A job for tile t: local (to tile dst, which may not exist) or off chip (to the table entry
  // `addr`, or a random reachable destination when addr < 0); released `gap` cycles after the
  // previous one. Returns the packet's flits.
  int add_job(int t, bool local, int dst, int len, uint64_t gap, int64_t addr = -1) {
    TileSim& s = tiles_[t];
    Job j;
    j.id = s.next_job_id++;
    j.release = (s.pending.empty() ? b_.now() : s.pending.back().release) + gap;
    j.local = local;
    const int number = next_number_[t]++;
    if (local) {
      j.pkt = make_packet(rng_, t, number, len, cfg_.chip, cfg_.chip, dst, rnd(rng_, 4), kBits);
      j.pkt.out = dst < cfg_.tiles ? kL + dst : -1;
    } else {
      j.addr = addr >= 0 ? static_cast<uint32_t>(addr)
                         : remote_[rnd(rng_, static_cast<uint32_t>(remote_.size()))];
      j.want_port = table_[j.addr];
      j.pkt = make_packet(rng_, t, number, len, cfg_.chip, j.addr % kMaxChips,
                          static_cast<int>(rnd(rng_, 16)), j.addr / kMaxChips, kBits);
      j.pkt.out = j.want_port;
    }
    expect(j.pkt);
    const int flits = static_cast<int>(j.pkt.flits.size());
    s.pending.push_back(std::move(j));
    return flits;
  }

  void add_random_jobs(int t, int n, bool gaps) {
    for (int k = 0; k < n; ++k) {
      const bool local = remote_.empty() || rnd(rng_, 100) < 45;
      int dst = static_cast<int>(rnd(rng_, static_cast<uint32_t>(cfg_.tiles)));
      if (local && rnd(rng_, 100) < 4)
        dst = cfg_.tiles + static_cast<int>(rnd(rng_, 16 - cfg_.tiles));
      const uint64_t gap = (!gaps || rnd(rng_, 2)) ? 0 : rnd(rng_, 40);
      add_job(t, local, dst, random_len(rng_), gap);
    }
  }

  void add_link_packet(int l, const Packet& p) {
    links_[l].push(p.flits);
    expect(p);
  }

  void add_random_link_packets(int l, int n) {
    for (int k = 0; k < n; ++k) {
      const uint32_t r = rnd(rng_, 100);
      uint32_t chip = 0, lane = rnd(rng_, 4);
      int tile = static_cast<int>(rnd(rng_, 16));
      if (r < 40) {
        chip = cfg_.chip;
        tile = static_cast<int>(rnd(rng_, static_cast<uint32_t>(cfg_.tiles)));
      } else if (r < 44) {
        chip = cfg_.chip;
        tile = cfg_.tiles + static_cast<int>(rnd(rng_, 16 - cfg_.tiles));
      } else if (r < 94) {
        do {
          chip = rnd(rng_, kTableChips);
        } while (chip == cfg_.chip);
      } else {
        chip = kTableChips + rnd(rng_, kMaxChips - kTableChips);  // beyond the table
      }
      Packet p = make_packet(rng_, 4 + l, next_number_[4 + l]++, random_len(rng_), 0x800 + l, chip,
                             tile, lane, kBits);
      p.out = route_of(cfg_, table_, p.flits[0]);
      add_link_packet(l, p);
    }
  }

  bool idle() const {
    for (const TileSim& t : tiles_)
      if (!t.idle()) return false;
    for (int l = 0; l < kL; ++l)
      if (!links_[l].empty()) return false;
    return sb_.idle();
  }

  // One cycle: drive, sample, let the tiles decide, clock.
  void step() {
    auto& d = b_.dut();
    const uint64_t now = b_.now();
    // Drive.
    uint32_t rx_ready = 0, tx_ready = 0;
    for (int t = 0; t < kT; ++t) {
      TileSim& s = tiles_[t];
      b_.set_tx(t, s.tx_valid, s.tx_flit, s.tx_link, s.tx_port, s.tx_ctrl);
      b_.set_raddr(t, s.addr_cur);
      if (sinks_[kL + t].ready(rng_)) rx_ready |= 1u << t;
    }
    for (int l = 0; l < kL; ++l) {
      kit::Source& k = links_[l];
      const bool valid = k.offer(rng_, l >= cfg_.active_links);
      b_.set_link_rx(l, valid, valid ? k.flit() : kit::junk_flit(rng_, kBits));
      if (sinks_[l].ready(rng_)) tx_ready |= 1u << l;
    }
    d.rx_ready_i = static_cast<uint8_t>(rx_ready);
    d.link_tx_ready_i = static_cast<uint8_t>(tx_ready);
    d.eval();
    // Outputs.
    for (int o = 0; o < kL + kT; ++o) {
      const bool tile_out = o >= kL;
      const bool valid = tile_out ? b_.rx_valid(o - kL) : b_.tx_link_valid(o);
      const bool ready = tile_out ? ((rx_ready >> (o - kL)) & 1u) : ((tx_ready >> o) & 1u);
      const Flit f = tile_out ? b_.rx_flit(o - kL) : b_.link_tx_flit(o);
      const std::string held = sinks_[o].watch(valid, ready, f);
      if (!held.empty()) fail("output " + out_name(o) + " " + held);
      if (valid && (tile_out ? o - kL >= cfg_.tiles : o >= cfg_.ports))
        fail("flit on unused output " + out_name(o) + ": " + describe(f));
      if (valid && ready) {
        ++flits_out_;
        arrivals_[o].push_back(now);
        sb_.on_flit(o, f, now);
      }
    }
    for (int l = 0; l < kL; ++l) {
      kit::Source& k = links_[l];
      if (k.offering() && b_.link_rx_ready(l)) k.take();
    }
    if (d.stat_xb_overflow_o != 0 && !overflow_reported_) {
      overflow_reported_ = true;
      fail("stat_xb_overflow_o set");
    }
    if (d.stat_xb_proto_err_o != 0 && !proto_reported_) {
      proto_reported_ = true;
      fail("stat_xb_proto_err_o set");
    }
    for (TileSim& s : tiles_) tile_step(s, now);
    b_.tick();
  }

  void run(uint64_t max_cycles) {
    const uint64_t start = b_.now();
    while (!idle()) {
      if (b_.now() - start > max_cycles || fails_.too_many()) {
        fail("no progress: traffic not drained after " + std::to_string(max_cycles) + " cycles");
        return;
      }
      step();
    }
    for (int k = 0; k < 4; ++k) step();
  }

  void fail(const std::string& what) { fails_.fail(b_.now(), what); }

 private:
  static std::string out_name(int o) {
    return o < kL ? "link " + std::to_string(o) : "tile " + std::to_string(o - kL);
  }

  void emit(TileSim& s, const Flit& f, bool link, int port, int ctrl) {
    --s.credits;
    s.tx_valid = true;
    s.tx_flit = f;
    s.tx_link = link;
    s.tx_port = port;
    s.tx_ctrl = ctrl;
    s.last_decision = b_.now();
  }

  void tile_step(TileSim& s, uint64_t now) {
    const int t = s.id;
    if (b_.credit(t) && ++s.credits > kCredits) fail("tile " + std::to_string(t) + ": 4 credits");
    // The lookup driven last cycle.
    if (s.prev_valid) {
      const uint32_t got = b_.rdata(t);
      ++s.lookups;
      if (got != table_[s.addr_prev]) {
        fail("tile " + std::to_string(t) + " lookup 0x" + std::to_string(s.addr_prev) + " read " +
             std::to_string(got) + ", table has " + std::to_string(table_[s.addr_prev]));
      }
      if (s.prev_for_job) {
        for (Job& j : s.jobs) {
          if (j.id == s.prev_job) {
            j.port = static_cast<int>(got);
            j.lookup_inflight = false;
          }
        }
      }
    }
    // Messages, in link order.
    for (int l = 0; l < kL; ++l) {
      const int k = b_.msg(t, l);
      if (k < 0) continue;
      if (k > 2) {
        fail("message kind 3");
        continue;
      }
      ++s.msgs[k];
      if (!s.in_session || l != s.session_link) {
        if (k == kGrant) fail("GRANT from link " + std::to_string(l) + " without a request");
        continue;  // stale XON/XOFF of an earlier session
      }
      if (s.requested) {
        if (k == kGrant) {
          s.requested = false;
          s.xon = true;
        }
      } else if (k != kGrant) {
        s.xon = k == kXonMsg;
      } else {
        fail("GRANT to a tile that holds the grant");
      }
    }
    while (!s.pending.empty() && s.pending.front().release <= now) {
      s.jobs.push_back(std::move(s.pending.front()));
      s.pending.pop_front();
    }
    // Lookup address of the next cycle: the port of the first off-chip job without one (one
    // lookup per cycle, ahead of the send engine), else a random entry to check.
    s.addr_prev = s.addr_cur;
    s.prev_for_job = s.cur_for_job;
    s.prev_job = s.cur_job;
    s.prev_valid = true;
    s.cur_for_job = false;
    s.addr_cur = static_cast<uint32_t>(rnd(rng_, 1u << 14));  // any lane and chip
    if (rnd(rng_, 2)) s.addr_cur = rnd(rng_, 4) * kMaxChips + rnd(rng_, kTableChips);
    for (Job& j : s.jobs) {
      if (!j.local && j.port < 0 && !j.lookup_inflight) {
        j.lookup_inflight = true;
        s.addr_cur = j.addr;
        s.cur_for_job = true;
        s.cur_job = j.id;
        break;
      }
    }
    // Send engine.
    s.tx_valid = false;
    if (s.credits <= 0 || chance(rng_, s.idle_pct)) return;
    Flit ctl;
    ctl.head = ctl.tail = true;
    if (s.jobs.empty()) {
      if (s.in_session) {
        emit(s, ctl, true, s.session_link, kXdone);
        s.in_session = s.xon = false;
      }
      return;
    }
    Job& j = s.jobs.front();
    if (!j.local && j.port < 0) return;  // its lookup is on the way
    if (!j.local && j.port != j.want_port) {
      fail("tile " + std::to_string(t) + ": looked-up port " + std::to_string(j.port) +
           ", table says " + std::to_string(j.want_port));
      j.port = j.want_port;
    }
    if (s.in_session && (j.local || s.session_link != j.port) && s.pos == 0) {
      emit(s, ctl, true, s.session_link, kXdone);
      s.in_session = s.xon = false;
      return;
    }
    if (!j.local) {
      if (!s.in_session) {
        emit(s, ctl, true, j.port, kXreq);
        s.in_session = s.requested = true;
        s.xon = false;
        s.session_link = j.port;
        ++s.sessions;
        return;
      }
      if (!s.xon) return;
    }
    const Flit f = j.pkt.flits[s.pos];
    const int dst = static_cast<int>(j.pkt.flits[0].get(hdr::kDstTile));
    emit(s, f, !j.local, j.local ? dst : j.port, kData);
    ++s.flits_sent;
    if (++s.pos == j.pkt.flits.size()) {
      s.pos = 0;
      s.jobs.pop_front();
    }
  }

  Bench<W>& b_;
  NodeCfg cfg_;
  const Table& table_;
  Rng& rng_;
  std::array<TileSim, kT> tiles_;
  std::array<kit::Source, kL> links_;
  kit::Failures fails_;
  kit::PacketScoreboard sb_;  // [output][source]
  std::array<kit::Sink, kL + kT> sinks_;
  std::array<std::vector<uint64_t>, kL + kT> arrivals_;
  std::array<int, 8> next_number_{};
  std::vector<uint32_t> remote_;
  uint64_t misroutes_ = 0, packets_ = 0, flits_out_ = 0;
  bool overflow_reported_ = false, proto_reported_ = false;
};

// ---- Tests -------------------------------------------------------------------------------------

TYPED_TEST(RtlExchange, ResetState) {
  using W = TypeParam;
  auto rng = kFile.rng();
  Bench<W> b;
  b.set_cfg(NodeCfg{});
  auto& d = b.dut();
  for (int i = 0; i < 10; ++i) {
    d.eval();
    EXPECT_EQ(d.tx_credit_o, 0);
    EXPECT_EQ(d.rx_valid_o, 0);
    EXPECT_EQ(d.link_tx_valid_o, 0);
    EXPECT_EQ(d.xb_msg_valid_o, 0);
    EXPECT_EQ(d.link_rx_ready_o, 0xF);  // empty router stages take at once
    EXPECT_EQ(d.stat_misroutes_o, 0u);
    EXPECT_EQ(d.stat_xb_occupancy_o, 0u);
    EXPECT_EQ(d.stat_xb_max_occupancy_o, 0u);
    EXPECT_EQ(d.stat_xb_xoff_o, 0);
    EXPECT_EQ(d.stat_xb_overflow_o, 0);
    EXPECT_EQ(d.stat_xb_proto_err_o, 0);
    EXPECT_EQ(d.stat_path_level_o, 0);
    b.tick();
  }
  d.clear_i = 1;  // start/clear of an idle exchange: nothing happens (ClearWhenIdle_A holds)
  b.tick();
  d.clear_i = 0;
  d.eval();
  EXPECT_EQ(d.tx_credit_o, 0);
  EXPECT_EQ(d.rx_valid_o, 0);
  (void)rng;
}

// Zero-load timing at the pins. "Decision" is the tile's send decision in cycle c; its tx_* are
// driven in c+1 (the tile's output register).
TYPED_TEST(RtlExchange, Latency) {
  using W = TypeParam;
  auto rng = kFile.rng();
  Bench<W> b;
  NodeCfg c;
  c.chip = 5;
  b.set_cfg(c);
  Table table(kNumLanes * kMaxChips, 0xFF);
  table[1 * kMaxChips + 9] = 2;  // lane 1, chip 9 -> link 2
  table[0 * kMaxChips + 7] = 3;  // lane 0, chip 7 -> link 3
  b.load_table(table);
  auto& d = b.dut();
  auto idle_tx = [&] {
    for (int t = 0; t < kT; ++t) b.set_tx(t, false, Flit{}, false, 0, 0);
  };
  // Runs until pred() or 20 cycles; returns the cycle offset from `from`.
  auto wait_for = [&](uint64_t from, const std::function<bool()>& pred) -> int {
    for (int i = 0; i < 20; ++i) {
      d.eval();
      if (pred()) return static_cast<int>(b.now() - from);
      b.tick();
      idle_tx();
    }
    return -1;
  };
  // Tile 0 -> tile 1, one flit: decision in c, tx_valid in c+1, tile 1 has it in c+3; the
  // credit pulses in c+3.
  {
    Packet p = truncate(make_packet(rng, 0, 0, 1, 5, 5, 1, 0, W::kBits), 1);
    const uint64_t c0 = b.now();  // decision cycle
    b.tick();
    b.set_tx(0, true, p.flits[0], false, 1, kData);
    d.eval();
    EXPECT_EQ(d.tx_credit_o, 0);
    b.tick();
    idle_tx();
    uint64_t credit_at = 0;
    const int lat = wait_for(c0, [&] {
      if (b.credit(0) && credit_at == 0) credit_at = b.now() - c0;
      return b.rx_valid(1);
    });
    EXPECT_EQ(lat, 3) << "tile -> tile";
    EXPECT_TRUE(b.rx_flit(1) == p.flits[0]);
    EXPECT_EQ(credit_at, 3u) << "credit of a tile-bound flit";
    b.tick();
    d.eval();
    EXPECT_EQ(d.rx_valid_o, 0);
    std::printf("[  TIMING  ] tile -> tile: decision c, rx_valid_o c+%d, credit c+%" PRIu64 "\n",
                lat, credit_at);
  }
  for (int i = 0; i < 5; ++i) b.tick();
  // Tile 2 session on link 2: XREQ decided in c, at the XB in c+2, GRANT on xb_msg in c+4; first
  // flit decided in c+4, on link_tx in c+7; credit of the XREQ in c+3.
  {
    Flit ctl;
    ctl.head = ctl.tail = true;
    const uint64_t c0 = b.now();
    b.tick();
    b.set_tx(2, true, ctl, true, 2, kXreq);
    b.tick();
    idle_tx();
    uint64_t credit_at = 0;
    const int grant = wait_for(c0, [&] {
      if (b.credit(2) && credit_at == 0) credit_at = b.now() - c0;
      return b.msg(2, 2) >= 0;
    });
    EXPECT_EQ(grant, 4) << "XREQ -> GRANT at the tile";
    EXPECT_EQ(b.msg(2, 2), kGrant);
    EXPECT_EQ(credit_at, 3u) << "credit of an XREQ";
    // Decide the first flit in this same cycle (c1), drive it in c1+1.
    const uint64_t c1 = b.now();
    Packet p = truncate(make_packet(rng, 2, 0, 2, 5, 9, 0, 1, W::kBits), 2);
    b.tick();
    b.set_tx(2, true, p.flits[0], true, 2, kData);
    b.tick();
    b.set_tx(2, true, p.flits[1], true, 2, kData);
    d.eval();
    const int lat = wait_for(c1, [&] { return b.tx_link_valid(2); });
    EXPECT_EQ(lat, 3) << "tile -> link";
    EXPECT_TRUE(b.link_tx_flit(2) == p.flits[0]);
    b.tick();
    d.eval();
    EXPECT_TRUE(b.tx_link_valid(2) && b.link_tx_flit(2) == p.flits[1]);
    b.tick();
    b.set_tx(2, true, ctl, true, 2, kXdone);
    b.tick();
    idle_tx();
    for (int i = 0; i < 4; ++i) b.tick();
    d.eval();
    EXPECT_EQ(d.stat_xb_proto_err_o, 0);
    std::printf(
        "[  TIMING  ] XREQ decided c: GRANT at the tile c+%d; flit decided c': link_tx c'+%d\n",
        grant, lat);
  }
  // Link 1 rx -> tile 3 and link 1 rx -> link 3 (lane 0, chip 7): taken in c, out in c+1.
  for (int to_link = 0; to_link < 2; ++to_link) {
    Packet p = truncate(to_link ? make_packet(rng, 5, 0, 1, 0x801, 7, 0, 0, W::kBits)
                                : make_packet(rng, 5, 0, 1, 0x801, 5, 3, 0, W::kBits),
                        1);
    b.set_link_rx(1, true, p.flits[0]);
    d.eval();
    ASSERT_TRUE(b.link_rx_ready(1));
    const uint64_t c0 = b.now();
    b.tick();
    b.set_link_rx(1, false, Flit{});
    const int lat = wait_for(c0, [&] { return to_link ? b.tx_link_valid(3) : b.rx_valid(3); });
    EXPECT_EQ(lat, 1) << (to_link ? "link -> link" : "link -> tile");
    EXPECT_TRUE((to_link ? b.link_tx_flit(3) : b.rx_flit(3)) == p.flits[0]);
    b.tick();
    std::printf("[  TIMING  ] link rx -> %s: taken c, out c+%d\n", to_link ? "link tx" : "tile",
                lat);
  }
  EXPECT_EQ(d.stat_misroutes_o, 0u);
}

// Every active tile streams long packets back to back, each to its own destination: one flit
// per cycle per tile (3 credits cover the 3-cycle loop), local and through an XB.
TYPED_TEST(RtlExchange, Throughput) {
  using W = TypeParam;
  auto rng = kFile.rng();
  for (const bool remote : {false, true}) {
    Bench<W> b;
    NodeCfg c;
    c.chip = 12;
    b.set_cfg(c);
    Table table(kNumLanes * kMaxChips, 0xFF);
    for (int l = 0; l < kL; ++l) table[20 + l] = static_cast<uint8_t>(l);  // lane 0 chip 20+l
    b.load_table(table);
    Traffic<W> r(b, c, table, rng);
    int flits[kT] = {};
    for (int t = 0; t < kT; ++t) {
      for (int k = 0; k < 6; ++k) {
        const int len = 1 + static_cast<int>(rnd(rng, 129));
        flits[t] += r.add_job(t, !remote, (t + 1) % kT, len, 0, 20 + t);  // link t, or tile t + 1
      }
    }
    r.run(20000);
    EXPECT_EQ(r.failures(), 0);
    for (int t = 0; t < kT; ++t) {
      const int o = remote ? t : kL + (t + 1) % kT;
      const auto& a = r.arrivals(o);
      ASSERT_EQ(a.size(), static_cast<size_t>(flits[t]));
      // Local: one flit per cycle. Off chip: one session (XREQ, GRANT), then one per cycle.
      EXPECT_EQ(a.back() - a.front(), static_cast<uint64_t>(flits[t] - 1)) << "tile " << t;
      std::printf("[  VECTORS ] %s: tile %d -> %s %d: %d flits in %" PRIu64 " cycles\n",
                  test_name().c_str(), t, remote ? "link" : "tile", remote ? t : (t + 1) % kT,
                  flits[t], a.back() - a.front() + 1);
    }
    EXPECT_EQ(b.dut().stat_misroutes_o, 0u);
  }
}

// docs/exchange.md section 3.2 on the whole exchange: link 0 stalled while tile 0 streams 123
// flits into XB 0 (3 packets of 41 flits; 3 x 42 at 64 bits, 3 x 44 at 32). XOFF when the queue
// reaches 24, the tile stops in the cycle it sees it (2 cycles later), the XB's count (queue and
// the flit in the router's stage, as the model's queue) peaks at 24 + 3 = 27; after the release,
// XON at 8 and everything arrives.
TYPED_TEST(RtlExchange, XoffXonStalledLink) {
  using W = TypeParam;
  auto rng = kFile.rng();
  Bench<W> b;
  NodeCfg c;
  c.chip = 3;
  b.set_cfg(c);
  Table table(kNumLanes * kMaxChips, 0xFF);
  table[2 * kMaxChips + 30] = 0;
  b.load_table(table);
  Traffic<W> r(b, c, table, rng);
  for (int k = 0; k < 3; ++k) {
    r.add_job(0, false, 0, 41, 0);  // the only reachable destination: lane 2, chip 30, link 0
  }
  r.out(0).force_stall = true;
  uint64_t xoff_at = 0, xon_at = 0, xoff_seen = 0;
  uint32_t min_after_xon = ~0u;
  bool refilled = false;
  while (b.now() < 300) {
    r.step();
    if (!xoff_at && b.dut().stat_xb_xoff_o & 1u) xoff_at = b.now();
    if (!xoff_seen && r.msgs(kXoffMsg)) xoff_seen = b.now();
  }
  EXPECT_NE(xoff_at, 0u);
  // stat_xb_xoff_o rises the cycle after the XB sends XOFF; the tile sees it one cycle later.
  EXPECT_EQ(xoff_seen, xoff_at + 1 + 1) << "XOFF reaches the tile 2 cycles after the XB sends it";
  EXPECT_EQ(b.xb_max_occ(0), kXoff + 3) << "peak";
  // The XB counts the flit in the router's stage (StagedConsumer): queue 26 + stage 1.
  EXPECT_EQ(b.xb_occ(0), kXoff + 3 - 1);
  const uint32_t sent_before = static_cast<uint32_t>(r.tile(0).flits_sent);
  r.out(0).force_stall = false;
  const uint64_t release = b.now();
  while (!r.idle() && b.now() < release + 2000) {
    r.step();
    if (!xon_at && r.msgs(kXonMsg)) xon_at = b.now();
    if (xon_at && !refilled) {
      min_after_xon = std::min(min_after_xon, b.xb_occ(0));
      if (r.tile(0).flits_sent > sent_before + 3) refilled = true;
    }
  }
  r.run(1000);
  EXPECT_TRUE(r.idle());
  EXPECT_EQ(r.failures(), 0);
  EXPECT_NE(xon_at, 0u);
  EXPECT_GT(min_after_xon, 0u) << "the queue ran dry after XON";
  EXPECT_EQ(r.msgs(kXoffMsg), 1u);
  EXPECT_EQ(r.msgs(kXonMsg), 1u);
  EXPECT_EQ(b.dut().stat_xb_overflow_o, 0);
  std::printf(
      "[   INFO   ] stalled link: XOFF at %u, peak %u (queue and router stage), "
      "XON at %u, refill bottom %u, tile sent %u flits before the release\n",
      kXoff, b.xb_max_occ(0), kXon, min_after_xon, sent_before);
}

// XB messages of consecutive cycles reach the tiles intact (the two register stages hold one
// message per link each): XOFF to the tile holding a link in cycle c, then, when that tile's
// XDONE arrives in c + 1 and the link takes one flit so the queue falls below XOFF, GRANT to the
// next waiting tile in c + 1. Tile 0 sends one packet of `len` flits into a stalled link 0,
// tile 1 waits for the link; the link takes a flit in one cycle `pulse` only. The sweep over
// (len, pulse) must meet the case at least once, and every run delivers everything.
TYPED_TEST(RtlExchange, XoffThenGrantInConsecutiveCycles) {
  using W = TypeParam;
  auto rng = kFile.rng();
  int hits = 0, runs = 0;
  for (int len = static_cast<int>(kXoff) - 6; len <= static_cast<int>(kXoff) + 6; ++len) {
    for (uint64_t pulse = 20; pulse <= 50; ++pulse) {
      Bench<W> b;
      NodeCfg c;
      c.chip = 3;
      b.set_cfg(c);
      Table table(kNumLanes * kMaxChips, 0xFF);
      table[2 * kMaxChips + 30] = 0;  // lane 2, chip 30: link 0, the only reachable port
      b.load_table(table);
      Traffic<W> r(b, c, table, rng);
      r.add_job(0, false, 0, len, 0);
      r.add_job(1, false, 0, 5, 3);
      r.out(0).force_stall = true;
      const uint64_t t0 = b.now();
      int last_xoff = -100;  // cycle of the last XOFF to tile 0 on link 0
      bool hit = false;
      while (b.now() < t0 + 150) {
        r.out(0).force_stall = b.now() != t0 + pulse;
        r.step();
        const int now = static_cast<int>(b.now() - t0);
        if (b.msg(0, 0) == kXoffMsg) last_xoff = now;
        if (b.msg(1, 0) == kGrant && last_xoff == now - 1) hit = true;
      }
      r.out(0).force_stall = false;
      r.run(3000);
      ++runs;
      ASSERT_TRUE(r.idle()) << "len " << len << " pulse " << pulse;
      ASSERT_EQ(r.failures(), 0) << "len " << len << " pulse " << pulse;
      EXPECT_EQ(r.tile(1).msgs[kGrant], 1u) << "len " << len << " pulse " << pulse;
      if (hit) ++hits;
    }
  }
  std::printf("[   INFO   ] %d runs, XOFF then GRANT in consecutive cycles in %d\n", runs, hits);
  EXPECT_GT(hits, 0) << "the sweep never met XOFF and GRANT in consecutive cycles";
}

// Route lookups: all four tile ports and the host port read random entries (inside and outside
// TableChips, every lane) and return the host-written table one cycle later.
TYPED_TEST(RtlExchange, RouteLookups) {
  using W = TypeParam;
  auto rng = kFile.rng();
  Bench<W> b;
  NodeCfg c;
  b.set_cfg(c);
  const Table table = random_table(rng, 4);
  b.load_table(table);
  std::array<uint32_t, kT> prev{};
  uint32_t host_prev = 0;
  int checked = 0, outside = 0;
  for (int cyc = 0; cyc < 2000; ++cyc) {
    std::array<uint32_t, kT> a{};
    for (int t = 0; t < kT; ++t) {
      a[t] = rnd(rng, 2) ? rnd(rng, 1u << 14) : rnd(rng, 4) * kMaxChips + rnd(rng, kTableChips);
      b.set_raddr(t, a[t]);
    }
    const uint32_t ha = rnd(rng, 1u << 14);
    b.dut().cfg_route_raddr_i = ha;
    b.dut().eval();
    if (cyc > 0) {
      for (int t = 0; t < kT; ++t) {
        EXPECT_EQ(b.rdata(t), table[prev[t]]) << "tile " << t << " entry " << prev[t];
        ++checked;
        if (prev[t] % kMaxChips >= static_cast<uint32_t>(kTableChips)) ++outside;
      }
      EXPECT_EQ(b.dut().cfg_route_rdata_o, table[host_prev]) << "host entry " << host_prev;
    }
    prev = a;
    host_prev = ha;
    b.tick();
  }
  std::printf("[  VECTORS ] %s: %d tile lookups (%d outside TableChips read 0xFF)\n",
              test_name().c_str(), checked, outside);
}

// Every misroute kind is dropped and counted once, and the packet behind it still arrives:
// link packets to a missing tile, to chips beyond TableChips, to 0xFF entries, to ports at or
// above cfg_num_ports_i (an unconnected link slot and beyond NumLinks); tile-bound packets from a
// tile to a tile that does not exist.
TYPED_TEST(RtlExchange, Misroutes) {
  using W = TypeParam;
  auto rng = kFile.rng();
  Bench<W> b;
  NodeCfg c;
  c.ports = 2;
  c.tiles = 3;
  c.chip = 10;
  b.set_cfg(c);
  Table table(kNumLanes * kMaxChips, 0xFF);
  table[0 * kMaxChips + 11] = 1;  // good: link 1
  table[1 * kMaxChips + 12] = 3;  // link slot 3 exists but is not connected
  table[2 * kMaxChips + 13] = 9;  // beyond NumLinks
  table[3 * kMaxChips + 14] = 0;  // good: link 0
  b.load_table(table);
  Traffic<W> r(b, c, table, rng);
  struct Case {
    uint32_t chip;
    int tile;
    uint32_t lane;
    bool bad;
  };
  const Case cases[] = {{10, 3, 0, true},  {10, 15, 1, true}, {100, 0, 0, true}, {4000, 0, 3, true},
                        {12, 0, 1, true},  {13, 0, 2, true},  {20, 0, 0, true},  {11, 0, 1, true},
                        {11, 0, 0, false}, {14, 0, 3, false}, {10, 2, 0, false}};
  int number = 0, bad = 0;
  for (const Case& k : cases) {
    for (int l = 0; l < 2; ++l) {
      Packet p = make_packet(rng, 4 + l, number, 1 + static_cast<int>(rnd(rng, 30)), 0x900, k.chip,
                             k.tile, k.lane, W::kBits);
      p.out = route_of(c, table, p.flits[0]);
      EXPECT_EQ(p.out < 0, k.bad) << "chip " << k.chip << " tile " << k.tile;
      bad += p.out < 0;
      r.add_link_packet(l, p);
      Packet g = make_packet(rng, 4 + l, number + 1, 3, 0x900, 10, l, 0, W::kBits);
      g.out = route_of(c, table, g.flits[0]);
      r.add_link_packet(l, g);
    }
    number += 2;
  }
  for (int t = 0; t < 3; ++t) {
    for (int k = 0; k < 4; ++k) {
      r.add_job(t, true, 3 + static_cast<int>(rnd(rng, 13)), 1 + static_cast<int>(rnd(rng, 20)), 0);
      r.add_job(t, true, (t + 1) % 3, 2, 0);
      bad += 1;
    }
  }
  r.run(20000);
  EXPECT_EQ(r.failures(), 0);
  EXPECT_EQ(r.misroutes_expected(), static_cast<uint64_t>(bad));
  EXPECT_EQ(b.dut().stat_misroutes_o, static_cast<uint32_t>(bad));
  std::printf("[  VECTORS ] %s: %" PRIu64 " packets, %d misrouted and counted\n",
              test_name().c_str(), r.packets(), bad);
}

TYPED_TEST(RtlExchange, RandomTraffic) {
  using W = TypeParam;
  auto rng = kFile.rng();
  // Tables per configuration: one at the narrow widths (the same routing, packets of about as
  // many flits).
  constexpr int kRounds = W::kBits == 128 ? 2 : 1;
  constexpr int kJobs = 100;  // packets per source and run
  const NodeCfg configs[] = {
      {4, 4, 4, 4, 5},  {1, 1, 1, 1, 0}, {2, 2, 2, 2, 63}, {3, 4, 2, 3, 17},
      {4, 2, 1, 4, 40}, {0, 4, 4, 0, 9}, {2, 4, 4, 1, 1},  {4, 4, 4, 2, 33},
  };
  uint64_t packets = 0, misroutes = 0, flits = 0, runs = 0, lookups = 0, cycles = 0;
  std::array<uint64_t, 3> msgs{};
  uint32_t max_occ = 0;
  int failures = 0;
  for (int round = 0; round < kRounds && failures == 0; ++round) {
    for (const NodeCfg& cfg : configs) {
      Bench<W> b;
      b.set_cfg(cfg);
      const Table table = random_table(rng, cfg.ports);
      b.load_table(table);
      uint64_t misroutes_so_far = 0;
      for (const int idle : {0, 30}) {
        for (const bool bp : {false, true}) {
          if (failures != 0) break;  // a failed run leaves traffic behind: stop here
          Traffic<W> r(b, cfg, table, rng);
          const uint64_t start = b.now();
          for (int t = 0; t < cfg.active_tiles; ++t) {
            TileSim& s = r.tile(t);
            s.idle_pct = idle ? static_cast<int>(rnd(rng, idle + 1)) : 0;
            r.add_random_jobs(t, kJobs, true);
          }
          for (int t = 0; t < kT; ++t) r.out(kL + t).stall_pct = bp ? 10 : 0;
          for (int l = 0; l < kL; ++l) {
            r.link_rx(l).idle_pct = idle ? static_cast<int>(rnd(rng, idle + 1)) : 0;
            r.out(l).stall_pct = bp ? static_cast<int>(rnd(rng, 51)) : 0;
            r.out(l).burst_permille = bp ? 3 : 0;
            if (l < cfg.active_links) r.add_random_link_packets(l, kJobs);
          }
          r.run(400000);
          misroutes_so_far += r.misroutes_expected();
          if (b.dut().stat_misroutes_o != misroutes_so_far) {
            r.fail("stat_misroutes_o " + std::to_string(b.dut().stat_misroutes_o) + ", expected " +
                   std::to_string(misroutes_so_far));
          }
          for (int l = 0; l < kL; ++l) {
            if (b.xb_max_occ(l) > kXoff + 3)
              r.fail("XB " + std::to_string(l) + " peaked at " + std::to_string(b.xb_max_occ(l)));
          }
          for (int t = 0; t < kT; ++t) {
            if (r.tile(t).credits != kCredits) r.fail("tile credits not all back");
          }
          if (b.dut().stat_path_level_o != 0) r.fail("a tile path is not empty");
          packets += r.packets();
          misroutes += r.misroutes_expected();
          flits += r.flits_out();
          lookups += r.lookups();
          for (int k = 0; k < 3; ++k) msgs[k] += r.msgs(k);
          max_occ = std::max(max_occ, r.max_occ());
          cycles += b.now() - start;
          failures += r.failures();
          ++runs;
        }
      }
    }
  }
  std::printf("[  VECTORS ] %s: %" PRIu64 " runs, %" PRIu64 " cycles, %" PRIu64 " packets (%" PRIu64
              " misrouted), %" PRIu64 " flits delivered, %" PRIu64
              " lookups, GRANT/XON/XOFF %" PRIu64 "/%" PRIu64 "/%" PRIu64 ", largest XB queue %u\n",
              test_name().c_str(), runs, cycles, packets, misroutes, flits, lookups, msgs[0],
              msgs[1], msgs[2], max_occ);
  EXPECT_EQ(failures, 0);
  EXPECT_GT(misroutes, 0u);
  EXPECT_GT(msgs[kXoffMsg], 0u) << "XOFF never exercised";
  EXPECT_GT(msgs[kXonMsg], 0u) << "XON never exercised";
}

}  // namespace
}  // namespace xf
