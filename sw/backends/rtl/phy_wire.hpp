// One direction of a link's PHY in C++: the wire between a transmitting xf_link's phy_tx_* and
// the far xf_link's phy_rx_*, with a fixed delay and, when a FaultSpec is given, the faults of
// docs/reliability.md section 7 (bit flips, dropped words, stalls, a link held down). Used by the
// machine harness (sw/backends/rtl/rtl_system.hpp) and the link block test
// (tests/test_rtl_link.cpp).
//
// Per cycle the harness calls deliver() for the word the receiver sees in this cycle, then
// push() with the word the transmitter presents in this cycle: with no faults a word pushed in
// cycle c is delivered in cycle c + delay.
#pragma once

#include <cstdint>
#include <cstring>
#include <deque>
#include <memory>

#include "xf/crc32.hpp"
#include "xf/faults.hpp"

namespace xf::rtl {

// One link word (docs/reliability.md section 1): 130 flit bits as 5 words, the control word and
// the CRC; `valid` is the PHY's "a word is present".
struct PhyWord {
  bool valid = false;
  uint32_t flit[5] = {};
  uint32_t ctl = 0, crc = 0;

  static constexpr uint32_t kBits = 130 + 32 + 32;  // every bit a fault may flip
  bool fv() const { return (ctl >> 28) & 1u; }
  uint8_t seq() const { return static_cast<uint8_t>(ctl); }
  bool head() const { return (flit[4] >> 1) & 1u; }
  bool tail() const { return flit[4] & 1u; }
  // Flips bit b of {crc, ctl, flit} (0..129 flit, 130..161 ctl, 162..193 crc).
  void flip(uint32_t b) {
    if (b < 130)
      flit[b / 32] ^= 1u << (b % 32);
    else if (b < 162)
      ctl ^= 1u << (b - 130);
    else
      crc ^= 1u << (b - 162);
  }
  // The CRC the transmitter must send: zlib crc32 of data bytes 0..15, {head, tail}, ctl.
  uint32_t expected_crc() const {
    uint8_t b[21];
    std::memcpy(b, flit, 16);  // little-endian host: data bits 0..127 in byte order
    b[16] = static_cast<uint8_t>(flit[4] & 3u);
    for (int i = 0; i < 4; ++i) b[17 + i] = static_cast<uint8_t>(ctl >> (8 * i));
    return crc32_update(0, b, sizeof b);
  }
};

class PhyWire {
 public:
  // `stream` names the wire's fault stream (docs/reliability.md: node << 8 | port of the
  // receiving end); `faults` may be null (a clean wire).
  PhyWire(int delay, const FaultSpec* faults, uint64_t stream) : delay_(delay) {
    q_.assign(delay, PhyWord{});
    if (faults && faults->any()) faults_ = std::make_unique<WireFaults>(*faults, stream);
  }

  // The word the receiver sees in this cycle.
  PhyWord deliver() {
    if (!faults_) {
      PhyWord w = q_.front();
      q_.pop_front();
      return w;
    }
    if (faults_->down_now()) {  // the word is lost with the link
      if (q_.size() >= delay_) q_.pop_front();
      return PhyWord{};
    }
    if (faults_->stall_now(static_cast<uint32_t>(q_.size() - delay_))) return PhyWord{};
    // Behind after stalls: skip idle words (their control fields are cumulative, a later word
    // carries them too) to catch up.
    while (q_.size() > delay_ && !q_.front().fv()) q_.pop_front();
    PhyWord w = q_.front();
    q_.pop_front();
    if (!w.valid) return w;
    if (faults_->drop_word()) return PhyWord{};
    for (uint32_t b : faults_->flips(PhyWord::kBits)) w.flip(b);
    return w;
  }
  // The word the transmitter presents in this cycle.
  void push(const PhyWord& w) { q_.push_back(w); }

  const FaultCounts* counts() const { return faults_ ? &faults_->counts : nullptr; }

 private:
  size_t delay_;
  std::deque<PhyWord> q_;
  std::unique_ptr<WireFaults> faults_;
};

}  // namespace xf::rtl
