// Where the user's bytes live in the tiles (see xf/layout.hpp).
#include "xf/layout.hpp"

#include <algorithm>
#include <cstring>

namespace xf {

namespace {

bool in_is_block(const Plan& p) { return p.spec.coll == Collective::kAllGather; }
bool out_is_block(const Plan& p) { return p.spec.coll == Collective::kReduceScatter; }

uint64_t block_len(const Plan& p, int b) { return p.block_off[b + 1] - p.block_off[b]; }

// Visits the user-visible part of every slice: f(slice, user offset, valid bytes).
template <class F>
void for_slices(const Plan& plan, int only_block, F f) {
  for (const Slice& s : plan.slices) {
    if (only_block >= 0 && s.block != only_block) continue;
    if (s.user_off >= plan.spec.bytes) continue;
    const uint64_t valid = std::min<uint64_t>(s.len, plan.spec.bytes - s.user_off);
    f(s, s.user_off, valid);
  }
}

}  // namespace

uint64_t io_in_bytes(const Plan& plan, int chip) {
  return in_is_block(plan) ? block_len(plan, chip) : plan.spec.bytes;
}

uint64_t io_out_bytes(const Plan& plan, int chip) {
  if (out_is_block(plan)) return block_len(plan, chip);
  if (plan.spec.coll == Collective::kReduce && chip != plan.spec.root) return 0;
  return plan.spec.bytes;
}

uint32_t tile_footprint(const Plan& plan, int tile) {
  uint32_t n = 0;
  for (const Slice& s : plan.slices)
    if (s.tile == tile) n = std::max(n, s.addr + s.len);
  // A ring plane's generated transfers move whole slices (ring_step), so the listed ones are
  // all that can reach past the slices.
  for (const Transfer& x : plan.transfers)
    if (x.plane == tile) n = std::max({n, x.src_addr + x.bytes, x.dst_addr + x.bytes});
  return std::max<uint32_t>(n, kFlitBytes);
}

uint32_t tile_load_bytes(const Plan& plan, int tile) {
  if (plan.spec.coll == Collective::kSgdStep) return plan.state_base[tile];
  return tile_footprint(plan, tile);
}

uint64_t sgd_shard_bytes(const Plan& plan, int chip) { return block_len(plan, chip); }

std::vector<SgdState> sgd_initial_state(const Plan& plan, const void* params) {
  std::vector<SgdState> st(plan.chips);
  for (int c = 0; c < plan.chips; ++c) {
    const uint8_t* p = static_cast<const uint8_t*>(params) + plan.block_off[c];
    st[c].weights.assign(p, p + sgd_shard_bytes(plan, c));
    st[c].momentum.assign(st[c].weights.size(), 0);
  }
  return st;
}

std::vector<Bytes> load_tiles(const Plan& plan, int chip, const Bytes& input) {
  std::vector<Bytes> tiles(plan.tiles);
  for (int t = 0; t < plan.tiles; ++t) tiles[t].assign(tile_load_bytes(plan, t), 0);
  if (plan.spec.coll == Collective::kBroadcast && chip != plan.spec.root) return tiles;
  const int blk = in_is_block(plan) ? chip : -1;
  const uint64_t base = blk >= 0 ? plan.block_off[blk] : 0;
  for_slices(plan, blk, [&](const Slice& s, uint64_t off, uint64_t valid) {
    std::memcpy(&tiles[s.tile][s.addr], &input[off - base], valid);
  });
  return tiles;
}

Bytes unload_tiles(const Plan& plan, int chip, const std::vector<Bytes>& tiles) {
  Bytes out(io_out_bytes(plan, chip));
  if (out.empty()) return out;
  const int blk = out_is_block(plan) ? chip : -1;
  const uint64_t base = blk >= 0 ? plan.block_off[blk] : 0;
  for_slices(plan, blk, [&](const Slice& s, uint64_t off, uint64_t valid) {
    std::memcpy(&out[off - base], &tiles[s.tile][s.addr], valid);
  });
  return out;
}

}  // namespace xf
