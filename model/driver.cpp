// Host driver for the model backend (see driver.hpp).
#include "driver.hpp"

namespace xf::model {

CollectiveRun run_on_model(const Topology& topo, const Plan& plan, const Image& img,
                           const std::vector<Bytes>& inputs, uint64_t max_cycles,
                           const PacketObserver& observer) {
  uint32_t dmem = 0;
  for (int t = 0; t < plan.tiles; ++t) dmem = std::max(dmem, tile_footprint(plan, t));
  System sys(topo, plan.tiles, dmem);
  const int P = topo.num_chips;
  for (int n = 0; n < topo.num_nodes; ++n)
    sys.host_write(n, reg::kRouteTable, img.route[n].data(), img.route[n].size());
  for (int c = 0; c < P; ++c) {
    sys.host_write32(c, reg::kIndexWr, img.index[c]);
    const std::vector<Bytes> tiles = load_tiles(plan, c, inputs[c]);
    for (int t = 0; t < plan.tiles; ++t) {
      const uint32_t base = reg::kTileBase + t * reg::kTileStride;
      sys.host_write(c, base + reg::kTileImem, img.imem[t].data(), img.imem[t].size() * 8);
      // Memories larger than the host window (large machines on the model) are loaded
      // directly; within the window they go through the host port like on the RTL.
      if (img.pmem[t].size() * 4 <= reg::kTilePmemSize)
        sys.host_write(c, base + reg::kTilePmem, img.pmem[t].data(), img.pmem[t].size() * 4);
      else
        sys.node(c).tile(t).pmem = img.pmem[t];
      if (tiles[t].size() <= reg::kTileDmemSize)
        sys.host_write(c, base + reg::kTileDmem, tiles[t].data(), tiles[t].size());
      else
        std::copy(tiles[t].begin(), tiles[t].end(), sys.node(c).tile(t).dmem.begin());
    }
  }
  for (int n = 0; n < topo.num_nodes; ++n) sys.node(n).observer = observer;
  CollectiveRun r;
  r.stats = sys.run(max_cycles);
  r.outputs.resize(P);
  for (int c = 0; c < P; ++c) {
    std::vector<Bytes> tiles(plan.tiles);
    for (int t = 0; t < plan.tiles; ++t) tiles[t] = sys.node(c).tile(t).dmem;
    r.outputs[c] = unload_tiles(plan, c, tiles);
  }
  return r;
}

}  // namespace xf::model
