// libFuzzer harness of the ingress path of one chip (docs/fuzzing.md): a Verilated xf_chip with
// one tile and one link (tests/fuzz/CMakeLists.txt) takes arbitrary flit streams on its link PHY
// from a C++ far end, and every input is checked against a C++ shadow of what the link, the router
// and the tile's receive engine must do with it.
//
// The far end is a correct link endpoint of docs/reliability.md sections 1-4 (sequence numbers,
// cumulative acks, credits and NAKs, CRC-32 per word, go-back-N replay on a NAK or after
// LinkReplayTimeoutCycles), so the chip's receiver sees the words a real far chip would send. The
// fuzz bytes choose the packets it sends and the faults of the wire between: lost words, flipped
// bits, extra words (old sequence numbers, sequence numbers after a gap, control-only words with
// garbage flit bits, garbage words), a slipping wire, lost chip words in the other direction,
// acks and credits held back, spurious NAKs and replays. It honours the chip's credits.
//
// Input format: a sequence of actions, one selector byte each followed by its operand bytes
// (bytes past the end read as 0). After each action the machine runs one cycle (an idle action:
// its count). Selector s = byte & 31, t = byte >> 5:
//   0..15   packet, template t: 0-2 Write, 3 Reduce (valid headers), 4 one field made bad,
//           5 a raw 16-byte header, 6 a token (len 0), 7 another chip (forwarded or misrouted);
//           operands: flits (0..8, or 0xE0|k for 9+4k up to 128), DMEM word, configuration
//           (Reduce: one of the 25 valid pairs, avg final and shift), ctr 4:0 | lane 6:5 |
//           sat 7, payload (mode 1:0: PRNG, ALU corner values, raw input bytes, mixed; seed),
//           framing (0xE0|k: Short, the tail early; 0xF0|k: Long, k+1 extra flits), then for
//           t=4 a mutation and its value, for t=5 the 16 header bytes and one byte, for t=7 the
//           chip and a byte of tile and address bits (Harness::packet)
//   16..18  idle: 1..64 cycles
//   19..21  wire fault on the next word(s) into the chip: drops, 1-3 flipped bits, a burst
//   22..23  an extra word into the chip: an old seq, a seq after a gap, a control-only word with
//           a good CRC and garbage flit bits, a garbage word, a slip of the wire
//   24      the next 1..32 chip words are lost on the way back (the chip must replay)
//   25      credit returns to the chip held for 0..510 cycles
//   26      acks to the chip held for 0..255 cycles (and the credits of the flits after them)
//   27      a spurious NAK to the chip (it replays from its oldest unacknowledged flit)
//   28      the far transmitter ignores the next NAK (as if it were lost; its timer recovers)
//   29      the far transmitter replays now (go-back-N without a cause)
//   30      pacing: a new flit at most every 1..8 cycles
//   31      protocol violation (only with XF_FUZZ_VIOLATIONS=1; otherwise one idle cycle):
//           sending without credits, framing errors, stale or garbage control fields
//
// Invariants (each failure prints what was expected and seen, the cycle and the action, then
// aborts, which libFuzzer reports as a crash and saves the input):
//   1. no RTL assertion fires (Verilator --assert; vl_stop below);
//   2. no hang: after the input the machine reaches a quiet state within kDrainLimitCycles: the
//      far transmitter has every credit back and every flit acknowledged, every expected
//      forwarded flit has arrived, and the chip sends only idle words;
//   3. DMEM equals the shadow, which applies exactly the packets that pass every check of
//      docs/packets.md section 6 and the length checks (Short, Long, Headless), so nothing
//      outside a kept packet's window is ever written; the 32 arrival counters equal the shadow;
//   4. the chip's registers: Misroutes, Status bit 31, XbErrors = 0, TileStatus (the first
//      error's TileErr), TileErrInfo (its ErrCheck and source), TileErrCount (packets dropped),
//      LinkCrcErrors (words with a bad CRC) and LinkDiscards (good flits out of sequence) equal
//      the shadow's counts; LinkStatus is consistent;
//   5. on every cycle, the chip's own link words: present every cycle after reset, a correct
//      CRC, bits 31:29 zero, acks never beyond the flits it accepted and never backwards,
//      credits never more than the flits it took, new flits only with credits, a replayed flit
//      equal to its first send, and the flits it forwards equal to the shadow's, in order.
//
// Environment: XF_FUZZ_TRACE=1 prints every decoded action and every packet's fate (use it to
// read a crash input); XF_FUZZ_VIOLATIONS=1 enables selector 31 (then RTL assertions are
// reported once per site and not fatal, and invariants 2-5 are not checked after the first
// violation).
#include <verilated.h>
#if VM_COVERAGE
#include <verilated_cov.h>
#endif

#include <algorithm>
#include <array>
#include <cinttypes>
#include <cstdarg>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <memory>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "Vxf_chip.h"
#include "Vxf_chip___024root.h"
#include "xf/alu.hpp"
#include "xf/crc32.hpp"
#include "xf/defs.hpp"

namespace xf::fuzz {
namespace {

// ---- Build parameters (tests/fuzz/CMakeLists.txt gives verilator the same values) -----------
constexpr uint32_t kDmemBytes = XF_FUZZ_DMEM_BYTES;
constexpr uint32_t kDmemWords = kDmemBytes / 16;
constexpr uint32_t kTableChips = XF_FUZZ_TABLE_CHIPS;
constexpr uint32_t kChipId = 5;     // cfg_chip_id_i
constexpr uint32_t kNumChips = 16;  // cfg_num_chips_i
// the wire each way, PhyWireDelayCycles (the C++ far end has no CRC stage of its own)
constexpr int kWireCycles = static_cast<int>(kLinkLatencyCycles - kLinkRegCycles);
constexpr int kCredits = static_cast<int>(kLinkRxBufferFlits);
constexpr int kReplayTimeout = static_cast<int>(kLinkReplayTimeoutCycles);

// ---- Limits per input ---------------------------------------------------------------------
constexpr uint64_t kMaxActionCycles = 20000;   // the rest of a longer input is ignored
constexpr uint64_t kDrainLimitCycles = 20000;  // no quiet state by then: a hang
// Quiet for this long: done. Once every credit is back the tile's pipeline (6 cycles) and the
// credit loop (16) are empty; a chip that sent flits may still replay them when its timer fires.
constexpr int kQuietCycles = 24;
constexpr int kQuietCyclesAfterSend = 2 * kReplayTimeout;

// Functions run every cycle whose branches say nothing about the input: no coverage
// instrumentation (its comparison tracing cost a quarter of the time).
#define XF_FUZZ_HOT __attribute__((no_sanitize("coverage")))

// ---- Options and reporting ----------------------------------------------------------------
bool g_trace = false;
bool g_violations = false;
bool g_violated = false;  // this input broke the protocol on purpose (violation mode)
uint64_t g_cycle = 0;     // cycle of the current input
int g_action = -1;        // index of the current action (-1: set-up, drain or final checks)
const char* g_phase = "set-up";

void trace(const char* fmt, ...) __attribute__((format(printf, 1, 2)));
void trace(const char* fmt, ...) {
  if (!g_trace) return;
  std::printf("[%6" PRIu64 "] ", g_cycle);
  va_list ap;
  va_start(ap, fmt);
  std::vprintf(fmt, ap);
  va_end(ap);
  std::printf("\n");
}

[[noreturn]] void fail(const char* fmt, ...) __attribute__((format(printf, 1, 2)));
[[noreturn]] void fail(const char* fmt, ...) {
  std::fflush(stdout);
  std::fprintf(stderr, "\nfuzz_ingress: FAIL in %s, cycle %" PRIu64 ", action #%d: ", g_phase,
               g_cycle, g_action);
  va_list ap;
  va_start(ap, fmt);
  std::vfprintf(stderr, fmt, ap);
  va_end(ap);
  std::fprintf(stderr,
               "\nfuzz_ingress: reproduce with: scripts/fuzz.sh repro <the input file> "
               "(XF_FUZZ_TRACE=1 lists the actions)\n");
  std::fflush(stderr);
  std::abort();
}

// ---- Flits, link words and their CRC --------------------------------------------------------
struct Flit {
  std::array<uint32_t, 4> d{};  // data bits 0..127, 32 per word
  bool head = false, tail = false;
  bool operator==(const Flit& o) const { return d == o.d && head == o.head && tail == o.tail; }
  bool operator!=(const Flit& o) const { return !(*this == o); }
};

std::string str(const Flit& f) {
  char b[96];
  std::snprintf(b, sizeof b, "%c%c %08x_%08x_%08x_%08x", f.head ? 'H' : '-', f.tail ? 'T' : '-',
                f.d[3], f.d[2], f.d[1], f.d[0]);
  return b;
}

// Control field of a link word (docs/reliability.md section 1).
constexpr uint32_t ctl_word(uint32_t seq, uint32_t ack, uint32_t cred, uint32_t naks, bool fv) {
  return (seq & 0xFF) | (ack & 0xFF) << 8 | (cred & 0xFF) << 16 | (naks & 0xF) << 24 |
         static_cast<uint32_t>(fv) << 28;
}
constexpr uint8_t ctl_seq(uint32_t c) { return c & 0xFF; }
constexpr uint8_t ctl_ack(uint32_t c) { return (c >> 8) & 0xFF; }
constexpr uint8_t ctl_cred(uint32_t c) { return (c >> 16) & 0xFF; }
constexpr uint8_t ctl_naks(uint32_t c) { return (c >> 24) & 0xF; }
constexpr bool ctl_fv(uint32_t c) { return (c >> 28) & 1; }

// CRC-32 of a word: data bytes 0..15, then {6'b0, head, tail}, then ctl bytes 0..3 (section 2).
// Table-driven (three words a cycle); the table comes from, and is checked against, the
// reference xf::crc32_update at start-up.
struct CrcTable {
  std::array<uint32_t, 256> t{};
  CrcTable() {
    for (uint32_t i = 0; i < 256; ++i) {
      const uint8_t b = static_cast<uint8_t>(i);
      // One byte from the initial all-ones: crc32_update(0, {b}) = ~(T[0xFF ^ b] ^ 0x00FFFFFF).
      t[i ^ 0xFF] = ~crc32_update(0, &b, 1) ^ 0x00FFFFFFu;
    }
  }
};
const CrcTable g_crc;

XF_FUZZ_HOT uint32_t word_crc(const Flit& f, uint32_t ctl) {
  uint8_t b[21];
  for (int i = 0; i < 16; ++i) b[i] = static_cast<uint8_t>(f.d[i / 4] >> (8 * (i % 4)));
  b[16] = static_cast<uint8_t>(f.head << 1 | f.tail);
  for (int i = 0; i < 4; ++i) b[17 + i] = static_cast<uint8_t>(ctl >> (8 * i));
  uint32_t c = 0xFFFFFFFFu;
  for (uint8_t x : b) c = g_crc.t[(c ^ x) & 0xFF] ^ (c >> 8);
  return ~c;
}

struct Word {
  bool valid = false;
  Flit flit;
  uint32_t ctl = 0, crc = 0;
};

XF_FUZZ_HOT Word make_word(const Flit& f, uint32_t ctl) {
  Word w;
  w.valid = true;
  w.flit = f;
  w.ctl = ctl;
  w.crc = word_crc(f, ctl);
  return w;
}

// Flips bit p of a word's 194 covered bits: 0..127 data, 128 tail, 129 head, 130..161 ctl,
// 162..193 crc.
void flip(Word& w, int p) {
  p %= 194;
  if (p < 128)
    w.flit.d[p / 32] ^= 1u << (p % 32);
  else if (p == 128)
    w.flit.tail = !w.flit.tail;
  else if (p == 129)
    w.flit.head = !w.flit.head;
  else if (p < 162)
    w.ctl ^= 1u << (p - 130);
  else
    w.crc ^= 1u << (p - 162);
}

// ---- The header (docs/packets.md section 4) -------------------------------------------------
struct Header {
  uint32_t opcode = 0, dst_chip = 0, dst_tile = 0, dst_addr = 0, len = 0, dtype = 0, op = 0;
  uint32_t sat = 0, fin = 0, shift = 0, ctr = 0, lane = 0, src_chip = 0, src_tile = 0, seq = 0;
  uint32_t reserved = 0;  // bits 127:107
};

Flit pack(const Header& h) {
  const uint64_t lo = (h.opcode & 0xFull) | (h.dst_chip & 0xFFFull) << 4 |
                      (h.dst_tile & 0xFull) << 16 | (h.lane & 3ull) << 20 |
                      (h.dst_addr & 0xFFFFFFull) << 22 | (h.len & 0xFFFull) << 46 |
                      (h.dtype & 7ull) << 58 | (h.op & 7ull) << 61;
  const uint64_t hi = (h.sat & 1ull) | (h.fin & 1ull) << 1 | (h.shift & 0xFull) << 2 |
                      (h.ctr & 0x1Full) << 6 | (h.src_chip & 0xFFFull) << 11 |
                      (h.src_tile & 0xFull) << 23 | (h.seq & 0xFFFFull) << 27 |
                      (h.reserved & 0x1FFFFFull) << 43;
  Flit f;
  f.d = {static_cast<uint32_t>(lo), static_cast<uint32_t>(lo >> 32), static_cast<uint32_t>(hi),
         static_cast<uint32_t>(hi >> 32)};
  f.head = true;
  return f;
}

Header unpack(const Flit& f) {
  const uint64_t lo = f.d[0] | static_cast<uint64_t>(f.d[1]) << 32;
  const uint64_t hi = f.d[2] | static_cast<uint64_t>(f.d[3]) << 32;
  Header h;
  h.opcode = lo & 0xF;
  h.dst_chip = (lo >> 4) & 0xFFF;
  h.dst_tile = (lo >> 16) & 0xF;
  h.lane = (lo >> 20) & 3;
  h.dst_addr = (lo >> 22) & 0xFFFFFF;
  h.len = (lo >> 46) & 0xFFF;
  h.dtype = (lo >> 58) & 7;
  h.op = (lo >> 61) & 7;
  h.sat = hi & 1;
  h.fin = (hi >> 1) & 1;
  h.shift = (hi >> 2) & 0xF;
  h.ctr = (hi >> 6) & 0x1F;
  h.src_chip = (hi >> 11) & 0xFFF;
  h.src_tile = (hi >> 23) & 0xF;
  h.seq = (hi >> 27) & 0xFFFF;
  h.reserved = (hi >> 43) & 0x1FFFFF;
  return h;
}

// The routing table the harness loads once (lane, chip < kTableChips): port 0 (the link: the
// packet is forwarded back to the far end), 0xFF (no route) or 1 (a port the chip does not have
// connected). Both of the last two are misroutes.
uint8_t route_entry(uint32_t lane, uint32_t chip) {
  switch ((lane + chip) % 3) {
    case 0:
      return 0;
    case 1:
      return 0xFF;
    default:
      return 1;
  }
}

// ---- The shadow: what the router and the tile must do with the accepted flits ---------------
// Fed with every flit the chip's link accepts, in sequence order (predicted by the far end's
// mirror of the chip's receiver, so the shadow runs ahead of the RTL and is compared at the end).
// The tile's semantics are docs/packets.md section 6 with the length checks of ErrCheck (the
// model's Tile::receive and rtl/xf_tile_recv.sv agree on them).
class Shadow {
 public:
  enum class Route { kLocal, kForward, kDrop };

  std::vector<uint8_t> dmem;
  std::array<uint32_t, kNumCounters> counters{};
  uint32_t misroutes = 0;
  TileErr first_err = TileErr::kNone;
  uint32_t first_info = 0;     // TileErrInfo of the first error
  uint32_t err_count = 0;      // TileErrCount
  std::deque<Flit> forwarded;  // expected on the chip's link transmitter, not yet seen
  uint64_t forwarded_total = 0, local_flits = 0;

  void reset(const std::vector<uint8_t>& init) {
    dmem = init;
    counters.fill(0);
    misroutes = err_count = first_info = 0;
    first_err = TileErr::kNone;
    forwarded.clear();
    forwarded_total = local_flits = 0;
    r_open_ = false;
    r_mode_ = Route::kDrop;
    t_active_ = t_drop_ = false;
  }

  // One flit the link accepted.
  void flit(const Flit& f) {
    if (!r_open_) {
      if (!f.head) {  // a body flit outside a packet: the router drops it (violations only)
        trace("  shadow: router drops a stray body flit");
        return;
      }
      const Header h = unpack(f);
      if (h.dst_chip == kChipId) {
        r_mode_ = h.dst_tile < 1 ? Route::kLocal : Route::kDrop;
      } else if (h.dst_chip >= kTableChips) {
        r_mode_ = Route::kDrop;
      } else {
        r_mode_ = route_entry(h.lane, h.dst_chip) == 0 ? Route::kForward : Route::kDrop;
      }
      if (r_mode_ == Route::kDrop) ++misroutes;
      trace("  shadow: head to chip %u tile %u lane %u: %s", h.dst_chip, h.dst_tile, h.lane,
            r_mode_ == Route::kLocal     ? "tile 0"
            : r_mode_ == Route::kForward ? "link 0"
                                         : "misroute");
    }
    r_open_ = !f.tail;
    if (r_mode_ == Route::kForward) {
      forwarded.push_back(f);
      ++forwarded_total;
    } else if (r_mode_ == Route::kLocal) {
      ++local_flits;
      tile(f);
    }
  }

 private:
  void error(TileErr e, ErrCheck c, uint32_t src_chip, uint32_t src_tile, const char* why) {
    trace("  shadow: tile drops a packet: %s", why);
    if (err_count != 0xFFFFFFFFu) ++err_count;
    if (first_err != TileErr::kNone) return;
    first_err = e;
    first_info = (src_tile & 0xF) << 24 | (src_chip & 0xFFF) << 12 | static_cast<uint32_t>(c);
  }

  // rtl/xf_tile_recv.sv, "Checks".
  void tile(const Flit& f) {
    if (f.head) {
      if (t_active_ && !t_drop_)
        error(TileErr::kBadPacket, ErrCheck::kShort, t_hdr_.src_chip, t_hdr_.src_tile,
              "Short (cut off by a head)");
      t_hdr_ = unpack(f);
      const Header& h = t_hdr_;
      t_active_ = true;
      t_drop_ = false;
      t_k_ = 0;
      ErrCheck c = ErrCheck::kNone;
      TileErr e = TileErr::kBadPacket;
      if (h.opcode != static_cast<uint32_t>(Opcode::kWrite) &&
          h.opcode != static_cast<uint32_t>(Opcode::kReduce)) {
        c = ErrCheck::kOpcode;
      } else if (h.len % kFlitBytes) {
        c = ErrCheck::kLength;
      } else if (h.dst_addr % kFlitBytes) {
        c = ErrCheck::kWindow;
      } else if (h.len > kMaxPacketPayloadBytes) {
        c = ErrCheck::kLength;
      } else if (h.opcode == static_cast<uint32_t>(Opcode::kReduce) &&
                 !valid_pair(static_cast<DType>(h.dtype), static_cast<RedOp>(h.op))) {
        c = ErrCheck::kPair;
      } else if (static_cast<uint64_t>(h.dst_addr) + h.len > kDmemBytes) {
        c = ErrCheck::kWindow;
        e = TileErr::kDmemRange;
      }
      if (c != ErrCheck::kNone) {
        error(e, c, h.src_chip, h.src_tile, "a header check");
        t_drop_ = true;
      }
      if (h.len == 0) {  // token: closed at once
        if (!t_drop_) {
          counters[h.ctr] += 1;
          trace("  shadow: token, counter %u += 1", h.ctr);
        }
        t_active_ = false;
      } else if (f.tail) {
        if (!t_drop_)
          error(TileErr::kBadPacket, ErrCheck::kShort, h.src_chip, h.src_tile,
                "Short (a head with tail and len > 0)");
        t_active_ = false;
      }
      return;
    }
    if (!t_active_) {
      error(TileErr::kBadPacket, ErrCheck::kHeadless, 0, 0, "Headless");
      t_active_ = t_drop_ = !f.tail;
      return;
    }
    if (!t_drop_ && t_k_ >= t_hdr_.len / kFlitBytes) {
      error(TileErr::kBadPacket, ErrCheck::kLong, t_hdr_.src_chip, t_hdr_.src_tile, "Long");
      t_drop_ = true;
    }
    if (!t_drop_) {
      const uint32_t a = t_hdr_.dst_addr + t_k_ * kFlitBytes;
      if (a + kFlitBytes > kDmemBytes) fail("shadow: write at %u outside DMEM (harness bug)", a);
      uint8_t in[16];
      std::memcpy(in, f.d.data(), 16);  // little-endian host: data byte i is byte i
      if (t_hdr_.opcode == static_cast<uint32_t>(Opcode::kWrite)) {
        std::memcpy(&dmem[a], in, 16);
      } else {
        AluCfg cfg;
        cfg.dtype = static_cast<DType>(t_hdr_.dtype);
        cfg.op = static_cast<RedOp>(t_hdr_.op);
        cfg.sat = t_hdr_.sat;
        cfg.avg_shift = static_cast<uint8_t>(t_hdr_.shift);
        cfg.avg_final = t_hdr_.fin;
        cfg.avg_scale = 1u << kAvgScaleFracBits;  // the CSR's reset value: the tile never runs
        alu_reduce(cfg, &dmem[a], in, 16);
      }
      ++t_k_;
      if (f.tail) {
        if (t_k_ < t_hdr_.len / kFlitBytes) {
          error(TileErr::kBadPacket, ErrCheck::kShort, t_hdr_.src_chip, t_hdr_.src_tile,
                "Short (tail before len)");
        } else {
          counters[t_hdr_.ctr] += t_hdr_.len / kFlitBytes;
          trace("  shadow: packet complete, counter %u += %u", t_hdr_.ctr, t_hdr_.len / kFlitBytes);
        }
      }
    }
    if (f.tail) t_active_ = false;
  }

  bool r_open_ = false;
  Route r_mode_ = Route::kDrop;
  bool t_active_ = false, t_drop_ = false;
  Header t_hdr_;
  uint32_t t_k_ = 0;
};

// ---- Input reader ---------------------------------------------------------------------------
class Reader {
 public:
  Reader(const uint8_t* p, size_t n) : p_(p), n_(n) {}
  bool done() const { return i_ >= n_; }
  uint8_t u8() { return i_ < n_ ? p_[i_++] : 0; }
  uint32_t u16() { return u8() | static_cast<uint32_t>(u8()) << 8; }
  uint32_t u32() { return u16() | u16() << 16; }

 private:
  const uint8_t* p_;
  size_t n_, i_ = 0;
};

uint64_t splitmix(uint64_t& s) {
  uint64_t z = (s += 0x9E3779B97F4A7C15ull);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

// 32-bit lanes that exercise the ALU's corners in every dtype (zeros, ones, extremes, fp
// infinities, NaNs, subnormals of fp32, fp16 and bf16, in every lane width).
constexpr uint32_t kInteresting[] = {
    0x00000000, 0x00000001, 0xFFFFFFFF, 0x7FFFFFFF, 0x80000000, 0x7F800000, 0xFF800000, 0x7FC00000,
    0x7F800001, 0xFFC00001, 0x00800000, 0x80000001, 0x3F800000, 0xBF800000, 0x7F7FFFFF, 0x7C007C00,
    0x7E00FE00, 0xFC007C01, 0x00010001, 0x80008000, 0x7FFF7FFF, 0x7F7F7F7F, 0x80808080, 0xFFFF0000,
    0x0000FFFF, 0x01010101, 0x3C00BC00, 0x7F807F80, 0x7FC0FF81, 0x00800080, 0x03FF8001, 0xFE01FF7F};

// ---- The harness --------------------------------------------------------------------------
class Harness {
 public:
  Harness() {
    g_trace = std::getenv("XF_FUZZ_TRACE") && *std::getenv("XF_FUZZ_TRACE") != '0';
    g_violations = std::getenv("XF_FUZZ_VIOLATIONS") && *std::getenv("XF_FUZZ_VIOLATIONS") != '0';
    ctx_ = std::make_unique<VerilatedContext>();
    ctx_->randReset(0);
    chip_ = std::make_unique<Vxf_chip>(ctx_.get(), "chip");
    chip_->cfg_chip_id_i = kChipId;
    chip_->cfg_num_chips_i = kNumChips;
    chip_->cfg_num_tiles_i = 1;
    chip_->cfg_num_ports_i = 1;
    chip_->bar_all_i = 0;
    {  // the table-driven CRC against the reference, on one word
      Flit f;
      f.d = {0x01234567, 0x89ABCDEF, 0xDEADBEEF, 0x0F1E2D3C};
      f.head = true;
      const uint8_t b[21] = {0x67, 0x45, 0x23, 0x01, 0xEF, 0xCD, 0xAB, 0x89, 0xEF, 0xBE, 0xAD,
                             0xDE, 0x3C, 0x2D, 0x1E, 0x0F, 0x02, 0x78, 0x56, 0x34, 0x12};
      if (word_crc(f, 0x12345678) != crc32_update(0, b, sizeof b)) fail("harness: CRC table");
    }
    dmem_init_.resize(kDmemBytes);
    uint64_t s = 0xD3E4;
    for (auto& b : dmem_init_) b = static_cast<uint8_t>(splitmix(s));
    reset();
    // Config: the build this harness was compiled for (CMakeLists.txt's -G values).
    const uint32_t config = host_read(reg::kConfig);
    const uint32_t want = (kDmemBytes / 1024) << 16 |
                          static_cast<uint32_t>(__builtin_ctz(kTableChips)) << 12 | 1u << 8 |
                          static_cast<uint32_t>(__builtin_ctz(kFlitBytes)) << 5 | 1u;
    if (config != want) fail("Config reads 0x%08x, the harness expects 0x%08x", config, want);
    // The routing table (not reset by rst_ni: loaded once, read back).
    for (uint32_t lane = 0; lane < kNumLanes; ++lane)
      for (uint32_t c = 0; c < kTableChips; c += 4) {
        uint32_t v = 0;
        for (uint32_t k = 0; k < 4; ++k)
          v |= static_cast<uint32_t>(route_entry(lane, c + k)) << 8 * k;
        host_queue(true, reg::kRouteTable + lane * kMaxChips + c, v, nullptr);
      }
    host_flush();
    for (uint32_t lane = 0; lane < kNumLanes; ++lane)
      for (uint32_t c = 0; c < kTableChips; c += 4) {
        uint32_t v = 0, want_v = 0;
        for (uint32_t k = 0; k < 4; ++k)
          want_v |= static_cast<uint32_t>(route_entry(lane, c + k)) << 8 * k;
        v = host_read(reg::kRouteTable + lane * kMaxChips + c);
        if (v != want_v)
          fail("RouteTable lane %u chip %u reads 0x%08x, wrote 0x%08x", lane, c, v, want_v);
      }
    // TileErrInfo and TileErrCount exist (rtl/xf_tile.sv since the error registers).
    has_err_regs_ = host_probe(reg::kTileBase + reg::kTileErrCount);
    if (!has_err_regs_)
      std::fprintf(stderr, "fuzz_ingress: the tile has no TileErrInfo/TileErrCount: not checked\n");
  }

  // Verilator's line coverage of the RTL (builds with VM_COVERAGE: scripts/fuzz.sh coverage).
  void write_coverage(const char* path) {
#if VM_COVERAGE
    ctx_->coveragep()->write(path);
#else
    (void)path;
#endif
  }

  void run(const uint8_t* data, size_t size) {
    g_violated = false;
    g_phase = "reset";
    g_action = -1;
    reset();
    Reader in(data, size);
    g_phase = "actions";
    for (g_action = 0; !in.done() && g_cycle < kMaxActionCycles; ++g_action) action(in);
    g_action = -1;
    g_phase = "drain";
    drain();
    g_phase = "final checks";
    if (!g_violated) final_checks();
    g_phase = "done";
  }

 private:
  // ---- Cycle loop ---------------------------------------------------------------------------
  // One cycle: sample the chip's outputs (registers), run the far end, drive the chip's inputs,
  // clock edge.
  XF_FUZZ_HOT void step() {
    Word out;
    out.valid = chip_->phy_tx_valid_o & 1;
    for (int k = 0; k < 4; ++k) out.flit.d[k] = chip_->phy_tx_flit_o[k];
    out.flit.tail = chip_->phy_tx_flit_o[4] & 1;
    out.flit.head = (chip_->phy_tx_flit_o[4] >> 1) & 1;
    out.ctl = chip_->phy_tx_ctl_o;
    out.crc = chip_->phy_tx_crc_o;
    check_chip_word(out);
    wire_out_.push_back(out);
    const Word arrived = wire_out_.front();
    wire_out_.pop_front();
    far_receive(arrived);

    host_cycle();

    const Word w = far_send();
    wire_in_.push_back(w);
    const Word d = wire_in_.front();
    wire_in_.pop_front();
    chip_->phy_rx_valid_i = d.valid;
    for (int k = 0; k < 4; ++k) chip_->phy_rx_flit_i[k] = d.flit.d[k];
    chip_->phy_rx_flit_i[4] = static_cast<uint32_t>(d.flit.head) << 1 | d.flit.tail;
    chip_->phy_rx_ctl_i = d.ctl;
    chip_->phy_rx_crc_i = d.crc;

    chip_->clk_i = 1;
    chip_->eval();
    chip_->clk_i = 0;
    chip_->eval();
    ++g_cycle;
  }

  void reset() {
    chip_->rst_ni = 0;
    chip_->clk_i = 0;
    chip_->phy_rx_valid_i = 0;
    chip_->host_req_valid_i = 0;
    chip_->eval();
    for (int i = 0; i < 2; ++i) {
      chip_->clk_i = 1;
      chip_->eval();
      chip_->clk_i = 0;
      chip_->eval();
    }
    chip_->rst_ni = 1;
    chip_->eval();
    // DMEM (a RAM, not reset) to a fixed pattern, so that every input starts alike.
    auto& mem =
        chip_->rootp->xf_chip__DOT__gen_tile__BRA__0__KET____DOT__u_tile__DOT__u_dmem__DOT__mem_q;
    for (uint32_t w = 0; w < kDmemWords; ++w)
      for (int k = 0; k < 4; ++k) {
        uint32_t v;
        std::memcpy(&v, &dmem_init_[w * 16 + k * 4], 4);
        mem[w][k] = v;
      }
    shadow_.reset(dmem_init_);
    wire_in_.assign(kWireCycles, Word{});
    wire_out_.assign(kWireCycles, Word{});
    tx_ = FarTx{};
    rx_ = FarRx{};
    mirror_ = Mirror{};
    faults_.clear();
    inject_.clear();
    hq_.clear();
    hinflight_.clear();
    chip_words_ = 0;
    chip_sent_ = false;
    g_cycle = 0;
  }

  // ---- The chip's words ---------------------------------------------------------------------
  XF_FUZZ_HOT void check_chip_word(const Word& w) {
    ++chip_words_;
    if (ctl_fv(w.ctl)) chip_sent_ = true;
    if (!w.valid) {
      // The link's output registers (xf_link's, then xf_link_phy's CRC stage) are idle in the
      // first two cycles out of reset; a word every cycle after.
      if (chip_words_ > 2) fail("the chip sent no link word (phy_tx_valid_o low) after reset");
      return;
    }
    const uint32_t crc = word_crc(w.flit, w.ctl);
    if (crc != w.crc)
      fail("the chip's link word has CRC 0x%08x, its bits give 0x%08x (ctl 0x%08x, flit %s)", w.crc,
           crc, w.ctl, str(w.flit).c_str());
    if (w.ctl >> 29) fail("the chip's link word has ctl bits 31:29 set (ctl 0x%08x)", w.ctl);
  }

  // ---- Far end: receiver of the chip's words (docs/reliability.md section 3) ----------------
  struct FarRx {
    uint8_t exp = 0;        // next seq expected from the chip (our ack)
    uint64_t accepted = 0;  // flits accepted from the chip
    uint64_t returned = 0;  // credits returned to the chip (cumulative)
    uint64_t owed = 0;      // credits for accepted flits not yet returned
    uint8_t naks = 0;
    bool nak_pending = false;
    int credit_hold = 0, ack_hold = 0, drop = 0;
    uint8_t ack_frozen = 0;
    uint64_t acked_frozen = 0;     // accepted when the ack hold began
    std::array<Flit, 256> hist{};  // flits accepted, by seq
  };

  void far_receive(const Word& w) {
    if (!w.valid) return;
    if (rx_.drop > 0) {  // lost on the way back
      --rx_.drop;
      return;
    }
    far_tx_control(w.ctl);
    if (!ctl_fv(w.ctl)) return;
    const uint8_t seq = ctl_seq(w.ctl);
    const uint8_t d = static_cast<uint8_t>(seq - rx_.exp);
    trace("far rx: chip flit seq %u (%s), ack %u, credits %u", seq,
          d == 0    ? "new"
          : d < 128 ? "after a gap"
                    : "old",
          ctl_ack(w.ctl), ctl_cred(w.ctl));
    if (d < 128) {
      // A new seq: the chip may have sent it only with a credit (32 beyond those returned).
      const uint64_t n = rx_.accepted + d;
      if (!g_violated && n >= rx_.returned + kCredits)
        fail("the chip sent flit seq %u (its %" PRIu64 "th) with only %" PRIu64
             " credits returned: beyond its %d credits",
             seq, n, rx_.returned, kCredits);
    }
    if (d == 0) {
      if (!g_violated) {
        if (shadow_.forwarded.empty())
          fail("the chip forwarded flit %s, which no packet routed to its link explains",
               str(w.flit).c_str());
        if (shadow_.forwarded.front() != w.flit)
          fail("the chip forwarded flit %s, expected %s (forwarded flit #%" PRIu64 ")",
               str(w.flit).c_str(), str(shadow_.forwarded.front()).c_str(), rx_.accepted);
        shadow_.forwarded.pop_front();
      }
      rx_.hist[seq] = w.flit;
      ++rx_.exp;
      ++rx_.accepted;
      ++rx_.owed;
      rx_.nak_pending = false;
    } else if (d < 128) {
      if (!rx_.nak_pending) {
        rx_.naks = (rx_.naks + 1) & 0xF;
        rx_.nak_pending = true;
        trace("far rx: gap (seq %u, expected %u): NAK %u", seq, rx_.exp, rx_.naks);
      }
    } else if (static_cast<uint8_t>(rx_.exp - seq) <= rx_.accepted && rx_.hist[seq] != w.flit &&
               !g_violated) {
      fail("the chip replayed seq %u as %s, first sent as %s", seq, str(w.flit).c_str(),
           str(rx_.hist[seq]).c_str());
    }
  }

  // Our receiver's fields for the chip's transmitter.
  // A credit never comes back before its flit's ack (docs/reliability.md section 4: the chip's
  // replay buffer relies on it), so a held ack holds the credits of the flits after it as well.
  XF_FUZZ_HOT uint32_t far_rx_ctl_fields() {
    uint8_t ack = rx_.exp;
    uint64_t acked = rx_.accepted;
    if (rx_.ack_hold > 0) {
      --rx_.ack_hold;
      ack = rx_.ack_frozen;
      acked = rx_.acked_frozen;
    }
    if (rx_.credit_hold > 0) {
      --rx_.credit_hold;
    } else {
      const uint64_t n = std::min(rx_.owed, acked - std::min(acked, rx_.returned));
      rx_.returned += n;
      rx_.owed -= n;
    }
    return ctl_word(0, ack, static_cast<uint32_t>(rx_.returned), rx_.naks, false);
  }

  // ---- Far end: transmitter towards the chip (section 4) -------------------------------------
  struct FarTx {
    uint8_t nxt = 0, una = 0, rp = 0;
    bool replaying = false;
    int timer = 0;
    int credits = kCredits;
    uint8_t cred_seen = 0, naks_seen = 0, ack_seen = 0;
    uint64_t credits_back = 0;   // credits the chip returned (cumulative)
    uint64_t sent = 0;           // new flits sent (cumulative)
    std::array<Flit, 256> rb{};  // flits sent, by seq
    std::deque<Flit> queue;      // flits not sent yet
    int ignore_naks = 0;
    int pace = 0, pace_left = 0;
    int force_flits = 0;  // violations: flits to send without a credit
  };

  void far_tx_control(uint32_t ctl) {
    const uint8_t ack = ctl_ack(ctl);
    const uint8_t adv = static_cast<uint8_t>(ack - tx_.una);
    if (!g_violated) {
      if (static_cast<uint8_t>(ack - tx_.ack_seen) >= 128)
        fail("the chip's ack went backwards: %u after %u", ack, tx_.ack_seen);
      if (adv > static_cast<uint8_t>(mirror_.exp - tx_.una))
        fail("the chip acks up to seq %u, but it can have accepted only up to %u", ack,
             mirror_.exp);
    }
    tx_.ack_seen = ack;
    if (adv != 0 && adv <= static_cast<uint8_t>(tx_.nxt - tx_.una)) {
      tx_.una = ack;
      tx_.timer = 0;
    }
    const uint8_t cd = static_cast<uint8_t>(ctl_cred(ctl) - tx_.cred_seen);
    tx_.cred_seen = ctl_cred(ctl);
    tx_.credits += cd;
    tx_.credits_back += cd;
    if (!g_violated && tx_.credits_back > mirror_.accepted)
      fail("the chip returned %" PRIu64 " credits for %" PRIu64 " flits it accepted",
           tx_.credits_back, mirror_.accepted);
    if (ctl_naks(ctl) != tx_.naks_seen) {
      tx_.naks_seen = ctl_naks(ctl);
      if (tx_.ignore_naks > 0) {
        --tx_.ignore_naks;
        trace("far tx: NAK %u ignored", tx_.naks_seen);
      } else {
        start_replay("NAK");
      }
    }
  }

  void start_replay(const char* why) {
    tx_.timer = 0;
    if (tx_.una == tx_.nxt) return;
    tx_.replaying = true;
    tx_.rp = tx_.una;
    trace("far tx: replay from seq %u to %u (%s)", tx_.una, tx_.nxt - 1, why);
  }

  // This cycle's word towards the chip: an injected word, a replayed flit, a new flit or an
  // idle word, then the wire's faults; the mirror predicts what the chip's receiver does.
  Word far_send() {
    const uint32_t fields = far_rx_ctl_fields();
    Word w;
    bool from_tx = false;
    if (!inject_.empty()) {
      w = make_injected(inject_.front(), fields);
      inject_.pop_front();
    } else {
      from_tx = true;
      w = far_tx_word(fields);
    }
    // Timer: runs while flits are unacknowledged and no replay runs.
    if (!tx_.replaying && tx_.una != tx_.nxt) {
      if (++tx_.timer >= kReplayTimeout) start_replay("timer");
    } else {
      tx_.timer = 0;
    }
    if (!faults_.empty()) apply_fault(w);
    mirror(w);
    if (from_tx) last_word_ = w;
    return w;
  }

  Word far_tx_word(uint32_t fields) {
    // An ack that overtook the replay skips what it acknowledged (all of it: the replay ends).
    if (tx_.replaying && tx_.una == tx_.nxt) tx_.replaying = false;
    if (tx_.replaying) {
      if (static_cast<uint8_t>(tx_.rp - tx_.una) >= static_cast<uint8_t>(tx_.nxt - tx_.una))
        tx_.rp = tx_.una;
      const uint8_t seq = tx_.rp++;
      if (tx_.rp == tx_.nxt) tx_.replaying = false;
      return make_word(tx_.rb[seq], fields | ctl_word(seq, 0, 0, 0, true));
    }
    if (tx_.pace_left > 0) --tx_.pace_left;
    const bool may = tx_.credits > 0 || tx_.force_flits > 0;
    if (!tx_.queue.empty() && may && tx_.pace_left == 0 &&
        static_cast<uint8_t>(tx_.nxt - tx_.una) < kCredits + 16) {
      if (tx_.credits <= 0) {
        --tx_.force_flits;
        g_violated = true;
        trace("far tx: VIOLATION: a flit without a credit");
      }
      const Flit f = tx_.queue.front();
      tx_.queue.pop_front();
      const uint8_t seq = tx_.nxt++;
      ++tx_.sent;
      tx_.rb[seq] = f;
      --tx_.credits;
      tx_.pace_left = tx_.pace;
      return make_word(f, fields | ctl_word(seq, 0, 0, 0, true));
    }
    return make_word(Flit{}, fields);
  }

  // ---- The mirror of the chip's receiver (section 3), at the moment a word enters the wire ---
  struct Mirror {
    uint8_t exp = 0;
    uint64_t accepted = 0, crc_errors = 0, discards = 0;
  };

  void mirror(const Word& w) {
    if (!w.valid) return;
    if (word_crc(w.flit, w.ctl) != w.crc) {
      ++mirror_.crc_errors;
      return;
    }
    if (!ctl_fv(w.ctl)) return;
    if (ctl_seq(w.ctl) != mirror_.exp) {
      ++mirror_.discards;
      return;
    }
    if (!g_violated && (mirror_.accepted >= tx_.sent || w.flit != tx_.rb[mirror_.exp]))
      fail("harness: the chip will accept seq %u as %s, sent first as %s (%" PRIu64 " flits sent)",
           mirror_.exp, str(w.flit).c_str(), str(tx_.rb[mirror_.exp]).c_str(), tx_.sent);
    ++mirror_.exp;
    ++mirror_.accepted;
    shadow_.flit(w.flit);
  }

  // ---- Faults and extra words -----------------------------------------------------------------
  struct Fault {
    int kind = 0;          // 0 drop, 1 flip bits, 2 xor a 32-bit burst
    int count = 1;         // words it applies to
    bool fv_only = false;  // only words that carry a flit
    std::array<int, 3> bits{};
    int nbits = 0;
    uint32_t burst = 0;
  };

  void apply_fault(Word& w) {
    Fault& f = faults_.front();
    if (!w.valid || (f.fv_only && !ctl_fv(w.ctl))) return;
    switch (f.kind) {
      case 0:
        w.valid = false;
        break;
      case 1:
        for (int i = 0; i < f.nbits; ++i) flip(w, f.bits[i]);
        break;
      default:
        for (int i = 0; i < 32; ++i)
          if ((f.burst >> i) & 1) flip(w, f.bits[0] + i);
        break;
    }
    if (--f.count == 0) faults_.pop_front();
  }

  struct Inject {
    int kind = 0;
    int k = 0;
    Flit flit;
    uint32_t ctl = 0;  // violations: the control field to send
  };

  Word make_injected(const Inject& in, uint32_t fields) {
    switch (in.kind) {
      case 0: {  // an old sequence number (a duplicate of a replay)
        const uint8_t seq = static_cast<uint8_t>(mirror_.exp - 1 - in.k);
        return make_word(tx_.rb[seq], fields | ctl_word(seq, 0, 0, 0, true));
      }
      case 1: {  // a sequence number after a gap, any flit
        const uint8_t seq = static_cast<uint8_t>(mirror_.exp + 1 + in.k % 126);
        return make_word(in.flit, fields | ctl_word(seq, 0, 0, 0, true));
      }
      case 2:  // a control-only word with a good CRC and garbage in its flit field
        return make_word(in.flit, fields);
      case 3: {  // a garbage word (its CRC almost surely wrong)
        Word w;
        w.valid = true;
        w.flit = in.flit;
        w.ctl = in.ctl;
        w.crc = in.flit.d[0] ^ in.flit.d[3] ^ 0x5A5A5A5Au;
        return w;
      }
      case 4:  // a slip: nothing arrives this cycle
        return Word{};
      case 5: {  // violation: a good CRC over garbage control fields
        g_violated = true;
        return make_word(in.flit, in.ctl);
      }
      case 6: {  // violation: the last word again (stale acks and credits)
        g_violated = true;
        return last_word_;
      }
      default: {  // violation: ctl bits 31:29 set in a good idle word
        g_violated = true;
        return make_word(Flit{}, fields | (static_cast<uint32_t>(in.k & 7) << 29));
      }
    }
  }

  // ---- Actions ------------------------------------------------------------------------------
  void action(Reader& in) {
    const uint8_t a = in.u8();
    const int s = a & 31, t = a >> 5;
    int cycles = 1;
    if (s < 16) {
      packet(in, t);
    } else if (s < 19) {
      cycles = (in.u8() & 63) + 1;
      trace("action %d: idle %d", g_action, cycles);
    } else if (s < 22) {
      wire_fault(in);
    } else if (s < 24) {
      inject(in);
    } else if (s == 24) {
      rx_.drop = (in.u8() & 31) + 1;
      trace("action %d: the next %d chip words are lost", g_action, rx_.drop);
    } else if (s == 25) {
      rx_.credit_hold = 2 * in.u8();
      trace("action %d: credits to the chip held %d cycles", g_action, rx_.credit_hold);
    } else if (s == 26) {
      rx_.ack_hold = in.u8();
      rx_.ack_frozen = rx_.exp;
      rx_.acked_frozen = rx_.accepted;
      trace("action %d: acks to the chip held %d cycles", g_action, rx_.ack_hold);
    } else if (s == 27) {
      rx_.naks = (rx_.naks + 1) & 0xF;
      trace("action %d: spurious NAK %u", g_action, rx_.naks);
    } else if (s == 28) {
      ++tx_.ignore_naks;
      trace("action %d: the far transmitter ignores the next NAK", g_action);
    } else if (s == 29) {
      trace("action %d: forced replay", g_action);
      start_replay("forced");
    } else if (s == 30) {
      tx_.pace = in.u8() & 7;
      trace("action %d: a new flit at most every %d cycles", g_action, tx_.pace + 1);
    } else if (g_violations) {
      violation(in);
    }
    for (int i = 0; i < cycles; ++i) step();
  }

  void wire_fault(Reader& in) {
    const uint8_t b = in.u8();
    Fault f;
    f.fv_only = b & 0x80;
    switch (b & 7) {
      case 0:
      case 1:  // lost words: 1, or a link down for up to 16
        f.kind = 0;
        f.count = (b & 1) ? ((b >> 3) & 15) + 1 : 1;
        break;
      case 2:
      case 3:
      case 4:
      case 5:  // 1, 2 or 3 flipped bits
        f.kind = 1;
        f.nbits = std::min(3, (b & 7) - 1);
        for (int i = 0; i < f.nbits; ++i) f.bits[i] = in.u8() | ((in.u8() & 1) << 8);
        break;
      case 6:  // a burst of up to 32 bits
        f.kind = 2;
        f.bits[0] = in.u8() % 194;
        f.burst = in.u32() | 1;
        break;
      default:  // the seq field of the next flit word, one bit
        f.kind = 1;
        f.fv_only = true;
        f.nbits = 1;
        f.bits[0] = 130 + (in.u8() & 7);
        break;
    }
    trace("action %d: wire fault kind %d x%d%s", g_action, f.kind, f.count,
          f.fv_only ? " (flit words)" : "");
    faults_.push_back(f);
  }

  Flit raw_flit(Reader& in) {
    Flit f;
    for (auto& d : f.d) d = in.u32();
    const uint8_t ht = in.u8();
    f.head = ht & 2;
    f.tail = ht & 1;
    return f;
  }

  void inject(Reader& in) {
    const uint8_t b = in.u8();
    Inject j;
    j.kind = b % 5;
    j.k = (b >> 3) & 31;
    if (j.kind == 1 || j.kind == 2 || j.kind == 3) j.flit = raw_flit(in);
    if (j.kind == 3) j.ctl = in.u32();
    // An old seq only among those sent (older ones are also discarded, but have no flit here).
    if (j.kind == 0)
      j.k = mirror_.accepted == 0 ? -1 : j.k % std::min<uint64_t>(mirror_.accepted, 32);
    trace("action %d: extra word kind %d (k %d)", g_action, j.kind, j.k);
    if (j.kind == 0 && j.k < 0) return;
    inject_.push_back(j);
  }

  void violation(Reader& in) {
    const uint8_t b = in.u8();
    trace("action %d: VIOLATION kind %d", g_action, b % 6);
    switch (b % 6) {
      case 0:  // flits without credits
        tx_.force_flits += (b >> 3) + 1;
        break;
      case 1: {  // a stray body flit
        Flit f = raw_flit(in);
        f.head = false;
        tx_.queue.push_back(f);
        g_violated = true;
        break;
      }
      case 2: {  // a head without its tail, then the next packet
        Header h;
        h.dst_chip = kChipId;
        h.len = 16 * ((b >> 3) & 7);
        Flit f = pack(h);
        f.tail = false;
        tx_.queue.push_back(f);
        g_violated = true;
        break;
      }
      case 3: {
        Inject j;
        j.kind = 5;
        j.flit = raw_flit(in);
        j.ctl = in.u32() & ~(1u << 28);
        inject_.push_back(j);
        break;
      }
      case 4: {
        Inject j;
        j.kind = 6;
        inject_.push_back(j);
        break;
      }
      default: {
        Inject j;
        j.kind = 7;
        j.k = (b >> 3) | 1;
        inject_.push_back(j);
        break;
      }
    }
  }

  // A packet: header from the template and operands, payload, framing; queued for sending.
  void packet(Reader& in, int t) {
    const uint8_t b_len = in.u8(), b_addr = in.u8(), b_cfg = in.u8(), b_misc = in.u8();
    const uint8_t b_pay = in.u8(), b_frame = in.u8();
    uint32_t n = b_len < 0xE0 ? b_len % 9 : std::min(128, (b_len & 0x1F) * 4 + 9);
    uint64_t rng = 0x1234567ull * (b_pay + 1) + g_action;
    Header h;
    h.dst_chip = kChipId;
    h.ctr = b_misc & 31;
    h.lane = (b_misc >> 5) & 3;
    h.sat = b_misc >> 7;
    h.src_chip = splitmix(rng) & 0xFFF;
    h.src_tile = splitmix(rng) & 0xF;
    h.seq = splitmix(rng) & 0xFFFF;
    // A valid (dtype, op) pair for Reduce (25 of them), with avg shift and final bits.
    auto set_pair = [&](uint8_t c) {
      static const std::vector<std::pair<uint32_t, uint32_t>> pairs = [] {
        std::vector<std::pair<uint32_t, uint32_t>> v;
        for (uint32_t d = 0; d < 7; ++d)
          for (uint32_t o = 0; o < 4; ++o)
            if (valid_pair(static_cast<DType>(d), static_cast<RedOp>(o))) v.push_back({d, o});
        return v;
      }();
      const auto& p = pairs[c % pairs.size()];
      h.dtype = p.first;
      h.op = p.second;
      h.fin = (c >> 5) & 1;
      h.shift = (c >> 6) * 5;  // 0, 5, 10, 15
    };
    if (t <= 3 || t == 6) {  // valid headers
      h.opcode = (t == 3 || (t == 6 && (b_cfg & 1))) ? 1 : 0;
      if (t == 6) n = 0;
      set_pair(b_cfg);
      h.len = n * 16;
      h.dst_addr = (b_addr % (kDmemWords - n + 1)) * 16;
      if (h.opcode == 0) {  // dtype and op are carried but ignored for Write
        h.dtype = b_cfg & 7;
        h.op = b_cfg >> 3;
      }
    } else if (t == 4) {  // one (or two) fields made bad
      h.opcode = b_cfg & 1;
      set_pair(b_cfg);
      h.len = n * 16;
      h.dst_addr = (b_addr % (kDmemWords - n + 1)) * 16;
      const uint8_t m = in.u8(), v = in.u8();
      mutate(h, m % 12, v);
      if (m % 12 == 11) mutate(h, v % 11, m);
      n = std::min<uint32_t>(h.len / 16, 130);
    } else if (t == 5) {  // a raw header
      Flit f = raw_flit(in);
      h = unpack(f);
      n = std::min<uint32_t>(h.len / 16, 130);
    } else {  // t == 7: another chip, or this chip's missing tiles
      const uint8_t c = in.u8(), c2 = in.u8();
      h.opcode = b_cfg % 3 == 0 ? (b_cfg >> 2) & 15 : b_cfg & 1;
      set_pair(b_cfg);
      h.dst_chip = c < 0xC0 ? c % kTableChips : (c2 | (c & 15) << 8);
      h.dst_tile = c2 & 15;
      h.len = n * 16;
      h.dst_addr = b_addr * 16u + (c2 >> 4) * 4096u;
      h.reserved = (c & 0x30) ? 0 : splitmix(rng) & 0x1FFFFF;
    }
    Flit head = pack(h);  // for t == 5 the raw header's 128 bits, unchanged

    // Framing: normal, Short (the tail early) or Long (flits beyond len).
    uint32_t body = n;
    const char* framing = "";
    if (b_frame >= 0xF0) {
      body = n + (b_frame & 15) + 1;
      framing = " LONG";
    } else if (b_frame >= 0xE0 && n > 0) {
      body = (b_frame & 15) % n;
      framing = " SHORT";
    }
    trace(
        "action %d: packet t%d opc %u chip %u tile %u addr 0x%x len %u dtype %u op %u sat %u "
        "fin %u shift %u ctr %u lane %u, %u body flits%s",
        g_action, t, h.opcode, h.dst_chip, h.dst_tile, h.dst_addr, h.len, h.dtype, h.op, h.sat,
        h.fin, h.shift, h.ctr, h.lane, body, framing);
    head.tail = body == 0;
    tx_.queue.push_back(head);
    const int mode = b_pay & 3;
    for (uint32_t k = 0; k < body; ++k) {
      Flit f;
      for (auto& d : f.d) {
        const int m = mode == 3 ? static_cast<int>(splitmix(rng) & 1) : mode;
        if (m == 0)
          d = static_cast<uint32_t>(splitmix(rng));
        else if (m == 1)
          d = kInteresting[splitmix(rng) % (sizeof kInteresting / 4)];
        else
          d = k < 4 ? in.u32() : static_cast<uint32_t>(splitmix(rng));
      }
      f.tail = k + 1 == body;
      tx_.queue.push_back(f);
    }
  }

  static void mutate(Header& h, int m, uint8_t v) {
    switch (m) {
      case 0:
        h.opcode = 2 + v % 14;
        break;
      case 1:
        h.len += 1 + v % 15;
        break;
      case 2:
        h.len = 2048 + 16 * (1 + v % 16);
        break;
      case 3:
        h.len = 2049 + v * 8;
        break;
      case 4:  // a Reduce with no ALU pair
        h.opcode = 1;
        if (v & 1) {
          h.dtype = 7;  // no such dtype
          h.op = v >> 5;
        } else if (v & 2) {
          h.op = 4 + (v >> 2) % 4;  // ScaleAdd (valid only on fp32) and the undefined ops
        } else {
          h.op = 3;  // Avg on a float type
          h.dtype = 4 + (v >> 2) % 3;
        }
        break;
      case 5:
        h.dst_addr = kDmemBytes - h.len + 16 * (1 + v % 16);
        break;  // just past DMEM
      case 6:
        h.dst_addr = 0xFFFFF0 - 16 * v;
        break;  // far past it
      case 7:
        h.dst_addr |= 1 + v % 15;
        break;  // unaligned
      case 8:
        h.dst_tile = 1 + v % 15;
        break;  // no such tile
      case 9:
        h.reserved = v * 0x2741u;
        h.seq ^= v * 0x101u;
        break;  // ignored bits
      default:
        h.dst_addr = kDmemBytes - h.len;
        break;  // the very end
    }
  }

  // ---- Drain and final checks ---------------------------------------------------------------
  bool quiet_now() const {
    return tx_.queue.empty() && inject_.empty() && tx_.una == tx_.nxt && !tx_.replaying &&
           tx_.credits == kCredits && rx_.owed == 0 && rx_.ack_hold == 0 &&
           (g_violated || shadow_.forwarded.empty());
  }

  void drain() {
    faults_.clear();
    rx_.drop = 0;
    rx_.credit_hold = std::min(rx_.credit_hold, 64);
    tx_.force_flits = 0;
    tx_.pace = 0;
    int quiet = 0;
    uint64_t start = g_cycle;
    uint32_t last_fields = far_ctl_now();
    while (quiet < (chip_sent_ ? kQuietCyclesAfterSend : kQuietCycles)) {
      if (g_cycle - start > kDrainLimitCycles) {
        if (g_violated) return;
        fail("no quiet state %" PRIu64
             " cycles after the input: far tx una %u nxt %u credits "
             "%d/%d queue %zu replaying %d; far rx expects %u, %zu forwarded flits missing "
             "(%" PRIu64 " expected in all, %" PRIu64 " received); the chip accepted %" PRIu64,
             kDrainLimitCycles, tx_.una, tx_.nxt, tx_.credits, kCredits, tx_.queue.size(),
             tx_.replaying, rx_.exp, shadow_.forwarded.size(), shadow_.forwarded_total,
             rx_.accepted, mirror_.accepted);
      }
      const bool chip_busy = ctl_fv(chip_->phy_tx_ctl_o);
      step();
      const uint32_t fields = far_ctl_now();
      quiet = (quiet_now() && !chip_busy && fields == last_fields) ? quiet + 1 : 0;
      last_fields = fields;
    }
  }

  uint32_t far_ctl_now() const {
    return ctl_word(0, rx_.exp, static_cast<uint32_t>(rx_.returned), rx_.naks, false);
  }

  void final_checks() {
    std::vector<uint32_t> v(10 + kNumCounters);
    const uint32_t tile = reg::kTileBase;
    host_queue(false, reg::kStatus, 0, &v[0]);
    host_queue(false, reg::kMisroutes, 0, &v[1]);
    host_queue(false, reg::kXbErrors, 0, &v[2]);
    host_queue(false, reg::kLinkCrcErrors, 0, &v[3]);
    host_queue(false, reg::kLinkStatus, 0, &v[4]);
    host_queue(false, reg::kLinkDiscards, 0, &v[5]);
    host_queue(false, tile + reg::kTileStatus, 0, &v[6]);
    if (has_err_regs_) {
      host_queue(false, tile + reg::kTileErrInfo, 0, &v[7]);
      host_queue(false, tile + reg::kTileErrCount, 0, &v[8]);
    }
    for (uint32_t c = 0; c < kNumCounters; ++c)
      host_queue(false, tile + reg::kTileCounters + 4 * c, 0, &v[10 + c]);
    host_flush();
    const Shadow& s = shadow_;
    const bool tile_err = s.first_err != TileErr::kNone;
    auto expect = [](const char* what, uint64_t seen, uint64_t want) {
      if (seen != want)
        fail("%s reads %" PRIu64 " (0x%" PRIx64 "), expected %" PRIu64 " (0x%" PRIx64 ")", what,
             seen, seen, want, want);
    };
    expect("Misroutes", v[1], s.misroutes);
    expect("XbErrors", v[2], 0);
    expect("Status bit 31 (any error)", v[0] >> 31, tile_err || s.misroutes != 0);
    expect("Status bit 0 (tile 0 done)", v[0] & 1, 0);
    expect("TileStatus error code (the first failing check's TileErr)", v[6] & 0xF,
           static_cast<uint32_t>(s.first_err));
    expect("TileStatus done and pc", v[6] >> 4, 0);
    if (has_err_regs_) {
      expect("TileErrInfo (ErrCheck bits 3:0, source chip 23:12 and tile 27:24)", v[7],
             s.first_info);
      expect("TileErrCount (packets dropped)", v[8], s.err_count);
    }
    expect("LinkCrcErrors[0] (words with a bad CRC)", v[3],
           std::min<uint64_t>(mirror_.crc_errors, 0xFFFF));
    expect("LinkDiscards[0] bits 15:0 (good flits out of sequence)", v[5] & 0xFFFF,
           std::min<uint64_t>(mirror_.discards, 0xFFFF));
    const uint32_t timeouts = v[5] >> 16, replays = v[4] >> 16, run = (v[4] >> 4) & 15;
    if (replays < timeouts)
      fail("LinkStatus counts %u replays, fewer than LinkDiscards' %u timer expiries", replays,
           timeouts);
    if ((v[4] & 0xFF0E) != 0 || ((v[4] & 1) && replays < kLinkEscalateReplays))
      fail("LinkStatus 0x%08x: reserved bits set, or escalated after %u replays", v[4], replays);
    (void)run;
    for (uint32_t c = 0; c < kNumCounters; ++c) {
      char what[48];
      std::snprintf(what, sizeof what, "TileCounters[%u]", c);
      expect(what, v[10 + c], s.counters[c]);
    }
    const auto& mem =
        chip_->rootp->xf_chip__DOT__gen_tile__BRA__0__KET____DOT__u_tile__DOT__u_dmem__DOT__mem_q;
    for (uint32_t w = 0; w < kDmemWords; ++w)
      for (int k = 0; k < 4; ++k) {
        uint32_t want;
        std::memcpy(&want, &s.dmem[w * 16 + k * 4], 4);
        const uint32_t seen = mem[w][k];
        if (seen != want) {
          uint32_t init;
          std::memcpy(&init, &dmem_init_[w * 16 + k * 4], 4);
          fail("DMEM bytes 0x%x..0x%x read 0x%08x, expected 0x%08x (0x%08x before the input)",
               w * 16 + k * 4, w * 16 + k * 4 + 3, seen, want, init);
        }
      }
    trace("final: %" PRIu64 " flits accepted, %" PRIu64 " to the tile, %" PRIu64
          " forwarded, %u misroutes, %u dropped by the tile, %" PRIu64 " CRC errors, %" PRIu64
          " discards",
          mirror_.accepted, s.local_flits, s.forwarded_total, s.misroutes, s.err_count,
          mirror_.crc_errors, mirror_.discards);
  }

  // ---- Host port (docs/chip.md section 3): pipelined, one request per cycle at most ----------
  struct HostAccess {
    bool write;
    uint32_t addr, wdata;
    uint32_t* dst;
  };

  void host_queue(bool write, uint32_t addr, uint32_t wdata, uint32_t* dst) {
    hq_.push_back({write, addr, wdata, dst});
  }

  void host_flush() {
    const uint64_t end = g_cycle + 10000;
    while (!hq_.empty() || !hinflight_.empty()) {
      if (g_cycle > end) fail("host accesses did not complete");
      step();
    }
  }

  uint32_t host_read(uint32_t addr) {
    uint32_t v = 0;
    host_queue(false, addr, 0, &v);
    host_flush();
    return v;
  }

  // True if the chip answers a read of addr without an error.
  bool host_probe(uint32_t addr) {
    probe_ = true;
    probe_err_ = false;
    host_read(addr);
    probe_ = false;
    return !probe_err_;
  }

  XF_FUZZ_HOT void host_cycle() {
    if (chip_->host_rsp_valid_o) {
      if (hinflight_.empty()) fail("the host port answered an access that was never made");
      const HostAccess a = hinflight_.front();
      hinflight_.pop_front();
      if (chip_->host_rsp_err_o) {
        if (!probe_)
          fail("the host port refused the %s at 0x%08x", a.write ? "write" : "read", a.addr);
        probe_err_ = true;
      }
      if (!a.write && a.dst) *a.dst = chip_->host_rsp_rdata_o;
    }
    // host_req_ready_o does not depend on host_req_* (docs/chip.md): sampled before the edge.
    if (!hq_.empty()) {
      const HostAccess& a = hq_.front();
      chip_->host_req_valid_i = 1;
      chip_->host_req_write_i = a.write;
      chip_->host_req_addr_i = a.addr;
      chip_->host_req_wdata_i = a.wdata;
      if (chip_->host_req_ready_o) {
        hinflight_.push_back(a);
        hq_.pop_front();
      }
    } else {
      chip_->host_req_valid_i = 0;
    }
  }

  std::unique_ptr<VerilatedContext> ctx_;
  std::unique_ptr<Vxf_chip> chip_;
  std::vector<uint8_t> dmem_init_;
  bool has_err_regs_ = false, probe_ = false, probe_err_ = false;
  Shadow shadow_;
  std::deque<Word> wire_in_, wire_out_;
  FarTx tx_;
  FarRx rx_;
  Mirror mirror_;
  std::deque<Fault> faults_;
  std::deque<Inject> inject_;
  std::deque<HostAccess> hq_, hinflight_;
  Word last_word_;
  uint64_t chip_words_ = 0;
  bool chip_sent_ = false;  // the chip sent a flit word in this input
};

Harness* g_harness = nullptr;
uint64_t g_inputs = 0, g_total_cycles = 0;

// Printed when the process ends (libFuzzer exits after -runs or -max_total_time).
struct Stats {
  ~Stats() {
    if (g_harness && VM_COVERAGE) {
      const char* p = std::getenv("XF_FUZZ_COVERAGE_DAT");
      g_harness->write_coverage(p ? p : "coverage.dat");
    }
    if (g_inputs)
      std::printf("fuzz_ingress: %" PRIu64 " inputs, %" PRIu64
                  " simulated cycles (%.0f per input)\n",
                  g_inputs, g_total_cycles, static_cast<double>(g_total_cycles) / g_inputs);
  }
} g_stats;
std::set<std::pair<std::string, int>> g_assert_sites;

}  // namespace
}  // namespace xf::fuzz

// Every failed RTL assertion ($error in rtl/xf_assert.svh) and $stop ends here (the build defines
// VL_USER_STOP; Verilator's vl_stop_maybe calls it with the default error limit of 1). Its
// message is already printed. Fatal, unless violations are on.
void vl_stop(const char* filename, int linenum, const char* hier) {
  (void)hier;
  using namespace xf::fuzz;
  if (g_violations) {
    if (g_assert_sites.insert({filename ? filename : "", linenum}).second)
      std::printf("fuzz_ingress: violation mode: assertion at %s:%d (first time)\n", filename,
                  linenum);
    return;
  }
  fail("an RTL assertion failed at %s:%d (its message is above)", filename ? filename : "?",
       linenum);
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace xf::fuzz;
  if (!g_harness) g_harness = new Harness();
  g_harness->run(data, size);
  ++g_inputs;
  g_total_cycles += g_cycle;
  return 0;
}
