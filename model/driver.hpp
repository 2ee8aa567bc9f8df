// Host driver for the model backend: loads an Image through the host port, runs, reads back.
// The sequence is xf::run_collective (sw/include/xf/host_driver.hpp), shared with the RTL.
#pragma once

#include <string>
#include <vector>

#include "system.hpp"
#include "xf/compiler.hpp"
#include "xf/reference.hpp"

namespace xf::model {

struct CollectiveRun {
  RunStats stats;
  std::vector<Bytes> outputs;  // per chip, as io_out_bytes says
};

// Builds a System for `topo` (once per process), loads `img` and the inputs, runs.
// `observer`, when set, sees every packet sent on every link (see PacketEvent).
CollectiveRun run_on_model(const Topology& topo, const Plan& plan, const Image& img,
                           const std::vector<Bytes>& inputs, uint64_t max_cycles = 2'000'000'000,
                           const PacketObserver& observer = nullptr);

}  // namespace xf::model
