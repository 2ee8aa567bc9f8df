// Model of the XB of one link port: rtl/xf_xb.sv, cycle for cycle (docs/exchange.md sections 3
// and 4 give the protocol and the XOFF budget; docs/model.md section 1 the model's blocks).
//
// The XB admits one tile at a time to its link (XREQ / GRANT / XOFF / XON / XDONE) and queues
// the granted tile's link-bound flits for the link transmitter. It knows nothing of SystemC, of
// the tiles or of the router: its inputs and outputs are the RTL block's ports.
//
// One cycle, in this order (the RTL's steps 1-3, and the end of the cycle):
//   1. request(t) for each xreq_i[t] (ascending tile order within a cycle), done(t) for each
//      xdone_i[t] (a tile's done() before its own request()), push(f) for in_valid_i / in_flit_i;
//   2. decide(): the message of the cycle (msg_valid_o / msg_kind_o), from the occupancy after
//      the enqueue and before the dequeue;
//   3. out_valid() / front() are out_valid_o / out_flit_o (a flit pushed this cycle into an
//      empty queue is offered at once); pop() when out_ready_i takes it;
//   4. end_cycle(): a flit that arrived at a full queue is lost unless pop() made room this cycle
//      (the RTL's rule; such a flit is counted in overflows() when pushed).
// The status accessors are the stat_* outputs; read before step 1 they show the registered
// state at the start of the cycle, as the RTL's do.
//
// How a block test drives it against rtl/xf_xb.sv, per cycle: present xreq_i, xdone_i, in_* and
// out_ready_i to the DUT and the same to the Xb (steps 1 and 2), compare msg_* with decide()'s
// Msg and out_valid_o / out_flit_o with out_valid() / front(), call pop() when out_ready_i and
// out_valid(), end_cycle(), then clock the DUT. The XB never reads a flit, so a test may carry
// its raw 128 bits in Flit::data for every flit, head flits included. That is the RTL block with
// StagedConsumer = 0 (its default). In a chip, xf_exchange builds its XBs with StagedConsumer = 1:
// the router's input stage takes the queue's head early, and the XB keeps counting it until the
// stage releases it, which is this queue, from which the model's router moves the flit directly.
#pragma once

#include <cstdint>
#include <deque>

#include "flit.hpp"

namespace xf::model {

class Xb {
 public:
  // A message to one tile (msg_valid_o bit `tile`, msg_kind_o `kind`); tile < 0: none.
  struct Msg {
    int tile = -1;
    XbMsg kind = XbMsg::kGrant;
  };

  // The RTL's parameters QueueFlits, XoffThresholdFlits, XonThresholdFlits.
  explicit Xb(uint32_t queue_flits = kXbQueueFlits, uint32_t xoff_flits = kXbXoffThresholdFlits,
              uint32_t xon_flits = kXbXonThresholdFlits);

  // Step 1: the tile paths' outputs of the cycle.
  void request(int tile) { requests_.push_back(tile); }
  void done(int tile) {  // from a tile without the grant: ignored
    if (granted_ == tile) granted_ = -1;
  }
  void push(const Flit& f);
  // Step 2: GRANT to the oldest requester when idle and below XOFF; XOFF / XON to the granted
  // tile when the occupancy crosses the thresholds.
  Msg decide();
  // Step 3: the link side.
  bool out_valid() const { return !q_.empty(); }
  const Flit& front() const { return q_.front(); }
  void pop() { q_.pop_front(); }
  // Step 4. Returns true when a flit was lost.
  bool end_cycle();

  // stat_occupancy_o, stat_max_occupancy_o, stat_overflow_count_o (not saturated here; the RTL's
  // counter saturates at 16 bits), stat_granted_valid_o / stat_granted_tile_o (-1: none),
  // stat_xoff_o.
  uint32_t occupancy() const { return static_cast<uint32_t>(q_.size()); }
  uint32_t max_occupancy() const { return max_occupancy_; }
  uint64_t overflows() const { return overflows_; }
  int granted() const { return granted_; }
  bool xoff() const { return xoff_; }

 private:
  uint32_t queue_flits_, xoff_flits_, xon_flits_;
  std::deque<Flit> q_;
  std::deque<int> requests_;
  int granted_ = -1;
  bool xoff_ = false;
  uint32_t max_occupancy_ = 0;
  uint64_t overflows_ = 0;
};

}  // namespace xf::model
