// The plain C++ reference (no SystemC): run_reference executes a Plan's transfers step by step
// with the ALU reference: the same reduction order as the hardware, but no packets, ISA or
// timing. It is the bit-exact expectation for the model and the RTL (docs/compiler.md, section 3).
#pragma once

#include <vector>

#include "xf/compiler.hpp"
#include "xf/layout.hpp"

namespace xf {

// Runs the plan on plain memories; returns every chip's output. For the sgd step `state` (one
// per chip) is the optimizer state before the step and is updated in place (nullptr: zeros).
std::vector<Bytes> run_reference(const Plan& plan, const std::vector<Bytes>& inputs,
                                 std::vector<SgdState>* state = nullptr);

}  // namespace xf
