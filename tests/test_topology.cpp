// Tests for sw/lib/topology.cpp (parse_topology, Topology::peer, bound_channels,
// spanning_tree_routes).
//
// Space covered:
//  - every kind parses: ring, biring, line, tree:P for P in {2,3,4,5,8,12,16,64}, ladder for the
//    even P in that set (odd P and P=2 must fail), plus file: forms written to temp files;
//  - link/port consistency of every parsed topology: ids and ports in range, each (node, port)
//    used at most once, peer() symmetric and {-1,-1} on free ports, expected link counts;
//  - rings: ring/biring/ladder rings are Hamiltonian cycles whose hops follow existing links on
//    the stated out_port; biring and ladder rings use disjoint outgoing channels; ladder for
//    P in {4,6,8,10,12,16,64}: rings A and B together use every link exactly once (the two rung
//    links counted separately), reversed rings retrace the forward ones, straight/crossed
//    return links, exact orders for ladder:8 and ladder:6, growth by inserting one pair;
//  - trees: tree:4, tree:(2,3), tree:((2,2),3,(1,4)) with its 12 chips and 8 switches (parent,
//    children, ports), whitespace, nested single children;
//  - file form: ladder:8, ladder:10, ring:5, biring:3, line:4 and tree:(2,3) written as files
//    parse back to the same links and rings (the first-unused-channel rule picks the same
//    ports); directives in any order, comments, blank lines, switches;
//  - spanning_tree_routes: for every topology above and every (node, destination chip), following
//    next_port reaches the destination without revisiting a node; the links used by all routes
//    form a spanning tree (N-1 links, acyclic); for trees that is every link; exact BFS choices
//    on ring:4, ring:2 (parallel links) and line:5;
//  - shortest_path_routes: every route's hop count equals the all-pairs shortest distance
//    (Floyd-Warshall over the links) on every kind and size up to 130 nodes, and on trees the
//    routes are the spanning tree's; a disconnected topology is refused;
//  - errors: every malformed input throws TopologyError whose message contains the offending
//    text (and the line number for file errors).

#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>
#include <functional>
#include <map>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "xf/topology.hpp"

namespace xf {
namespace {

const std::vector<int> kSizes = {2, 3, 4, 5, 8, 12, 16, 64};
const std::vector<int> kLadderSizes = {4, 6, 8, 10, 12, 16, 64};

// Writes `body` to a fresh file in the test temp dir and returns its path.
std::string WriteTemp(const std::string& name, const std::string& body) {
  const std::string path = ::testing::TempDir() + "xf_topo_" + name + ".txt";
  std::ofstream out(path);
  out << body;
  return path;
}

// Index of the link holding (node, port), or -1.
int LinkIndex(const Topology& t, int node, int port) {
  for (size_t i = 0; i < t.links.size(); ++i) {
    const Link& l = t.links[i];
    if ((l.a == node && l.pa == port) || (l.b == node && l.pb == port)) {
      return static_cast<int>(i);
    }
  }
  return -1;
}

void CheckPorts(const Topology& t) {
  SCOPED_TRACE(t.spec);
  ASSERT_EQ(static_cast<int>(t.num_ports.size()), t.num_nodes);
  ASSERT_GE(t.num_nodes, t.num_chips);
  std::set<std::pair<int, int>> used;
  for (const Link& l : t.links) {
    ASSERT_GE(l.a, 0);
    ASSERT_LT(l.a, t.num_nodes);
    ASSERT_GE(l.b, 0);
    ASSERT_LT(l.b, t.num_nodes);
    EXPECT_NE(l.a, l.b);
    ASSERT_GE(l.pa, 0);
    ASSERT_LT(l.pa, t.num_ports[l.a]);
    ASSERT_GE(l.pb, 0);
    ASSERT_LT(l.pb, t.num_ports[l.b]);
    EXPECT_TRUE(used.insert({l.a, l.pa}).second) << "port " << l.a << "." << l.pa << " reused";
    EXPECT_TRUE(used.insert({l.b, l.pb}).second) << "port " << l.b << "." << l.pb << " reused";
  }
  for (int v = 0; v < t.num_nodes; ++v) {
    for (int p = 0; p < t.num_ports[v]; ++p) {
      const auto [w, q] = t.peer(v, p);
      if (used.count({v, p})) {
        ASSERT_GE(w, 0);
        EXPECT_EQ(t.peer(w, q), std::make_pair(v, p));
      } else {
        EXPECT_EQ(w, -1);
        EXPECT_EQ(q, -1);
      }
    }
  }
  EXPECT_EQ(t.peer(0, 999), std::make_pair(-1, -1));
}

// A ring visits every chip once and each hop follows a link on the stated out_port.
void CheckRing(const Topology& t, const Ring& r) {
  SCOPED_TRACE(t.spec);
  const int n = static_cast<int>(r.order.size());
  ASSERT_EQ(n, t.num_chips);
  ASSERT_EQ(r.out_port.size(), r.order.size());
  std::vector<int> sorted = r.order;
  std::sort(sorted.begin(), sorted.end());
  for (int i = 0; i < n; ++i) ASSERT_EQ(sorted[i], i) << "not a permutation of the chips";
  for (int k = 0; k < n; ++k) {
    EXPECT_EQ(t.peer(r.order[k], r.out_port[k]).first, r.order[(k + 1) % n])
        << "hop " << k << " from " << r.order[k] << " on port " << r.out_port[k];
  }
}

// No two rings send on the same (chip, port).
void CheckDisjointChannels(const Topology& t) {
  SCOPED_TRACE(t.spec);
  std::set<std::pair<int, int>> channels;
  for (const Ring& r : t.rings) {
    for (size_t k = 0; k < r.order.size(); ++k) {
      EXPECT_TRUE(channels.insert({r.order[k], r.out_port[k]}).second);
    }
  }
}

// Ring `rev` is `fwd` backwards over the same links, starting at the same chip.
void CheckReversed(const Topology& t, const Ring& fwd, const Ring& rev) {
  const int n = static_cast<int>(fwd.order.size());
  ASSERT_EQ(static_cast<int>(rev.order.size()), n);
  for (int j = 0; j < n; ++j) {
    EXPECT_EQ(rev.order[j], fwd.order[(n - j) % n]);
    // The reverse hop rev[j] -> rev[j+1] uses the link of forward hop n-1-j.
    const int k = n - 1 - j;
    EXPECT_EQ(LinkIndex(t, rev.order[j], rev.out_port[j]),
              LinkIndex(t, fwd.order[k], fwd.out_port[k]));
  }
}

// Follows every route; returns the set of link indices used. Checks each route reaches its
// destination without revisiting a node.
std::set<int> CheckRoutes(const Topology& t) {
  SCOPED_TRACE(t.spec);
  const auto next = spanning_tree_routes(t);
  std::set<int> used;
  EXPECT_EQ(static_cast<int>(next.size()), t.num_nodes);
  for (int src = 0; src < t.num_nodes; ++src) {
    EXPECT_EQ(static_cast<int>(next[src].size()), t.num_chips);
    for (int dst = 0; dst < t.num_chips; ++dst) {
      std::vector<char> seen(t.num_nodes, 0);
      int v = src;
      while (v != dst) {
        if (seen[v]) {
          ADD_FAILURE() << "loop routing " << src << " -> " << dst << " at " << v;
          return used;
        }
        seen[v] = 1;
        const int port = next[v][dst];
        const int li = LinkIndex(t, v, port);
        if (port < 0 || li < 0) {
          ADD_FAILURE() << "no link routing " << src << " -> " << dst << " at " << v;
          return used;
        }
        used.insert(li);
        v = t.peer(v, port).first;
      }
      EXPECT_EQ(next[dst][dst], -1);
    }
  }
  // The used links form a spanning tree: N-1 of them and no cycle.
  EXPECT_EQ(static_cast<int>(used.size()), t.num_nodes - 1);
  std::vector<int> uf(t.num_nodes);
  for (int i = 0; i < t.num_nodes; ++i) uf[i] = i;
  std::function<int(int)> find = [&](int x) { return uf[x] == x ? x : uf[x] = find(uf[x]); };
  for (int li : used) {
    const int ra = find(t.links[li].a);
    const int rb = find(t.links[li].b);
    EXPECT_NE(ra, rb) << "routes use a cycle";
    uf[ra] = rb;
  }
  return used;
}

// Serialises a topology into the file form.
std::string ToFile(const Topology& t) {
  std::string s = "# generated from " + t.spec + "\n\nchips " + std::to_string(t.num_chips) + "\n";
  if (t.num_nodes > t.num_chips) {
    s += "switches " + std::to_string(t.num_nodes - t.num_chips) + "  # trailing comment\n";
  }
  for (const Link& l : t.links) {
    s += "link " + std::to_string(l.a) + " " + std::to_string(l.pa) + " " + std::to_string(l.b) +
         " " + std::to_string(l.pb) + "\n";
  }
  for (const Ring& r : t.rings) {
    s += "ring";
    for (int c : r.order) s += " " + std::to_string(c);
    s += "\n";
  }
  return s;
}

void ExpectSameGraph(const Topology& a, const Topology& b) {
  EXPECT_EQ(a.num_chips, b.num_chips);
  EXPECT_EQ(a.num_nodes, b.num_nodes);
  // A file only knows the ports its links use: num_ports is one more than the highest of them.
  for (int v = 0; v < a.num_nodes && v < b.num_nodes; ++v) {
    int highest = -1;
    for (const Link& l : a.links) {
      if (l.a == v) highest = std::max(highest, l.pa);
      if (l.b == v) highest = std::max(highest, l.pb);
    }
    EXPECT_EQ(b.num_ports[v], highest + 1) << "node " << v;
    EXPECT_LE(b.num_ports[v], a.num_ports[v]) << "node " << v;
  }
  ASSERT_EQ(a.links.size(), b.links.size());
  for (size_t i = 0; i < a.links.size(); ++i) {
    EXPECT_EQ(a.links[i].a, b.links[i].a);
    EXPECT_EQ(a.links[i].pa, b.links[i].pa);
    EXPECT_EQ(a.links[i].b, b.links[i].b);
    EXPECT_EQ(a.links[i].pb, b.links[i].pb);
  }
  ASSERT_EQ(a.rings.size(), b.rings.size());
  for (size_t i = 0; i < a.rings.size(); ++i) {
    EXPECT_EQ(a.rings[i].order, b.rings[i].order) << "ring " << i;
    EXPECT_EQ(a.rings[i].out_port, b.rings[i].out_port) << "ring " << i;
  }
}

// ---- parsing every kind -------------------------------------------------------------------

TEST(TopologyParse, EveryKindForEverySize) {
  for (int p : kSizes) {
    const std::string ps = std::to_string(p);
    const Topology ring = parse_topology("ring:" + ps);
    EXPECT_EQ(ring.kind, TopoKind::kRing);
    EXPECT_EQ(ring.spec, "ring:" + ps);
    EXPECT_EQ(ring.num_chips, p);
    EXPECT_EQ(ring.num_nodes, p);
    EXPECT_EQ(static_cast<int>(ring.links.size()), p);
    EXPECT_EQ(ring.rings.size(), 1u);
    EXPECT_EQ(ring.bound_channels(), 1);

    const Topology bi = parse_topology("biring:" + ps);
    EXPECT_EQ(bi.kind, TopoKind::kBiring);
    EXPECT_EQ(static_cast<int>(bi.links.size()), p);
    EXPECT_EQ(bi.rings.size(), 2u);
    EXPECT_EQ(bi.bound_channels(), 2);

    const Topology line = parse_topology("line:" + ps);
    EXPECT_EQ(line.kind, TopoKind::kLine);
    EXPECT_EQ(line.num_chips, p);
    EXPECT_EQ(static_cast<int>(line.links.size()), p - 1);
    EXPECT_TRUE(line.rings.empty());
    EXPECT_EQ(line.bound_channels(), 2);

    const Topology tree = parse_topology("tree:" + ps);
    EXPECT_EQ(tree.kind, TopoKind::kTree);
    EXPECT_EQ(tree.num_chips, p);
    EXPECT_EQ(tree.num_nodes, p + 1);
    EXPECT_EQ(static_cast<int>(tree.links.size()), p);
    EXPECT_TRUE(tree.rings.empty());
    EXPECT_EQ(tree.bound_channels(), 1);

    if (p >= 4 && p % 2 == 0) {
      const Topology ladder = parse_topology("ladder:" + ps);
      EXPECT_EQ(ladder.kind, TopoKind::kLadder);
      EXPECT_EQ(ladder.num_chips, p);
      EXPECT_EQ(ladder.num_nodes, p);
      EXPECT_EQ(static_cast<int>(ladder.links.size()), 2 * p);
      EXPECT_EQ(ladder.rings.size(), 4u);
      EXPECT_EQ(ladder.bound_channels(), 4);
      CheckPorts(ladder);
    } else {
      EXPECT_THROW(parse_topology("ladder:" + ps), TopologyError);
    }
    for (const Topology* t : {&ring, &bi, &line, &tree}) CheckPorts(*t);

    const std::string path = WriteTemp("kinds_" + ps, ToFile(bi));
    const Topology file = parse_topology("file:" + path);
    EXPECT_EQ(file.kind, TopoKind::kFile);
    EXPECT_EQ(file.num_chips, p);
    EXPECT_EQ(file.rings.size(), 2u);
    EXPECT_EQ(file.bound_channels(), 2);
    EXPECT_TRUE(file.parent.empty());
    EXPECT_TRUE(file.children.empty());
    CheckPorts(file);
  }
}

TEST(TopologyParse, LimitsAndWhitespace) {
  EXPECT_EQ(parse_topology("ring:4096").num_chips, 4096);
  EXPECT_EQ(parse_topology("ladder:4096").num_chips, 4096);
  EXPECT_EQ(parse_topology("tree:4096").num_chips, 4096);
  EXPECT_EQ(parse_topology("  ring: 8 ").num_chips, 8);
  EXPECT_EQ(parse_topology("tree:1").num_chips, 1);  // a bare count may be 1
}

// ---- ring, biring, line ----------------------------------------------------------------------

TEST(TopologyRing, RingAndBiringRings) {
  for (int p : kSizes) {
    const Topology ring = parse_topology("ring:" + std::to_string(p));
    const Topology bi = parse_topology("biring:" + std::to_string(p));
    for (const Topology* t : {&ring, &bi}) {
      for (int i = 0; i < p; ++i) {
        EXPECT_EQ(t->num_ports[i], 2);
        EXPECT_EQ(t->peer(i, 0), std::make_pair((i + 1) % p, 1));
      }
      EXPECT_EQ(t->rings[0].order[p - 1], p - 1);
      for (int i = 0; i < p; ++i) {
        EXPECT_EQ(t->rings[0].order[i], i);
        EXPECT_EQ(t->rings[0].out_port[i], 0);
      }
      for (const Ring& r : t->rings) CheckRing(*t, r);
      CheckDisjointChannels(*t);
    }
    ASSERT_EQ(bi.rings.size(), 2u);
    for (int i = 0; i < p; ++i) {
      EXPECT_EQ(bi.rings[1].order[i], (p - i) % p);
      EXPECT_EQ(bi.rings[1].out_port[i], 1);
    }
    CheckReversed(bi, bi.rings[0], bi.rings[1]);
  }
}

TEST(TopologyRing, LineEndsAreOpen) {
  for (int p : kSizes) {
    const Topology t = parse_topology("line:" + std::to_string(p));
    for (int i = 0; i < p; ++i) EXPECT_EQ(t.num_ports[i], 2);
    for (int i = 0; i + 1 < p; ++i) EXPECT_EQ(t.peer(i, 0), std::make_pair(i + 1, 1));
    EXPECT_EQ(t.peer(0, 1), std::make_pair(-1, -1));
    EXPECT_EQ(t.peer(p - 1, 0), std::make_pair(-1, -1));
  }
}

// ---- ladder -------------------------------------------------------------------------------

TEST(TopologyLadder, TwoEdgeDisjointHamiltonianRings) {
  for (int p : kLadderSizes) {
    SCOPED_TRACE(p);
    const Topology t = parse_topology("ladder:" + std::to_string(p));
    CheckPorts(t);
    ASSERT_EQ(t.rings.size(), 4u);
    for (int v = 0; v < p; ++v) {
      EXPECT_EQ(t.num_ports[v], 4);
      for (int port = 0; port < 4; ++port) EXPECT_GE(t.peer(v, port).first, 0) << v << "." << port;
    }
    for (int k = 0; k < p / 2; ++k) {
      EXPECT_EQ(t.peer(2 * k, 0), std::make_pair(2 * k + 1, 0));
      EXPECT_EQ(t.peer(2 * k, 1), std::make_pair(2 * k + 1, 1));
    }
    for (const Ring& r : t.rings) CheckRing(t, r);
    // A and B together use every link exactly once (rung links 0 and 1 are distinct links).
    std::vector<int> uses(t.links.size(), 0);
    for (int ri : {0, 2}) {
      const Ring& r = t.rings[ri];
      for (size_t k = 0; k < r.order.size(); ++k) {
        const int li = LinkIndex(t, r.order[k], r.out_port[k]);
        ASSERT_GE(li, 0);
        ++uses[li];
      }
    }
    for (size_t i = 0; i < uses.size(); ++i) EXPECT_EQ(uses[i], 1) << "link " << i;
    // A starts with rung link 0 from a_0 to b_0; B starts on a_0's side port and closes over
    // rung link 1.
    EXPECT_EQ(t.rings[0].order[0], 0);
    EXPECT_EQ(t.rings[0].order[1], 1);
    EXPECT_EQ(t.rings[0].out_port[0], 0);
    EXPECT_EQ(t.rings[2].order[0], 0);
    EXPECT_EQ(t.rings[2].out_port[0], 2);
    EXPECT_EQ(t.rings[2].order.back(), 1);
    EXPECT_EQ(t.rings[2].out_port.back(), 1);
    CheckReversed(t, t.rings[0], t.rings[1]);
    CheckReversed(t, t.rings[2], t.rings[3]);
    // The four directed rings leave every chip on its four different ports.
    CheckDisjointChannels(t);
    // Return links: straight for an even number of pairs, crossed for odd.
    const int n = p / 2;
    const int a_last = 2 * (n - 1);
    const int b_last = a_last + 1;
    if (n % 2 == 0) {
      EXPECT_EQ(t.peer(a_last, 2), std::make_pair(0, 3));
      EXPECT_EQ(t.peer(b_last, 2), std::make_pair(1, 3));
    } else {
      EXPECT_EQ(t.peer(a_last, 2), std::make_pair(1, 3));
      EXPECT_EQ(t.peer(b_last, 2), std::make_pair(0, 3));
    }
  }
}

TEST(TopologyLadder, ExactRingsOfLadder8And6) {
  const Topology t8 = parse_topology("ladder:8");
  EXPECT_EQ(t8.rings[0].order, (std::vector<int>{0, 1, 3, 2, 4, 5, 7, 6}));
  EXPECT_EQ(t8.rings[0].out_port, (std::vector<int>{0, 2, 0, 2, 0, 2, 0, 2}));
  EXPECT_EQ(t8.rings[2].order, (std::vector<int>{0, 2, 3, 5, 4, 6, 7, 1}));
  EXPECT_EQ(t8.rings[2].out_port, (std::vector<int>{2, 1, 2, 1, 2, 1, 2, 1}));
  EXPECT_EQ(t8.rings[1].order, (std::vector<int>{0, 6, 7, 5, 4, 2, 3, 1}));
  EXPECT_EQ(t8.rings[1].out_port, (std::vector<int>{3, 0, 3, 0, 3, 0, 3, 0}));
  EXPECT_EQ(t8.rings[3].order, (std::vector<int>{0, 1, 7, 6, 4, 5, 3, 2}));
  EXPECT_EQ(t8.rings[3].out_port, (std::vector<int>{1, 3, 1, 3, 1, 3, 1, 3}));
  // Three pairs: crossed return links.
  const Topology t6 = parse_topology("ladder:6");
  EXPECT_EQ(t6.rings[0].order, (std::vector<int>{0, 1, 3, 2, 4, 5}));
  EXPECT_EQ(t6.rings[2].order, (std::vector<int>{0, 2, 3, 5, 4, 1}));
}

TEST(TopologyLadder, GrowsByInsertingAPair) {
  for (int p : kLadderSizes) {
    const Topology small = parse_topology("ladder:" + std::to_string(p));
    const Topology big = parse_topology("ladder:" + std::to_string(p + 2));
    const int n = p / 2;
    // Every non-return link of ladder:P is in ladder:P+2.
    std::set<std::vector<int>> big_links;
    for (const Link& l : big.links) big_links.insert({l.a, l.pa, l.b, l.pb});
    for (const Link& l : small.links) {
      const bool is_return = l.pa == 2 && (l.a == 2 * (n - 1) || l.a == 2 * (n - 1) + 1);
      if (!is_return) {
        EXPECT_TRUE(big_links.count({l.a, l.pa, l.b, l.pb})) << p;
      }
    }
    // Ring A of ladder:P is a prefix of ring A of ladder:P+2; ring B likewise minus its close.
    const Ring& a_small = small.rings[0];
    const Ring& a_big = big.rings[0];
    EXPECT_TRUE(std::equal(a_small.order.begin(), a_small.order.end(), a_big.order.begin()));
    const Ring& b_small = small.rings[2];
    const Ring& b_big = big.rings[2];
    EXPECT_TRUE(std::equal(b_small.order.begin(), b_small.order.end() - 1, b_big.order.begin()));
  }
}

// ---- tree ---------------------------------------------------------------------------------

TEST(TopologyTree, SingleSwitch) {
  const Topology t = parse_topology("tree:4");
  EXPECT_EQ(t.num_chips, 4);
  EXPECT_EQ(t.num_nodes, 5);
  EXPECT_TRUE(t.is_switch(4));
  EXPECT_FALSE(t.is_switch(3));
  EXPECT_EQ(t.parent, (std::vector<int>{4, 4, 4, 4, -1}));
  EXPECT_EQ(t.children[4], (std::vector<int>{0, 1, 2, 3}));
  EXPECT_EQ(t.num_ports, (std::vector<int>{1, 1, 1, 1, 4}));
  for (int c = 0; c < 4; ++c) EXPECT_EQ(t.peer(c, 0), std::make_pair(4, c));
  CheckPorts(t);
}

TEST(TopologyTree, TwoLevels) {
  const Topology t = parse_topology("tree:(2,3)");
  EXPECT_EQ(t.num_chips, 5);
  EXPECT_EQ(t.num_nodes, 8);
  EXPECT_EQ(t.parent, (std::vector<int>{6, 6, 7, 7, 7, -1, 5, 5}));
  EXPECT_EQ(t.children[5], (std::vector<int>{6, 7}));
  EXPECT_EQ(t.children[6], (std::vector<int>{0, 1}));
  EXPECT_EQ(t.children[7], (std::vector<int>{2, 3, 4}));
  EXPECT_TRUE(t.children[0].empty());
  EXPECT_EQ(t.num_ports, (std::vector<int>{1, 1, 1, 1, 1, 2, 3, 4}));
  EXPECT_EQ(t.peer(5, 0), std::make_pair(6, 2));
  EXPECT_EQ(t.peer(5, 1), std::make_pair(7, 3));
  EXPECT_EQ(t.peer(7, 2), std::make_pair(4, 0));
  CheckPorts(t);
}

TEST(TopologyTree, ThreeLevelExample) {
  const Topology t = parse_topology("tree:((2,2),3,(1,4))");
  // Switches in pre-order: 12 root, 13 (2,2), 14 and 15 its leaf groups, 16 the 3, 17 (1,4),
  // 18 and 19 its leaf groups.
  EXPECT_EQ(t.num_chips, 12);
  EXPECT_EQ(t.num_nodes, 20);
  EXPECT_EQ(t.parent, (std::vector<int>{14, 14, 15, 15, 16, 16, 16, 18, 19, 19,
                                        19, 19, -1, 12, 13, 13, 12, 12, 17, 17}));
  EXPECT_EQ(t.children[12], (std::vector<int>{13, 16, 17}));
  EXPECT_EQ(t.children[13], (std::vector<int>{14, 15}));
  EXPECT_EQ(t.children[14], (std::vector<int>{0, 1}));
  EXPECT_EQ(t.children[15], (std::vector<int>{2, 3}));
  EXPECT_EQ(t.children[16], (std::vector<int>{4, 5, 6}));
  EXPECT_EQ(t.children[17], (std::vector<int>{18, 19}));
  EXPECT_EQ(t.children[18], (std::vector<int>{7}));
  EXPECT_EQ(t.children[19], (std::vector<int>{8, 9, 10, 11}));
  EXPECT_EQ(t.num_ports,
            (std::vector<int>{1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 3, 3, 3, 3, 4, 3, 2, 5}));
  EXPECT_EQ(static_cast<int>(t.links.size()), 19);
  // Child i of a switch hangs on its port i; the child's last port points up.
  for (int s = 12; s < 20; ++s) {
    for (size_t i = 0; i < t.children[s].size(); ++i) {
      const int c = t.children[s][i];
      EXPECT_EQ(t.peer(s, static_cast<int>(i)), std::make_pair(c, t.num_ports[c] - 1));
    }
  }
  EXPECT_EQ(t.peer(12, 3), std::make_pair(-1, -1));  // the root has no parent port
  CheckPorts(t);
  // Whitespace anywhere between tokens gives the same tree.
  const Topology ws = parse_topology(" tree: ( ( 2 ,2) ,\t3 , (1 , 4 ) ) ");
  EXPECT_EQ(ws.parent, t.parent);
  EXPECT_EQ(ws.num_ports, t.num_ports);
  EXPECT_EQ(ws.children, t.children);
}

TEST(TopologyTree, SingleChildLists) {
  const Topology t = parse_topology("tree:((4))");
  EXPECT_EQ(t.num_chips, 4);
  EXPECT_EQ(t.num_nodes, 7);
  EXPECT_EQ(t.parent, (std::vector<int>{6, 6, 6, 6, -1, 4, 5}));
  EXPECT_EQ(t.num_ports[4], 1);
  EXPECT_EQ(t.num_ports[5], 2);
  EXPECT_EQ(t.num_ports[6], 5);
  CheckPorts(t);
  EXPECT_EQ(parse_topology("tree:(4096)").num_chips, 4096);
  EXPECT_EQ(parse_topology("tree:(2048,(1024,1024))").num_chips, 4096);
}

// ---- file form -------------------------------------------------------------------------------

TEST(TopologyFile, RoundTripsLadderAndRing) {
  // First-unused-channel link choice reproduces ladder:8's rings (its pairs' only parallel links
  // are the two rungs) when they are listed A, A reversed, B, B reversed.
  for (const char* spec : {"ladder:8", "ladder:10", "ring:5", "biring:3", "line:4"}) {
    const Topology orig = parse_topology(spec);
    const std::string path = WriteTemp(std::string("rt_") + spec, ToFile(orig));
    const Topology t = parse_topology("file:" + path);
    SCOPED_TRACE(spec);
    EXPECT_EQ(t.kind, TopoKind::kFile);
    EXPECT_EQ(t.spec, "file:" + path);
    ExpectSameGraph(orig, t);
    if (orig.kind != TopoKind::kLine) {
      EXPECT_EQ(t.num_ports, orig.num_ports);
    }
    EXPECT_EQ(t.bound_channels(), orig.rings.empty() ? 1 : static_cast<int>(orig.rings.size()));
  }
}

TEST(TopologyFile, SwitchesAndDirectivesInAnyOrder) {
  const Topology tree = parse_topology("tree:(2,3)");
  const std::string path = WriteTemp("switches", ToFile(tree));
  const Topology t = parse_topology("file:" + path);
  EXPECT_EQ(t.num_chips, 5);
  EXPECT_EQ(t.num_nodes, 8);
  EXPECT_TRUE(t.rings.empty());
  EXPECT_EQ(t.bound_channels(), 1);
  EXPECT_EQ(t.num_ports, tree.num_ports);
  CheckPorts(t);
  CheckRoutes(t);
  // Links before the counts, comments and blank lines are fine.
  const std::string p2 = WriteTemp("order",
                                   "link 0 0 1 1   # a\n\n   link 1 0 0 1\n"
                                   "# two chips\nchips 2\nring 1 0\n");
  const Topology t2 = parse_topology("file:" + p2);
  ASSERT_EQ(t2.rings.size(), 1u);
  EXPECT_EQ(t2.rings[0].order, (std::vector<int>{1, 0}));
  EXPECT_EQ(t2.rings[0].out_port, (std::vector<int>{1, 0}));
  CheckRing(t2, t2.rings[0]);
}

// ---- routing ------------------------------------------------------------------------------

TEST(TopologyRoutes, EveryRouteReachesItsDestinationOnTreeEdges) {
  std::vector<std::string> specs;
  for (int p : kSizes) {
    for (const char* kind : {"ring:", "biring:", "line:", "tree:"}) {
      specs.push_back(kind + std::to_string(p));
    }
  }
  for (int p : kLadderSizes) specs.push_back("ladder:" + std::to_string(p));
  for (const char* s :
       {"tree:(2,3)", "tree:((2,2),3,(1,4))", "tree:((4))", "tree:1", "tree:(1,(1,(1,1)),5)"}) {
    specs.push_back(s);
  }
  for (const std::string& s : specs) {
    const Topology t = parse_topology(s);
    const std::set<int> used = CheckRoutes(t);
    if (t.kind == TopoKind::kTree) {
      EXPECT_EQ(static_cast<int>(used.size()), static_cast<int>(t.links.size())) << s;
    }
  }
}

TEST(TopologyRoutes, BfsChoicesAreDeterministic) {
  // ring:4: BFS from 0 reaches 1 (0's port 0) and 3 (0's port 1), then 2 from 1.
  const auto r4 = spanning_tree_routes(parse_topology("ring:4"));
  EXPECT_EQ(r4[3][2], 0);  // 3 -> 0 -> 1 -> 2, not 3 -> 2 over the non-tree link
  EXPECT_EQ(r4[2][3], 1);
  EXPECT_EQ(r4[0][3], 1);
  EXPECT_EQ(r4[0][2], 0);
  // ring:2: two parallel links; the tree edge is 0's lowest port.
  const auto r2 = spanning_tree_routes(parse_topology("ring:2"));
  EXPECT_EQ(r2[0][1], 0);
  EXPECT_EQ(r2[1][0], 1);
  EXPECT_EQ(r2[0][0], -1);
  // line:5: everything follows the line.
  const auto l5 = spanning_tree_routes(parse_topology("line:5"));
  for (int i = 0; i < 5; ++i) {
    for (int j = 0; j < 5; ++j) EXPECT_EQ(l5[i][j], i == j ? -1 : (j > i ? 0 : 1));
  }
  // tree:(2,3): a chip always goes up; switch 6 sends chip 3's traffic to the root (port 2).
  const auto tr = spanning_tree_routes(parse_topology("tree:(2,3)"));
  EXPECT_EQ(tr[0][4], 0);
  EXPECT_EQ(tr[6][3], 2);
  EXPECT_EQ(tr[5][3], 1);
  EXPECT_EQ(tr[7][3], 1);
}

// shortest_path_routes: every route reaches its destination in exactly the hop distance that an
// all-pairs shortest-path computation (Floyd-Warshall over the links, independent of the BFS)
// gives, on every topology kind and size; on trees the routes are the spanning tree's.
TEST(TopologyRoutes, ShortestPathsTakeTheFewestHops) {
  std::vector<std::string> specs;
  for (int p : kSizes) {
    for (const char* kind : {"ring:", "biring:", "line:", "tree:"}) {
      specs.push_back(kind + std::to_string(p));
    }
  }
  for (int p : kLadderSizes) specs.push_back("ladder:" + std::to_string(p));
  for (const char* s : {"tree:(2,3)", "tree:((2,2),3,(1,4))", "tree:(1,(1,(1,1)),5)"}) {
    specs.push_back(s);
  }
  for (const std::string& s : specs) {
    SCOPED_TRACE(s);
    const Topology t = parse_topology(s);
    if (t.num_nodes > 130) continue;  // Floyd-Warshall is cubic
    const int n = t.num_nodes;
    constexpr int kFar = 1 << 20;
    std::vector<std::vector<int>> d(n, std::vector<int>(n, kFar));
    for (int v = 0; v < n; ++v) d[v][v] = 0;
    for (const Link& l : t.links) d[l.a][l.b] = d[l.b][l.a] = 1;
    for (int k = 0; k < n; ++k) {
      for (int i = 0; i < n; ++i) {
        for (int j = 0; j < n; ++j) d[i][j] = std::min(d[i][j], d[i][k] + d[k][j]);
      }
    }
    const auto next = shortest_path_routes(t);
    const auto tree = spanning_tree_routes(t);
    for (int src = 0; src < n; ++src) {
      for (int dst = 0; dst < t.num_chips; ++dst) {
        int v = src, hops = 0;
        for (; v != dst && hops <= n; ++hops) {
          ASSERT_GE(next[v][dst], 0) << src << " -> " << dst << " at " << v;
          v = t.peer(v, next[v][dst]).first;
        }
        EXPECT_EQ(hops, d[src][dst]) << src << " -> " << dst;
        if (t.kind == TopoKind::kTree) {
          EXPECT_EQ(next[src][dst], tree[src][dst]);
        }
      }
    }
  }
  // ladder:8: a rung, a rail neighbour and the chip two pairs on are 1, 1 and 2 hops away.
  const Topology l8 = parse_topology("ladder:8");
  const auto r = shortest_path_routes(l8);
  EXPECT_EQ(l8.peer(0, r[0][1]).first, 1);
  EXPECT_EQ(l8.peer(0, r[0][2]).first, 2);
  EXPECT_EQ(l8.peer(l8.peer(0, r[0][4]).first, r[l8.peer(0, r[0][4]).first][4]).first, 4);
}

TEST(TopologyRoutes, RejectsDisconnectedHandBuiltTopology) {
  Topology t;
  t.spec = "handmade";
  t.kind = TopoKind::kFile;
  t.num_chips = 3;
  t.num_nodes = 3;
  t.num_ports = {1, 1, 0};
  t.links = {{0, 0, 1, 0}};
  try {
    spanning_tree_routes(t);
    ADD_FAILURE() << "expected TopologyError";
  } catch (const TopologyError& e) {
    EXPECT_NE(std::string(e.what()).find("node 2"), std::string::npos) << e.what();
  }
  try {
    shortest_path_routes(t);
    ADD_FAILURE() << "expected TopologyError from shortest_path_routes";
  } catch (const TopologyError& e) {
    EXPECT_NE(std::string(e.what()).find("node 2"), std::string::npos) << e.what();
  }
}

// ---- errors -------------------------------------------------------------------------------

// Expects parse_topology(text) to throw TopologyError mentioning every string in `parts`.
void ExpectError(const std::string& text, const std::vector<std::string>& parts) {
  try {
    parse_topology(text);
    ADD_FAILURE() << "no error for '" << text << "'";
  } catch (const TopologyError& e) {
    const std::string msg = e.what();
    for (const std::string& part : parts) {
      EXPECT_NE(msg.find(part), std::string::npos) << "'" << part << "' missing in: " << msg;
    }
  }
}

TEST(TopologyErrors, KindsAndCounts) {
  ExpectError("torus:8", {"unknown topology 'torus:8'", "ring:P", "file:PATH"});
  ExpectError("", {"unknown topology ''"});
  ExpectError("ring8", {"unknown topology 'ring8'"});
  ExpectError("Ring:8", {"'Ring:8'"});
  ExpectError("ring:0", {"ring:0: P must be between 2 and 4096"});
  ExpectError("ring:1", {"ring:1", "between 2 and 4096"});
  ExpectError("biring:4097", {"biring:4097", "4096"});
  ExpectError("line:99999999999999999999", {"line:99999999999999999999", "4096"});
  ExpectError("ring:", {"ring:", "e.g. ring:8"});
  ExpectError("ring:-3", {"ring:-3"});
  ExpectError("line:8x", {"line:8x"});
  ExpectError("ring:0x10", {"ring:0x10"});
  ExpectError("ladder:7", {"ladder:7: a ladder needs an even number of chips >= 4 (facing "
                           "pairs); try ladder:6 or ladder:8"});
  ExpectError("ladder:2", {"ladder:2", "try ladder:4"});
  ExpectError("ladder:3", {"ladder:3", "try ladder:4"});
  ExpectError("ladder:4098", {"ladder:4098", "4096"});
  ExpectError("ladder:abc", {"ladder:abc", "ladder:8"});
}

TEST(TopologyErrors, TreeSpecs) {
  ExpectError("tree:", {"tree:", "empty tree spec"});
  ExpectError("tree:()", {"tree:()", "empty list"});
  ExpectError("tree:(2,())", {"tree:(2,())", "column 4"});
  ExpectError("tree:0", {"tree:0", "'0'", "between 1 and 4096"});
  ExpectError("tree:(2,0)", {"tree:(2,0)", "'0'"});
  ExpectError("tree:(2,3", {"tree:(2,3", "never closed"});
  ExpectError("tree:((2,3)", {"tree:((2,3)", "never closed"});
  ExpectError("tree:(2,3))", {"tree:(2,3))", "unbalanced ')'"});
  ExpectError("tree:2,3", {"tree:2,3", "',3'"});
  ExpectError("tree:(2,3)x", {"tree:(2,3)x", "'x'"});
  ExpectError("tree:(2 3)", {"tree:(2 3)", "expected ',' or ')'"});
  ExpectError("tree:(2,)", {"tree:(2,)", "found ')'"});
  ExpectError("tree:(,2)", {"tree:(,2)", "found ','"});
  ExpectError("tree:(-1)", {"tree:(-1)", "'-'"});
  ExpectError("tree:(2,", {"tree:(2,", "unbalanced"});
  ExpectError("tree:4097", {"tree:4097", "'4097'"});
  ExpectError("tree:(4096,1)", {"tree:(4096,1)", "4097 chips", "4096"});
  ExpectError("tree:" + std::string(300, '(') + "1" + std::string(300, ')'), {"nested deeper"});
}

TEST(TopologyErrors, FileForm) {
  ExpectError("file:", {"file:", "missing path"});
  ExpectError("file:/nonexistent/xf_topo.txt", {"/nonexistent/xf_topo.txt", "cannot open"});
  struct Case {
    const char* name;
    const char* body;
    std::vector<std::string> parts;
  };
  const std::vector<Case> cases = {
      {"nochips", "link 0 0 1 0\n", {"no 'chips N' line"}},
      {"badchips", "chips 0\n", {":1:", "'chips 0'", "chip count"}},
      {"twochips", "chips 2\nchips 3\n", {":2:", "already given on line 1"}},
      {"baddir", "chips 2\nwire 0 0 1 0\n", {":2:", "'wire 0 0 1 0'", "unknown directive"}},
      {"shortlink", "chips 2\nlink 0 0 1\n", {":2:", "'link 0 0 1'", "link A PA B PB"}},
      {"range", "chips 2\nlink 0 0 5 0\n", {":2:", "node 5 is out of range"}},
      {"swrange",
       "chips 2\nswitches 1\nlink 0 0 1 0\nlink 1 1 4 0\nlink 0 1 2 0\n",
       {":4:", "node 4", "switches 2..2"}},
      {"self", "chips 2\nlink 1 0 1 1\n", {":2:", "to itself"}},
      {"dupport", "chips 3\nlink 0 0 1 0\nlink 0 0 2 0\n", {":3:", "port 0 of node 0", "line 2"}},
      {"negport", "chips 2\nlink 0 -1 1 0\n", {":2:", "'-1'"}},
      {"disconnected", "chips 3\nlink 0 0 1 0\n", {"node 2", "not connected"}},
      {"unusedswitch", "chips 2\nswitches 1\nlink 0 0 1 0\n", {"node 2 (a switch)"}},
      {"ringnotlinked",
       "chips 3\nlink 0 0 1 0\nlink 1 1 2 0\nring 0 1 2\n",
       {":4:", "'ring 0 1 2'", "chips 2 and 0 are not directly linked"}},
      {"ringswitch",
       "chips 2\nswitches 1\nlink 0 0 2 0\nlink 1 0 2 1\nring 0 2\n",
       {":5:", "node 2 is not a chip"}},
      {"ringrepeat", "chips 2\nlink 0 0 1 0\nring 0 1 0\n", {":3:", "chip 0 appears twice"}},
      {"ringpartial",
       "chips 3\nlink 0 0 1 0\nlink 1 1 2 0\nlink 2 1 0 1\nring 0 1\n",
       {":5:", "visits 2 of 3 chips"}},
      {"ringshort", "chips 2\nlink 0 0 1 0\nring 0\n", {":3:", "at least two chips"}},
      {"ringexhausted",
       "chips 2\nlink 0 0 1 0\nring 0 1\nring 0 1\n",
       {":4:", "already taken in that direction"}},
  };
  for (const Case& c : cases) {
    const std::string path = WriteTemp(std::string("err_") + c.name, c.body);
    std::vector<std::string> parts = c.parts;
    parts.push_back("file:" + path);
    SCOPED_TRACE(c.name);
    ExpectError("file:" + path, parts);
  }
}

}  // namespace
}  // namespace xf
