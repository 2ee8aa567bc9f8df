// `fabric average-study`: the options of the averaging study (xf/average_study.hpp,
// docs/averaging.md section 6).
#include <algorithm>
#include <sstream>

#include "options.hpp"
#include "subcommands.hpp"
#include "xf/average_study.hpp"
#include "xf/cli.hpp"

namespace xf {

int average_study_main(const std::vector<std::string>& args) {
  using cli::Usage;
  auto app = tool::make_app(
      "fabric average-study",
      "The error of pairwise averaging, divide-then-sum and sum-then-divide against the exact "
      "mean, every N from --min-chips to --max-chips (docs/averaging.md, section 6).");
  avg_study::StudyOptions o;
  app->add_option_function<std::string>(
         "--dtypes",
         [&o](const std::string& val) {
           o.dtypes.clear();
           std::stringstream ss(val);
           for (std::string t; std::getline(ss, t, ',');) {
             if (t != "int8" && t != "uint8")
               throw Usage("--dtypes '" + val + "': '" + t +
                           "' is not studied; use int8, uint8 or int8,uint8");
             const DType d = t == "int8" ? DType::kInt8 : DType::kUint8;
             if (std::find(o.dtypes.begin(), o.dtypes.end(), d) == o.dtypes.end())
               o.dtypes.push_back(d);
           }
           if (o.dtypes.empty()) throw Usage("--dtypes is empty; use int8, uint8 or int8,uint8");
         },
         "the types studied: int8, uint8 or int8,uint8")
      ->type_name("LIST")
      ->default_str("int8,uint8");
  tool::add_int(*app, "--min-chips", o.min_chips, 2, kMaxChips, "the smallest N")->default_str("2");
  tool::add_int(*app, "--max-chips", o.max_chips, 2, kMaxChips, "the largest N")
      ->default_str("512");
  tool::add_int(*app, "--trials", o.trials, 1, 100000, "random trials per N")
      ->type_name("K")
      ->default_str(std::to_string(o.trials));
  tool::add_int(*app, "--seed", o.seed, 0, INT64_MAX, "seed of the random trials")
      ->type_name("S")
      ->default_str("1");
  tool::add_file(*app, "--csv", o.csv, "every row as CSV");
  tool::add_file(*app, "--png", o.png, "the curves (scripts/plot_average_study.py)");
  tool::add_flag(*app, "--all-rows", o.all_rows, "print every N, not a selection");
  bool no_header = false;
  tool::add_flag(*app, "--no-header", no_header, "leave out the header");
  return tool::run_tool("fabric average-study", *app, args, [&] {
    o.header = !no_header;
    if (o.min_chips > o.max_chips)
      throw Usage("--min-chips " + std::to_string(o.min_chips) + " is above --max-chips " +
                  std::to_string(o.max_chips) +
                  "; give a range such as --min-chips 2 --max-chips " +
                  std::to_string(o.max_chips));
    return avg_study::run_study(o);
  });
}

}  // namespace xf
