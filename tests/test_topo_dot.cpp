// Tests for sw/lib/topo_dot.cpp (topology_dot, topology_summary, topo_main: `fabric topo`).
//
// Space covered:
//  - the Graphviz source of ring:4: four chip boxes, no switches, the four links 0.0-1.1 ...
//    3.0-0.1 as arrows along ring 0 with their ports, the legend line of ring 0;
//  - for ring:P, biring:P, ladder:P (P in {4,6,8,10,16}) and a file topology with two rings:
//    every link drawn exactly once between its two nodes with its two ports, and the ring hops
//    read back from the edges (colour i of an edge's colour list with its direction) are exactly
//    the hops of Topology::rings, each ring in a colour of its own; the ladder has 4 colours;
//  - line:5: the chain, both directions, no ring colours;
//  - tree:((2,2),3,(1,4)) and tree:(2,3): chips, switches s<N>, one rank per switch level with
//    the expected members, link colours by the level of the upper switch, one colour per level;
//  - determinism (two parses give the same text; another topology gives another text) and the
//    one-line summaries;
//  - topo_main: stdout without options, --dot FILE (and --dot=FILE), every usage error (status 2,
//    with the message of parse_topology for a bad topology), Graphviz missing (status 1, naming
//    the package and scripts/setup.sh), and, when Graphviz is installed, --png and --svg files
//    with the PNG signature and an <svg> element (skipped cleanly without Graphviz);
//  - the committed docs/img/topo_*.dot are what topology_dot prints now (staleness check; the
//    PNGs beside them are redrawn by `make topo-pictures`).

#include <glob.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <map>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <tuple>
#include <vector>

#include "subcommands.hpp"
#include "xf/topo_dot.hpp"
#include "xf/topology.hpp"

namespace xf {
namespace {

struct DotNode {
  int id;
  std::string shape, label;
};

struct DotEdge {
  int tail, head;
  std::vector<std::string> colors;
  std::string dir;
  int tail_port, head_port;  // -1 when not labelled
};

struct Dot {
  std::vector<DotNode> nodes;
  std::vector<DotEdge> edges;
  std::vector<std::set<int>> ranks;  // { rank=same; ... } groups in order
};

std::vector<std::string> Split(const std::string& s, char sep) {
  std::vector<std::string> out;
  std::string cur;
  std::istringstream in(s);
  while (std::getline(in, cur, sep)) out.push_back(cur);
  return out;
}

Dot ParseDot(const std::string& text) {
  static const std::regex node_re(R"re(^  n(\d+) \[shape=(\w+), label="([^"]*)")re");
  static const std::regex edge_re(R"re(^  n(\d+) -> n(\d+) \[color="([^"]*)", dir=(\w+))re");
  static const std::regex tail_re(R"re(taillabel="(\d+)")re");
  static const std::regex head_re(R"re(headlabel="(\d+)")re");
  static const std::regex member_re(R"re(n(\d+);)re");
  Dot d;
  std::istringstream in(text);
  std::smatch m;
  for (std::string line; std::getline(in, line);) {
    if (std::regex_search(line, m, node_re)) {
      d.nodes.push_back({std::stoi(m[1]), m[2], m[3]});
    } else if (std::regex_search(line, m, edge_re)) {
      DotEdge e{std::stoi(m[1]), std::stoi(m[2]), Split(m[3], ':'), m[4], -1, -1};
      if (std::regex_search(line, m, tail_re)) e.tail_port = std::stoi(m[1]);
      if (std::regex_search(line, m, head_re)) e.head_port = std::stoi(m[1]);
      d.edges.push_back(e);
    } else if (line.find("rank=same;") != std::string::npos) {
      std::set<int> members;
      for (auto it = std::sregex_iterator(line.begin(), line.end(), member_re);
           it != std::sregex_iterator(); ++it)
        members.insert(std::stoi((*it)[1]));
      d.ranks.push_back(members);
    }
  }
  return d;
}

int CountShape(const Dot& d, const std::string& shape) {
  int n = 0;
  for (const DotNode& x : d.nodes) n += x.shape == shape;
  return n;
}

// Every link appears as exactly one edge between its nodes with its ports, and nothing else.
void CheckLinksOnce(const Topology& t, const Dot& d) {
  SCOPED_TRACE(t.spec);
  ASSERT_EQ(d.edges.size(), t.links.size());
  std::multiset<std::tuple<int, int, int, int>> want, got;
  for (const Link& l : t.links) {
    want.insert({l.a, l.pa, l.b, l.pb});
    want.insert({l.b, l.pb, l.a, l.pa});
  }
  for (const DotEdge& e : d.edges) {
    got.insert({e.tail, e.tail_port, e.head, e.head_port});
    got.insert({e.head, e.head_port, e.tail, e.tail_port});
  }
  EXPECT_EQ(got, want);
}

// Ring hops (colour, sender, port) read back from the edges: the first colours send from tail
// to head (dir=forward, or the head arrow of dir=both), the last one of a dir=both edge from
// head to tail. Returns the hops, keyed by colour.
std::map<std::string, std::set<std::pair<int, int>>> HopsByColor(const Dot& d) {
  std::map<std::string, std::set<std::pair<int, int>>> hops;
  for (const DotEdge& e : d.edges) {
    if (e.dir == "none") continue;
    if (e.dir == "forward") {
      for (const std::string& c : e.colors) hops[c].insert({e.tail, e.tail_port});
    } else {
      EXPECT_EQ(e.dir, "both");
      EXPECT_EQ(e.colors.size(), 2u) << "one ring each way";
      hops[e.colors.front()].insert({e.tail, e.tail_port});
      hops[e.colors.back()].insert({e.head, e.head_port});
    }
  }
  return hops;
}

// The hops of every ring of `t`, as a set per ring.
std::vector<std::set<std::pair<int, int>>> RingHops(const Topology& t) {
  std::vector<std::set<std::pair<int, int>>> out;
  for (const Ring& r : t.rings) {
    std::set<std::pair<int, int>> h;
    for (size_t k = 0; k < r.order.size(); ++k) h.insert({r.order[k], r.out_port[k]});
    out.push_back(h);
  }
  return out;
}

// Each ring is drawn in its own colour and its hops are exactly the ring's.
void CheckRingsDrawn(const Topology& t) {
  SCOPED_TRACE(t.spec);
  const Dot d = ParseDot(topology_dot(t));
  CheckLinksOnce(t, d);
  const auto by_color = HopsByColor(d);
  ASSERT_EQ(by_color.size(), t.rings.size()) << "one colour per ring";
  std::multiset<std::set<std::pair<int, int>>> drawn, want;
  for (const auto& [c, h] : by_color) drawn.insert(h);
  for (const auto& h : RingHops(t)) want.insert(h);
  EXPECT_EQ(drawn, want);
  // Every ring hop is a real link: the hop's (sender, port) is linked to the edge's other end.
  for (const DotEdge& e : d.edges) {
    if (e.dir == "none") continue;
    EXPECT_EQ(t.peer(e.tail, e.tail_port), std::make_pair(e.head, e.head_port));
  }
}

TEST(TopoDot, Ring4HasFourChipsAndTheRingEdges) {
  const Topology t = parse_topology("ring:4");
  const std::string text = topology_dot(t);
  const Dot d = ParseDot(text);
  EXPECT_EQ(CountShape(d, "box"), 4);
  EXPECT_EQ(CountShape(d, "ellipse"), 0);
  for (int i = 0; i < 4; ++i) EXPECT_EQ(d.nodes[i].label, std::to_string(i));
  ASSERT_EQ(d.edges.size(), 4u);
  for (int i = 0; i < 4; ++i) {
    const DotEdge& e = d.edges[i];
    EXPECT_EQ(e.tail, i);
    EXPECT_EQ(e.head, (i + 1) % 4);
    EXPECT_EQ(e.tail_port, 0);
    EXPECT_EQ(e.head_port, 1);
    EXPECT_EQ(e.dir, "forward");
    ASSERT_EQ(e.colors.size(), 1u);
    EXPECT_EQ(e.colors[0], d.edges[0].colors[0]);
  }
  EXPECT_NE(text.find("ring 0, lane 0: 0 1 2 3 (out ports 0 0 0 0)"), std::string::npos);
  EXPECT_NE(text.find("layout=neato"), std::string::npos);
  CheckRingsDrawn(t);
}

TEST(TopoDot, RingsAreTheTopologysOwnInTheirOwnColours) {
  for (int p : {2, 3, 8}) {
    CheckRingsDrawn(parse_topology("ring:" + std::to_string(p)));
    CheckRingsDrawn(parse_topology("biring:" + std::to_string(p)));
  }
  for (int p : {4, 6, 8, 10, 16}) {
    const Topology t = parse_topology("ladder:" + std::to_string(p));
    CheckRingsDrawn(t);
    const Dot d = ParseDot(topology_dot(t));
    std::set<std::string> colors;
    for (const DotEdge& e : d.edges) {
      EXPECT_EQ(e.dir, "both") << "every ladder link carries a ring and its reverse";
      colors.insert(e.colors.begin(), e.colors.end());
    }
    EXPECT_EQ(colors.size(), 4u) << t.spec;
  }
  const std::string text = topology_dot(parse_topology("ladder:8"));
  for (const char* line : {"ring 0 = A, lane 0: 0 1 3 2 4 5 7 6", "ring 1 = A reversed, lane 1",
                           "ring 2 = B, lane 2: 0 2 3 5 4 6 7 1", "ring 3 = B reversed, lane 3"})
    EXPECT_NE(text.find(line), std::string::npos) << line;
}

TEST(TopoDot, FileTopologyRingsAndFreeLinks) {
  // biring:4 by hand plus a chord 0-2 that no ring uses.
  const std::string path = ::testing::TempDir() + "xf_topo_dot_file.txt";
  {
    std::ofstream f(path);
    f << "chips 4\nlink 0 0 1 1\nlink 1 0 2 1\nlink 2 0 3 1\nlink 3 0 0 1\nlink 0 2 2 2\n"
         "ring 0 1 2 3\nring 0 3 2 1\n";
  }
  const Topology t = parse_topology("file:" + path);
  CheckRingsDrawn(t);
  const Dot d = ParseDot(topology_dot(t));
  ASSERT_EQ(d.edges.size(), 5u);
  EXPECT_EQ(d.edges[4].dir, "none");
  EXPECT_EQ(d.edges[4].colors.size(), 1u);
}

TEST(TopoDot, LineIsAChain) {
  const Topology t = parse_topology("line:5");
  const Dot d = ParseDot(topology_dot(t));
  CheckLinksOnce(t, d);
  EXPECT_EQ(CountShape(d, "box"), 5);
  ASSERT_EQ(d.edges.size(), 4u);
  for (const DotEdge& e : d.edges) {
    EXPECT_EQ(e.dir, "both");
    EXPECT_EQ(e.colors, d.edges[0].colors);
    EXPECT_EQ(e.head, e.tail + 1);
  }
}

TEST(TopoDot, TreeLevels) {
  const Topology t = parse_topology("tree:((2,2),3,(1,4))");
  const std::string text = topology_dot(t);
  const Dot d = ParseDot(text);
  EXPECT_EQ(CountShape(d, "box"), 12);
  EXPECT_EQ(CountShape(d, "ellipse"), 8);
  for (const DotNode& x : d.nodes) {
    if (x.shape == "ellipse") {
      EXPECT_EQ(x.label, "s" + std::to_string(x.id));
    }
  }
  EXPECT_NE(text.find("layout=dot"), std::string::npos);
  // Rows: chips, level 1 (switches over chips), level 2, the root.
  ASSERT_EQ(d.ranks.size(), 4u);
  std::set<int> chips;
  for (int c = 0; c < 12; ++c) chips.insert(c);
  EXPECT_EQ(d.ranks[0], chips);
  EXPECT_EQ(d.ranks[1], (std::set<int>{14, 15, 16, 18, 19}));
  EXPECT_EQ(d.ranks[2], (std::set<int>{13, 17}));
  EXPECT_EQ(d.ranks[3], (std::set<int>{12}));
  // Links: switch (tail, its port) down to the child; coloured by the switch's level.
  ASSERT_EQ(d.edges.size(), t.links.size());
  std::map<int, int> level;
  for (size_t r = 0; r < d.ranks.size(); ++r)
    for (int v : d.ranks[r]) level[v] = static_cast<int>(r);
  std::map<int, std::set<std::string>> colors_by_level;
  std::set<std::string> all_colors;
  for (const DotEdge& e : d.edges) {
    EXPECT_TRUE(t.is_switch(e.tail));
    EXPECT_EQ(t.parent[e.head], e.tail);
    EXPECT_EQ(e.dir, "none");
    EXPECT_EQ(t.peer(e.tail, e.tail_port).first, e.head);
    EXPECT_EQ(e.head_port, t.is_switch(e.head) ? t.num_ports[e.head] - 1 : -1);
    ASSERT_EQ(e.colors.size(), 1u);
    colors_by_level[level[e.tail]].insert(e.colors[0]);
    all_colors.insert(e.colors[0]);
  }
  ASSERT_EQ(colors_by_level.size(), 3u);
  for (const auto& [lv, cs] : colors_by_level) EXPECT_EQ(cs.size(), 1u) << "level " << lv;
  EXPECT_EQ(all_colors.size(), 3u);
  EXPECT_NE(text.find("level 1: s14 s15 s16 s18 s19"), std::string::npos);
  EXPECT_NE(text.find("level 3: s12 (the root)"), std::string::npos);

  const Dot d2 = ParseDot(topology_dot(parse_topology("tree:(2,3)")));
  ASSERT_EQ(d2.ranks.size(), 3u);
  EXPECT_EQ(d2.ranks[1], (std::set<int>{6, 7}));
  EXPECT_EQ(d2.ranks[2], (std::set<int>{5}));
}

TEST(TopoDot, DeterministicAndSummaries) {
  for (const char* s : {"ring:8", "biring:5", "ladder:12", "line:3", "tree:((2,2),3,(1,4))"}) {
    EXPECT_EQ(topology_dot(parse_topology(s)), topology_dot(parse_topology(s))) << s;
  }
  EXPECT_NE(topology_dot(parse_topology("ring:4")), topology_dot(parse_topology("ring:5")));
  EXPECT_EQ(topology_summary(parse_topology("ring:8")),
            "ring:8: 8 chips, 8 links, 1 directed ring");
  EXPECT_EQ(topology_summary(parse_topology("ladder:8")),
            "ladder:8: 8 chips, 16 links, 4 directed rings (A, A reversed, B, B reversed)");
  EXPECT_EQ(topology_summary(parse_topology("line:4")), "line:4: 4 chips, 3 links, a chain");
  EXPECT_EQ(topology_summary(parse_topology("tree:((2,2),3,(1,4))")),
            "tree:((2,2),3,(1,4)): 12 chips, 8 switches, 19 links, 3 switch levels");
  EXPECT_EQ(topology_summary(parse_topology("tree:1")),
            "tree:1: 1 chip, 1 switch, 1 link, 1 switch level");
}

// ---- topo_main ----

struct Result {
  int status;
  std::string out, err;
};

Result Main(const std::vector<std::string>& args) {
  ::testing::internal::CaptureStdout();
  ::testing::internal::CaptureStderr();
  const int status = topo_main(args);
  Result r{status, ::testing::internal::GetCapturedStdout(),
           ::testing::internal::GetCapturedStderr()};
  return r;
}

std::string ReadFile(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  std::ostringstream s;
  s << f.rdbuf();
  return s.str();
}

TEST(TopoMain, PrintsTheSourceWithoutOptions) {
  const Result r = Main({"ring:4"});
  EXPECT_EQ(r.status, 0);
  EXPECT_EQ(r.out, topology_dot(parse_topology("ring:4")));
  EXPECT_EQ(r.err, "");
  const Result h = Main({"--help"});
  EXPECT_EQ(h.status, 0);
  EXPECT_NE(h.err.find("usage: fabric topo [OPTIONS] [T]"), std::string::npos);
}

TEST(TopoMain, WritesTheDotFile) {
  const std::string path = ::testing::TempDir() + "xf_topo_main.dot";
  std::remove(path.c_str());
  const Result r = Main({"ladder:8", "--dot", path});
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(ReadFile(path), topology_dot(parse_topology("ladder:8")));
  EXPECT_EQ(r.out,
            "ladder:8: 8 chips, 16 links, 4 directed rings (A, A reversed, B, B reversed); "
            "wrote " +
                path + "\n");
  const Result r2 = Main({"--dot=" + path, "ring:3"});  // option first, = form; overwrites
  EXPECT_EQ(r2.status, 0) << r2.err;
  EXPECT_EQ(ReadFile(path), topology_dot(parse_topology("ring:3")));
}

TEST(TopoMain, UsageErrorsExitTwo) {
  struct Case {
    std::vector<std::string> args;
    std::string message;
  };
  const std::vector<Case> cases = {
      {{}, "which topology?"},
      {{"--png", "x.png"}, "which topology?"},
      {{"ring:4", "ring:5"}, "one topology at a time"},
      {{"ring:4", "--jpg", "x.jpg"}, "unknown option --jpg"},
      {{"ring:4", "--png"}, "--png needs a file name"},
      {{"ring:4", "--dot="}, "--dot needs a file name"},
      {{"ring:4", "--dot", "a.dot", "--dot", "b.dot"}, "--dot given twice"},
      {{"ring:4", "--dot", "/nonexistent-dir/x.dot"}, "cannot write /nonexistent-dir/x.dot"},
  };
  for (const Case& c : cases) {
    const Result r = Main(c.args);
    EXPECT_EQ(r.status, 2) << c.message;
    EXPECT_NE(r.err.find(c.message), std::string::npos) << r.err;
    EXPECT_NE(r.err.find("usage: fabric topo"), std::string::npos) << r.err;
    EXPECT_EQ(r.out, "");
  }
  // A bad topology: parse_topology's own message.
  for (const char* bad : {"ladder:7", "tree:(2,3", "ring:x", "torus:4"}) {
    std::string want;
    try {
      parse_topology(bad);
    } catch (const TopologyError& e) {
      want = e.what();
    }
    ASSERT_FALSE(want.empty()) << bad;
    const Result r = Main({bad});
    EXPECT_EQ(r.status, 2) << bad;
    EXPECT_NE(r.err.find("fabric topo: " + want), std::string::npos) << r.err;
  }
}

// Sets PATH for the lifetime of the object.
class ScopedPath {
 public:
  explicit ScopedPath(const char* value) {
    const char* old = std::getenv("PATH");
    had_ = old != nullptr;
    if (had_) old_ = old;
    setenv("PATH", value, 1);
  }
  ~ScopedPath() {
    if (had_)
      setenv("PATH", old_.c_str(), 1);
    else
      unsetenv("PATH");
  }

 private:
  bool had_ = false;
  std::string old_;
};

TEST(TopoMain, GraphvizMissingIsAClearError) {
  const std::string png = ::testing::TempDir() + "xf_topo_missing.png";
  std::remove(png.c_str());
  Result r;
  {
    ScopedPath empty("/nonexistent-xf-dir");
    r = Main({"ring:4", "--png", png});
  }
  EXPECT_EQ(r.status, 1);
  EXPECT_NE(r.err.find("graphviz"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("scripts/setup.sh"), std::string::npos) << r.err;
  EXPECT_NE(access(png.c_str(), F_OK), 0) << "no file is written when Graphviz is missing";
}

bool HaveDot() {
  const char* env = std::getenv("PATH");
  for (const std::string& dir : Split(env ? env : "", ':'))
    if (!dir.empty() && access((dir + "/dot").c_str(), X_OK) == 0) return true;
  return false;
}

TEST(TopoMain, DrawsPngAndSvgWithGraphviz) {
  if (!HaveDot()) GTEST_SKIP() << "Graphviz's dot is not installed (package graphviz)";
  const std::string png = ::testing::TempDir() + "xf_topo_ladder8.png";
  const std::string svg = ::testing::TempDir() + "xf_topo_tree.svg";
  std::remove(png.c_str());
  std::remove(svg.c_str());
  const Result r = Main({"ladder:8", "--png", png});
  EXPECT_EQ(r.status, 0) << r.err;
  const std::string bytes = ReadFile(png);
  ASSERT_GE(bytes.size(), 8u);
  EXPECT_EQ(bytes.substr(0, 8), std::string("\x89PNG\r\n\x1a\n", 8));
  EXPECT_NE(r.out.find("wrote " + png), std::string::npos);
  EXPECT_EQ(r.err, "") << "Graphviz warned";
  const Result s = Main({"tree:((2,2),3,(1,4))", "--svg", svg});
  EXPECT_EQ(s.status, 0) << s.err;
  EXPECT_NE(ReadFile(svg).find("<svg"), std::string::npos);
  EXPECT_EQ(s.err, "") << "Graphviz warned";
}

// The repository root, from this file's path (CMake compiles it by its absolute path).
std::string RepoRoot() {
  const std::string file = __FILE__;
  const size_t tests = file.rfind("/tests/");
  return tests == std::string::npos ? "." : file.substr(0, tests);
}

TEST(TopoDot, CommittedPicturesAreCurrent) {
  // scripts/topo_pictures.sh writes docs/img/topo_*.dot; their first line names the topology.
  glob_t g{};
  const std::string pattern = RepoRoot() + "/docs/img/topo_*.dot";
  ASSERT_EQ(glob(pattern.c_str(), 0, nullptr, &g), 0) << "no " << pattern;
  std::set<std::string> names;
  for (size_t i = 0; i < g.gl_pathc; ++i) {
    const std::string path = g.gl_pathv[i];
    names.insert(path.substr(path.rfind('/') + 1));
    const std::string text = ReadFile(path);
    const std::string prefix = "// fabric topo ";
    ASSERT_EQ(text.rfind(prefix, 0), 0u) << path;
    const std::string spec = text.substr(prefix.size(), text.find('\n') - prefix.size());
    EXPECT_EQ(text, topology_dot(parse_topology(spec)))
        << path << " is stale; run make topo-pictures and commit docs/img";
  }
  globfree(&g);
  EXPECT_TRUE(names.count("topo_ladder8.dot"));
  EXPECT_TRUE(names.count("topo_tree_asym.dot"));
}

}  // namespace
}  // namespace xf
