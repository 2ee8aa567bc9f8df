// Topologies: parsing ring:P, biring:P, line:P, ladder:P, tree:SPEC and file:PATH into the
// physical link graph plus the directed rings the compiler's ring algorithms run on, and
// spanning-tree routing tables.
//
// Ports per kind:
//   ring/biring/line  chip i port 0 <-> chip i+1 port 1 (ring and biring also close P-1 -> 0).
//   ladder            port 0 = rung link 0, port 1 = rung link 1, port 2 = side link to the next
//                     pair, port 3 = side link from the previous pair (or a return link).
//   tree              chip port 0 = its switch; a switch with k children uses ports 0..k-1 for
//                     them in order and port k for its parent (none at the root).
//
// ladder:8 (n = 4 facing pairs a_k = 2k, b_k = 2k+1; n even, so the return links are straight).
// Each link is labelled with the embedded ring that uses it (A or B):
//
//          a0         a1         a2         a3
//    a:    0 ---B---- 2 ---A---- 4 ---B---- 6 ---A---> a0 port 3   (side: port 2 -> port 3)
//         |  |       |  |       |  |       |  |
//         A  B       A  B       A  B       A  B        rung link 0 (ports 0) is A's,
//         |  |       |  |       |  |       |  |        rung link 1 (ports 1) is B's
//    b:    1 ---A---- 3 ---B---- 5 ---A---- 7 ---B---> b0 port 3
//          b0         b1         b2         b3
//
//   Ring A: 0 -r0-> 1 -s-> 3 -r0-> 2 -s-> 4 -r0-> 5 -s-> 7 -r0-> 6 -ret-> 0
//           (out ports 0 2 0 2 0 2 0 2: zig-zag over rung link 0, alternating sides)
//   Ring B: 0 -s-> 2 -r1-> 3 -s-> 5 -r1-> 4 -s-> 6 -r1-> 7 -ret-> 1 -r1-> 0
//           (out ports 2 1 2 1 2 1 2 1: side first, then rung link 1, closing over b0's rung 1)
//
// With n odd the return links cross (a_{n-1} -> b_0, b_{n-1} -> a_0), which is exactly where
// both zig-zags end up, so the construction is uniform in n: ladder:P+2 is ladder:P with one
// more pair inserted before the return links. Together A and B use every link once; their
// reversals use the same links in the other direction, so the four directed rings use the four
// ports of every chip as four distinct outgoing channels.

#include "xf/topology.hpp"

#include <algorithm>
#include <cstdint>
#include <fstream>
#include <memory>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "xf/defs.hpp"
#include "xf/input_file.hpp"

namespace xf {
namespace {

constexpr int kMaxP = static_cast<int>(kMaxChips);
constexpr int kMaxTreeDepth = 256;  // nesting levels of parentheses in tree:SPEC
constexpr int kMaxFileSwitches = 65536;
constexpr int kMaxFilePort = 65535;

[[noreturn]] void Fail(const std::string& message) { throw TopologyError(message); }

bool IsSpace(char c) {
  return c == ' ' || c == '\t' || c == '\r' || c == '\n' || c == '\v' || c == '\f';
}
bool IsDigit(char c) { return c >= '0' && c <= '9'; }

std::string Trim(const std::string& s) {
  size_t b = 0;
  size_t e = s.size();
  while (b < e && IsSpace(s[b])) ++b;
  while (e > b && IsSpace(s[e - 1])) --e;
  return s.substr(b, e - b);
}

// Parses a non-empty string of decimal digits. Values above `cap` are reported as cap + 1 so
// that callers can print a range error without overflow. Returns false for anything else.
bool ParseCount(const std::string& s, int64_t cap, int64_t* out) {
  if (s.empty()) return false;
  int64_t v = 0;
  for (char c : s) {
    if (!IsDigit(c)) return false;
    v = std::min<int64_t>(v * 10 + (c - '0'), cap + 1);
  }
  *out = v;
  return true;
}

void AddLink(Topology* t, int a, int pa, int b, int pb) { t->links.push_back({a, pa, b, pb}); }

Topology MakeBase(TopoKind kind, const std::string& spec, int chips, int switches) {
  Topology t;
  t.kind = kind;
  t.spec = spec;
  t.num_chips = chips;
  t.num_nodes = chips + switches;
  t.num_ports.assign(t.num_nodes, 0);
  return t;
}

// Reverses a directed ring: same links, other direction. The result starts at the same chip
// and its out_port[k] is the port on which the forward ring arrived at that chip.
Ring ReverseRing(const Topology& t, const Ring& fwd) {
  // far_port[node][port]: the port at the other end of the link on (node, port).
  std::vector<std::vector<int>> far_port(t.num_nodes);
  for (int v = 0; v < t.num_nodes; ++v) far_port[v].assign(t.num_ports[v], -1);
  for (const Link& l : t.links) {
    far_port[l.a][l.pa] = l.pb;
    far_port[l.b][l.pb] = l.pa;
  }
  const int n = static_cast<int>(fwd.order.size());
  std::vector<int> in_port(n);  // in_port[k]: port of order[(k+1)%n] the hop k arrives on
  for (int k = 0; k < n; ++k) in_port[k] = far_port[fwd.order[k]][fwd.out_port[k]];
  Ring rev;
  rev.order.reserve(n);
  rev.out_port.reserve(n);
  for (int j = 0; j < n; ++j) {
    rev.order.push_back(fwd.order[(n - j) % n]);
    rev.out_port.push_back(in_port[n - 1 - j]);
  }
  return rev;
}

// ---- ring:P, biring:P, line:P, ladder:P ----------------------------------------------------

int ParseChipCount(const std::string& text, const std::string& name, const std::string& arg,
                   int min_p) {
  int64_t p = 0;
  if (!ParseCount(arg, kMaxP, &p)) {
    Fail(text + ": P must be a decimal chip count between " + std::to_string(min_p) + " and " +
         std::to_string(kMaxP) + ", e.g. " + name + ":8");
  }
  return static_cast<int>(p);
}

Topology MakeRing(const std::string& text, TopoKind kind, int p) {
  Topology t = MakeBase(kind, text, p, 0);
  t.num_ports.assign(p, 2);
  const bool closed = kind != TopoKind::kLine;
  for (int i = 0; i < (closed ? p : p - 1); ++i) AddLink(&t, i, 0, (i + 1) % p, 1);
  if (kind == TopoKind::kLine) return t;
  Ring fwd;
  for (int i = 0; i < p; ++i) {
    fwd.order.push_back(i);
    fwd.out_port.push_back(0);
  }
  t.rings.push_back(fwd);
  if (kind == TopoKind::kBiring) {
    Ring bwd;
    for (int i = 0; i < p; ++i) {
      bwd.order.push_back((p - i) % p);
      bwd.out_port.push_back(1);
    }
    t.rings.push_back(bwd);
  }
  return t;
}

Topology MakeLadder(const std::string& text, int p) {
  if (p < 4) {
    Fail(text + ": a ladder needs an even number of chips >= 4 (facing pairs); try ladder:4");
  }
  if (p > kMaxP) {
    Fail(text + ": P must be between 4 and " + std::to_string(kMaxP) +
         " (even); try ladder:" + std::to_string(kMaxP));
  }
  if (p % 2 != 0) {
    Fail(text + ": a ladder needs an even number of chips >= 4 (facing pairs); try ladder:" +
         std::to_string(p - 1) + " or ladder:" + std::to_string(p + 1));
  }
  Topology t = MakeBase(TopoKind::kLadder, text, p, 0);
  t.num_ports.assign(p, 4);
  const int n = p / 2;
  auto a = [](int k) { return 2 * k; };
  auto b = [](int k) { return 2 * k + 1; };
  for (int k = 0; k < n; ++k) {
    AddLink(&t, a(k), 0, b(k), 0);  // rung link 0
    AddLink(&t, a(k), 1, b(k), 1);  // rung link 1
  }
  for (int k = 0; k + 1 < n; ++k) {
    AddLink(&t, a(k), 2, a(k + 1), 3);
    AddLink(&t, b(k), 2, b(k + 1), 3);
  }
  if (n % 2 == 0) {
    AddLink(&t, a(n - 1), 2, a(0), 3);
    AddLink(&t, b(n - 1), 2, b(0), 3);
  } else {
    AddLink(&t, a(n - 1), 2, b(0), 3);
    AddLink(&t, b(n - 1), 2, a(0), 3);
  }
  // Ring A: enter pair k on side a (k even) or b (k odd), cross rung 0, leave on port 2.
  Ring ra;
  for (int k = 0; k < n; ++k) {
    const int enter = (k % 2 == 0) ? a(k) : b(k);
    const int leave = (k % 2 == 0) ? b(k) : a(k);
    ra.order.insert(ra.order.end(), {enter, leave});
    ra.out_port.insert(ra.out_port.end(), {0, 2});
  }
  // Ring B: a_0 leaves on port 2; pair k >= 1 is entered on side a (k odd) or b (k even),
  // crossed on rung 1 and left on port 2; the return link arrives at b_0, which closes over
  // rung 1.
  Ring rb;
  rb.order.push_back(a(0));
  rb.out_port.push_back(2);
  for (int k = 1; k < n; ++k) {
    const int enter = (k % 2 == 1) ? a(k) : b(k);
    const int leave = (k % 2 == 1) ? b(k) : a(k);
    rb.order.insert(rb.order.end(), {enter, leave});
    rb.out_port.insert(rb.out_port.end(), {1, 2});
  }
  rb.order.push_back(b(0));
  rb.out_port.push_back(1);
  t.rings.push_back(ra);
  t.rings.push_back(ReverseRing(t, ra));
  t.rings.push_back(rb);
  t.rings.push_back(ReverseRing(t, rb));
  return t;
}

// ---- tree:SPEC ------------------------------------------------------------------------------

struct TreeSpec {
  int leaves = 0;  // > 0: a switch with this many chips; 0: a switch over `kids`
  std::vector<std::unique_ptr<TreeSpec>> kids;
};

class TreeParser {
 public:
  TreeParser(const std::string& text, const std::string& spec) : text_(text), s_(spec) {}

  std::unique_ptr<TreeSpec> Parse() {
    SkipSpace();
    if (pos_ == s_.size()) {
      Fail(text_ +
           ": empty tree spec; give a chip count like tree:4 or a list of sub-trees like "
           "tree:(2,3)");
    }
    std::unique_ptr<TreeSpec> root = ParseSpec(0);
    SkipSpace();
    if (pos_ != s_.size()) {
      if (s_[pos_] == ')') {
        Fail(text_ + ": unbalanced ')' at " + Col() + "; remove it or add the matching '('");
      }
      Fail(text_ + ": unexpected '" + s_.substr(pos_) + "' after the tree at " + Col() +
           "; list several sub-trees inside parentheses, e.g. tree:(2,3)");
    }
    return root;
  }

 private:
  // "column N of the spec", 1-based within SPEC (after tree:).
  std::string Col() const { return ColAt(pos_); }
  static std::string ColAt(size_t pos) {
    return "column " + std::to_string(pos + 1) + " of the spec";
  }

  void SkipSpace() {
    while (pos_ < s_.size() && IsSpace(s_[pos_])) ++pos_;
  }

  std::unique_ptr<TreeSpec> ParseSpec(int depth) {
    SkipSpace();
    auto node = std::make_unique<TreeSpec>();
    if (pos_ == s_.size()) {
      Fail(text_ +
           ": unbalanced parentheses: the spec ends where a chip count or '(' was expected; close "
           "every '(' with ')'");
    }
    if (s_[pos_] == '(') {
      if (depth >= kMaxTreeDepth) {
        Fail(text_ + ": parentheses nested deeper than " + std::to_string(kMaxTreeDepth) +
             " levels; flatten the tree");
      }
      const size_t open = pos_;
      ++pos_;
      SkipSpace();
      if (pos_ < s_.size() && s_[pos_] == ')') {
        Fail(text_ + ": empty list '()' at " + ColAt(open) +
             "; a switch needs at least one child, e.g. (2,3)");
      }
      while (true) {
        node->kids.push_back(ParseSpec(depth + 1));
        SkipSpace();
        if (pos_ == s_.size()) {
          Fail(text_ + ": unbalanced parentheses: '(' at " + ColAt(open) +
               " is never closed; add ')'");
        }
        if (s_[pos_] == ')') {
          ++pos_;
          return node;
        }
        if (s_[pos_] != ',') {
          Fail(text_ + ": expected ',' or ')' at " + Col() + " but found '" +
               std::string(1, s_[pos_]) + "'; separate sub-trees with commas");
        }
        ++pos_;
      }
    }
    if (!IsDigit(s_[pos_])) {
      Fail(text_ + ": expected a chip count or '(' at " + Col() + " but found '" +
           std::string(1, s_[pos_]) + "'; e.g. tree:4 or tree:(2,3)");
    }
    const size_t start = pos_;
    while (pos_ < s_.size() && IsDigit(s_[pos_])) ++pos_;
    int64_t k = 0;
    ParseCount(s_.substr(start, pos_ - start), kMaxP, &k);
    if (k < 1 || k > kMaxP) {
      Fail(text_ + ": chip count '" + s_.substr(start, pos_ - start) + "' at " + ColAt(start) +
           " must be between 1 and " + std::to_string(kMaxP));
    }
    node->leaves = static_cast<int>(k);
    return node;
  }

  const std::string& text_;
  const std::string& s_;
  size_t pos_ = 0;
};

void CountTree(const TreeSpec& s, int64_t* chips, int* switches) {
  ++*switches;
  *chips += s.leaves;
  for (const auto& kid : s.kids) CountTree(*kid, chips, switches);
}

// Numbers the switch `s` (pre-order) and its chips (depth-first), returns its node id.
int BuildTree(const TreeSpec& s, int parent, Topology* t, int* next_chip, int* next_switch) {
  const int me = (*next_switch)++;
  const int nkids = s.leaves > 0 ? s.leaves : static_cast<int>(s.kids.size());
  t->num_ports[me] = nkids + (parent >= 0 ? 1 : 0);
  t->parent[me] = parent;
  for (int i = 0; i < nkids; ++i) {
    int child;
    int child_port;
    if (s.leaves > 0) {
      child = (*next_chip)++;
      child_port = 0;
      t->num_ports[child] = 1;
      t->parent[child] = me;
    } else {
      child = BuildTree(*s.kids[i], me, t, next_chip, next_switch);
      child_port = t->num_ports[child] - 1;
    }
    t->children[me].push_back(child);
    AddLink(t, me, i, child, child_port);
  }
  return me;
}

Topology MakeTree(const std::string& text, const std::string& spec) {
  std::unique_ptr<TreeSpec> root = TreeParser(text, spec).Parse();
  int64_t chips = 0;
  int switches = 0;
  CountTree(*root, &chips, &switches);
  if (chips > kMaxP) {
    Fail(text + ": " + std::to_string(chips) + " chips is more than the " + std::to_string(kMaxP) +
         " allowed; use fewer or smaller leaf groups");
  }
  const int p = static_cast<int>(chips);
  Topology t = MakeBase(TopoKind::kTree, text, p, switches);
  t.parent.assign(t.num_nodes, -1);
  t.children.assign(t.num_nodes, {});
  int next_chip = 0;
  int next_switch = p;
  BuildTree(*root, -1, &t, &next_chip, &next_switch);
  return t;
}

// ---- file:PATH ------------------------------------------------------------------------------

struct FileLink {
  int line;
  Link link;
};

struct FileRing {
  int line;
  std::string raw;
  std::vector<int> nodes;
};

Topology MakeFromFile(const std::string& text, const std::string& path) {
  if (path.empty()) Fail(text + ": missing path; write file:PATH, e.g. file:topo.txt");
  // A directory or a FIFO would read as nothing or block: refuse it before opening.
  const std::string problem = input_file_problem(path);
  std::ifstream in;
  if (problem.empty()) in.open(path);
  if (!problem.empty() || !in) {
    Fail(text + ": cannot open '" + path + "': it " +
         (problem.empty() ? std::string("cannot be read") : problem) +
         "; check the path (relative paths start at the working directory)");
  }
  int chips = -1;
  int chips_line = 0;
  int switches = -1;
  int switches_line = 0;
  std::vector<FileLink> flinks;
  std::vector<FileRing> frings;
  std::string line;
  int line_no = 0;
  while (std::getline(in, line)) {
    ++line_no;
    const size_t hash = line.find('#');
    const std::string body = Trim(hash == std::string::npos ? line : line.substr(0, hash));
    if (body.empty()) continue;
    std::istringstream words(body);
    std::vector<std::string> tok;
    for (std::string w; words >> w;) tok.push_back(w);
    const std::string where = text + ":" + std::to_string(line_no) + ": '" + body + "': ";
    auto number = [&](size_t i, int64_t lo, int64_t hi, const char* what) {
      int64_t v = 0;
      if (!ParseCount(tok[i], hi, &v) || v < lo || v > hi) {
        Fail(where + what + " '" + tok[i] + "' must be a number between " + std::to_string(lo) +
             " and " + std::to_string(hi));
      }
      return static_cast<int>(v);
    };
    const std::string& d = tok[0];
    if (d == "chips" || d == "switches") {
      if (tok.size() != 2) Fail(where + "expected '" + d + " N'");
      const bool is_chips = d == "chips";
      int& value = is_chips ? chips : switches;
      int& seen = is_chips ? chips_line : switches_line;
      if (value >= 0) {
        Fail(where + "'" + d + "' was already given on line " + std::to_string(seen) +
             "; keep one");
      }
      value = is_chips ? number(1, 1, kMaxP, "chip count")
                       : number(1, 0, kMaxFileSwitches, "switch count");
      seen = line_no;
    } else if (d == "link") {
      if (tok.size() != 5) Fail(where + "expected 'link A PA B PB' (node, port, node, port)");
      FileLink fl{line_no,
                  {number(1, 0, INT32_MAX - 1, "node"), number(2, 0, kMaxFilePort, "port"),
                   number(3, 0, INT32_MAX - 1, "node"), number(4, 0, kMaxFilePort, "port")}};
      flinks.push_back(fl);
    } else if (d == "ring") {
      if (tok.size() < 3) Fail(where + "a ring needs at least two chips: 'ring NODE NODE ...'");
      FileRing fr{line_no, body, {}};
      for (size_t i = 1; i < tok.size(); ++i) {
        fr.nodes.push_back(number(i, 0, INT32_MAX - 1, "node"));
      }
      frings.push_back(fr);
    } else {
      Fail(where + "unknown directive '" + d + "'; expected chips, switches, link or ring");
    }
  }
  if (chips < 0) Fail(text + ": no 'chips N' line; add one (and 'switches S' if there are any)");
  if (switches < 0) switches = 0;
  Topology t = MakeBase(TopoKind::kFile, text, chips, switches);
  const int n = t.num_nodes;
  // Ports: unique per node; num_ports is one more than the highest port used.
  std::vector<std::vector<int>> port_line(n);  // line of the link on (node, port), 0 if free
  auto node_range = [&]() {
    return "chips are 0.." + std::to_string(chips - 1) +
           (switches > 0 ? ", switches " + std::to_string(chips) + ".." + std::to_string(n - 1)
                         : std::string(", there are no switches"));
  };
  for (const FileLink& fl : flinks) {
    const std::string where = text + ":" + std::to_string(fl.line) + ": ";
    const Link& l = fl.link;
    for (int node : {l.a, l.b}) {
      if (node >= n) {
        Fail(where + "node " + std::to_string(node) + " is out of range (" + node_range() +
             "); fix the id or raise 'chips'/'switches'");
      }
    }
    if (l.a == l.b) {
      Fail(where + "link from node " + std::to_string(l.a) +
           " to itself; a link must join two different nodes");
    }
    for (auto [node, port] : {std::pair<int, int>{l.a, l.pa}, std::pair<int, int>{l.b, l.pb}}) {
      auto& used = port_line[node];
      if (static_cast<int>(used.size()) <= port) used.resize(port + 1, 0);
      if (used[port] != 0) {
        Fail(where + "port " + std::to_string(port) + " of node " + std::to_string(node) +
             " is already used by the link on line " + std::to_string(used[port]) +
             "; each port carries one link");
      }
      used[port] = fl.line;
      t.num_ports[node] = std::max(t.num_ports[node], port + 1);
    }
    t.links.push_back(l);
  }
  // Connectivity over all nodes, from chip 0.
  // out[u]: (peer, u's port) for every link of u, in file order.
  std::vector<std::vector<std::pair<int, int>>> out(n);
  for (const Link& l : t.links) {
    out[l.a].push_back({l.b, l.pa});
    out[l.b].push_back({l.a, l.pb});
  }
  std::vector<char> seen(n, 0);
  std::vector<int> stack = {0};
  seen[0] = 1;
  while (!stack.empty()) {
    const int u = stack.back();
    stack.pop_back();
    for (const auto& [v, port] : out[u]) {
      if (!seen[v]) {
        seen[v] = 1;
        stack.push_back(v);
      }
    }
  }
  for (int v = 0; v < n; ++v) {
    if (!seen[v]) {
      Fail(text + ": node " + std::to_string(v) + (v < chips ? " (a chip)" : " (a switch)") +
           " is not connected to chip 0; add a link line that reaches it");
    }
  }
  // Rings: every chip exactly once; each hop takes the first link between the two chips whose
  // outgoing channel (sender node, port) no earlier hop of any ring has taken.
  std::vector<std::vector<char>> channel_used(n);
  for (int v = 0; v < n; ++v) channel_used[v].assign(t.num_ports[v], 0);
  for (const FileRing& fr : frings) {
    const std::string where = text + ":" + std::to_string(fr.line) + ": '" + fr.raw + "': ";
    std::vector<char> visited(chips, 0);
    for (int node : fr.nodes) {
      if (node >= chips) {
        Fail(where + "node " + std::to_string(node) + " is not a chip (chips are 0.." +
             std::to_string(chips - 1) + "); rings run over chips only");
      }
      if (visited[node]) {
        Fail(where + "chip " + std::to_string(node) +
             " appears twice; a ring visits each chip once");
      }
      visited[node] = 1;
    }
    if (static_cast<int>(fr.nodes.size()) != chips) {
      Fail(where + "the ring visits " + std::to_string(fr.nodes.size()) + " of " +
           std::to_string(chips) + " chips; a ring must visit every chip exactly once");
    }
    Ring r;
    r.order = fr.nodes;
    const int len = static_cast<int>(fr.nodes.size());
    for (int k = 0; k < len; ++k) {
      const int u = fr.nodes[k];
      const int v = fr.nodes[(k + 1) % len];
      int port = -1;
      bool linked = false;
      for (const auto& [w, p] : out[u]) {
        if (w != v) continue;
        linked = true;
        if (!channel_used[u][p]) {
          port = p;
          break;
        }
      }
      if (!linked) {
        Fail(where + "chips " + std::to_string(u) + " and " + std::to_string(v) +
             " are not directly linked; add a link or reorder the ring");
      }
      if (port < 0) {
        Fail(where + "every link from chip " + std::to_string(u) + " to chip " + std::to_string(v) +
             " is already taken in that direction by an earlier hop; add a link or drop a ring");
      }
      channel_used[u][port] = 1;
      r.out_port.push_back(port);
    }
    t.rings.push_back(r);
  }
  return t;
}

}  // namespace

std::pair<int, int> Topology::peer(int node, int port) const {
  for (const Link& l : links) {
    if (l.a == node && l.pa == port) return {l.b, l.pb};
    if (l.b == node && l.pb == port) return {l.a, l.pa};
  }
  return {-1, -1};
}

int Topology::bound_channels() const {
  switch (kind) {
    case TopoKind::kRing:
      return 1;
    case TopoKind::kBiring:
      return 2;
    case TopoKind::kLadder:
      return 4;
    case TopoKind::kLine:
      return 2;
    case TopoKind::kTree:
      return 1;
    case TopoKind::kFile:
      return rings.empty() ? 1 : static_cast<int>(rings.size());
  }
  return 1;
}

void set_flit_bits(Topology& t, int bits) {
  if (!legal_flit_bits(bits))
    throw TopologyError("flit width " + std::to_string(bits) +
                        " bits is not one the fabric has: use 32, 64 or 128 (--flit-bits)");
  t.flit_bits = bits;
}

Topology parse_topology(const std::string& text) {
  const std::string trimmed = Trim(text);
  const size_t colon = trimmed.find(':');
  const std::string name = colon == std::string::npos ? trimmed : trimmed.substr(0, colon);
  const std::string arg = colon == std::string::npos ? "" : Trim(trimmed.substr(colon + 1));
  if (colon != std::string::npos) {
    if (name == "ring" || name == "biring" || name == "line") {
      const int p = ParseChipCount(text, name, arg, 2);
      if (p < 2 || p > kMaxP) {
        Fail(text + ": P must be between 2 and " + std::to_string(kMaxP));
      }
      const TopoKind kind = name == "ring"     ? TopoKind::kRing
                            : name == "biring" ? TopoKind::kBiring
                                               : TopoKind::kLine;
      return MakeRing(text, kind, p);
    }
    if (name == "ladder") return MakeLadder(text, ParseChipCount(text, name, arg, 4));
    if (name == "tree") return MakeTree(text, arg);
    if (name == "file") return MakeFromFile(text, arg);
  }
  Fail("unknown topology '" + text +
       "': expected ring:P, biring:P, line:P, ladder:P, tree:SPEC or file:PATH");
}

std::vector<std::vector<int>> spanning_tree_routes(const Topology& t) {
  const int n = t.num_nodes;
  const int chips = t.num_chips;
  if (n <= 0 || chips <= 0) return {};
  // Adjacency in (neighbour id, own port) order.
  struct Edge {
    int peer, port, peer_port;
  };
  std::vector<std::vector<Edge>> adj(n);
  for (const Link& l : t.links) {
    if (l.a < 0 || l.a >= n || l.b < 0 || l.b >= n) {
      Fail(t.spec + ": link " + std::to_string(l.a) + "." + std::to_string(l.pa) + " <-> " +
           std::to_string(l.b) + "." + std::to_string(l.pb) + " names a node outside 0.." +
           std::to_string(n - 1));
    }
    adj[l.a].push_back({l.b, l.pa, l.pb});
    adj[l.b].push_back({l.a, l.pb, l.pa});
  }
  for (auto& edges : adj) {
    std::sort(edges.begin(), edges.end(), [](const Edge& x, const Edge& y) {
      return x.peer != y.peer ? x.peer < y.peer : x.port < y.port;
    });
  }
  // BFS from chip 0: parent, port towards the parent, and the parent's port towards the node.
  std::vector<int> par(n, -1);
  std::vector<int> up_port(n, -1);
  std::vector<int> down_port(n, -1);
  std::vector<char> seen(n, 0);
  std::vector<int> queue = {0};
  seen[0] = 1;
  for (size_t head = 0; head < queue.size(); ++head) {
    const int u = queue[head];
    for (const Edge& e : adj[u]) {
      if (seen[e.peer]) continue;
      seen[e.peer] = 1;
      par[e.peer] = u;
      up_port[e.peer] = e.peer_port;
      down_port[e.peer] = e.port;
      queue.push_back(e.peer);
    }
  }
  if (static_cast<int>(queue.size()) != n) {
    for (int v = 0; v < n; ++v) {
      if (!seen[v]) {
        Fail(t.spec + ": node " + std::to_string(v) +
             " is not connected to chip 0; routing needs a connected topology");
      }
    }
  }
  // Every node forwards towards the root, except the ancestors of dst, which forward down.
  std::vector<std::vector<int>> next(n, std::vector<int>(chips));
  for (int dst = 0; dst < chips; ++dst) {
    for (int v = 0; v < n; ++v) next[v][dst] = up_port[v];
    next[dst][dst] = -1;
    for (int v = dst; par[v] >= 0; v = par[v]) next[par[v]][dst] = down_port[v];
  }
  return next;
}

std::vector<std::vector<int>> shortest_path_routes(const Topology& t) {
  const int n = t.num_nodes;
  const int chips = t.num_chips;
  if (n <= 0 || chips <= 0) return {};
  // Adjacency in (neighbour id, own port) order, as spanning_tree_routes.
  std::vector<std::vector<std::pair<int, int>>> adj(n);  // (peer, own port)
  for (const Link& l : t.links) {
    if (l.a < 0 || l.a >= n || l.b < 0 || l.b >= n) {
      Fail(t.spec + ": link " + std::to_string(l.a) + "." + std::to_string(l.pa) + " <-> " +
           std::to_string(l.b) + "." + std::to_string(l.pb) + " names a node outside 0.." +
           std::to_string(n - 1));
    }
    adj[l.a].push_back({l.b, l.pa});
    adj[l.b].push_back({l.a, l.pb});
  }
  for (auto& edges : adj) std::sort(edges.begin(), edges.end());
  std::vector<std::vector<int>> next(n, std::vector<int>(chips, -1));
  std::vector<int> dist(n), queue;
  for (int dst = 0; dst < chips; ++dst) {
    // BFS from dst (links are bidirectional); then every node takes its first neighbour one hop
    // nearer.
    std::fill(dist.begin(), dist.end(), -1);
    dist[dst] = 0;
    queue.assign(1, dst);
    for (size_t head = 0; head < queue.size(); ++head)
      for (const auto& [v, port] : adj[queue[head]])
        if (dist[v] < 0) {
          dist[v] = dist[queue[head]] + 1;
          queue.push_back(v);
        }
    for (int v = 0; v < n; ++v) {
      if (v == dst) continue;
      if (dist[v] < 0) {
        Fail(t.spec + ": node " + std::to_string(v) + " is not connected to chip " +
             std::to_string(dst) + "; routing needs a connected topology");
      }
      for (const auto& [u, port] : adj[v])
        if (dist[u] == dist[v] - 1) {
          next[v][dst] = port;
          break;
        }
    }
  }
  return next;
}

}  // namespace xf
