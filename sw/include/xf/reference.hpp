// Host-side data layout and the plain C++ reference (no SystemC).
//
// io_*: what each chip contributes and receives for a collective (docs/compiler.md):
//   allreduce      in: M bytes          out: M bytes
//   reduce_scatter in: M bytes          out: block c (block_off[c]..block_off[c+1])
//   all_gather     in: block c          out: M bytes
//   broadcast      in: M bytes at root  out: M bytes
//   reduce         in: M bytes          out: M bytes at the root, nothing elsewhere
// load_tiles/unload_tiles move user bytes to and from the tile data memories.
// run_reference executes a Plan's transfers step by step with the ALU reference: the same
// reduction order as the hardware, but no packets, ISA or timing.
// exact_result computes the order-independent answer where one exists (see has_exact).
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
// Every chip's state drawn from `seed`: weights and momentum small multiples of 1/8 (finite
// sums, like make_inputs' gradients).
std::vector<SgdState> make_sgd_state(const Plan& plan, uint64_t seed);

// Runs the plan on plain memories; returns every chip's output. For the sgd step `state` (one
// per chip) is the optimizer state before the step and is updated in place (nullptr: zeros).
std::vector<Bytes> run_reference(const Plan& plan, const std::vector<Bytes>& inputs,
                                 std::vector<SgdState>* state = nullptr);

// True when the collective has an order-independent exact answer for these inputs: integer
// sum (wrap), max, min, and any float sum/max/min whose partial sums are all exact (the caller
// chooses such inputs, as nccl-tests does).
Bytes exact_reduce(const Plan& plan, const std::vector<Bytes>& inputs);
std::vector<Bytes> exact_result(const Plan& plan, const std::vector<Bytes>& inputs);

// Deterministic test inputs: random over the full range (mode 0) or small integers whose sums
// are exact in every type (mode 1).
std::vector<Bytes> make_inputs(const Plan& plan, uint64_t seed, int mode);

}  // namespace xf

namespace xf {

// Every check the tool and the tests make on a run's outputs.
struct Check {
  uint64_t wrong = 0;          // elements differing from run_reference (bit for bit)
  uint64_t inexact = 0;        // reference elements differing from the exact result
  uint64_t not_identical = 0;  // elements where a chip differs from chip 0 (replicated results)
  bool exact_checked = false;
  double avg_max_err = 0;  // avg: largest |result - exact mean| in units of the last place
  bool ok() const { return wrong == 0 && inexact == 0 && not_identical == 0; }
};

// `exact_inputs`: the float inputs were chosen so that every order of summation is exact
// (make_inputs); for arbitrary float data (files) the order-independent check is skipped.
// For the sgd step, `state` is the optimizer state before the step (nullptr: zeros), and the
// outputs are compared with run_reference only (no order-independent answer exists).
Check check_outputs(const Plan& plan, const std::vector<Bytes>& inputs,
                    const std::vector<Bytes>& outputs, bool exact_inputs = true,
                    const std::vector<SgdState>* state = nullptr);

}  // namespace xf
