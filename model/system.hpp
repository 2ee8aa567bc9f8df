// The modelled machine: every node of a Topology (chips with tiles, switch nodes), wired by
// links (link.hpp: latency and credit flow control); a host port per node (host_port.hpp:
// memory-mapped access, docs/generated/defs.md "Register and memory map"); the run loop with a
// watchdog.
//
// SystemC elaborates once per process: build one System per process.
#pragma once

#include <memory>
#include <string>
#include <systemc>
#include <vector>

#include "host_port.hpp"
#include "link.hpp"
#include "node.hpp"
#include "xf/faults.hpp"
#include "xf/topology.hpp"

namespace xf::model {

struct RunStats {
  bool ok = false;
  bool stopped = false;  // never set by the model (the RTL's checker may stop a run)
  uint64_t cycles = 0;
  std::string error;   // empty when ok
  double seconds = 0;  // wall time of the run alone (the driver's run step), for cycles per second
  uint64_t flits_moved = 0, packets = 0, instrs = 0, xb_overflows = 0, misroutes = 0;
  uint32_t xb_max_occupancy = 0;
  // The link retry layer, summed over every link direction; all zero with no faults (the layer
  // is then absent). Link goodput: link.flits / (link.flits + link.flits_replayed).
  LinkStats link;
};

class System {
 public:
  // `faults` (docs/reliability.md section 7): with any() false, the default, the links are the
  // clean pipes whose timing the RTL is checked against; otherwise every link direction gets the
  // retry layer and a faulty wire (link.hpp), wire stream (receiving node << 8 | port).
  System(const Topology& topo, int tiles_per_chip, uint32_t tile_dmem_bytes,
         const FaultSpec& faults = FaultSpec{});
  ~System();

  // Replaces the fault spec; only before the first run (throws std::logic_error after).
  void set_faults(const FaultSpec& faults);
  const FaultSpec& faults() const { return faults_; }

  int num_chips() const { return topo_.num_chips; }
  int num_nodes() const { return topo_.num_nodes; }

  // Host port: byte-addressed reads and writes within one node's map (host_port.hpp). Switch
  // nodes expose only their routing table and link registers (LinkCrcErrors, LinkStatus,
  // LinkDiscards; Control bit 1 clears the links' sticky escalation on every node). Throws
  // std::out_of_range naming the address for a bad access.
  void host_write(int node, uint32_t addr, const void* data, size_t n);
  void host_read(int node, uint32_t addr, void* data, size_t n);
  uint32_t host_read32(int node, uint32_t addr);
  void host_write32(int node, uint32_t addr, uint32_t v);

  // Starts every chip (Control bit 0) and simulates until all tiles are done, an error is
  // raised, `max_cycles` pass, or nothing moves for `watchdog_cycles`.
  RunStats run(uint64_t max_cycles, uint64_t watchdog_cycles = 20000);

  Node& node(int n) { return *nodes_[n]; }

 private:
  HostPort& host(int node);  // throws std::out_of_range for a node that does not exist

  Topology topo_;
  sc_core::sc_clock clk_;
  Barrier barrier_;
  std::vector<std::unique_ptr<Node>> nodes_;
  std::vector<std::unique_ptr<HostPort>> hosts_;  // per node
  std::vector<std::unique_ptr<Link>> links_;      // two per topology link, one per direction
  std::vector<uint64_t> link_stream_;  // per link direction: receiving node << 8 | its port
  FaultSpec faults_;
  bool ran_ = false;
};

}  // namespace xf::model
