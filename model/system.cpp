// The modelled machine and its host port (see system.hpp).
#include "system.hpp"

#include <algorithm>
#include <cstring>
#include <sstream>
#include <stdexcept>

namespace xf::model {

namespace {
std::string hex(uint32_t a) {
  std::ostringstream o;
  o << "0x" << std::hex << a;
  return o.str();
}

// LinkCrcErrors, LinkStatus and LinkDiscards of one link port (docs/generated/defs.md): the
// node's receiver on that port counts CRC errors and discards, its transmitter replays, timer
// expiries and the escalation. Zero for a port that does not exist and for links without the
// retry layer (no faults: nothing is ever lost).
static_assert(reg::kLinkStatus == reg::kLinkCrcErrors + reg::kLinkCrcErrorsSize &&
                  reg::kLinkDiscards == reg::kLinkStatus + reg::kLinkStatusSize,
              "the link registers are read as one block");
uint32_t link_register(const Node& nd, uint32_t addr) {
  auto sat16 = [](uint64_t v) { return static_cast<uint32_t>(std::min<uint64_t>(v, 0xFFFF)); };
  const uint32_t base = addr < reg::kLinkStatus     ? reg::kLinkCrcErrors
                        : addr < reg::kLinkDiscards ? reg::kLinkStatus
                                                    : reg::kLinkDiscards;
  const int l = static_cast<int>((addr - base) / 4);
  if (l >= nd.num_ports() || !nd.rx_link(l) || !nd.rx_link(l)->retry()) return 0;
  const LinkRetry& rx = *nd.rx_link(l)->retry();
  const LinkRetry& tx = *nd.tx_link(l)->retry();
  if (base == reg::kLinkCrcErrors) return sat16(rx.stats().corrupted);
  if (base == reg::kLinkStatus)
    return (tx.escalated() ? 1u : 0u) | std::min<uint32_t>(tx.replays_in_a_row(), 15) << 4 |
           sat16(tx.stats().replays) << 16;
  return sat16(rx.stats().discards) | sat16(tx.stats().timeouts) << 16;
}
}  // namespace

System::System(const Topology& topo, int tiles_per_chip, uint32_t tile_dmem_bytes,
               const FaultSpec& faults)
    : topo_(topo), clk_("clk", 1, sc_core::SC_NS) {
  barrier_.members = topo.num_chips * tiles_per_chip;
  for (int n = 0; n < topo.num_nodes; ++n) {
    const bool chip = !topo.is_switch(n);
    std::string name = (chip ? "chip" : "switch") + std::to_string(n);
    nodes_.emplace_back(new Node(name.c_str(), n, topo.num_ports[n], chip ? tiles_per_chip : 0,
                                 topo.num_chips, &barrier_));
    nodes_.back()->clk_i(clk_);
    for (int t = 0; t < nodes_.back()->num_tiles(); ++t)
      nodes_.back()->tile(t).dmem.assign(tile_dmem_bytes, 0);
  }
  for (const xf::Link& l : topo.links) {
    links_.emplace_back(new Link);
    Link* ab = links_.back().get();
    links_.emplace_back(new Link);
    Link* ba = links_.back().get();
    nodes_[l.a]->connect(l.pa, ab, ba);
    nodes_[l.b]->connect(l.pb, ba, ab);
    link_stream_.push_back(static_cast<uint64_t>(l.b) << 8 | static_cast<uint64_t>(l.pb));
    link_stream_.push_back(static_cast<uint64_t>(l.a) << 8 | static_cast<uint64_t>(l.pa));
  }
  done_cycles_.assign(nodes_.size(), 0);
  done_armed_.assign(nodes_.size(), 0);
  set_faults(faults);
}

System::~System() = default;

// The RTL host port (rtl/xf_host_port.sv) captures Cycles in the first cycle, two or more after
// the start reached the tiles, in which the chip's registered done is high. The model's tiles
// run from the start's cycle (collective cycle 0 = ctx.start_cycle) and an End retired in
// collective cycle e sets the RTL tile's done one cycle and the chip's done two cycles later,
// with Cycles = e + 3 there: DoneCycles = last End + 3 - start = RunStats::cycles + 2 on the chip
// that finishes last. Evaluated when read (and before a Control write that could clear the
// tiles); the tiles' done flags only rise between starts, so the value is the same.
void System::settle_done_cycles(int n) {
  Node& nd = *nodes_[n];
  if (!done_armed_[n] || nd.num_tiles() == 0) return;
  uint64_t last = 0;
  for (int t = 0; t < nd.num_tiles(); ++t) {
    if (!nd.tile(t).done) return;
    last = std::max(last, nd.tile(t).done_cycle);
  }
  done_cycles_[n] = static_cast<uint32_t>(last + 3 - nd.ctx.start_cycle);
  done_armed_[n] = 0;
}

void System::set_faults(const FaultSpec& faults) {
  // The retry layer holds link state (sequence numbers, credits in flight): it cannot be swapped
  // in or out once flits have moved.
  if (ran_) throw std::logic_error("System::set_faults: only before the first run");
  faults_ = faults;
  for (size_t i = 0; i < links_.size(); ++i) links_[i]->set_faults(faults, link_stream_[i]);
}

void System::host_write(int node, uint32_t addr, const void* data, size_t n) {
  if (node < 0 || node >= static_cast<int>(nodes_.size()))
    throw std::out_of_range("host port: node " + std::to_string(node) + " does not exist");
  Node& nd = *nodes_[node];
  const uint8_t* p = static_cast<const uint8_t*>(data);
  auto in = [&](uint32_t base, uint64_t size) { return addr >= base && addr + n <= base + size; };
  if (in(reg::kRouteTable, nd.route().size())) {
    std::memcpy(&nd.route()[addr - reg::kRouteTable], p, n);
    return;
  }
  if (addr == reg::kIndexWr && n == 4) {
    std::memcpy(&nd.ctx.index, p, 4);
    return;
  }
  if (addr == reg::kControl && n == 4) {
    uint32_t v;
    std::memcpy(&v, p, 4);
    settle_done_cycles(node);  // a clear keeps DoneCycles; a start restarts it
    if ((v & 1) && nd.num_tiles() > 0) {
      done_cycles_[node] = 0;
      done_armed_[node] = 1;
    }
    if (v & 1) nd.ctx.start_cycle = nd.ctx.now();
    for (int l = 0; l < nd.num_ports() && (v & 2); ++l)  // LinkStatus bit 0: sticky till now
      if (nd.tx_link(l) && nd.tx_link(l)->retry()) nd.tx_link(l)->retry()->clear_escalation();
    for (int t = 0; t < nd.num_tiles(); ++t) {
      if (v & 2) nd.tile(t).reset_state();
      if (v & 1) {
        nd.tile(t).reset_state();
        nd.tile(t).running = true;
      }
    }
    return;
  }
  if (addr >= reg::kTileBase) {
    const uint32_t t = (addr - reg::kTileBase) / reg::kTileStride;
    const uint32_t off = (addr - reg::kTileBase) % reg::kTileStride;
    if (t < static_cast<uint32_t>(nd.num_tiles())) {
      Tile& tl = nd.tile(t);
      if (off >= reg::kTileImem && off + n <= reg::kTileImem + reg::kTileImemSize && off % 8 == 0 &&
          n % 8 == 0) {
        const size_t w = (off - reg::kTileImem) / 8;
        if (tl.imem.size() < w + n / 8) tl.imem.resize(w + n / 8);
        std::memcpy(&tl.imem[w], p, n);
        return;
      }
      if (off >= reg::kTilePmem && off + n <= reg::kTilePmem + reg::kTilePmemSize && off % 4 == 0 &&
          n % 4 == 0) {
        const size_t w = (off - reg::kTilePmem) / 4;
        if (tl.pmem.size() < w + n / 4) tl.pmem.resize(w + n / 4);
        std::memcpy(&tl.pmem[w], p, n);
        return;
      }
      if (off >= reg::kTileDmem && off - reg::kTileDmem + n <= tl.dmem.size()) {
        std::memcpy(&tl.dmem[off - reg::kTileDmem], p, n);
        return;
      }
      if (off == reg::kTileWatchdog && n == 4) {  // the only writable tile register
        std::memcpy(&tl.watchdog, p, 4);
        return;
      }
    }
  }
  throw std::out_of_range("host port: write of " + std::to_string(n) + " bytes at " + hex(addr) +
                          " on node " + std::to_string(node) + " hits no register or memory");
}

void System::host_read(int node, uint32_t addr, void* data, size_t n) {
  if (node < 0 || node >= static_cast<int>(nodes_.size()))
    throw std::out_of_range("host port: node " + std::to_string(node) + " does not exist");
  Node& nd = *nodes_[node];
  uint8_t* p = static_cast<uint8_t*>(data);
  if (n == 4 && addr < reg::kRouteTable) {
    uint32_t v = 0;
    if (addr == reg::kChipId || addr == reg::kIndexWr)
      v = nd.ctx.index;
    else if (addr == reg::kStatus) {
      for (int t = 0; t < nd.num_tiles(); ++t) {
        if (nd.tile(t).done) v |= 1u << t;
        if (nd.tile(t).err != TileErr::kNone) v |= 1u << 31;
      }
      if (nd.exchange().xb_overflows() || nd.exchange().misroutes()) v |= 1u << 31;
    } else if (addr == reg::kCycles) {
      v = static_cast<uint32_t>(nd.ctx.now() - nd.ctx.start_cycle);
    } else if (addr == reg::kMisroutes) {
      v = static_cast<uint32_t>(std::min<uint64_t>(nd.exchange().misroutes(), 0xFFFFFFFFu));
    } else if (addr == reg::kConfig) {
      const uint32_t dmem_kib =
          nd.num_tiles() ? static_cast<uint32_t>(nd.tile(0).dmem.size() / 1024) : 0;
      v = static_cast<uint32_t>(nd.num_tiles()) | static_cast<uint32_t>(nd.ctx.num_ports) << 8 |
          12u << 12 | std::min<uint32_t>(dmem_kib, 0xFFFF) << 16;  // the full 4096-chip table
    } else if (addr == reg::kAluConfig) {
      v = nd.num_tiles() ? kAluAllUnits : 0u;  // the model's ALU has every unit (AluDtypes 0xFF)
    } else if (addr == reg::kDoneCycles) {
      settle_done_cycles(node);
      v = done_cycles_[node];
    } else if (addr == reg::kXbErrors) {
      v = nd.exchange().xb_overflow_ports();  // the model's tiles never break the XB protocol
    } else if (addr >= reg::kLinkCrcErrors && addr < reg::kLinkDiscards + reg::kLinkDiscardsSize &&
               addr % 4 == 0) {
      v = link_register(nd, addr);
    } else {
      throw std::out_of_range("host port: no register at " + hex(addr));
    }
    std::memcpy(p, &v, 4);
    return;
  }
  if (addr >= reg::kRouteTable && addr + n <= reg::kRouteTable + nd.route().size()) {
    std::memcpy(p, &nd.route()[addr - reg::kRouteTable], n);
    return;
  }
  if (addr >= reg::kTileBase) {
    const uint32_t t = (addr - reg::kTileBase) / reg::kTileStride;
    const uint32_t off = (addr - reg::kTileBase) % reg::kTileStride;
    if (t < static_cast<uint32_t>(nd.num_tiles())) {
      Tile& tl = nd.tile(t);
      if (off >= reg::kTileDmem && off - reg::kTileDmem + n <= tl.dmem.size()) {
        std::memcpy(p, &tl.dmem[off - reg::kTileDmem], n);
        return;
      }
      if (off >= reg::kTileImem && off % 8 == 0 && n % 8 == 0 &&
          (off - reg::kTileImem) / 8 + n / 8 <= tl.imem.size() && off < reg::kTilePmem) {
        std::memcpy(p, &tl.imem[(off - reg::kTileImem) / 8], n);
        return;
      }
      if (off >= reg::kTilePmem && off % 4 == 0 && n % 4 == 0 &&
          (off - reg::kTilePmem) / 4 + n / 4 <= tl.pmem.size() && off < reg::kTileDmem) {
        std::memcpy(p, &tl.pmem[(off - reg::kTilePmem) / 4], n);
        return;
      }
      if (off == reg::kTileStatus && n == 4) {
        uint32_t v =
            static_cast<uint32_t>(tl.err) | (tl.done ? 16u : 0u) | ((tl.pc & 0xFFFF) << 16);
        std::memcpy(p, &v, 4);
        return;
      }
      if ((off == reg::kTileErrInfo || off == reg::kTileErrCount || off == reg::kTileWatchdog) &&
          n == 4) {
        const uint32_t v = off == reg::kTileErrInfo    ? tl.err_info
                           : off == reg::kTileErrCount ? tl.err_count
                                                       : tl.watchdog;
        std::memcpy(p, &v, 4);
        return;
      }
      if (off >= reg::kTileCounters && off + n <= reg::kTileCounters + 4 * kNumCounters) {
        std::memcpy(p, reinterpret_cast<const uint8_t*>(tl.counters) + off - reg::kTileCounters, n);
        return;
      }
    }
  }
  throw std::out_of_range("host port: read of " + std::to_string(n) + " bytes at " + hex(addr) +
                          " on node " + std::to_string(node) + " hits no register or memory");
}

uint32_t System::host_read32(int node, uint32_t addr) {
  uint32_t v;
  host_read(node, addr, &v, 4);
  return v;
}

void System::host_write32(int node, uint32_t addr, uint32_t v) { host_write(node, addr, &v, 4); }

RunStats System::run(uint64_t max_cycles, uint64_t watchdog_cycles) {
  RunStats st;
  ran_ = true;
  const uint64_t start =
      static_cast<uint64_t>(sc_core::sc_time_stamp() / sc_core::sc_time(1, sc_core::SC_NS));
  for (int n = 0; n < topo_.num_chips; ++n) host_write32(n, reg::kControl, 1);
  uint64_t last_activity = start;
  const uint64_t slice = 256;
  for (;;) {
    sc_core::sc_start(sc_core::sc_time(static_cast<double>(slice), sc_core::SC_NS));
    const uint64_t now =
        static_cast<uint64_t>(sc_core::sc_time_stamp() / sc_core::sc_time(1, sc_core::SC_NS));
    bool all_done = true, err = false;
    std::string why;
    for (int n = 0; n < topo_.num_nodes; ++n) {
      Node& nd = *nodes_[n];
      last_activity = std::max(last_activity, nd.exchange().last_move());
      if (nd.exchange().xb_overflows() && !err) {
        err = true;
        why = "node " + std::to_string(n) + ": XB queue overflow (XOFF budget violated)";
      }
      if (nd.exchange().misroutes() && !err) {
        err = true;
        why = "node " + std::to_string(n) + ": packet with an unknown destination dropped";
      }
      for (int t = 0; t < nd.num_tiles(); ++t) {
        Tile& tl = nd.tile(t);
        last_activity = std::max(last_activity, tl.last_progress);
        if (!tl.done) all_done = false;
        if (tl.err != TileErr::kNone && !err) {
          err = true;
          why = "chip " + std::to_string(n) + " tile " + std::to_string(t) + ": " +
                to_string(tl.err) + ": " + tl.err_detail;
        }
      }
    }
    // Cycles run to the last tile's END, not to the end of the slice.
    if (all_done || err || now - start >= max_cycles || now - last_activity > watchdog_cycles) {
      uint64_t end = start;
      for (int n = 0; n < topo_.num_nodes; ++n) {
        Node& nd = *nodes_[n];
        st.flits_moved += nd.exchange().flits_moved();
        st.xb_overflows += nd.exchange().xb_overflows();
        st.misroutes += nd.exchange().misroutes();
        st.xb_max_occupancy = std::max(st.xb_max_occupancy, nd.exchange().xb_max_occupancy());
        for (int t = 0; t < nd.num_tiles(); ++t) {
          end = std::max(end, nd.tile(t).last_progress);
          st.packets += nd.tile(t).packets_sent;
          st.instrs += nd.tile(t).instrs;
        }
      }
      for (const auto& l : links_)
        if (l->retry()) st.link += l->retry()->stats();
      st.cycles = (all_done ? end + 1 : now) - start;
      if (err) {
        st.error = why;
      } else if (!all_done) {
        std::ostringstream o;
        o << (now - start >= max_cycles ? "cycle limit reached" : "watchdog: nothing moved for ")
          << (now - start >= max_cycles ? "" : std::to_string(watchdog_cycles) + " cycles")
          << "; waiting tiles:";
        int shown = 0;
        for (int n = 0; n < topo_.num_nodes && shown < 8; ++n)
          for (int t = 0; t < nodes_[n]->num_tiles() && shown < 8; ++t)
            if (!nodes_[n]->tile(t).done) {
              o << "\n  " << nodes_[n]->tile(t).describe_wait();
              ++shown;
            }
        st.error = o.str();
        for (int n = 0; n < topo_.num_nodes; ++n)  // host-visible: TileStatus code 7
          for (int t = 0; t < nodes_[n]->num_tiles(); ++t)
            if (!nodes_[n]->tile(t).done && nodes_[n]->tile(t).err == TileErr::kNone) {
              nodes_[n]->tile(t).err = TileErr::kWatchdog;
              nodes_[n]->tile(t).err_detail = nodes_[n]->tile(t).describe_wait();
              nodes_[n]->tile(t).err_info = nodes_[n]->tile(t).wait_info();
            }
      }
      st.ok = all_done && !err;
      return st;
    }
  }
}

}  // namespace xf::model
