// Flits and timed pipes shared by the model's blocks (docs/model.md).
//
// A Pipe is a FIFO whose entries become visible `latency` cycles after they were pushed. Every
// block-to-block path in the model is a Pipe with latency >= 1, so the order in which SystemC
// runs the blocks' clocked processes within a cycle never changes the result.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <deque>

#include "xf/defs.hpp"

namespace xf::model {

// Where a flit is headed inside a node's exchange.
enum class Target : uint8_t { kLink, kTile };

struct Header {
  Opcode opcode = Opcode::kWrite;
  uint16_t dst_chip = 0;
  uint8_t dst_tile = 0;
  uint32_t dst_addr = 0;
  uint16_t len = 0;
  DType dtype = DType::kFp32;
  RedOp op = RedOp::kSum;
  bool sat = false, avg_final = false;
  uint8_t avg_shift = 0, ctr = 0, lane = 0;
  uint16_t src_chip = 0;
  uint8_t src_tile = 0;
  uint16_t seq = 0;
};

// Packs/unpacks the 128-bit header flit exactly as docs/generated/defs.md lays it out.
std::array<uint64_t, 2> pack_header(const Header& h);
Header unpack_header(const std::array<uint64_t, 2>& w);

struct Flit {
  bool head = false, tail = false;
  Header hdr;  // valid on head flits
  // The flit's data: its first W = flit_bytes bytes (16, 8 or 4) at the machine's width; a
  // header flit's part of the packed header or a payload flit's bytes.
  std::array<uint8_t, kFlitBytes> data{};
  // Exchange routing decided by the sender (tile out pipes only).
  Target target = Target::kTile;
  uint8_t port = 0;  // link port or tile index
};

template <class T>
class Pipe {
 public:
  explicit Pipe(uint32_t latency = 1) : latency_(latency) {}
  void set_latency(uint32_t l) { latency_ = l; }
  void push(uint64_t now, const T& v) { q_.push_back({now + latency_, v}); }
  bool ready(uint64_t now) const { return !q_.empty() && q_.front().first <= now; }
  T& front() { return q_.front().second; }
  const T& front() const { return q_.front().second; }
  // Entries visible in cycle `now` (the pipe's level as a reader sees it).
  size_t ready_size(uint64_t now) const {
    size_t n = 0;
    while (n < q_.size() && q_[n].first <= now) ++n;
    return n;
  }
  void pop() { q_.pop_front(); }
  size_t size() const { return q_.size(); }
  bool empty() const { return q_.empty(); }

 private:
  uint32_t latency_;
  std::deque<std::pair<uint64_t, T>> q_;
};

// Control messages from an XB to a tile. The first XON of a session is a grant; a tile that
// has sent XREQ ignores everything but the grant, so an XON or XOFF still in flight from its
// previous session on that link cannot start the new one early.
using XbMsg = xf::XbMsg;  // generated from spec/xf_defs.json

}  // namespace xf::model
