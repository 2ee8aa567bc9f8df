// Command-line helpers shared by the tools in sw/tools (fabric and its subcommands, gen_system):
// the usage error, the parsers of sizes and numbers (with messages that name the option and say
// what to write instead), input-file checks and the escaping of user text in messages. The
// tools' options are declared with CLI11 in sw/tools/options.hpp, which calls these parsers.
#pragma once

#include <cctype>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <stdexcept>
#include <string>

#include "xf/compiler.hpp"
#include "xf/input_file.hpp"
#include "xf/topology.hpp"

namespace xf::cli {

// A bad argument: the tools print the message and their usage, and exit 2.
struct Usage : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// A well-formed request beyond what this build can simulate (a machine larger than the
// Verilated chip or switch): the tools print the message alone, one line without the usage,
// and exit 2.
struct Refused : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// User text as the tools print it: control characters (from a topology file, an argument, a
// file name) as \n, \t, \r or \xHH, so that a message cannot move the cursor, clear the screen
// or fake a line. Every message a tool prints goes through it (exit_status, the usage printers).
inline std::string printable(const std::string& s) {
  std::string o;
  o.reserve(s.size());
  for (const char ch : s) {
    const auto c = static_cast<unsigned char>(ch);
    if (c >= 0x20 && c != 0x7F) {
      o += ch;
    } else if (c == '\n') {
      o += "\\n";
    } else if (c == '\t') {
      o += "\\t";
    } else if (c == '\r') {
      o += "\\r";
    } else {
      char buf[8];
      std::snprintf(buf, sizeof buf, "\\x%02X", c);
      o += buf;
    }
  }
  return o;
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

// A size for option --opt: decimal digits with an optional suffix B, K/KB/KiB, M/MB/MiB, G/GB/GiB
// (powers of 1024, any case), at most `hi` bytes. A sign, a space, a fraction, another suffix and
// a value above `hi` (or above 2^64 - 1) are usage errors that name the option.
inline uint64_t parse_bytes(const std::string& opt, const std::string& s,
                            uint64_t hi = UINT64_MAX) {
  const std::string what = "--" + opt + " '" + s + "'";
  const std::string how =
      "; write whole bytes as digits with an optional K, M or G, e.g. 4096, 64K or 1M";
  if (s.empty() || !std::isdigit(static_cast<unsigned char>(s[0])))
    throw Usage(what + " is not a size" + how);
  size_t pos = 0;
  uint64_t v = 0;
  bool overflow = false;
  for (; pos < s.size() && std::isdigit(static_cast<unsigned char>(s[pos])); ++pos) {
    const uint64_t d = static_cast<uint64_t>(s[pos] - '0');
    if (v > (UINT64_MAX - d) / 10) overflow = true;
    v = v * 10 + d;
  }
  std::string suf = s.substr(pos);
  for (auto& c : suf) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  int shift = -1;
  if (suf == "" || suf == "B") shift = 0;
  if (suf == "K" || suf == "KB" || suf == "KIB") shift = 10;
  if (suf == "M" || suf == "MB" || suf == "MIB") shift = 20;
  if (suf == "G" || suf == "GB" || suf == "GIB") shift = 30;
  if (shift < 0) {
    if (suf[0] == '.' || suf[0] == ',') throw Usage(what + " is not a whole number of bytes" + how);
    throw Usage(what + ": unknown suffix '" + s.substr(pos) + "'; use K, M or G");
  }
  if (overflow || v > (hi >> shift))
    throw Usage(what + " is too large: at most " + human(hi) + " bytes");
  return v << shift;
}

// A whole number (decimal, 0x hex, leading-0 octal) in [lo, hi], for option --opt: digits only,
// with a leading '-' where lo < 0; a '+', a space, a fraction or an overflow is a usage error.
inline long long parse_int(const std::string& opt, const std::string& s, long long lo,
                           long long hi) {
  size_t pos = 0;
  long long v = 0;
  const size_t digit = lo < 0 && !s.empty() && s[0] == '-' ? 1 : 0;
  if (digit < s.size() && std::isdigit(static_cast<unsigned char>(s[digit]))) {
    try {
      v = std::stoll(s, &pos, 0);
    } catch (...) {
      pos = 0;
    }
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
  if (s.empty() || std::isspace(static_cast<unsigned char>(s[0])) || *end ||
      !(v >= lo && v <= hi)) {
    char range[64];
    std::snprintf(range, sizeof range, "%g to %g", lo, hi);
    throw Usage("--" + opt + " '" + s + "' must be a number from " + range);
  }
  return v;
}

// Checks the input file `path` given through option --opt (a regular file, readable) and returns
// its size; a usage error naming the option and the file otherwise.
inline uint64_t input_file_bytes(const std::string& opt, const std::string& path) {
  uint64_t bytes = 0;
  const std::string why = input_file_problem(path, &bytes);
  if (!why.empty())
    throw Usage("--" + opt + ": " + path + " " + why + "; give a readable regular file");
  return bytes;
}

// The exit status of a tool whose body threw; call it from a `catch (...)` handler. A bad
// argument (Usage, a TopologyError or CompileError from the library, std::invalid_argument from a
// parser) goes to `usage`, which prints it with the usage and returns 2; Refused prints
// "<tool>: ..." alone and returns 2; anything else prints "<tool>: error: ..." and returns 1.
// Messages are passed through printable().
template <class UsageFn>
int exit_status(const char* tool, UsageFn&& usage) {
  try {
    throw;
  } catch (const Refused& e) {
    std::fprintf(stderr, "%s: %s\n", tool, printable(e.what()).c_str());
    return 2;
  } catch (const Usage& e) {
    return usage(printable(e.what()).c_str());
  } catch (const TopologyError& e) {
    return usage(printable(e.what()).c_str());
  } catch (const CompileError& e) {
    return usage(printable(e.what()).c_str());
  } catch (const std::invalid_argument& e) {
    return usage(printable(e.what()).c_str());
  } catch (const std::exception& e) {
    std::fprintf(stderr, "%s: error: %s\n", tool, printable(e.what()).c_str());
    return 1;
  }
}

}  // namespace xf::cli
