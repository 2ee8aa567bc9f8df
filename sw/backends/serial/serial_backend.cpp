// The communicator's serial backend (xf/comm.hpp): a board, or the simulated board of
// tb/board_sim.cpp, behind the serial host bridge (xf/serial.hpp).
#include <memory>
#include <stdexcept>
#include <string>

#include "xf/comm.hpp"
#include "xf/host_driver.hpp"
#include "xf/serial.hpp"

namespace xf {
namespace {

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

std::unique_ptr<Backend> make_serial_backend(const Topology& topo, const CommConfig& cfg,
                                             const std::string& device, int baud) {
  return std::make_unique<SerialBackend>(topo, cfg, device, baud);
}

}  // namespace xf
