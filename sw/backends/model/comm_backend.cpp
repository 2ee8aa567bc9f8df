// The communicator's model backend (xf/comm.hpp): the SystemC model; and the stand-in for the RTL
// backend in programs built without the Verilated chip (sw/backends/rtl/comm_rtl.cpp replaces it
// where it is linked, as in fabric). The serial backend is sw/backends/serial/serial_backend.cpp.
#include <memory>
#include <stdexcept>

#include "driver.hpp"
#include "system.hpp"
#include "xf/comm.hpp"
#include "xf/faults.hpp"
#include "xf/host_driver.hpp"

namespace xf {
namespace {

// True once a model communicator exists: SystemC elaborates once per process.
bool g_model_built = false;

class ModelBackend final : public Backend {
 public:
  ModelBackend(const Topology& topo, const CommConfig& cfg) {
    if (g_model_built)
      throw std::runtime_error(
          "a process holds one model communicator (SystemC elaborates once per process); "
          "keep the first one and use it for every call");
    faults_ = cfg.faults.empty() ? FaultSpec{} : parse_faults(cfg.faults);
    tiles_ = cfg.tiles;
    dmem_ = cfg.model_dmem_bytes ? cfg.model_dmem_bytes : reg::kTileDmemSize;
    sys_ = std::make_unique<model::System>(topo, tiles_, dmem_, faults_);
    num_nodes_ = topo.num_nodes;
    g_model_built = true;
  }
  std::string name() const override { return "model"; }
  uint32_t tile_dmem_bytes() const override { return dmem_; }
  int max_tiles() const override { return tiles_; }
  // The model runs a long collective (ring:1024 at 1 MiB) in reasonable time.
  uint64_t cycle_limit() const override { return 2'000'000'000; }
  void watch(const RunHooks& hooks) override {
    model::PacketObserver observer;
    if (hooks.packet)
      observer = [f = hooks.packet](const model::PacketEvent& e) {
        PacketSeen p;
        p.cycle = p.clock = e.cycle;
        p.node = e.node;
        p.port = e.port;
        p.header = model::pack_header(e.hdr);
        p.payload_crc = e.payload_crc;
        p.transit = e.transit;
        f(p);  // the model does not stop: the checker watches the RTL against it
      };
    for (int n = 0; n < num_nodes_; ++n) sys_->node(n).exchange().observer = observer;
  }
  BackendRun run(const Plan& plan, const Image& img, const std::vector<Bytes>& inputs,
                 uint64_t max_cycles, std::vector<SgdState>* state_in,
                 std::vector<SgdState>* state_out) override {
    model::CollectiveRun r =
        model::run_on_system(*sys_, plan, img, inputs, max_cycles, state_in, state_out);
    link_ = r.stats.link;
    const bool timeout = r.stats.cycles >= max_cycles;
    BackendRun b = backend_run(std::move(r), timeout);
    b.end_clock = b.cycles;
    return b;
  }
  std::vector<std::string> notes() const override {
    if (!faults_.any()) return {};
    const model::LinkStats& l = link_;
    return {
        link_counts_line("model", {l.words, l.corrupted, l.dropped, l.stall_cycles, l.lost_down,
                                   l.corrupted, l.replays, l.timeouts, l.discards, l.escalations})};
  }

 private:
  int tiles_ = 0, num_nodes_ = 0;
  uint32_t dmem_ = 0;
  FaultSpec faults_;
  model::LinkStats link_{};
  std::unique_ptr<model::System> sys_;
};

}  // namespace

std::unique_ptr<Backend> make_model_backend(const Topology& topo, const CommConfig& cfg) {
  return std::make_unique<ModelBackend>(topo, cfg);
}

// Programs that link the Verilated chip (fabric) define the real ones in
// sw/backends/rtl/comm_rtl.cpp.
__attribute__((weak)) std::string rtl_refuses(const Topology&, const CommConfig&) { return ""; }
__attribute__((weak)) std::unique_ptr<Backend> make_rtl_backend(const Topology&,
                                                                const CommConfig&) {
  throw std::runtime_error(
      "this program was built without the Verilated RTL; use fabric (which has it) or link "
      "sw/backends/rtl/comm_rtl.cpp with the Verilated xf_chip and xf_switch");
}

}  // namespace xf
