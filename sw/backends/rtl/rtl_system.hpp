// A machine of Verilated chips and switch nodes wired by a Topology (docs/chip.md section 6): one
// Verilated xf_chip object per chip and one xf_switch object per switch node of the topology,
// their link PHYs joined in C++ by wires of PhyWireDelayCycles cycles each way (the model's
// 8-cycle `Link` with xf_link's 3 register stages; sw/backends/rtl/phy_wire.hpp, which also injects
// the faults of an optional FaultSpec, docs/reliability.md section 7), the barrier's AND over all
// chips, and
// host ports driven through the nodes' real host-port pins. The topology is data: one Verilated
// chip and one Verilated switch serve every topology whose chips and switches have at most their
// class's NumLinks ports (read from the classes' PHY ports: fabric's chip has 4 links, its switch
// 16); a node's ports above its topology's count are unconnected and idle.
//
// Host accesses are queued per chip and run concurrently on all chips (flush()), one 32-bit
// access at a time per chip, through host_req/host_rsp exactly as a host bridge would; a
// response with host_rsp_err_o throws std::runtime_error naming the chip and address.
//
// Cycle loop (step()): the inputs of every chip for cycle n are driven from what was sampled
// in earlier cycles (wires: the far chip's phy_tx of cycle n - PhyWireDelayCycles; barrier: the
// AND of bar_arrived_o in cycle n; host request state) together with the clock's fall, the
// outputs of cycle n are sampled, then every chip gets its rising edge (no RTL process runs on
// the falling edge, so it needs no evaluation of its own).
//
// Waves (VM_TRACE_FST builds, such as `fabric`): open_trace() puts every node into one FST file
// under its own scope (chip0, chip1, ..., switch<n>); each cycle is 2 time units, the falling
// edge at 2n and the rising edge at 2n+1. A checker (sw/backends/rtl/cosim_checker.hpp) may
// request_stop() from the packet observer; run() then ends at that cycle with RtlRunStats::stopped
// set.
#pragma once

#include <verilated.h>
#if VM_TRACE_FST
#include <verilated_fst_c.h>
#endif

#include <algorithm>
#include <array>
#include <chrono>
#include <cstdint>
#include <cstring>
#include <deque>
#include <functional>
#include <memory>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "coverage.hpp"
#include "phy_wire.hpp"
#include "xf/compiler.hpp"
#include "xf/crc32.hpp"
#include "xf/defs.hpp"
#include "xf/faults.hpp"
#include "xf/host_driver.hpp"
#include "xf/layout.hpp"
#include "xf/topology.hpp"

namespace xf::rtl {

// Bit-field access to Verilated ports: scalars (CData..QData) and wide ports (VlWide).
template <class T>
uint64_t get_bits(const T& sig, int lsb, int width) {
  return (static_cast<uint64_t>(sig) >> lsb) & (width >= 64 ? ~0ull : ((1ull << width) - 1));
}
// Wide ports a 32-bit word at a time (a 16-link switch moves 16 x 194 PHY bits each way per
// cycle): each step takes the bits up to the end of the current word.
template <std::size_t N>
uint64_t get_bits(const VlWide<N>& sig, int lsb, int width) {
  uint64_t v = 0;
  for (int done = 0; done < width;) {
    const int b = lsb + done, sh = b % 32, take = std::min(32 - sh, width - done);
    v |= ((static_cast<uint64_t>(sig[b / 32]) >> sh) & ((1ull << take) - 1)) << done;
    done += take;
  }
  return v;
}
template <class T>
void set_bits(T& sig, int lsb, int width, uint64_t v) {
  const uint64_t mask = (width >= 64 ? ~0ull : ((1ull << width) - 1)) << lsb;
  sig = static_cast<T>((static_cast<uint64_t>(sig) & ~mask) | ((v << lsb) & mask));
}
template <std::size_t N>
void set_bits(VlWide<N>& sig, int lsb, int width, uint64_t v) {
  for (int done = 0; done < width;) {
    const int b = lsb + done, sh = b % 32, take = std::min(32 - sh, width - done);
    const uint32_t mask = static_cast<uint32_t>((1ull << take) - 1) << sh;
    sig[b / 32] = (sig[b / 32] & ~mask) | ((static_cast<uint32_t>(v >> done) << sh) & mask);
    done += take;
  }
}
// Copies `width` bits from one port to another (any widths).
template <class A, class B>
void copy_bits(const A& from, int from_lsb, B& to, int to_lsb, int width) {
  for (int done = 0; done < width; done += 64) {
    const int w = width - done < 64 ? width - done : 64;
    set_bits(to, to_lsb + done, w, get_bits(from, from_lsb + done, w));
  }
}

// One packet leaving a node on a link, as the PHY carried it (the RTL counterpart of the model's
// PacketEvent): the cycle its tail left, the node and port, the 128-bit header and the CRC-32
// (IEEE, as zlib) of its payload bytes.
struct RtlPacket {
  uint64_t cycle = 0;
  int node = 0, port = 0;
  std::array<uint64_t, 2> header{};
  uint32_t payload_crc = 0;
};
using RtlPacketObserver = std::function<void(const RtlPacket&)>;

struct RtlRunStats {
  bool ok = false;
  bool stopped = false;  // request_stop() ended the run (a checker saw a mismatch)
  uint64_t cycles = 0;   // from the start command to the cycle every tile was done
  std::string error;
  double seconds = 0;  // wall time of the run alone (RtlHost::run), for cycles per second
};

// The NumLinks and FlitBits a Verilated xf_chip or xf_switch class was built with: its
// phy_tx_ctl_o port is NumLinks x 32 bits, its phy_tx_flit_o port NumLinks x (FlitBits + 2)
// bits, each held in a whole C type (8, 16, 32 or 64 bits, or 32-bit words beyond).
template <class V>
constexpr int verilated_links() {
  using Ctl = std::remove_reference_t<decltype(std::declval<V&>().phy_tx_ctl_o)>;
  return static_cast<int>(sizeof(Ctl)) / 4;
}

constexpr int held_bits(int bits) {
  return bits <= 8    ? 8
         : bits <= 16 ? 16
         : bits <= 32 ? 32
         : bits <= 64 ? 64
                      : (bits + 31) / 32 * 32;
}

template <class V>
constexpr int verilated_flit_bits() {
  using Port = std::remove_reference_t<decltype(std::declval<V&>().phy_tx_flit_o)>;
  constexpr int bits = static_cast<int>(sizeof(Port)) * 8, links = verilated_links<V>();
  static_assert(links >= 1, "phy_tx_ctl_o is not NumLinks x 32 bits");
  constexpr int w = held_bits(links * 34) == bits    ? 32
                    : held_bits(links * 66) == bits  ? 64
                    : held_bits(links * 130) == bits ? 128
                                                     : 0;
  static_assert(w != 0, "phy_tx_flit_o is not NumLinks x (FlitBits + 2) bits, FlitBits 32/64/128");
  return w;
}

// Chip, Switch: the Verilated xf_chip and xf_switch classes (each with its own NumLinks);
// PhyWireDelay: the wire delay.
template <class Chip, class Switch,
          int PhyWireDelay = static_cast<int>(kLinkLatencyCycles - kLinkRegCycles)>
class RtlSystem {
 public:
  static constexpr uint64_t kStartDoneRegisterCycles = 2;
  static constexpr int kChipLinks = verilated_links<Chip>();      // NumLinks of every chip
  static constexpr int kSwitchLinks = verilated_links<Switch>();  // NumLinks of every switch
  // The machine's flit width, FlitBits (docs/packets.md section 2): chips and switches agree.
  static constexpr int kFlitBits = verilated_flit_bits<Chip>();
  static_assert(verilated_flit_bits<Switch>() == kFlitBits, "chip and switch flit widths differ");
  static constexpr int kWordBits = kFlitBits + 2;  // {head, tail, data} on a link

  // Why this machine cannot be built from `topo` (a chip or switch node with more ports than its
  // Verilated class has links: the limit, once, in one line), or empty when it can.
  static std::string unfit(const Topology& topo) {
    for (int n = 0; n < topo.num_nodes; ++n) {
      const bool chip = n < topo.num_chips;
      const int links = chip ? kChipLinks : kSwitchLinks;
      if (topo.num_ports[n] > links)
        return std::string(chip ? "chip " : "switch node ") + std::to_string(n) + " has " +
               std::to_string(topo.num_ports[n]) + " ports; the RTL " + (chip ? "chip" : "switch") +
               " has " + std::to_string(links);
    }
    return "";
  }

  // `faults` (may be null: clean wires) applies to every wire, each with its own random stream.
  RtlSystem(const Topology& topo, int tiles_in_use, VerilatedContext* ctx,
            const FaultSpec* faults = nullptr)
      : topo_(topo), tiles_(tiles_in_use), ctx_(ctx) {
    const int N = topo.num_nodes;
    const std::string why = unfit(topo);
    if (!why.empty()) throw std::runtime_error("RtlSystem: " + why);
    for (int n = 0; n < N; ++n) {
      const bool chip = n < topo.num_chips;
      links_.push_back(chip ? kChipLinks : kSwitchLinks);
      port_base_.push_back(num_slots_);
      num_slots_ += links_.back();
      if (chip) {
        chips_.emplace_back(new Chip{ctx, ("chip" + std::to_string(n)).c_str()});
        Chip& c = *chips_.back();
        c.cfg_chip_id_i = n;
        c.cfg_num_chips_i = topo.num_chips;
        c.cfg_num_tiles_i = tiles_in_use;
        c.cfg_num_ports_i = topo.num_ports[n];
      } else {
        switches_.emplace_back(new Switch{ctx, ("switch" + std::to_string(n)).c_str()});
        Switch& w = *switches_.back();
        w.cfg_node_id_i = n;
        w.cfg_num_ports_i = topo.num_ports[n];
      }
    }
    // wires_[node][port]: the words arriving at that port (sw/backends/rtl/phy_wire.hpp), for every
    // port of the node's class; the unconnected ones carry idle words.
    peer_.resize(N);
    for (int n = 0; n < N; ++n) peer_[n].assign(links_[n], {-1, -1});
    for (const auto& l : topo.links) {
      peer_[l.a][l.pa] = {l.b, l.pb};
      peer_[l.b][l.pb] = {l.a, l.pa};
    }
    wires_.resize(N);
    for (int n = 0; n < N; ++n)
      for (int p = 0; p < links_[n]; ++p)
        wires_[n].emplace_back(
            new PhyWire(PhyWireDelay, faults, static_cast<uint64_t>(n) << 8 | p));
    next_new_.assign(num_slots_, 0);
    host_.resize(N);
    open_.resize(num_slots_);
    open_hdr_.assign(num_slots_, kHeaderBits / kFlitBits);
    for_all([](auto& m) {
      m.rst_ni = 0;
      m.clk_i = 0;
      m.eval();
    });
    for (int i = 0; i < 2; ++i) step();
    for_all([](auto& m) { m.rst_ni = 1; });
    step();
  }

  ~RtlSystem() {
    close_trace();
    coverage_flush(*ctx_);  // make coverage: read the counts while the models live
  }
  RtlSystem(const RtlSystem&) = delete;
  RtlSystem& operator=(const RtlSystem&) = delete;

  // Called for every packet that leaves any node on a link (tail cycle), when set.
  RtlPacketObserver observer;
  // Called by run() with the cycle the chips took the start command, when set. A collective's
  // cycle c (as the model counts) is harness cycle start + 1 + c (the tiles see the start one
  // cycle after the host port takes it).
  std::function<void(uint64_t)> start_observer;

  // Ends run() after the current cycle, with `why` as its error (called by checkers).
  void request_stop(const std::string& why) {
    if (stop_.empty()) stop_ = why.empty() ? "stopped" : why;
  }

  // Records every node's signals from the next cycle on into the FST file `path` (GTKWave).
  // Needs a build with VM_TRACE_FST and ctx->traceEverOn(true) before the nodes were built.
  void open_trace(const std::string& path) {
#if VM_TRACE_FST
    if (trace_) throw std::runtime_error("RtlSystem: a trace file is already open");
    trace_ = std::make_unique<VerilatedFstC>();
    for_all([this](auto& m) { m.trace(trace_.get(), 99); });
    trace_->open(path.c_str());
    if (!trace_->isOpen()) {
      trace_.reset();
      throw std::runtime_error("RtlSystem: cannot write the trace file " + path +
                               " (does its directory exist?)");
    }
#else
    throw std::runtime_error("RtlSystem: cannot write " + path +
                             ": this build has no FST tracing (verilate with TRACE_FST)");
#endif
  }
  void close_trace() {
#if VM_TRACE_FST
    if (trace_) trace_->close();
    trace_.reset();
#endif
  }

  int num_chips() const { return static_cast<int>(chips_.size()); }
  int num_nodes() const { return static_cast<int>(chips_.size() + switches_.size()); }
  Chip& chip(int n) { return *chips_[n]; }
  uint64_t cycle() const { return cycle_; }
  // What the wires' faults did so far (all zero on clean wires).
  FaultCounts fault_counts() const {
    FaultCounts c;
    for (const auto& node : wires_)
      for (const auto& w : node)
        if (w->counts()) c += *w->counts();
    return c;
  }

  // Queues host accesses; flush() runs them on all chips concurrently.
  void queue_write32(int node, uint32_t addr, uint32_t v) {
    host_[node].q.push_back({true, addr, v, nullptr});
  }
  void queue_read32(int node, uint32_t addr, void* dst) {
    host_[node].q.push_back({false, addr, 0, dst});
  }
  void queue_write(int node, uint32_t addr, const void* data, size_t n) {
    check_words(node, addr, n);
    const uint8_t* p = static_cast<const uint8_t*>(data);
    for (size_t i = 0; i < n; i += 4) {
      uint32_t v;
      std::memcpy(&v, p + i, 4);
      queue_write32(node, addr + static_cast<uint32_t>(i), v);
    }
  }
  void queue_read(int node, uint32_t addr, void* data, size_t n) {
    check_words(node, addr, n);
    uint8_t* p = static_cast<uint8_t*>(data);
    for (size_t i = 0; i < n; i += 4) queue_read32(node, addr + static_cast<uint32_t>(i), p + i);
  }
  void flush(uint64_t max_cycles = 100000000) {
    const uint64_t end = cycle_ + max_cycles;
    while (busy()) {
      if (cycle_ >= end) throw std::runtime_error("RtlSystem: host accesses did not complete");
      step();
    }
  }
  void host_write32(int node, uint32_t addr, uint32_t v) {
    queue_write32(node, addr, v);
    flush();
  }
  uint32_t host_read32(int node, uint32_t addr) {
    uint32_t v = 0;
    queue_read32(node, addr, &v);
    flush();
    return v;
  }

  // Starts every chip in the same cycle and runs until every chip reports done or an error,
  // `max_cycles` pass, or no PHY word and no tile progress for `watchdog_cycles`.
  RtlRunStats run(uint64_t max_cycles, uint64_t watchdog_cycles = 20000) {
    flush();  // every host port idle: the start below is taken by every chip at the same edge
    for (int n = 0; n < num_chips(); ++n) queue_write32(n, reg::kControl, 1);  // chips only
    step();
    for (const auto& h : host_)
      if (!h.q.empty()) throw std::runtime_error("RtlSystem: a chip did not take the start");
    const uint64_t start = cycle_;
    if (start_observer) start_observer(start);
    uint64_t last_activity = start;
    RtlRunStats st;
    for (;;) {
      // In the start's cycle and the next, stat_done_o still shows the previous run's tiles
      // (docs/chip.md section 3): a second run must not take that for its own end.
      bool all_done = cycle_ >= start + kStartDoneRegisterCycles, err = false;
      for (auto& c : chips_) {
        all_done = all_done && c->stat_done_o;
        err = err || c->stat_err_o;
      }
      for (auto& w : switches_) err = err || w->stat_err_o;
      if (activity_) last_activity = cycle_;
      if (!stop_.empty()) {
        st.stopped = true;
        st.cycles = cycle_ - start;
        st.error = stop_;
        return st;
      }
      if (all_done || err) {
        st.ok = all_done && !err;
        // The collective's cycles, counted as the model counts them (from the cycle the tiles
        // start to the cycle the last one is done): without the host port's start register
        // (the tiles see the start one cycle after the Control write is taken) and the chip's
        // done register (stat_done_o rises one cycle after the last tile's End).
        st.cycles = cycle_ - start - kStartDoneRegisterCycles;
        if (err) st.error = "a node reports an error (Status bit 31)";
        // One more edge: DoneCycles captures Cycles at the edge after the cycle stat_done_o is
        // high (docs/chip.md section 3), so a host read right after run() returns sees it, as
        // on the model.
        step();
        return st;
      }
      if (cycle_ - start >= max_cycles || cycle_ - last_activity > watchdog_cycles) {
        st.cycles = cycle_ - start;
        st.error = cycle_ - start >= max_cycles ? "cycle limit reached"
                                                : "watchdog: no new flit on any link for " +
                                                      std::to_string(watchdog_cycles) + " cycles";
        // Make every waiting tile say what it waits for: a watchdog period of one cycle halts
        // each tile that is stuck in a wait with error Watchdog and the wait in TileErrInfo
        // (docs/errors.md); the driver's diagnosis then names chip, tile and wait.
        for (int c = 0; c < num_chips(); ++c)
          for (int t = 0; t < tiles_; ++t)
            queue_write32(c, reg::kTileBase + t * reg::kTileStride + reg::kTileWatchdog, 1);
        flush();
        for (int i = 0; i < 4; ++i) step();
        return st;
      }
      step();
    }
  }

  // One clock cycle of the whole machine.
  void step() { step_impl(); }

 private:
  struct Access {
    bool write;
    uint32_t addr, wdata;
    void* dst;  // 4 bytes for a read's data
  };
  struct HostQ {
    std::deque<Access> q;         // not yet taken by the chip
    std::deque<Access> inflight;  // taken, response outstanding (in order)
    bool presented = false;
  };

  void check_words(int node, uint32_t addr, size_t n) const {
    if (addr % 4 || n % 4)
      throw std::runtime_error("RtlSystem: host access to chip " + std::to_string(node) + " at " +
                               std::to_string(addr) + " of " + std::to_string(n) +
                               " bytes: the host port moves aligned 32-bit words");
  }
  bool busy() const {
    for (const auto& h : host_)
      if (!h.q.empty() || !h.inflight.empty()) return true;
    return false;
  }

  template <class F>
  void visit(int n, F&& f) {
    const int P = num_chips();
    if (n < P)
      f(*chips_[n]);
    else
      f(*switches_[n - P]);
  }
  template <class F>
  void for_all(F&& f) {
    for (int n = 0; n < num_nodes(); ++n) visit(n, f);
  }
  static void set_barrier(Chip& c, bool all) { c.bar_all_i = all; }
  static void set_barrier(Switch&, bool) {}

  void step_impl() {
    const int N = num_nodes();
    bool bar_all = true;
    for (auto& c : chips_) bar_all = bar_all && c->bar_arrived_o;
    activity_ = false;
    for (int n = 0; n < N; ++n) {
      HostQ& h = host_[n];
      visit(n, [&](auto& c) {
        // Wires: the word that left the far end PhyWireDelay cycles ago (or what faults made
        // of it).
        for (int p = 0; p < links_[n]; ++p) {
          const PhyWord w = wires_[n][p]->deliver();
          set_bits(c.phy_rx_valid_i, p, 1, w.valid);
          set_bits(c.phy_rx_ctl_i, p * 32, 32, w.ctl);
          set_bits(c.phy_rx_crc_i, p * 32, 32, w.crc);
          for (int k = 0; k <= kFlitBits / 32; ++k) {  // data words, then {head, tail}
            const int width = k < kFlitBits / 32 ? 32 : 2;
            set_bits(c.phy_rx_flit_i, p * kWordBits + 32 * k, width, w.flit[k]);
          }
        }
        set_barrier(c, bar_all);
        // Host port: present the front access until it is taken.
        if (!h.q.empty()) {
          const Access& a = h.q.front();
          c.host_req_valid_i = 1;
          c.host_req_write_i = a.write;
          c.host_req_addr_i = a.addr;
          c.host_req_wdata_i = a.wdata;
          h.presented = true;
        } else {
          c.host_req_valid_i = 0;
          h.presented = false;
        }
        c.clk_i = 0;  // the falling edge of the previous cycle, with this cycle's inputs
        c.eval();
      });
    }
    // Sample the outputs of this cycle.
    std::string error;
    for (int n = 0; n < N; ++n) {
      HostQ& h = host_[n];
      visit(n, [&](auto& c) {
        if (c.host_rsp_valid_o && h.inflight.empty()) {
          error = "RtlSystem: node " + std::to_string(n) +
                  " answered a host access that was never made";
        } else if (c.host_rsp_valid_o) {
          const Access a = h.inflight.front();
          h.inflight.pop_front();
          if (c.host_rsp_err_o && error.empty())  // reported after this cycle's edge
            error = "RtlSystem: node " + std::to_string(n) + " refused the host " +
                    (a.write ? "write" : "read") + " at 0x" + hex(a.addr);
          if (!a.write && a.dst) {
            const uint32_t v = c.host_rsp_rdata_o;
            std::memcpy(a.dst, &v, 4);
          }
        }
        if (h.presented && c.host_req_ready_o) {  // taken at this edge
          h.inflight.push_back(h.q.front());
          h.q.pop_front();
        }
        for (int p = 0; p < links_[n]; ++p) {
          PhyWord w;
          w.flit_bits = kFlitBits;
          w.valid = get_bits(c.phy_tx_valid_o, p, 1);
          w.ctl = static_cast<uint32_t>(get_bits(c.phy_tx_ctl_o, p * 32, 32));
          w.crc = static_cast<uint32_t>(get_bits(c.phy_tx_crc_o, p * 32, 32));
          for (int k = 0; k <= kFlitBits / 32; ++k) {
            const int width = k < kFlitBits / 32 ? 32 : 2;
            w.flit[k] =
                static_cast<uint32_t>(get_bits(c.phy_tx_flit_o, p * kWordBits + 32 * k, width));
          }
          // A flit is new when it carries the next sequence number this transmitter has not
          // sent before; replays (older numbers) are the link's business, not the packet
          // streams'.
          uint8_t& next = next_new_[port_base_[n] + p];
          if (w.valid && w.fv() && w.seq() == next) {
            ++next;
            activity_ = true;
            if (observer) observe(n, p, w);
          }
          const auto [far, fp] = peer_[n][p];
          if (far >= 0) pending_.push_back({far, fp, w});
        }
      });
    }
    // Every wire takes one word per cycle: the far end's, or none for an unconnected port.
    for (int n = 0; n < N; ++n)
      for (int p = 0; p < links_[n]; ++p)
        if (peer_[n][p].first < 0) wires_[n][p]->push(PhyWord{});
    for (const auto& pw : pending_) wires_[pw.node][pw.port]->push(pw.word);
    pending_.clear();
#if VM_TRACE_FST
    if (trace_) trace_->dump(2 * cycle_);
#endif
    for_all([](auto& m) {
      m.clk_i = 1;
      m.eval();
    });
#if VM_TRACE_FST
    if (trace_) trace_->dump(2 * cycle_ + 1);
#endif
    // No logic runs on the falling edge: the next step() evaluates it together with its inputs,
    // which saves an eval() per node and cycle (each one recomputes the logic behind every
    // input: sixteen links' worth in a switch).
    ++cycle_;
    if (!error.empty()) throw std::runtime_error(error);
  }

  // A packet's header arrives over kHeaderBits / kFlitBits flits (docs/packets.md section 3),
  // its payload kFlitBits / 8 bytes a flit.
  void observe(int n, int p, const PhyWord& w) {
    RtlPacket& e = open_[port_base_[n] + p];
    uint32_t& got = open_hdr_[port_base_[n] + p];  // header flits taken
    const bool head = w.head(), tail = w.tail();
    constexpr uint32_t kW = kFlitBits / 8, kH = kHeaderBits / kFlitBits;
    if (head) {
      e = RtlPacket{};
      e.node = n;
      e.port = p;
      got = 0;
    }
    if (got < kH) {  // little-endian host: data bits in byte order
      std::memcpy(reinterpret_cast<uint8_t*>(e.header.data()) + kW * got, w.flit, kW);
      ++got;
    } else {
      e.payload_crc = crc32_update(e.payload_crc, reinterpret_cast<const uint8_t*>(w.flit), kW);
    }
    if (tail) {
      e.cycle = cycle_;
      observer(e);
    }
  }

  static std::string hex(uint32_t v) {
    char b[16];
    std::snprintf(b, sizeof b, "%08x", v);
    return b;
  }

  struct Pending {
    int node, port;
    PhyWord word;
  };
  Topology topo_;
  int tiles_;              // tiles in use per chip
  VerilatedContext* ctx_;  // the nodes' context (coverage_flush)
  std::vector<std::unique_ptr<Chip>> chips_;
  std::vector<std::unique_ptr<Switch>> switches_;
  std::vector<int> links_;      // per node: its class's NumLinks (ports, connected or not)
  std::vector<int> port_base_;  // per node: the index of its port 0 in next_new_ and open_
  int num_slots_ = 0;           // ports of all nodes
  std::vector<std::vector<std::pair<int, int>>> peer_;
  std::vector<std::vector<std::unique_ptr<PhyWire>>> wires_;  // [node][port]: arriving words
  std::vector<uint8_t> next_new_;  // per port of every node: the next new link sequence number
  std::vector<Pending> pending_;
  std::vector<RtlPacket> open_;     // per port of every node: the packet on the wire (observer)
  std::vector<uint32_t> open_hdr_;  // per port: header flits of that packet taken so far
  std::vector<HostQ> host_;
  uint64_t cycle_ = 0;
  bool activity_ = false;
  std::string stop_;  // request_stop()'s reason; empty while running
#if VM_TRACE_FST
  std::unique_ptr<VerilatedFstC> trace_;
#endif
};

using RtlCollectiveRun = HostRun<RtlRunStats>;  // outputs empty when stats.stopped

// An RtlSystem's host ports as a host_driver Host (sw/include/xf/host_driver.hpp): accesses are
// queued and run on every node concurrently at flush().
template <class Sys>
struct RtlHost {
  Sys& sys;
  uint32_t read32(int node, uint32_t addr) { return sys.host_read32(node, addr); }
  void write(int node, uint32_t addr, const void* p, size_t n) {
    sys.queue_write(node, addr, p, n);
  }
  void read(int node, uint32_t addr, void* p, size_t n) { sys.queue_read(node, addr, p, n); }
  void flush() { sys.flush(); }
  RtlRunStats run(uint64_t max_cycles) {
    const auto t0 = std::chrono::steady_clock::now();
    RtlRunStats st = sys.run(max_cycles);
    st.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    return st;
  }
  bool direct(int, int, uint32_t, void*, size_t, bool) { return false; }  // the pins only
};

// The model driver's sequence (xf::run_collective, the same code) on the RTL: routing tables,
// index values, IMEM, PMEM and DMEM of every tile through the host ports, start, run, DMEM
// read back.
template <class Sys>
RtlCollectiveRun run_on_rtl(Sys& sys, const Plan& plan, const Image& img,
                            const std::vector<Bytes>& inputs, uint64_t max_cycles = 50'000'000,
                            std::vector<SgdState>* state_in = nullptr,
                            std::vector<SgdState>* state_out = nullptr) {
  RtlHost<Sys> host{sys};
  return run_collective(host, plan, img, inputs, max_cycles, state_in, state_out);
}

}  // namespace xf::rtl
