// `fabric topo T [--dot FILE] [--png FILE] [--svg FILE]`: the options of the topology pictures
// (xf/topo_dot.hpp, docs/topology.md section 9). Exit status 0 on success, 1 when Graphviz is
// missing or fails, 2 on a bad argument or topology (printed with the usage).
#include <cstdio>
#include <map>

#include "options.hpp"
#include "subcommands.hpp"
#include "xf/cli.hpp"
#include "xf/topo_dot.hpp"

namespace xf {

int topo_main(const std::vector<std::string>& args) {
  using cli::Usage;
  auto app = tool::make_app(
      "fabric topo",
      "Draws a topology: chips, switches, links with their ports, and the rings or tree levels in "
      "colour. Without an option it prints the Graphviz source; --png and --svg need Graphviz's "
      "dot (Debian package graphviz; scripts/setup.sh installs it).");
  std::string spec;
  app->add_option("T", spec, "ring:P biring:P line:P ladder:P tree:SPEC file:PATH");
  std::map<std::string, std::string> files;  // format -> file
  for (const char* format : {"dot", "png", "svg"})
    tool::add_file(*app, std::string("--") + format, files[format],
                   std::string("write the ") +
                       (format == std::string("dot") ? "Graphviz source" : format) + " to FILE");
  return tool::run_tool(
      "fabric topo", *app, args,
      [&] {
        for (const char* format : {"dot", "png", "svg"}) {
          if (app->count(std::string("--") + format) > 1)
            throw Usage(std::string("--") + format + " given twice");
          if (files[format].empty()) files.erase(format);
        }
        if (spec.empty())
          throw Usage("which topology? e.g. fabric topo ladder:8 --png ladder8.png");
        const Topology topo = parse_topology(spec);
        if (files.empty()) {
          std::fputs(topology_dot(topo).c_str(), stdout);
          return 0;
        }
        write_topology_pictures(topo, files);
        std::string wrote;
        for (const auto& [format, file] : files) wrote += (wrote.empty() ? "" : ", ") + file;
        std::printf("%s; wrote %s\n", topology_summary(topo).c_str(), wrote.c_str());
        return 0;
      },
      [&](const std::string& word) {
        throw Usage("one topology at a time: got '" + spec + "' and '" + word + "'");
      });
}

}  // namespace xf
