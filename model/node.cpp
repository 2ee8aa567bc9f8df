// Model of a chip or switch node: the order of its blocks within a cycle (see node.hpp).
#include "node.hpp"

namespace xf::model {

uint64_t ChipCtx::now() const {
  // Raw time units per 1 ns cycle, computed once: constructing sc_time per call cost ~10% of
  // a run.
  static const uint64_t per_cycle = sc_core::sc_time(1, sc_core::SC_NS).value();
  return sc_core::sc_time_stamp().value() / per_cycle;
}

Node::Node(sc_core::sc_module_name name, int node, int num_ports, int num_tiles, int num_chips,
           Barrier* barrier)
    : sc_module(name),
      ports_(num_ports),
      exchange_(node, num_chips, num_ports, num_tiles),
      tx_(num_ports, nullptr),
      rx_(num_ports, nullptr) {
  ctx.chip = node;
  ctx.index = static_cast<uint32_t>(node);
  ctx.num_chips = num_chips;
  ctx.route = &exchange_.router().table();
  ctx.barrier = barrier;
  ctx.num_tiles = num_tiles;
  ctx.num_ports = num_ports;
  for (int t = 0; t < num_tiles; ++t) {
    tiles_.emplace_back(new Tile(("tile" + std::to_string(t)).c_str(), &ctx, t, num_ports));
    tiles_.back()->clk_i(clk_i);
    Tile& tl = *tiles_.back();
    exchange_.attach_tile(t, TilePort{&tl.out, &tl.out_credits_in, &tl.in, &tl.xb_in,
                                      [&tl](uint64_t now) { return tl.rx_held(now); }});
  }
  SC_HAS_PROCESS(Node);
  SC_METHOD(tick);
  sensitive << clk_i.pos();
  dont_initialize();
}

void Node::connect(int port, Link* tx, Link* rx) {
  tx_[port] = tx;
  rx_[port] = rx;
  exchange_.connect(port, tx, rx);
}

// One cycle: the links' receivers and credits, the exchange (tile paths into the XBs, the XBs'
// decisions, the router), the links' transmitters. docs/model.md section 1.
void Node::tick() {
  const uint64_t now = ctx.now();
  for (int p = 0; p < ports_; ++p) {
    if (!tx_[p]) continue;
    LinkCtl c;
    const bool got = rx_[p]->receive(now, &c);
    tx_[p]->collect(now, got ? &c : nullptr);
  }
  exchange_.tile_paths(now);
  exchange_.xb_decide(now);
  exchange_.route(now);
  for (int p = 0; p < ports_; ++p)
    if (tx_[p]) tx_[p]->transmit(now, *rx_[p]);
}

}  // namespace xf::model
