// Topologies: parsing the grammar of docs/topology.md and the graph the compiler uses.
//
// Grammar (command line):  ring:P  biring:P  line:P  ladder:P (P even, >= 4)
//                          tree:SPEC   SPEC := COUNT | '(' SPEC (',' SPEC)* ')'
//                          file:PATH   (the file form, docs/topology.md)
// In a tree SPEC a bare number k is a switch with k leaf chips; a parenthesised list is a switch
// whose children are the listed sub-specs. tree:(2,3) is a root switch with two child switches
// holding 2 and 3 chips; tree:4 is one switch with four chips. Leaves are chips, inner nodes
// are switches. Chips are numbered 0..P-1 in depth-first, left-to-right order; switches follow
// as nodes P..N-1.
#pragma once

#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

#include "xf/defs.hpp"

namespace xf {

// Thrown for any malformed topology; what() says what was wrong and what to do.
struct TopologyError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

enum class TopoKind { kRing, kBiring, kLine, kLadder, kTree, kFile };

// A bidirectional physical link: node a's port pa is wired to node b's port pb.
struct Link {
  int a, pa, b, pb;
};

// A directed logical ring: chips in visiting order; `out_port[k]` is the port chip order[k]
// sends on to reach order[(k+1) % n] over the link that belongs to this ring.
struct Ring {
  std::vector<int> order;
  std::vector<int> out_port;
};

struct Topology {
  TopoKind kind = TopoKind::kRing;
  std::string spec;            // the text it was parsed from
  int num_chips = 0;           // nodes 0..num_chips-1 are chips
  int num_nodes = 0;           // chips then switches
  std::vector<int> num_ports;  // per node
  std::vector<Link> links;
  // Directed rings used by ring algorithms: ring:1 (one direction), biring:2 (both
  // directions), ladder:4 (two embedded rings, both directions), line/tree:0.
  std::vector<Ring> rings;
  // Trees only: parent[node] (-1 for the root), children[node] in order, and the port on the
  // parent's side / child's side of each tree edge.
  std::vector<int> parent;
  std::vector<std::vector<int>> children;
  // The machine's flit width, one value per machine (docs/packets.md section 2): 32, 64 or
  // 128 bits. The payload bytes per flit, flit_bits / 8, are W in the bandwidth bound.
  // parse_topology leaves the default; the tools' --flit-bits sets it (set_flit_bits).
  int flit_bits = kFlitBits;

  int flit_bytes() const { return flit_bits / 8; }
  // Header flits per packet: kHeaderBits / flit_bits.
  int header_flits() const { return static_cast<int>(kHeaderBits) / flit_bits; }
  bool is_switch(int node) const { return node >= num_chips; }
  // Peer of (node, port): {node, port} or {-1, -1} when the port is unconnected.
  std::pair<int, int> peer(int node, int port) const;
  // Outgoing channels used at once by the bandwidth bound (ring 1, biring 2, ladder 4,
  // line 2, tree 1).
  int bound_channels() const;
};

// The widths a machine can have.
inline bool legal_flit_bits(int bits) { return bits == 32 || bits == 64 || bits == 128; }
// The flit width in a node's Config register (docs/chip.md): log2 of its bytes, in place.
constexpr uint32_t config_flit_field(int flit_bits) {
  uint32_t log2_bytes = 0;
  while ((8u << log2_bytes) < static_cast<uint32_t>(flit_bits)) ++log2_bytes;
  return log2_bytes << reg::config::kFlitBytesLog2Lsb;
}
// The flit width a Config value reports.
constexpr int config_flit_bits(uint32_t config) {
  return 8 << ((config >> reg::config::kFlitBytesLog2Lsb) &
               ((1u << reg::config::kFlitBytesLog2Bits) - 1));
}
// Sets t.flit_bits; throws TopologyError naming the legal widths for any other value.
void set_flit_bits(Topology& t, int bits);

// Parses a topology string; throws TopologyError with a helpful message.
Topology parse_topology(const std::string& text);

// Routing: next_port[node][dst_chip] = port on which `node` forwards a packet for dst_chip
// along a BFS spanning tree rooted at chip 0 (up*/down*-style tree routing: deadlock-free),
// or -1 when node == dst_chip. Tree topologies route along the tree itself.
std::vector<std::vector<int>> spanning_tree_routes(const Topology& t);

// Routing along shortest paths: next_port[node][dst_chip] = a port of `node` on a shortest path
// to dst_chip (by hops; among equals the lowest neighbour id, then the lowest port), -1 when
// node == dst_chip. Not deadlock-free on topologies with cycles in general: the compiler uses
// these routes only for plans whose traffic never fills a buffer (docs/compiler.md section 9).
std::vector<std::vector<int>> shortest_path_routes(const Topology& t);

}  // namespace xf
