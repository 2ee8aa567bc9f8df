// Test data and the checks every tool and test makes on a run's outputs (no SystemC): inputs
// and optimizer states drawn from a seed, the order-independent exact answer where one exists
// (exact_result; see exact_reduce) and check_outputs, which compares outputs with the reference
// (xf/reference.hpp), with each other and with the exact answer.
#pragma once

#include <cstdint>
#include <vector>

#include "xf/compiler.hpp"
#include "xf/layout.hpp"

namespace xf {

// Every chip's state drawn from `seed`: weights and momentum small multiples of 1/8 (finite
// sums, like make_inputs' gradients).
std::vector<SgdState> make_sgd_state(const Plan& plan, uint64_t seed);

// True when the collective has an order-independent exact answer for these inputs: integer
// sum (wrap), max, min, and any float sum/max/min whose partial sums are all exact (the caller
// chooses such inputs, as nccl-tests does).
Bytes exact_reduce(const Plan& plan, const std::vector<Bytes>& inputs);
std::vector<Bytes> exact_result(const Plan& plan, const std::vector<Bytes>& inputs);

// Deterministic test inputs: random over the full range (mode 0) or small integers whose sums
// are exact in every type (mode 1).
std::vector<Bytes> make_inputs(const Plan& plan, uint64_t seed, int mode);

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
