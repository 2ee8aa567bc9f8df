// Model of the exchange of a node: rtl/xf_exchange.sv (docs/exchange.md sections 1-4; docs/model.md
// section 1 for the model's blocks). It joins the tiles' paths into the exchange, one Xb per link
// port (xb.hpp, rtl/xf_xb.sv) and the Router (router.hpp, rtl/xf_router.sv) to the link
// transmitters and receive buffers (link.hpp) and the tiles' inputs. A switch node is the same
// with no tiles (the RTL's xf_switch uses xf_router alone; the model's unused XBs never request).
//
// One cycle, in this order (called by Node::tick between the links' receive and transmit steps):
//   1. tile_paths(): each tile path's front, when it is link-bound, goes to the XB of its port
//      (XREQ, XDONE or a data flit) and the path's credit goes back to the tile;
//   2. xb_decide(): each XB decides, its GRANT / XON / XOFF goes into the granted tile's message
//      pipe (XbCtrlLatencyCycles);
//   3. route(): the router moves at most one flit into every ready output (link transmitters,
//      tile inputs whose receive engine did not hold a flit in this cycle, TilePort::rx_held)
//      from the link receive buffers, the tile paths (tile-bound fronts) and the XB
//      queues; misrouted packets are dropped; then each XB ends its cycle (xb.hpp, step 4).
// All of it runs in the same cycle: a flit that reaches a tile path's front can leave on a link
// in that cycle (through its XB), as docs/model.md section 2 lists.
//
// Interface: the tile side is a TilePort per tile (the tile's Pipes), the link side one Link per
// direction and port; nothing here needs SystemC. A tile block test can use an Xb per link as its
// exchange (xb.hpp) instead of the whole Exchange.
#pragma once

#include <functional>
#include <vector>

#include "flit.hpp"
#include "link.hpp"
#include "router.hpp"
#include "xb.hpp"

namespace xf::model {

// One packet leaving a node on a link: the unit the RTL-vs-model checker compares per stream
// (one source tile to one link, docs/model.md).
struct PacketEvent {
  uint64_t cycle = 0;  // cycle its tail left
  int node = 0, port = 0;
  Header hdr;
  uint32_t payload_crc = 0;  // CRC-32 (IEEE) of the payload bytes
  bool transit = false;      // forwarded for another node (not from this node's tiles)
  uint32_t hdr_flits = 0;    // header flits seen so far (kHeaderBits / flit bits in all)
};
using PacketObserver = std::function<void(const PacketEvent&)>;

// A tile's side of the exchange (xf_tile's tx_*, tx_credit_i, rx_* and xb_msg_* ports).
struct TilePort {
  Pipe<Flit>* out = nullptr;                  // the tile's path into the exchange
  Pipe<int>* out_credits = nullptr;           // a credit back per flit taken from `out`
  Pipe<Flit>* in = nullptr;                   // into the tile's receive engine
  std::vector<Pipe<XbMsg>>* xb_in = nullptr;  // per link: GRANT, XON, XOFF from its XB
  // The receive engine held the flit at the front of `in` in cycle `now` (its read-after-write
  // hold): the tile's skid buffer is full in the RTL's next cycle, so the router does not move
  // a flit to this tile in `now` (the model's router runs a cycle ahead of the RTL's). Runs the
  // receive engine's step for `now` if the tile has not yet. Empty: the tile always takes one.
  std::function<bool(uint64_t now)> rx_held;
};

class Exchange {
 public:
  Exchange(int node, int num_chips, int num_ports, int num_tiles);

  void attach_tile(int t, const TilePort& port) { tiles_[t] = port; }
  // Link port `port`: the direction it sends on and the one it receives.
  void connect(int port, Link* tx, Link* rx);

  // One cycle (see above).
  void tile_paths(uint64_t now);
  void xb_decide(uint64_t now);
  void route(uint64_t now);

  Router& router() { return router_; }
  const Router& router() const { return router_; }
  const Xb& xb(int port) const { return xb_[port]; }
  int num_ports() const { return ports_; }

  // Statistics and error counters (host visible through Status, Misroutes, XbErrors).
  uint64_t xb_overflows() const;       // flits that reached a full XB queue, all ports
  uint32_t xb_max_occupancy() const;   // the fullest XB queue seen
  uint32_t xb_overflow_ports() const;  // bit l: the XB of link l overflowed (XbErrors)
  uint64_t misroutes() const { return router_.misroutes(); }
  uint64_t flits_moved() const { return router_.flits_moved(); }
  uint64_t last_move() const { return last_move_; }  // cycle the router last moved a flit
  // The cycle the first packet was misrouted (valid while misroutes() != 0).
  uint64_t first_misroute() const { return first_misroute_; }

  PacketObserver observer;           // called for every packet sent on a link, when set
  uint32_t flit_bytes = kFlitBytes;  // W of the machine: header flits and payload bytes per flit

 private:
  void observe(int port, int in, const Flit& f, uint64_t now);
  const Flit* head_of(int in, uint64_t now) const;
  void pop(int in, uint64_t now);

  int node_, ports_, num_tiles_;
  std::vector<TilePort> tiles_;
  std::vector<Link*> tx_, rx_;
  std::vector<Xb> xb_;
  Router router_;
  uint64_t last_move_ = 0, first_misroute_ = 0;
  std::vector<PacketEvent> open_;  // per link output: the packet being sent
  // Reused every cycle: no allocation on the hot path.
  std::vector<char> path_handed_;  // per tile: its path handed a flit to an XB this cycle
  std::vector<const Flit*> head_;
  std::vector<char> ready_;
  std::vector<int> dropped_, from_;
};

}  // namespace xf::model
