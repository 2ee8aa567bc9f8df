// fabric: the command-line front end (docs/fabric.md).
//
//   fabric run --topology T --collective C --dtype D --op O --bytes N [--backend model|rtl|both]
//              [--algo A] [--seed S] [--root R] [--tiles N] [--sat] [--chunk B]
//              [--input DIR] [--output DIR] [--no-header]
//   fabric plan ...same options...   prints the schedule summary and the program
//
// `run` compiles the collective, runs it, checks every chip's result against the plain C++
// reference (same reduction order, bit for bit) and, where one exists, against the
// order-independent exact result; prints one nccl-tests-style row; exits 1 on any wrong
// element or run error and 2 on a bad argument. `--backend rtl` runs the same image on a machine
// of Verilated chips and switch nodes (tb/rtl_system.hpp); `both` runs the model and the RTL and
// also requires their memories to be bit-identical and their cycle counts within 2%.
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iostream>
#include <map>
#include <memory>
#include <sstream>
#include <string>

#include "Vxf_chip.h"
#include "Vxf_switch.h"
#include "cosim_checker.hpp"
#include "driver.hpp"
#include "rtl_system.hpp"
#include "xf/alu.hpp"
#include "xf/compiler.hpp"
#include "xf/faults.hpp"
#include "xf/reference.hpp"
#include "xf/topology.hpp"

using namespace xf;

namespace {

constexpr int kRtlLinks = 4;  // NumLinks of the Verilated chip and switch (their defaults)
constexpr int kRtlTiles = 4;  // NumTiles of the Verilated chip

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
    std::fprintf(stderr, "fabric: %s run failed: %s\n", backend, error.c_str());
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

struct Usage : std::runtime_error {
  using std::runtime_error::runtime_error;
};

uint64_t parse_bytes(const std::string& s) {
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

std::string human(uint64_t b) {
  char buf[32];
  if (b >= (1u << 20) && b % (1u << 20) == 0)
    std::snprintf(buf, sizeof buf, "%lluM", static_cast<unsigned long long>(b >> 20));
  else if (b >= 1024 && b % 1024 == 0)
    std::snprintf(buf, sizeof buf, "%lluK", static_cast<unsigned long long>(b >> 10));
  else
    std::snprintf(buf, sizeof buf, "%llu", static_cast<unsigned long long>(b));
  return buf;
}

long long parse_int(const std::string& opt, const std::string& s, long long lo, long long hi) {
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

Bytes read_file(const std::string& path, uint64_t want) {
  std::ifstream f(path, std::ios::binary);
  if (!f) throw Usage("--input: cannot open " + path);
  Bytes b((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
  if (b.size() != want)
    throw Usage("--input: " + path + " has " + std::to_string(b.size()) + " bytes, expected " +
                std::to_string(want) + " (one raw little-endian file per chip)");
  return b;
}

// Under --faults: what the wires did and what the retry layer did about it, one line per backend
// ("# faults rtl: ..."), so that scripts (scripts/bench_faults.sh) can compute goodput.
void print_model_links(const model::RunStats& st) {
  const model::LinkStats& l = st.link;
  std::printf(
      "# faults model: words %llu corrupted %llu dropped %llu stall %llu down %llu | "
      "crc_errors %llu replays %llu timeouts %llu discards %llu escalated %llu\n",
      static_cast<unsigned long long>(l.words), static_cast<unsigned long long>(l.corrupted),
      static_cast<unsigned long long>(l.dropped), static_cast<unsigned long long>(l.stall_cycles),
      static_cast<unsigned long long>(l.lost_down), static_cast<unsigned long long>(l.corrupted),
      static_cast<unsigned long long>(l.replays), static_cast<unsigned long long>(l.timeouts),
      static_cast<unsigned long long>(l.discards), static_cast<unsigned long long>(l.escalations));
}

template <class Sys>
void print_rtl_links(Sys& sys, const Topology& topo) {
  uint64_t crc = 0, replays = 0, timeouts = 0, discards = 0, escalated = 0;
  for (int n = 0; n < topo.num_nodes; ++n)
    for (int p = 0; p < topo.num_ports[n]; ++p) {
      crc += sys.host_read32(n, reg::kLinkCrcErrors + 4 * p) & 0xFFFFu;
      const uint32_t st = sys.host_read32(n, reg::kLinkStatus + 4 * p);
      const uint32_t di = sys.host_read32(n, reg::kLinkDiscards + 4 * p);
      replays += st >> 16;
      escalated += st & 1u;
      discards += di & 0xFFFFu;
      timeouts += di >> 16;
    }
  // The wires' counts after the register reads (which run the machine a few more cycles), from
  // reset: the RTL's wires also carry faults while the host loads and reads back.
  const FaultCounts f = sys.fault_counts();
  std::printf(
      "# faults rtl: words %llu corrupted %llu dropped %llu stall %llu down %llu | "
      "crc_errors %llu replays %llu timeouts %llu discards %llu escalated %llu\n",
      static_cast<unsigned long long>(f.words), static_cast<unsigned long long>(f.flipped_words),
      static_cast<unsigned long long>(f.dropped), static_cast<unsigned long long>(f.stall_cycles),
      static_cast<unsigned long long>(f.down_cycles), static_cast<unsigned long long>(crc),
      static_cast<unsigned long long>(replays), static_cast<unsigned long long>(timeouts),
      static_cast<unsigned long long>(discards), static_cast<unsigned long long>(escalated));
}

int usage(const char* why) {
  if (why) std::fprintf(stderr, "fabric: %s\n", why);
  std::fprintf(stderr,
               "usage: fabric run --topology T --collective C --dtype D --op O --bytes N\n"
               "                  [--backend model|rtl|both] [--trace FILE.fst]\n"
               "                  [--faults ber=P,wer=P,drop=P,stall=P,down=P,downlen=N,seed=S]\n"
               "                  [--algo auto|ring|biring|ladder|line|tree|avg]\n"
               "                  [--seed S] [--root R] [--tiles N] [--sat] [--chunk BYTES]\n"
               "                  [--input DIR] [--output DIR] [--packet-log FILE] [--no-header]\n"
               "       fabric plan (same options): print the schedule and the program\n"
               "topologies: ring:P biring:P line:P ladder:P tree:SPEC file:PATH\n");
  return 2;
}

}  // namespace

int sc_main(int argc, char** argv) {
  if (argc < 2) return usage(nullptr);
  const std::string cmd = argv[1];
  if (cmd == "-h" || cmd == "--help" || cmd == "help") {
    usage(nullptr);
    return 0;
  }
  if (cmd != "run" && cmd != "plan") return usage(("unknown command '" + cmd + "'").c_str());
  std::map<std::string, std::string> opt;
  const std::map<std::string, bool> known = {
      {"topology", true}, {"collective", true}, {"dtype", true},      {"op", true},
      {"bytes", true},    {"backend", true},    {"algo", true},       {"seed", true},
      {"root", true},     {"tiles", true},      {"sat", false},       {"chunk", true},
      {"input", true},    {"output", true},     {"no-header", false}, {"trace", true},
      {"faults", true},   {"packet-log", true}};
  for (int i = 2; i < argc; ++i) {
    std::string a = argv[i];
    if (a.rfind("--", 0) != 0) return usage(("unexpected argument '" + a + "'").c_str());
    a = a.substr(2);
    std::string val;
    const size_t eq = a.find('=');
    if (eq != std::string::npos) {
      val = a.substr(eq + 1);
      a = a.substr(0, eq);
    }
    auto k = known.find(a);
    if (k == known.end()) return usage(("unknown option --" + a).c_str());
    if (k->second && eq == std::string::npos) {
      if (i + 1 >= argc) return usage(("--" + a + " needs a value").c_str());
      val = argv[++i];
    }
    opt[a] = k->second ? val : "1";
  }
  try {
    for (const char* req : {"topology", "bytes"})
      if (!opt.count(req)) throw Usage(std::string("--") + req + " is required");
    const std::string backend = opt.count("backend") ? opt["backend"] : "model";
    if (backend != "model" && backend != "rtl" && backend != "both")
      throw Usage("--backend " + backend + ": choose model, rtl or both");
    if (opt.count("trace") && backend == "model")
      throw Usage("--trace records the RTL's waves: use it with --backend rtl or both");
    // --faults: link faults under the retry layer, on every backend (docs/reliability.md).
    const FaultSpec faults = opt.count("faults") ? parse_faults(opt["faults"]) : FaultSpec{};
    const Topology topo = parse_topology(opt["topology"]);
    CollectiveSpec spec;
    spec.coll = parse_collective(opt.count("collective") ? opt["collective"] : "allreduce");
    spec.dtype = parse_dtype(opt.count("dtype") ? opt["dtype"] : "fp32");
    spec.op = parse_op(opt.count("op") ? opt["op"] : "sum");
    spec.bytes = parse_bytes(opt["bytes"]);
    spec.sat = opt.count("sat");
    if (opt.count("algo")) spec.algo = parse_algo(opt["algo"]);
    if (opt.count("root")) spec.root = static_cast<int>(parse_int("root", opt["root"], 0, 4095));
    if (opt.count("tiles"))
      spec.tiles = static_cast<int>(parse_int("tiles", opt["tiles"], 1, kMaxTiles));
    if (opt.count("chunk")) spec.chunk_bytes = static_cast<uint32_t>(parse_bytes(opt["chunk"]));
    const uint64_t seed =
        opt.count("seed") ? static_cast<uint64_t>(parse_int("seed", opt["seed"], 0, 1ll << 62)) : 1;

    if (backend != "model") {
      if (spec.tiles > kRtlTiles)
        throw Usage("--tiles " + std::to_string(spec.tiles) + ": the RTL chip has " +
                    std::to_string(kRtlTiles) + " tiles; use --tiles 1.." +
                    std::to_string(kRtlTiles) + " with --backend rtl or both");
      for (int n = 0; n < topo.num_nodes; ++n)
        if (topo.num_ports[n] > kRtlLinks)
          throw Usage("--topology " + topo.spec + ": node " + std::to_string(n) + " has " +
                      std::to_string(topo.num_ports[n]) + " links, the RTL chip and switch " +
                      std::to_string(kRtlLinks) + "; use --backend model for it");
    }
    const Plan plan = plan_collective(topo, spec);
    const Image img = build_image(topo, plan);
    if (cmd == "plan") {
      std::printf(
          "topology %s: %d chips, %d nodes, %zu links; algorithm %s; %zu transfers, "
          "%llu descriptors\n",
          topo.spec.c_str(), topo.num_chips, topo.num_nodes, topo.links.size(),
          to_string(plan.algo), plan.transfers.size(),
          static_cast<unsigned long long>(img.descriptors));
      size_t pm_max = 0;
      for (const auto& pm : img.pmem) pm_max = std::max(pm_max, pm.size());
      std::printf("parameter memory: %zu words in the largest tile; host window %u words: %s\n",
                  pm_max, reg::kTilePmemSize / 4,
                  pm_max <= reg::kTilePmemSize / 4
                      ? "fits"
                      : "exceeds it (the model loads it directly; an RTL chip cannot)");
      std::printf("chunk: %u bytes\n", img.chunk_bytes);
      std::printf("tile 0 program: %s, %zu instructions, %zu parameter words\n",
                  img.ring_loop[0] ? "ring loop (index-relative)" : "descriptor interpreter",
                  img.imem[0].size(), img.pmem[0].size());
      for (size_t i = 0; i < img.imem[0].size(); ++i)
        std::printf("  %3zu: %s\n", i, isa::disasm(img.imem[0][i]).c_str());
      for (const Transfer& x : plan.transfers)
        if (x.plane == 0)
          std::printf("  step %3d: chip %d -> chip %d %s [%u,+%u) -> [%u,+%u)\n", x.step, x.src,
                      x.dst, x.bytes ? to_string(x.popc) : "token", x.src_addr, x.bytes, x.dst_addr,
                      x.bytes);
      return 0;
    }
    std::vector<Bytes> inputs;
    if (opt.count("input")) {
      for (int c = 0; c < topo.num_chips; ++c)
        inputs.push_back(
            read_file(opt["input"] + "/chip" + std::to_string(c) + ".bin", io_in_bytes(plan, c)));
    } else {
      inputs = make_inputs(plan, seed, dtype_is_float(spec.dtype) ? 1 : 0);
    }
    const auto t0 = std::chrono::steady_clock::now();
    // --packet-log: the model's packets (or, with --backend rtl, the RTL's) to FILE; with
    // --backend both the RTL's go to FILE.rtl, same format, cycles counted from the start.
    std::ofstream plog, plog_rtl;
    auto open_log = [](std::ofstream& f, const std::string& path) {
      f.open(path);
      if (!f) throw Usage("--packet-log: cannot write " + path);
      f << "# cycle node port src_chip src_tile seq opcode dst_chip dst_tile dst_addr len "
           "lane ctr payload_crc32 transit\n";
    };
    auto log_line = [](std::ofstream& f, const model::PacketEvent& e) {
      char line[200];
      std::snprintf(line, sizeof line, "%llu %d %d %u %u %u %s %u %u %u %u %u %u %08x %d\n",
                    static_cast<unsigned long long>(e.cycle), e.node, e.port, e.hdr.src_chip,
                    e.hdr.src_tile, e.hdr.seq, to_string(e.hdr.opcode), e.hdr.dst_chip,
                    e.hdr.dst_tile, e.hdr.dst_addr, e.hdr.len, e.hdr.lane, e.hdr.ctr, e.payload_crc,
                    e.transit ? 1 : 0);
      f << line;
    };
    model::PacketObserver observer;
    std::vector<model::PacketEvent> model_packets;  // --backend both: the streams to compare
    if (opt.count("packet-log")) {
      if (backend != "rtl") {
        open_log(plog, opt["packet-log"]);
        observer = [&](const model::PacketEvent& e) { log_line(plog, e); };
      }
      if (backend != "model")
        open_log(plog_rtl, opt["packet-log"] + (backend == "both" ? ".rtl" : ""));
    }
    // One result per backend run: the model's, the RTL's, or both in that order.
    struct Result {
      const char* backend;
      bool ok;
      std::string error;
      uint64_t cycles;
      std::vector<Bytes> outputs;
      double wall;
      std::vector<std::string> diagnosis;  // xf::diagnose (docs/errors.md)
    };
    std::vector<Result> results;
    if (backend == "both") {
      model::PacketObserver log = observer;
      observer = [log, &model_packets](const model::PacketEvent& e) {
        model_packets.push_back(e);
        if (log) log(e);
      };
    }
    const size_t es = dtype_size(spec.dtype);
    std::unique_ptr<cosim::ModelChecker> checker;  // --backend both
    if (backend != "rtl") {
      const model::CollectiveRun run =
          model::run_on_model(topo, plan, img, inputs, 2'000'000'000, observer, faults);
      const double wall =
          std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
      results.push_back({"model", run.stats.ok, run.stats.error, run.stats.cycles, run.outputs,
                         wall, run.diagnosis});
      if (backend == "both")
        // Under faults the two backends see different faults in different cycles: outputs and
        // packet streams must still be identical, cycle counts need not be.
        checker = std::make_unique<cosim::ModelChecker>(model_packets, run.stats.cycles,
                                                        run.outputs, run_reference(plan, inputs),
                                                        es, faults.any() ? 1e9 : 0.02);
      if (faults.any()) print_model_links(run.stats);
    }
    if (backend != "model") {
      const auto t1 = std::chrono::steady_clock::now();
      VerilatedContext ctx;
      if (opt.count("trace")) ctx.traceEverOn(true);
      rtl::RtlSystem<Vxf_chip, Vxf_switch, kRtlLinks> sys(topo, spec.tiles, &ctx, &faults);
      if (opt.count("trace")) sys.open_trace(opt["trace"]);
      uint64_t zero = 0;  // harness cycle of the collective's cycle 0
      sys.start_observer = [&](uint64_t c) {
        zero = c + 1;
        if (checker) checker->on_collective_start(c);
      };
      sys.observer = [&](const rtl::RtlPacket& e) {
        if (plog_rtl.is_open()) {
          model::PacketEvent m;
          m.cycle = e.cycle - zero;
          m.node = e.node;
          m.port = e.port;
          m.hdr = model::unpack_header(e.header);
          m.payload_crc = e.payload_crc;
          m.transit = e.node >= topo.num_chips || m.hdr.src_chip != static_cast<unsigned>(e.node);
          log_line(plog_rtl, m);
        }
        // lock step: every packet is checked as its tail leaves the node
        if (checker && !checker->on_packet(e)) sys.request_stop("the checker found a mismatch");
      };
      rtl::RtlCollectiveRun run = rtl::run_on_rtl(sys, plan, img, inputs);
      if (checker && !run.stats.stopped && run.stats.ok)
        checker->on_collective_end(sys.cycle(), run.stats.cycles, run.outputs);
      if (faults.any()) print_rtl_links(sys, topo);
      sys.close_trace();
#if VM_COVERAGE  // make coverage: each run writes its counts where XF_COVERAGE_DAT says
      const char* cov = std::getenv("XF_COVERAGE_DAT");
      ctx.coveragep()->write(cov ? cov : "coverage.dat");
#endif
      const double wall =
          std::chrono::duration<double>(std::chrono::steady_clock::now() - t1).count();
      results.push_back({"rtl", run.stats.ok, run.stats.error, run.stats.cycles, run.outputs, wall,
                         run.diagnosis});
    }
    if (opt.count("output") && !results.back().outputs.empty()) {
      const std::vector<Bytes>& out = results.back().outputs;
      for (int c = 0; c < topo.num_chips; ++c) {
        const std::string path = opt["output"] + "/chip" + std::to_string(c) + ".bin";
        std::ofstream f(path, std::ios::binary);
        if (!f) throw Usage("--output: cannot write " + path + " (does the directory exist?)");
        f.write(reinterpret_cast<const char*>(out[c].data()),
                static_cast<std::streamsize>(out[c].size()));
      }
    }
    const double bound = bound_cycles(plan);
    if (!opt.count("no-header"))
      std::printf("#%13s %-7s %14s %10s %8s %5s %5s %10s %10s %10s %6s %7s %8s %7s\n", "topology",
                  "algo", "collective", "size", "count", "type", "redop", "cycles", "algbw",
                  "busbw", "eff", "#wrong", "wall_s", "backend");
    int status = 0;
    for (const Result& r : results) {
      // A run the checker stopped has no outputs: its row counts no elements (the checker says
      // what went wrong).
      const Check chk =
          r.outputs.empty() ? Check{} : check_outputs(plan, inputs, r.outputs, !opt.count("input"));
      const double cyc = static_cast<double>(r.cycles);
      const double algbw = static_cast<double>(spec.bytes) / cyc;
      const double busbw = algbw * busbw_factor(spec.coll, topo.num_chips);
      const double eff = bound / cyc;
      std::printf(" %13s %-7s %14s %10s %8llu %5s %5s %10llu %10.3f %10.3f %6.3f %7llu %8.2f %7s\n",
                  topo.spec.c_str(), to_string(plan.algo), to_string(spec.coll),
                  human(spec.bytes).c_str(), static_cast<unsigned long long>(spec.bytes / es),
                  to_string(spec.dtype), to_string(spec.op),
                  static_cast<unsigned long long>(r.cycles), algbw, busbw, eff,
                  static_cast<unsigned long long>(chk.wrong), r.wall, r.backend);
      status = std::max(status, report(r.backend, r.ok, r.error, chk, spec.op));
      // A run that succeeded over an escalated link: the data got through, but the link was down
      // or too noisy for a while (recovered errors are summed in the "# faults" line instead).
      if (r.ok)
        for (const std::string& line : r.diagnosis)
          if (line.find("escalated") != std::string::npos)
            std::fprintf(stderr, "fabric: %s: %s\n", r.backend, line.c_str());
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
  } catch (const Usage& e) {
    return usage(e.what());
  } catch (const TopologyError& e) {
    return usage(e.what());
  } catch (const CompileError& e) {
    return usage(e.what());
  } catch (const std::invalid_argument& e) {
    return usage(e.what());
  } catch (const std::exception& e) {
    std::fprintf(stderr, "fabric: error: %s\n", e.what());
    return 1;
  }
}
