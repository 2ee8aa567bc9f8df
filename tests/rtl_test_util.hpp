// Shared helpers of the RTL block tests (tests/test_rtl_*.cpp): reproducible seeds, random
// draws, and the 130-bit stream flit {head, tail, data} as the router and exchange tests use it.
//
// Every test draws from a generator seeded with XF_SEED (or the file's default) mixed with the
// test's own name, so one test can be rerun alone with the same numbers; the seed is printed.
#pragma once

#include <gtest/gtest.h>

#include <cinttypes>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <string>

namespace xf::rtltest {

inline uint64_t base_seed(uint64_t default_seed) {
  const char* s = std::getenv("XF_SEED");
  return (s != nullptr && *s != '\0') ? std::strtoull(s, nullptr, 0) : default_seed;
}

inline std::string test_name() {
  const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
  return std::string(info->test_suite_name()) + "." + info->name();
}

// Per-test generator: the base seed mixed with the test name (FNV-1a). Prints the seed.
inline std::mt19937_64 make_rng(uint64_t default_seed) {
  const std::string name = test_name();
  uint64_t h = 1469598103934665603ull;
  for (char c : name) h = (h ^ static_cast<uint8_t>(c)) * 1099511628211ull;
  std::printf("[   SEED   ] %s: XF_SEED=%" PRIu64 "%s\n", name.c_str(), base_seed(default_seed),
              std::getenv("XF_SEED") != nullptr ? "" : " (default; set XF_SEED to override)");
  return std::mt19937_64(base_seed(default_seed) ^ h);
}

using Rng = std::mt19937_64;
// Uniform in 0 .. n-1; true with pct percent probability.
inline uint32_t rnd(Rng& rng, uint32_t n) { return static_cast<uint32_t>(rng() % n); }
inline bool chance(Rng& rng, int pct) { return pct > 0 && static_cast<int>(rnd(rng, 100)) < pct; }

// A flit of an RTL stream: bit 129 head, bit 128 tail, data bits 127:0.
struct Flit {
  bool head = false, tail = false;
  uint64_t lo = 0, hi = 0;  // data bits 63:0 and 127:64
  bool operator==(const Flit& o) const {
    return head == o.head && tail == o.tail && lo == o.lo && hi == o.hi;
  }
};

inline std::string describe(const Flit& f) {
  char buf[96];
  std::snprintf(buf, sizeof buf, "{head %d tail %d data 0x%016" PRIx64 "_%016" PRIx64 "}", f.head,
                f.tail, f.hi, f.lo);
  return buf;
}

}  // namespace xf::rtltest
