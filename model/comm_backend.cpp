// The communicator's backends that need no Verilated RTL (xf/comm.hpp): the SystemC model and
// the serial host bridge of a board; and the stand-in for the RTL backend in programs built
// without the Verilated chip (tb/comm_rtl.cpp replaces it where it is linked, as in fabric).
#include <memory>
#include <stdexcept>

#include "driver.hpp"
#include "system.hpp"
#include "xf/comm.hpp"
#include "xf/faults.hpp"
#include "xf/host_driver.hpp"
#include "xf/serial.hpp"

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

class SerialBackend final : public Backend {
 public:
  SerialBackend(const Topology& topo, const CommConfig& cfg, const std::string& dev, int baud)
      : topo_(topo),
        port_(dev, baud),
        client_(port_),
        info_(serial::read_board_info(client_)),
        host_(client_, info_.chips, info_.clock_hz, cfg.tiles) {
    if (info_.machine.empty() || parse_topology(info_.machine).spec != topo.spec)
      throw std::runtime_error("the board's machine is " +
                               (info_.machine.empty() ? std::string("unnamed") : info_.machine) +
                               ", not " + topo.spec + "; create the communicator over " +
                               info_.machine);
    const uint32_t config = host_.read32(0, reg::kConfig);
    tiles_ = static_cast<int>(config & 0x1F);
    dmem_ = (config >> 16) * 1024;
  }
  std::string name() const override { return "serial"; }
  uint32_t tile_dmem_bytes() const override { return dmem_; }
  int max_tiles() const override { return tiles_; }
  BackendRun run(const Plan& plan, const Image& img, const std::vector<Bytes>& inputs,
                 uint64_t max_cycles, std::vector<SgdState>* state_in,
                 std::vector<SgdState>* state_out) override {
    serial::check_board(info_, host_, topo_, plan, plan.spec);
    HostRun<serial::RunStats> r =
        run_collective(host_, plan, img, inputs, max_cycles, state_in, state_out);
    const bool timeout = r.stats.error.find("time") != std::string::npos;
    return backend_run(std::move(r), timeout);
  }

 private:
  Topology topo_;
  serial::SerialPort port_;
  serial::Client client_;
  serial::BoardInfo info_;
  serial::SerialHost host_;
  int tiles_ = 0;
  uint32_t dmem_ = 0;
};

}  // namespace

std::unique_ptr<Backend> make_model_backend(const Topology& topo, const CommConfig& cfg) {
  return std::make_unique<ModelBackend>(topo, cfg);
}

std::unique_ptr<Backend> make_serial_backend(const Topology& topo, const CommConfig& cfg,
                                             const std::string& device, int baud) {
  return std::make_unique<SerialBackend>(topo, cfg, device, baud);
}

// Programs that link the Verilated chip (fabric) define the real one in tb/comm_rtl.cpp.
__attribute__((weak)) std::unique_ptr<Backend> make_rtl_backend(const Topology&,
                                                                const CommConfig&) {
  throw std::runtime_error(
      "this program was built without the Verilated RTL; use fabric (which has it) or link "
      "tb/comm_rtl.cpp with the Verilated xf_chip and xf_switch");
}

}  // namespace xf
