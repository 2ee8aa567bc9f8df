// Model of the exchange of a chip or switch node, with one XB per link (see chip.hpp).
//
// Per cycle: credits returned by the far ends are collected; each tile's out pipe hands at
// most one flit to the XB queue of its session's link (XREQ/XDONE are taken by the XB
// control); each XB sends XON/XOFF by its thresholds; then every output (link transmitter or
// tile receive port) moves at most one flit from the input that holds it or, when free, from
// the next input in round-robin order whose packet wants it (wormhole: an output stays with
// one packet from its head to its tail).
//
// With faults on, each link port's retry layer (link.hpp) runs around this: its receiver first
// (accepted flits into the receive buffer, acknowledgements, NAKs and credits to this node's
// transmitter), its transmitter last (one word on the wire). A link transmitter that is
// replaying takes no new flit from the exchange.
#include "chip.hpp"

#include <sstream>

#include "xf/crc32.hpp"

namespace xf::model {

uint64_t ChipCtx::now() const {
  // Raw time units per 1 ns cycle, computed once: constructing sc_time per call cost ~10% of
  // a run.
  static const uint64_t per_cycle = sc_core::sc_time(1, sc_core::SC_NS).value();
  return sc_core::sc_time_stamp().value() / per_cycle;
}

Node::Node(sc_core::sc_module_name name, int node, int num_ports, int num_tiles, int num_chips,
           Barrier* barrier)
    : sc_module(name), node_(node), ports_(num_ports) {
  ctx.chip = node;
  ctx.index = static_cast<uint32_t>(node);
  ctx.num_chips = num_chips;
  ctx.route = &route;
  ctx.barrier = barrier;
  ctx.num_tiles = num_tiles;
  ctx.num_ports = num_ports;
  route.assign(kNumLanes * kMaxChips, 255);
  for (int t = 0; t < num_tiles; ++t) {
    tiles_.emplace_back(new Tile(("tile" + std::to_string(t)).c_str(), &ctx, t, num_ports));
    tiles_.back()->clk_i(clk_i);
  }
  tx_.assign(num_ports, nullptr);
  rx_.assign(num_ports, nullptr);
  credits_.assign(num_ports, 0);
  xb_.resize(num_ports);
  ins_.resize(2 * num_ports + num_tiles);
  open_.resize(num_ports);
  outs_.resize(num_ports + num_tiles);
  SC_HAS_PROCESS(Node);
  SC_METHOD(tick);
  sensitive << clk_i.pos();
  dont_initialize();
}

void Node::connect(int port, Channel* tx, Channel* rx) {
  tx_[port] = tx;
  rx_[port] = rx;
  // The RTL router takes a flit from the receive buffer into its input stage (and returns its
  // credit) while the flit waits for a busy output: one flit of storage beyond the buffer.
  credits_[port] = kLinkRxBufferFlits + kRouterStageCycles;
}

void Node::observe(int port, int in, const Flit& f, uint64_t now) {
  PacketEvent& e = open_[port];
  if (f.head) {
    e = PacketEvent{};
    e.node = node_;
    e.port = port;
    e.hdr = f.hdr;
    e.transit = in < ports_;
  } else {
    e.payload_crc = crc32_update(e.payload_crc, f.data.data(), f.data.size());
  }
  if (f.tail) {
    e.cycle = now;
    observer(e);
  }
}

int Node::route_of(const Flit& f) {
  const Header& h = f.hdr;
  if (h.dst_chip == node_ && node_ < ctx.num_chips) {
    if (h.dst_tile >= tiles_.size()) return -1;
    return ports_ + h.dst_tile;
  }
  if (h.dst_chip >= ctx.num_chips) return -1;
  const uint8_t p = route[h.lane * kMaxChips + h.dst_chip];
  if (p == 255 || p >= ports_ || !tx_[p]) return -1;
  return p;
}

Flit* Node::head_of(int in, uint64_t now) {
  const int T = static_cast<int>(tiles_.size());
  if (in < ports_) return rx_[in] && rx_[in]->flits.ready(now) ? &rx_[in]->flits.front() : nullptr;
  if (in < ports_ + T) {
    Pipe<Flit>& o = tiles_[in - ports_]->out;
    return o.ready(now) && o.front().target == Target::kTile ? &o.front() : nullptr;
  }
  Xb& x = xb_[in - ports_ - T];
  return x.q.empty() ? nullptr : &x.q.front();
}

void Node::pop(int in, uint64_t now) {
  const int T = static_cast<int>(tiles_.size());
  if (in < ports_) {
    rx_[in]->flits.pop();
    if (rx_[in]->retry)
      rx_[in]->retry->credit_returned();  // rides in this node's next word to the far end
    else
      rx_[in]->credits.push(now, 1);
  } else if (in < ports_ + T) {
    tiles_[in - ports_]->out.pop();
    tiles_[in - ports_]->out_credits_in.push(now, 1);
  } else {
    xb_[in - ports_ - T].q.pop_front();
  }
}

void Node::link_receive(uint64_t now) {
  for (int p = 0; p < ports_; ++p) {
    if (!rx_[p] || !rx_[p]->retry) continue;
    LinkCtl c;
    if (rx_[p]->retry->receive(now, &c)) credits_[p] += tx_[p]->retry->on_control(c);
    tx_[p]->retry->tick_timer();
  }
}

void Node::link_transmit(uint64_t now) {
  for (int p = 0; p < ports_; ++p)
    if (tx_[p] && tx_[p]->retry) tx_[p]->retry->transmit(now, rx_[p]->retry->rx_ctl());
}

void Node::tick() {
  const uint64_t now = ctx.now();
  const int T = static_cast<int>(tiles_.size());
  link_receive(now);
  for (int p = 0; p < ports_; ++p)
    if (tx_[p])
      while (tx_[p]->credits.ready(now)) {
        credits_[p] += tx_[p]->credits.front();
        tx_[p]->credits.pop();
      }
  const int n_in = static_cast<int>(ins_.size());
  std::vector<int>& want = want_;  // reused every cycle: no allocation on the hot path
  std::vector<char>& moved = moved_;
  want.assign(n_in, -2);
  moved.assign(n_in, 0);
  // Tile out pipes: session control and link-bound flits go to the XB of their link. A path
  // hands on one flit per cycle (the RTL's path FIFO has one front): the flit behind a
  // link-bound front taken here waits for the next cycle, also when it is tile-bound.
  for (int t = 0; t < T; ++t) {
    Pipe<Flit>& o = tiles_[t]->out;
    if (!o.ready(now) || o.front().target != Target::kLink) continue;
    Flit& f = o.front();
    Xb& x = xb_[f.port];
    if (f.head && f.hdr.opcode == Opcode::kXreq) {
      x.requests.push_back(t);
    } else if (f.head && f.hdr.opcode == Opcode::kXdone) {
      if (x.granted == t) x.granted = -1;
    } else {
      x.q.push_back(f);
      if (x.q.size() > kXbQueueFlits) {  // the XON/XOFF budget was violated
        ++xb_overflows;
        xb_overflow_ports |= 1u << f.port;
      }
      xb_max_occupancy = std::max<uint32_t>(xb_max_occupancy, x.q.size());
    }
    o.pop();
    tiles_[t]->out_credits_in.push(now, 1);
    moved[ports_ + t] = 1;
  }
  // XB control: one tile at a time; XOFF before the queue can overflow, XON when drained.
  for (int l = 0; l < ports_; ++l) {
    Xb& x = xb_[l];
    if (x.granted < 0 && !x.requests.empty() && x.q.size() < kXbXoffThresholdFlits) {
      x.granted = x.requests.front();
      x.requests.pop_front();
      x.xoff = false;
      tiles_[x.granted]->xb_in[l].push(now, XbMsg::kGrant);
    } else if (x.granted >= 0) {
      if (!x.xoff && x.q.size() >= kXbXoffThresholdFlits) {
        x.xoff = true;
        tiles_[x.granted]->xb_in[l].push(now, XbMsg::kXoff);
      } else if (x.xoff && x.q.size() <= kXbXonThresholdFlits) {
        x.xoff = false;
        tiles_[x.granted]->xb_in[l].push(now, XbMsg::kXon);
      }
    }
  }
  // Arbitration.
  for (int i = 0; i < n_in; ++i) {
    Flit* f = moved[i] ? nullptr : head_of(i, now);
    if (!f) continue;
    if (ins_[i].out >= 0) {
      want[i] = ins_[i].out;
    } else if (f->head) {
      if (i < ports_)
        want[i] = route_of(*f);
      else if (i < ports_ + T)
        want[i] = f->port < T ? ports_ + f->port : -1;  // a tile that does not exist
      else
        want[i] = i - ports_ - T;
      if (want[i] == -1) {  // nowhere to go: count it and drop the packet's head
        ++misroutes;
        if (!f->tail) ins_[i].out = -3;  // drop until the tail
        pop(i, now);
        want[i] = -2;
      }
    } else if (ins_[i].out == -3) {
      const bool tail = f->tail;
      pop(i, now);
      if (tail) ins_[i].out = -1;
    }
  }
  for (int o = 0; o < static_cast<int>(outs_.size()); ++o) {
    Out& out = outs_[o];
    const bool link = o < ports_;
    if (link && (!tx_[o] || credits_[o] <= 0 || (tx_[o]->retry && !tx_[o]->retry->tx_ready())))
      continue;
    int pick = -1;
    if (out.in >= 0) {
      if (want[out.in] == o && !moved[out.in]) pick = out.in;
    } else {
      for (int k = 0; k < n_in; ++k) {
        const int i = (out.rr + k) % n_in;
        if (want[i] == o && !moved[i] && ins_[i].out < 0) {
          pick = i;
          out.rr = (i + 1) % n_in;
          break;
        }
      }
    }
    if (pick < 0) continue;
    Flit f = *head_of(pick, now);
    pop(pick, now);
    moved[pick] = 1;
    if (link) {
      if (tx_[o]->retry)
        tx_[o]->retry->offer(now, f);
      else
        tx_[o]->flits.push(now, f);
      --credits_[o];
      if (observer) observe(o, pick, f, now);
    } else {
      tiles_[o - ports_]->in.push(now, f);
    }
    if (f.tail) {
      out.in = -1;
      ins_[pick].out = -1;
    } else {
      out.in = pick;
      ins_[pick].out = o;
    }
    ++flits_moved;
    last_move = now;
  }
  link_transmit(now);
}

}  // namespace xf::model
