// Model of a link direction, its retry layer and its faulty wire (see link.hpp;
// docs/reliability.md).
#include "link.hpp"

#include <algorithm>

namespace xf::model {

// Sequence numbers are 8 bits and the replay buffer is indexed by seq mod LinkReplayFlits: the
// index must not jump when the number wraps, and numbers in flight (within LinkReplayFlits of
// `expected` either way) must stay well inside the 128 that separate "ahead" from "behind".
static_assert(kLinkSeqBits == 8, "the model keeps sequence numbers in uint8_t");
static_assert(256 % kLinkReplayFlits == 0 && kLinkReplayFlits <= 64,
              "LinkReplayFlits must divide 256 and stay far below 128");
static_assert(kLinkLatencyCycles >= 1, "the wire is what orders the two nodes' ticks");

LinkStats& LinkStats::operator+=(const LinkStats& o) {
  words += o.words;
  corrupted += o.corrupted;
  dropped += o.dropped;
  lost_down += o.lost_down;
  stall_cycles += o.stall_cycles;
  skipped_idle += o.skipped_idle;
  accepted += o.accepted;
  discards += o.discards;
  naks += o.naks;
  flits += o.flits;
  flits_replayed += o.flits_replayed;
  replays += o.replays;
  timeouts += o.timeouts;
  escalations += o.escalations;
  replay_full += o.replay_full;
  max_unacked = std::max(max_unacked, o.max_unacked);
  return *this;
}

LinkRetry::LinkRetry(const FaultSpec& faults, uint64_t stream, Pipe<Flit>* rx_buf,
                     uint32_t flit_bits)
    : faults_(faults, stream), word_bits_(word_bits(flit_bits)), rx_buf_(rx_buf) {}

bool LinkRetry::receive(uint64_t now, LinkCtl* ctl) {
  // The dice are rolled every cycle, in the order WireFaults documents, whether or not a word is
  // due: the stream then depends only on the cycle, not on the traffic.
  const bool down = faults_.down_now();
  if (faults_.stall_now(slip_)) {
    ++slip_;
    ++stats_.stall_cycles;
    return false;
  }
  auto due = [&](size_t i) { return i < wire_.size() && wire_[i].due + slip_ <= now; };
  // A slipped wire catches up by skipping an idle word when the next one is already there. Its
  // control fields are lost, but the next word carries the same or later values. (The
  // transmitter puts a word on the wire every cycle, so the next word is one cycle younger.)
  if (slip_ > 0 && due(0) && !wire_.front().w.fv && wire_.size() >= 2 &&
      wire_[1].due + slip_ - 1 <= now) {
    wire_.pop_front();
    --slip_;
    ++stats_.skipped_idle;
  }
  if (!due(0)) return false;
  const LinkWord w = std::move(wire_.front().w);
  wire_.pop_front();
  ++stats_.words;
  if (down) {  // valid low: the receiver ignores the cycle
    ++stats_.lost_down;
    return false;
  }
  if (faults_.drop_word()) {
    ++stats_.dropped;
    return false;
  }
  // Any flipped bit is a CRC mismatch here: the CRC catches every error of up to 5 bits and
  // lets one other pattern in 2^32 through (docs/reliability.md section 2); the model does not
  // flip real bits, so it cannot model that escape.
  if (!faults_.flips(word_bits_).empty()) {
    ++stats_.corrupted;
    return false;
  }
  *ctl = w.ctl;
  if (!w.fv) return true;
  const uint8_t d = static_cast<uint8_t>(w.seq - expected_);
  if (d == 0) {
    rx_buf_->push(now, w.flit);
    ++expected_;
    nak_pending_ = false;  // the gap, if any, is filled
    ++stats_.accepted;
    return true;
  }
  ++stats_.discards;
  // Ahead: a flit before it was lost. One NAK per gap: the rest of the gap is discarded quietly,
  // and a lost NAK is covered by the transmitter's timer. Behind: a duplicate from a replay.
  if (d < 128 && !nak_pending_) {
    naks_ = (naks_ + 1) & 0xF;
    nak_pending_ = true;
    ++stats_.naks;
  }
  return true;
}

uint32_t LinkRetry::on_control(const LinkCtl& c) {
  // Cumulative ack: every number before it was accepted. A value outside [una, nxt] cannot come
  // from the far receiver (it accepts only numbers it was sent, in order); ignore it.
  const uint8_t adv = static_cast<uint8_t>(c.ack - una_);
  if (adv != 0 && adv <= static_cast<uint8_t>(nxt_ - una_)) {
    una_ = c.ack;
    timer_ = 0;
    run_ = 0;
    // An ack that overtakes a running replay skips the flits it acknowledges (as the RTL does).
    const uint8_t skip = static_cast<uint8_t>(una_ - rp_);
    if (replaying_ && skip != 0 && skip <= static_cast<uint8_t>(nxt_ - rp_)) {
      rp_ = una_;
      replaying_ = rp_ != nxt_;
    }
  }
  const uint32_t credits = static_cast<uint8_t>(c.credits - last_credits_);
  last_credits_ = c.credits;
  if ((c.naks & 0xF) != last_naks_) {
    last_naks_ = c.naks & 0xF;
    // After the ack above: if the far end has meanwhile accepted everything (the NAK's own word
    // was lost and a later one carries both), there is nothing left to resend.
    if (una_ != nxt_) start_replay();
  }
  return credits;
}

void LinkRetry::start_replay() {
  // Go-back-N from the oldest unacknowledged flit; a replay already running starts over.
  rp_ = una_;
  replaying_ = true;
  timer_ = 0;  // the timer waits for this replay's acknowledgements, not the previous one's
  ++stats_.replays;
  run_ = std::min<uint32_t>(run_ + 1, 15);  // LinkStatus bits 7:4
  if (run_ >= kLinkEscalateReplays && !escalated_) {
    escalated_ = true;
    ++stats_.escalations;
  }
}

void LinkRetry::tick_timer() {
  if (una_ == nxt_ || replaying_) return;
  // Catches a lost last flit (no later flit shows the gap) and a lost NAK.
  if (++timer_ >= kLinkReplayTimeoutCycles) {
    ++stats_.timeouts;
    start_replay();
  }
}

void LinkRetry::transmit(uint64_t now, const LinkCtl& ctl) {
  LinkWord w;
  w.ctl = ctl;
  if (replaying_) {
    w.fv = true;
    w.seq = rp_;
    w.flit = buf_[rp_ % kLinkReplayFlits];
    ++stats_.flits_replayed;
    if (++rp_ == nxt_) replaying_ = false;
  } else if (stage_.ready(now)) {
    if (unacked() < kLinkReplayFlits) {
      w.fv = true;
      w.seq = nxt_;
      w.flit = stage_.front();
      buf_[nxt_ % kLinkReplayFlits] = w.flit;
      stage_.pop();
      ++nxt_;
      ++stats_.flits;
      stats_.max_unacked = std::max(stats_.max_unacked, unacked());
    } else {
      ++stats_.replay_full;
    }
  }
  wire_.push_back({now + kLinkLatencyCycles, std::move(w)});
}

Link::Link(uint32_t stages)
    : stages_(stages),
      credits_(static_cast<int>(kLinkRxBufferFlits + stages)),
      flits_(kLinkLatencyCycles + stages) {}

void Link::set_faults(const FaultSpec& faults, uint64_t stream, uint32_t flit_bits) {
  if (faults.any()) {
    retry_ = std::make_unique<LinkRetry>(faults, stream, &flits_, flit_bits);
    flits_.set_latency(0);  // the receive buffer: the link layer supplies the latency
  } else {
    retry_.reset();
    flits_.set_latency(kLinkLatencyCycles + stages_);
  }
}

void Link::collect(uint64_t now, const LinkCtl* ctl) {
  if (retry_) {
    if (ctl) credits_ += retry_->on_control(*ctl);
    retry_->tick_timer();
    return;
  }
  while (credit_pipe_.ready(now)) {
    credits_ += credit_pipe_.front();
    credit_pipe_.pop();
  }
}

void Link::send(uint64_t now, const Flit& f) {
  if (retry_)
    retry_->offer(now, f);
  else
    flits_.push(now, f);
  --credits_;
}

void Link::rx_pop(uint64_t now) {
  flits_.pop();
  if (retry_)
    retry_->credit_returned();  // rides in this node's next word to the far end
  else
    credit_pipe_.push(now, 1);
}

}  // namespace xf::model
