// Verilator coverage counts gathered over one process (make coverage, docs/cosim.md section 5).
//
// A Verilated model's coverage points live in its context and point at counters inside the
// model, so they must be read while the model is alive: whoever owns models calls
// coverage_flush(ctx) before destroying them (RtlSystem's and the test kit's Dut's destructors
// do). The flush writes the context's points (Verilator's own writer: the .dat format stays
// Verilator's), adds their counts to a process-wide table keyed by the point's text and clears
// the context's list; at exit the table is written to $XF_COVERAGE_DAT (default coverage.dat),
// one file per process for verilator_coverage to merge. Verilator keeps no table across
// contexts, and a process of block tests builds hundreds of them: one file each would be
// gigabytes. Without VM_COVERAGE, coverage_flush does nothing.
#pragma once

#include <verilated.h>

#if VM_COVERAGE
#include <unistd.h>
#include <verilated_cov.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <map>
#include <string>
#endif

namespace xf::rtl {

#if VM_COVERAGE
class CoverageTable {
 public:
  static CoverageTable& get() {
    static CoverageTable table;
    return table;
  }
  void add(VerilatedContext& ctx) {
    const std::string tmp = out_ + ".part." + std::to_string(::getpid());
    ctx.coveragep()->write(tmp.c_str());
    ctx.coveragep()->clear();  // its models are going: no point may outlive them
    std::ifstream in(tmp, std::ios::binary);
    std::string line;
    while (std::getline(in, line)) {
      // C '<key>' <count>
      const size_t q = line.rfind("' ");
      if (line.rfind("C '", 0) != 0 || q == std::string::npos) {
        if (head_.empty() && line.rfind('#', 0) == 0) head_ = line;
        continue;
      }
      counts_[line.substr(0, q + 1)] += std::strtoull(line.c_str() + q + 2, nullptr, 10);
    }
    std::remove(tmp.c_str());
  }
  ~CoverageTable() {
    if (counts_.empty()) return;
    std::ofstream out(out_, std::ios::binary);
    out << (head_.empty() ? "# SystemC::Coverage-3" : head_) << '\n';
    for (const auto& [key, n] : counts_) out << key << ' ' << n << '\n';
  }

 private:
  CoverageTable() {
    const char* p = std::getenv("XF_COVERAGE_DAT");
    out_ = p != nullptr ? p : "coverage.dat";
  }
  std::string out_, head_;
  std::map<std::string, unsigned long long> counts_;
};

inline void coverage_flush(VerilatedContext& ctx) { CoverageTable::get().add(ctx); }
#else
inline void coverage_flush(VerilatedContext&) {}
#endif

}  // namespace xf::rtl
