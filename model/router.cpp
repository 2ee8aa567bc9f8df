// Model of a node's wormhole router (see router.hpp; rtl/xf_router.sv).
#include "router.hpp"

namespace xf::model {

Router::Router(int node, int num_chips, int num_ports, int num_tiles, int num_inputs)
    : node_(node), num_chips_(num_chips), ports_(num_ports), tiles_(num_tiles) {
  table_.assign(kNumLanes * kMaxChips, 255);
  connected_.assign(num_ports, 0);
  source_.assign(num_inputs, kByHeader);
  lock_.assign(num_inputs, kFree);
  owner_.assign(num_ports + num_tiles, kFree);
  rr_.assign(num_ports + num_tiles, 0);
}

Router::Router(int node, int num_chips, int num_ports, int num_tiles)
    : Router(node, num_chips, num_ports, num_tiles, 2 * num_ports + num_tiles) {
  for (int t = 0; t < num_tiles; ++t) source_[num_ports + t] = kByTilePort;
  for (int l = 0; l < num_ports; ++l) source_[num_ports + num_tiles + l] = l;  // XB l feeds link l
}

int Router::route_of(const Flit& f) const {
  const Header& h = f.hdr;
  if (h.dst_chip == node_ && node_ < num_chips_) {
    if (h.dst_tile >= tiles_) return -1;
    return ports_ + h.dst_tile;
  }
  if (h.dst_chip >= num_chips_) return -1;
  const uint8_t p = table_[h.lane * kMaxChips + h.dst_chip];
  if (p == 255 || p >= ports_ || !connected_[p]) return -1;
  return p;
}

void Router::step(const std::vector<const Flit*>& head, const std::vector<char>& ready,
                  std::vector<int>* dropped, std::vector<int>* from) {
  const int n_in = num_inputs();
  dropped->clear();
  from->assign(owner_.size(), -1);
  want_.assign(n_in, kNoRequest);  // reused every cycle: no allocation on the hot path
  // Requests, and misrouted packets dropped one flit per cycle.
  for (int i = 0; i < n_in; ++i) {
    const Flit* f = head[i];
    if (!f) continue;
    if (lock_[i] >= 0) {
      want_[i] = lock_[i];
    } else if (f->head) {
      if (source_[i] == kByHeader)
        want_[i] = route_of(*f);
      else if (source_[i] == kByTilePort)
        want_[i] = f->port < tiles_ ? ports_ + f->port : -1;  // a tile that does not exist
      else
        want_[i] = source_[i];
      if (want_[i] == -1) {  // nowhere to go: count it and drop the packet's head
        ++misroutes_;
        if (!f->tail) lock_[i] = kDropping;  // drop until the tail
        dropped->push_back(i);
        want_[i] = kNoRequest;
      }
    } else if (lock_[i] == kDropping) {
      if (f->tail) lock_[i] = kFree;
      dropped->push_back(i);
    }
  }
  // Arbitration: each ready output moves at most one flit. An input requests one output
  // (want_), so no input can move twice in a cycle.
  // The first input in round-robin order from rr_[o] whose head wants free output o, or -1.
  auto next_in_turn = [&](int o) {
    for (int k = 0; k < n_in; ++k) {
      const int i = (rr_[o] + k) % n_in;
      if (want_[i] == o && lock_[i] < 0) return i;
    }
    return -1;
  };
  for (int o = 0; o < num_outputs(); ++o) {
    if (!ready[o]) {
      // A tile input that does not take a flit (its receive engine holds one) is still offered
      // one: the RTL's router presents its pick to an output without credits whatever the
      // ready, and the output belongs to that input from the first presentation on, so a head
      // that arrives later waits its turn behind it (rtl/xf_router.sv, next state).
      if (o >= ports_ && owner_[o] == kFree) owner_[o] = next_in_turn(o);  // kFree (-1) if none
      continue;
    }
    int pick = -1;
    if (owner_[o] >= 0) {
      if (want_[owner_[o]] == o) {
        pick = owner_[o];
        if (head[pick]->head) rr_[o] = (pick + 1) % n_in;  // presented while blocked, moves now
      }
    } else {
      pick = next_in_turn(o);
      if (pick >= 0) rr_[o] = (pick + 1) % n_in;
    }
    if (pick < 0) continue;
    (*from)[o] = pick;
    if (head[pick]->tail) {
      owner_[o] = kFree;
      lock_[pick] = kFree;
    } else {
      owner_[o] = pick;
      lock_[pick] = o;
    }
    ++flits_moved_;
  }
}

}  // namespace xf::model
