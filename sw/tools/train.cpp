// `fabric train`: data-parallel training of softmax regression on the handwritten digits that
// Debian's python3-sklearn ships (1797 images of 8x8 pixels, 10 classes), with the sharded
// update (sharded-update patent) on the fabric (docs/driver.md section 5).
//
// Every step: each chip's shard of the global batch gives its gradient on the host (the compute
// phase); the fabric reduce-scatters the gradients, each chip updates its shard of the fp32
// weights with its shard of the momentum (ScaleAdd), and all-gathers the new weights. After
// every step the weights of every chip must be bit-identical and equal to a single-process
// reference: the plain C++ executor of the same plan (same reduction order), which carries its
// own copy of the optimizer state. With --backend both the RTL runs in lock step with the model
// and both must agree bit for bit, state included.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <map>
#include <numeric>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "options.hpp"
#include "subcommands.hpp"
#include "xf/cli.hpp"
#include "xf/comm.hpp"
#include "xf/reference.hpp"

namespace xf {
namespace {

using cli::Usage;

constexpr const char* kDigits =
    "/usr/lib/python3/dist-packages/sklearn/datasets/data/digits.csv.gz";
constexpr int kFeatures = 64, kClasses = 10;
constexpr int kParams = kClasses * kFeatures + kClasses;  // W (10 x 64), then b (10)

struct Data {
  std::vector<std::vector<float>> x;  // pixels / 16
  std::vector<int> y;
};

Data load_digits(const std::string& path) {
  const std::string problem = input_file_problem(path);
  if (!problem.empty())
    throw Usage("--data: the digits data " + path + " " + problem +
                " (Debian package python3-sklearn: run scripts/setup.sh, or give "
                "--data FILE with lines of 64 pixels 0..16 and a label)");
  const bool gz = path.size() > 3 && path.compare(path.size() - 3, 3, ".gz") == 0;
  FILE* f = popen(((gz ? "gzip -dc '" : "cat '") + path + "'").c_str(), "r");
  if (!f) throw std::runtime_error("cannot read " + path);
  std::string text;
  char buf[65536];
  size_t n;
  while ((n = std::fread(buf, 1, sizeof buf, f)) > 0) text.append(buf, n);
  if (pclose(f) != 0) throw std::runtime_error(path + ": could not decompress (gzip -dc failed)");
  Data d;
  std::istringstream in(text);
  std::string line;
  int lineno = 0;
  while (std::getline(in, line)) {
    ++lineno;
    if (line.empty()) continue;
    std::vector<float> v;
    std::stringstream ss(line);
    std::string cell;
    while (std::getline(ss, cell, ',')) v.push_back(std::strtof(cell.c_str(), nullptr));
    if (v.size() != kFeatures + 1 || v.back() < 0 || v.back() >= kClasses)
      throw std::runtime_error(path + " line " + std::to_string(lineno) +
                               ": expected 64 pixels and a label 0..9");
    d.y.push_back(static_cast<int>(v.back()));
    v.pop_back();
    for (float& p : v) p /= 16.0f;
    d.x.push_back(std::move(v));
  }
  if (d.y.size() < 100) throw std::runtime_error(path + ": fewer than 100 samples");
  return d;
}

// Softmax probabilities of one sample under parameters p.
void probs(const float* p, const std::vector<float>& x, float* out) {
  float mx = -1e30f;
  for (int k = 0; k < kClasses; ++k) {
    float z = p[kClasses * kFeatures + k];
    for (int j = 0; j < kFeatures; ++j) z += p[k * kFeatures + j] * x[j];
    out[k] = z;
    mx = std::max(mx, z);
  }
  float s = 0;
  for (int k = 0; k < kClasses; ++k) s += (out[k] = std::exp(out[k] - mx));
  for (int k = 0; k < kClasses; ++k) out[k] /= s;
}

// Gradient of the mean cross-entropy over the global batch, for this chip's samples only:
// sum over its samples of dL/dp, divided by the global batch size (so the fabric's sum is the
// global mean gradient).
void gradient(const float* p, const Data& d, const std::vector<int>& idx, int global,
              std::vector<float>& g) {
  std::fill(g.begin(), g.end(), 0.0f);
  float pr[kClasses];
  for (int i : idx) {
    probs(p, d.x[i], pr);
    for (int k = 0; k < kClasses; ++k) {
      const float e = (pr[k] - (d.y[i] == k ? 1.0f : 0.0f)) / static_cast<float>(global);
      for (int j = 0; j < kFeatures; ++j) g[k * kFeatures + j] += e * d.x[i][j];
      g[kClasses * kFeatures + k] += e;
    }
  }
}

std::pair<double, double> evaluate(const float* p, const Data& d, const std::vector<int>& idx) {
  double loss = 0;
  int right = 0;
  float pr[kClasses];
  for (int i : idx) {
    probs(p, d.x[i], pr);
    loss -= std::log(std::max(pr[d.y[i]], 1e-30f));
    right += std::max_element(pr, pr + kClasses) - pr == d.y[i];
  }
  return {loss / idx.size(), static_cast<double>(right) / idx.size()};
}

}  // namespace

int train_main(const std::vector<std::string>& args, const char* self) {
  auto app = tool::make_app(
      "fabric train",
      "Softmax regression on the 8x8 digits, data-parallel over the topology's chips; the fabric "
      "reduce-scatters the gradients, updates every shard (sgd step) and all-gathers. --steps "
      "stops after N steps (a short RTL run); --backend both runs the RTL in lock step with the "
      "model and compares parameters and optimizer state bit for bit.");
  std::string topology = "ladder:8", backend = "model", data_path = kDigits, csv_path, png;
  int epochs = 8, batch = 64, tiles = 2, flit_bits = kFlitBits;
  long long max_steps = 0;
  uint64_t seed = 1;
  SgdConfig sgd;
  sgd.lr = 0.5f;
  sgd.momentum = 0.9f;
  sgd.weight_decay = 0.0001f;
  tool::add_text(*app, "--topology", topology, "T", "the machine (docs/topology.md)")
      ->default_str(topology);
  tool::add_flit_bits(*app, flit_bits);
  tool::add_text(*app, "--backend", backend, "B",
                 "model, rtl, both (the RTL in lock step with the model) or serial:DEV[@BAUD]")
      ->default_str(backend);
  tool::add_int(*app, "--epochs", epochs, 1, 1000, "passes over the training set")
      ->default_str("8");
  tool::add_int(*app, "--steps", max_steps, 0, 1'000'000, "stop after N steps (0: no limit)")
      ->default_str("0");
  tool::add_int(*app, "--batch", batch, 1, 1797, "the global batch")->default_str("64");
  tool::add_real(*app, "--lr", sgd.lr, 0, 100, "learning rate")->default_str("0.5");
  tool::add_real(*app, "--momentum", sgd.momentum, 0, 1, "momentum")->default_str("0.9");
  tool::add_real(*app, "--weight-decay", sgd.weight_decay, 0, 1, "weight decay")
      ->default_str("0.0001");
  tool::add_tiles(*app, tiles, 16, "tiles per chip");
  tool::add_seed(*app, seed);
  tool::add_file(*app, "--data", data_path, "lines of 64 pixels 0..16 and a label (.gz too)")
      ->default_str(data_path);
  tool::add_file(*app, "--csv", csv_path, "the loss curve's data");
  tool::add_file(*app, "--png", png, "the loss curve (scripts/plot_training.py)");
  return tool::run_tool("fabric train", *app, args, [&] {
    if (backend != "model" && backend != "rtl" && backend != "both" &&
        backend.rfind("serial:", 0) != 0)
      throw Usage("--backend " + backend + ": choose model, rtl, both or serial:DEV[@BAUD]");

    const Data data = load_digits(data_path);
    // A fixed split: 80% train, 20% test, shuffled with the seed.
    std::vector<int> order(data.y.size());
    std::iota(order.begin(), order.end(), 0);
    std::mt19937_64 rng(seed);
    std::shuffle(order.begin(), order.end(), rng);
    const size_t ntest = order.size() / 5;
    const std::vector<int> test(order.begin(), order.begin() + ntest);
    std::vector<int> train(order.begin() + ntest, order.end());

    CommConfig cfg;
    cfg.tiles = tiles;
    cfg.flit_bits = flit_bits;
    Comm comm, rtl;
    const std::string first = backend == "both" ? "model" : backend;
    Result r = Comm::create(topology, first, &comm, cfg);
    if (!r) throw std::runtime_error(r.message);
    if (backend == "both") {
      r = Comm::create(topology, "rtl", &rtl, cfg);
      if (!r) throw std::runtime_error(r.message);
    }
    const int P = comm.size();
    if (batch < P)
      throw Usage("--batch " + std::to_string(batch) + " is smaller than the " + std::to_string(P) +
                  " chips; every chip needs a sample");

    // Initial weights: small, from the seed, identical on every chip.
    std::vector<float> w(kParams);
    std::normal_distribution<float> nd(0.0f, 0.01f);
    for (float& v : w) v = nd(rng);
    for (Comm* c : {&comm, &rtl})
      if (c->initialized()) {
        r = c->sgd_init(w.data(), kParams, sgd);
        if (!r) throw std::runtime_error(r.message);
      }
    // The single-process reference: the same plan on the plain C++ executor, with its own state.
    Plan plan;
    r = comm.sgd_plan(kParams, sgd, &plan);
    if (!r) throw std::runtime_error(r.message);
    std::vector<SgdState> ref_state = sgd_initial_state(plan, w.data());

    std::printf("# fabric train: softmax regression, %zu train / %zu test digits (%s)\n",
                train.size(), test.size(), data_path.c_str());
    std::printf(
        "# %s, %d chips, %d tiles, backend %s; %d parameters fp32, global batch %d "
        "(%d per chip), SGD lr %g momentum %g weight decay %g, seed %llu; flit %d bits\n",
        comm.topology().spec.c_str(), P, tiles, backend.c_str(), kParams, batch, batch / P, sgd.lr,
        sgd.momentum, sgd.weight_decay, static_cast<unsigned long long>(seed),
        comm.topology().flit_bits);
    std::printf(
        "# every step: reduce-scatter of the gradients, each chip's shard update "
        "(ScaleAdd), all-gather of the weights (sharded-update patent)\n");
    std::printf("%6s %7s %11s %10s %10s %9s %12s %14s %10s\n", "epoch", "steps", "train_loss",
                "test_loss", "test_acc", "cycles", "identical", "reference", "wall_s");
    std::ofstream csv;
    if (csv_path.empty() && !png.empty()) csv_path = png + ".csv";
    if (!csv_path.empty()) {
      csv.open(csv_path);
      if (!csv) throw Usage("cannot write " + csv_path);
      csv << "epoch,step,train_loss,test_loss,test_acc\n";
    }
    std::vector<std::vector<float>> grads(P, std::vector<float>(kParams));
    std::vector<std::vector<float>> params(P, std::vector<float>(kParams)), rparams = params;
    long long step = 0;
    uint64_t bad_identity = 0, bad_ref = 0, bad_rtl = 0, cycles_sum = 0, rtl_cycles = 0;
    const auto t0 = std::chrono::steady_clock::now();
    bool stop = false;
    {
      const auto [l0, a0] = evaluate(w.data(), data, test);
      const auto [tl0, ta0] = evaluate(w.data(), data, train);
      (void)ta0;
      std::printf("%6d %7lld %11.4f %10.4f %9.1f%% %9s %12s %14s %10.2f\n", 0, 0ll, tl0, l0,
                  100 * a0, "-", "-", "-", 0.0);
      if (csv.is_open()) csv << 0 << ',' << 0 << ',' << tl0 << ',' << l0 << ',' << a0 << '\n';
    }
    for (int ep = 1; ep <= epochs && !stop; ++ep) {
      std::shuffle(train.begin(), train.end(), rng);
      uint64_t ep_cycles = 0;
      int ep_steps = 0;
      for (size_t at = 0; at + batch <= train.size(); at += batch) {
        // The compute phase: chip c's samples are its slice of the global batch.
        for (int c = 0; c < P; ++c) {
          std::vector<int> mine;
          for (int i = batch * c / P; i < batch * (c + 1) / P; ++i) mine.push_back(train[at + i]);
          gradient(w.data(), data, mine, batch, grads[c]);
        }
        std::vector<const float*> gp;
        std::vector<float*> pp, rp;
        for (int c = 0; c < P; ++c) {
          gp.push_back(grads[c].data());
          pp.push_back(params[c].data());
          rp.push_back(rparams[c].data());
        }
        // The exchange and the update on the fabric (started, then the reference runs on the
        // host while the fabric works).
        std::vector<SgdState> st_model, st_rtl;
        Request q =
            comm.start_sgd_step(gp, pp, kParams, sgd, backend == "both" ? &st_model : nullptr);
        Request qr;
        if (rtl.initialized()) qr = rtl.start_sgd_step(gp, rp, kParams, sgd, &st_rtl);
        std::vector<Bytes> in(P);
        for (int c = 0; c < P; ++c)
          in[c].assign(reinterpret_cast<const uint8_t*>(grads[c].data()),
                       reinterpret_cast<const uint8_t*>(grads[c].data()) + kParams * 4);
        const std::vector<Bytes> ref = run_reference(plan, in, &ref_state);
        r = comm.wait(q);
        if (!r) throw std::runtime_error("step " + std::to_string(step) + ": " + r.message);
        ep_cycles += comm.last().cycles;
        if (rtl.initialized()) {
          r = rtl.wait(qr);
          if (!r) throw std::runtime_error("rtl, step " + std::to_string(step) + ": " + r.message);
          rtl_cycles += rtl.last().cycles;
          for (int c = 0; c < P; ++c)
            bad_rtl += std::memcmp(rparams[c].data(), params[c].data(), kParams * 4) != 0 ||
                       st_rtl[c].weights != st_model[c].weights ||
                       st_rtl[c].momentum != st_model[c].momentum;
        }
        for (int c = 0; c < P; ++c) {
          bad_identity += std::memcmp(params[c].data(), params[0].data(), kParams * 4) != 0;
          bad_ref += std::memcmp(params[c].data(), ref[c].data(), kParams * 4) != 0;
        }
        w = params[0];
        ++step;
        ++ep_steps;
        if (max_steps && step >= max_steps) {
          stop = true;
          break;
        }
      }
      cycles_sum += ep_cycles;
      const auto [tl, ta] = evaluate(w.data(), data, train);
      (void)ta;
      const auto [l, a] = evaluate(w.data(), data, test);
      const double wall =
          std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
      std::printf("%6d %7lld %11.4f %10.4f %9.1f%% %9llu %12s %14s %10.2f\n", ep, step, tl, l,
                  100 * a, static_cast<unsigned long long>(ep_steps ? ep_cycles / ep_steps : 0),
                  bad_identity ? "NO" : "yes", bad_ref ? "DIFFERS" : "bit-identical", wall);
      if (csv.is_open()) csv << ep << ',' << step << ',' << tl << ',' << l << ',' << a << '\n';
    }
    std::printf(
        "# %lld steps; mean %.0f fabric cycles per step (%s); parameters on all %d chips "
        "bit-identical after every step: %s; equal to the single-process reference "
        "(same reduction order): %s\n",
        step, step ? static_cast<double>(cycles_sum) / step : 0.0,
        backend == "both" ? "model" : backend.c_str(), P, bad_identity ? "NO" : "yes",
        bad_ref ? "NO" : "yes");
    if (rtl.initialized())
      std::printf(
          "# rtl in lock step with the model: %lld steps, parameters and optimizer state "
          "bit-identical: %s; rtl cycles %llu, model cycles %llu\n",
          step, bad_rtl ? "NO" : "yes", static_cast<unsigned long long>(rtl_cycles),
          static_cast<unsigned long long>(cycles_sum));
    if (csv.is_open()) csv.close();
    if (!png.empty()) {
      // The project's scripts/plot_training.py ($XF_SCRIPTS overrides), run by the Debian
      // interpreter that has python3-matplotlib ($XF_PYTHON overrides; docs/averaging.md s. 6).
      std::string script = std::string(XF_SOURCE_DIR) + "/scripts/plot_training.py";
      if (const char* env = std::getenv("XF_SCRIPTS"))
        script = std::string(env) + "/plot_training.py";
      const char* py = std::getenv("XF_PYTHON") ? std::getenv("XF_PYTHON") : "/usr/bin/python3";
      const std::string cmd = std::string("MPLBACKEND=Agg '") + py + "' '" + script + "' '" +
                              csv_path + "' '" + png + "'";
      if (std::system(cmd.c_str()) != 0)
        throw std::runtime_error("could not draw " + png + " with " + script +
                                 " (needs python3-matplotlib: run scripts/setup.sh; XF_PYTHON "
                                 "names another interpreter, XF_SCRIPTS the scripts/ directory)");
      std::printf("# loss curve: %s (data %s)\n", png.c_str(), csv_path.c_str());
    }
    (void)self;
    return bad_identity || bad_ref || bad_rtl ? 1 : 0;
  });
}

}  // namespace xf
