// Pictures of topologies (docs/topology.md, section 9): the Graphviz source of a Topology and the
// body of `fabric topo`, which renders it with Graphviz's `dot`.
//
// Layouts (the source names its engine in `layout=`, so plain `dot -Tpng` draws the same):
//   ring, biring  neato, chips on a circle, chip 0 at the top, numbers increasing clockwise;
//   line          neato, chips in a row;
//   ladder        neato, pair k at angle k/n of a turn: side a (a_k = 2k) on the outer circle,
//                 side b (b_k = 2k+1) on the inner one, so rungs are radial, side and return
//                 links are chords (crossed return links for odd n cross between the circles);
//                 ladder:4 (n = 2) is a rectangle;
//   tree          dot, one row per switch level (chips at the bottom, the root at the top),
//                 children in port order;
//   file          neato, free layout.
// Ring colours come from Topology::rings, the rings the compiler's ring, biring and ladder
// algorithms run on (ring r in lane r): nothing is recomputed here.

#include "xf/topo_dot.hpp"

#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <map>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "xf/cli.hpp"

extern char** environ;

namespace xf {
namespace {

constexpr double kPi = 3.14159265358979323846;
constexpr const char* kLinkGray = "#8c8c8c";
constexpr const char* kChipFill = "#f2f2f2";
constexpr const char* kChainColor = "#2e8b57";
// Directed rings of file topologies (and the one ring of ring:P, the two of biring:P).
const std::vector<const char*> kRingColors = {"#c0392b", "#1f5fa8", "#2e8b57", "#e67e22",
                                              "#8e44ad", "#8b5a2b", "#d63384", "#17a2b8"};
// ladder: A and A reversed in reds, B and B reversed in blues.
const std::vector<const char*> kLadderColors = {"#c0392b", "#f1948a", "#1f5fa8", "#85b8e6"};
const std::vector<const char*> kLadderNames = {"A", "A reversed", "B", "B reversed"};
// Tree levels 1, 2, ...: link colour and switch fill.
const std::vector<const char*> kLevelColors = {"#2e8b57", "#1f5fa8", "#8e44ad", "#c0392b",
                                               "#e67e22"};
const std::vector<const char*> kLevelFills = {"#d5f0df", "#d6e4f5", "#eadcf2", "#f6d5d1",
                                              "#fbe3cc"};
constexpr size_t kMaxListed = 16;  // chips listed per legend line before "..."

const char* Pick(const std::vector<const char*>& palette, size_t i) {
  return palette[i % palette.size()];
}

// Text for an HTML-like label: the five markup characters escaped, control characters dropped.
std::string Html(const std::string& s) {
  std::string out;
  for (char c : s) {
    switch (c) {
      case '&':
        out += "&amp;";
        break;
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '"':
        out += "&quot;";
        break;
      case '\'':
        out += "&#39;";
        break;
      default:
        if (static_cast<unsigned char>(c) >= 0x20) out += c;
    }
  }
  return out;
}

// Text for a `//` comment: control characters (a newline would end it) shown as '?'.
std::string Comment(const std::string& s) {
  std::string out = s;
  for (char& c : out)
    if (static_cast<unsigned char>(c) < 0x20) c = '?';
  return out;
}

std::string Fixed(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.3f", std::abs(v) < 5e-4 ? 0.0 : v);
  return buf;
}

std::string NodeId(int node) { return "n" + std::to_string(node); }

// "0 1 3 2 ..." with at most kMaxListed entries.
std::string List(const std::vector<int>& v, const std::string& prefix = "") {
  std::string out;
  for (size_t i = 0; i < v.size() && i < kMaxListed; ++i)
    out += (i ? " " : "") + prefix + std::to_string(v[i]);
  if (v.size() > kMaxListed) out += " ...";
  return out;
}

// Height of every node of a tree: chips 0, a switch 1 + the highest of its children.
std::vector<int> TreeLevels(const Topology& t) {
  std::vector<int> level(t.num_nodes, 0);
  // Switches are numbered in pre-order, so children have higher ids than their parent.
  for (int v = t.num_nodes - 1; v >= t.num_chips; --v) {
    int h = 0;
    if (v < static_cast<int>(t.children.size()))
      for (int c : t.children[v]) h = std::max(h, level[c]);
    level[v] = h + 1;
  }
  return level;
}

bool IsTree(const Topology& t) {
  return t.kind == TopoKind::kTree && static_cast<int>(t.children.size()) == t.num_nodes;
}

// Pinned positions (inches) for the neato layouts; empty for free layouts.
std::vector<std::pair<double, double>> Positions(const Topology& t) {
  std::vector<std::pair<double, double>> pos;
  const int p = t.num_chips;
  auto on_circle = [](double radius, int k, int n) {
    const double a = kPi / 2 - 2 * kPi * k / n;  // from the top, clockwise
    return std::make_pair(radius * std::cos(a), radius * std::sin(a));
  };
  switch (t.kind) {
    case TopoKind::kRing:
    case TopoKind::kBiring: {
      const double radius = std::max(1.0, p * 0.8 / (2 * kPi));
      for (int i = 0; i < p; ++i) pos.push_back(on_circle(radius, i, p));
      break;
    }
    case TopoKind::kLine:
      for (int i = 0; i < p; ++i) pos.push_back({1.1 * i, 0.0});
      break;
    case TopoKind::kLadder: {
      const int n = p / 2;
      if (n == 2) {
        pos = {{0.0, 1.4}, {0.0, 0.0}, {2.0, 1.4}, {2.0, 0.0}};
        break;
      }
      const double inner = std::max(0.9, n * 0.9 / (2 * kPi));
      const double outer = inner + 1.5;
      for (int k = 0; k < n; ++k) {
        pos.push_back(on_circle(outer, k, n));
        pos.push_back(on_circle(inner, k, n));
      }
      break;
    }
    case TopoKind::kTree:
    case TopoKind::kFile:
      break;
  }
  return pos;
}

// Legend row: a colour swatch and a text.
std::string LegendRow(const char* color, const std::string& text, bool border = false) {
  return std::string("    <TR><TD BGCOLOR=\"") + color +
         "\" WIDTH=\"28\" HEIGHT=\"10\" FIXEDSIZE=\"TRUE\"" +
         (border ? " BORDER=\"1\" COLOR=\"#000000\"" : "") + "></TD><TD ALIGN=\"LEFT\">" +
         Html(text) + "</TD></TR>\n";
}

std::string NoteRow(const std::string& text) {
  return "    <TR><TD></TD><TD ALIGN=\"LEFT\"><FONT POINT-SIZE=\"10\">" + Html(text) +
         "</FONT></TD></TR>\n";
}

std::string RingName(const Topology& t, size_t r) {
  if (t.kind == TopoKind::kLadder && r < kLadderNames.size())
    return "ring " + std::to_string(r) + " = " + kLadderNames[r];
  return "ring " + std::to_string(r);
}

const char* RingColor(const Topology& t, size_t r) {
  return t.kind == TopoKind::kLadder ? Pick(kLadderColors, r) : Pick(kRingColors, r);
}

}  // namespace

std::string topology_summary(const Topology& t) {
  const int switches = t.num_nodes - t.num_chips;
  std::string s =
      t.spec + ": " + std::to_string(t.num_chips) + (t.num_chips == 1 ? " chip" : " chips");
  if (switches > 0)
    s += ", " + std::to_string(switches) + (switches == 1 ? " switch" : " switches");
  s += ", " + std::to_string(t.links.size()) + (t.links.size() == 1 ? " link" : " links");
  if (IsTree(t)) {
    const std::vector<int> level = TreeLevels(t);
    const int top = *std::max_element(level.begin(), level.end());
    s += ", " + std::to_string(top) + (top == 1 ? " switch level" : " switch levels");
  } else if (t.kind == TopoKind::kLine) {
    s += ", a chain";
  } else {
    const size_t r = t.rings.size();
    s += ", " + std::to_string(r) + (r == 1 ? " directed ring" : " directed rings");
    if (t.kind == TopoKind::kLadder) s += " (A, A reversed, B, B reversed)";
    if (t.kind == TopoKind::kBiring) s += " (one per direction)";
  }
  return s;
}

std::string topology_dot(const Topology& t) {
  const bool tree = IsTree(t);
  const std::vector<int> level = tree ? TreeLevels(t) : std::vector<int>();
  const std::vector<std::pair<double, double>> pos = Positions(t);
  const bool pinned = static_cast<int>(pos.size()) == t.num_chips && t.num_nodes == t.num_chips;

  // Which rings send over each link, along the link (a -> b) and against it (b -> a).
  std::vector<std::vector<int>> link_at(t.num_nodes);  // link index of (node, port), -1 if free
  for (int v = 0; v < t.num_nodes; ++v)
    link_at[v].assign(v < static_cast<int>(t.num_ports.size()) ? t.num_ports[v] : 0, -1);
  for (size_t i = 0; i < t.links.size(); ++i) {
    const Link& l = t.links[i];
    for (auto [node, port] : {std::make_pair(l.a, l.pa), std::make_pair(l.b, l.pb)}) {
      if (node < 0 || node >= t.num_nodes || port < 0) continue;
      if (port >= static_cast<int>(link_at[node].size())) link_at[node].resize(port + 1, -1);
      link_at[node][port] = static_cast<int>(i);
    }
  }
  std::vector<std::vector<int>> along(t.links.size()), against(t.links.size());
  for (size_t r = 0; r < t.rings.size(); ++r) {
    const Ring& ring = t.rings[r];
    for (size_t k = 0; k < ring.order.size() && k < ring.out_port.size(); ++k) {
      const int u = ring.order[k];
      const int port = ring.out_port[k];
      if (u < 0 || u >= t.num_nodes || port < 0 || port >= static_cast<int>(link_at[u].size()))
        continue;
      const int i = link_at[u][port];
      if (i < 0) continue;
      (t.links[i].a == u && t.links[i].pa == port ? along : against)[i].push_back(
          static_cast<int>(r));
    }
  }

  std::string o;
  o += "// fabric topo " + Comment(t.spec) + "\n";
  o += "// " + Comment(topology_summary(t)) + "\n";
  o += "// Generated by sw/lib/topo_dot.cpp (docs/topology.md section 9); draw it with\n";
  o += "// dot -Tpng FILE.dot -o FILE.png (the layout engine is named below).\n";
  o += "digraph topology {\n";
  if (tree) {
    o += "  layout=dot;\n  rankdir=TB;\n  ordering=out;\n  nodesep=0.25;\n  ranksep=0.6;\n";
  } else {
    o += "  layout=neato;\n  splines=true;\n";
    o += pinned ? "  overlap=true;\n" : "  overlap=false;\n  sep=\"+8\";\n";
  }
  o += "  outputorder=edgesfirst;\n  pad=0.3;\n  fontname=\"Helvetica\";\n  fontsize=12;\n";
  o += "  labelloc=t;\n  labeljust=l;\n";
  o += "  node [fontname=\"Helvetica\", fontsize=12, style=filled, penwidth=1.2, width=0.45, "
       "height=0.35];\n";
  o += "  edge [fontname=\"Helvetica\", fontsize=8, fontcolor=\"#555555\", arrowsize=0.7,"
       " labeldistance=1.6, labelangle=30];\n";

  // Legend: the summary, then one row per ring, level or chain.
  o += "  label=<\n  <TABLE BORDER=\"0\" CELLBORDER=\"0\" CELLSPACING=\"3\">\n";
  o += "    <TR><TD COLSPAN=\"2\" ALIGN=\"LEFT\"><B>" + Html(t.spec) + "</B>" +
       Html(topology_summary(t).substr(t.spec.size())) + "</TD></TR>\n";
  if (tree) {
    const int top = *std::max_element(level.begin(), level.end());
    o += LegendRow(
        kChipFill,
        "chips 0.." + std::to_string(t.num_chips - 1) + " (boxes; port 0 goes up to the switch)",
        true);
    for (int lv = 1; lv <= top; ++lv) {
      std::vector<int> at;
      for (int v = t.num_chips; v < t.num_nodes; ++v)
        if (level[v] == lv) at.push_back(v);
      std::string what = "level " + std::to_string(lv) + ": " + List(at, "s") +
                         (lv == 1 ? " (switches over chips)" : "") +
                         (lv == top ? " (the root)" : "") + " and the links below them";
      o += LegendRow(Pick(kLevelColors, lv - 1), what);
    }
    o += NoteRow(
        "numbers at link ends: ports; the tree allreduce runs a ring among the children of"
        " each switch, lowest level first (docs/algorithms.md section 6)");
  } else if (t.kind == TopoKind::kLine) {
    std::vector<int> chain;
    for (int i = 0; i < t.num_chips; ++i) chain.push_back(i);
    o += LegendRow(kChainColor, "the chain " + List(chain) +
                                    ": the line allreduce reduces along it and writes back, in"
                                    " both directions at once");
    o += NoteRow("numbers at link ends: ports (docs/algorithms.md section 5)");
  } else {
    for (size_t r = 0; r < t.rings.size(); ++r) {
      o += LegendRow(RingColor(t, r), RingName(t, r) + ", lane " + std::to_string(r) + ": " +
                                          List(t.rings[r].order) + " (out ports " +
                                          List(t.rings[r].out_port) + ")");
    }
    if (t.kind == TopoKind::kLadder) {
      o += NoteRow(t.num_chips > 4 ? "outer circle: side a (chips 0, 2, 4, ...); inner circle: side"
                                     " b (1, 3, 5, ...); each rung is two links"
                                   : "top row: side a (chips 0, 2); bottom row: side b (1, 3);"
                                     " each rung is two links");
    }
    std::string note = "arrows: the direction each ring sends in";
    if (!t.rings.empty()) note += " (a link with two colours carries one ring each way)";
    o += NoteRow(note + "; numbers at link ends: ports");
  }
  o += "  </TABLE>>;\n\n";

  // Nodes.
  for (int v = 0; v < t.num_nodes; ++v) {
    o += "  " + NodeId(v);
    if (v < t.num_chips) {
      o += " [shape=box, label=\"" + std::to_string(v) + "\", fillcolor=\"" + kChipFill + "\"";
    } else {
      const char* fill = tree ? Pick(kLevelFills, level[v] - 1) : "#ffffff";
      o += " [shape=ellipse, label=\"s" + std::to_string(v) + "\", fillcolor=\"" + fill + "\"";
    }
    if (pinned) o += ", pos=\"" + Fixed(pos[v].first) + "," + Fixed(pos[v].second) + "!\"";
    o += "];\n";
  }
  if (tree) {  // one row per level
    const int top = *std::max_element(level.begin(), level.end());
    for (int lv = 0; lv <= top; ++lv) {
      o += "  { rank=same;";
      for (int v = 0; v < t.num_nodes; ++v)
        if (level[v] == lv) o += " " + NodeId(v) + ";";
      o += " }\n";
    }
  }
  o += "\n";

  // Links, once each, in Topology::links order.
  for (size_t i = 0; i < t.links.size(); ++i) {
    Link l = t.links[i];
    std::vector<int> fwd = along[i], bwd = against[i];
    if (fwd.empty() && !bwd.empty()) {
      std::swap(l.a, l.b);
      std::swap(l.pa, l.pb);
      std::swap(fwd, bwd);
    }
    std::string color;
    std::string dir = "none";
    std::string width = "1.2";
    if (!fwd.empty()) {
      for (int r : fwd) color += std::string(color.empty() ? "" : ":") + RingColor(t, r);
      for (int r : bwd) color += std::string(":") + RingColor(t, r);
      dir = bwd.empty() ? "forward" : "both";
      width = "2";
    } else if (tree) {
      // A tree link runs from a switch (tail, port on the switch) down to its child.
      if (l.a < t.num_nodes && l.b < t.num_nodes && level[l.b] > level[l.a]) {
        std::swap(l.a, l.b);
        std::swap(l.pa, l.pb);
      }
      color = Pick(kLevelColors, std::max(level[l.a], 1) - 1);
      width = "2";
    } else if (t.kind == TopoKind::kLine) {
      color = kChainColor;
      dir = "both";
      width = "2";
    } else {
      color = kLinkGray;
    }
    o += "  " + NodeId(l.a) + " -> " + NodeId(l.b) + " [color=\"" + color + "\", dir=" + dir +
         ", penwidth=" + width + ", taillabel=\"" + std::to_string(l.pa) + "\"";
    // A tree chip's one port is 0 (the legend says so): its label would only crowd the row.
    if (!(tree && l.b < t.num_chips)) o += ", headlabel=\"" + std::to_string(l.pb) + "\"";
    o += "];\n";
  }
  o += "}\n";
  return o;
}

// ---- fabric topo ------------------------------------------------------------------------------

namespace {

// Full path of Graphviz's `dot` on PATH, or "" when there is none.
std::string FindDot() {
  const char* env = std::getenv("PATH");
  const std::string path = env ? env : "";
  size_t b = 0;
  while (b <= path.size()) {
    size_t e = path.find(':', b);
    if (e == std::string::npos) e = path.size();
    const std::string dir = e > b ? path.substr(b, e - b) : ".";
    const std::string cand = dir + "/dot";
    if (access(cand.c_str(), X_OK) == 0) return cand;
    b = e + 1;
  }
  return "";
}

// Runs `dot -T<format> -o <out> <src>`; throws with the reason when it cannot or fails.
void RunDot(const std::string& dot, const std::string& format, const std::string& src,
            const std::string& out) {
  std::vector<std::string> words = {dot, "-T" + format, "-o", out, src};
  std::vector<char*> argv;
  for (std::string& w : words) argv.push_back(w.data());
  argv.push_back(nullptr);
  pid_t pid = 0;
  if (posix_spawn(&pid, dot.c_str(), nullptr, nullptr, argv.data(), environ) != 0)
    throw std::runtime_error("cannot run " + dot + " (Graphviz); reinstall the package graphviz");
  int status = 0;
  while (waitpid(pid, &status, 0) < 0) {
  }
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
    throw std::runtime_error("Graphviz's dot failed drawing " + out + " (" +
                             (WIFEXITED(status)
                                  ? "exit status " + std::to_string(WEXITSTATUS(status))
                                  : std::string("killed by a signal")) +
                             "; its message, if any, is above)");
  }
}

}  // namespace

void write_topology_pictures(const Topology& topo, const std::map<std::string, std::string>& out) {
  const std::string text = topology_dot(topo);
  std::string dot;
  if (out.count("png") || out.count("svg")) {
    dot = FindDot();
    if (dot.empty()) {
      throw std::runtime_error(
          "Graphviz's dot is not on PATH: install the Debian package graphviz (scripts/setup.sh "
          "does), or write the source with --dot FILE and draw it elsewhere");
    }
  }
  for (const auto& [format, file] : out) {  // may we write every file?
    std::ofstream f(file, std::ios::app);
    if (!f)
      throw cli::Usage("--" + format + ": cannot write " + file + " (does the directory exist?)");
  }
  if (out.count("dot")) {
    std::ofstream f(out.at("dot"), std::ios::trunc);
    f << text;
    if (!f.flush()) throw std::runtime_error("--dot: writing " + out.at("dot") + " failed");
  }
  if (!dot.empty()) {
    const char* tmpdir = std::getenv("TMPDIR");
    std::string src = std::string(tmpdir && *tmpdir ? tmpdir : "/tmp") + "/xf_topo_XXXXXX.dot";
    const int fd = mkstemps(src.data(), 4);
    if (fd < 0) throw std::runtime_error("cannot create a temporary file for Graphviz in " + src);
    const bool written = write(fd, text.data(), text.size()) == static_cast<ssize_t>(text.size());
    close(fd);
    try {
      if (!written) throw std::runtime_error("writing the temporary file " + src + " failed");
      for (const char* format : {"png", "svg"})
        if (out.count(format)) RunDot(dot, format, src, out.at(format));
    } catch (...) {
      unlink(src.c_str());
      throw;
    }
    unlink(src.c_str());
  }
}

}  // namespace xf
