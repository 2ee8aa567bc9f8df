// The modelled machine (see system.hpp).
#include "system.hpp"

#include <algorithm>
#include <sstream>
#include <stdexcept>

namespace xf::model {

namespace {
// From the cycle an error arises in the model to the cycle the RTL's run loop stops on it
// (measured against the RTL by Misroutes.* and ErrorStop.* in tests/test_rtl_chip.cpp).
constexpr uint64_t kTileErrorStopCycles = 1;  // the chip's error register
constexpr uint64_t kMisrouteStopCycles = 2;   // the Misroutes counter, then the error register
}  // namespace

System::System(const Topology& topo, int tiles_per_chip, uint32_t tile_dmem_bytes,
               const FaultSpec& faults)
    : topo_(topo), clk_("clk", 1, sc_core::SC_NS) {
  if (!legal_flit_bits(topo.flit_bits))
    throw std::invalid_argument("model: flit width " + std::to_string(topo.flit_bits) +
                                " bits; the fabric has 32, 64 or 128 (--flit-bits)");
  barrier_.members = topo.num_chips * tiles_per_chip;
  for (int n = 0; n < topo.num_nodes; ++n) {
    const bool chip = !topo.is_switch(n);
    std::string name = (chip ? "chip" : "switch") + std::to_string(n);
    nodes_.emplace_back(new Node(name.c_str(), n, topo.num_ports[n], chip ? tiles_per_chip : 0,
                                 topo.num_chips, &barrier_));
    nodes_.back()->clk_i(clk_);
    nodes_.back()->ctx.flit_bytes = static_cast<uint32_t>(topo.flit_bytes());
    nodes_.back()->exchange().flit_bytes = static_cast<uint32_t>(topo.flit_bytes());
    hosts_.emplace_back(new HostPort(*nodes_.back(), n));
    for (int t = 0; t < nodes_.back()->num_tiles(); ++t)
      nodes_.back()->tile(t).dmem.resize(tile_dmem_bytes);  // zero pages, no write
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
  set_faults(faults);
}

System::~System() = default;

void System::set_faults(const FaultSpec& faults) {
  // The retry layer holds link state (sequence numbers, credits in flight): it cannot be swapped
  // in or out once flits have moved.
  if (ran_) throw std::logic_error("System::set_faults: only before the first run");
  faults_ = faults;
  for (size_t i = 0; i < links_.size(); ++i)
    links_[i]->set_faults(faults, link_stream_[i], static_cast<uint32_t>(topo_.flit_bits));
}

HostPort& System::host(int node) {
  if (node < 0 || node >= static_cast<int>(nodes_.size()))
    throw std::out_of_range("host port: node " + std::to_string(node) + " does not exist");
  return *hosts_[node];
}

void System::host_write(int node, uint32_t addr, const void* data, size_t n) {
  host(node).write(addr, data, n);
}

void System::host_read(int node, uint32_t addr, void* data, size_t n) {
  host(node).read(addr, data, n);
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
    // A failed run counts to the cycle in which the RTL's harness sees the first error on a
    // node's stat_err_o (sw/backends/rtl/rtl_system.hpp): the earliest error's cycle plus the
    // registers between its source and that output. The message names the first error in node
    // and tile order, as the driver's diagnosis lists them.
    uint64_t err_at = 0;
    auto error = [&](uint64_t at, std::string what) {
      if (!err) why = std::move(what);
      err_at = err ? std::min(err_at, at) : at;
      err = true;
    };
    for (int n = 0; n < topo_.num_nodes; ++n) {
      Node& nd = *nodes_[n];
      last_activity = std::max(last_activity, nd.exchange().last_move());
      if (nd.exchange().xb_overflows())  // no RTL run overflows (proved): the slice's end
        error(now, "node " + std::to_string(n) + ": XB queue overflow (XOFF budget violated)");
      if (nd.exchange().misroutes())
        error(std::max(nd.exchange().first_misroute() + kMisrouteStopCycles, start),
              "node " + std::to_string(n) + ": packet with an unknown destination dropped");
      for (int t = 0; t < nd.num_tiles(); ++t) {
        Tile& tl = nd.tile(t);
        last_activity = std::max(last_activity, tl.last_progress);
        if (!tl.done) all_done = false;
        if (tl.err != TileErr::kNone)
          error(std::max(tl.err_cycle + kTileErrorStopCycles, start),
                "chip " + std::to_string(n) + " tile " + std::to_string(t) + ": " +
                    to_string(tl.err) + ": " + tl.err_detail);
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
      st.cycles = (err ? err_at : all_done ? end + 1 : now) - start;
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
