// fabric's subcommands with files of their own: each takes the words after its name and returns
// the exit status (0 done, 1 an error, 2 a bad argument, printed with the command's usage).
#pragma once

#include <string>
#include <vector>

namespace xf {
// `fabric train` (sw/tools/train.cpp): the data-parallel training demo of docs/driver.md
// section 5.
int train_main(const std::vector<std::string>& args, const char* self);
// `fabric average-study` (sw/tools/average_study_cli.cpp; the study: xf/average_study.hpp).
int average_study_main(const std::vector<std::string>& args);
// `fabric topo` (sw/tools/topo_cli.cpp; the pictures: xf/topo_dot.hpp).
int topo_main(const std::vector<std::string>& args);
}  // namespace xf
