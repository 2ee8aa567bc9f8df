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
#include "xf/defs.hpp"
#include "xf/faults.hpp"

namespace xf::rtl {

// One link word (docs/reliability.md section 1) at flit width `flit_bits` (32, 64 or 128; not on
// the wire): the FlitBits + 2 flit bits {head, tail, data} as the RTL packs them (data words
// 0 .. FlitBits/32 - 1, then head and tail in bits 1:0 of word FlitBits/32), the control word
// and the CRC; `valid` is the PHY's "a word is present".
struct PhyWord {
  bool valid = false;
  uint32_t flit[5] = {};
  uint32_t ctl = 0, crc = 0;
  uint32_t flit_bits = kFlitBits;

  // Every bit a fault may flip: flit, ctl, crc (194 at 128 bits).
  uint32_t bits() const { return flit_bits + 2 + 32 + 32; }
  bool fv() const { return (ctl >> 28) & 1u; }
  uint8_t seq() const { return static_cast<uint8_t>(ctl); }
  bool head() const { return (flit[flit_bits / 32] >> 1) & 1u; }
  bool tail() const { return flit[flit_bits / 32] & 1u; }
  // Flips bit b of {crc, ctl, flit} (0..FlitBits+1 flit, then 32 ctl, then 32 crc bits).
  void flip(uint32_t b) {
    const uint32_t fb = flit_bits + 2;
    if (b < fb)
      flit[b / 32] ^= 1u << (b % 32);
    else if (b < fb + 32)
      ctl ^= 1u << (b - fb);
    else
      crc ^= 1u << (b - fb - 32);
  }
  // The CRC the transmitter must send: zlib crc32 of the FlitBits / 8 data bytes, {6'b0, head,
  // tail}, then ctl bytes 0..3 (FlitBits / 8 + 5 bytes: 21 at 128 bits, 13 at 64, 9 at 32).
  uint32_t expected_crc() const {
    uint8_t b[16 + 5];
    const uint32_t n = flit_bits / 8;
    std::memcpy(b, flit, n);  // little-endian host: data bits in byte order
    b[n] = static_cast<uint8_t>(flit[flit_bits / 32] & 3u);
    for (uint32_t i = 0; i < 4; ++i) b[n + 1 + i] = static_cast<uint8_t>(ctl >> (8 * i));
    return crc32_update(0, b, n + 5);
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
    for (uint32_t b : faults_->flips(w.bits())) w.flip(b);
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
