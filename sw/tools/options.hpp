// The tools' command lines (fabric and its subcommands, gen_system) on CLI11: one declaration per
// option gives its name, its parser and its help. The parsers are xf/cli.hpp's, so a bad value
// gets the same message in every tool ("--bytes '-4' is not a size; ..."); unknown options,
// missing values and stray words are reported in the tools' words too, then the usage (the
// app's help) follows and the tool exits 2 (run_tool).
#pragma once

#include <CLI/CLI.hpp>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "xf/compiler.hpp"

namespace xf::tool {

// An app for one tool or subcommand, named as the user types it ("fabric run"): a repeated
// option keeps its last value, unknown words are left for run_tool to report, and the help
// starts "usage: NAME [OPTIONS]".
std::unique_ptr<CLI::App> make_app(const std::string& name, const std::string& description);

// ---- option declarations ---------------------------------------------------------------------
// A size in bytes (cli::parse_bytes: 4096, 64K, 1M; at most `hi`).
CLI::Option* add_bytes(CLI::App& app, const std::string& name, uint64_t& v, const std::string& help,
                       uint64_t hi = UINT64_MAX);
// A whole number in [lo, hi] (cli::parse_int: decimal, 0x hex).
CLI::Option* add_int(CLI::App& app, const std::string& name, long long& v, long long lo,
                     long long hi, const std::string& help);
CLI::Option* add_int(CLI::App& app, const std::string& name, int& v, long long lo, long long hi,
                     const std::string& help);
CLI::Option* add_int(CLI::App& app, const std::string& name, uint64_t& v, long long lo,
                     long long hi, const std::string& help);
// A real number in [lo, hi] (cli::parse_real).
CLI::Option* add_real(CLI::App& app, const std::string& name, float& v, double lo, double hi,
                      const std::string& help);
// Text taken as it is (a topology, a backend, a fault list); `kind` names the value in the help.
CLI::Option* add_text(CLI::App& app, const std::string& name, std::string& v,
                      const std::string& kind, const std::string& help);
// A file or directory name: an empty one ("--csv=") is refused ("--csv needs a file name").
CLI::Option* add_file(CLI::App& app, const std::string& name, std::string& v,
                      const std::string& help, const std::string& kind = "FILE");
// A flag: no value ("--sat=1" is refused: "--sat takes no value").
CLI::Option* add_flag(CLI::App& app, const std::string& name, bool& v, const std::string& help);

// The options of a collective that the tools share: --collective, --dtype, --op (the library's
// parsers and their messages), --algo, --root, --tiles (1..tiles_hi), --chunk, --seed.
CLI::Option* add_collective(CLI::App& app, CollectiveSpec& spec);
CLI::Option* add_dtype(CLI::App& app, CollectiveSpec& spec);
CLI::Option* add_op(CLI::App& app, CollectiveSpec& spec);
CLI::Option* add_algo(CLI::App& app, CollectiveSpec& spec);
CLI::Option* add_root(CLI::App& app, CollectiveSpec& spec);
CLI::Option* add_tiles(CLI::App& app, int& tiles, int tiles_hi, const std::string& help);
CLI::Option* add_chunk(CLI::App& app, CollectiveSpec& spec);
CLI::Option* add_seed(CLI::App& app, uint64_t& seed);
// --flit-bits N: the machine's flit width (32, 64 or 128; docs/packets.md section 2). The tool
// applies it with xf::set_flit_bits right after it parses the topology (set_flit_bits refuses
// other widths with a clear message).
CLI::Option* add_flit_bits(CLI::App& app, int& bits);

// True when the option was given on the command line.
bool given(const CLI::App& app, const std::string& name);

// ---- running a tool --------------------------------------------------------------------------
// Parses `args` (the words after the tool's or subcommand's name) and runs `body`; messages start
// with `prog` ("fabric", "fabric train", "gen_system"). "-h" or
// "--help" prints the help on stderr and returns 0. A bad argument (an unknown option, a missing
// or bad value, a stray word, a cli::Usage or a library parse error from `body`) prints
// "PROG: message" and the help on stderr and returns 2; cli::Refused prints its one line and
// returns 2; any other error prints "PROG: error: message" and returns 1 (cli::exit_status).
// `positional`, when given, is called with each word that is not an option, instead of the
// "unexpected argument" error.
int run_tool(const char* prog, CLI::App& app, const std::vector<std::string>& args,
             const std::function<int()>& body,
             const std::function<void(const std::string&)>& positional = nullptr);

}  // namespace xf::tool
