// The tools' command lines on CLI11 (options.hpp).
#include "options.hpp"

#include <cstdio>

#include "xf/cli.hpp"
#include "xf/topology.hpp"

namespace xf::tool {

namespace {

// Help text in the tools' words: "usage: fabric run [OPTIONS]".
class Formatter : public CLI::Formatter {
 public:
  Formatter() {
    label("Usage", "usage");
    column_width(34);
  }
};

// The option name a CLI11 message starts with ("--csv: 1 required FILE missing"), or "".
std::string option_in(const std::string& what) {
  const size_t colon = what.find(':');
  if (what.rfind("--", 0) != 0 || colon == std::string::npos) return "";
  return what.substr(0, colon);
}

// A word CLI11 left over, in the tools' words.
[[noreturn]] void unexpected(const std::string& word) {
  if (word.rfind("--", 0) == 0)
    throw cli::Usage("unknown option " + word.substr(0, word.find('=')));
  throw cli::Usage("unexpected argument '" + word + "'");
}

}  // namespace

std::unique_ptr<CLI::App> make_app(const std::string& name, const std::string& description) {
  auto app = std::make_unique<CLI::App>(description, name);
  app->formatter(std::make_shared<Formatter>());
  app->option_defaults()->multi_option_policy(CLI::MultiOptionPolicy::TakeLast);
  app->allow_extras();
  return app;
}

// An option with one value, converted by `parse` (which throws cli::Usage or the library's
// errors with their messages).
CLI::Option* add_parsed(CLI::App& app, const std::string& name,
                        std::function<void(const std::string&)> parse, const std::string& help,
                        const std::string& kind) {
  return app.add_option_function<std::string>(name, std::move(parse), help)->type_name(kind);
}

CLI::Option* add_bytes(CLI::App& app, const std::string& name, uint64_t& v, const std::string& help,
                       uint64_t hi) {
  const std::string key = name.substr(2);
  return add_parsed(
      app, name, [&v, key, hi](const std::string& s) { v = cli::parse_bytes(key, s, hi); }, help,
      "BYTES");
}

template <class T>
CLI::Option* add_whole(CLI::App& app, const std::string& name, T& v, long long lo, long long hi,
                       const std::string& help) {
  const std::string key = name.substr(2);
  return add_parsed(
      app, name,
      [&v, key, lo, hi](const std::string& s) {
        v = static_cast<T>(cli::parse_int(key, s, lo, hi));
      },
      help, "N");
}

CLI::Option* add_int(CLI::App& app, const std::string& name, long long& v, long long lo,
                     long long hi, const std::string& help) {
  return add_whole(app, name, v, lo, hi, help);
}

CLI::Option* add_int(CLI::App& app, const std::string& name, int& v, long long lo, long long hi,
                     const std::string& help) {
  return add_whole(app, name, v, lo, hi, help);
}

CLI::Option* add_int(CLI::App& app, const std::string& name, uint64_t& v, long long lo,
                     long long hi, const std::string& help) {
  return add_whole(app, name, v, lo, hi, help);
}

CLI::Option* add_real(CLI::App& app, const std::string& name, float& v, double lo, double hi,
                      const std::string& help) {
  const std::string key = name.substr(2);
  return add_parsed(
      app, name,
      [&v, key, lo, hi](const std::string& s) {
        v = static_cast<float>(cli::parse_real(key, s, lo, hi));
      },
      help, "X");
}

CLI::Option* add_text(CLI::App& app, const std::string& name, std::string& v,
                      const std::string& kind, const std::string& help) {
  return app.add_option(name, v, help)->type_name(kind);
}

CLI::Option* add_file(CLI::App& app, const std::string& name, std::string& v,
                      const std::string& help, const std::string& kind) {
  return add_parsed(
      app, name,
      [&v, name](const std::string& s) {
        if (s.empty()) throw cli::Usage(name + " needs a file name");
        v = s;
      },
      help, kind);
}

CLI::Option* add_flag(CLI::App& app, const std::string& name, bool& v, const std::string& help) {
  return app.add_flag(name, v, help)->disable_flag_override();
}

CLI::Option* add_collective(CLI::App& app, CollectiveSpec& spec) {
  return add_parsed(
             app, "--collective",
             [&spec](const std::string& s) { spec.coll = parse_collective(s); },
             "allreduce, reduce_scatter, all_gather, broadcast, reduce or sgd", "C")
      ->default_str("allreduce");
}

CLI::Option* add_dtype(CLI::App& app, CollectiveSpec& spec) {
  return add_parsed(
             app, "--dtype", [&spec](const std::string& s) { spec.dtype = parse_dtype(s); },
             "element type: int8, uint8, int16, int32, fp16, bf16 or fp32", "D")
      ->default_str("fp32");
}

CLI::Option* add_op(CLI::App& app, CollectiveSpec& spec) {
  return add_parsed(
             app, "--op", [&spec](const std::string& s) { spec.op = parse_op(s); },
             "reduction: sum, max, min or avg (avg: integer types)", "O")
      ->default_str("sum");
}

CLI::Option* add_algo(CLI::App& app, CollectiveSpec& spec) {
  return add_parsed(
             app, "--algo", [&spec](const std::string& s) { spec.algo = parse_algo(s); },
             "auto, ring, biring, ladder, line, tree, avg or butterfly", "A")
      ->default_str("auto");
}

CLI::Option* add_root(CLI::App& app, CollectiveSpec& spec) {
  return add_int(app, "--root", spec.root, 0, 4095, "root chip of broadcast and reduce")
      ->type_name("R")
      ->default_str("0");
}

CLI::Option* add_tiles(CLI::App& app, int& tiles, int tiles_hi, const std::string& help) {
  return add_int(app, "--tiles", tiles, 1, tiles_hi, help)->default_str(std::to_string(tiles));
}

CLI::Option* add_chunk(CLI::App& app, CollectiveSpec& spec) {
  // at most a tile's address space (the header's 24-bit dst_addr)
  return add_parsed(
      app, "--chunk",
      [&spec](const std::string& s) {
        spec.chunk_bytes = static_cast<uint32_t>(cli::parse_bytes("chunk", s, 1u << 24));
      },
      "pipelining granule of each transfer (default: the compiler's choice)", "BYTES");
}

CLI::Option* add_seed(CLI::App& app, uint64_t& seed) {
  return add_int(app, "--seed", seed, 0, 1ll << 62, "seed of the input data")
      ->type_name("S")
      ->default_str(std::to_string(seed));
}

CLI::Option* add_flit_bits(CLI::App& app, int& bits) {
  return add_int(app, "--flit-bits", bits, 0, 1 << 20,
                 "the machine's flit width: 32, 64 or 128 bits (docs/packets.md section 2)")
      ->default_str(std::to_string(bits));
}

bool given(const CLI::App& app, const std::string& name) { return app.count(name) > 0; }

int run_tool(const char* prog, CLI::App& app, const std::vector<std::string>& args,
             const std::function<int()>& body,
             const std::function<void(const std::string&)>& positional) {
  auto usage = [&](const char* why) {
    if (why) std::fprintf(stderr, "%s: %s\n", prog, cli::printable(why).c_str());
    std::fputs(app.help().c_str(), stderr);
    return why ? 2 : 0;
  };
  try {
    std::vector<std::string> rev(args.rbegin(), args.rend());  // CLI11 takes them reversed
    try {
      app.parse(rev);
    } catch (const CLI::CallForHelp&) {
      return usage(nullptr);
    } catch (const CLI::ParseError& e) {
      const std::string what = e.what();
      const std::string opt = option_in(what);
      if (what.find("flag override") != std::string::npos)
        throw cli::Usage("--" + what.substr(0, what.find(' ')) + " takes no value");
      if (!opt.empty() && what.find("required") != std::string::npos) {
        const CLI::Option* o = app.get_option_no_throw(opt);
        throw cli::Usage(
            opt + (o && o->get_type_name() == "FILE" ? " needs a file name" : " needs a value"));
      }
      throw cli::Usage(what);
    }
    for (const std::string& word : app.remaining()) {
      if (positional && word.rfind("-", 0) != 0)
        positional(word);
      else
        unexpected(word);
    }
    return body();
  } catch (...) {
    return cli::exit_status(prog, usage);
  }
}

}  // namespace xf::tool
