// Command-line helpers shared by the tools in sw/tools (fabric, gen_system): the usage error
// and the parsers of sizes and whole numbers, with messages that say what to write instead.
#pragma once

#include <cctype>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <stdexcept>
#include <string>

#include "xf/compiler.hpp"
#include "xf/topology.hpp"

namespace xf::cli {

// A bad argument: the tools print the message and their usage, and exit 2.
struct Usage : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// A size: digits with an optional suffix B, K/KB/KiB, M/MB/MiB, G/GB/GiB (powers of 1024).
inline uint64_t parse_bytes(const std::string& s) {
  size_t pos = 0;
  uint64_t v = 0;
  try {
    v = std::stoull(s, &pos);
  } catch (...) {
    throw Usage("--bytes '" + s + "' is not a size; write e.g. 4096, 64K or 1M");
  }
  std::string suf = s.substr(pos);
  for (auto& c : suf) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  if (suf == "" || suf == "B") return v;
  if (suf == "K" || suf == "KB" || suf == "KIB") return v << 10;
  if (suf == "M" || suf == "MB" || suf == "MIB") return v << 20;
  if (suf == "G" || suf == "GB" || suf == "GIB") return v << 30;
  throw Usage("--bytes '" + s + "': unknown suffix '" + suf + "'; use K, M or G");
}

// A size as the tools print it: with K or M when exact.
inline std::string human(uint64_t b) {
  char buf[32];
  if (b >= (1u << 20) && b % (1u << 20) == 0)
    std::snprintf(buf, sizeof buf, "%lluM", static_cast<unsigned long long>(b >> 20));
  else if (b >= 1024 && b % 1024 == 0)
    std::snprintf(buf, sizeof buf, "%lluK", static_cast<unsigned long long>(b >> 10));
  else
    std::snprintf(buf, sizeof buf, "%llu", static_cast<unsigned long long>(b));
  return buf;
}

// A whole number (decimal, 0x hex, leading-0 octal) in [lo, hi], for option --opt.
inline long long parse_int(const std::string& opt, const std::string& s, long long lo,
                           long long hi) {
  size_t pos = 0;
  long long v = 0;
  try {
    v = std::stoll(s, &pos, 0);
  } catch (...) {
    pos = 0;
  }
  if (pos == 0 || pos != s.size() || v < lo || v > hi)
    throw Usage("--" + opt + " '" + s + "' must be a whole number from " + std::to_string(lo) +
                " to " + std::to_string(hi));
  return v;
}

// A real number in [lo, hi], for option --opt.
inline double parse_real(const std::string& opt, const std::string& s, double lo, double hi) {
  char* end = nullptr;
  const double v = std::strtod(s.c_str(), &end);
  if (s.empty() || *end || !(v >= lo && v <= hi)) {
    char range[64];
    std::snprintf(range, sizeof range, "%g to %g", lo, hi);
    throw Usage("--" + opt + " '" + s + "' must be a number from " + range);
  }
  return v;
}

// The exit status of a tool whose body threw; call it from a `catch (...)` handler. A bad
// argument (Usage, a TopologyError or CompileError from the library, std::invalid_argument from a
// parser) goes to `usage`, which prints it with the usage and returns 2; anything else prints
// "<tool>: error: ..." and returns 1.
template <class UsageFn>
int exit_status(const char* tool, UsageFn&& usage) {
  try {
    throw;
  } catch (const Usage& e) {
    return usage(e.what());
  } catch (const TopologyError& e) {
    return usage(e.what());
  } catch (const CompileError& e) {
    return usage(e.what());
  } catch (const std::invalid_argument& e) {
    return usage(e.what());
  } catch (const std::exception& e) {
    std::fprintf(stderr, "%s: error: %s\n", tool, e.what());
    return 1;
  }
}

}  // namespace xf::cli
