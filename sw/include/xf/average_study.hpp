// The averaging study (`fabric average-study`, docs/averaging.md section 6; the averaging patent,
// docs/sources.md): how far three ways of averaging N low-bit integers land from the exact mean
// S/N, and how wide their intermediates must be.
//
//   pairwise          the averaging patent's method as the hardware computes it: the butterfly
//                     of pairwise averages with virtual chips (value 0) and, when N is not a power
//                     of two, the final Q1.31 scale (docs/averaging.md sections 1-2), every step by
//                     xf::alu_reduce with RedOp::kAvg. The result is a value of the type.
//   divide-then-sum   sum of floor(x_i / N): no value ever exceeds the type before the sum, but
//                     the low bits are lost (the patent's "related art").
//   sum-then-divide   floor(S / N) with S exact in a wide accumulator.
//
// Error of a result r: |r - S/N| as a real number (S exact in int64), in LSB of the type.
// Inputs per (dtype, N): K uniform random trials over the full range of the type plus four
// structured ones (all max, all min, alternating max/min, and every value = -1 mod N, the worst
// case of divide-then-sum). Max error is over all trials, mean error over the random ones.
// The random values of (dtype, N) depend only on the seed, the dtype and N, not on the range
// of N asked for.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "xf/defs.hpp"

namespace xf {

namespace avg_study {

enum Method { kPairwise = 0, kDivideThenSum = 1, kSumThenDivide = 2, kNumMethods = 3 };
const char* method_name(Method m);

// Values of one dtype (int8 or uint8) as int64.
int64_t type_min(DType d);
int64_t type_max(DType d);

// floor(a / b) for b > 0.
int64_t floor_div(int64_t a, int64_t b);

// Levels of the butterfly, p = ceil(log2 n), and the final scale floor(2^(31+p) / n) as
// Builder::avg computes it (Plan::avg_scale).
int avg_levels(int n);
uint32_t avg_scale(int n);

// Pairwise averaging (the averaging patent) on many trials at once: x holds n chips' values for
// k trials, chip c's value of trial t at x[c * k + t] (bytes of the type). Returns the k results
// (every chip ends with the same value). The butterfly runs per aligned block of chips (all real
// chips of a block hold the same value, docs/averaging.md section 2), one xf::alu_reduce call of k
// elements per block and round; a block with no real chip is the zero buffer.
std::vector<uint8_t> pairwise_average(DType d, int n, int k, const std::vector<uint8_t>& x);
// The other two methods on one trial (values as int64). divide_then_sum returns the exact sum of
// the floored quotients, which for int8 can leave the type's range (see method_widths).
int64_t divide_then_sum(const std::vector<int64_t>& x);
int64_t sum_then_divide(const std::vector<int64_t>& x);

// Bits needed to hold every value of [lo, hi]: unsigned when lo >= 0, two's complement
// otherwise.
int bits_for_range(int64_t lo, int64_t hi);

// Widest intermediate of each method, derived from the ranges of its values (n = type bits):
//   pw_add   the pairwise adder a + b of two values of the type: n + 1
//   pw_mul   the final scale x * avg_scale(N) when N is not a power of two (0 otherwise), x the
//            last level's average, bounded by its values for all-min and all-max inputs (floor
//            averages are monotone): n + 31, but n + 32 for int8 when N > 128 is not a
//            multiple of 2^(p-7) (all -128 floors below -128 N / 2^p, and the scaled value to
//            -129, which the ALU clamps)
//   dts      divide-then-sum: the quotients and the running sum of N of them, in
//            [N floor(min/N), N floor(max/N)]: n for uint8; for int8 n when N divides 128,
//            otherwise more (floor rounds the negative quotients down: all -128 with N = 3
//            sums to -129, all -1 with N = 512 to -512)
//   std      sum-then-divide: S in [N min, N max], n + ceil(log2 N) (one less for uint8 with
//            N = 257: 255 * 257 = 2^16 - 1)
struct Widths {
  int pw_add = 0, pw_mul = 0, dts = 0, std = 0;
};
Widths method_widths(DType d, int n);

// Result of one (dtype, N).
struct Row {
  DType dtype = DType::kInt8;
  int n = 0;
  int trials = 0;  // random + structured
  double max_err[kNumMethods] = {};
  double mean_err[kNumMethods] = {};  // over the random trials
  Widths widths;
};

// Number of structured trials added to the k random ones.
inline constexpr int kStructuredTrials = 4;
// Trial inputs for (d, n): k random trials and the structured ones after them, laid out as
// pairwise_average takes them.
std::vector<uint8_t> make_trials(DType d, int n, int k, uint64_t seed);
Row study_row(DType d, int n, int k, uint64_t seed);

// Default trials per N: the full default run (2 dtypes, N = 2..512) takes about 6 s on the
// development machine (docs/averaging.md section 6).
inline constexpr int kDefaultTrials = 2000;

// What `fabric average-study` studies and writes (its options: sw/tools/average_study_cli.cpp).
struct StudyOptions {
  std::vector<DType> dtypes{DType::kInt8, DType::kUint8};
  int min_chips = 2, max_chips = 512, trials = kDefaultTrials;
  uint64_t seed = 1;
  std::string csv, png;  // files to write ("" none); --png draws the CSV's curves
  bool all_rows = false, header = true;
};

// The study: the table on stdout, then the CSV and the plot. Returns 0; throws
// std::runtime_error when a file cannot be written or the plot fails (e.g. --png without
// python3/matplotlib).
int run_study(const StudyOptions& o);

}  // namespace avg_study
}  // namespace xf
