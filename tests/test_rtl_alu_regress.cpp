// RTL_TOP: xf_reduce_alu
// RTL_SRCS: rtl/xf_defs_pkg.sv rtl/xf_delay.sv rtl/xf_int_lane.sv rtl/xf_fp_add.sv
// RTL_SRCS: rtl/xf_fp_mul.sv rtl/xf_fp_maxmin.sv rtl/xf_reduce_alu.sv
// Long regression of the RTL reduction ALU (rtl/xf_reduce_alu.sv) against xf::alu_reduce, run by
// `make regress-alu`, not by `make test`: every test here is DISABLED_ (ctest lists them as not
// run); the Makefile target runs this binary with --gtest_also_run_disabled_tests. It reuses the
// benches and generators of tests/test_rtl_alu.cpp (included below with XF_ALU_REGRESS defined,
// which leaves out that file's own tests).
//
// Space covered (one configuration per run, one flit per cycle, every output checked bit for bit
// with its valid, err and tag; fields the op does not use are random from the seed):
//  - DISABLED_AllPairs16: for each of the 14 16-bit configurations (fp16 and bf16 Sum, Max, Min;
//    int16 Sum wrap, Sum sat, Max, Min, Avg shift 0; Avg shift 1 scale 4/3, shift 4 scale 0.5,
//    shift 15 scale 2 - 2^-31): all 2^32 ordered (a, b) pairs, 2^29 flits of 8 lanes;
//  - DISABLED_Set4096: the same 14 configurations, every value against the whole documented 4096
//    set of tests/test_rtl_alu.cpp (make test sweeps a subset of it), 2^25 flits each;
//  - DISABLED_Fp32Random: 2.5 * 10^6 flits = 10^7 random fp32 lane pairs for each of Sum, Max, Min.
// Measured speed (2-core machine, one core, XF_REGRESS_B=0:256 slices of fp16/bf16 Sum and int16
// Avg): 0.47-0.49 Mflit/s, so ~19 min per 16-bit configuration for all pairs (~4.3 h for the
// 14), ~70 s per configuration for the 4096 set (~16 min), ~9 s per fp32 op; ~4.6 h in one
// process. `make regress-alu` (scripts/regress_alu.py) runs it as 239 slices, JOBS at a time,
// resumable from its results file: ~2.4 h at JOBS=2 on two idle cores (docs/alu.md section 8).
// Each test prints its estimate at its start and a progress line (rate, ETA) every 30 s.
//
// Environment: XF_SEED (the seed; only the unused configuration fields and the fp32 values depend
// on it), XF_REGRESS_B=first:count restricts the all-pairs sweeps to b values first ..
// first+count-1 (a slice, e.g. to measure the speed or to reproduce a failure quickly),
// XF_REGRESS_OP selects the 16-bit configurations: '=<name>' exactly the one so named (what the
// driver and the reproduce commands use), any other text those whose name contains it (e.g.
// "bf16", "int16 avg"); selecting none fails. DISABLED_Configs lists the names. A mismatch prints
// the command reproducing it.
#define XF_ALU_REGRESS
// Some of its helpers serve only its own tests, left out here.
#pragma GCC diagnostic ignored "-Wunused-function"
#pragma GCC diagnostic ignored "-Wunused-variable"
#include "test_rtl_alu.cpp"  // NOLINT(bugprone-suspicious-include): shares its benches

namespace xf {
namespace {

constexpr double kMeasuredFlitsPerSecond = 0.47e6;  // see the header comment

std::string env_str(const char* name) {
  const char* s = std::getenv(name);
  return s != nullptr ? s : "";
}

// XF_REGRESS_OP: empty selects every configuration, "=<name>" the one named so exactly, any
// other text those whose name contains it.
bool op_selected(const Sweep16& s) {
  const std::string want = env_str("XF_REGRESS_OP");
  if (!want.empty() && want[0] == '=') return s.name() == want.substr(1);
  return want.empty() || s.name().find(want) != std::string::npos;
}

// How many configurations XF_REGRESS_OP selects; none is an error naming them all.
uint64_t selected_count() {
  uint64_t n = 0;
  std::string names;
  for (const Sweep16& s : kSweeps16) {
    n += op_selected(s) ? 1 : 0;
    names += "\n  " + s.name();
  }
  EXPECT_GT(n, 0u) << "XF_REGRESS_OP='" << env_str("XF_REGRESS_OP")
                   << "' selects no configuration; the names (\"=<name>\" for exactly one):"
                   << names;
  return n;
}

std::string regress_repro(const std::string& extra) {
  std::string r = "XF_SEED=" + std::to_string(kFile.seed()) + " " + extra +
                  "build/cmake/test_rtl_alu_regress --gtest_also_run_disabled_tests "
                  "--gtest_filter=" +
                  test_name();
  return r;
}

void print_estimate(uint64_t flits) {
  std::printf("[ ESTIMATE ] %s: %" PRIu64 " flits, ~%.1f min at %.2f Mflit/s\n",
              test_name().c_str(), flits, flits / kMeasuredFlitsPerSecond / 60.0,
              kMeasuredFlitsPerSecond / 1e6);
  std::fflush(stdout);
}

// The configurations' names, one "[   CONFIG ] <name>" line each (scripts/regress_alu.py reads
// them to slice the run); each name must select exactly itself with XF_REGRESS_OP='=<name>'.
TEST(RtlAluRegress, DISABLED_Configs) {
  for (const Sweep16& s : kSweeps16) {
    int same = 0;
    for (const Sweep16& o : kSweeps16) same += o.name() == s.name() ? 1 : 0;
    EXPECT_EQ(same, 1) << "two configurations named '" << s.name() << "'";
    std::printf("[   CONFIG ] %s\n", s.name().c_str());
  }
}

TEST(RtlAluRegress, DISABLED_AllPairs16) {
  Rng rng = kFile.rng();
  uint32_t first = 0, count = 65536;
  const std::string slice = env_str("XF_REGRESS_B");
  if (!slice.empty()) {
    char* end = nullptr;
    const uint64_t f = std::strtoull(slice.c_str(), &end, 0);
    uint64_t c = 1;
    if (*end == ':') c = std::strtoull(end + 1, &end, 0);
    ASSERT_TRUE(*end == '\0' && c >= 1 && f + c <= 65536)
        << "XF_REGRESS_B=" << slice << ": write first:count (count >= 1, first + count <= 65536)";
    first = static_cast<uint32_t>(f);
    count = static_cast<uint32_t>(c);
  }
  std::vector<uint16_t> bs;
  for (uint32_t v = first; v < first + count; ++v) bs.push_back(static_cast<uint16_t>(v));
  const uint64_t n = selected_count();
  if (n == 0) return;
  print_estimate(n * bs.size() * 8192);
  const auto t0 = std::chrono::steady_clock::now();
  uint64_t total = 0;
  for (const Sweep16& s : kSweeps16) {
    AluCfg cfg = s.cfg(rng);  // drawn for every configuration, so the seed means the same
    if (!op_selected(s)) continue;
    const std::string extra = "XF_REGRESS_OP='=" + s.name() +
                              "' XF_REGRESS_B=" + std::to_string(first) + ":" +
                              std::to_string(count) + " ";
    total += sweep16(cfg, bs, s.name() + " all pairs", false, regress_repro(extra), true);
  }
  const double el = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  std::printf("[  VECTORS ] %s: %" PRIu64 " lane pairs in %.0f s (%.2f Mflit/s)\n",
              test_name().c_str(), total, el, total / 8.0 / el / 1e6);
}

TEST(RtlAluRegress, DISABLED_Set4096) {
  Rng rng = kFile.rng();
  const uint64_t n = selected_count();
  if (n == 0) return;
  print_estimate(n * 4096 * 8192);
  uint64_t total = 0;
  for (const Sweep16& s : kSweeps16) {
    AluCfg cfg = s.cfg(rng);
    if (!op_selected(s)) continue;
    const std::string extra = "XF_REGRESS_OP='=" + s.name() + "' ";
    total += sweep16(cfg, set16(s.t), s.name() + " vs 4096 set", true, regress_repro(extra), true);
  }
  std::printf("[  VECTORS ] %s: %" PRIu64 " lane pairs\n", test_name().c_str(), total);
}

TEST(RtlAluRegress, DISABLED_Fp32Random) {
  constexpr uint64_t kFlits = 2500000;  // 10^7 lane pairs per op
  Rng rng = kFile.rng();
  print_estimate(3 * kFlits);
  uint64_t total = 0;
  for (RedOp op : {RedOp::kSum, RedOp::kMax, RedOp::kMin}) {
    total += fp32_random(rng, op, kFlits, regress_repro(""), true);
  }
  std::printf("[  VECTORS ] %s: %" PRIu64 " lane pairs\n", test_name().c_str(), total);
}

}  // namespace
}  // namespace xf
