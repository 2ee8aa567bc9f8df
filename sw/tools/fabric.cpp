// fabric: the command-line front end (docs/fabric.md). `fabric COMMAND --help` lists a command's
// options (declared once each, with CLI11: add_options below, sw/tools/options.hpp).
//
//   fabric run --topology T [--collective C --dtype D --op O --bytes N --backend B ...]
//   fabric plan ...run's options...     prints the schedule summary and the program
//   fabric bench --topology T [--topology T2 ...] [--min-bytes 8] [--max-bytes 1M] ...
//                                       sweeps powers of two, one checked run per point, and
//                                       prints the nccl-tests table (docs/fabric.md section 9)
//   fabric train | average-study | topo  (sw/tools/train.cpp, average_study_cli.cpp, topo_cli.cpp)
//
// `run` compiles the collective, runs it, checks every chip's result against the plain C++
// reference (same reduction order, bit for bit) and, where one exists, against the
// order-independent exact result; prints one nccl-tests-style row; exits 1 on any wrong
// element or run error and 2 on a bad argument. `--backend rtl` runs the same image on a machine
// of Verilated chips and switch nodes (sw/backends/rtl/rtl_system.hpp); `both` runs the model and
// the RTL and also requires their memories to be bit-identical and their cycle counts equal.
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iostream>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "cosim_checker.hpp"
#include "driver.hpp"
#include "options.hpp"
#include "subcommands.hpp"
#include "xf/alu.hpp"
#include "xf/average_study.hpp"
#include "xf/checks.hpp"
#include "xf/cli.hpp"
#include "xf/comm.hpp"
#include "xf/compiler.hpp"
#include "xf/faults.hpp"
#include "xf/layout.hpp"
#include "xf/reference.hpp"
#include "xf/topo_dot.hpp"
#include "xf/topology.hpp"
#include "xf/tune.hpp"

using namespace xf;
using cli::human;
using cli::Usage;

namespace {

constexpr uint64_t kDefaultBytes = 64 << 10;  // fabric run/plan without --bytes (docs/fabric.md)

// The command that reruns this one on both backends with waves: the same arguments, with
// --backend both and --trace xf_mismatch.fst in place of any --backend or --trace given.
std::string reproduce_command(int argc, char** argv) {
  std::string cmd = argv[0];
  for (int j = 1; j < argc; ++j) {
    const std::string a = argv[j];
    if (a == "--backend" || a == "--trace") {
      ++j;
      continue;
    }
    if (a.rfind("--backend=", 0) == 0 || a.rfind("--trace=", 0) == 0) continue;
    cmd += " " + (a.find_first_of(" (),") != std::string::npos ? "'" + a + "'" : a);
  }
  return cmd + " --backend both --trace xf_mismatch.fst";
}

// Prints what is wrong with one backend's run; 0 when all is right, else 1.
int report(const char* backend, bool ok, const std::string& error, const Check& chk, RedOp op) {
  if (!ok) {
    std::fprintf(stderr, "fabric: %s run failed: %s\n", backend, cli::printable(error).c_str());
    return 1;
  }
  if (chk.inexact) {
    std::fprintf(stderr,
                 "fabric: the reference disagrees with the order-independent exact result in "
                 "%llu elements\n",
                 static_cast<unsigned long long>(chk.inexact));
    return 1;
  }
  if (chk.not_identical) {
    std::fprintf(stderr, "fabric: %s: %llu elements differ between chips\n", backend,
                 static_cast<unsigned long long>(chk.not_identical));
    return 1;
  }
  if (op == RedOp::kAvg)
    std::fprintf(stderr, "fabric: %s: avg: largest error against the exact mean %.3f units\n",
                 backend, chk.avg_max_err);
  if (chk.wrong) {
    std::fprintf(stderr, "fabric: %s: %llu wrong elements; reproduce with the same command\n",
                 backend, static_cast<unsigned long long>(chk.wrong));
    return 1;
  }
  return 0;
}

// Chip c's --input file: a readable regular file of exactly `want` bytes, checked before it is
// read (a directory or a FIFO is a usage error, not a read error).
Bytes read_file(const std::string& path, uint64_t want) {
  const uint64_t size = cli::input_file_bytes("input", path);
  if (size != want)
    throw Usage("--input: " + path + " has " + std::to_string(size) + " bytes, expected " +
                std::to_string(want) + " (one raw little-endian file per chip)");
  std::ifstream f(path, std::ios::binary);
  if (!f) throw Usage("--input: cannot open " + path);
  Bytes b((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
  if (b.size() != want)
    throw std::runtime_error("--input: " + path + " changed while it was read: " +
                             std::to_string(b.size()) + " bytes, expected " + std::to_string(want));
  return b;
}

// The options of run, plan and bench (one declaration each in add_options).
struct Args {
  std::vector<std::string> topologies;  // bench takes several
  CollectiveSpec spec;
  std::string backend = "model";
  uint64_t seed = 1;
  int flit_bits = kFlitBits;
  FaultSpec faults;
  std::string faults_text;  // as given: each backend parses it again (CommConfig::faults)
  std::string input, output, packet_log, trace, csv_file, json_file;
  uint64_t min_bytes = 8, max_bytes = 1u << 20;
  bool no_header = false;
};

enum class Cmd { kRun, kPlan, kBench };

// Declares the options of `cmd` into `app`. Every subcommand knows every option (so that one
// meant for another says so: "--csv is for fabric bench"); the help lists those that apply.
void add_options(CLI::App& app, Args& a, Cmd cmd) {
  const bool bench = cmd == Cmd::kBench, run = cmd == Cmd::kRun;
  auto only = [](CLI::Option* o, bool shown) { return shown ? o : o->group(""); };
  app.add_option("--topology", a.topologies,
                 bench ? "a topology (ring:P biring:P line:P ladder:P tree:SPEC file:PATH); give "
                         "it once per topology"
                       : "ring:P biring:P line:P ladder:P tree:SPEC file:PATH (docs/topology.md)")
      ->type_name("T")
      ->allow_extra_args(false)
      ->multi_option_policy(CLI::MultiOptionPolicy::TakeAll);
  tool::add_flit_bits(app, a.flit_bits);
  tool::add_collective(app, a.spec);
  tool::add_dtype(app, a.spec);
  tool::add_op(app, a.spec);
  only(tool::add_bytes(app, "--bytes", a.spec.bytes, "size of the vector per chip (64K, 1M, ...)")
           ->default_str("64K"),
       !bench);
  tool::add_flag(app, "--sat", a.spec.sat, "integer sums saturate instead of wrapping");
  tool::add_algo(app, a.spec);
  tool::add_root(app, a.spec);
  tool::add_tiles(app, a.spec.tiles, kMaxTiles, "tiles per chip the collective uses");
  tool::add_chunk(app, a.spec);
  app.add_flag_callback(
      "--no-hold", [&a] { a.spec.hold_sessions = false; },
      "never hold an XB session while the send queue is empty (docs/compiler.md section 8.4)");
  app.add_flag_callback(
      "--no-stream", [&a] { a.spec.stream_sends = false; },
      "wait for each chunk before forwarding it: no streamed Send (docs/compiler.md sections 8.3, "
      "8.5)");
  // The sgd step's hyper-parameters (sharded-update patent).
  tool::add_real(app, "--lr", a.spec.lr, -1e6, 1e6, "learning rate (--collective sgd)")
      ->default_str("0.01");
  tool::add_real(app, "--momentum", a.spec.momentum, -1e6, 1e6, "momentum (--collective sgd)")
      ->default_str("0.9");
  tool::add_real(app, "--weight-decay", a.spec.weight_decay, -1e6, 1e6,
                 "weight decay (--collective sgd)")
      ->default_str("0");
  tool::add_text(app, "--backend", a.backend, "B",
                 bench ? "the machine each point runs on: model or rtl"
                       : "model, rtl, both (the RTL in lock step with the model) or "
                         "serial:DEV[@BAUD] (a board)")
      ->default_str("model");
  tool::add_seed(app, a.seed);
  only(app.add_option_function<std::string>(
              "--faults",
              [&a](const std::string& s) {
                a.faults = parse_faults(s);
                a.faults_text = s;
              },
              "link faults under the retry layer: ber=P,wer=P,drop=P,stall=P,down=P,downlen=N,"
              "seed=S (docs/reliability.md)")
           ->type_name("SPEC"),
       run);
  only(tool::add_file(app, "--input", a.input, "read chip c's input from DIR/chipC.bin", "DIR"),
       run);
  only(tool::add_file(app, "--output", a.output, "write chip c's result to DIR/chipC.bin", "DIR"),
       run);
  only(tool::add_file(app, "--packet-log", a.packet_log,
                      "every packet leaving a node, one line each (--backend both: the RTL's to "
                      "FILE.rtl)"),
       run);
  only(tool::add_file(app, "--trace", a.trace, "the RTL's waves (--backend rtl or both)",
                      "FILE.fst"),
       run);
  only(tool::add_bytes(app, "--min-bytes", a.min_bytes, "the sweep's smallest size per chip")
           ->default_str("8"),
       bench);
  only(tool::add_bytes(app, "--max-bytes", a.max_bytes, "the sweep's largest size per chip")
           ->default_str("1M"),
       bench);
  only(tool::add_file(app, "--csv", a.csv_file, "one CSV row per point"), bench);
  only(tool::add_file(app, "--json", a.json_file, "the points as a JSON array"), bench);
  tool::add_flag(app, "--no-header", a.no_header, "leave out the column header");
}

// The configuration of the machines a plan runs on.
CommConfig machine_config(const Plan& plan, const std::string& faults = "",
                          const std::string& trace = "") {
  CommConfig cfg;
  cfg.tiles = plan.tiles;
  cfg.faults = faults;
  cfg.trace = trace;
  for (int t = 0; t < plan.tiles; ++t)  // the model holds what the plan needs, no more
    cfg.model_dmem_bytes = std::max(cfg.model_dmem_bytes, tile_footprint(plan, t));
  return cfg;
}

// Refuses, before planning, a machine the backend cannot build, in one line without the usage.
void check_fits(const std::string& backend, const Topology& topo, const CollectiveSpec& spec) {
  CommConfig cfg;
  cfg.tiles = spec.tiles;
  const std::string why = backend_refuses(backend, topo, cfg);
  if (!why.empty()) throw cli::Refused(why);
}

// One point of `fabric bench`, measured in a child process (SystemC elaborates once per process)
// and sent back through a pipe as plain bytes.
struct Point {
  int32_t ok = 0;           // the run finished and every element is right
  uint64_t cycles = 0;      // the collective's cycles
  uint64_t wrong = 0;       // elements wrong, differing between chips, or inexact (section 4)
  double bound = 0;         // bound_cycles(plan)
  double run_s = 0;         // wall time of the run step alone (cycles per second)
  double wall_s = 0;        // the whole point: plan, build, load, run, read back, check
  long rss_kb = 0;          // the child's peak resident memory (filled in by the parent)
  uint64_t pmem_words = 0;  // the largest tile's parameter memory (the RTL loads 16384 words)
  uint32_t chunk = 0;       // the chunk the image uses
  char algo[16] = {};
  char error[480] = {};
};

Point measure_point(const Topology& topo, const CollectiveSpec& spec, const std::string& backend,
                    uint64_t seed) {
  Point pt;
  const auto t0 = std::chrono::steady_clock::now();
  const Plan plan = plan_collective(topo, spec);
  const Image img = build_image(topo, plan);
  std::snprintf(pt.algo, sizeof pt.algo, "%s", to_string(plan.algo));
  for (const auto& pm : img.pmem) pt.pmem_words = std::max<uint64_t>(pt.pmem_words, pm.size());
  pt.chunk = img.chunk_bytes;
  pt.bound = bound_cycles(plan);
  const std::vector<Bytes> inputs = make_inputs(plan, seed, dtype_is_float(spec.dtype) ? 1 : 0);
  const std::unique_ptr<Backend> machine = make_backend(backend, topo, machine_config(plan));
  const BackendRun run = machine->run(plan, img, inputs, machine->cycle_limit(), nullptr, nullptr);
  bool ok = run.ok;
  std::string error = run.error;
  pt.cycles = run.cycles;
  pt.run_s = run.seconds;
  if (ok) {
    const Check chk = check_outputs(plan, inputs, run.outputs);
    pt.wrong = chk.wrong + chk.not_identical + chk.inexact;
    if (pt.wrong) error = std::to_string(pt.wrong) + " wrong elements";
  }
  pt.ok = ok && !pt.wrong;
  std::snprintf(pt.error, sizeof pt.error, "%s", error.c_str());
  pt.wall_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return pt;
}

// Runs measure_point in a child; a child that dies is a failed point that says how.
Point measure_in_child(const Topology& topo, const CollectiveSpec& spec, const std::string& backend,
                       uint64_t seed) {
  int fd[2];
  if (pipe(fd) != 0) throw std::runtime_error("bench: pipe() failed");
  std::fflush(stdout);
  std::fflush(stderr);
  const pid_t pid = fork();
  if (pid < 0) throw std::runtime_error("bench: fork() failed");
  if (pid == 0) {
    prctl(PR_SET_PDEATHSIG, SIGTERM);  // a killed bench leaves no run behind
    close(fd[0]);
    Point pt;
    try {
      pt = measure_point(topo, spec, backend, seed);
    } catch (const std::exception& e) {
      std::snprintf(pt.error, sizeof pt.error, "%s", e.what());
    }
    const char* p = reinterpret_cast<const char*>(&pt);
    size_t left = sizeof pt;
    while (left > 0) {
      const ssize_t n = write(fd[1], p, left);
      if (n <= 0) break;
      p += n;
      left -= static_cast<size_t>(n);
    }
    std::fflush(nullptr);
    _exit(0);
  }
  close(fd[1]);
  Point pt;
  char* p = reinterpret_cast<char*>(&pt);
  size_t got = 0;
  while (got < sizeof pt) {
    const ssize_t n = read(fd[0], p + got, sizeof pt - got);
    if (n <= 0) break;
    got += static_cast<size_t>(n);
  }
  close(fd[0]);
  int status = 0;
  struct rusage ru {};
  wait4(pid, &status, 0, &ru);
  if (got != sizeof pt) {
    pt = Point{};
    std::snprintf(pt.error, sizeof pt.error, "the run's process died (%s %d)",
                  WIFSIGNALED(status) ? "signal" : "exit status",
                  WIFSIGNALED(status) ? WTERMSIG(status) : WEXITSTATUS(status));
  }
  pt.rss_kb = ru.ru_maxrss;
  return pt;
}

// A text field of the CSV: within double quotes, a quote or backslash escaped by a backslash,
// control characters as spaces.
std::string csv_text(const std::string& s) {
  std::string o;
  for (char c : s) {
    if (c == '"' || c == '\\') o += '\\';
    if (static_cast<unsigned char>(c) < 0x20) {
      o += ' ';
      continue;
    }
    o += c;
  }
  return o;
}

// fabric bench (docs/fabric.md section 9).
int bench(const CLI::App& app, Args& a) {
  if (a.topologies.empty()) throw Usage("--topology is required (give it once per topology)");
  if (tool::given(app, "--bytes"))
    throw Usage("bench sweeps sizes: use --min-bytes and --max-bytes instead of --bytes");
  for (const char* o : {"--input", "--output", "--packet-log", "--trace", "--faults"})
    if (tool::given(app, o)) throw Usage(std::string(o) + " is for fabric run, not bench");
  const std::string& backend = a.backend;
  if (backend != "model" && backend != "rtl")
    throw Usage("bench --backend " + backend +
                ": choose model or rtl (fabric run --backend both "
                "compares them)");
  CollectiveSpec& spec = a.spec;
  const uint64_t lo = a.min_bytes, hi = a.max_bytes;
  if (lo == 0 || hi < lo || hi > (1ull << 30))
    throw Usage("--min-bytes " + human(lo) + " --max-bytes " + human(hi) +
                ": need 0 < min <= max <= 1G");
  const size_t es = dtype_size(spec.dtype);
  if (lo % es)
    throw Usage("--min-bytes " + human(lo) + " is not a multiple of the " +
                std::string(to_string(spec.dtype)) + " element size (" + std::to_string(es) +
                " bytes); every point doubles it");
  const uint64_t seed = a.seed;
  std::vector<Topology> topos;
  for (const std::string& t : a.topologies) {
    topos.push_back(parse_topology(t));
    set_flit_bits(topos.back(), a.flit_bits);
    check_fits(backend, topos.back(), spec);
  }
  std::ofstream csv;
  if (!a.csv_file.empty()) {
    csv.open(a.csv_file);
    if (!csv) throw Usage("--csv: cannot write " + a.csv_file + " (does the directory exist?)");
    csv << "topology,chips,algo,collective,bytes,count,dtype,op,tiles,backend,cycles,bound_cycles,"
           "algbw,busbw,eff,wrong,ok,wall_s,run_s,sim_cycles_per_s,peak_rss_mb,error,flit_bits\n";
  }
  std::ofstream json;  // the points, written at the end
  nlohmann::ordered_json json_points = nlohmann::ordered_json::array();
  if (!a.json_file.empty()) {
    json.open(a.json_file);
    if (!json) throw Usage("--json: cannot write " + a.json_file + " (does the directory exist?)");
  }
  // SystemC's banner would interleave with the table, once per child.
  setenv("SC_COPYRIGHT_MESSAGE", "DISABLE", 1);
  std::printf(
      "# fabric bench: %s %s %s, backend %s, %d tiles per chip, seed %llu; sizes %s..%s "
      "per chip\n",
      to_string(spec.coll), to_string(spec.dtype), to_string(spec.op), backend.c_str(), spec.tiles,
      static_cast<unsigned long long>(seed), human(lo).c_str(), human(hi).c_str());
  std::printf(
      "# algbw = size / cycles, busbw = algbw * %s factor (bytes per cycle); eff = bound "
      "/ cycles, bound = 2(P-1)/P * M / (C * %d) for allreduce (docs/compiler.md)\n",
      "nccl-tests", a.flit_bits / 8);
  if (!a.no_header)
    std::printf("#%13s %-7s %8s %9s %5s %5s %10s %10s %9s %9s %6s %6s %8s %8s %9s %7s %4s\n",
                "topology", "algo", "size", "count", "type", "redop", "cycles", "bound", "algbw",
                "busbw", "eff", "#wrong", "wall_s", "run_s", "cycles/s", "rss_MB", "flit");
  int status = 0, points = 0, failed = 0;
  for (const Topology& topo : topos)
    for (uint64_t b = lo; b <= hi; b *= 2) {
      spec.bytes = b;
      const Point pt = measure_in_child(topo, spec, backend, seed);
      const double cyc = static_cast<double>(pt.cycles);
      const double algbw = pt.cycles ? static_cast<double>(b) / cyc : 0;
      const double busbw = algbw * busbw_factor(spec.coll, topo.num_chips);
      const double eff = pt.cycles ? pt.bound / cyc : 0;
      const double cps = pt.run_s > 0 ? cyc / pt.run_s : 0;
      const double rss = static_cast<double>(pt.rss_kb) / 1024.0;
      std::printf(
          " %13s %-7s %8s %9llu %5s %5s %10llu %10.0f %9.3f %9.3f %6.3f %6llu %8.2f %8.3f "
          "%9.0f %7.0f %4d%s\n",
          cli::printable(topo.spec).c_str(), pt.algo[0] ? pt.algo : "-", human(b).c_str(),
          static_cast<unsigned long long>(b / es), to_string(spec.dtype), to_string(spec.op),
          static_cast<unsigned long long>(pt.cycles), pt.bound, algbw, busbw, eff,
          static_cast<unsigned long long>(pt.wrong), pt.wall_s, pt.run_s, cps, rss, topo.flit_bits,
          pt.ok ? "" : "  FAILED");
      std::fflush(stdout);
      ++points;
      if (!pt.ok) {
        ++failed;
        status = 1;
        std::fprintf(stderr,
                     "fabric: bench: %s %s failed: %s\n  reproduce: fabric run "
                     "--topology '%s' --bytes %s --collective %s --dtype %s --op %s --tiles %d "
                     "--seed %llu --backend %s\n",
                     cli::printable(topo.spec).c_str(), human(b).c_str(),
                     cli::printable(pt.error).c_str(), cli::printable(topo.spec).c_str(),
                     human(b).c_str(), to_string(spec.coll), to_string(spec.dtype),
                     to_string(spec.op), spec.tiles, static_cast<unsigned long long>(seed),
                     backend.c_str());
      }
      char fields[1024];
      std::snprintf(fields, sizeof fields, "%llu,%.1f,%.6f,%.6f,%.6f,%llu,%d,%.3f,%.6f,%.1f,%.1f",
                    static_cast<unsigned long long>(pt.cycles), pt.bound, algbw, busbw, eff,
                    static_cast<unsigned long long>(pt.wrong), pt.ok ? 1 : 0, pt.wall_s, pt.run_s,
                    cps, rss);
      if (csv.is_open()) {
        csv << '"' << topo.spec << "\"," << topo.num_chips << ',' << pt.algo << ','
            << to_string(spec.coll) << ',' << b << ',' << b / es << ',' << to_string(spec.dtype)
            << ',' << to_string(spec.op) << ',' << spec.tiles << ',' << backend << ',' << fields
            << ",\"" << csv_text(pt.error) << "\"," << topo.flit_bits << "\n";
        csv.flush();
      }
      if (json.is_open()) {
        // The CSV's numbers, as rounded there.
        auto fixed = [](double v, double scale) { return std::round(v * scale) / scale; };
        json_points.push_back({{"topology", topo.spec},
                               {"chips", topo.num_chips},
                               {"algo", pt.algo},
                               {"collective", to_string(spec.coll)},
                               {"bytes", b},
                               {"count", b / es},
                               {"dtype", to_string(spec.dtype)},
                               {"op", to_string(spec.op)},
                               {"tiles", spec.tiles},
                               {"backend", backend},
                               {"cycles", pt.cycles},
                               {"bound_cycles", fixed(pt.bound, 1e1)},
                               {"algbw", fixed(algbw, 1e6)},
                               {"busbw", fixed(busbw, 1e6)},
                               {"eff", fixed(eff, 1e6)},
                               {"wrong", pt.wrong},
                               {"ok", pt.ok != 0},
                               {"wall_s", fixed(pt.wall_s, 1e3)},
                               {"run_s", fixed(pt.run_s, 1e6)},
                               {"sim_cycles_per_s", fixed(cps, 1e1)},
                               {"peak_rss_mb", fixed(rss, 1e1)},
                               {"error", pt.error},
                               {"flit_bits", topo.flit_bits}});
      }
    }
  if (json.is_open())
    json << json_points.dump(1, ' ', false, nlohmann::json::error_handler_t::replace) << "\n";
  std::printf("# %d points, %d failed\n", points, failed);
  return status;
}

// The topologies `fabric tune` measures unless told: make bench's sweep and the trees of
// docs/performance.md (docs/compiler.md section 10).
const std::vector<std::string> kTuneTopologies = {"ring:8",
                                                  "biring:8",
                                                  "ladder:8",
                                                  "line:8",
                                                  "tree:((2,2),(2,2))",
                                                  "tree:((2,2),3,(1,4))",
                                                  "tree:((8,8,8,8),(8,8,8,8))"};

// fabric tune (docs/fabric.md section 10): every algorithm the compiler accepts (and every
// chunk of --chunks) per topology and size on the model; the fastest measured chunk of each
// algorithm goes into the table that Algo::kAuto reads (xf/tune.hpp).
int tune_main(const std::vector<std::string>& words) {
  auto app = tool::make_app(
      "fabric tune",
      "measures every algorithm per topology and size on the model and writes the table the "
      "compiler's automatic choice reads (docs/fabric.md section 10)");
  std::vector<std::string> topologies;
  uint64_t lo = 8, hi = 1u << 20;
  std::string chunks_text = "0", output;
  app->add_option("--topology", topologies,
                  "a topology to tune, once per topology (default: ring:8 biring:8 ladder:8 "
                  "line:8 and the trees ((2,2),(2,2)), ((2,2),3,(1,4)), ((8,8,8,8),(8,8,8,8)))")
      ->type_name("T")
      ->allow_extra_args(false)
      ->multi_option_policy(CLI::MultiOptionPolicy::TakeAll);
  tool::add_bytes(*app, "--min-bytes", lo, "the sweep's smallest size per chip")->default_str("8");
  tool::add_bytes(*app, "--max-bytes", hi, "the sweep's largest size per chip")->default_str("1M");
  tool::add_text(*app, "--chunks", chunks_text, "LIST",
                 "chunk sizes to try with every algorithm, comma-separated; 0 is the compiler's "
                 "automatic chunk")
      ->default_str("0");
  tool::add_file(*app, "--output", output,
                 "write the table as C++ (sw/lib/tune_table.cpp: make tune, make check-tune)");
  return tool::run_tool("fabric", *app, words, [&] {
    if (lo == 0 || hi < lo || hi > (1ull << 30) || lo % 4)
      throw Usage("--min-bytes " + human(lo) + " --max-bytes " + human(hi) +
                  ": need 0 < min <= max <= 1G, min a multiple of 4 (fp32)");
    std::vector<uint32_t> chunks;
    {
      std::stringstream ss(chunks_text);
      std::string w;
      while (std::getline(ss, w, ','))
        chunks.push_back(static_cast<uint32_t>(cli::parse_bytes("chunks", w, 1u << 24)));
      if (chunks.empty()) throw Usage("--chunks: give at least one size (0: automatic)");
    }
    if (topologies.empty()) topologies = kTuneTopologies;
    // The command, as the table records it (without --output, which differs between make tune
    // and make check-tune).
    std::string command = "fabric tune";
    if (topologies != kTuneTopologies)
      for (const std::string& t : topologies) command += " --topology '" + t + "'";
    if (lo != 8) command += " --min-bytes " + human(lo);
    if (hi != (1u << 20)) command += " --max-bytes " + human(hi);
    if (chunks_text != "0") command += " --chunks " + chunks_text;
    std::vector<Topology> topos;  // every one parsed before the first run
    for (const std::string& text : topologies) {
      topos.push_back(parse_topology(text));
      set_flit_bits(topos.back(), kTuneFlitBits);
      check_fits("model", topos.back(), CollectiveSpec{});
    }
    setenv("SC_COPYRIGHT_MESSAGE", "DISABLE", 1);
    std::printf(
        "# %s: allreduce fp32 sum, model, %d tiles, %d-bit flits, seed 1; cycles of "
        "each algorithm (best chunk), * the fastest\n",
        command.c_str(), kTuneTiles, kTuneFlitBits);
    std::vector<TunePoint> table;
    std::vector<std::string> names;  // TunePoint holds a pointer into this
    names.reserve(topologies.size());
    for (size_t k = 0; k < topologies.size(); ++k) {
      const std::string& text = topologies[k];
      const Topology& topo = topos[k];
      names.push_back(text);
      CollectiveSpec spec;
      spec.tiles = kTuneTiles;
      const std::vector<Algo> algos = valid_algos(topo, spec, true);
      for (uint64_t b = lo; b <= hi; b *= 2) {
        spec.bytes = b;
        std::string line;
        size_t first = table.size();
        uint64_t best = 0;
        for (Algo a : algos) {
          spec.algo = a;
          if (!algo_fits(topo, spec, a)) continue;
          bool have = false;
          TunePoint tp{names.back().c_str(), a, 0, b, 0};
          for (uint32_t c : chunks) {
            spec.chunk_bytes = c;
            const Point pt = measure_in_child(topo, spec, "model", 1);
            // Only what runs unchanged on the RTL too: the image must fit the host window.
            if (!pt.ok || pt.pmem_words > reg::kTilePmemSize / 4) continue;
            if (!have || pt.cycles < tp.cycles) {
              tp.cycles = pt.cycles;
              tp.chunk_bytes = c;
            }
            have = true;
          }
          if (!have) continue;
          table.push_back(tp);
          if (!best || tp.cycles < best) best = tp.cycles;
        }
        for (size_t i = first; i < table.size(); ++i) {
          char cell[64];
          std::snprintf(cell, sizeof cell, " %s%s %llu", table[i].cycles == best ? "*" : "",
                        to_string(table[i].algo), static_cast<unsigned long long>(table[i].cycles));
          line += cell;
          if (table[i].chunk_bytes) line += "/" + std::to_string(table[i].chunk_bytes);
        }
        std::printf(" %-28s %6s%s\n", cli::printable(text).c_str(), human(b).c_str(), line.c_str());
        std::fflush(stdout);
      }
    }
    if (output.empty()) return 0;
    std::ofstream f(output);
    if (!f) throw Usage("--output: cannot write " + output);
    f << "// Generated by `" << command
      << "`; do not edit.\n"
         "// make tune writes it, make check-tune measures it again and compares "
         "(docs/compiler.md section 10).\n"
         "// Allreduce fp32 sum on the model, 4 tiles per chip, 128-bit flits: the cycles of "
         "every algorithm the\n"
         "// compiler accepts, at its fastest chunk of those tried (0: the automatic chunk).\n"
         "#include \"xf/tune.hpp\"\n\nnamespace xf {\n\n"
         "const char* tune_command() { return \""
      << command << "\"; }\n\n"
      << "const std::vector<TunePoint>& tune_table() {\n"
         "  static const std::vector<TunePoint> table = {\n";
    static const char* const kEnum[] = {"kAuto", "kRing", "kBiring", "kLadder",
                                        "kLine", "kTree", "kAvg",    "kButterfly"};
    // Ordered by topology, algorithm, size (xf/tune.hpp).
    for (const std::string& name : names)
      for (int a = 0; a < 8; ++a)
        for (const TunePoint& p : table)
          if (p.topology == name && static_cast<int>(p.algo) == a)
            f << "      {\"" << p.topology << "\", Algo::" << kEnum[static_cast<int>(p.algo)]
              << ", " << p.chunk_bytes << ", " << p.bytes << ", " << p.cycles << "},\n";
    f << "  };\n  return table;\n}\n\n}  // namespace xf\n";
    std::printf("# %zu points written to %s\n", table.size(), output.c_str());
    return 0;
  });
}

// The sgd step's options with another collective.
void check_sgd_options(const CLI::App& app, const CollectiveSpec& spec) {
  for (const char* o : {"--lr", "--momentum", "--weight-decay"})
    if (tool::given(app, o) && spec.coll != Collective::kSgdStep)
      throw Usage(std::string(o) + " is for --collective sgd");
}

// fabric run and fabric plan.
int run(const CLI::App& app, Args& a, Cmd cmd, int argc, char** argv) {
  for (const char* o : {"--min-bytes", "--max-bytes", "--csv", "--json"})
    if (tool::given(app, o)) throw Usage(std::string(o) + " is for fabric bench");
  if (a.topologies.size() > 1) throw Usage("--topology given twice (only bench takes several)");
  if (a.topologies.empty()) throw Usage("--topology is required");
  const std::string& backend = a.backend;
  const bool on_board = backend.rfind("serial:", 0) == 0;  // a board, or xf_board_sim
  if (backend != "model" && backend != "rtl" && backend != "both" && !on_board)
    throw Usage("--backend " + backend + ": choose model, rtl, both or serial:DEV[@BAUD]");
  const bool trace = tool::given(app, "--trace");
  if (trace && (backend == "model" || on_board))
    throw Usage("--trace records the RTL's waves: use it with --backend rtl or both");
  if (on_board)
    for (const char* o : {"--faults", "--packet-log"})
      if (tool::given(app, o))
        throw Usage(std::string(o) +
                    " needs a simulated machine: use it with --backend "
                    "model, rtl or both, not serial");
  // --faults: link faults under the retry layer, on every backend (docs/reliability.md).
  const FaultSpec& faults = a.faults;
  Topology topo = parse_topology(a.topologies[0]);
  set_flit_bits(topo, a.flit_bits);
  check_sgd_options(app, a.spec);
  const CollectiveSpec& spec = a.spec;
  const uint64_t seed = a.seed;

  // The machines to run on, each an xf::Backend made from its name: one, or with --backend both
  // the model and then the RTL, which the checker holds to the model's run.
  const std::vector<std::string> names = backend == "both"
                                             ? std::vector<std::string>{"model", "rtl"}
                                             : std::vector<std::string>{backend};
  for (const std::string& n : names) check_fits(n, topo, spec);
  const Plan plan = plan_collective(topo, spec);
  const Image img = build_image(topo, plan);
  if (cmd == Cmd::kPlan) {
    std::printf(
        "topology %s: %d chips, %d nodes, %zu links; algorithm %s; %llu transfers, "
        "%llu descriptors; flit %d bits\n",
        cli::printable(topo.spec).c_str(), topo.num_chips, topo.num_nodes, topo.links.size(),
        to_string(plan.algo), static_cast<unsigned long long>(transfer_count(plan)),
        static_cast<unsigned long long>(img.descriptors), topo.flit_bits);
    size_t pm_max = 0;
    for (const auto& pm : img.pmem) pm_max = std::max(pm_max, pm.size());
    std::printf("parameter memory: %zu words in the largest tile; host window %u words: %s\n",
                pm_max, reg::kTilePmemSize / 4,
                pm_max <= reg::kTilePmemSize / 4
                    ? "fits"
                    : "exceeds it (the model loads it directly; an RTL chip cannot)");
    std::printf("chunk: %u bytes\n", img.chunk_bytes);
    std::printf("tile 0 program: %s, %zu instructions, %zu parameter words\n",
                img.ring_loop[0]  ? "ring loop (index-relative)"
                : img.unrolled[0] ? "unrolled descriptor list (index-relative)"
                                  : "descriptor interpreter",
                img.imem[0].size(), img.pmem[0].size());
    for (size_t i = 0; i < img.imem[0].size(); ++i)
      std::printf("  %3zu: %s\n", i, isa::disasm(img.imem[0][i]).c_str());
    for_each_step(plan, 0, [](const std::vector<Transfer>& step) {  // one step in memory
      for (const Transfer& x : step)
        std::printf("  step %3d: chip %d -> chip %d %s [%u,+%u) -> [%u,+%u)\n", x.step, x.src,
                    x.dst, x.bytes ? to_string(x.popc) : "token", x.src_addr, x.bytes, x.dst_addr,
                    x.bytes);
    });
    return 0;
  }
  std::vector<Bytes> inputs;
  if (!a.input.empty()) {
    for (int c = 0; c < topo.num_chips; ++c)
      inputs.push_back(
          read_file(a.input + "/chip" + std::to_string(c) + ".bin", io_in_bytes(plan, c)));
  } else {
    inputs = make_inputs(plan, seed, dtype_is_float(spec.dtype) ? 1 : 0);
  }
  // The sgd step: every chip's optimizer state before it, from the seed; each backend loads
  // its own copy (the run updates it) and the check runs the reference from this one.
  const bool sgd = spec.coll == Collective::kSgdStep;
  const std::vector<SgdState> state0 = sgd ? make_sgd_state(plan, seed) : std::vector<SgdState>{};
  auto sgd_reference = [&] {  // the reference's outputs, from the state before the step
    std::vector<SgdState> st = state0;
    return run_reference(plan, inputs, sgd ? &st : nullptr);
  };
  const CommConfig cfg = machine_config(plan, a.faults_text, a.trace);
  auto open_log = [](std::ofstream& f, const std::string& path) {
    f.open(path);
    if (!f) throw Usage("--packet-log: cannot write " + path);
    f << "# cycle node port src_chip src_tile seq opcode dst_chip dst_tile dst_addr len "
         "lane ctr payload_crc32 transit\n";
  };
  auto log_line = [](std::ofstream& f, const PacketSeen& p) {
    const model::Header h = model::unpack_header(p.header);
    char line[200];
    std::snprintf(line, sizeof line, "%llu %d %d %u %u %u %s %u %u %u %u %u %u %08x %d\n",
                  static_cast<unsigned long long>(p.cycle), p.node, p.port, h.src_chip, h.src_tile,
                  h.seq, to_string(h.opcode), h.dst_chip, h.dst_tile, h.dst_addr, h.len, h.lane,
                  h.ctr, p.payload_crc, p.transit ? 1 : 0);
    f << line;
  };
  // One result per backend run, in the order of `names`.
  struct Result {
    std::string backend;
    bool ok;
    std::string error;
    uint64_t cycles;
    std::vector<Bytes> outputs;
    double wall;
    std::vector<std::string> diagnosis;  // xf::diagnose (docs/errors.md)
    std::vector<SgdState> state;         // the sgd step's optimizer state after the run
  };
  std::vector<Result> results;
  const size_t es = dtype_size(spec.dtype);
  std::unique_ptr<cosim::ModelChecker> checker;  // --backend both: the second run against the first
  std::vector<model::PacketEvent> first_packets;  // the first run's packets, for the checker
  for (size_t i = 0; i < names.size(); ++i) {
    const auto t0 = std::chrono::steady_clock::now();
    const std::unique_ptr<Backend> machine = make_backend(names[i], topo, cfg);
    // --packet-log: the packets to FILE; with --backend both the second machine's go to
    // FILE.rtl, same format, cycles counted from the start.
    std::ofstream plog;
    if (!a.packet_log.empty()) open_log(plog, a.packet_log + (i ? "." + machine->name() : ""));
    const bool record = i == 0 && names.size() > 1;
    RunHooks hooks;
    if (plog.is_open() || record || checker)
      hooks.packet = [&](const PacketSeen& p) {
        if (plog.is_open()) log_line(plog, p);
        if (record) {
          first_packets.push_back(
              {p.cycle, p.node, p.port, model::unpack_header(p.header), p.payload_crc, p.transit});
        }
        // lock step: every packet is checked as its tail leaves the node
        return !checker || checker->on_packet({p.clock, p.node, p.port, p.header, p.payload_crc});
      };
    if (checker) hooks.started = [&](uint64_t clock) { checker->on_collective_start(clock); };
    machine->watch(hooks);
    std::vector<SgdState> state = state0;
    BackendRun run = machine->run(plan, img, inputs, machine->cycle_limit(), sgd ? &state : nullptr,
                                  sgd ? &state : nullptr);
    if (checker && !run.stopped && run.ok)
      checker->on_collective_end(run.end_clock, run.cycles, run.outputs);
    if (record)
      // Under faults the two backends see different faults in different cycles: outputs and
      // packet streams must still be identical, cycle counts need not be.
      checker = std::make_unique<cosim::ModelChecker>(first_packets, run.cycles, run.outputs,
                                                      sgd_reference(), es, !faults.any());
    for (const std::string& line : machine->notes()) std::printf("%s\n", line.c_str());
    const double wall =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    results.push_back({machine->name(), run.ok, run.error, run.cycles, std::move(run.outputs), wall,
                       std::move(run.diagnosis), std::move(state)});
  }
  if (!a.output.empty() && !results.back().outputs.empty()) {
    const std::vector<Bytes>& out = results.back().outputs;
    for (int c = 0; c < topo.num_chips; ++c) {
      const std::string path = a.output + "/chip" + std::to_string(c) + ".bin";
      std::ofstream f(path, std::ios::binary);
      if (!f) throw Usage("--output: cannot write " + path + " (does the directory exist?)");
      f.write(reinterpret_cast<const char*>(out[c].data()),
              static_cast<std::streamsize>(out[c].size()));
    }
  }
  const double bound = bound_cycles(plan);
  if (!a.no_header) {
    std::printf("# flit %d bits\n", topo.flit_bits);
    std::printf("#%13s %-7s %14s %10s %8s %5s %5s %10s %10s %10s %6s %7s %8s %7s\n", "topology",
                "algo", "collective", "size", "count", "type", "redop", "cycles", "algbw", "busbw",
                "eff", "#wrong", "wall_s", "backend");
  }
  int status = 0;
  for (const Result& r : results) {
    // A run the checker stopped has no outputs: its row counts no elements (the checker says
    // what went wrong).
    const Check chk = r.outputs.empty() ? Check{}
                                        : check_outputs(plan, inputs, r.outputs, a.input.empty(),
                                                        sgd ? &state0 : nullptr);
    const double cyc = static_cast<double>(r.cycles);
    const double algbw = static_cast<double>(spec.bytes) / cyc;
    const double busbw = algbw * busbw_factor(spec.coll, topo.num_chips);
    const double eff = bound / cyc;
    std::printf(" %13s %-7s %14s %10s %8llu %5s %5s %10llu %10.3f %10.3f %6.3f %7llu %8.2f %7s\n",
                cli::printable(topo.spec).c_str(), to_string(plan.algo), to_string(spec.coll),
                human(spec.bytes).c_str(), static_cast<unsigned long long>(spec.bytes / es),
                to_string(spec.dtype), to_string(spec.op),
                static_cast<unsigned long long>(r.cycles), algbw, busbw, eff,
                static_cast<unsigned long long>(chk.wrong), r.wall, r.backend.c_str());
    status = std::max(status, report(r.backend.c_str(), r.ok, r.error, chk, spec.op));
    // A run that succeeded over an escalated link: the data got through, but the link was down
    // or too noisy for a while (recovered errors are summed in the "# faults" line instead).
    if (r.ok)
      for (const std::string& line : r.diagnosis)
        if (line.find("escalated") != std::string::npos)
          std::fprintf(stderr, "fabric: %s: %s\n", r.backend.c_str(), line.c_str());
  }
  if (sgd) {
    // The optimizer state each backend read back, against the reference's.
    std::vector<SgdState> ref = state0;
    run_reference(plan, inputs, &ref);
    for (const Result& r : results) {
      if (r.outputs.empty()) continue;
      const std::vector<SgdState>& got = r.state;
      int differ = 0;
      for (int c = 0; c < topo.num_chips; ++c)
        differ += got[c].weights != ref[c].weights || got[c].momentum != ref[c].momentum;
      std::printf("# %s: optimizer state (weight and momentum shards) %s\n", r.backend.c_str(),
                  differ ? (std::to_string(differ) + " chips differ from the reference").c_str()
                         : "bit-identical to the reference on every chip");
      if (differ) status = 1;
    }
  }
  if (checker) {
    const Result &m = results[0], &r = results[1];
    if (checker->mismatch()) {
      checker->report(stderr, reproduce_command(argc, argv));
      status = 1;
    } else if (m.ok && r.ok) {
      std::printf(
          "# rtl/model cycles: %llu / %llu = %.4f%s; memories bit-identical; %zu streams, %zu "
          "packets identical\n",
          static_cast<unsigned long long>(r.cycles), static_cast<unsigned long long>(m.cycles),
          static_cast<double>(r.cycles) / static_cast<double>(m.cycles),
          faults.any() ? " (not compared under faults)" : "", checker->streams(),
          checker->packets());
    }
  }
  return status;
}

// fabric run, plan or bench: the subcommand's app, its options and its body.
int collective_main(Cmd cmd, const std::vector<std::string>& words, int argc, char** argv) {
  static const char* const kName[] = {"run", "plan", "bench"};
  static const char* const kWhat[] = {
      "compiles a collective, runs it and checks every chip's result against the C++ reference "
      "(docs/fabric.md)",
      "prints a collective's schedule summary and tile 0's program",
      "a size sweep: one checked run per power of two from --min-bytes to --max-bytes, as a "
      "nccl-tests table (docs/fabric.md section 9)"};
  const int k = static_cast<int>(cmd);
  auto app = tool::make_app(std::string("fabric ") + kName[k], kWhat[k]);
  Args a;
  a.spec.bytes = kDefaultBytes;  // M per chip: 64 KiB unless given (docs/fabric.md)
  add_options(*app, a, cmd);
  return tool::run_tool("fabric", *app, words, [&] {
    return cmd == Cmd::kBench ? bench(*app, a) : run(*app, a, cmd, argc, argv);
  });
}

}  // namespace

int sc_main(int argc, char** argv) {
  // The subcommands; each parses its own options (train, average-study, topo: their own files).
  auto app = tool::make_app("fabric", "The exchange fabric's command-line tool (docs/fabric.md).");
  app->require_subcommand(0, 1);
  app->footer(
      "topologies: ring:P biring:P line:P ladder:P tree:SPEC file:PATH\n"
      "`fabric COMMAND --help` lists a command's options.");
  const std::vector<std::pair<const char*, const char*>> commands = {
      {"run", "run a collective and check it (model, rtl, both or a board)"},
      {"plan", "print a collective's schedule and program"},
      {"bench", "a size sweep of checked runs (nccl-tests table, CSV, JSON)"},
      {"tune", "measure every algorithm per size; the table of the automatic choice"},
      {"train", "the data-parallel training demo"},
      {"average-study", "pairwise averaging's accuracy against the exact mean"},
      {"topo", "draw a topology (Graphviz)"}};
  for (const auto& [name, what] : commands) {
    CLI::App* sub = app->add_subcommand(name, what);
    sub->prefix_command();  // the command's own app parses the rest
    sub->set_help_flag();
  }
  std::vector<std::string> words(argv + 1, argv + argc), rest;
  if (words.size() == 1 && words[0] == "help") words[0] = "--help";
  std::string cmd;
  const int st = tool::run_tool(
      "fabric", *app, words,
      [&] {
        if (app->get_subcommands().empty()) throw Usage("which command?");
        cmd = app->get_subcommands()[0]->get_name();
        rest = app->get_subcommands()[0]->remaining();
        return 0;
      },
      [](const std::string& word) { throw Usage("unknown command '" + word + "'"); });
  if (cmd.empty()) return st;
  if (cmd == "train") return train_main(rest, argv[0]);
  if (cmd == "average-study") return average_study_main(rest);
  if (cmd == "topo") return topo_main(rest);
  if (cmd == "tune") return tune_main(rest);
  return collective_main(cmd == "run"    ? Cmd::kRun
                         : cmd == "plan" ? Cmd::kPlan
                                         : Cmd::kBench,
                         rest, argc, argv);
}
