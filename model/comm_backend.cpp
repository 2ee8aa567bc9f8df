// The communicator's model backend (xf/comm.hpp): the SystemC model; and the stand-in for the RTL
// backend in programs built without the Verilated chip (tb/comm_rtl.cpp replaces it where it is
// linked, as in fabric). The serial backend is sw/backends/serial/serial_backend.cpp.
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
    const FaultSpec faults = cfg.faults.empty() ? FaultSpec{} : parse_faults(cfg.faults);
    tiles_ = cfg.tiles;
    sys_ = std::make_unique<model::System>(topo, tiles_, reg::kTileDmemSize, faults);
    g_model_built = true;
  }
  std::string name() const override { return "model"; }
  uint32_t tile_dmem_bytes() const override { return reg::kTileDmemSize; }
  int max_tiles() const override { return tiles_; }
  BackendRun run(const Plan& plan, const Image& img, const std::vector<Bytes>& inputs,
                 uint64_t max_cycles, std::vector<SgdState>* state_in,
                 std::vector<SgdState>* state_out) override {
    model::CollectiveRun r =
        model::run_on_system(*sys_, plan, img, inputs, max_cycles, state_in, state_out);
    const bool timeout = r.stats.cycles >= max_cycles;
    return backend_run(std::move(r), timeout);
  }

 private:
  int tiles_ = 0;
  std::unique_ptr<model::System> sys_;
};

}  // namespace

std::unique_ptr<Backend> make_model_backend(const Topology& topo, const CommConfig& cfg) {
  return std::make_unique<ModelBackend>(topo, cfg);
}

// Programs that link the Verilated chip (fabric) define the real one in tb/comm_rtl.cpp.
__attribute__((weak)) std::unique_ptr<Backend> make_rtl_backend(const Topology&,
                                                                const CommConfig&) {
  throw std::runtime_error(
      "this program was built without the Verilated RTL; use fabric (which has it) or link "
      "tb/comm_rtl.cpp with the Verilated xf_chip and xf_switch");
}

}  // namespace xf
