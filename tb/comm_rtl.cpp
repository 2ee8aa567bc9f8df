// The communicator's RTL backend (xf/comm.hpp): the Verilated xf_chip and xf_switch of the
// program that links this file (fabric), wired by tb/rtl_system.hpp, kept for the
// communicator's life so that the sgd step's optimizer state stays in the chips' memories.
#include <memory>
#include <stdexcept>

#include "Vxf_chip.h"
#include "Vxf_switch.h"
#include "rtl_system.hpp"
#include "verilated.h"
#include "xf/comm.hpp"
#include "xf/faults.hpp"

namespace xf {
namespace {

constexpr int kLinks = 4;  // NumLinks of the Verilated chip and switch (their defaults)
constexpr int kTiles = 4;  // NumTiles of the Verilated chip

class RtlBackend final : public Backend {
 public:
  RtlBackend(const Topology& topo, const CommConfig& cfg)
      : faults_(cfg.faults.empty() ? FaultSpec{} : parse_faults(cfg.faults)) {
    for (int n = 0; n < topo.num_nodes; ++n)
      if (topo.num_ports[n] > kLinks)
        throw std::runtime_error("node " + std::to_string(n) + " of " + topo.spec + " has " +
                                 std::to_string(topo.num_ports[n]) +
                                 " links; the RTL chip and switch have " + std::to_string(kLinks) +
                                 " (use the model backend)");
    if (cfg.tiles > kTiles)
      throw std::runtime_error("CommConfig::tiles = " + std::to_string(cfg.tiles) +
                               "; the RTL chip has " + std::to_string(kTiles) + " tiles");
    sys_ = std::make_unique<rtl::RtlSystem<Vxf_chip, Vxf_switch, kLinks>>(topo, cfg.tiles, &ctx_,
                                                                          &faults_);
  }
  std::string name() const override { return "rtl"; }
  uint32_t tile_dmem_bytes() const override { return reg::kTileDmemSize; }
  int max_tiles() const override { return kTiles; }
  BackendRun run(const Plan& plan, const Image& img, const std::vector<Bytes>& inputs,
                 uint64_t max_cycles, std::vector<SgdState>* state_in,
                 std::vector<SgdState>* state_out) override {
    rtl::RtlCollectiveRun r =
        rtl::run_on_rtl(*sys_, plan, img, inputs, max_cycles, state_in, state_out);
    const bool timeout = r.stats.error == "cycle limit reached";
    return backend_run(std::move(r), timeout);
  }

 private:
  VerilatedContext ctx_;
  FaultSpec faults_;
  std::unique_ptr<rtl::RtlSystem<Vxf_chip, Vxf_switch, kLinks>> sys_;
};

}  // namespace

std::unique_ptr<Backend> make_rtl_backend(const Topology& topo, const CommConfig& cfg) {
  return std::make_unique<RtlBackend>(topo, cfg);
}

}  // namespace xf
