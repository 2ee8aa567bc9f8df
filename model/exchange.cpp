// Model of the exchange of a node (see exchange.hpp; rtl/xf_exchange.sv).
#include "exchange.hpp"

#include <algorithm>

#include "xf/crc32.hpp"

namespace xf::model {

Exchange::Exchange(int node, int num_chips, int num_ports, int num_tiles)
    : node_(node),
      ports_(num_ports),
      num_tiles_(num_tiles),
      tiles_(num_tiles),
      tx_(num_ports, nullptr),
      rx_(num_ports, nullptr),
      xb_(num_ports),
      router_(node, num_chips, num_ports, num_tiles),
      open_(num_ports) {}

void Exchange::connect(int port, Link* tx, Link* rx) {
  tx_[port] = tx;
  rx_[port] = rx;
  router_.connect(port);
}

void Exchange::tile_paths(uint64_t now) {
  // Session control and link-bound flits go to the XB of their link. A path hands on one flit
  // per cycle (the RTL's path FIFO has one front): the flit behind a link-bound front taken here
  // waits for the next cycle, also when it is tile-bound (route() skips that path).
  path_handed_.assign(num_tiles_, 0);
  for (int t = 0; t < num_tiles_; ++t) {
    Pipe<Flit>& o = *tiles_[t].out;
    if (!o.ready(now) || o.front().target != Target::kLink) continue;
    const Flit& f = o.front();
    Xb& x = xb_[f.port];
    if (f.head && f.hdr.opcode == Opcode::kXreq)
      x.request(t);
    else if (f.head && f.hdr.opcode == Opcode::kXdone)
      x.done(t);
    else
      x.push(f);
    o.pop();
    tiles_[t].out_credits->push(now, 1);
    path_handed_[t] = 1;
  }
}

void Exchange::xb_decide(uint64_t now) {
  for (int l = 0; l < ports_; ++l) {
    const Xb::Msg m = xb_[l].decide();
    if (m.tile >= 0) (*tiles_[m.tile].xb_in)[l].push(now, m.kind);
  }
}

const Flit* Exchange::head_of(int in, uint64_t now) const {
  if (in < ports_) return rx_[in] && rx_[in]->rx_valid(now) ? &rx_[in]->rx_front() : nullptr;
  if (in < ports_ + num_tiles_) {
    const Pipe<Flit>& o = *tiles_[in - ports_].out;
    return o.ready(now) && o.front().target == Target::kTile ? &o.front() : nullptr;
  }
  const Xb& x = xb_[in - ports_ - num_tiles_];
  return x.out_valid() ? &x.front() : nullptr;
}

void Exchange::pop(int in, uint64_t now) {
  if (in < ports_) {
    rx_[in]->rx_pop(now);
  } else if (in < ports_ + num_tiles_) {
    tiles_[in - ports_].out->pop();
    tiles_[in - ports_].out_credits->push(now, 1);
  } else {
    xb_[in - ports_ - num_tiles_].pop();
  }
}

void Exchange::route(uint64_t now) {
  const int n_in = router_.num_inputs(), n_out = router_.num_outputs();
  head_.resize(n_in);
  for (int i = 0; i < n_in; ++i) {
    const bool handed = i >= ports_ && i < ports_ + num_tiles_ && path_handed_[i - ports_];
    head_[i] = handed ? nullptr : head_of(i, now);
  }
  ready_.assign(n_out, 1);
  for (int o = 0; o < ports_; ++o) ready_[o] = tx_[o] && tx_[o]->tx_ready();
  for (int t = 0; t < num_tiles_; ++t)
    if (tiles_[t].rx_held && tiles_[t].rx_held(now)) ready_[ports_ + t] = 0;
  const bool misrouted_before = router_.misroutes() != 0;
  router_.step(head_, ready_, &dropped_, &from_);
  if (!misrouted_before && router_.misroutes() != 0) first_misroute_ = now;
  for (int i : dropped_) pop(i, now);
  for (int o = 0; o < n_out; ++o) {
    const int i = from_[o];
    if (i < 0) continue;
    const Flit f = *head_[i];
    pop(i, now);
    if (o < ports_) {
      tx_[o]->send(now, f);
      if (observer) observe(o, i, f, now);
    } else {
      tiles_[o - ports_].in->push(now, f);
    }
    last_move_ = now;
  }
  for (Xb& x : xb_) x.end_cycle();
}

void Exchange::observe(int port, int in, const Flit& f, uint64_t now) {
  PacketEvent& e = open_[port];
  if (f.head) {
    e = PacketEvent{};
    e.node = node_;
    e.port = port;
    e.hdr = f.hdr;
    e.transit = in < ports_;
  }
  if (e.hdr_flits < kHeaderBits / 8 / flit_bytes)  // the header's flits (docs/packets.md)
    ++e.hdr_flits;
  else
    e.payload_crc = crc32_update(e.payload_crc, f.data.data(), flit_bytes);
  if (f.tail) {
    e.cycle = now;
    observer(e);
  }
}

uint64_t Exchange::xb_overflows() const {
  uint64_t n = 0;
  for (const Xb& x : xb_) n += x.overflows();
  return n;
}

uint32_t Exchange::xb_max_occupancy() const {
  uint32_t m = 0;
  for (const Xb& x : xb_) m = std::max(m, x.max_occupancy());
  return m;
}

uint32_t Exchange::xb_overflow_ports() const {
  uint32_t bits = 0;
  for (int l = 0; l < ports_; ++l)
    if (xb_[l].overflows()) bits |= 1u << l;
  return bits;
}

}  // namespace xf::model
