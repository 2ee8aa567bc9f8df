// Model of a node's wormhole router: rtl/xf_router.sv, one cycle earlier (docs/exchange.md
// sections 6 and 7 give the routing rule and the arbitration; docs/model.md section 1 the
// model's blocks).
//
// Numbering of a node's router (the RTL's, with the model's connected ports only): inputs 0..P-1
// link receivers, P..P+T-1 tile paths, P+T..2P+T-1 XB queues; outputs 0..P-1 link transmitters,
// P..P+T-1 tile inputs (P link ports, T tiles). A link input's head flit is routed by its header
// (route_of); a tile path's head by the output the sending tile chose (Flit::port: tile `port`,
// a tile that does not exist is a misroute); an XB queue always feeds its own link. The RTL
// routes every input by its header; both rules come from the same table (see rtl/xf_router.sv).
// The second constructor builds a router whose inputs are all routed by their headers, as
// xf_router's (a block test's NumIn inputs).
//
// One cycle (step()): an input whose packet holds an output asks for it; an input with a head
// flit asks for the output it routes to, or, when there is none, drops the head (counted in
// misroutes()) and then one flit per cycle up to the packet's tail. Then every ready output, in
// output order, moves one flit: from the input that holds it or, when free, from the first
// input in round-robin order (starting after the last input it picked) whose head wants it; the
// output stays with that input's packet until the tail (wormhole). One flit per input and
// output per cycle. A tile output that is not ready still gets its round-robin pick as owner
// (the RTL presents to it whatever its ready), and that input moves first when it is ready.
//
// How a block test drives it, per cycle: fill `head` with the flit at the front of each input
// (null for none) and `ready` with the outputs that can take a flit (a link transmitter with a
// credit; tile inputs always), call step(), pop the inputs in `dropped`, then for each output o
// with from[o] >= 0 pop input from[o] and deliver its flit to o. The RTL moves the same flit in
// the same order one cycle later (its input stage). route_of() is the routing rule alone, for
// a scoreboard.
#pragma once

#include <cstdint>
#include <vector>

#include "flit.hpp"

namespace xf::model {

class Router {
 public:
  // `node`: this node's id (cfg_chip_id_i), `num_chips`: chips in the machine (a node id at or
  // above it is a switch node: no tile outputs).
  Router(int node, int num_chips, int num_ports, int num_tiles);
  // `num_inputs` inputs, every one routed by its header; outputs as above.
  Router(int node, int num_chips, int num_ports, int num_tiles, int num_inputs);

  // The routing table (RouteTable): entry lane * MaxChips + dst_chip, 255 = no route.
  std::vector<uint8_t>& table() { return table_; }
  const std::vector<uint8_t>& table() const { return table_; }
  // Link transmitter `port` exists (an unconnected port is a misroute).
  void connect(int port) { connected_[port] = 1; }

  // The output a head flit from a link input routes to, or -1 (a misroute).
  int route_of(const Flit& head) const;

  // One cycle: `head` has num_inputs() entries, `ready` num_outputs(). On return `dropped`
  // lists the inputs whose front flit is dropped (in input order) and from[o] is the input whose
  // front flit moves to output o, or -1.
  void step(const std::vector<const Flit*>& head, const std::vector<char>& ready,
            std::vector<int>* dropped, std::vector<int>* from);

  int num_inputs() const { return static_cast<int>(lock_.size()); }
  int num_outputs() const { return static_cast<int>(owner_.size()); }
  uint64_t misroutes() const { return misroutes_; }  // packets dropped (stat_misroutes_o)
  uint64_t flits_moved() const { return flits_moved_; }

 private:
  static constexpr int kFree = -1, kDropping = -3, kNoRequest = -2;
  static constexpr int kByHeader = -1, kByTilePort = -2;  // or a fixed output
  int node_, num_chips_, ports_, tiles_;
  std::vector<int> source_;  // per input: kByHeader, kByTilePort or the output it always feeds
  std::vector<uint8_t> table_;
  std::vector<char> connected_;
  std::vector<int> lock_;   // per input: the output its packet holds, kFree or kDropping
  std::vector<int> owner_;  // per output: the input holding it, or kFree
  std::vector<int> rr_;     // per output: the first input of the next round-robin search
  std::vector<int> want_;   // per input: the output it asks for this cycle, or kNoRequest
  uint64_t misroutes_ = 0, flits_moved_ = 0;
};

}  // namespace xf::model
