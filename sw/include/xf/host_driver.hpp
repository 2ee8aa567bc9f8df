// The host driver's sequence for one compiled collective, written once for every backend: the
// SystemC model (model/driver.cpp) and the machine of Verilated chips
// (sw/backends/rtl/rtl_system.hpp) run exactly these host-port transactions (docs/cosim.md section
// 1).
//
//   1. every node's routing table: per lane, the entries the node holds (Config bits 15:12);
//   2. every chip's index value (IndexWr);
//   3. every tile's IMEM, PMEM and DMEM (the inputs, laid out by load_tiles);
//   4. every tile's watchdog period (TileWatchdog = kDriverWatchdogCycles);
//   5. run (the backend starts every chip in the same cycle);
//   6. every error register read and explained (xf::diagnose, docs/errors.md): on a failed run
//      the explanation is appended to the error; a run that succeeded may still carry warnings
//      (links that recovered errors or escalated);
//   7. every tile's DMEM read back, unpacked by unload_tiles.
//
// A Host adapts one backend's host port:
//   uint32_t read32(int node, uint32_t addr);                     // one register, now
//   void write(int node, uint32_t addr, const void* p, size_t n); // may be queued until flush()
//   void read(int node, uint32_t addr, void* p, size_t n);        // data valid after flush()
//   void flush();                                                 // every queued access done
//   Stats run(uint64_t max_cycles);                               // Stats has ok, stopped, cycles
//   bool direct(int chip, int tile, uint32_t region, void* p, size_t n, bool write);
//        // region (reg::kTilePmem or kTileDmem) beyond the host window: the model copies it
//        // directly; a backend that cannot returns false and the driver throws
#pragma once

#include <algorithm>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

#include "xf/compiler.hpp"
#include "xf/defs.hpp"
#include "xf/diagnose.hpp"
#include "xf/layout.hpp"

namespace xf {

template <class Stats>
struct HostRun {
  Stats stats;
  std::vector<Bytes> outputs;          // per chip, as io_out_bytes says; empty when stats.stopped
  std::vector<std::string> diagnosis;  // xf::diagnose after the run: errors and link warnings
};

// The tiles' hardware watchdog period the driver programs: a tile waiting this long with no
// progress at all halts with error Watchdog and says what it waits for (docs/errors.md). Far
// above any wait of a compiled collective on a working machine (a counter wait makes progress
// with every packet, at most 129 cycles apart, and a link outage of the fault tests lasts at
// most a few thousand cycles).
inline constexpr uint32_t kDriverWatchdogCycles = 1u << 20;

namespace detail {
template <class Host>
void host_region(Host& h, int chip, int tile, uint32_t region, uint32_t window, void* p, size_t n,
                 bool write) {
  const uint32_t addr = reg::kTileBase + tile * reg::kTileStride + region;
  if (n <= window) {
    if (write)
      h.write(chip, addr, p, n);
    else
      h.read(chip, addr, p, n);
    return;
  }
  if (!h.direct(chip, tile, region, p, n, write))
    throw std::runtime_error(
        "host driver: chip " + std::to_string(chip) + " tile " + std::to_string(tile) + ": " +
        std::to_string(n) + " bytes of " + (region == reg::kTilePmem ? "PMEM" : "DMEM") +
        " exceed the host window of " + std::to_string(window) +
        " bytes; this backend cannot load them (use a smaller size, more tiles or the model)");
}
}  // namespace detail

// The sgd step's optimizer state (Collective::kSgdStep): written to every chip's tiles before the
// run when `state_in` is given (otherwise what the chips hold is used: the state stays on the
// chip from step to step), and read back after it into `state_out` when given.
template <class Host>
void sgd_state_access(Host& h, const Plan& plan, int chip, SgdState& st, bool write) {
  const uint64_t n = sgd_shard_bytes(plan, chip);
  st.weights.resize(n);
  st.momentum.resize(n);
  for_sgd_shard(plan, chip, [&](int t, uint32_t addr, uint64_t off, uint64_t len) {
    const uint32_t a = reg::kTileBase + t * reg::kTileStride + reg::kTileDmem + addr;
    const uint32_t m = a + plan.state_len[t];
    if (write) {
      h.write(chip, a, &st.weights[off], len);
      h.write(chip, m, &st.momentum[off], len);
    } else {
      h.read(chip, a, &st.weights[off], len);
      h.read(chip, m, &st.momentum[off], len);
    }
  });
}

template <class Host>
auto run_collective(Host& h, const Plan& plan, const Image& img, const std::vector<Bytes>& inputs,
                    uint64_t max_cycles, std::vector<SgdState>* state_in = nullptr,
                    std::vector<SgdState>* state_out = nullptr)
    -> HostRun<decltype(h.run(max_cycles))> {
  const bool sgd = plan.spec.coll == Collective::kSgdStep;
  const int P = plan.chips;
  const int nodes = static_cast<int>(img.route.size());
  for (int n = 0; n < nodes; ++n) {
    // The node holds 2^k entries per lane (Config bits 15:12): write exactly those.
    const uint32_t table_chips = 1u << ((h.read32(n, reg::kConfig) >> 12) & 0xFu);
    if (static_cast<uint32_t>(P) > table_chips)
      throw std::runtime_error("host driver: " + std::to_string(P) + " chips, but node " +
                               std::to_string(n) + "'s routing table holds " +
                               std::to_string(table_chips) +
                               " per lane (rebuild it with a larger TableChips)");
    for (uint32_t lane = 0; lane < kNumLanes; ++lane)
      h.write(n, reg::kRouteTable + lane * kMaxChips, &img.route[n][lane * kMaxChips],
              std::max<uint32_t>(table_chips, 4));
  }
  // Every chip's accesses are queued before one flush, so that a backend with a host port per
  // chip (the RTL) loads all chips at once; the buffers must outlive the queued writes.
  std::vector<uint32_t> index(P);
  std::vector<std::vector<Bytes>> tiles(P);
  std::vector<std::vector<uint32_t>> pmem = img.pmem;
  for (int c = 0; c < P; ++c) {
    index[c] = img.index[c];
    h.write(c, reg::kIndexWr, &index[c], 4);
    tiles[c] = load_tiles(plan, c, inputs[c]);
    for (int t = 0; t < plan.tiles; ++t) {
      h.write(c, reg::kTileBase + t * reg::kTileStride + reg::kTileImem, img.imem[t].data(),
              img.imem[t].size() * 8);
      detail::host_region(h, c, t, reg::kTilePmem, reg::kTilePmemSize, pmem[t].data(),
                          pmem[t].size() * 4, true);
      detail::host_region(h, c, t, reg::kTileDmem, reg::kTileDmemSize, tiles[c][t].data(),
                          tiles[c][t].size() & ~size_t{3}, true);
    }
  }
  if (sgd && state_in)
    for (int c = 0; c < P; ++c) sgd_state_access(h, plan, c, (*state_in)[c], true);
  h.flush();
  for (int c = 0; c < P; ++c)
    for (int t = 0; t < plan.tiles; ++t) {
      const uint32_t period = kDriverWatchdogCycles;
      h.write(c, reg::kTileBase + t * reg::kTileStride + reg::kTileWatchdog, &period, 4);
    }
  h.flush();
  HostRun<decltype(h.run(max_cycles))> r;
  r.stats = h.run(max_cycles);
  if (r.stats.stopped) return r;  // a checker stopped it mid-collective: nothing to read back
  r.diagnosis = diagnose(h, nodes, P, plan.tiles);
  if (!r.stats.ok)
    for (const std::string& line : r.diagnosis) r.stats.error += "\n  " + line;
  r.outputs.resize(P);
  for (int c = 0; c < P; ++c) {  // every chip's reads queued, then one flush (as the load)
    tiles[c].assign(plan.tiles, Bytes{});
    for (int t = 0; t < plan.tiles; ++t) {
      tiles[c][t].resize(tile_load_bytes(plan, t));
      detail::host_region(h, c, t, reg::kTileDmem, reg::kTileDmemSize, tiles[c][t].data(),
                          tiles[c][t].size() & ~size_t{3}, false);
    }
  }
  if (sgd && state_out) {
    state_out->resize(P);
    for (int c = 0; c < P; ++c) sgd_state_access(h, plan, c, (*state_out)[c], false);
  }
  h.flush();
  for (int c = 0; c < P; ++c) r.outputs[c] = unload_tiles(plan, c, tiles[c]);
  return r;
}

}  // namespace xf
