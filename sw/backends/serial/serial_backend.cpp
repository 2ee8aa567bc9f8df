// The communicator's serial backend (xf/comm.hpp): a board, or the simulated board of
// tb/board_sim.cpp, behind the serial host bridge (xf/serial.hpp).
#include <chrono>
#include <cstdio>
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
        dev_(dev),
        port_(dev, baud),
        client_(port_),
        info_(serial::read_board_info(client_)),
        host_(client_, info_.chips, info_.clock_hz, cfg.tiles) {
    serial::check_machine(info_, topo);
    const uint32_t config = host_.read32(0, reg::kConfig);
    tiles_ = static_cast<int>(config & 0x1F);
    dmem_ = (config >> 16) * 1024;
  }
  std::string name() const override { return "serial"; }
  // The board, its clock and the serial line's traffic since the backend was made.
  std::vector<std::string> notes() const override {
    char line[512];
    std::snprintf(
        line, sizeof line,
        "# serial %s: board %s, %d chips at %.1f MHz; %llu requests, %llu sent again; run %.2f s "
        "of %.2f s",
        dev_.c_str(), info_.machine.c_str(), info_.chips, info_.clock_hz / 1e6,
        static_cast<unsigned long long>(client_.requests()),
        static_cast<unsigned long long>(client_.retried()), run_s_,
        std::chrono::duration<double>(std::chrono::steady_clock::now() - t0_).count());
    return {line};
  }
  uint32_t tile_dmem_bytes() const override { return dmem_; }
  int max_tiles() const override { return tiles_; }
  BackendRun run(const Plan& plan, const Image& img, const std::vector<Bytes>& inputs,
                 uint64_t max_cycles, std::vector<SgdState>* state_in,
                 std::vector<SgdState>* state_out) override {
    serial::check_board(info_, host_, topo_, plan, plan.spec);
    serial::check_memories(host_, img);
    HostRun<serial::RunStats> r =
        run_collective(host_, plan, img, inputs, max_cycles, state_in, state_out);
    run_s_ = r.stats.seconds;
    const bool timeout = r.stats.error.find("time") != std::string::npos;
    return backend_run(std::move(r), timeout);
  }

 private:
  std::chrono::steady_clock::time_point t0_ = std::chrono::steady_clock::now();
  Topology topo_;
  std::string dev_;
  double run_s_ = 0;
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
