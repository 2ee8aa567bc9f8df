// Shared helpers of the RTL block tests (tests/test_rtl_*.cpp): reproducible seeds.
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

}  // namespace xf::rtltest
