// Host-side data layout (no SystemC): what each chip contributes and receives for a collective,
// and where those bytes live in its tiles (docs/compiler.md, section 2). The compiler, the
// driver and every backend's loader use it.
//
// io_*: what each chip contributes and receives for a collective:
//   allreduce      in: M bytes          out: M bytes
//   reduce_scatter in: M bytes          out: block c (block_off[c]..block_off[c+1])
//   all_gather     in: block c          out: M bytes
//   broadcast      in: M bytes at root  out: M bytes
//   reduce         in: M bytes          out: M bytes at the root, nothing elsewhere
// load_tiles/unload_tiles move user bytes to and from the tile data memories.
#pragma once

#include <algorithm>
#include <cstdint>
#include <vector>

#include "xf/compiler.hpp"

namespace xf {

using Bytes = std::vector<uint8_t>;

uint64_t io_in_bytes(const Plan& plan, int chip);
uint64_t io_out_bytes(const Plan& plan, int chip);
// Tile data memories of one chip (one vector per tile, sized for the plan) with the input placed.
std::vector<Bytes> load_tiles(const Plan& plan, int chip, const Bytes& input);
Bytes unload_tiles(const Plan& plan, int chip, const std::vector<Bytes>& tiles);
// Bytes of data memory each tile needs for this plan (data, scratch, avg buffers and the sgd
// step's optimizer state).
uint32_t tile_footprint(const Plan& plan, int tile);
// Bytes of tile t that load_tiles fills and the driver loads before a run: the footprint, except
// for the sgd step, whose optimizer state after the plane stays on the chip between steps.
uint32_t tile_load_bytes(const Plan& plan, int tile);

// The sharded-update patent (Collective::kSgdStep): chip c's optimizer state, its shard of the fp32
// weights and of the momentum, each the bytes of block c (block_off[c]..block_off[c+1]) in the
// user's order. It lives in the chip's tiles after the plane (Plan::state_base) and never moves to
// another chip.
struct SgdState {
  Bytes weights, momentum;
};
uint64_t sgd_shard_bytes(const Plan& plan, int chip);
// Where chip c's shard sits in tile memory: calls f(tile, tile address, shard offset, bytes) for
// the weights; the momentum of the same bytes is at tile address + Plan::state_len[tile].
template <class F>
void for_sgd_shard(const Plan& plan, int chip, F f) {
  uint32_t first = 0;
  bool seen = false;
  for (const Slice& s : plan.slices) {
    if (s.block != chip || s.user_off >= plan.spec.bytes) continue;
    if (!seen) first = static_cast<uint32_t>(s.user_off), seen = true;
    const uint64_t valid = std::min<uint64_t>(s.len, plan.spec.bytes - s.user_off);
    f(s.tile, plan.state_base[s.tile], s.user_off - first, valid);
  }
}
// Every chip's state at the start of training: its shard of `params` (spec.bytes of fp32, the
// same vector on every chip) and a zero momentum.
std::vector<SgdState> sgd_initial_state(const Plan& plan, const void* params);

}  // namespace xf
