// The averaging study (see xf/average_study.hpp and docs/averaging.md section 6).
#include "xf/average_study.hpp"

#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <random>
#include <set>
#include <sstream>

#include "xf/alu.hpp"

extern char** environ;

namespace xf {
namespace avg_study {

const char* method_name(Method m) {
  switch (m) {
    case kPairwise:
      return "pairwise";
    case kDivideThenSum:
      return "divide-then-sum";
    case kSumThenDivide:
      return "sum-then-divide";
    case kNumMethods:
      break;
  }
  return "?";
}

int64_t type_min(DType d) { return d == DType::kInt8 ? -128 : 0; }
int64_t type_max(DType d) { return d == DType::kInt8 ? 127 : 255; }

int64_t floor_div(int64_t a, int64_t b) {
  const int64_t q = a / b;
  return (a % b != 0 && a < 0) ? q - 1 : q;
}

int avg_levels(int n) {
  int p = 0;
  while ((1 << p) < n) ++p;
  return p;
}

uint32_t avg_scale(int n) {
  return static_cast<uint32_t>((uint64_t(1) << (kAvgScaleFracBits + avg_levels(n))) / n);
}

namespace {

int64_t value(DType d, uint8_t b) {
  return d == DType::kInt8 ? static_cast<int64_t>(static_cast<int8_t>(b)) : b;
}

}  // namespace

std::vector<uint8_t> pairwise_average(DType d, int n, int k, const std::vector<uint8_t>& x) {
  const size_t K = static_cast<size_t>(k);
  std::vector<uint8_t> v(x.begin(), x.begin() + static_cast<ptrdiff_t>(K * n));
  const std::vector<uint8_t> zero(K, 0);
  const int p = avg_levels(n);
  AluCfg cfg;
  cfg.dtype = d;
  cfg.op = RedOp::kAvg;
  cfg.avg_scale = avg_scale(n);
  // Before round r, v holds one value per aligned block of 2^r chips that has a real chip
  // (blocks 0..nb-1, nb = ceil(n / 2^r)). Round r averages blocks 2j and 2j+1; chips of block
  // 2j compute avg(own, partner's), those of block 2j+1 avg(partner's, own), the same integer.
  // Block 2j+1 has no real chip when 2j+1 >= nb: every chip of block 2j halves (averages with
  // the zero buffer), the seed's rule for the node without a partner.
  int nb = n;
  for (int r = 0; r < p; ++r) {
    cfg.avg_final = r == p - 1 && (1 << p) != n;
    const int nb_next = (nb + 1) / 2;
    for (int j = 0; j < nb_next; ++j) {
      uint8_t* a = &v[2 * j * K];
      const uint8_t* b = 2 * j + 1 < nb ? &v[(2 * j + 1) * K] : zero.data();
      alu_reduce(cfg, a, b, K);
      if (j > 0) std::memcpy(&v[j * K], a, K);
    }
    nb = nb_next;
  }
  v.resize(K);
  return v;
}

int64_t divide_then_sum(const std::vector<int64_t>& x) {
  const int64_t n = static_cast<int64_t>(x.size());
  int64_t s = 0;
  for (int64_t xi : x) s += floor_div(xi, n);
  return s;
}

int64_t sum_then_divide(const std::vector<int64_t>& x) {
  int64_t s = 0;
  for (int64_t xi : x) s += xi;
  return floor_div(s, static_cast<int64_t>(x.size()));
}

int bits_for_range(int64_t lo, int64_t hi) {
  int w = 1;
  if (lo >= 0) {
    while (w < 63 && (hi >> w) != 0) ++w;
    return w;
  }
  // Two's complement w bits: [-2^(w-1), 2^(w-1) - 1].
  while (w < 64 && (lo < -(int64_t(1) << (w - 1)) || hi > (int64_t(1) << (w - 1)) - 1)) ++w;
  return w;
}

namespace {

// The butterfly's last-level average before the final scale when every input is v, on scalars
// (virtual chips hold 0). Floor averages are monotone in every input, so v = min and v = max
// bound the value the final scale ever multiplies.
int64_t last_level(int n, int64_t v) {
  std::vector<int64_t> b(n, v);
  while (b.size() > 1) {
    std::vector<int64_t> nb((b.size() + 1) / 2);
    for (size_t j = 0; j < nb.size(); ++j)
      nb[j] = floor_div(b[2 * j] + (2 * j + 1 < b.size() ? b[2 * j + 1] : 0), 2);
    b = nb;
  }
  return b[0];
}

}  // namespace

Widths method_widths(DType d, int n) {
  const int64_t lo = type_min(d), hi = type_max(d), N = n;
  Widths w;
  w.pw_add = bits_for_range(2 * lo, 2 * hi);
  if ((1 << avg_levels(n)) != n) {
    const int64_t s = avg_scale(n);
    w.pw_mul = bits_for_range(last_level(n, lo) * s, last_level(n, hi) * s);
  }
  // The quotients lie in [floor(lo/N), floor(hi/N)] (within the type), and the running sum of
  // up to N of them between N times those (the quotients' signs are fixed: lo <= 0 <= hi).
  w.dts =
      std::max(bits_for_range(lo, hi), bits_for_range(N * floor_div(lo, N), N * floor_div(hi, N)));
  w.std = bits_for_range(N * lo, N * hi);
  return w;
}

std::vector<uint8_t> make_trials(DType d, int n, int k, uint64_t seed) {
  const size_t kt = static_cast<size_t>(k + kStructuredTrials);
  std::vector<uint8_t> x(kt * n);
  std::seed_seq ss{static_cast<uint32_t>(seed), static_cast<uint32_t>(seed >> 32),
                   static_cast<uint32_t>(d), static_cast<uint32_t>(n)};
  std::mt19937_64 rng(ss);
  // Random trials: one byte of a 64-bit draw per value, uniform over the type's 256 values.
  uint64_t bits = 0;
  int left = 0;
  for (int t = 0; t < k; ++t)
    for (int c = 0; c < n; ++c) {
      if (left == 0) {
        bits = rng();
        left = 8;
      }
      x[c * kt + t] = static_cast<uint8_t>(bits);
      bits >>= 8;
      --left;
    }
  const int64_t lo = type_min(d), hi = type_max(d);
  // Every value = -1 (mod N): each quotient floor(x/N) loses (N-1)/N, so divide-then-sum is
  // N-1 below the mean (for uint8 the largest such value, 255 itself when N > 256).
  int64_t minus1 = -1;
  if (d == DType::kUint8) minus1 = n <= 256 ? n - 1 + n * ((255 - (n - 1)) / n) : 255;
  for (int c = 0; c < n; ++c) {
    const size_t t0 = static_cast<size_t>(k);
    x[c * kt + t0 + 0] = static_cast<uint8_t>(hi);                    // all max
    x[c * kt + t0 + 1] = static_cast<uint8_t>(lo);                    // all min
    x[c * kt + t0 + 2] = static_cast<uint8_t>(c % 2 == 0 ? hi : lo);  // alternating extremes
    x[c * kt + t0 + 3] = static_cast<uint8_t>(minus1);
  }
  return x;
}

Row study_row(DType d, int n, int k, uint64_t seed) {
  const int kt = k + kStructuredTrials;
  const std::vector<uint8_t> x = make_trials(d, n, k, seed);
  const std::vector<uint8_t> pw = pairwise_average(d, n, kt, x);
  Row row;
  row.dtype = d;
  row.n = n;
  row.trials = kt;
  row.widths = method_widths(d, n);
  std::vector<int64_t> xs(n);
  double sum_err[kNumMethods] = {};
  for (int t = 0; t < kt; ++t) {
    int64_t s = 0;
    for (int c = 0; c < n; ++c) {
      xs[c] = value(d, x[static_cast<size_t>(c) * kt + t]);
      s += xs[c];
    }
    const int64_t r[kNumMethods] = {value(d, pw[t]), divide_then_sum(xs), sum_then_divide(xs)};
    for (int m = 0; m < kNumMethods; ++m) {
      const double e = std::fabs(static_cast<double>(r[m] * n - s)) / n;
      row.max_err[m] = std::max(row.max_err[m], e);
      if (t < k) sum_err[m] += e;
    }
  }
  for (int m = 0; m < kNumMethods; ++m) row.mean_err[m] = sum_err[m] / k;
  return row;
}

namespace {

// Rows printed on stdout for a wide range: every N up to 16, the powers of two, the ends, and
// a few N just around powers of two and in between. --all-rows (and every range of at most 40)
// prints them all; the CSV always has every row.
bool shown(const StudyOptions& o, int n) {
  if (o.all_rows || o.max_chips - o.min_chips < 40) return true;
  static const std::set<int> extra = {24, 33, 48, 100, 127, 129, 255, 257, 384, 511};
  return n <= 16 || (n & (n - 1)) == 0 || n == o.min_chips || n == o.max_chips || extra.count(n);
}

void write_csv(std::ostream& f, const std::vector<Row>& rows) {
  f << "dtype,n,trials,pairwise_max_err,pairwise_mean_err,dts_max_err,dts_mean_err,"
       "std_max_err,std_mean_err,pw_add_bits,pw_mul_bits,dts_bits,std_bits\n";
  char buf[256];
  for (const Row& r : rows) {
    std::snprintf(buf, sizeof buf, "%s,%d,%d,%.6f,%.6f,%.6f,%.6f,%.6f,%.6f,%d,%d,%d,%d\n",
                  to_string(r.dtype), r.n, r.trials, r.max_err[0], r.mean_err[0], r.max_err[1],
                  r.mean_err[1], r.max_err[2], r.mean_err[2], r.widths.pw_add, r.widths.pw_mul,
                  r.widths.dts, r.widths.std);
    f << buf;
  }
}

bool is_file(const std::string& p) { return access(p.c_str(), R_OK) == 0; }

// scripts/plot_average_study.py: $XF_AVERAGE_STUDY_PLOT, else found walking up from the
// executable's directory (build/<dir>/fabric -> scripts/), else in the source tree it was built
// from.
std::string plot_script() {
  if (const char* e = std::getenv("XF_AVERAGE_STUDY_PLOT")) return e;
  const std::string rel = "scripts/plot_average_study.py";
  char exe[4096];
  const ssize_t len = readlink("/proc/self/exe", exe, sizeof exe - 1);
  if (len > 0) {
    std::string dir(exe, static_cast<size_t>(len));
    for (int up = 0; up < 5; ++up) {
      const size_t slash = dir.rfind('/');
      if (slash == std::string::npos) break;
      dir = dir.substr(0, slash);
      if (is_file(dir + "/" + rel)) return dir + "/" + rel;
    }
  }
#ifdef XF_SOURCE_DIR
  if (is_file(std::string(XF_SOURCE_DIR) + "/" + rel))
    return std::string(XF_SOURCE_DIR) + "/" + rel;
#endif
  throw std::runtime_error(
      "--png: cannot find " + rel +
      " next to the executable or in the source tree; set XF_AVERAGE_STUDY_PLOT to its path");
}

// The Python that runs the script: $XF_PYTHON, else /usr/bin/python3 (the Debian interpreter
// python3-matplotlib installs into; a python3 earlier in PATH, e.g. pyenv's, may lack it), else
// python3 from PATH.
std::string python() {
  if (const char* e = std::getenv("XF_PYTHON")) return e;
  if (access("/usr/bin/python3", X_OK) == 0) return "/usr/bin/python3";
  return "python3";
}

// Runs PYTHON SCRIPT CSV PNG with MPLBACKEND=Agg; throws with what to install on failure.
void plot(const std::string& csv, const std::string& png) {
  const std::string script = plot_script();
  const std::string py = python();
  setenv("MPLBACKEND", "Agg", 1);
  std::vector<std::string> argv_s = {py, script, csv, png};
  std::vector<char*> argv;
  for (auto& s : argv_s) argv.push_back(s.data());
  argv.push_back(nullptr);
  std::fflush(stdout);
  pid_t pid = 0;
  const int err = posix_spawnp(&pid, py.c_str(), nullptr, nullptr, argv.data(), environ);
  if (err != 0)
    throw std::runtime_error("--png needs python3 (" + py + ": " + std::strerror(err) +
                             "): install python3 and python3-matplotlib (scripts/setup.sh does)");
  int status = 0;
  if (waitpid(pid, &status, 0) < 0) throw std::runtime_error("--png: waitpid failed");
  if (WIFEXITED(status) && WEXITSTATUS(status) == 3)
    throw std::runtime_error(
        "--png needs matplotlib for " + py +
        ": apt-get install python3-matplotlib (scripts/setup.sh does), or set XF_PYTHON to a "
        "python3 that has it");
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
    throw std::runtime_error("--png: " + script + " failed (status " + std::to_string(status) +
                             "); the CSV it read is " + csv);
}

}  // namespace

int run_study(const StudyOptions& o) {
  const auto t0 = std::chrono::steady_clock::now();
  if (o.header) {
    std::printf(
        "# averaging study: seed %llu, %d random + %d structured trials per N "
        "(all max, all min, alternating, all -1 mod N)\n"
        "# |result - S/N| in LSB: max over all trials, mean over the random ones; "
        "widths in bits (pw_mul: final Q1.31 scale, 0 when N = 2^p)\n",
        static_cast<unsigned long long>(o.seed), o.trials, kStructuredTrials);
    std::printf("%-5s %4s | %-19s | %-19s | %-19s | %s\n", "", "", "pairwise (Fujitsu)",
                "divide-then-sum", "sum-then-divide", "widths (bits)");
    std::printf("%-5s %4s | %9s %9s | %9s %9s | %9s %9s | %3s %6s %4s %4s\n", "dtype", "N",
                "max_err", "mean_err", "max_err", "mean_err", "max_err", "mean_err", "pw", "pw_mul",
                "dts", "std");
  }
  std::vector<Row> rows;
  for (DType d : o.dtypes)
    for (int n = o.min_chips; n <= o.max_chips; ++n) {
      rows.push_back(study_row(d, n, o.trials, o.seed));
      const Row& r = rows.back();
      if (!shown(o, n)) continue;
      std::printf("%-5s %4d | %9.3f %9.3f | %9.3f %9.3f | %9.3f %9.3f | %3d %6d %4d %4d\n",
                  to_string(d), n, r.max_err[0], r.mean_err[0], r.max_err[1], r.mean_err[1],
                  r.max_err[2], r.mean_err[2], r.widths.pw_add, r.widths.pw_mul, r.widths.dts,
                  r.widths.std);
    }
  std::string csv = o.csv;
  std::string tmp_csv;
  if (csv.empty() && !o.png.empty()) {
    char tmpl[] = "/tmp/average_study_XXXXXX";
    const int fd = mkstemp(tmpl);
    if (fd < 0) throw std::runtime_error("--png: cannot create a temporary CSV in /tmp");
    close(fd);
    csv = tmp_csv = tmpl;
  }
  if (!csv.empty()) {
    std::ofstream f(csv);
    if (!f) throw std::runtime_error("--csv: cannot write " + csv);
    write_csv(f, rows);
    if (!f.flush()) throw std::runtime_error("--csv: cannot write " + csv);
  }
  if (!o.png.empty()) {
    try {
      plot(csv, o.png);
    } catch (...) {
      if (!tmp_csv.empty()) std::remove(tmp_csv.c_str());
      throw;
    }
    if (!tmp_csv.empty()) std::remove(tmp_csv.c_str());
  }
  const double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  std::printf("# %zu rows (dtypes x N = %d..%d), %.1f s%s%s%s%s\n", rows.size(), o.min_chips,
              o.max_chips, secs, o.csv.empty() ? "" : ", csv ", o.csv.c_str(),
              o.png.empty() ? "" : ", png ", o.png.c_str());
  return 0;
}

}  // namespace avg_study
}  // namespace xf
