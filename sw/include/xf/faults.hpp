// Fault injection on link wires (docs/reliability.md section 7), shared by the RTL harness
// (sw/backends/rtl/rtl_system.hpp) and the model (model/link.*): the `--faults` syntax, its parser
// with clear errors, and a per-wire random stream that decides, word by word and cycle by cycle,
// what the physical layer does wrong.
//
// Random numbers come from splitmix64 (fixed arithmetic, so a seed gives the same faults on every
// machine and compiler; std::*_distribution would not).
#pragma once

#include <cctype>
#include <cerrno>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

namespace xf {

struct FaultSpec {
  double ber = 0;          // per bit of a present word
  double wer = 0;          // per present word: one flipped bit at a random position
  double drop = 0;         // per present word: lost
  double stall = 0;        // per cycle: the wire slips one cycle
  double down = 0;         // per cycle: the link direction goes down
  uint32_t downlen = 200;  // cycles it stays down
  uint64_t seed = 1;

  bool any() const { return ber > 0 || wer > 0 || drop > 0 || stall > 0 || down > 0; }
  std::string str() const {
    std::ostringstream o;
    o << "ber=" << ber << ",wer=" << wer << ",drop=" << drop << ",stall=" << stall
      << ",down=" << down << ",downlen=" << downlen << ",seed=" << seed;
    return o.str();
  }
};

// Parses "ber=1e-5,drop=1e-4,stall=0.05,seed=7". Throws std::invalid_argument naming the bad
// item and the accepted keys and ranges.
inline FaultSpec parse_faults(const std::string& text) {
  FaultSpec f;
  const std::string keys =
      "accepted: ber=P (0..0.5), wer=P, drop=P, stall=P, down=P (0..1), downlen=CYCLES "
      "(1..1000000), seed=N; e.g. --faults wer=1e-3,drop=1e-4,seed=7";
  if (text.empty()) throw std::invalid_argument("--faults: empty list; " + keys);
  std::stringstream ss(text);
  std::string item;
  while (std::getline(ss, item, ',')) {
    const size_t eq = item.find('=');
    if (eq == std::string::npos || eq == 0 || eq + 1 == item.size())
      throw std::invalid_argument("--faults: '" + item + "' is not key=value; " + keys);
    const std::string k = item.substr(0, eq), v = item.substr(eq + 1);
    char* end = nullptr;
    if (k == "seed" || k == "downlen") {
      errno = 0;
      const unsigned long long n = std::strtoull(v.c_str(), &end, 0);
      if (*end || errno || !std::isdigit(static_cast<unsigned char>(v[0])))
        throw std::invalid_argument("--faults: " + k + "=" + v + " is not a whole number; " + keys);
      if (k == "seed") {
        f.seed = n;
      } else {
        if (n < 1 || n > 1000000)
          throw std::invalid_argument("--faults: downlen=" + v + " is outside 1..1000000");
        f.downlen = static_cast<uint32_t>(n);
      }
      continue;
    }
    const double x = std::strtod(v.c_str(), &end);
    if (*end || !std::isfinite(x))
      throw std::invalid_argument("--faults: " + k + "=" + v + " is not a number; " + keys);
    const double hi = k == "ber" ? 0.5 : 1.0;
    if (x < 0 || x > hi)
      throw std::invalid_argument("--faults: " + k + "=" + v + " is not a probability in 0.." +
                                  (k == "ber" ? std::string("0.5") : std::string("1")));
    if (k == "ber")
      f.ber = x;
    else if (k == "wer")
      f.wer = x;
    else if (k == "drop")
      f.drop = x;
    else if (k == "stall")
      f.stall = x;
    else if (k == "down")
      f.down = x;
    else
      throw std::invalid_argument("--faults: unknown key '" + k + "'; " + keys);
  }
  if (f.stall >= 1) throw std::invalid_argument("--faults: stall=1 would stop the wire forever");
  if (f.down >= 1) throw std::invalid_argument("--faults: down=1 would hold the link down forever");
  return f;
}

// splitmix64: one 64-bit state, full period, good enough for fault dice.
class SplitMix {
 public:
  explicit SplitMix(uint64_t seed) : s_(seed) {}
  uint64_t next() {
    uint64_t z = (s_ += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
  }
  double uniform() { return static_cast<double>(next() >> 11) * (1.0 / 9007199254740992.0); }
  bool chance(double p) { return p > 0 && uniform() < p; }
  uint32_t below(uint32_t n) { return static_cast<uint32_t>(next() % n); }

 private:
  uint64_t s_;
};

// Counts of what a wire did wrong (for reports and tests).
struct FaultCounts {
  uint64_t words = 0, flipped_words = 0, flipped_bits = 0, dropped = 0, stall_cycles = 0,
           down_cycles = 0;
  FaultCounts& operator+=(const FaultCounts& o) {
    words += o.words;
    flipped_words += o.flipped_words;
    flipped_bits += o.flipped_bits;
    dropped += o.dropped;
    stall_cycles += o.stall_cycles;
    down_cycles += o.down_cycles;
    return *this;
  }
};

// The fault stream of one wire (one direction of one link). `stream` distinguishes wires: the
// harness and the model use (node << 8 | port) of the receiving end.
class WireFaults {
 public:
  static constexpr uint32_t kMaxSlip = 16;  // cycles a stalled wire may fall behind

  WireFaults(const FaultSpec& f, uint64_t stream)
      : f_(f), rng_(f.seed * 0x2545F4914F6CDD1Dull ^ (stream + 1) * 0x9E3779B97F4A7C15ull) {
    skip_ = next_skip();
  }

  // Per cycle, before anything else: is the direction down this cycle?
  bool down_now() {
    if (down_left_ == 0 && rng_.chance(f_.down)) down_left_ = f_.downlen;
    if (down_left_ == 0) return false;
    --down_left_;
    ++counts.down_cycles;
    return true;
  }
  // Per cycle: does the wire slip (deliver nothing) this cycle? `slip` is how far behind it is.
  bool stall_now(uint32_t slip) {
    if (slip >= kMaxSlip || !rng_.chance(f_.stall)) return false;
    ++counts.stall_cycles;
    return true;
  }
  // Per present word: is it lost?
  bool drop_word() {
    ++counts.words;
    if (!rng_.chance(f_.drop)) return false;
    ++counts.dropped;
    return true;
  }
  // Per surviving word of `bits` bits: the positions to flip (empty for a clean word).
  const std::vector<uint32_t>& flips(uint32_t bits) {
    flips_.clear();
    if (f_.ber > 0) {
      uint64_t pos = 0;
      while (skip_ < bits - pos) {
        pos += skip_;
        flips_.push_back(static_cast<uint32_t>(pos));
        ++pos;
        skip_ = next_skip();
      }
      skip_ -= bits - pos;
    }
    if (rng_.chance(f_.wer)) flips_.push_back(rng_.below(bits));
    if (!flips_.empty()) {
      ++counts.flipped_words;
      counts.flipped_bits += flips_.size();
    }
    return flips_;
  }

  FaultCounts counts;

 private:
  // Bits until the next flip: geometric with parameter ber.
  uint64_t next_skip() {
    if (f_.ber <= 0) return ~0ull;
    const double u = 1.0 - rng_.uniform();  // (0, 1]
    const double k = std::floor(std::log(u) / std::log1p(-f_.ber));
    return k > 1e18 ? ~0ull : static_cast<uint64_t>(k);
  }

  FaultSpec f_;
  SplitMix rng_;
  uint64_t skip_ = 0;
  uint32_t down_left_ = 0;
  std::vector<uint32_t> flips_;
};

// Under faults: what the wires did and what the retry layer did about them, summed over a
// machine's links, as one line per backend ("# faults rtl: ..."), so that scripts
// (scripts/bench_faults.py) can compute goodput.
struct LinkCounts {
  uint64_t words, corrupted, dropped, stall, down, crc_errors, replays, timeouts, discards,
      escalated;
};

inline std::string link_counts_line(const std::string& backend, const LinkCounts& c) {
  std::ostringstream o;
  o << "# faults " << backend << ": words " << c.words << " corrupted " << c.corrupted
    << " dropped " << c.dropped << " stall " << c.stall << " down " << c.down << " | crc_errors "
    << c.crc_errors << " replays " << c.replays << " timeouts " << c.timeouts << " discards "
    << c.discards << " escalated " << c.escalated;
  return o.str();
}

}  // namespace xf
