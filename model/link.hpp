// Model of the link retry layer (docs/reliability.md sections 3-5) and of the faults its wire
// injects (section 7), for one direction of a link: the transmitter at one node's port, the
// wire, and the receiver at the far node's port. The RTL block is the transmit half of one
// xf_link and the receive half of the other.
//
// The layer exists only while faults are on (System::set_faults): with no faults a Channel is
// its two pipes, exactly as before, so the model's clean-link timing cannot change. With faults
// it reproduces that timing on a clean wire to the cycle (the exchange gives a flit to the
// router stage in cycle t, the transmitter puts it on the wire in t + 1, the far receiver accepts
// it in t + 1 + LinkLatencyCycles and its exchange can take it that cycle: 9 cycles, as the flit
// pipe; a credit freed in cycle t rides the far end's word of cycle t and is usable in t + 8, as
// the credit pipe). tests/test_model_faults.cpp (ModelFaultsCleanWire) checks it.
//
// One word per cycle per direction: a flit or an idle word, each carrying the control fields
// (ack, credits, naks) of the reverse direction's receiver. Which node calls what, per cycle:
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
  // Bits of a link word the fault dice see: CRC-covered 168 bits plus the 32-bit CRC.
  static constexpr uint32_t kWordBits = 200;

  // `stream` selects the wire's fault stream: (receiving node << 8 | receiving port).
  // Accepted flits are pushed into `rx_buf` (the receive buffer the far exchange reads; its
  // latency must be 0: the receiver and that exchange run in the same node's tick).
  LinkRetry(const FaultSpec& faults, uint64_t stream, Pipe<Flit>* rx_buf);

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

}  // namespace xf::model
