// The averaging study (xf/average_study.hpp, `fabric average-study`).
//
// Space covered: the study's scalar butterfly against run_reference of the real avg plan
// (plan_collective, Algo::kAvg, every chip's output) for int8/uint8 and N in {2, 3, 4, 5, 6, 7,
// 8, 12, 33, 100, 255, 256, 257, 512}, on random, structured and every-equal-value inputs; every
// method exact when all values are equal (every value of both types, N = 2..70 and a few large
// N); sum-then-divide error below 1 and divide-then-sum error at most N-1 and reaching it
// (the structured worst case), for every N = 2..512; the documented pairwise worst case; the
// widths the study claims, checked against every intermediate value of the three methods on
// extreme and random inputs (sufficient) and reached by an extreme input (tight); option errors
// (status 2 and the message) and a small run with --csv, and --png when matplotlib is there.
// Seed: XF_SEED (default 1), printed.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <string>
#include <vector>

#include "subcommands.hpp"
#include "xf/average_study.hpp"
#include "xf/compiler.hpp"
#include "xf/reference.hpp"
#include "xf/topology.hpp"

using namespace xf;
using namespace xf::avg_study;

namespace {

uint64_t seed() {
  const char* s = std::getenv("XF_SEED");
  static const uint64_t v = s ? std::strtoull(s, nullptr, 0) : 1;
  static bool printed = false;
  if (!printed) std::printf("XF_SEED=%llu\n", static_cast<unsigned long long>(v));
  printed = true;
  return v;
}

const DType kTypes[] = {DType::kInt8, DType::kUint8};

int64_t val(DType d, uint8_t b) { return d == DType::kInt8 ? static_cast<int8_t>(b) : b; }

// Runs the real avg plan (allreduce on ring:N, one element per trial) on the plain reference.
// Returns every chip's output.
std::vector<Bytes> reference_avg(DType d, int n, int k, const std::vector<uint8_t>& x) {
  const Topology topo = parse_topology("ring:" + std::to_string(n));
  CollectiveSpec s;
  s.dtype = d;
  s.op = RedOp::kAvg;
  s.algo = Algo::kAvg;
  s.bytes = static_cast<uint64_t>(k);
  s.tiles = 2;
  const Plan plan = plan_collective(topo, s);
  EXPECT_EQ(plan.avg_scale, avg_scale(n));
  EXPECT_EQ(plan.avg_levels, avg_levels(n));
  std::vector<Bytes> in(n);
  for (int c = 0; c < n; ++c) in[c].assign(x.begin() + c * k, x.begin() + (c + 1) * k);
  return run_reference(plan, in);
}

// Where a value of width bits lives: unsigned for uint8 quantities, two's complement for int8.
bool fits(int64_t v, int bits, bool is_signed) {
  if (!is_signed) return v >= 0 && v < (int64_t(1) << bits);
  return v >= -(int64_t(1) << (bits - 1)) && v < (int64_t(1) << (bits - 1));
}

}  // namespace

TEST(AverageStudy, ScalarButterflyEqualsReference) {
  for (DType d : kTypes)
    for (int n : {2, 3, 4, 5, 6, 7, 8, 12, 33, 100, 255, 256, 257, 512}) {
      const int k = 40;
      const int kt = k + kStructuredTrials;
      std::vector<uint8_t> x = make_trials(d, n, k, seed() + 7);
      const std::vector<uint8_t> mine = pairwise_average(d, n, kt, x);
      const std::vector<Bytes> ref = reference_avg(d, n, kt, x);
      ASSERT_EQ(ref.size(), static_cast<size_t>(n));
      for (int c = 0; c < n; ++c)
        ASSERT_EQ(Bytes(mine.begin(), mine.end()), ref[c])
            << to_string(d) << " N=" << n << " chip " << c;
    }
}

TEST(AverageStudy, EqualValuesAreExact) {
  // Every value of the type in one trial each, all N chips holding it: every method returns it.
  std::vector<int> ns;
  for (int n = 2; n <= 70; ++n) ns.push_back(n);
  for (int n : {100, 127, 128, 129, 255, 256, 257, 511, 512}) ns.push_back(n);
  int inexact = 0, cases = 0;
  for (DType d : kTypes)
    for (int n : ns) {
      cases += 256;
      const int k = 256;
      std::vector<uint8_t> x(static_cast<size_t>(n) * k);
      for (int c = 0; c < n; ++c)
        for (int t = 0; t < k; ++t) x[c * k + t] = static_cast<uint8_t>(t);
      const std::vector<uint8_t> pw = pairwise_average(d, n, k, x);
      for (int t = 0; t < k; ++t) {
        const int64_t v = val(d, static_cast<uint8_t>(t));
        const std::vector<int64_t> xs(n, v);
        const std::string where =
            std::string(to_string(d)) + " N=" + std::to_string(n) + " v=" + std::to_string(v);
        ASSERT_EQ(sum_then_divide(xs), v) << where;
        // floor(v/N) * N == v only when N divides v: divide-then-sum is exact for equal values
        // exactly then (the method's loss, not a bug).
        ASSERT_EQ(divide_then_sum(xs) == v, v % n == 0) << where;
        // Pairwise is exact for equal values when N is a power of two (every level averages
        // two equal values). Otherwise the virtual chips' zeros enter the floors: N = 3, all 1
        // gives (1 + floor(1/2)) >>> 1 = 0 before the scale, and 0 after it. The error then
        // stays within the bound of docs/averaging.md section 4.
        const int p = avg_levels(n);
        if ((1 << p) == n) {
          ASSERT_EQ(val(d, pw[t]), v) << where;
        } else {
          inexact += val(d, pw[t]) != v;
          ASSERT_LE(std::abs(val(d, pw[t]) - v), p / 2.0 * (1 << p) / n + 1.0) << where;
        }
      }
      // The same through the reference of the real plan, for a few N (it is slower).
      if (n == 3 || n == 7 || n == 12 || n == 100) {
        const std::vector<Bytes> ref = reference_avg(d, n, k, x);
        for (int c = 0; c < n; ++c) ASSERT_EQ(Bytes(pw.begin(), pw.end()), ref[c]);
      }
    }
  std::printf("pairwise on equal values: %d of %d (dtype, N, value) cases inexact\n", inexact,
              cases);
  EXPECT_GT(inexact, 0);  // N = 3, all 1, is one
}

TEST(AverageStudy, ErrorBoundsOverEveryN) {
  // Sum-then-divide: floor(S/N) is within [S/N - (N-1)/N, S/N], error < 1.
  // Divide-then-sum: r - S/N = -sum_i (x_i mod N)/N, each term < 1, so error <= N-1 (uint8
  // values are below 256, so for N > 256 the error is the mean itself, at most 255); the
  // structured trial with every value = -1 (mod N) (int8: -1; uint8: the largest value = N-1
  // mod N) reaches it. Pairwise: within the bound of docs/averaging.md section 4.
  for (DType d : kTypes)
    for (int n = 2; n <= 512; ++n) {
      const Row r = study_row(d, n, 16, seed());
      ASSERT_LT(r.max_err[kSumThenDivide], 1.0) << to_string(d) << " N=" << n;
      ASSERT_LE(r.mean_err[kSumThenDivide], r.max_err[kSumThenDivide]);
      const double dts_worst = d == DType::kUint8 && n > 256 ? 255.0 : n - 1.0;
      ASSERT_DOUBLE_EQ(r.max_err[kDivideThenSum], dts_worst) << to_string(d) << " N=" << n;
      const int p = avg_levels(n);
      const double bound = (1 << p) == n ? p / 2.0 : p / 2.0 * (1 << p) / n + 1.0 + 1e-6;
      ASSERT_LE(r.max_err[kPairwise], bound) << to_string(d) << " N=" << n;
      ASSERT_EQ(r.trials, 16 + kStructuredTrials);
    }
  // The attained pairwise bound of docs/averaging.md section 4: P = 8, 7 2 0 3 6 5 7 6 gives 3
  // against 4.5.
  const std::vector<uint8_t> x = {7, 2, 0, 3, 6, 5, 7, 6};
  EXPECT_EQ(pairwise_average(DType::kUint8, 8, 1, x)[0], 3);
}

TEST(AverageStudy, WidthsAreSufficientAndTight) {
  EXPECT_EQ(bits_for_range(0, 255), 8);
  EXPECT_EQ(bits_for_range(0, 256), 9);
  EXPECT_EQ(bits_for_range(-128, 127), 8);
  EXPECT_EQ(bits_for_range(-129, 127), 9);
  EXPECT_EQ(bits_for_range(-128, 128), 9);
  int clamped = 0;
  for (DType d : kTypes) {
    const bool sgn = d == DType::kInt8;
    for (int n = 2; n <= 512; ++n) {
      const Widths w = method_widths(d, n);
      const int p = avg_levels(n);
      const std::string where = std::string(to_string(d)) + " N=" + std::to_string(n);
      // The closed forms of the header.
      ASSERT_EQ(w.pw_add, 9) << where;
      ASSERT_EQ(w.pw_mul == 0, (1 << p) == n) << where;
      // n + 31 (x * scale is about the mean times 2^31), except int8 when all -128 does not
      // average exactly: N > 128 not a multiple of 2^(p-7), a real chip halved p times
      // floors below -128 N / 2^p (ClampActsAtTheBottom).
      const bool int8_floors = sgn && p > 7 && n % (1 << (p - 7)) != 0;
      if (w.pw_mul) {
        ASSERT_EQ(w.pw_mul, int8_floors ? 40 : 39) << where;
      }
      ASSERT_EQ(w.std, 8 + p - (!sgn && n == 257 ? 1 : 0)) << where;
      if (!sgn || 128 % n == 0) {
        ASSERT_EQ(w.dts, 8) << where;
      } else {
        ASSERT_EQ(w.dts, n <= 256 ? 9 : 10) << where;
      }

      // Every intermediate of every method on the structured and random trials.
      const int k = 8, kt = k + kStructuredTrials;
      const std::vector<uint8_t> x = make_trials(d, n, k, seed());
      int64_t add_lo = 0, add_hi = 0, mul_lo = 0, mul_hi = 0, dts_lo = 0, dts_hi = 0, std_lo = 0,
              std_hi = 0;
      const uint32_t scale = avg_scale(n);
      const std::vector<uint8_t> pw = pairwise_average(d, n, kt, x);
      for (int t = 0; t < kt; ++t) {
        std::vector<int64_t> v(n);
        for (int c = 0; c < n; ++c) v[c] = val(d, x[static_cast<size_t>(c) * kt + t]);
        // Divide-then-sum and sum-then-divide, running sums.
        int64_t s = 0, q = 0;
        for (int c = 0; c < n; ++c) {
          s += v[c];
          q += floor_div(v[c], n);
          std_lo = std::min(std_lo, s), std_hi = std::max(std_hi, s);
          dts_lo = std::min(dts_lo, q), dts_hi = std::max(dts_hi, q);
        }
        ASSERT_EQ(q, divide_then_sum(v));
        // Pairwise, walking the same butterfly as pairwise_average on scalars.
        for (int r = 0; r < p; ++r) {
          const bool fin = r == p - 1 && (1 << p) != n;
          std::vector<int64_t> nx((v.size() + 1) / 2);
          for (size_t j = 0; j < nx.size(); ++j) {
            const int64_t a = v[2 * j], b = 2 * j + 1 < v.size() ? v[2 * j + 1] : 0;
            add_lo = std::min(add_lo, a + b), add_hi = std::max(add_hi, a + b);
            int64_t y = floor_div(a + b, 2);
            if (fin) {
              const int64_t prod = y * static_cast<int64_t>(scale);
              mul_lo = std::min(mul_lo, prod), mul_hi = std::max(mul_hi, prod);
              y = floor_div(prod, int64_t(1) << 31);
              // The floors only lower the value, so the clamp never acts at the top; at the
              // bottom it does for consistent inputs (ClampActsAtTheBottom).
              ASSERT_LE(y, type_max(d)) << where;
              if (y < type_min(d)) {
                ++clamped;
                y = type_min(d);
              }
            }
            nx[j] = y;
          }
          v = nx;
        }
        ASSERT_EQ(v[0], val(d, pw[t])) << where;
      }
      // Sufficient: every value seen fits; tight: the extremes seen need the full width.
      ASSERT_EQ(bits_for_range(add_lo, add_hi), w.pw_add) << where;
      ASSERT_EQ(bits_for_range(std_lo, std_hi), w.std) << where;
      ASSERT_EQ(std::max(8, bits_for_range(dts_lo, dts_hi)), w.dts) << where;
      if (w.pw_mul) {
        ASSERT_EQ(bits_for_range(mul_lo, mul_hi), w.pw_mul) << where;
      }
      for (int64_t e : {add_lo, add_hi}) ASSERT_TRUE(fits(e, w.pw_add, sgn)) << where;
      for (int64_t e : {std_lo, std_hi}) ASSERT_TRUE(fits(e, w.std, sgn)) << where;
      for (int64_t e : {dts_lo, dts_hi}) ASSERT_TRUE(fits(e, w.dts, sgn)) << where;
    }
  }
  std::printf("final scale below the type's minimum (clamped) in %d trials\n", clamped);
  // The RTL's lane (rtl/xf_int_lane.sv) holds the sum in W+2 bits and the product in W+33: one
  // bit above what the study needs, because it extends int8 and uint8 alike to a signed format.
}

namespace {

// Runs average_study_main, returning the status and what it printed on stderr.
int run_main(const std::vector<std::string>& args, std::string* err, std::string* out = nullptr) {
  testing::internal::CaptureStderr();
  testing::internal::CaptureStdout();
  const int rc = average_study_main(args);
  const std::string o = testing::internal::GetCapturedStdout();
  *err = testing::internal::GetCapturedStderr();
  if (out) *out = o;
  return rc;
}

}  // namespace

TEST(AverageStudy, OptionErrors) {
  struct Case {
    std::vector<std::string> args;
    std::string says;
  };
  const Case cases[] = {
      {{"--trials", "0"}, "--trials '0' must be a whole number from 1"},
      {{"--trials", "many"}, "--trials 'many' must be a whole number"},
      {{"--min-chips", "1"}, "--min-chips '1' must be a whole number from 2"},
      {{"--max-chips", "5000"}, "--max-chips '5000' must be a whole number from 2 to 4096"},
      {{"--min-chips", "10", "--max-chips", "5"}, "--min-chips 10 is above --max-chips 5"},
      {{"--dtypes", "int16"}, "'int16' is not studied; use int8, uint8 or int8,uint8"},
      {{"--dtypes", ""}, "--dtypes is empty"},
      {{"--bogus"}, "unknown option --bogus"},
      {{"512"}, "unexpected argument '512'"},
      {{"--csv"}, "--csv needs a file name"},
      {{"--no-header=1"}, "--no-header takes no value"},
      {{"--seed", "-1"}, "--seed '-1' must be a whole number from 0"},
  };
  for (const Case& c : cases) {
    std::string err;
    EXPECT_EQ(run_main(c.args, &err), 2) << c.says;
    EXPECT_NE(err.find(c.says), std::string::npos) << err;
    EXPECT_NE(err.find("usage: fabric average-study"), std::string::npos) << err;
  }
  std::string err;
  EXPECT_EQ(run_main({"--help"}, &err), 0);
  EXPECT_NE(err.find("usage: fabric average-study"), std::string::npos);
}

TEST(AverageStudy, SmallRunWritesCsv) {
  char dir[] = "/tmp/avg_study_test_XXXXXX";
  ASSERT_NE(mkdtemp(dir), nullptr);
  const std::string csv = std::string(dir) + "/s.csv";
  std::string err, out;
  ASSERT_EQ(run_main({"--dtypes=uint8", "--min-chips", "2", "--max-chips", "4", "--trials", "10",
                      "--seed", std::to_string(seed()), "--csv", csv},
                     &err, &out),
            0)
      << err;
  EXPECT_NE(out.find("uint8    3 |"), std::string::npos) << out;
  EXPECT_NE(out.find("seed " + std::to_string(seed())), std::string::npos) << out;
  std::ifstream f(csv);
  std::string line;
  int lines = 0;
  while (std::getline(f, line)) ++lines;
  EXPECT_EQ(lines, 4);  // header + N = 2, 3, 4
  ASSERT_EQ(
      run_main({"--dtypes=int8", "--max-chips", "3", "--trials", "5", "--no-header"}, &err, &out),
      0);
  EXPECT_EQ(out.find("max_err"), std::string::npos) << out;

  // --png: the plot script (found next to the executable or in the source tree); a missing
  // script is an error with status 1.
  setenv("XF_AVERAGE_STUDY_PLOT", "/nonexistent/plot_average_study.py", 1);
  EXPECT_EQ(
      run_main({"--max-chips", "3", "--trials", "5", "--png", std::string(dir) + "/a.png"}, &err),
      1);
  EXPECT_NE(err.find("fabric average-study: error: --png"), std::string::npos) << err;
  unsetenv("XF_AVERAGE_STUDY_PLOT");
  // A python without matplotlib: status 1 and the message names the package and setup.sh.
  setenv("XF_PYTHON", "/nonexistent/python3", 1);
  EXPECT_EQ(
      run_main({"--max-chips", "3", "--trials", "5", "--png", std::string(dir) + "/a.png"}, &err),
      1);
  EXPECT_NE(err.find("scripts/setup.sh"), std::string::npos) << err;
  unsetenv("XF_PYTHON");
  // The interpreter average_study uses when XF_PYTHON is unset: /usr/bin/python3 first.
  if (std::system("/usr/bin/python3 -c 'import matplotlib' 2>/dev/null") == 0) {
    const std::string png = std::string(dir) + "/b.png";
    EXPECT_EQ(run_main({"--max-chips", "9", "--trials", "5", "--png", png}, &err), 0) << err;
    EXPECT_EQ(access(png.c_str(), R_OK), 0);
    std::remove(png.c_str());
  } else {
    std::printf("python3 with matplotlib missing: --png not run (scripts/setup.sh)\n");
  }
  std::remove(csv.c_str());
  rmdir(dir);
}

TEST(AverageStudy, ClampActsAtTheBottom) {
  // int8, N = 129, all -128 (exact mean -128): chips 0..127 average to -128, chip 128 is halved
  // seven times to -1, the last level gives floor((-128 - 1) / 2) = -65, and the final scale
  // -65 * floor(2^39 / 129) / 2^31 = -128.99 floors to -129: the clamp to -128 is what makes the
  // result exact. (docs/alu.md says the clamp acts only for inconsistent inputs; it also acts
  // here.) The product needs 40 bits, n + 32.
  const int n = 129;
  const std::vector<uint8_t> x(n, 0x80);
  EXPECT_EQ(static_cast<int8_t>(pairwise_average(DType::kInt8, n, 1, x)[0]), -128);
  const int64_t prod = -65 * static_cast<int64_t>(avg_scale(n));
  EXPECT_EQ(floor_div(prod, int64_t(1) << 31), -129);
  EXPECT_EQ(bits_for_range(prod, 0), 40);
  EXPECT_EQ(method_widths(DType::kInt8, n).pw_mul, 40);
  // The same on the reference of the real plan.
  const std::vector<Bytes> ref = reference_avg(DType::kInt8, n, 1, x);
  for (const Bytes& b : ref) EXPECT_EQ(static_cast<int8_t>(b[0]), -128);
}
