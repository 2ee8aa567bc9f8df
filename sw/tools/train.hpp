// `fabric train` (sw/tools/train.cpp): the data-parallel training demo of docs/driver.md
// section 5. `args` follow the word `train`; returns the exit status.
#pragma once

#include <string>
#include <vector>

namespace xf {
int train_main(const std::vector<std::string>& args, const char* self);
}  // namespace xf
