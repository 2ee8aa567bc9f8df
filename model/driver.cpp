// Host driver for the model backend (see driver.hpp): the shared sequence of
// sw/include/xf/host_driver.hpp through the model's host port.
#include "driver.hpp"

#include <chrono>
#include <cstring>

#include "xf/host_driver.hpp"

namespace xf::model {
namespace {

// The model's host port as a host_driver Host: accesses take effect at once.
struct ModelHost {
  System& sys;
  uint32_t read32(int node, uint32_t addr) { return sys.host_read32(node, addr); }
  void write(int node, uint32_t addr, const void* p, size_t n) { sys.host_write(node, addr, p, n); }
  void read(int node, uint32_t addr, void* p, size_t n) { sys.host_read(node, addr, p, n); }
  void flush() {}
  RunStats run(uint64_t max_cycles) {
    const auto t0 = std::chrono::steady_clock::now();
    RunStats st = sys.run(max_cycles);
    st.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    return st;
  }
  // Memories larger than the host window (large machines on the model) are copied directly.
  bool direct(int chip, int tile, uint32_t region, void* p, size_t n, bool write) {
    Tile& t = sys.node(chip).tile(tile);
    if (region == reg::kTilePmem) {
      if (!write) return false;
      t.pmem.assign(n / 4, 0);
      std::memcpy(t.pmem.data(), p, n);
    } else if (write) {
      std::memcpy(t.dmem.data(), p, std::min(n, t.dmem.size()));
    } else {
      std::memcpy(p, t.dmem.data(), std::min(n, t.dmem.size()));
    }
    return true;
  }
};

}  // namespace

CollectiveRun run_on_system(System& sys, const Plan& plan, const Image& img,
                            const std::vector<Bytes>& inputs, uint64_t max_cycles,
                            std::vector<SgdState>* state_in, std::vector<SgdState>* state_out) {
  ModelHost host{sys};
  HostRun<RunStats> r = run_collective(host, plan, img, inputs, max_cycles, state_in, state_out);
  return {r.stats, std::move(r.outputs), std::move(r.diagnosis)};
}

CollectiveRun run_on_model(const Topology& topo, const Plan& plan, const Image& img,
                           const std::vector<Bytes>& inputs, uint64_t max_cycles,
                           const PacketObserver& observer, const FaultSpec& faults,
                           std::vector<SgdState>* state_in, std::vector<SgdState>* state_out) {
  uint32_t dmem = 0;
  for (int t = 0; t < plan.tiles; ++t) dmem = std::max(dmem, tile_footprint(plan, t));
  System sys(topo, plan.tiles, dmem, faults);
  for (int n = 0; n < topo.num_nodes; ++n) sys.node(n).exchange().observer = observer;
  return run_on_system(sys, plan, img, inputs, max_cycles, state_in, state_out);
}

}  // namespace xf::model
