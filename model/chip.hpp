// Model of a chip (xf_chip): tiles, the exchange with one XB per link, link ports; and of a
// switch node (xf_switch): the same exchange with link ports only. Also the whole machine
// (System): nodes wired by a Topology, the host port, the barrier and the run loop.
// docs/model.md describes timing; docs/exchange.md the XB protocol.
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <systemc>
#include <vector>

#include "flit.hpp"
#include "link.hpp"
#include "tile.hpp"
#include "xf/topology.hpp"

namespace xf::model {

// The barrier across all tiles of all chips. The last arrival at cycle t releases every
// member at cycle t + 1, whatever order the tiles are evaluated in within cycle t.
struct Barrier {
  int members = 0, arrived = 0;
  uint64_t generation = 0, release_at = 0;
};

// What a tile needs to know about its chip.
struct ChipCtx {
  int chip = 0;        // node id
  uint32_t index = 0;  // index value written by the host
  int num_chips = 0;
  int num_tiles = 0, num_ports = 0;
  const std::vector<uint8_t>* route = nullptr;  // lane * kMaxChips + dst -> port
  Barrier* barrier = nullptr;
  uint64_t start_cycle = 0;  // cycle of the last Control start (Cycles, Geti 3)
  uint64_t now() const;
};

// A directed link channel: flits one way, credits the other way.
struct Channel {
  // The RTL router's input stage sits before every link transmitter (docs/exchange.md).
  Pipe<Flit> flits{kLinkLatencyCycles + kRouterStageCycles};
  Pipe<int> credits{kLinkLatencyCycles};
  // With faults on (System::set_faults), the retry layer and its faulty wire (link.hpp): flits
  // then travel through it and `flits` is only the receive buffer (latency 0); credits ride in
  // the reverse direction's words and `credits` stays empty. Null with no faults: the two pipes
  // above are the whole link, so the clean-link timing is the one the RTL is checked against.
  std::unique_ptr<LinkRetry> retry;
};

// One packet leaving a node on a link: the unit the RTL-vs-model checker compares per stream
// (one source tile to one link, docs/model.md).
struct PacketEvent {
  uint64_t cycle = 0;  // cycle its tail left
  int node = 0, port = 0;
  Header hdr;
  uint32_t payload_crc = 0;  // CRC-32 (IEEE) of the payload bytes
  bool transit = false;      // forwarded for another node (not from this node's tiles)
};
using PacketObserver = std::function<void(const PacketEvent&)>;

class Node : public sc_core::sc_module {
 public:
  sc_core::sc_in<bool> clk_i;

  Node(sc_core::sc_module_name name, int node, int num_ports, int num_tiles, int num_chips,
       Barrier* barrier);

  void connect(int port, Channel* tx, Channel* rx);
  // The channels of a link port (null when the port is not connected).
  Channel* tx_channel(int port) const { return tx_[port]; }
  Channel* rx_channel(int port) const { return rx_[port]; }
  int num_ports() const { return ports_; }
  Tile& tile(int t) { return *tiles_[t]; }
  int num_tiles() const { return static_cast<int>(tiles_.size()); }
  ChipCtx ctx;
  std::vector<uint8_t> route;
  // Statistics and error counters (host visible through Status).
  uint64_t xb_overflows = 0, misroutes = 0, flits_moved = 0, last_move = 0;
  uint32_t xb_max_occupancy = 0;
  uint32_t xb_overflow_ports = 0;  // bit l: the XB of link l overflowed (XbErrors)
  PacketObserver observer;         // called for every packet sent on a link, when set

 private:
  struct In {
    int out = -1;  // output this input's current packet is locked to
  };
  struct Out {
    int in = -1;  // input currently holding this output
    int rr = 0;
  };
  struct Xb {
    std::deque<Flit> q;
    std::deque<int> requests;
    int granted = -1;
    bool xoff = false;
  };
  void tick();
  void link_receive(uint64_t now);   // retry layer, start of the cycle (faults on only)
  void link_transmit(uint64_t now);  // retry layer, end of the cycle (faults on only)
  int route_of(const Flit& head);
  void observe(int port, int in, const Flit& f,
               uint64_t now);  // output index for a head flit arriving from a link
  Flit* head_of(int in, uint64_t now);
  void pop(int in, uint64_t now);

  int node_, ports_;
  std::vector<std::unique_ptr<Tile>> tiles_;
  std::vector<Channel*> tx_, rx_;
  std::vector<int> credits_;
  std::vector<Xb> xb_;
  std::vector<In> ins_;    // 0..ports-1: link rx, ports..ports+T-1: tile out, then XB queues
  std::vector<Out> outs_;  // 0..ports-1: link tx, ports..ports+T-1: tile in
  std::vector<PacketEvent> open_;  // per link output: the packet being sent
  std::vector<int> want_;          // per input: the output its head flit wants this cycle
  std::vector<char> moved_;        // per input: moved a flit this cycle
};

}  // namespace xf::model
