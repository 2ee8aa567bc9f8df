// The communicator's RTL backend (xf/comm.hpp): the Verilated xf_chip and xf_switch of the
// program that links this file (fabric), wired by tb/rtl_system.hpp, kept for the
// communicator's life so that the sgd step's optimizer state stays in the chips' memories.
#include <memory>
#include <stdexcept>
#include <string>

#include "rtl_system.hpp"
#include "rtl_widths.hpp"
#include "verilated.h"
#include "xf/comm.hpp"
#include "xf/faults.hpp"

namespace xf {
namespace {

constexpr int kTiles = 4;  // NumTiles of the Verilated chip

// Sys: the machine of Verilated chips (4 links) and switch nodes (16 links) at the topology's
// flit width (rtl_widths.hpp).
template <class Sys>
class RtlBackend final : public Backend {
 public:
  RtlBackend(const Topology& topo, const CommConfig& cfg)
      : faults_(cfg.faults.empty() ? FaultSpec{} : parse_faults(cfg.faults)) {
    const std::string why = Sys::unfit(topo);
    if (!why.empty()) throw std::runtime_error(topo.spec + ": " + why + " (use the model backend)");
    if (cfg.tiles > kTiles)
      throw std::runtime_error("CommConfig::tiles = " + std::to_string(cfg.tiles) +
                               "; the RTL chip has " + std::to_string(kTiles) + " tiles");
    sys_ = std::make_unique<Sys>(topo, cfg.tiles, &ctx_, &faults_);
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
  std::unique_ptr<Sys> sys_;
};

}  // namespace

std::unique_ptr<Backend> make_rtl_backend(const Topology& topo, const CommConfig& cfg) {
  return rtl::with_machine(topo.flit_bits, [&](auto tag) -> std::unique_ptr<Backend> {
    return std::make_unique<RtlBackend<typename decltype(tag)::type>>(topo, cfg);
  });
}

}  // namespace xf
