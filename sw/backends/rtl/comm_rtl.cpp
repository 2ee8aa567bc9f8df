// The communicator's RTL backend (xf/comm.hpp): the Verilated xf_chip and xf_switch of the
// program that links this file (fabric), wired by sw/backends/rtl/rtl_system.hpp, kept for the
// communicator's life so that the sgd step's optimizer state stays in the chips' memories. It
// writes the waves of CommConfig::trace, reports every packet to RunHooks (fabric run's packet
// log and co-simulation checker) and, under faults, the links' counts.
#include <algorithm>
#include <cstdlib>
#include <memory>
#include <stdexcept>
#include <string>

#include "flit.hpp"
#include "rtl_system.hpp"
#include "rtl_widths.hpp"
#include "verilated.h"
#include "xf/comm.hpp"
#include "xf/faults.hpp"

namespace xf {
namespace {

constexpr int kTiles = 4;        // NumTiles of the Verilated chip
constexpr int kTableChips = 64;  // TableChips of the Verilated chip and switch

// Sys: the machine of Verilated chips (4 links) and switch nodes (16 links) at the topology's
// flit width (rtl_widths.hpp: one per width this build has).
template <class Sys>
class RtlBackend final : public Backend {
 public:
  RtlBackend(const Topology& topo, const CommConfig& cfg)
      : topo_(topo), faults_(cfg.faults.empty() ? FaultSpec{} : parse_faults(cfg.faults)) {
    const std::string why = Sys::unfit(topo);
    if (!why.empty()) throw std::runtime_error(topo.spec + ": " + why + " (use the model backend)");
    if (cfg.tiles > kTiles)
      throw std::runtime_error("CommConfig::tiles = " + std::to_string(cfg.tiles) +
                               "; the RTL chip has " + std::to_string(kTiles) + " tiles");
    if (!cfg.trace.empty()) ctx_.traceEverOn(true);  // before the nodes are built
    sys_ = std::make_unique<Sys>(topo, cfg.tiles, &ctx_, &faults_);
    if (!cfg.trace.empty()) sys_->open_trace(cfg.trace);
  }
  ~RtlBackend() override {
    sys_.reset();  // closes the trace; make coverage: its counts go to XF_COVERAGE_DAT at exit
  }
  std::string name() const override { return "rtl"; }
  uint32_t tile_dmem_bytes() const override { return reg::kTileDmemSize; }
  int max_tiles() const override { return kTiles; }
  void watch(const RunHooks& hooks) override {
    sys_->start_observer = [this, f = hooks.started](uint64_t c) {
      zero_ = c + 1;  // the collective's cycle 0 (the tiles see the start a cycle later)
      if (f) f(c);
    };
    sys_->observer = nullptr;
    if (hooks.packet)
      sys_->observer = [this, f = hooks.packet](const rtl::RtlPacket& e) {
        PacketSeen p;
        p.clock = e.cycle;
        p.cycle = e.cycle - zero_;
        p.node = e.node;
        p.port = e.port;
        p.header = e.header;
        p.payload_crc = e.payload_crc;
        p.transit = e.node >= topo_.num_chips ||
                    model::unpack_header(e.header).src_chip != static_cast<unsigned>(e.node);
        if (!f(p)) sys_->request_stop("the checker found a mismatch");
      };
  }
  BackendRun run(const Plan& plan, const Image& img, const std::vector<Bytes>& inputs,
                 uint64_t max_cycles, std::vector<SgdState>* state_in,
                 std::vector<SgdState>* state_out) override {
    rtl::RtlCollectiveRun r =
        rtl::run_on_rtl(*sys_, plan, img, inputs, max_cycles, state_in, state_out);
    const bool timeout = r.stats.error == "cycle limit reached";
    const bool stopped = r.stats.stopped;
    BackendRun b = backend_run(std::move(r), timeout);
    b.stopped = stopped;
    b.end_clock = sys_->cycle();
    if (faults_.any()) counts_ = link_counts();  // after end_clock: the reads run the machine
    return b;
  }
  std::vector<std::string> notes() const override {
    if (!faults_.any()) return {};
    return {link_counts_line("rtl", counts_)};
  }

 private:
  // The retry layer's counts from every node's link registers (links 0..7: the register map has
  // no slots for the links 8 and up of a wider switch), the wires' from the harness, from
  // reset: the RTL's wires also carry faults while the host loads and reads back.
  LinkCounts link_counts() {
    constexpr int kRegLinks = static_cast<int>(reg::kLinkCrcErrorsSize / 4);
    LinkCounts c{};
    for (int n = 0; n < topo_.num_nodes; ++n)
      for (int p = 0; p < std::min(topo_.num_ports[n], kRegLinks); ++p) {
        c.crc_errors += sys_->host_read32(n, reg::kLinkCrcErrors + 4 * p) & 0xFFFFu;
        const uint32_t st = sys_->host_read32(n, reg::kLinkStatus + 4 * p);
        const uint32_t di = sys_->host_read32(n, reg::kLinkDiscards + 4 * p);
        c.replays += st >> 16;
        c.escalated += st & 1u;
        c.discards += di & 0xFFFFu;
        c.timeouts += di >> 16;
      }
    const FaultCounts f = sys_->fault_counts();
    c.words = f.words;
    c.corrupted = f.flipped_words;
    c.dropped = f.dropped;
    c.stall = f.stall_cycles;
    c.down = f.down_cycles;
    return c;
  }

  Topology topo_;
  VerilatedContext ctx_;
  FaultSpec faults_;
  std::unique_ptr<Sys> sys_;
  uint64_t zero_ = 0;  // harness cycle of the collective's cycle 0
  LinkCounts counts_{};
};

}  // namespace

std::string rtl_refuses(const Topology& topo, const CommConfig& cfg) {
  if (topo.num_chips > kTableChips)
    return "--topology " + topo.spec + ": " + std::to_string(topo.num_chips) +
           " chips, but the RTL nodes' routing tables hold " + std::to_string(kTableChips) +
           "; use --backend model for it";
  if (cfg.tiles > kTiles)
    return "--tiles " + std::to_string(cfg.tiles) + ": the RTL chip has " + std::to_string(kTiles) +
           " tiles; use --tiles 1.." + std::to_string(kTiles) + " with --backend rtl or both";
  std::string why;
  try {
    why = rtl::with_machine(topo.flit_bits,
                            [&](auto tag) { return decltype(tag)::type::unfit(topo); });
  } catch (const std::runtime_error& e) {
    return "--flit-bits " + std::to_string(topo.flit_bits) + ": " + e.what();
  }
  if (!why.empty()) return "--topology " + topo.spec + ": " + why + "; use --backend model for it";
  return "";
}

std::unique_ptr<Backend> make_rtl_backend(const Topology& topo, const CommConfig& cfg) {
  return rtl::with_machine(topo.flit_bits, [&](auto tag) -> std::unique_ptr<Backend> {
    return std::make_unique<RtlBackend<typename decltype(tag)::type>>(topo, cfg);
  });
}

}  // namespace xf
