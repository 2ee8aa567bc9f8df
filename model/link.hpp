// Model of a link direction (docs/model.md section 1): `Link` is one direction of a link, the
// transmit half of the rtl/xf_link.sv at one node's port, the wire and the receive half of the
// xf_link at the far node's port; `LinkRetry` is its retry layer (docs/reliability.md sections
// 3-5) with the faults its wire injects (section 7).
//
// Clean links (no faults, the default): a Link is two pipes, flits one way and credits the other,
// and a credit counter at the transmitter. This is the timing the RTL is checked against.
//
// Faults on (Link::set_faults): the Link's flits travel through a LinkRetry and its flit pipe is
// only the receive buffer (latency 0); credits ride in the reverse direction's words. The retry
// layer reproduces the clean timing to the cycle on a clean wire (the exchange gives a flit to the
// router stage in cycle t, the transmitter puts it on the wire in t + 1, the far receiver accepts
// it in t + 1 + LinkLatencyCycles and its exchange can take it that cycle: 9 cycles, as the flit
// pipe; a credit freed in cycle t rides the far end's word of cycle t and is usable in t + 8, as
// the credit pipe). tests/test_model_faults.cpp (ModelFaultsCleanWire) checks it.
//
// LinkRetry: one word per cycle per direction, a flit or an idle word, each carrying the control
// fields (ack, credits, naks) of the reverse direction's receiver. Which node calls what, per
// cycle (Link does it for a Node; tests/test_model_faults.cpp drives a LinkRetry pair alone):
//
//   receiving node, start of its tick:  receive()           the word due this cycle, if good:
//                                                           flit checked and accepted into the
//                                                           receive buffer, control fields out
//   the same node, for its own transmitter on that port:    on_control(), tick_timer()
//   receiving node, its exchange takes a flit:              credit_returned()
//   sending node, its exchange gives a flit:                tx_ready(), offer()
//   sending node, end of its tick:                          transmit(rx_ctl() of the reverse)
//
// Each half is touched by one node only and the halves talk through the wire (latency
// LinkLatencyCycles >= 1), so SystemC's evaluation order of the nodes never matters.
//
// Deviation from the RTL (docs/reliability.md section 4, "Replay buffer"): the model's exchange
// holds LinkRxBufferFlits + RouterStageCycles = 33 credits per link (the router stage is folded
// into the credit count), so 33 numbered flits could be unacknowledged when acks are held up.
// The transmitter therefore also waits while LinkReplayFlits flits are unacknowledged (the flit
// stays in the router stage, counted in LinkStats::replay_full); on a clean wire at most ~17 are,
// so this never costs a cycle there.
#pragma once

#include <array>
#include <cstdint>
#include <deque>
#include <memory>

#include "flit.hpp"
#include "xf/faults.hpp"

namespace xf::model {

// The control fields of a link word (bits 31:8 of phy_*_ctl), for the transmitter at the end
// that receives the word. All cumulative, so a lost word is superseded by the next good one.
struct LinkCtl {
  uint8_t ack = 0;      // the next sequence number the sender's receiver expects
  uint8_t credits = 0;  // credits the sender's receiver returned since reset, mod 256
  uint8_t naks = 0;     // replays the sender's receiver asked for since reset, mod 16
};

// One word on the wire.
struct LinkWord {
  bool fv = false;  // carries a flit
  uint8_t seq = 0;  // its link sequence number (with fv)
  Flit flit;
  LinkCtl ctl;
};

// What one link direction did (RunStats::link sums them over the machine). Goodput of the links:
// flits / (flits + flits_replayed).
struct LinkStats {
  // The wire and the receiver.
  uint64_t words = 0;         // words that reached the receiver's input (lost or not)
  uint64_t corrupted = 0;     // of these: CRC mismatch (ber/wer), discarded (LinkCrcErrors)
  uint64_t dropped = 0;       // of these: lost on the wire (drop)
  uint64_t lost_down = 0;     // of these: lost while the direction was down
  uint64_t stall_cycles = 0;  // cycles the wire slipped (delivered nothing)
  uint64_t skipped_idle = 0;  // idle words a slipped wire skipped to catch up
  uint64_t accepted = 0;      // flits accepted in sequence
  uint64_t discards = 0;      // good flits discarded out of sequence (LinkDiscards 15:0)
  uint64_t naks = 0;          // NAKs sent (one per gap)
  // The transmitter.
  uint64_t flits = 0;           // flits sent for the first time (each spent one credit)
  uint64_t flits_replayed = 0;  // flits sent again by replays
  uint64_t replays = 0;         // replays started, by a NAK or the timer (LinkStatus 31:16)
  uint64_t timeouts = 0;        // of these: by the replay timer (LinkDiscards 31:16)
  uint64_t escalations = 0;     // times the sticky escalated bit was set (LinkStatus bit 0)
  uint64_t replay_full = 0;     // cycles a new flit waited for a free replay-buffer entry
  uint32_t max_unacked = 0;     // the most flits unacknowledged at once

  LinkStats& operator+=(const LinkStats& o);
};

class LinkRetry {
 public:
  // Bits of a link word the fault dice see at flit width `flit_bits`: the CRC-covered
  // flit_bits + 40 bits ({ctl, 6'b0, head, tail, data}) plus the 32-bit CRC (200 at 128 bits).
  static constexpr uint32_t word_bits(uint32_t flit_bits) { return flit_bits + 40 + 32; }

  // `stream` selects the wire's fault stream: (receiving node << 8 | receiving port).
  // Accepted flits are pushed into `rx_buf` (the receive buffer the far exchange reads; its
  // latency must be 0: the receiver and that exchange run in the same node's tick). `flit_bits`:
  // the machine's flit width, which sizes the word the bit-error dice roll over.
  LinkRetry(const FaultSpec& faults, uint64_t stream, Pipe<Flit>* rx_buf,
            uint32_t flit_bits = kFlitBits);

  // --- Receiving end ---------------------------------------------------------------------------
  // The word the wire delivers this cycle, after faults. Returns true with `ctl` set when a good
  // word arrived (its control fields are for this node's transmitter on the same port).
  bool receive(uint64_t now, LinkCtl* ctl);
  // The exchange took a flit from the receive buffer: one more credit to return.
  void credit_returned() { ++credits_returned_; }
  // The control fields this receiver puts on the reverse direction's words.
  LinkCtl rx_ctl() const { return {expected_, credits_returned_, naks_}; }

  // --- Transmitting end ------------------------------------------------------------------------
  // Control fields from a good word of the reverse direction: acks free replay entries, a new
  // NAK count starts a replay. Returns the credits returned since the last good word.
  uint32_t on_control(const LinkCtl& c);
  // Once per cycle after on_control: the replay timer.
  void tick_timer();
  // Whether the exchange may give a flit this cycle (it also needs a credit).
  bool tx_ready() const { return !replaying_; }
  // The exchange gives a flit (credit already spent): into the router stage.
  void offer(uint64_t now, const Flit& f) { stage_.push(now, f); }
  // Once per cycle, after the exchange: puts one word on the wire carrying `ctl`.
  void transmit(uint64_t now, const LinkCtl& ctl);

  // --- Registers (docs/generated/defs.md) ----------------------------------------------------
  bool escalated() const { return escalated_; }
  void clear_escalation() { escalated_ = false; }
  uint32_t replays_in_a_row() const { return run_; }
  uint32_t unacked() const { return static_cast<uint8_t>(nxt_ - una_); }
  const LinkStats& stats() const { return stats_; }

 private:
  void start_replay();

  // Wire and faults (the receiving end's view of it).
  struct InFlight {
    uint64_t due;  // cycle it arrives on an unslipped wire
    LinkWord w;
  };
  WireFaults faults_;
  uint32_t word_bits_;  // word_bits(flit_bits)
  std::deque<InFlight> wire_;
  uint32_t slip_ = 0;  // cycles the wire is behind

  // Receiver.
  Pipe<Flit>* rx_buf_;
  uint8_t expected_ = 0, credits_returned_ = 0, naks_ = 0;  // naks_ mod 16
  bool nak_pending_ = false;

  // Transmitter.
  Pipe<Flit> stage_{kRouterStageCycles};      // the router's input stage before the link
  std::array<Flit, kLinkReplayFlits> buf_{};  // replay buffer, entry seq mod LinkReplayFlits
  uint8_t nxt_ = 0, una_ = 0, rp_ = 0;
  bool replaying_ = false, escalated_ = false;
  uint8_t last_credits_ = 0, last_naks_ = 0;
  uint32_t timer_ = 0, run_ = 0;

  LinkStats stats_;
};

// One direction of a link, from the transmitter at one node's port to the receive buffer at the
// far node's port (the transmit half of one rtl/xf_link.sv and the receive half of the other).
//
// `stages`: register stages before the transmitter that this link's figures include. The model
// folds the RTL router's input stage into its links (kRouterStageCycles = 1: flits take
// LinkLatencyCycles + 1 cycles, the transmitter holds LinkRxBufferFlits + 1 credits); xf_link
// alone has none (0: LinkLatencyCycles and LinkRxBufferFlits, as its block test sees it).
// Credits always come back in LinkLatencyCycles.
//
// One cycle, in this order (Node::tick; ends of a port: `rx` the direction it receives, `tx` the
// one it sends on):
//   1. rx.receive(now, &ctl)             start: the word due now (faults on only; false without)
//   2. tx.collect(now, got ? &ctl : 0)   start: credits back (and the retry layer's acks, NAKs
//                                        and replay timer)
//   3. tx.tx_ready() / tx.send(now, f)   the exchange gives a flit (spends a credit)
//      rx.rx_valid(now) / rx.rx_front() / rx.rx_pop(now)
//                                        the exchange takes a flit (returns a credit)
//   4. tx.transmit(now, rx)              end: one word on the wire (faults on only)
//
// How a block test drives it against one direction of two rtl/xf_link.sv endpoints on a clean
// wire (Link(0)), per cycle: collect(now, nullptr); compare stat_tx_credits_o with credits(),
// tx_ready_o with tx_ready(), stat_rx_level_o with rx_level(now), rx_valid_o with
// rx_valid(now) and rx_flit_o with rx_front(); then send(now, f) on tx_valid_i && tx_ready_o and
// rx_pop(now) on rx_valid_o && rx_ready_i. The link never reads a flit's header, so a test may
// carry its raw 128 bits in Flit::data for every flit.
class Link {
 public:
  explicit Link(uint32_t stages = kRouterStageCycles);

  // Faults on (faults.any()): a retry layer whose wire draws from fault stream `stream`
  // (receiving node << 8 | receiving port) over words of the machine's flit width `flit_bits`;
  // off: the clean pipes. Only while nothing is in flight.
  void set_faults(const FaultSpec& faults, uint64_t stream, uint32_t flit_bits = kFlitBits);

  // 1. Receiving end: the word the wire delivers this cycle. Returns true with `ctl` set when a
  // good word arrived (its control fields are for the transmitter of this node's same port).
  bool receive(uint64_t now, LinkCtl* ctl) { return retry_ && retry_->receive(now, ctl); }
  // 2. Transmitting end: credits that are back, the control fields of a good word of the
  // reverse direction (`ctl`, null when none) and the replay timer.
  void collect(uint64_t now, const LinkCtl* ctl);
  // 3. Transmitting end: a flit may go (a credit is held and no replay runs); send() spends it.
  bool tx_ready() const { return credits_ > 0 && (!retry_ || retry_->tx_ready()); }
  void send(uint64_t now, const Flit& f);
  //    Receiving end: the receive buffer's front; rx_pop() frees its slot (returns a credit).
  bool rx_valid(uint64_t now) const { return flits_.ready(now); }
  const Flit& rx_front() const { return flits_.front(); }
  void rx_pop(uint64_t now);
  size_t rx_level(uint64_t now) const { return flits_.ready_size(now); }
  // 4. Transmitting end: one word on the wire, carrying the control fields of `reverse`'s
  // receiver (the direction this node receives on the same port).
  void transmit(uint64_t now, const Link& reverse) {
    if (retry_) retry_->transmit(now, reverse.retry_->rx_ctl());
  }

  int credits() const { return credits_; }  // stat_tx_credits_o
  // The retry layer (null with no faults): its registers and statistics.
  LinkRetry* retry() { return retry_.get(); }
  const LinkRetry* retry() const { return retry_.get(); }

 private:
  uint32_t stages_;
  int credits_;
  Pipe<Flit> flits_;  // clean: the whole flit path; faults on: the receive buffer
  Pipe<int> credit_pipe_{kLinkLatencyCycles};
  std::unique_ptr<LinkRetry> retry_;
};

}  // namespace xf::model
