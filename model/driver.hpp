// Host driver for the model backend: loads an Image through the host port, runs, reads back.
// The sequence is xf::run_collective (sw/include/xf/host_driver.hpp), shared with the RTL.
#pragma once

#include <string>
#include <vector>

#include "system.hpp"
#include "xf/compiler.hpp"
#include "xf/layout.hpp"

namespace xf::model {

struct CollectiveRun {
  RunStats stats;
  std::vector<Bytes> outputs;          // per chip, as io_out_bytes says
  std::vector<std::string> diagnosis;  // xf::diagnose after the run (errors, link warnings)
};

// Builds a System for `topo` (once per process), loads `img` and the inputs, runs.
// `observer`, when set, sees every packet sent on every link (see PacketEvent): once per packet,
// replays included or not, since it watches the exchange, not the wire. `faults` (default: none)
// injects link faults under the retry layer (docs/reliability.md section 7); the outputs stay
// bit-exact, RunStats::link says what the links did.
// For the sgd step, `state_in` and `state_out` are the optimizer state before and after it
// (xf::run_collective).
CollectiveRun run_on_model(const Topology& topo, const Plan& plan, const Image& img,
                           const std::vector<Bytes>& inputs, uint64_t max_cycles = 2'000'000'000,
                           const PacketObserver& observer = nullptr,
                           const FaultSpec& faults = FaultSpec{},
                           std::vector<SgdState>* state_in = nullptr,
                           std::vector<SgdState>* state_out = nullptr);

// The same sequence on a System the caller built (with plan.tiles tiles per chip and at least
// tile_footprint() bytes of DMEM per tile), which then stays available: its host port can be
// read after the run (link and error registers).
CollectiveRun run_on_system(System& sys, const Plan& plan, const Image& img,
                            const std::vector<Bytes>& inputs, uint64_t max_cycles = 2'000'000'000,
                            std::vector<SgdState>* state_in = nullptr,
                            std::vector<SgdState>* state_out = nullptr);

}  // namespace xf::model
