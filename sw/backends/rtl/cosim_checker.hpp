// The co-simulation checker (docs/model.md section 9, docs/cosim.md): one abstract interface that a
// harness calls at every transaction boundary of an RTL run, and the checker that compares the
// RTL against a recorded run of the SystemC golden model and against the C++ reference.
//
// Transaction boundaries:
//   on_collective_start()  the chips took the start command in this harness cycle;
//   on_packet()          a packet's tail flit left a node on a link (the RTL's PHY);
//   on_collective_end()  every chip reported done (or an error): the cycle count and every
//                        chip's output bytes.
// Each returns false at the first mismatch; the harness then stops the RTL at that cycle
// (RtlSystem::request_stop) and the checker's report() says the cycle, the chip, the stream,
// what was expected and what was seen, and the one command that reproduces it with waves.
#pragma once

#include <cstdint>
#include <cstdio>
#include <cstring>
#include <map>
#include <optional>
#include <string>
#include <tuple>
#include <vector>

#include "exchange.hpp"  // model::PacketEvent
#include "flit.hpp"      // model::Header, pack_header, unpack_header
#include "rtl_system.hpp"
#include "xf/defs.hpp"

namespace xf::cosim {

// What went wrong, where and when.
struct Mismatch {
  uint64_t cycle = 0;      // cycle of the collective (0 = the tiles start), as the model counts
  uint64_t rtl_cycle = 0;  // the same instant as a harness cycle (the waves show it at 2x)
  int node = -1;           // chip or switch node; -1 for the whole machine
  std::string stream;      // "node 3 link 1, source chip 2 tile 0", or "" for whole-run checks
  std::string what;        // which check failed
  std::string expected;    // the model's (or reference's) side
  std::string seen;        // the RTL's side
};

class Checker {
 public:
  virtual ~Checker() = default;
  // The chips took the start command in harness cycle `cycle`.
  virtual void on_collective_start(uint64_t cycle) { start_ = cycle + 1; }
  // A packet's tail left node p.node on link p.port. False on a mismatch.
  virtual bool on_packet(const rtl::RtlPacket& p) = 0;
  // The collective ended after `cycles`; `outputs` holds every chip's result bytes.
  virtual bool on_collective_end(uint64_t cycle, uint64_t cycles,
                                 const std::vector<Bytes>& outputs) = 0;
  const std::optional<Mismatch>& mismatch() const { return mismatch_; }

  // Prints the mismatch (if any) and `reproduce`, the command that reruns it with waves.
  void report(std::FILE* f, const std::string& reproduce) const {
    if (!mismatch_) return;
    const Mismatch& m = *mismatch_;
    std::fprintf(f,
                 "cosim: MISMATCH in cycle %llu of the collective (harness cycle %llu, wave time "
                 "%llu): %s\n",
                 static_cast<unsigned long long>(m.cycle),
                 static_cast<unsigned long long>(m.rtl_cycle),
                 static_cast<unsigned long long>(2 * m.rtl_cycle), m.what.c_str());
    if (m.node >= 0) std::fprintf(f, "  node:     %d\n", m.node);
    if (!m.stream.empty()) std::fprintf(f, "  stream:   %s\n", m.stream.c_str());
    std::fprintf(f, "  expected: %s\n  seen:     %s\n", m.expected.c_str(), m.seen.c_str());
    std::fprintf(f, "  reproduce with waves: %s\n", reproduce.c_str());
  }

 protected:
  // Records the first mismatch; `rtl_cycle` is the harness cycle it was seen in.
  bool fail(Mismatch m, uint64_t rtl_cycle) {
    m.rtl_cycle = rtl_cycle;
    m.cycle = rtl_cycle >= start_ ? rtl_cycle - start_ : 0;
    if (!mismatch_) mismatch_ = std::move(m);
    return false;
  }
  uint64_t start_ = 0;  // harness cycle of the collective's cycle 0

 private:
  std::optional<Mismatch> mismatch_;
};

// Compares an RTL run with a finished model run of the same image and inputs:
//  (1) every chip's output bytes identical to the model's and to the C++ reference's;
//  (2) the packets of every stream (one source tile onto one link of one node: node, port,
//      src_chip, src_tile) identical in order, header and payload CRC, checked as each packet
//      leaves; after the run, no stream may have packets the RTL did not send;
//  (3) with `exact_cycles` (every clean-link run), the collective's cycles equal to the model's:
//      RTL = model to the exact cycle. Under link faults the two see different faults, so the
//      cycles are not compared.
class ModelChecker final : public Checker {
 public:
  ModelChecker(const std::vector<model::PacketEvent>& model_packets, uint64_t model_cycles,
               std::vector<Bytes> model_outputs, std::vector<Bytes> reference_outputs,
               size_t elem_bytes, bool exact_cycles = true)
      : model_cycles_(model_cycles),
        model_out_(std::move(model_outputs)),
        ref_out_(std::move(reference_outputs)),
        es_(elem_bytes),
        exact_cycles_(exact_cycles) {
    for (const auto& e : model_packets)
      expect_[{e.node, e.port, e.hdr.src_chip, e.hdr.src_tile}].pkts.push_back(
          {e.cycle, model::pack_header(e.hdr), e.payload_crc});
  }

  bool on_packet(const rtl::RtlPacket& p) override {
    const model::Header h = model::unpack_header(p.header);
    const Key k{p.node, p.port, h.src_chip, h.src_tile};
    Stream& s = expect_[k];
    const Pkt seen{p.cycle >= start_ ? p.cycle - start_ : 0, model::pack_header(h), p.payload_crc};
    const size_t i = s.next++;
    ++packets_;
    if (i < s.pkts.size() && s.pkts[i].hdr == seen.hdr && s.pkts[i].crc == seen.crc) return true;
    Mismatch m;
    m.node = p.node;
    m.stream = stream_name(k) + ", packet " + std::to_string(i);
    m.what =
        i < s.pkts.size() ? "a packet differs from the model's" : "the model sent no such packet";
    m.expected = i < s.pkts.size() ? describe(s.pkts[i]) : "(no packet)";
    m.seen = describe(seen);
    return fail(m, p.cycle);
  }

  bool on_collective_end(uint64_t cycle, uint64_t cycles,
                         const std::vector<Bytes>& outputs) override {
    for (const auto& [k, s] : expect_)
      if (s.next < s.pkts.size()) {
        Mismatch m;
        m.node = std::get<0>(k);
        m.stream = stream_name(k) + ", packet " + std::to_string(s.next);
        m.what = "the RTL finished without sending a packet the model sent";
        m.expected = describe(s.pkts[s.next]);
        m.seen = "(no packet)";
        return fail(m, cycle);
      }
    for (size_t c = 0; c < outputs.size(); ++c) {
      if (auto m = compare_bytes(c, outputs[c], model_out_.at(c), "the model's"))
        return fail(*m, cycle);
      if (auto m = compare_bytes(c, outputs[c], ref_out_.at(c), "the C++ reference's"))
        return fail(*m, cycle);
    }
    if (exact_cycles_ && cycles != model_cycles_) {
      const double ratio = static_cast<double>(cycles) / static_cast<double>(model_cycles_);
      Mismatch m;
      m.what = "the collective's cycle count differs from the model's (ratio " +
               std::to_string(ratio) + "; RTL = model to the exact cycle is the rule)";
      m.expected = std::to_string(model_cycles_) + " cycles (model)";
      m.seen = std::to_string(cycles) + " cycles (RTL)";
      return fail(m, cycle);
    }
    return true;
  }

  size_t streams() const { return expect_.size(); }
  size_t packets() const { return packets_; }

 private:
  using Key = std::tuple<int, int, unsigned, unsigned>;
  struct Pkt {
    uint64_t cycle;
    std::array<uint64_t, 2> hdr;
    uint32_t crc;
  };
  struct Stream {
    std::vector<Pkt> pkts;
    size_t next = 0;
  };

  static std::string stream_name(const Key& k) {
    return "node " + std::to_string(std::get<0>(k)) + " link " + std::to_string(std::get<1>(k)) +
           ", source chip " + std::to_string(std::get<2>(k)) + " tile " +
           std::to_string(std::get<3>(k));
  }
  static std::string describe(const Pkt& p) {
    const model::Header h = model::unpack_header(p.hdr);
    char b[240];
    std::snprintf(b, sizeof b,
                  "cycle %llu: %s to chip %u tile %u @%u len %u lane %u ctr %u seq %u, payload "
                  "crc %08x",
                  static_cast<unsigned long long>(p.cycle), to_string(h.opcode), h.dst_chip,
                  h.dst_tile, h.dst_addr, h.len, h.lane, h.ctr, h.seq, p.crc);
    return b;
  }
  // The first differing element of chip `c`'s output, if any.
  std::optional<Mismatch> compare_bytes(size_t c, const Bytes& seen, const Bytes& want,
                                        const char* whose) const {
    if (seen.size() != want.size()) {
      Mismatch m;
      m.node = static_cast<int>(c);
      m.what = "chip " + std::to_string(c) + "'s output size differs from " + whose;
      m.expected = std::to_string(want.size()) + " bytes";
      m.seen = std::to_string(seen.size()) + " bytes";
      return m;
    }
    size_t first = seen.size(), count = 0;
    for (size_t i = 0; i < seen.size(); i += es_)
      if (std::memcmp(&seen[i], &want[i], std::min(es_, seen.size() - i)) != 0) {
        if (first == seen.size()) first = i;
        ++count;
      }
    if (!count) return std::nullopt;
    Mismatch m;
    m.node = static_cast<int>(c);
    m.what = "chip " + std::to_string(c) + ": " + std::to_string(count) +
             " output elements differ from " + whose + "; the first at byte " +
             std::to_string(first);
    m.expected = hex_bytes(want, first);
    m.seen = hex_bytes(seen, first);
    return m;
  }
  std::string hex_bytes(const Bytes& b, size_t at) const {
    std::string s = "0x";
    char d[4];
    for (size_t i = std::min(at + es_, b.size()); i-- > at;) {  // little-endian element
      std::snprintf(d, sizeof d, "%02x", b[i]);
      s += d;
    }
    return s;
  }

  std::map<Key, Stream> expect_;
  uint64_t model_cycles_;
  std::vector<Bytes> model_out_, ref_out_;
  size_t es_;
  bool exact_cycles_;
  size_t packets_ = 0;
};

}  // namespace xf::cosim
