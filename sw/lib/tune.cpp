// The compiler's automatic choice from the tuner's table (xf/tune.hpp, docs/compiler.md
// section 10).
#include "xf/tune.hpp"

#include <algorithm>
#include <cmath>

namespace xf {

namespace {

std::string no_spaces(const std::string& s) {
  std::string o;
  for (char c : s)
    if (c != ' ' && c != '\t') o += c;
  return o;
}

// The table's cycles of one algorithm at x bytes (16-byte flits): the measured point, linear
// between two measured sizes, the smallest size's below them, proportional above the largest.
// False where the algorithm has no point, or stops before the topology's largest size (it no
// longer fits there: above it nothing is known).
bool cycles_at(const std::vector<const TunePoint*>& pts, uint64_t max_bytes, double x,
               double& cycles, uint32_t& chunk) {
  if (pts.empty()) return false;
  const TunePoint& lo = *pts.front();
  const TunePoint& hi = *pts.back();
  if (x <= static_cast<double>(lo.bytes)) {
    cycles = static_cast<double>(lo.cycles);
    chunk = x == static_cast<double>(lo.bytes) ? lo.chunk_bytes : 0;
    return true;
  }
  if (x >= static_cast<double>(hi.bytes)) {
    if (hi.bytes < max_bytes) return false;
    cycles = static_cast<double>(hi.cycles) * x / static_cast<double>(hi.bytes);
    chunk = x == static_cast<double>(hi.bytes) ? hi.chunk_bytes : 0;
    return true;
  }
  for (size_t i = 0; i + 1 < pts.size(); ++i) {
    const TunePoint &a = *pts[i], &b = *pts[i + 1];
    const double xa = static_cast<double>(a.bytes), xb = static_cast<double>(b.bytes);
    if (x < xa || x >= xb) continue;
    const double f = (x - xa) / (xb - xa);
    cycles = static_cast<double>(a.cycles) +
             f * (static_cast<double>(b.cycles) - static_cast<double>(a.cycles));
    chunk = x == xa ? a.chunk_bytes : 0;
    return true;
  }
  return false;
}

}  // namespace

std::vector<Algo> valid_algos(const Topology& topo, const CollectiveSpec& spec, bool automatic) {
  if (spec.op == RedOp::kAvg) return {Algo::kAvg};
  const int P = topo.num_chips;
  std::vector<Algo> out = {Algo::kRing};
  if (topo.rings.size() >= 2) out.push_back(Algo::kBiring);
  if (topo.kind == TopoKind::kLadder) out.push_back(Algo::kLadder);
  if (spec.coll != Collective::kAllReduce) return out;
  out.push_back(Algo::kLine);
  if (topo.kind == TopoKind::kTree) out.push_back(Algo::kTree);
  // Auto leaves the butterfly out on 2 chips (one round, no fewer steps than the ring's two).
  if (P >= (automatic ? 4 : 2) && (!automatic || spec.op == RedOp::kSum))
    out.push_back(Algo::kButterfly);
  return out;
}

AutoPick auto_pick(const Topology& topo, const CollectiveSpec& spec) {
  return auto_pick(topo, spec, tune_table());
}

AutoPick auto_pick(const Topology& topo, const CollectiveSpec& spec,
                   const std::vector<TunePoint>& table) {
  AutoPick pick;
  pick.algo = rule_algo(topo, spec);
  // The table holds allreduce sums; other collectives have one bandwidth algorithm per
  // topology (the rule's), and op avg has only the averaging butterfly.
  if (spec.coll != Collective::kAllReduce || spec.op == RedOp::kAvg || table.empty()) return pick;
  // The tuned topology: this one, else the same kind with the nearest chip count.
  std::string tuned;
  bool exact = false;
  double best_dist = 1e9;
  const std::string mine = no_spaces(topo.spec);
  for (size_t i = 0; i < table.size(); ++i) {
    if (i > 0 && std::string(table[i].topology) == table[i - 1].topology) continue;
    const std::string name = table[i].topology;
    if (no_spaces(name) == mine) {
      tuned = name;
      exact = true;
      break;
    }
    Topology t;
    try {
      t = parse_topology(name);
    } catch (const TopologyError&) {
      continue;
    }
    if (t.kind != topo.kind) continue;
    const double d = std::fabs(std::log2(static_cast<double>(t.num_chips)) -
                               std::log2(static_cast<double>(topo.num_chips)));
    if (d < best_dist) {
      best_dist = d;
      tuned = name;
    }
  }
  if (tuned.empty()) return pick;
  uint64_t max_bytes = 0;
  for (const TunePoint& p : table)
    if (p.topology == tuned) max_bytes = std::max(max_bytes, p.bytes);
  const double x = static_cast<double>(spec.bytes) * kTuneFlitBits / topo.flit_bits;
  // The rule's algorithm first, so that it keeps a tie.
  std::vector<Algo> cand = valid_algos(topo, spec, true);
  const auto it = std::find(cand.begin(), cand.end(), pick.algo);
  if (it != cand.end()) std::rotate(cand.begin(), it, it + 1);
  bool found = false;
  for (Algo a : cand) {
    if (!algo_fits(topo, spec, a)) continue;
    std::vector<const TunePoint*> pts;
    for (const TunePoint& p : table)
      if (p.algo == a && p.topology == tuned) pts.push_back(&p);
    std::sort(pts.begin(), pts.end(),
              [](const TunePoint* u, const TunePoint* v) { return u->bytes < v->bytes; });
    double c = 0;
    uint32_t chunk = 0;
    if (!cycles_at(pts, max_bytes, x, c, chunk)) continue;
    if (!found || c < pick.predicted_cycles) {
      found = true;
      pick.algo = a;
      pick.predicted_cycles = c;
      // A chunk measured on this very machine, at this size and width; elsewhere automatic.
      pick.chunk_bytes = exact && topo.flit_bits == kTuneFlitBits ? chunk : 0;
    }
  }
  if (found) pick.tuned = tuned;
  return pick;
}

}  // namespace xf
