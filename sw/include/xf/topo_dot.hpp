// Pictures of topologies: the Graphviz source of a Topology and `fabric topo` (docs/topology.md,
// section 9).
//
//   fabric topo T [--dot FILE] [--png FILE] [--svg FILE]
//
// Without an output option the Graphviz source goes to stdout. --png and --svg run Graphviz's
// `dot` (Debian package graphviz, installed by scripts/setup.sh); the source names its own
// layout engine (neato with pinned positions for ring, biring, line and ladder, dot for trees),
// so `dot -Tpng FILE.dot` draws the same picture as `fabric topo T --png`.
#pragma once

#include <map>
#include <string>

#include "xf/topology.hpp"

namespace xf {

// The Graphviz source of `topo`. Chips are boxes labelled with their chip number, switches
// ellipses labelled s<node>; every physical link is one edge with its two port numbers at its
// ends. The collective structure is coloured, with a legend:
//   ring, biring, ladder, file rings  each directed ring of Topology::rings in its own colour, as
//                                     arrows on the links it sends over (a link carrying two
//                                     rings, one each way, has two parallel lines and an arrow
//                                     of each colour); the ladder's A and A reversed in reds, B
//                                     and B reversed in blues;
//   line                              the chain, both directions;
//   tree                              switches and the links below them by level: level 1
//                                     switches hold chips, a level k switch holds switches of
//                                     level k-1 and below (its height), one row per level.
// The same topology always gives the same text.
std::string topology_dot(const Topology& topo);

// One line: the topology, its chips, switches, links and rings or switch levels, e.g.
// "ladder:8: 8 chips, 16 links, 4 directed rings (A, A reversed, B, B reversed)".
std::string topology_summary(const Topology& topo);

// Writes the pictures of `topo` that `files` names (format "dot", "png" or "svg" -> file name);
// png and svg with Graphviz's dot. Throws cli::Usage when a file cannot be written and
// std::runtime_error when Graphviz is missing or fails. (`fabric topo`: sw/tools/topo_cli.cpp.)
void write_topology_pictures(const Topology& topo, const std::map<std::string, std::string>& files);

}  // namespace xf
