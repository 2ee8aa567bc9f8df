// The collective compiler (docs/compiler.md, docs/algorithms.md).
#include "xf/compiler.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <map>
#include <set>
#include <sstream>

#include "xf/alu.hpp"
#include "xf/layout.hpp"
#include "xf/tune.hpp"

namespace xf {

namespace {

// Layout, lengths and counters are in grains (16 bytes) at every flit width.
constexpr uint32_t kF = kGrainBytes;

std::string lower(std::string s) {
  for (auto& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

[[noreturn]] void fail(const std::string& m) { throw CompileError(m); }

// The flits of a transfer of `bytes` cut into packets of at most `packet_bytes` payload bytes at
// `flit_bits`: a header of 128 / flit_bits flits per packet (a token is a header alone).
uint64_t transfer_flits(uint32_t bytes, int flit_bits, uint32_t packet_bytes) {
  const uint32_t pk = std::clamp<uint32_t>(packet_bytes, kF, kMaxPacketPayloadBytes);
  const uint64_t packets = bytes == 0 ? 1 : (bytes + pk - 1) / pk;
  const uint64_t per_flit = flit_bits / 8;
  return packets * (128 / flit_bits) + (bytes + per_flit - 1) / per_flit;
}

}  // namespace

uint64_t route_load_flits(const Topology& topo, const std::vector<std::vector<int>>& routes,
                          const std::vector<Transfer>& transfers, int flit_bits,
                          uint32_t packet_bytes) {
  std::vector<std::vector<uint64_t>> load(topo.num_nodes);
  for (int n = 0; n < topo.num_nodes; ++n) load[n].assign(topo.num_ports[n], 0);
  uint64_t most = 0;
  for (const Transfer& t : transfers) {
    if (t.src == t.dst) continue;  // stays in the chip
    const uint64_t flits = transfer_flits(t.bytes, flit_bits, packet_bytes);
    int v = t.src;
    for (int hops = 0; v != t.dst; ++hops) {
      const int port = routes[v][t.dst];
      if (port < 0 || hops > topo.num_nodes) fail(topo.spec + ": a route does not arrive");
      most = std::max(most, load[v][port] += flits);
      v = topo.peer(v, port).first;
    }
  }
  return most;
}

const char* to_string(Collective c) {
  switch (c) {
    case Collective::kAllReduce:
      return "allreduce";
    case Collective::kReduceScatter:
      return "reduce_scatter";
    case Collective::kAllGather:
      return "all_gather";
    case Collective::kBroadcast:
      return "broadcast";
    case Collective::kReduce:
      return "reduce";
    case Collective::kSgdStep:
      return "sgd";
  }
  return "?";
}

const char* to_string(Algo a) {
  switch (a) {
    case Algo::kAuto:
      return "auto";
    case Algo::kRing:
      return "ring";
    case Algo::kBiring:
      return "biring";
    case Algo::kLadder:
      return "ladder";
    case Algo::kLine:
      return "line";
    case Algo::kTree:
      return "tree";
    case Algo::kAvg:
      return "avg";
    case Algo::kButterfly:
      return "butterfly";
  }
  return "?";
}

Collective parse_collective(const std::string& s0) {
  const std::string s = lower(s0);
  if (s == "allreduce" || s == "all_reduce") return Collective::kAllReduce;
  if (s == "reduce_scatter" || s == "reducescatter" || s == "reduce-scatter")
    return Collective::kReduceScatter;
  if (s == "all_gather" || s == "allgather" || s == "all-gather") return Collective::kAllGather;
  if (s == "broadcast") return Collective::kBroadcast;
  if (s == "reduce") return Collective::kReduce;
  if (s == "sgd" || s == "sgd_step") return Collective::kSgdStep;
  fail("unknown collective '" + s0 +
       "': use allreduce, reduce_scatter, all_gather, broadcast, reduce or sgd");
}

Algo parse_algo(const std::string& s0) {
  const std::string s = lower(s0);
  for (Algo a : {Algo::kAuto, Algo::kRing, Algo::kBiring, Algo::kLadder, Algo::kLine, Algo::kTree,
                 Algo::kAvg, Algo::kButterfly})
    if (s == to_string(a)) return a;
  fail("unknown algorithm '" + s0 +
       "': use auto, ring, biring, ladder, line, tree, avg or butterfly");
}

DType parse_dtype(const std::string& s0) {
  const std::string s = lower(s0);
  for (unsigned i = 0; i < kDTypeCount; ++i)
    if (s == to_string(static_cast<DType>(i))) return static_cast<DType>(i);
  if (s == "float" || s == "float32") return DType::kFp32;
  if (s == "half" || s == "float16") return DType::kFp16;
  fail("unknown dtype '" + s0 + "': use int8, uint8, int16, int32, fp16, bf16 or fp32");
}

RedOp parse_op(const std::string& s0) {
  const std::string s = lower(s0);
  if (s == "sum") return RedOp::kSum;
  if (s == "max") return RedOp::kMax;
  if (s == "min") return RedOp::kMin;
  if (s == "avg") return RedOp::kAvg;
  fail("unknown op '" + s0 + "': use sum, max, min or avg");
}

double busbw_factor(Collective c, int p) {
  if (p < 2) return 0;  // one chip moves nothing: no bandwidth to measure
  switch (c) {
    case Collective::kAllReduce:
    case Collective::kSgdStep:  // a reduce-scatter and an all-gather
      return 2.0 * (p - 1) / p;
    case Collective::kReduceScatter:
    case Collective::kAllGather:
      return static_cast<double>(p - 1) / p;
    default:
      return 1.0;
  }
}

int plan_channels(const Plan& plan) {
  // The topology's own channels (Topology::bound_channels), whatever algorithm runs, at most one
  // per tile: a chip's tiles are its independent senders.
  return std::max(1, std::min(plan.topo_channels, plan.tiles));
}

double bound_cycles(const Plan& plan) {
  // W: the payload bytes per flit at the machine's width.
  return busbw_factor(plan.spec.coll, plan.chips) * static_cast<double>(plan.spec.bytes) /
         (plan_channels(plan) * static_cast<double>(plan.flit_bits / 8));
}

Algo default_algo(const Topology& topo, const CollectiveSpec& spec) {
  return auto_pick(topo, spec).algo;
}

Algo rule_algo(const Topology& topo, const CollectiveSpec& spec) {
  if (spec.op == RedOp::kAvg) return Algo::kAvg;
  // Small sums on a power-of-two machine: log2(P) butterfly rounds beat 2(P-1) ring steps while
  // the message is latency-bound. Measured on the model (= the RTL), cycles ring-family or tree
  // / butterfly at 256 bytes: ring:8 498/415, ladder:8 492/361, tree:((2,2),(2,2)) 628/397,
  // ring:16 1020/757; at 512 bytes ring:8 510/513 and ladder:8 492/492 (algorithms.md section 10).
  const int P = topo.num_chips;
  if (spec.coll == Collective::kAllReduce && spec.op == RedOp::kSum && P >= 4 &&
      (P & (P - 1)) == 0 && spec.bytes <= kButterflyMaxBytes)
    return Algo::kButterfly;
  switch (topo.kind) {
    case TopoKind::kBiring:
      return Algo::kBiring;
    case TopoKind::kLadder:
      return Algo::kLadder;
    case TopoKind::kLine:
      return spec.coll == Collective::kAllReduce ? Algo::kLine : Algo::kRing;
    case TopoKind::kTree:
      return spec.coll == Collective::kAllReduce ? Algo::kTree : Algo::kRing;
    default:
      return Algo::kRing;
  }
}

// ---------------------------------------------------------------------------------------------
// Planning

namespace {

struct Builder {
  const Topology& topo;
  Plan& plan;
  int P, T;
  // seg[t][b] = {addr, len} of block b in tile plane t
  std::vector<std::vector<std::pair<uint32_t, uint32_t>>> seg;
  std::vector<uint32_t> plane_len;

  Builder(const Topology& tp, Plan& pl) : topo(tp), plan(pl), P(tp.num_chips), T(pl.tiles) {}

  void layout() {
    const uint64_t flits = (plan.spec.bytes + kF - 1) / kF;
    plan.block_off.assign(P + 1, 0);
    seg.assign(T, std::vector<std::pair<uint32_t, uint32_t>>(P));
    plane_len.assign(T, 0);
    for (int b = 0; b < P; ++b) {
      const uint64_t bs = flits * b / P, be = flits * (b + 1) / P;
      plan.block_off[b] = std::min<uint64_t>(bs * kF, plan.spec.bytes);
      const uint64_t n = be - bs;
      for (int t = 0; t < T; ++t) {
        const uint64_t ts = bs + n * t / T, te = bs + n * (t + 1) / T;
        Slice s;
        s.block = b;
        s.tile = t;
        s.user_off = ts * kF;
        s.addr = plane_len[t];
        s.len = static_cast<uint32_t>((te - ts) * kF);
        seg[t][b] = {s.addr, s.len};
        plane_len[t] += s.len;
        plan.slices.push_back(s);
      }
    }
    plan.block_off[P] = plan.spec.bytes;
  }

  void add(int step, int plane, int src, int dst, uint32_t saddr, uint32_t daddr, uint32_t len,
           Opcode popc, int lane, uint8_t shift = 0, bool fin = false) {
    if (len == 0) return;
    Transfer x;
    x.step = step;
    x.plane = plane;
    x.src = src;
    x.dst = dst;
    x.src_addr = saddr;
    x.dst_addr = daddr;
    x.bytes = len;
    x.popc = popc;
    x.lane = lane;
    x.avg_shift = shift;
    x.avg_final = fin;
    plan.transfers.push_back(x);
  }

  // Ring reduce-scatter and/or all-gather on directed ring `order` for plane t. The plane is
  // recorded as a RingPlane, whose steps ring_step() generates when they are needed (the plan
  // stays O(P) in size); `listed` also lists them in plan.transfers, for plans that add their own
  // transfers to the plane between the ring's steps (the sgd step).
  void ring(int t, const std::vector<int>& order, int lane, bool rs, bool ag, bool listed = false,
            int step0 = 0) {
    const int n = static_cast<int>(order.size());
    plan.ring_planes.resize(T);
    RingPlane& rp = plan.ring_planes[t];
    rp = RingPlane{order, lane, rs ? 0 : n - 1, ag ? 2 * n - 3 : n - 2};
    if (!listed) return;
    for (int s = rp.s0; s <= rp.s1; ++s)
      for (const Transfer& x : ring_step(plan, t, s)) {
        plan.transfers.push_back(x);
        plan.transfers.back().step += step0;
      }
    rp = RingPlane{};  // listed: the plane is an ordinary list of transfers
  }

  // The sharded update (sharded-update patent) of chip c's own block on plane t (docs/compiler.md
  // section 12), local transfers from step s on: G is the block (the reduced gradient), W and M the
  // chip's weight and momentum shards after the plane.
  //   s    G += wd * W      (ScaleAdd; only with weight decay)
  //   s+1  G += mu * M      G is now the new momentum
  //   s+2  M  = G           (Write)
  //   s+3  W += -lr * G     (ScaleAdd)
  //   s+4  G  = W           (Write: the updated weights, for the all-gather)
  void sgd_update(int t, int c, int lane, int s) {
    auto [a, l] = seg[t][c];
    const uint32_t w = plan.state_base[t], m = w + plan.state_len[t];
    auto bits = [](float f) {
      uint32_t u;
      std::memcpy(&u, &f, 4);
      return u;
    };
    auto scale_add = [&](int step, uint32_t src, uint32_t dst, float k) {
      add(step, t, c, c, src, dst, l, Opcode::kReduce, lane);
      if (l == 0) return;
      plan.transfers.back().scale_add = true;
      plan.transfers.back().scale = bits(k);
    };
    if (plan.spec.weight_decay != 0.0f) scale_add(s, w, a, plan.spec.weight_decay);
    scale_add(s + 1, m, a, plan.spec.momentum);
    add(s + 2, t, c, c, a, m, l, Opcode::kWrite, lane);
    scale_add(s + 3, a, w, -plan.spec.lr);
    add(s + 4, t, c, c, w, a, l, Opcode::kWrite, lane);
  }

  // Chain through `order` starting at order[0]: Write (broadcast) or Reduce (towards the end).
  void chain(int t, const std::vector<int>& order, int lane, Opcode popc, int step0) {
    for (size_t i = 0; i + 1 < order.size(); ++i)
      add(step0 + static_cast<int>(i), t, order[i], order[i + 1], 0, 0, plane_len[t], popc, lane);
  }

  std::vector<int> logical_order() const {
    std::vector<int> o(P);
    for (int i = 0; i < P; ++i) o[i] = i;
    return o;
  }

  // Rotated copy of a ring order so that it starts at chip `first`.
  static std::vector<int> rotate_to(const std::vector<int>& order, int first) {
    auto it = std::find(order.begin(), order.end(), first);
    std::vector<int> o(it, order.end());
    o.insert(o.end(), order.begin(), it);
    return o;
  }

  void ring_family(const std::vector<const Ring*>& rings, bool logical) {
    const Collective c = plan.spec.coll;
    for (int t = 0; t < T; ++t) {
      const int r = t % static_cast<int>(rings.size());
      const int lane = logical ? 0 : r;
      const std::vector<int> order = logical ? logical_order() : rings[r]->order;
      switch (c) {
        case Collective::kAllReduce:
          ring(t, order, lane, true, true);
          break;
        case Collective::kReduceScatter:
          ring(t, order, lane, true, false);
          break;
        case Collective::kAllGather:
          ring(t, order, lane, false, true);
          break;
        case Collective::kSgdStep: {  // every chip owns its own block after the reduce-scatter
          const int n = static_cast<int>(order.size());
          // Local steps between the two halves: the plane is a list of transfers.
          ring(t, order, lane, true, false, true);
          for (int ch = 0; ch < P; ++ch) sgd_update(t, ch, lane, n - 1);
          ring(t, order, lane, false, true, true, n + 4);
          break;
        }
        case Collective::kBroadcast:
          chain(t, rotate_to(order, plan.spec.root), lane, Opcode::kWrite, 0);
          break;
        case Collective::kReduce: {
          // Chain ending at the root: start at the chip after the root.
          std::vector<int> o = rotate_to(order, plan.spec.root);
          std::rotate(o.begin(), o.begin() + 1, o.end());
          chain(t, o, lane, Opcode::kReduce, 0);
          break;
        }
      }
    }
  }

  // The ladder patent's figure 1A baseline: reduce along the line to its far end, stream back. Odd
  // tile planes run the mirror image, so both directions of every link carry data at once.
  void line() {
    std::vector<int> up = logical_order();
    std::vector<int> down(up.rbegin(), up.rend());
    for (int t = 0; t < T; ++t) {
      chain(t, t % 2 ? down : up, 0, Opcode::kReduce, 0);
      chain(t, t % 2 ? up : down, 0, Opcode::kWrite, P - 1);
    }
  }

  // ---- tree (tree patent) ----
  using Ranges = std::vector<std::pair<uint32_t, uint32_t>>;  // [begin, end) byte ranges
  struct Held {
    std::map<int, Ranges> by_leaf;  // partition of the plane among the subtree's leaves
    int height = 0;
  };
  std::vector<std::pair<int, int>> token_req;  // (level step base) filled per plane

  static Ranges intersect(const Ranges& a, uint32_t lo, uint32_t hi) {
    Ranges out;
    for (auto [b, e] : a) {
      const uint32_t x = std::max(b, lo), y = std::min(e, hi);
      if (x < y) out.push_back({x, y});
    }
    return out;
  }

  struct TreeLevel {
    int node;
    int step_base;
    std::vector<Held> kids;
    std::vector<std::pair<uint32_t, uint32_t>> portion;
    size_t rs_first = 0, rs_end = 0;  // its reduce-scatter's transfers in plan.transfers
  };
  std::vector<TreeLevel> levels;  // in RS order (bottom-up)

  Held tree_rs(int t, int node, int& step) {
    Held h;
    if (!topo.is_switch(node)) {
      h.by_leaf[node] = {{0u, plane_len[t]}};
      return h;
    }
    std::vector<Held> kids;
    int max_step = step;
    const int base = step;
    for (int c : topo.children[node]) {
      int s = base;
      kids.push_back(tree_rs(t, c, s));
      max_step = std::max(max_step, s);
    }
    step = max_step;
    const int k = static_cast<int>(kids.size());
    // Target portions: the plane split into k parts by the number of children (flit units).
    const uint32_t flits = plane_len[t] / kF;
    std::vector<std::pair<uint32_t, uint32_t>> part(k);
    for (int i = 0; i < k; ++i)
      part[i] = {static_cast<uint32_t>(uint64_t(flits) * i / k) * kF,
                 static_cast<uint32_t>(uint64_t(flits) * (i + 1) / k) * kF};
    TreeLevel lv{node, step, kids, part, plan.transfers.size(), 0};
    // Ring reduce-scatter among the k children on matching ranges.
    for (int s = 0; s < k - 1; ++s, ++step)
      for (int i = 0; i < k; ++i) {
        const int g = ((i - s - 1) % k + k) % k;
        const int j = (i + 1) % k;
        match(step, t, kids[i], kids[j], part[g].first, part[g].second, Opcode::kReduce);
      }
    lv.rs_end = plan.transfers.size();
    levels.push_back(lv);
    for (int i = 0; i < k; ++i)
      for (auto& [leaf, r] : kids[i].by_leaf)
        h.by_leaf[leaf] = intersect(r, part[i].first, part[i].second);
    h.height = 1;
    return h;
  }

  void match(int step, int t, const Held& from, const Held& to, uint32_t lo, uint32_t hi,
             Opcode popc) {
    for (auto& [a, ra] : from.by_leaf)
      for (auto [b0, e0] : intersect(ra, lo, hi))
        for (auto& [b, rb] : to.by_leaf)
          for (auto [x, y] : intersect(rb, b0, e0)) add(step, t, a, b, x, x, y - x, popc, 0);
  }

  void tree() {
    int root = -1;
    for (int n = topo.num_chips; n < topo.num_nodes; ++n)
      if (topo.parent[n] < 0) root = n;
    if (root < 0) fail("tree algorithm: topology has no root switch");
    for (int t = 0; t < T; ++t) {
      levels.clear();
      int step = 0;
      tree_rs(t, root, step);
      // Readiness tokens: at a level above the leaves' own, a receiving leaf may still be
      // reducing lower-level arrivals into the same bytes; senders wait for its token.
      for (const TreeLevel& lv : levels) {
        bool leaf_level = true;
        for (int c : topo.children[lv.node]) leaf_level &= !topo.is_switch(c);
        if (leaf_level) continue;
        // This switch's own transfers (switches of the same height share their steps).
        std::set<std::pair<int, int>> pairs;  // (receiver, sender)
        for (size_t i = lv.rs_first; i < lv.rs_end; ++i)
          pairs.insert({plan.transfers[i].dst, plan.transfers[i].src});
        for (auto [rcv, snd] : pairs) tokens.push_back({t, lv.step_base, rcv, snd});
      }
      // All-gather in reverse order: top-down, ring among the children on matching ranges.
      for (auto it = levels.rbegin(); it != levels.rend(); ++it) {
        const int k = static_cast<int>(it->kids.size());
        // After RS at this node, child i holds portion i spread per its own partition.
        for (int s = 0; s < k - 1; ++s, ++step)
          for (int i = 0; i < k; ++i) {
            const int g = ((i - s) % k + k) % k;
            match(step, t, it->kids[i], it->kids[(i + 1) % k], it->portion[g].first,
                  it->portion[g].second, Opcode::kWrite);
          }
      }
    }
  }

  struct Token {
    int plane, step_base, receiver, sender;
  };
  std::vector<Token> tokens;

  // ---- butterfly (recursive doubling) allreduce: in round r every chip c of the Q = 2^p
  // lowest writes its whole plane to chip c ^ 2^r (a receive buffer per round), then reduces that
  // buffer into its plane. log2(Q) rounds instead of the ring's 2(P-1) steps, at Q/2 times the
  // ring's traffic: the small-message algorithm (algorithms.md section 10). Every chip ends
  // with the same bits: at each round the two partners reduce the same two operands, in
  // opposite order, and the sum is commutative (max and min are not, for +0/-0: auto picks the
  // butterfly for sum only). P not a power of two: Q is the largest power of two below P, and
  // each chip e >= Q is a virtual partner of chip e - Q, which first reduces e's plane into its
  // own (steps 0 and 1) and at the end writes the result back to e (one more step). ----
  void butterfly() {
    int p = 0;
    while ((2 << p) <= P) ++p;  // Q = 2^p <= P < 2^(p+1)
    // The ranks of the recursive doubling are placed on the chips so that partners are few hops
    // apart on the routes (butterfly_ranks); k[r] is the chip of rank r. First on shortest paths,
    // which the plan keeps if its traffic fits the buffers of every link (Plan::short_routes),
    // else on the spanning tree.
    const size_t first = plan.transfers.size();
    const std::vector<uint32_t> planes = plane_len;  // butterfly_rounds grows them
    const uint32_t packet = plan.spec.chunk_bytes ? plan.spec.chunk_bytes / kF * kF : 512;
    // A plane whose one transfer is already above the threshold cannot fit: no search then.
    const uint32_t widest = *std::max_element(plane_len.begin(), plane_len.end());
    if (transfer_flits(widest, plan.flit_bits, packet) <= kXbXoffThresholdFlits) {
      const auto short_routes = shortest_path_routes(topo);
      butterfly_rounds(p, butterfly_ranks(p, short_routes));
      if (route_load_flits(topo, short_routes, plan.transfers, plan.flit_bits, packet) <=
          kXbXoffThresholdFlits) {
        plan.short_routes = true;
        return;
      }
      plan.transfers.resize(first);
      plane_len = planes;
    }
    butterfly_rounds(p, butterfly_ranks(p, spanning_tree_routes(topo)));
  }

  // The butterfly's transfers with rank r on chip k[r] (see butterfly()).
  void butterfly_rounds(int p, const std::vector<int>& k) {
    const int Q = 1 << p;
    const int pre = Q < P ? 2 : 0;  // the extra chips' fold-in steps
    for (int t = 0; t < T; ++t) {
      const uint32_t L = plane_len[t];
      // [0,L) data, the fold-in buffer (P > Q only), then one buffer per round
      auto buf = [&](int r) { return L * (1 + r + (pre ? 1 : 0)); };
      for (int e = Q; e < P; ++e) {
        add(0, t, k[e], k[e - Q], 0, L, L, Opcode::kWrite, 0);
        add(1, t, k[e - Q], k[e - Q], L, 0, L, Opcode::kReduce, 0);
      }
      for (int r = 0; r < p; ++r)
        for (int c = 0; c < Q; ++c) {
          add(pre + 2 * r, t, k[c ^ (1 << r)], k[c], 0, buf(r), L, Opcode::kWrite, 0);
          add(pre + 2 * r + 1, t, k[c], k[c], buf(r), 0, L, Opcode::kReduce, 0);
        }
      for (int e = Q; e < P; ++e) add(pre + 2 * p, t, k[e - Q], k[e], 0, 0, L, Opcode::kWrite, 0);
      plane_len[t] = std::max(plane_len[t], buf(p));  // memory footprint check
    }
  }

  // The butterfly's placement: rank r runs on chip k[r]. Chip ids in order are often far from
  // the best: ring:8 routes 4 <-> 5 over 7 hops, through the spanning tree's cut. The cost of a
  // placement is the finish time of the last chip when a message of h hops takes
  // kMsg + kHop * (h - 1) cycles and its local reduce kLocal more, each chip starting a round
  // when its own data and its partner's have arrived (a chip waits for its partner only, not
  // for the whole round); the constants are the model's path (performance.md section 5), and
  // the estimate is the model's cycles less a constant start (ladder:8 at 8 bytes: 129, 138 and
  // 165 for runs of 147, 157 and 181 cycles). Up to 8 chips every placement is tried; above,
  // the identity and a walk from every chip to the nearest chip not yet placed (on a ring or a
  // line: the chips in route order from one end), the five cheapest improved by swapping two
  // ranks while that lowers the cost (P <= 64; above, the cheapest walk). A placement replaces
  // the identity only where it is cheaper. Any placement gives the same bits on every chip (sum
  // is commutative: algorithms.md section 10). Above 256 chips the ranks stay the chip ids (the
  // search costs O(P^3)).
  std::vector<int> butterfly_ranks(int p, const std::vector<std::vector<int>>& st) const {
    constexpr long kMsg = 20, kHop = 9, kLocal = 14;
    const int Q = 1 << p;
    std::vector<int> best(P);
    for (int i = 0; i < P; ++i) best[i] = i;
    if (P > 256) return best;
    // hop[v][d]: the route's length from chip v to chip d along the routing tables; each walk
    // stops at a node whose length is known and fills in the ones it passed (peer() is a search).
    std::vector<std::vector<int>> hop(P, std::vector<int>(P, 0));
    std::vector<int> len(topo.num_nodes), path;
    for (int d = 0; d < P; ++d) {
      std::fill(len.begin(), len.end(), -1);
      len[d] = 0;
      for (int v = 0; v < P; ++v) {
        path.clear();
        int n = v;
        for (; len[n] < 0; n = topo.peer(n, st[n][d]).first) path.push_back(n);
        for (auto it = path.rbegin(); it != path.rend(); n = *it++) len[*it] = len[n] + 1;
        hop[v][d] = len[v];
      }
    }
    // The cost: the last chip's finish time, then (to steer the search across placements with
    // the same last chip) the sum of all chips' finish times.
    std::vector<long> tm(P), nt(P);
    auto cost = [&](const std::vector<int>& k) {
      auto msg = [&](int a, int b) { return kMsg + kHop * (hop[k[a]][k[b]] - 1); };
      std::fill(tm.begin(), tm.end(), 0);
      for (int e = Q; e < P; ++e) tm[e - Q] = std::max(tm[e - Q], tm[e] + msg(e, e - Q)) + kLocal;
      for (int r = 0; r < p; ++r) {
        for (int c = 0; c < Q; ++c)
          nt[c] = std::max(tm[c], tm[c ^ (1 << r)] + msg(c ^ (1 << r), c));
        for (int c = 0; c < Q; ++c) tm[c] = nt[c] + kLocal;
      }
      for (int e = Q; e < P; ++e) tm[e] = tm[e - Q] + msg(e - Q, e);
      long sum = 0;
      for (long x : tm) sum += x;
      return (*std::max_element(tm.begin(), tm.end()) << 32) + sum;
    };
    long best_cost = cost(best);
    if (P <= 8) {  // every placement (8! = 40,320)
      std::vector<int> k = best;
      while (std::next_permutation(k.begin(), k.end())) {
        const long c = cost(k);
        if (c < best_cost) {
          best_cost = c;
          best = k;
        }
      }
      return best;
    }
    // Greedy walks from every chip; the cheapest improved by swaps.
    std::vector<std::pair<long, std::vector<int>>> cand;
    for (int s = 0; s < P; ++s) {
      std::vector<int> k = {s};
      std::vector<char> used(P, 0);
      used[s] = 1;
      while (static_cast<int>(k.size()) < P) {
        int nx = -1;
        for (int v = 0; v < P; ++v)
          if (!used[v] && (nx < 0 || hop[k.back()][v] < hop[k.back()][nx])) nx = v;
        used[nx] = 1;
        k.push_back(nx);
      }
      cand.push_back({cost(k), k});
    }
    std::stable_sort(cand.begin(), cand.end(),
                     [](const auto& x, const auto& y) { return x.first < y.first; });
    cand.resize(std::min<size_t>(cand.size(), P <= 64 ? 5 : 1));
    cand.push_back({best_cost, best});
    for (auto& [c0, k] : cand) {
      long kc = c0;
      if (P <= 64)
        for (bool better = true; better;) {
          better = false;
          for (int i = 0; i < P; ++i)
            for (int j = i + 1; j < P; ++j) {
              std::swap(k[i], k[j]);
              const long c = cost(k);
              if (c < kc) {
                kc = c;
                better = true;
              } else {
                std::swap(k[i], k[j]);
              }
            }
        }
      if (kc < best_cost) {
        best_cost = kc;
        best = k;
      }
    }
    return best;
  }

  // ---- averaging (averaging patent): butterfly of pairwise averages, scratch per round ----
  void avg() {
    int p = 0;
    while ((1 << p) < P) ++p;
    plan.avg_levels = p;
    const uint64_t scale = (uint64_t(1) << (kAvgScaleFracBits + p)) / P;  // floor(2^p/P * 2^31)
    plan.avg_scale = static_cast<uint32_t>(scale);
    const bool need_scale = (1 << p) != P;
    for (int t = 0; t < T; ++t) {
      const uint32_t L = plane_len[t];
      // Memory: [0,L) data, then a zero buffer, then one receive buffer per round.
      const uint32_t zero = L;
      auto buf = [&](int r) { return L * (2 + r); };
      for (int r = 0; r < p; ++r) {
        const int bit = 1 << r;
        const bool last = r == p - 1;
        const int s_send = 2 * r, s_self = 2 * r + 1;
        for (int c = 0; c < P; ++c) {
          const int partner = c ^ bit;
          const int proxy = partner & ~(bit - 1);  // lowest chip of the partner's block
          if (proxy >= P) {
            // Whole partner block is virtual: halve (average with zero).
            add(s_self, t, c, c, zero, 0, L, Opcode::kReduce, 0, 0, last && need_scale);
            continue;
          }
          const int from = partner < P ? partner : proxy;
          add(s_send, t, from, c, 0, buf(r), L, Opcode::kWrite, 0);
          add(s_self, t, c, c, buf(r), 0, L, Opcode::kReduce, 0, 0, last && need_scale);
        }
      }
      plane_len[t] = std::max(plane_len[t], buf(p));  // memory footprint check
    }
  }
};

// The limits that the arguments alone decide, checked before the plan is built (which takes
// time and memory that grow with P^2 and the size): ports against the routing table's one-byte
// entries, and the data every tile must hold against its data memory. O(nodes) and O(1).
void check_limits(const Topology& topo, const CollectiveSpec& spec, Algo a) {
  for (int n = 0; n < topo.num_nodes; ++n)
    if (topo.num_ports[n] > static_cast<int>(kMaxRoutedPorts))
      fail(topo.spec + ": node " + std::to_string(n) + " has " + std::to_string(topo.num_ports[n]) +
           " ports; a routing-table entry is one byte (0xFF: " +
           "unreachable), so a node can route to at most " + std::to_string(kMaxRoutedPorts) +
           " ports; split the switch into a tree of smaller ones");
  // The tile planes hold all flits between them, so the fullest holds at least 1/T of them;
  // the butterfly adds a receive buffer per round, the averaging a zero buffer too.
  const uint64_t flits = spec.bytes / kF + (spec.bytes % kF != 0);
  const uint64_t plane = flits / spec.tiles + (flits % spec.tiles != 0);
  int rounds = 0;
  while ((1 << rounds) < topo.num_chips) ++rounds;
  const uint64_t copies = a == Algo::kButterfly ? 1 + rounds : a == Algo::kAvg ? 2 + rounds : 1;
  const uint64_t have = spec.tile_dmem_bytes / kF;
  if (plane > have / copies) {
    const uint64_t need = plane > UINT64_MAX / kF / copies ? UINT64_MAX : plane * kF * copies;
    fail("the collective needs at least " + std::to_string(need) +
         " bytes of data memory per tile but a tile has " + std::to_string(spec.tile_dmem_bytes) +
         "; use fewer bytes or more tiles");
  }
}

}  // namespace

bool algo_fits(const Topology& topo, const CollectiveSpec& spec, Algo a) {
  try {
    check_limits(topo, spec, a);
  } catch (const CompileError&) {
    return false;
  }
  return true;
}

Plan plan_collective(const Topology& topo, const CollectiveSpec& spec) {
  Plan plan;
  plan.spec = spec;
  plan.chips = topo.num_chips;
  plan.flit_bits = topo.flit_bits;
  plan.topo_channels = topo.bound_channels();
  plan.tiles = spec.tiles;
  const int P = topo.num_chips;
  if (spec.tiles < 1 || spec.tiles > static_cast<int>(kMaxTiles))
    fail("tiles per chip must be 1.." + std::to_string(kMaxTiles));
  if (spec.bytes == 0) fail("--bytes must be at least one element");
  if (spec.bytes % dtype_size(spec.dtype))
    fail("--bytes " + std::to_string(spec.bytes) + " is not a multiple of the " +
         to_string(spec.dtype) + " element size (" + std::to_string(dtype_size(spec.dtype)) +
         " bytes); round it to a whole number of elements");
  if (!valid_pair(spec.dtype, spec.op))
    fail(std::string("op ") + to_string(spec.op) + " is not defined for " + to_string(spec.dtype) +
         (spec.op == RedOp::kAvg
              ? ": avg (averaging patent) is for integer types; use sum on floats"
              : ""));
  if ((spec.coll == Collective::kBroadcast || spec.coll == Collective::kReduce) &&
      (spec.root < 0 || spec.root >= P))
    fail("--root " + std::to_string(spec.root) + " is not a chip of this topology (0.." +
         std::to_string(P - 1) + ")");
  Algo a = spec.algo;
  if (a == Algo::kAuto) {
    // The tuner's pick, with its chunk where the table measured one (docs/compiler.md section 10).
    const AutoPick pick = auto_pick(topo, spec);
    a = pick.algo;
    if (spec.chunk_bytes == 0) plan.spec.chunk_bytes = pick.chunk_bytes;
  }
  plan.algo = a;
  if (spec.coll == Collective::kSgdStep) {
    if (spec.dtype != DType::kFp32 || spec.op != RedOp::kSum)
      fail(
          "the sgd step reduces fp32 gradients with sum (fp32 master weights); use --dtype "
          "fp32 --op sum");
    if (a != Algo::kRing && a != Algo::kBiring && a != Algo::kLadder)
      fail(std::string("--algo ") + to_string(a) +
           " does not run the sgd step; it uses ring, biring or ladder (the default)");
    for (float v : {spec.lr, spec.momentum, spec.weight_decay})
      if (!std::isfinite(v))
        fail("the sgd step's learning rate, momentum and weight decay must be finite numbers");
  }
  if (spec.op == RedOp::kAvg && a != Algo::kAvg)
    fail("op avg runs only with the averaging algorithm (--algo avg or auto)");
  if (a == Algo::kButterfly) {
    if (spec.coll != Collective::kAllReduce)
      fail("--algo butterfly implements allreduce; use ring for other collectives");
    if (P < 2)
      fail("--algo butterfly needs at least 2 chips (" + topo.spec + " has " + std::to_string(P) +
           ")");
  }
  if (a == Algo::kAvg) {
    if (spec.op != RedOp::kAvg) fail("--algo avg needs --op avg");
    if (spec.coll != Collective::kAllReduce && spec.coll != Collective::kReduceScatter)
      fail("op avg is supported for allreduce and reduce_scatter");
  }
  check_limits(topo, spec, a);
  Builder b(topo, plan);
  b.layout();
  if (spec.coll == Collective::kSgdStep) {
    // The optimizer state lives after the plane: the weight shard, then the momentum shard,
    // each as long as the plane's longest block slice (the same addresses on every chip).
    plan.state_base.resize(plan.tiles);
    plan.state_len.resize(plan.tiles);
    for (int t = 0; t < plan.tiles; ++t) {
      uint32_t mx = 0;
      for (int c = 0; c < P; ++c) mx = std::max(mx, b.seg[t][c].second);
      plan.state_base[t] = b.plane_len[t];
      plan.state_len[t] = mx;
    }
  }
  std::vector<const Ring*> rings;
  bool logical = false;
  switch (a) {
    case Algo::kRing:
    case Algo::kBiring:
    case Algo::kLadder: {
      const size_t want = a == Algo::kRing ? 1 : a == Algo::kBiring ? 2 : 4;
      if (a == Algo::kLadder && topo.kind != TopoKind::kLadder)
        fail("--algo ladder needs a ladder:P topology");
      if (topo.rings.size() >= want) {
        // biring on a ladder: ring A both ways (rings 0 and 1).
        for (size_t i = 0; i < want; ++i) rings.push_back(&topo.rings[i]);
      } else if (a == Algo::kRing) {
        logical = true;  // logical ring over chips 0..P-1, routed through the spanning tree
        rings.push_back(nullptr);
      } else {
        fail(std::string("--algo ") + to_string(a) + " needs a topology with " +
             std::to_string(want) + " embedded rings (biring:P or ladder:P); " + topo.spec +
             " has " + std::to_string(topo.rings.size()));
      }
      b.ring_family(rings, logical);
      break;
    }
    case Algo::kLine:
      if (spec.coll != Collective::kAllReduce)
        fail("--algo line is the streaming allreduce baseline; use ring for other collectives");
      b.line();
      break;
    case Algo::kTree:
      if (topo.kind != TopoKind::kTree) fail("--algo tree needs a tree:SPEC topology");
      if (spec.coll != Collective::kAllReduce)
        fail("--algo tree implements allreduce (tree patent); use ring for other collectives");
      b.tree();
      break;
    case Algo::kAvg:
      b.avg();
      break;
    case Algo::kButterfly:
      b.butterfly();
      break;
    case Algo::kAuto:
      break;
  }
  for (int t = 0; t < plan.tiles; ++t)
    if (tile_footprint(plan, t) > spec.tile_dmem_bytes)
      fail("the collective needs " + std::to_string(tile_footprint(plan, t)) +
           " bytes of data memory per tile but a tile has " + std::to_string(spec.tile_dmem_bytes) +
           "; use fewer bytes or more tiles");
  // Tokens are carried as zero-length transfers with step = level base and a marker.
  for (const auto& tk : b.tokens) {
    Transfer x;
    x.step = tk.step_base;
    x.plane = tk.plane;
    x.src = tk.receiver;
    x.dst = tk.sender;
    x.bytes = 0;
    x.popc = Opcode::kWrite;
    plan.transfers.push_back(x);
  }
  return plan;
}

// ---------------------------------------------------------------------------------------------
// Ring planes and the plan's transfers

namespace {

// The slice of block b in tile plane t: layout() lists the slices block-major.
const Slice& block_slice(const Plan& plan, int b, int t) {
  return plan.slices[static_cast<size_t>(b) * plan.tiles + t];
}

}  // namespace

std::vector<Transfer> ring_step(const Plan& plan, int t, int s) {
  const RingPlane& rp = plan.ring_planes.at(t);
  const int n = static_cast<int>(rp.order.size());
  std::vector<Transfer> out;
  out.reserve(n);
  for (int i = 0; i < n; ++i) {
    const Slice& sl = block_slice(plan, rp.order[((i - s - 1) % n + n) % n], t);
    if (sl.len == 0) continue;
    Transfer x;
    x.step = s - rp.s0;
    x.plane = t;
    x.src = rp.order[i];
    x.dst = rp.order[(i + 1) % n];
    x.src_addr = x.dst_addr = sl.addr;
    x.bytes = sl.len;
    x.popc = s < n - 1 ? Opcode::kReduce : Opcode::kWrite;
    x.lane = rp.lane;
    out.push_back(x);
  }
  return out;
}

void for_each_step(const Plan& plan, int t,
                   const std::function<void(const std::vector<Transfer>&)>& f) {
  std::vector<const Transfer*> listed;
  for (const Transfer& x : plan.transfers)
    if (x.plane == t) listed.push_back(&x);
  std::stable_sort(listed.begin(), listed.end(),
                   [](const Transfer* a, const Transfer* b) { return a->step < b->step; });
  const bool ring =
      t < static_cast<int>(plan.ring_planes.size()) && !plan.ring_planes[t].order.empty();
  const int ring_steps = ring ? plan.ring_planes[t].s1 - plan.ring_planes[t].s0 + 1 : 0;
  size_t i = 0;
  int r = 0;
  std::vector<Transfer> group;
  while (i < listed.size() || r < ring_steps) {
    const int step =
        i < listed.size() && (r >= ring_steps || listed[i]->step < r) ? listed[i]->step : r;
    group.clear();
    if (r < ring_steps && r == step) group = ring_step(plan, t, plan.ring_planes[t].s0 + r++);
    for (; i < listed.size() && listed[i]->step == step; ++i) group.push_back(*listed[i]);
    f(group);
  }
}

std::vector<Transfer> plane_transfers(const Plan& plan, int t) {
  std::vector<Transfer> out;
  for_each_step(plan, t,
                [&](const std::vector<Transfer>& g) { out.insert(out.end(), g.begin(), g.end()); });
  return out;
}

uint64_t transfer_count(const Plan& plan) {
  uint64_t n = plan.transfers.size();
  for (int t = 0; t < static_cast<int>(plan.ring_planes.size()); ++t) {
    const RingPlane& rp = plan.ring_planes[t];
    if (rp.order.empty()) continue;
    uint64_t blocks = 0;  // non-empty blocks of the plane: each step sends each one once
    for (const Slice& sl : plan.slices) blocks += sl.tile == t && sl.len;
    n += blocks * (rp.s1 - rp.s0 + 1);
  }
  return n;
}

// ---------------------------------------------------------------------------------------------
// Image building: chunking, ordering, counters, waits, descriptors, routes.

namespace {

struct Op {
  int step, chunk;
  Transfer x;        // bytes == 0: readiness token
  uint32_t cum = 0;  // receiver's counter value once this op has arrived
  int ctr = 0;
};

bool overlaps(uint32_t a0, uint32_t a1, uint32_t b0, uint32_t b1) { return a0 < b1 && b0 < a1; }

// A tiny assembler: instructions with forward references to labels.
class Asm {
 public:
  int label() {
    at_.push_back(-1);
    return static_cast<int>(at_.size()) - 1;
  }
  void bind(int l) { at_[l] = static_cast<int>(code_.size()); }
  void op(Isa o, unsigned rd = 0, unsigned rs1 = 0, unsigned rs2 = 0, unsigned rs3 = 0,
          unsigned rs4 = 0, uint32_t imm = 0) {
    code_.push_back(isa::enc(o, rd, rs1, rs2, rs3, rs4, imm));
  }
  void br(Isa o, unsigned rs1, unsigned rs2, int l) {
    fix_.push_back({code_.size(), l});
    op(o, 0, rs1, rs2);
  }
  std::vector<uint64_t> done() {
    for (auto [pc, l] : fix_) {
      const uint64_t w = code_[pc];
      code_[pc] =
          isa::enc(isa::opc(w), 0, isa::rs1(w), isa::rs2(w), 0, 0, static_cast<uint32_t>(at_[l]));
    }
    return code_;
  }

 private:
  std::vector<uint64_t> code_;
  std::vector<int> at_;
  std::vector<std::pair<size_t, int>> fix_;
};

// Which tiles send on each link of each chip over the whole program. A tile that is the only
// sender on a link of its chip may hold its XB session there while it waits (the descriptor's
// hold bit, docs/tile.md section 4.3): no other tile of the chip ever asks for that link, and
// through traffic does not need the grant, so holding blocks nothing, and a step's first chunk
// skips the XREQ/GRANT round trip (docs/compiler.md section 8.4).
class SoleSenders {
 public:
  SoleSenders(const Plan& plan, const std::vector<std::vector<uint8_t>>& route)
      : plan_(plan), route_(route), senders_(plan.chips) {
    for (int t = 0; t < plan.tiles; ++t) {
      if (is_ring_plane(t)) {  // O(P): each chip sends to its successor alone
        const RingPlane& rp = plan.ring_planes[t];
        for (size_t i = 0; i < rp.order.size(); ++i)
          add(rp.order[i], rp.lane, rp.order[(i + 1) % rp.order.size()], t);
        continue;
      }
      for (const Transfer& x : plane_transfers(plan, t)) add(x.src, x.lane, x.dst, t);
    }
  }
  // x's sending tile is the only sender on x's link of x.src (false for a local transfer), and
  // the tile's next transfer y leaves on the same link: holding the session for a job on
  // another link would cost its XDONE a cycle (none: the program's last).
  bool hold(const Transfer& x, const Transfer* y) const {
    return y && alone(x.src, x.lane, x.dst) &&
           port(y->src, y->lane, y->dst) == port(x.src, x.lane, x.dst);
  }
  // Ring plane t's tile is the only sender on its link on every chip (the chips share its code).
  bool ring_plane(int t) const {
    const RingPlane& rp = plan_.ring_planes[t];
    for (size_t i = 0; i < rp.order.size(); ++i)
      if (!alone(rp.order[i], rp.lane, rp.order[(i + 1) % rp.order.size()])) return false;
    return true;
  }

 private:
  bool is_ring_plane(int t) const {
    return t < static_cast<int>(plan_.ring_planes.size()) && !plan_.ring_planes[t].order.empty();
  }
  int port(int src, int lane, int dst) const {
    return src == dst ? -1 : route_[src][lane * kMaxChips + dst];
  }
  void add(int src, int lane, int dst, int t) {
    const int p = port(src, lane, dst);
    if (p >= 0) senders_[src][p].insert(t);
  }
  bool alone(int src, int lane, int dst) const {
    const int p = port(src, lane, dst);
    if (p < 0) return false;
    const auto it = senders_[src].find(p);
    return it != senders_[src].end() && it->second.size() == 1;
  }

  const Plan& plan_;
  const std::vector<std::vector<uint8_t>>& route_;
  std::vector<std::map<int, std::set<int>>> senders_;  // [chip][port] -> tiles
};

// The ring loop (docs/compiler.md section 8.1, docs/isa.md section 9.2): every chip runs the
// same code; its first block's label and its successor come from tables indexed by its index
// value, its block at step s is order[(pos - s - 1) mod P], and before sending chunk k of step s
// it waits until its predecessor's count covers the same chunk of step s-1. Parameter memory:
// [0,P) label of chip c's block at the first step, (pos - s0 - 1) mod P, plus P * (R - 1);
// [P,2P) successor of chip c; then the block address and the block length in flits by label,
// each table R times over (labels [0, R*P)), so that the label steps down by one each step
// without being reduced modulo P: R = 3 covers the 2P - 2 steps of an allreduce where 8P words
// fit the host's PMEM window, else R = 1 and the loop reduces the label.
void emit_ring_loop(const Plan& plan, int t, uint32_t chunk, bool hold, bool stream,
                    std::vector<uint64_t>& im, std::vector<uint32_t>& pm) {
  const RingPlane& rp = plan.ring_planes[t];
  const int P = static_cast<int>(rp.order.size());
  const uint32_t R = 8u * P <= reg::kTilePmemSize / 4 ? 3 : 1;
  const uint32_t kLabel0 = 0, kNext = P, kAddr = 2 * P, kLen = kAddr + R * P;
  pm.assign(kLen + R * P, 0);
  for (int i = 0; i < P; ++i) {
    pm[kLabel0 + rp.order[i]] = ((i - rp.s0 - 1) % P + P) % P + P * (R - 1);
    pm[kNext + rp.order[i]] = rp.order[(i + 1) % P];
  }
  for (int L = 0; L < P; ++L) {
    const Slice& sl = block_slice(plan, rp.order[L], t);
    for (uint32_t k = 0; k < R; ++k) {
      pm[kAddr + k * P + L] = sl.addr;
      pm[kLen + k * P + L] = sl.len / kF;
    }
  }
  SendDesc d;
  d.tile = t;
  d.lane = rp.lane;
  d.dtype = plan.spec.dtype;
  d.op = plan.spec.op;
  d.sat = plan.spec.sat;
  d.hold = hold;
  d.stream = stream;
  d.popc = Opcode::kReduce;
  const uint32_t reduce = pack_send_imm(d);
  d.popc = Opcode::kWrite;
  const uint32_t write = pack_send_imm(d);
  // Registers: r1 index, r3 successor, r4 flits received before this step (ACC), r5 step, r6
  // label, r7 chunk address, r8 block flits, r9 descriptor, r10 flits left in the block, r11
  // chunk threshold, r12 the block's threshold (ACC + block), r21 the last chunk's bytes;
  // constants r13 P, r14 last step, r15 chunk flits, r17 P-1 (the first Write step), r19 the
  // Write descriptor, r20 chunk bytes, r22 = 16.
  // A short step is bound by the path from a chunk's arrival to its forwarding and by the
  // instructions between one step's last Send and the next step's first: the first step (which
  // waits for nothing) is peeled off, so no chunk asks whether to wait; the descriptor changes
  // once, at step P-1; the label needs no modulo (R = 3); and a block of one chunk goes straight
  // to the last-chunk path. Between the Sends of two one-chunk steps: 14 instructions, 17 cycles
  // (two Lw, and the jump back, a taken branch: docs/isa.md section 9.2).
  Asm a;
  a.op(Isa::kGeti, 1);
  a.op(Isa::kLw, 6, 1, 0, 0, 0, kLabel0);
  a.op(Isa::kLw, 3, 1, 0, 0, 0, kNext);
  a.op(Isa::kLi, 9, 0, 0, 0, 0, rp.s0 < P - 1 ? reduce : write);
  a.op(Isa::kLi, 15, 0, 0, 0, 0, chunk / kF);
  a.op(Isa::kLi, 20, 0, 0, 0, 0, chunk);
  a.op(Isa::kLi, 22, 0, 0, 0, 0, kF);
  const int first_l = a.label(), first_last = a.label(), first_done = a.label(), next = a.label(),
            step = a.label(), chunk_l = a.label(), last = a.label(), after = a.label(),
            label_ok = a.label(), same_desc = a.label(), new_desc = a.label(), multi = a.label(),
            done = a.label();
  // A taken branch costs a cycle more than one that is not (docs/isa.md section 3), so the
  // common paths fall through: a block of one chunk (a streamed chunk is a whole block up to
  // 2048 bytes) goes straight to the last-chunk path, and the descriptor's one change is out of
  // line; whole chunks branch away to their loop and jump back.
  // The first step forwards the chip's own block: no waits, ACC stays 0. It starts before the
  // constants the later steps need are loaded, so that its first Send leaves sooner.
  a.op(Isa::kLw, 7, 6, 0, 0, 0, kAddr);
  a.op(Isa::kLw, 10, 6, 0, 0, 0, kLen);
  a.br(Isa::kBlt, 15, 10, first_l);  // more than one chunk: the whole ones first
  a.bind(first_last);
  a.br(Isa::kBeq, 10, 0, first_done);  // an empty block: nothing to send
  a.op(Isa::kMul, 21, 10, 22);
  a.op(Isa::kSend, 9, 7, 21, 3, 7);
  a.bind(first_done);
  a.op(Isa::kLi, 4);
  a.op(Isa::kLi, 5, 0, 0, 0, 0, rp.s0);
  if (R == 1) a.op(Isa::kLi, 13, 0, 0, 0, 0, P);
  a.op(Isa::kLi, 14, 0, 0, 0, 0, rp.s1);
  a.op(Isa::kLi, 17, 0, 0, 0, 0, P - 1);
  a.op(Isa::kLi, 19, 0, 0, 0, 0, write);
  // The steps' bookkeeping, first entered from the constants above (no jump: the second step's
  // Send must be queued before its first word arrives to stream it, docs/tile.md section 4.5).
  a.bind(next);
  a.op(Isa::kAddi, 5, 5, 0, 0, 0, 1);
  a.op(Isa::kAddi, 6, 6, 0, 0, 0, 0xFFFFFFFFu);  // label - 1
  if (R == 1) {                                  // ... mod P
    a.br(Isa::kBge, 6, 0, label_ok);
    a.op(Isa::kAdd, 6, 6, 13);
  }
  a.bind(label_ok);
  a.br(Isa::kBeq, 5, 17, new_desc);  // step P-1: the Write descriptor
  a.bind(same_desc);
  a.br(Isa::kBlt, 14, 5, done);  // past the last step
  // Every later step: chunk k waits until counter 0 >= ACC + its end.
  a.bind(step);
  a.op(Isa::kLw, 7, 6, 0, 0, 0, kAddr);
  a.op(Isa::kLw, 8, 6, 0, 0, 0, kLen);
  a.op(Isa::kAddi, 10, 8);
  a.op(Isa::kAdd, 12, 4, 8);       // the block's threshold
  a.br(Isa::kBlt, 15, 10, multi);  // more than one chunk
  // A chunk's data are those its predecessor sends in the step before: with streamed Sends the
  // chunk is queued at once with its threshold in CSR 18 (counter 0: the value as it is), and its
  // words leave as they are written; else the loop waits for the whole chunk.
  auto await = [&](unsigned r) {
    if (stream)
      a.op(Isa::kCsrw, 0, r, 0, 0, 0, kCsrStream);
    else
      a.op(Isa::kWait, 0, r, 0);
  };
  a.bind(last);  // the last chunk, up to the block's end (none for an empty block)
  a.br(Isa::kBeq, 10, 0, after);
  a.op(Isa::kMul, 21, 10, 22);
  await(12);
  a.op(Isa::kSend, 9, 7, 21, 3, 7);
  a.bind(after);
  a.op(Isa::kAddi, 4, 12);  // ACC += block
  a.br(Isa::kJmp, 0, 0, next);
  // Everything the predecessor sends has arrived: ACC + its block of the last step (the label
  // of step s1 + 1, which r6 now holds).
  a.bind(done);
  a.op(Isa::kLw, 8, 6, 0, 0, 0, kLen);
  a.op(Isa::kAdd, 12, 4, 8);
  a.op(Isa::kWait, 0, 12, 0);
  a.op(Isa::kEnd);
  // Out of line: the first step's whole chunks, a later step's whole chunks, the descriptor.
  a.bind(first_l);
  a.op(Isa::kSend, 9, 7, 20, 3, 7);
  a.op(Isa::kAdd, 7, 7, 20);
  a.op(Isa::kSub, 10, 10, 15);
  a.br(Isa::kBlt, 15, 10, first_l);
  a.br(Isa::kJmp, 0, 0, first_last);
  a.bind(multi);
  a.op(Isa::kAdd, 11, 4, 15);  // the first chunk's threshold
  a.bind(chunk_l);             // whole chunks while more than one is left
  await(11);
  a.op(Isa::kSend, 9, 7, 20, 3, 7);
  a.op(Isa::kAdd, 7, 7, 20);
  a.op(Isa::kAdd, 11, 11, 15);
  a.op(Isa::kSub, 10, 10, 15);
  a.br(Isa::kBlt, 15, 10, chunk_l);
  a.br(Isa::kJmp, 0, 0, last);
  a.bind(new_desc);
  a.op(Isa::kAddi, 9, 19);  // Write from step P-1 on
  a.br(Isa::kJmp, 0, 0, same_desc);
  im = a.done();
}

}  // namespace

namespace {

// Straight-line code for a tile whose P descriptor lists (pm: P list offsets, then the lists) all
// have the same kinds in the same order: one block of instructions per descriptor, each word that
// is the same on every chip an `Li` (left out where the register already holds it) and each
// word that differs an `Lw` from the chip's own list. Against the interpreter it saves the
// dispatch (the kind's `Lw` and branches, the pointer's `Addi` and the `Jmp`, 5 to 8 cycles per
// descriptor) and most `Lw`s, which bounds a short collective's rounds. A WaitSend that every
// chip may stream (stream_ok: its bytes are written only by the transfer it waits for) becomes
// `Csrw` CSR 18 and a streamed `Send` (docs/compiler.md section 8.3). Returns false (im
// untouched) when the lists differ in shape or the code would exceed kMaxUnrolledWords.
constexpr size_t kMaxUnrolledWords = 128;  // well inside the smallest boards' IMEM (256 words)

// The start of both list programs: r1 = index, CSR 16 = the avg scale, r2 = the chip's list.
void emit_list_prologue(std::vector<uint64_t>& im, uint32_t avg_scale) {
  using isa::enc;
  im.push_back(enc(Isa::kGeti, 1, 0, 0, 0, 0, 0));  // r1 = index
  im.push_back(enc(Isa::kLi, 10, 0, 0, 0, 0, avg_scale));
  im.push_back(enc(Isa::kCsrw, 0, 10, 0, 0, 0, 16));  // avg scale
  im.push_back(enc(Isa::kLw, 2, 1, 0, 0, 0, 0));      // r2 = pmem[index]: the list
}

bool emit_unrolled(const std::vector<uint32_t>& pm, int P, uint32_t avg_scale,
                   const std::vector<std::set<size_t>>* stream_ok, std::vector<uint64_t>& im) {
  using isa::enc;
  // The shape: chip 0's kinds; every other chip must match them.
  std::vector<size_t> at;  // offsets of the descriptors within a list
  for (size_t o = 0;; o += desc_words(pm[pm[0] + o])) {
    at.push_back(o);
    if (pm[pm[0] + o] == kDescEnd) break;
  }
  const size_t len = at.back() + 1;
  for (int c = 1; c < P; ++c)
    for (size_t o : at)
      if (pm[c] + len > pm.size() || pm[pm[c] + o] != pm[pm[0] + o]) return false;
  std::vector<uint64_t> code;
  emit_list_prologue(code, avg_scale);
  std::map<unsigned, uint32_t> held;  // register -> the constant it holds
  auto same_on_every_chip = [&](size_t word) {
    for (int c = 1; c < P; ++c)
      if (pm[pm[c] + word] != pm[pm[0] + word]) return false;
    return true;
  };
  auto set = [&](unsigned reg, uint32_t v) {  // reg = v, unless it holds v already
    if (held.count(reg) && held[reg] == v) return;
    code.push_back(enc(Isa::kLi, reg, 0, 0, 0, 0, v));
    held[reg] = v;
  };
  auto load = [&](unsigned reg, size_t word) {  // reg = word `word` of the list
    if (same_on_every_chip(word)) {
      set(reg, pm[pm[0] + word]);
    } else {
      code.push_back(enc(Isa::kLw, reg, 2, 0, 0, 0, static_cast<uint32_t>(word)));
      held.erase(reg);
    }
  };
  for (size_t o : at) {
    const uint32_t kind = pm[pm[0] + o];
    if (kind == kDescEnd) {
      code.push_back(enc(Isa::kEnd, 0, 0, 0, 0, 0, 0));
    } else if (kind == kDescScale) {
      load(5, o + 1);
      code.push_back(enc(Isa::kCsrw, 0, 5, 0, 0, 0, kCsrAluScale));
    } else {
      const size_t send = kind == kDescWaitSend ? o + 3 : o + 1;
      if (kind != kDescWait)  // the Send's words first: they are ready when the Wait retires
        for (unsigned i = 0; i < 5; ++i) load(5 + i, send + i);
      bool stream = kind == kDescWaitSend && stream_ok;
      for (int ch = 0; ch < P && stream; ++ch) stream = (*stream_ok)[ch].count(o) != 0;
      if (kind != kDescSend) {  // r12 = counter, r13 = value
        load(12, o + 1);
        load(13, o + 2);
      }
      if (stream) {  // CSR 18 = counter << 27 | value
        if (same_on_every_chip(o + 1)) {
          code.push_back(enc(Isa::kAddi, 11, 13, 0, 0, 0, pm[pm[0] + o + 1] << 27));
        } else {
          set(14, 1u << 27);
          code.push_back(enc(Isa::kMul, 11, 12, 14, 0, 0, 0));
          code.push_back(enc(Isa::kAdd, 11, 11, 13, 0, 0, 0));
        }
        code.push_back(enc(Isa::kCsrw, 0, 11, 0, 0, 0, kCsrStream));
      } else if (kind != kDescSend) {
        code.push_back(enc(Isa::kWait, 0, 13, 12, 0, 0, 0));
      }
      if (kind != kDescWait) code.push_back(enc(Isa::kSend, 9, 5, 6, 7, 8, stream ? 1u << 28 : 0));
    }
  }
  if (code.size() > kMaxUnrolledWords) return false;
  im = std::move(code);
  return true;
}

Image build_image_chunked(const Topology& topo, const Plan& plan, uint32_t chunk) {
  const int P = plan.chips, T = plan.tiles;
  const CollectiveSpec& sp = plan.spec;
  Image img;
  img.chunk_bytes = chunk;
  img.avg_scale = plan.avg_scale;
  img.index.resize(P);
  for (int c = 0; c < P; ++c) img.index[c] = c;
  img.imem.resize(T);
  img.pmem.resize(T);

  // Routing tables: spanning-tree routes in every lane, ring hops in their ring's lane; a
  // butterfly whose traffic fits the buffers takes shortest paths in every lane, checked again
  // here with the packets this image cuts (docs/compiler.md section 9).
  std::vector<std::vector<int>> st;
  if (plan.short_routes) {
    st = shortest_path_routes(topo);
    if (route_load_flits(topo, st, plan.transfers, plan.flit_bits, chunk) > kXbXoffThresholdFlits)
      st.clear();
  }
  if (st.empty()) st = spanning_tree_routes(topo);
  img.route.assign(topo.num_nodes, std::vector<uint8_t>(kNumLanes * kMaxChips, 255));
  for (int n = 0; n < topo.num_nodes; ++n)
    for (unsigned l = 0; l < kNumLanes; ++l)
      for (int d = 0; d < P; ++d)
        img.route[n][l * kMaxChips + d] = st[n][d] < 0 ? 255 : static_cast<uint8_t>(st[n][d]);
  if (plan.algo == Algo::kRing || plan.algo == Algo::kBiring || plan.algo == Algo::kLadder) {
    const size_t want = plan.algo == Algo::kRing ? 1 : plan.algo == Algo::kBiring ? 2 : 4;
    for (size_t r = 0; r < want && r < topo.rings.size(); ++r) {
      const Ring& ring = topo.rings[r];
      const size_t n = ring.order.size();
      for (size_t i = 0; i < n; ++i)
        img.route[ring.order[i]][r * kMaxChips + ring.order[(i + 1) % n]] =
            static_cast<uint8_t>(ring.out_port[i]);
    }
  }
  const SoleSenders sole(plan, img.route);

  img.ring_loop.assign(T, false);
  img.unrolled.assign(T, false);
  for (int t = 0; t < T; ++t) {
    if (sp.ring_loops && t < static_cast<int>(plan.ring_planes.size()) &&
        !plan.ring_planes[t].order.empty()) {
      emit_ring_loop(plan, t, chunk, sp.hold_sessions && sole.ring_plane(t), sp.stream_sends,
                     img.imem[t], img.pmem[t]);
      img.ring_loop[t] = true;
      continue;
    }
    // 1. chunk and order per source chip.
    std::vector<std::vector<Op>> prog(P);
    for (const Transfer& x : plane_transfers(plan, t)) {
      if (x.bytes == 0) {
        prog[x.src].push_back(Op{x.step, -1, x});
        continue;
      }
      int k = 0;
      for (uint32_t off = 0; off < x.bytes; off += chunk, ++k) {
        Transfer y = x;
        y.src_addr += off;
        y.dst_addr += off;
        y.bytes = std::min(chunk, x.bytes - off);
        prog[x.src].push_back(Op{x.step, k, y});
      }
    }
    for (auto& v : prog)
      std::stable_sort(v.begin(), v.end(), [](const Op& a, const Op& b) {
        return a.step != b.step ? a.step < b.step : a.chunk < b.chunk;
      });
    // 2. counters: receiver -> sender -> id; cumulative values in sender program order.
    std::vector<std::map<int, int>> ctr_of(P);
    std::vector<std::map<int, uint32_t>> cum(P);  // cum[receiver][sender]
    for (int c = 0; c < P; ++c)
      for (Op& op : prog[c]) {
        auto& m = ctr_of[op.x.dst];
        if (!m.count(c)) {
          const int id = static_cast<int>(m.size());
          if (id >= static_cast<int>(kNumCounters))
            fail("chip " + std::to_string(op.x.dst) + " would receive from more than " +
                 std::to_string(kNumCounters) + " chips in one collective (arrival counters); " +
                 "this topology/algorithm pair is too large for the counter file");
          m[c] = id;
        }
        op.ctr = m[c];
        const uint32_t units = op.x.bytes == 0 ? 1 : op.x.bytes / kF;
        op.cum = (cum[op.x.dst][c] += units);
      }
    // Arrivals per receiver (for dependency lookup).
    struct Arr {
      int step, sender, ctr;
      uint32_t a0, a1, cum;
      bool token;
    };
    std::vector<std::vector<Arr>> arr(P);
    for (int c = 0; c < P; ++c)
      for (const Op& op : prog[c])
        arr[op.x.dst].push_back(Arr{op.step, c, op.ctr, op.x.dst_addr, op.x.dst_addr + op.x.bytes,
                                    op.cum, op.x.bytes == 0});
    // 3. descriptors with waits.
    std::vector<uint32_t>& pm = img.pmem[t];
    pm.assign(P, 0);
    bool has_scale = false, has_wait_send = false;
    // Per chip, the WaitSend descriptors (offsets in its list) whose Send may stream.
    std::vector<std::set<size_t>> stream_ok(P);
    for (int c = 0; c < P; ++c) {
      pm[c] = static_cast<uint32_t>(pm.size());
      size_t last_wait = SIZE_MAX;     // the list's last Wait descriptor, if nothing follows it
      uint32_t csr17 = 0;              // the scale CSR as this list has set it
      bool csr17_known = false;        // (a previous run may have left any value)
      std::map<int, uint32_t> waited;  // ctr -> value already waited for
      std::map<int, uint32_t> streamed_to;  // ctr -> value a streamed Send's completion implies
      auto need = [&](int ctr, uint32_t v) {
        if (waited[ctr] >= v) return;
        waited[ctr] = v;
        last_wait = pm.size();
        pm.insert(pm.end(), {kDescWait, static_cast<uint32_t>(ctr), v});
        ++img.descriptors;
      };
      for (size_t i = 0; i < prog[c].size(); ++i) {
        const Op& op = prog[c][i];
        const Transfer& x = op.x;
        std::map<int, uint32_t> dep;  // ctr -> value
        // The send may stream (docs/compiler.md section 8.3) if every packet that ever writes
        // its bytes, in any step, belongs to the one transfer it waits for.
        bool one_writer = x.bytes != 0;
        const Arr* writer = nullptr;
        uint32_t writer_end = 0, writer_cum = 0;  // the end of its packet counted last
        for (const Arr& a : arr[c]) {
          const bool over = !a.token && overlaps(a.a0, a.a1, x.src_addr, x.src_addr + x.bytes);
          if (over && x.bytes != 0) {
            if (!writer) writer = &a;
            one_writer = one_writer && a.step == writer->step && a.sender == writer->sender;
            if (a.cum >= writer_cum) {
              writer_cum = a.cum;
              writer_end = a.a1;
            }
          }
          if (a.step >= op.step) continue;
          const bool hit = x.bytes == 0 ? !a.token : over;
          if (hit) dep[a.ctr] = std::max(dep[a.ctr], a.cum);
        }
        // A data send into a receiver that owes this chip a readiness token waits for it.
        if (x.bytes) {
          for (const Arr& a : arr[c])
            if (a.token && a.sender == x.dst && a.step <= op.step)
              dep[a.ctr] = std::max(dep[a.ctr], a.cum);
        }
        // What the list had waited for on the one counter, should this send stream (below).
        const uint32_t waited_prev = dep.size() == 1 ? waited[dep.begin()->first] : 0;
        for (auto [ctr, v] : dep) need(ctr, v);
        if (x.scale_add && (!csr17_known || csr17 != x.scale)) {
          // The receive engine reads CSR 17 as it reduces: every earlier arrival into this chip
          // (ScaleAdd with the old scale among them) must be done before it changes.
          for (const Arr& a : arr[c])
            if (a.step < op.step) need(a.ctr, a.cum);
          pm.insert(pm.end(), {kDescScale, x.scale});
          last_wait = SIZE_MAX;
          ++img.descriptors;
          csr17 = x.scale;
          csr17_known = has_scale = true;
        }
        SendDesc d;
        d.tile = t;
        d.lane = x.lane;
        d.popc = x.popc;
        d.dtype = sp.dtype;
        d.op = x.scale_add ? RedOp::kScaleAdd : sp.op;
        d.sat = sp.sat;
        d.ctr = op.ctr;
        d.avg_shift = x.avg_shift;
        d.avg_final = x.avg_final;
        d.hold =
            sp.hold_sessions && sole.hold(x, i + 1 < prog[c].size() ? &prog[c][i + 1].x : nullptr);
        if (last_wait != SIZE_MAX && last_wait + 3 == pm.size()) {  // the Wait just before
          // it releases this Send: one WaitSend descriptor
          pm[last_wait] = kDescWaitSend;
          has_wait_send = true;
          if (one_writer && writer && writer->step < op.step && dep.size() == 1) {
            stream_ok[c].insert(last_wait - pm[c]);
            // A streamed Send does not wait, so a later Send must not count on it having
            // waited (it would be queued before its bytes arrive). The End may, where the job
            // ends at its last packet's tail: once its last word is out, that tail's count is in.
            const auto [ctr, v] = *dep.begin();
            waited[ctr] = waited_prev;
            if (writer_end == x.src_addr + x.bytes)
              streamed_to[ctr] = std::max(streamed_to[ctr], v);
          }
        } else {
          pm.push_back(kDescSend);
          ++img.descriptors;
        }
        pm.insert(pm.end(), {x.src_addr, x.bytes, static_cast<uint32_t>(x.dst), x.dst_addr,
                             pack_send_imm(d)});
        last_wait = SIZE_MAX;
      }
      // Before ending, everything addressed to this chip must have arrived (or been sent on
      // by a streamed Send that ends at its packet's tail: streamed_to).
      for (const Arr& a : arr[c])
        if (a.cum > streamed_to[a.ctr]) need(a.ctr, a.cum);
      pm.push_back(kDescEnd);
    }
    // 4. the program (identical for every chip; the index picks the list): straight-line code
    // where every chip's list has the same shape, else the interpreter.
    using isa::enc;
    std::vector<uint64_t>& im = img.imem[t];
    if (sp.unroll_lists &&
        emit_unrolled(pm, P, plan.avg_scale, sp.stream_sends ? &stream_ok : nullptr, im)) {
      img.unrolled[t] = true;
      continue;
    }
    emit_list_prologue(im, plan.avg_scale);
    im.push_back(enc(Isa::kLi, 4, 0, 0, 0, 0, kDescWait));                          // r4 = 2
    if (has_scale) im.push_back(enc(Isa::kLi, 11, 0, 0, 0, 0, kDescScale));         // r11 = 3
    if (has_wait_send) im.push_back(enc(Isa::kLi, 14, 0, 0, 0, 0, kDescWaitSend));  // r14 = 4
    const uint32_t loop = static_cast<uint32_t>(im.size());
    im.push_back(enc(Isa::kLw, 3, 2, 0, 0, 0, 0));  // r3 = kind
    const size_t beq_end = im.size();
    im.push_back(0);
    size_t beq_wait_send = 0;
    if (has_wait_send) {
      beq_wait_send = im.size();
      im.push_back(0);
    }
    const size_t beq_wait = im.size();
    im.push_back(0);
    size_t beq_scale = 0;
    if (has_scale) {
      beq_scale = im.size();
      im.push_back(0);
    }
    for (unsigned i = 0; i < 5; ++i) im.push_back(enc(Isa::kLw, 5 + i, 2, 0, 0, 0, 1 + i));
    im.push_back(enc(Isa::kSend, 9, 5, 6, 7, 8, 0));
    im.push_back(enc(Isa::kAddi, 2, 2, 0, 0, 0, desc_words(kDescSend)));
    im.push_back(enc(Isa::kJmp, 0, 0, 0, 0, 0, loop));
    const uint32_t wait = static_cast<uint32_t>(im.size());
    im.push_back(enc(Isa::kLw, 5, 2, 0, 0, 0, 1));
    im.push_back(enc(Isa::kLw, 6, 2, 0, 0, 0, 2));
    im.push_back(enc(Isa::kWait, 0, 6, 5, 0, 0, 0));
    im.push_back(enc(Isa::kAddi, 2, 2, 0, 0, 0, desc_words(kDescWait)));
    im.push_back(enc(Isa::kJmp, 0, 0, 0, 0, 0, loop));
    if (has_scale) {  // Scale: CSR 17 = the next word
      im[beq_scale] = enc(Isa::kBeq, 0, 3, 11, 0, 0, static_cast<uint32_t>(im.size()));
      im.push_back(enc(Isa::kLw, 5, 2, 0, 0, 0, 1));
      im.push_back(enc(Isa::kCsrw, 0, 5, 0, 0, 0, kCsrAluScale));
      im.push_back(enc(Isa::kAddi, 2, 2, 0, 0, 0, desc_words(kDescScale)));
      im.push_back(enc(Isa::kJmp, 0, 0, 0, 0, 0, loop));
    }
    if (has_wait_send) {  // WaitSend: the Send's words first, then the Wait, then the Send
      im[beq_wait_send] = enc(Isa::kBeq, 0, 3, 14, 0, 0, static_cast<uint32_t>(im.size()));
      for (unsigned i = 0; i < 5; ++i) im.push_back(enc(Isa::kLw, 5 + i, 2, 0, 0, 0, 3 + i));
      im.push_back(enc(Isa::kLw, 12, 2, 0, 0, 0, 1));
      im.push_back(enc(Isa::kLw, 13, 2, 0, 0, 0, 2));
      im.push_back(enc(Isa::kWait, 0, 13, 12, 0, 0, 0));
      im.push_back(enc(Isa::kSend, 9, 5, 6, 7, 8, 0));
      im.push_back(enc(Isa::kAddi, 2, 2, 0, 0, 0, desc_words(kDescWaitSend)));
      im.push_back(enc(Isa::kJmp, 0, 0, 0, 0, 0, loop));
    }
    const uint32_t end = static_cast<uint32_t>(im.size());
    im.push_back(enc(Isa::kEnd, 0, 0, 0, 0, 0, 0));
    im[beq_end] = enc(Isa::kBeq, 0, 3, 0, 0, 0, end);
    im[beq_wait] = enc(Isa::kBeq, 0, 3, 4, 0, 0, wait);
  }

  return img;
}

}  // namespace

Image build_image(const Topology& topo, const Plan& plan) {
  if (plan.spec.chunk_bytes)
    return build_image_chunked(topo, plan, std::max<uint32_t>(kF, plan.spec.chunk_bytes / kF * kF));
  // Auto chunk: half of one ring segment (plane / P), so every step pipelines over at least
  // two chunks, within [512, kMaxPacketPayloadBytes] to keep the header overhead small; then
  // doubled while a descriptor list would not fit the host's parameter-memory window (the
  // RTL loads through it), trading pipelining for size.
  uint32_t plane_max = 0;
  for (const Slice& s : plan.slices) plane_max = std::max(plane_max, s.addr + s.len);
  uint32_t chunk =
      std::clamp<uint32_t>(plane_max / plan.chips / 2 / kF * kF, 512, kMaxPacketPayloadBytes);
  // The ladder's steps are short (four rings at once): where the 512-byte floor would leave one
  // chunk per step (no pipelining), half a segment is faster despite the headers, down to
  // 128-byte chunks. Measured (make bench): ladder:8 16K 863 -> 683 cycles, ladder:4 8K
  // 391 -> 321, ladder:16 32K 1807 -> 1407; ladder:8 8K 576 -> 493 with 128-byte chunks (and
  // the ring loop of 2026-11-27); ring and biring lose at 256 bytes, so they keep the floor.
  const uint32_t segment = plane_max / plan.chips / kF * kF;
  const bool ring_family =
      plan.algo == Algo::kRing || plan.algo == Algo::kBiring || plan.algo == Algo::kLadder;
  if (plan.algo == Algo::kLadder && chunk >= segment && segment >= 256)
    chunk = (segment / 2 + kF - 1) / kF * kF;
  // A ring step forwards its segment chunk by chunk: cut it into equal chunks rather than full
  // ones and a short remainder, whose own forwarding latency the step would pay again (ring:8
  // 24 KiB: 512 + 256 bytes 3070 cycles, 2 x 384 2862; ladder:8 20 KiB 807 -> 660).
  // The largest block (P need not divide the plane) sets the count, so that no block ends in a
  // chunk of a few flits.
  const uint32_t largest = (plane_max + plan.chips * kF - 1) / (plan.chips * kF) * kF;
  // With streamed Sends a chip forwards a chunk's words as they arrive, so a step no longer
  // waits for a whole chunk and cutting it only adds headers: the whole block, up to one packet
  // (ladder:8 16K 513 -> 501 cycles, 64K 1857 -> 1845; ring:8 64K 7329 -> 7275).
  if (ring_family && plan.spec.ring_loops && plan.spec.stream_sends)
    chunk = std::clamp<uint32_t>(largest, kF, kMaxPacketPayloadBytes);
  if (ring_family && chunk < largest) {
    const uint32_t n = (largest + chunk - 1) / chunk;
    chunk = (largest + n * kF - 1) / (n * kF) * kF;
  }
  for (;;) {
    Image img = build_image_chunked(topo, plan, chunk);
    size_t words = 0;
    for (const auto& pm : img.pmem) words = std::max(words, pm.size());
    if (words <= reg::kTilePmemSize / 4 || chunk >= plane_max) return img;
    chunk *= 2;
  }
}

}  // namespace xf
