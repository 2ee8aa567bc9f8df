// Compiler and reference tests (no SystemC).
//
// Space covered: every collective on every topology kind for P in {2,3,4,5,8,12,16} where the
// kind allows it, plus asymmetric trees; every dtype/op pair on a subset; sizes that divide by
// neither P nor the tile or chunk counts. For each: the plan's transfers stay inside the tile
// memories, no chip needs more than 32 arrival counters, the image is deterministic, and the
// plain reference equals the order-independent exact result (integers, and floats with exact
// sums). Error messages for bad requests are checked. Seed: XF_SEED (default 1), printed.
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <map>
#include <random>
#include <set>
#include <string>
#include <tuple>
#include <vector>

#include "xf/alu.hpp"
#include "xf/checks.hpp"
#include "xf/compiler.hpp"
#include "xf/layout.hpp"
#include "xf/reference.hpp"
#include "xf/tune.hpp"

using namespace xf;

namespace {

uint64_t seed() {
  const char* s = std::getenv("XF_SEED");
  static const uint64_t v = s ? std::strtoull(s, nullptr, 0) : 1;
  return v;
}

std::vector<std::string> topologies() {
  std::vector<std::string> t;
  for (int p : {2, 3, 4, 5, 8, 12, 16}) {
    t.push_back("ring:" + std::to_string(p));
    t.push_back("biring:" + std::to_string(p));
    t.push_back("line:" + std::to_string(p));
    if (p >= 4 && p % 2 == 0) t.push_back("ladder:" + std::to_string(p));
    t.push_back("tree:" + std::to_string(p));
  }
  for (const char* s : {"tree:(2,3)", "tree:((2,2),3,(1,4))", "tree:((1,2),(2,3))",
                        "tree:(4,4,4,4)", "tree:(((2,1),1),5)"})
    t.push_back(s);
  return t;
}

const Collective kColls[] = {Collective::kAllReduce, Collective::kReduceScatter,
                             Collective::kAllGather, Collective::kBroadcast, Collective::kReduce};

void check_plan(const Topology& topo, const CollectiveSpec& spec, const std::string& what) {
  SCOPED_TRACE(what + " seed " + std::to_string(seed()));
  const Plan plan = plan_collective(topo, spec);
  uint64_t count = 0;
  std::set<std::tuple<int, int, int, int>> tokens;  // (plane, step, sender, receiver)
  for (int t = 0; t < plan.tiles; ++t)
    for (const Transfer& x : plane_transfers(plan, t)) {
      ++count;
      // A readiness token is owed once per pair and level (docs/compiler.md section 7).
      if (x.bytes == 0) {
        ASSERT_TRUE(tokens.insert({t, x.step, x.src, x.dst}).second)
            << "token " << x.src << " -> " << x.dst << " at step " << x.step << " twice";
      }
      ASSERT_EQ(x.plane, t);
      ASSERT_EQ(x.src_addr % kFlitBytes, 0u);
      ASSERT_EQ(x.dst_addr % kFlitBytes, 0u);
      ASSERT_EQ(x.bytes % kFlitBytes, 0u);
      ASSERT_LE(x.src_addr + x.bytes, tile_footprint(plan, x.plane));
      ASSERT_LE(x.dst_addr + x.bytes, tile_footprint(plan, x.plane));
      ASSERT_TRUE(x.src >= 0 && x.src < topo.num_chips && x.dst >= 0 && x.dst < topo.num_chips);
    }
  ASSERT_EQ(count, transfer_count(plan));
  const Image a = build_image(topo, plan), b = build_image(topo, plan);
  ASSERT_EQ(a.imem, b.imem);
  ASSERT_EQ(a.pmem, b.pmem);
  ASSERT_EQ(a.route, b.route);
  // One program per tile position, the same on every chip; the index value picks the list.
  ASSERT_EQ(a.imem.size(), static_cast<size_t>(spec.tiles));
  const auto in = make_inputs(plan, seed(), 1);
  const auto ref = run_reference(plan, in);
  const auto ex = exact_result(plan, in);
  ASSERT_EQ(ref.size(), ex.size());
  for (size_t c = 0; c < ref.size(); ++c) ASSERT_EQ(ref[c], ex[c]) << "chip " << c;
}

}  // namespace

TEST(Compiler, EveryCollectiveOnEveryTopology) {
  std::printf("seed %llu\n", static_cast<unsigned long long>(seed()));
  int k = 0;
  for (const std::string& ts : topologies()) {
    const Topology topo = parse_topology(ts);
    for (Collective c : kColls) {
      CollectiveSpec s;
      s.coll = c;
      s.dtype = static_cast<DType>(k % kDTypeCount);
      s.op = static_cast<RedOp>(k % 3);
      s.bytes = dtype_size(s.dtype) * (997 + 13 * k);  // divides by nothing in particular
      s.root = k % topo.num_chips;
      s.chunk_bytes = 1024;
      check_plan(topo, s, ts + " " + to_string(c));
      ++k;
    }
  }
}

TEST(Compiler, EveryTypeAndOp) {
  for (const char* ts : {"ring:5", "ladder:8", "tree:((2,2),3,(1,4))", "line:3"}) {
    const Topology topo = parse_topology(ts);
    for (unsigned d = 0; d < kDTypeCount; ++d)
      for (RedOp op : {RedOp::kSum, RedOp::kMax, RedOp::kMin}) {
        CollectiveSpec s;
        s.dtype = static_cast<DType>(d);
        s.op = op;
        s.bytes = dtype_size(s.dtype) * 1234;
        check_plan(topo, s, std::string(ts) + " " + to_string(s.dtype) + " " + to_string(op));
      }
  }
}

TEST(Compiler, ForcedAlgorithms) {
  // Baselines on topologies that support them: ring and biring on a ladder, line anywhere.
  const Topology lad = parse_topology("ladder:8");
  for (Algo a : {Algo::kRing, Algo::kBiring, Algo::kLadder, Algo::kLine}) {
    CollectiveSpec s;
    s.algo = a;
    s.bytes = 4 * 3000;
    check_plan(lad, s, std::string("ladder:8 algo ") + to_string(a));
    EXPECT_EQ(plan_collective(lad, s).algo, a);
  }
}

// The butterfly's placement (docs/algorithms.md section 10): the longest route of each round,
// in hops along the plan's routing tables. On a ring the spanning tree is a path cut between
// chips 4 and 5; placed along it, the rounds' partners are 1, 2, 4, ... hops apart, in some
// order of the rounds (chip ids in order: 7, 6 and 4 on ring:8). On ladder:8 the three rounds'
// longest routes (5, 3 and 2 with chip ids) get shorter. With shortest-path routes (a plan whose
// traffic fits the buffers, compiler.md section 9) the ring's rounds are 1, 2 and 2 hops: the
// last round's pairs are opposite on the 8-ring, 4 hops apart both ways round, and placed so
// that each pair is two apart.
TEST(Compiler, ButterflyPartnersAreFewHopsApart) {
  auto longest = [](const char* ts, uint32_t bytes) {
    const Topology topo = parse_topology(ts);
    CollectiveSpec s;
    s.algo = Algo::kButterfly;
    s.bytes = bytes;
    s.tiles = 1;
    const Plan plan = plan_collective(topo, s);
    const auto st = plan.short_routes ? shortest_path_routes(topo) : spanning_tree_routes(topo);
    std::map<int, int> per_step;  // step -> longest route of its chip-to-chip Writes
    for (const Transfer& x : plan.transfers) {
      if (x.src == x.dst) continue;
      int hops = 0;
      for (int n = x.src; n != x.dst; ++hops) n = topo.peer(n, st[n][x.dst]).first;
      per_step[x.step] = std::max(per_step[x.step], hops);
    }
    std::vector<int> out;
    for (auto [step, hops] : per_step) out.push_back(hops);
    std::sort(out.begin(), out.end());
    return out;
  };
  // 64 KiB per chip fills the buffers: the spanning tree.
  EXPECT_EQ(longest("ring:8", 65536), (std::vector<int>{1, 2, 4}));
  EXPECT_EQ(longest("ring:16", 65536), (std::vector<int>{1, 2, 4, 8}));
  const std::vector<int> lad = longest("ladder:8", 65536);
  ASSERT_EQ(lad.size(), 3u);
  EXPECT_LT(lad[0] + lad[1] + lad[2], 5 + 3 + 2);
  // 8 bytes: shortest paths.
  EXPECT_EQ(longest("ring:8", 8), (std::vector<int>{1, 2, 2}));
  const std::vector<int> lad8 = longest("ladder:8", 8);
  ASSERT_EQ(lad8.size(), 3u);
  EXPECT_LE(lad8[2], 2);
}

// Shortest-path routes (docs/compiler.md section 9): the butterfly takes them exactly when no
// link direction carries more than XbXoffThresholdFlits flits over the whole collective
// (route_load_flits, checked here against a count of its own), and the image's routing tables
// then follow them in every lane; otherwise the spanning tree's.
TEST(Compiler, ShortRoutesOnlyWhereTheTrafficFitsTheBuffers) {
  for (const char* ts : {"ring:8", "ladder:8", "biring:6", "ring:5", "tree:((2,2),(2,2))"})
    for (const uint32_t bytes : {8u, 64u, 256u, 1024u, 65536u})
      for (const int tiles : {1, 4}) {
        SCOPED_TRACE(std::string(ts) + " " + std::to_string(bytes) + " bytes, " +
                     std::to_string(tiles) + " tiles");
        const Topology topo = parse_topology(ts);
        CollectiveSpec s;
        s.algo = Algo::kButterfly;
        s.bytes = bytes;
        s.tiles = tiles;
        const Plan plan = plan_collective(topo, s);
        const auto sp = shortest_path_routes(topo);
        // The most flits on one link direction, counted hop by hop with the image's packets.
        const Image img = build_image(topo, plan);
        std::map<std::pair<int, int>, uint64_t> load;
        uint64_t most = 0;
        for (const Transfer& x : plan.transfers) {
          if (x.src == x.dst) continue;
          const uint64_t pk = std::min<uint32_t>(img.chunk_bytes, kMaxPacketPayloadBytes);
          const uint64_t packets = x.bytes == 0 ? 1 : (x.bytes + pk - 1) / pk;
          const uint64_t flits = packets + x.bytes / 16;  // 128-bit flits: a one-flit header
          for (int n = x.src; n != x.dst; n = topo.peer(n, sp[n][x.dst]).first)
            most = std::max(most, load[{n, sp[n][x.dst]}] += flits);
        }
        EXPECT_EQ(route_load_flits(topo, sp, plan.transfers, 128, img.chunk_bytes), most);
        const bool fits = most <= kXbXoffThresholdFlits;
        EXPECT_EQ(plan.short_routes, fits) << most << " flits";
        const auto want = fits ? sp : spanning_tree_routes(topo);
        for (int n = 0; n < topo.num_nodes; ++n)
          for (unsigned lane = 0; lane < kNumLanes; ++lane)
            for (int d = 0; d < topo.num_chips; ++d)
              ASSERT_EQ(img.route[n][lane * kMaxChips + d], want[n][d] < 0 ? 255 : want[n][d])
                  << "node " << n << " lane " << lane << " chip " << d;
      }
  // The small cases are the ones it is for.
  CollectiveSpec s;
  s.algo = Algo::kButterfly;
  s.bytes = 8;
  EXPECT_TRUE(plan_collective(parse_topology("ladder:8"), s).short_routes);
  s.bytes = 65536;
  EXPECT_FALSE(plan_collective(parse_topology("ladder:8"), s).short_routes);
  s.algo = Algo::kRing;
  s.bytes = 8;
  EXPECT_FALSE(plan_collective(parse_topology("ladder:8"), s).short_routes);
}

TEST(Compiler, ButterflyForSmallSumsOnPowerOfTwoMachines) {
  // The butterfly on every power-of-two machine kind, every dtype with sum (the reference then
  // checks the result is exact and every chip's bits are identical), and forced for max.
  for (const char* ts : {"ring:4", "biring:8", "ladder:8", "line:4", "tree:((2,2),(2,2))",
                         "ring:16", "tree:(1,3)"}) {
    const Topology topo = parse_topology(ts);
    for (DType dt : {DType::kInt8, DType::kInt32, DType::kFp16, DType::kBf16, DType::kFp32}) {
      CollectiveSpec s;
      s.dtype = dt;
      s.bytes = dtype_size(dt) * 40;
      check_plan(topo, s, std::string(ts) + " auto " + to_string(dt));
      EXPECT_EQ(plan_collective(topo, s).algo, Algo::kButterfly) << ts;
    }
    CollectiveSpec s;
    s.algo = Algo::kButterfly;
    s.op = RedOp::kMax;
    s.dtype = DType::kInt16;
    s.bytes = 2 * 3000;
    s.tiles = 3;
    check_plan(topo, s, std::string(ts) + " butterfly int16 max, 3 tiles");
  }
  // Off powers of two: the chips above the largest power of two Q fold into chip e - Q first and
  // get the result back last; every dtype, sum and (forced) max, several tile counts.
  for (const char* ts : {"ring:3", "ring:6", "ladder:6", "tree:((2,2),3,(1,4))", "biring:5"})
    for (DType dt : {DType::kInt8, DType::kFp16, DType::kFp32}) {
      CollectiveSpec s;
      s.algo = Algo::kButterfly;
      s.dtype = dt;
      s.bytes = dtype_size(dt) * 1000;
      s.tiles = 3;
      check_plan(parse_topology(ts), s, std::string(ts) + " butterfly " + to_string(dt));
      s.op = RedOp::kMax;
      s.tiles = 2;
      check_plan(parse_topology(ts), s, std::string(ts) + " butterfly max " + to_string(dt));
    }
  // Auto keeps the ring family above the crossover (the tuner's: on ladder:8 the butterfly is
  // as fast up to 512 bytes), for max and min, and off powers of two.
  CollectiveSpec s;
  s.bytes = kButterflyMaxBytes;
  EXPECT_EQ(plan_collective(parse_topology("ladder:8"), s).algo, Algo::kButterfly);
  s.bytes = 1024;
  EXPECT_EQ(plan_collective(parse_topology("ladder:8"), s).algo, Algo::kLadder);
  s.bytes = 64;
  s.op = RedOp::kMax;
  EXPECT_EQ(plan_collective(parse_topology("ring:8"), s).algo, Algo::kRing);
  s.op = RedOp::kSum;
  // Off powers of two the butterfly folds the extra chips in (the table of ring:8 predicts it)
  EXPECT_EQ(plan_collective(parse_topology("ring:6"), s).algo, Algo::kButterfly);
  EXPECT_EQ(plan_collective(parse_topology("ring:2"), s).algo, Algo::kRing);
  s.coll = Collective::kReduceScatter;
  EXPECT_EQ(plan_collective(parse_topology("ring:8"), s).algo, Algo::kRing);
}

// The committed tuner's table (sw/lib/tune_table.cpp): well formed, and at every tuned topology
// and size the automatic choice is the fastest measured algorithm, with the measured chunk.
TEST(Compiler, AutoPicksTheFastestTunedAlgorithm) {
  const std::vector<TunePoint>& table = tune_table();
  ASSERT_FALSE(table.empty()) << "sw/lib/tune_table.cpp is empty: run make tune";
  std::map<std::pair<std::string, uint64_t>, std::vector<const TunePoint*>> at;
  for (const TunePoint& p : table) {
    EXPECT_GT(p.cycles, 0u);
    EXPECT_NO_THROW(parse_topology(p.topology)) << p.topology;
    at[{p.topology, p.bytes}].push_back(&p);
  }
  for (const auto& [key, pts] : at) {
    const Topology topo = parse_topology(key.first);
    CollectiveSpec s;
    s.bytes = key.second;
    uint64_t best = UINT64_MAX;
    for (const TunePoint* p : pts) best = std::min(best, p->cycles);
    const AutoPick pick = auto_pick(topo, s);
    EXPECT_EQ(pick.tuned, key.first);
    EXPECT_EQ(pick.predicted_cycles, static_cast<double>(best)) << key.first << " " << key.second;
    const Plan plan = plan_collective(topo, s);
    EXPECT_EQ(plan.algo, pick.algo);
    for (const TunePoint* p : pts)
      if (p->algo == pick.algo) {
        EXPECT_EQ(p->cycles, best) << key.first << " " << key.second << " " << to_string(p->algo);
        EXPECT_EQ(plan.spec.chunk_bytes, p->chunk_bytes);
      }
  }
}

// auto_pick on a table of its own: measured points, interpolation between sizes, proportional
// above the largest, an algorithm that stops before the largest size (no longer fits), the
// nearest tuned machine of the same kind, the flit width scaling, chunks only where measured,
// the butterfly only for sums on powers of two, the rule where the table has nothing.
TEST(Compiler, AutoPickFromATable) {
  const std::vector<TunePoint> table = {{"ring:8", Algo::kRing, 0, 1024, 1000},
                                        {"ring:8", Algo::kRing, 0, 2048, 1500},
                                        {"ring:8", Algo::kLine, 0, 1024, 1100},
                                        {"ring:8", Algo::kLine, 2048, 2048, 1450},
                                        {"ring:8", Algo::kButterfly, 0, 1024, 900}};
  const Topology r8 = parse_topology("ring:8");
  CollectiveSpec s;
  auto pick = [&](const Topology& t) { return auto_pick(t, s, table); };
  s.bytes = 512;  // below the table: its smallest size
  EXPECT_EQ(pick(r8).algo, Algo::kButterfly);
  s.bytes = 1024;
  EXPECT_EQ(pick(r8).algo, Algo::kButterfly);
  EXPECT_EQ(pick(r8).predicted_cycles, 900);
  EXPECT_EQ(pick(r8).tuned, "ring:8");
  s.bytes = 1536;  // the butterfly stops at 1K; ring 1250 against line 1275
  EXPECT_EQ(pick(r8).algo, Algo::kRing);
  EXPECT_EQ(pick(r8).predicted_cycles, 1250);
  EXPECT_EQ(pick(r8).chunk_bytes, 0u);
  s.bytes = 2048;
  EXPECT_EQ(pick(r8).algo, Algo::kLine);
  EXPECT_EQ(pick(r8).chunk_bytes, 2048u);
  s.bytes = 4096;  // above: proportional, 3000 against 2900
  EXPECT_EQ(pick(r8).algo, Algo::kLine);
  EXPECT_EQ(pick(r8).chunk_bytes, 0u);
  s.bytes = 2048;  // the nearest ring: the same algorithm, the automatic chunk
  const AutoPick p16 = pick(parse_topology("ring:16"));
  EXPECT_EQ(p16.algo, Algo::kLine);
  EXPECT_EQ(p16.chunk_bytes, 0u);
  EXPECT_EQ(p16.tuned, "ring:8");
  Topology w64 = r8;  // 1 KiB at 64-bit flits behaves as 2 KiB at 128
  set_flit_bits(w64, 64);
  s.bytes = 1024;
  EXPECT_EQ(pick(w64).algo, Algo::kLine);
  EXPECT_EQ(pick(w64).chunk_bytes, 0u);
  s.bytes = 512;
  EXPECT_EQ(pick(w64).algo, Algo::kButterfly);
  s.bytes = 1024;
  s.op = RedOp::kMax;  // no butterfly for max: ring 1000 against line 1100
  EXPECT_EQ(pick(r8).algo, Algo::kRing);
  s.op = RedOp::kSum;
  EXPECT_EQ(pick(parse_topology("ring:6")).algo, Algo::kButterfly);  // virtual partners
  EXPECT_EQ(pick(parse_topology("ring:2")).algo, Algo::kRing);       // nor on 2
  const AutoPick bi = pick(parse_topology("biring:8"));  // no biring in the table: the rule
  EXPECT_EQ(bi.algo, Algo::kBiring);
  EXPECT_TRUE(bi.tuned.empty());
  s.coll = Collective::kReduceScatter;
  EXPECT_EQ(pick(r8).algo, Algo::kRing);
  EXPECT_TRUE(pick(r8).tuned.empty());
}

TEST(Compiler, LadderUsesFourRingsOnDistinctLinks) {
  const Topology topo = parse_topology("ladder:8");
  CollectiveSpec s;
  s.bytes = 1 << 16;
  const Plan plan = plan_collective(topo, s);
  const Image img = build_image(topo, plan);
  // Each tile plane t sends only to its ring-t successor, on lane t, through a distinct port.
  for (int t = 0; t < 4; ++t)
    for (const Transfer& x : plane_transfers(plan, t)) {
      EXPECT_EQ(x.lane, t);
      const Ring& r = topo.rings[t];
      size_t i = 0;
      while (r.order[i] != x.src) ++i;
      EXPECT_EQ(r.order[(i + 1) % r.order.size()], x.dst);
      EXPECT_EQ(img.route[x.src][t * kMaxChips + x.dst], r.out_port[i]);
    }
}

TEST(Compiler, ReductionOrderIsFixedAndDeterministic) {
  // Random full-range floats: the order matters, so two runs of the reference must agree bit
  // for bit and every chip's allreduce result must be identical.
  for (const char* ts : {"ring:7", "ladder:10", "tree:((2,2),3,(1,4))", "line:5"}) {
    const Topology topo = parse_topology(ts);
    CollectiveSpec s;
    s.dtype = DType::kFp32;
    s.bytes = 4 * 4099;
    const Plan plan = plan_collective(topo, s);
    const auto in = make_inputs(plan, seed() + 7, 0);
    const auto r1 = run_reference(plan, in), r2 = run_reference(plan, in);
    EXPECT_EQ(r1, r2) << ts;
    for (size_t c = 1; c < r1.size(); ++c) EXPECT_EQ(r1[c], r1[0]) << ts << " chip " << c;
  }
}

TEST(Compiler, AveragingErrorBound) {
  // Averaging patent: pairwise averages with floor; error in (-(p/2 * 2^p/P + 1), 0] LSB.
  for (int p : {2, 3, 4, 5, 6, 7, 8, 12, 16, 33}) {
    for (DType d : {DType::kInt8, DType::kUint8, DType::kInt16, DType::kInt32}) {
      const Topology topo = parse_topology("ring:" + std::to_string(p));
      CollectiveSpec s;
      s.dtype = d;
      s.op = RedOp::kAvg;
      s.bytes = dtype_size(d) * 2000;
      const Plan plan = plan_collective(topo, s);
      const auto in = make_inputs(plan, seed(), 0);
      const auto out = run_reference(plan, in);
      const Check k = check_outputs(plan, in, out);
      // Floors at each of the lv levels (-1/2 each, scaled by 2^lv/P), the final floor (-1) and
      // the floored scale factor (|A| * 2^-31 with |A| <= P/2^lv * max|x|).
      int lv = 0;
      while ((1 << lv) < p) ++lv;
      const double amax = d == DType::kInt32 ? 2147483648.0 : d == DType::kInt16 ? 32768.0 : 256.0;
      const double bound = lv / 2.0 * (1 << lv) / p + 1.0 + (p * amax / (1 << lv)) / 2147483648.0 +
                           1e-9;  // attained: see docs
      EXPECT_EQ(k.wrong, 0u);
      EXPECT_EQ(k.not_identical, 0u);
      EXPECT_LE(k.avg_max_err, bound) << "P=" << p << " " << to_string(d);
      std::printf("avg P=%-3d %-5s max error %.3f LSB (bound %.3f)\n", p, to_string(d),
                  k.avg_max_err, bound);
    }
  }
}

TEST(Compiler, ClearErrors) {
  const Topology ring = parse_topology("ring:4");
  auto msg = [&](const Topology& t, CollectiveSpec s) -> std::string {
    try {
      plan_collective(t, s);
    } catch (const CompileError& e) {
      return e.what();
    }
    return "";
  };
  CollectiveSpec s;
  s.bytes = 4097;
  EXPECT_NE(msg(ring, s).find("not a multiple"), std::string::npos);
  s.bytes = 0;
  EXPECT_NE(msg(ring, s).find("at least one element"), std::string::npos);
  s.bytes = 4096;
  s.op = RedOp::kAvg;
  EXPECT_NE(msg(ring, s).find("integer"), std::string::npos);
  s.op = RedOp::kSum;
  s.algo = Algo::kLadder;
  EXPECT_NE(msg(ring, s).find("ladder"), std::string::npos);
  s.algo = Algo::kTree;
  EXPECT_NE(msg(ring, s).find("tree"), std::string::npos);
  s.algo = Algo::kButterfly;
  EXPECT_EQ(msg(parse_topology("ring:6"), s), "");  // the extra chips fold in
  s.coll = Collective::kAllGather;
  EXPECT_NE(msg(ring, s).find("implements allreduce"), std::string::npos);
  s.coll = Collective::kAllReduce;
  EXPECT_THROW(parse_algo("bfly"), CompileError);
  EXPECT_EQ(parse_algo("Butterfly"), Algo::kButterfly);
  s.algo = Algo::kAuto;
  s.coll = Collective::kBroadcast;
  s.root = 9;
  EXPECT_NE(msg(ring, s).find("root"), std::string::npos);
  s.coll = Collective::kAllReduce;
  s.bytes = 64u << 20;
  EXPECT_NE(msg(ring, s).find("data memory"), std::string::npos);
  EXPECT_THROW(parse_dtype("fp64"), CompileError);
  EXPECT_THROW(parse_op("prod"), CompileError);
  EXPECT_THROW(parse_collective("alltoall"), CompileError);
}

// Limits that the arguments decide are checked before the plan is built: a ring of 4096 chips at
// 1 GiB (33.5 million transfers if planned) and 4 GiB on 16 tiles fail at once, with the late
// check's message; the late check still agrees where the plan fits; a node with more ports than a
// one-byte routing-table entry can name is refused; the early bound is never above the footprint.
TEST(Compiler, LimitsBeforePlanning) {
  auto msg = [](const std::string& topo, CollectiveSpec s) -> std::string {
    try {
      plan_collective(parse_topology(topo), s);
    } catch (const CompileError& e) {
      return e.what();
    }
    return "";
  };
  CollectiveSpec s;
  for (uint64_t bytes : {1ull << 30, 4ull << 30, ~0ull & ~uint64_t{15}}) {
    s.bytes = bytes;
    s.tiles = bytes == (4ull << 30) ? 16 : 4;
    const auto t0 = std::chrono::steady_clock::now();
    const std::string m = msg("ring:4096", s);
    const double secs =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    EXPECT_NE(m.find("needs at least"), std::string::npos) << m;
    EXPECT_NE(m.find("bytes of data memory per tile but a tile has 786432"), std::string::npos)
        << m;
    EXPECT_LT(secs, 1.0) << bytes;
  }
  s = CollectiveSpec{};
  s.tiles = 1;
  s.bytes = 768u << 10;  // exactly one tile's memory: fits
  EXPECT_EQ(msg("ring:4", s), "");
  s.bytes += 16;
  EXPECT_NE(msg("ring:4", s).find("needs at least 786448 bytes"), std::string::npos);
  s.bytes = 256;  // butterfly: the data and log2(8) = 3 receive buffers
  s.tile_dmem_bytes = 256 * 4 - 16;
  s.algo = Algo::kButterfly;
  EXPECT_NE(msg("ring:8", s).find("needs at least 1024 bytes"), std::string::npos)
      << msg("ring:8", s);
  s.algo = Algo::kAuto;  // auto leaves out what does not fit: the ring
  EXPECT_EQ(msg("ring:8", s), "");
  EXPECT_EQ(plan_collective(parse_topology("ring:8"), s).algo, Algo::kRing);
  s.tile_dmem_bytes += 16;
  EXPECT_EQ(msg("ring:8", s), "");
  EXPECT_EQ(plan_collective(parse_topology("ring:8"), s).algo, Algo::kButterfly);
  s = CollectiveSpec{};
  s.bytes = 64;
  EXPECT_EQ(msg("tree:255", s), "");
  const std::string wide = msg("tree:256", s);
  EXPECT_NE(wide.find("node 256 has 256 ports"), std::string::npos) << wide;
  EXPECT_NE(wide.find("at most 255 ports"), std::string::npos) << wide;
  // Where the plan fits, the early bound is at most the footprint the late check measures.
  for (const char* topo : {"ring:5", "ladder:8", "tree:((2,2),3,(1,4))", "biring:3"})
    for (uint64_t bytes : {16ull, 4000ull, 48ull << 10})
      for (int tiles : {1, 3, 16}) {
        CollectiveSpec f;
        f.bytes = bytes;
        f.tiles = tiles;
        const Plan plan = plan_collective(parse_topology(topo), f);
        uint32_t foot = 0;
        for (int t = 0; t < tiles; ++t) foot = std::max(foot, tile_footprint(plan, t));
        f.tile_dmem_bytes = foot;
        EXPECT_EQ(msg(topo, f), "") << topo << " " << bytes << " " << tiles;
      }
}

// A ring-family plan is O(P): its ring planes are generated, not listed (docs/compiler.md
// section 3), and what they generate is what a listed plane holds: every step moves each
// non-empty block once, to the ring successor, with reduce before step P-1 and write after.
TEST(Compiler, RingPlanesAreGeneratedInLinearSpace) {
  for (const char* ts : {"ring:4096", "ladder:1024", "biring:2048"}) {
    SCOPED_TRACE(ts);
    const Topology topo = parse_topology(ts);
    CollectiveSpec s;
    s.bytes = 1 << 20;
    const Plan plan = plan_collective(topo, s);
    const uint64_t P = topo.num_chips;
    EXPECT_TRUE(plan.transfers.empty());
    EXPECT_EQ(transfer_count(plan), 2 * (P - 1) * P * plan.tiles);
  }
  for (const char* ts : {"ring:6", "ladder:6", "biring:5"})
    for (Collective c :
         {Collective::kAllReduce, Collective::kReduceScatter, Collective::kAllGather}) {
      SCOPED_TRACE(std::string(ts) + " " + to_string(c));
      const Topology topo = parse_topology(ts);
      CollectiveSpec s;
      s.coll = c;
      s.bytes = 5 * 1024 + 48;  // some blocks one flit longer than others
      s.tiles = 3;
      const Plan plan = plan_collective(topo, s);
      const int P = topo.num_chips;
      for (int t = 0; t < plan.tiles; ++t) {
        const RingPlane& rp = plan.ring_planes.at(t);
        ASSERT_EQ(rp.order.size(), static_cast<size_t>(P));
        std::vector<int> pos(P);
        for (int i = 0; i < P; ++i) pos[rp.order[i]] = i;
        std::map<std::pair<int, int>, int> sent;  // (step, src) -> times
        int steps = 0;
        for_each_step(plan, t, [&](const std::vector<Transfer>& g) {
          ASSERT_FALSE(g.empty());
          const int s0 = g[0].step;
          EXPECT_EQ(s0, steps++);
          for (const Transfer& x : g) {
            EXPECT_EQ(x.step, s0);
            EXPECT_EQ(x.dst, rp.order[(pos[x.src] + 1) % P]);
            EXPECT_EQ(x.popc, rp.s0 + s0 < P - 1 ? Opcode::kReduce : Opcode::kWrite);
            EXPECT_EQ(++sent[std::make_pair(s0, x.src)], 1);
          }
        });
        EXPECT_EQ(steps, rp.s1 - rp.s0 + 1);
      }
    }
}

TEST(Isa, EncodeDecodeRoundTrip) {
  const uint64_t w = isa::enc(Isa::kSend, 9, 5, 6, 7, 8, 0xDEADBEEF);
  EXPECT_EQ(isa::opc(w), Isa::kSend);
  EXPECT_EQ(isa::rd(w), 9u);
  EXPECT_EQ(isa::rs1(w), 5u);
  EXPECT_EQ(isa::rs2(w), 6u);
  EXPECT_EQ(isa::rs3(w), 7u);
  EXPECT_EQ(isa::rs4(w), 8u);
  EXPECT_EQ(isa::imm(w), 0xDEADBEEFu);
  SendDesc d;
  d.tile = 13;
  d.lane = 3;
  d.popc = Opcode::kReduce;
  d.dtype = DType::kBf16;
  d.op = RedOp::kMin;
  d.sat = true;
  d.ctr = 31;
  d.avg_shift = 9;
  d.avg_final = true;
  d.hold = true;
  const SendDesc e = unpack_send_imm(pack_send_imm(d));
  EXPECT_EQ(pack_send_imm(d) >> 27, 1u) << "hold is bit 27, bits 31:28 stay 0";
  EXPECT_EQ(e.tile, 13u);
  EXPECT_EQ(e.lane, 3u);
  EXPECT_EQ(e.popc, Opcode::kReduce);
  EXPECT_EQ(e.dtype, DType::kBf16);
  EXPECT_EQ(e.op, RedOp::kMin);
  EXPECT_TRUE(e.sat);
  EXPECT_EQ(e.ctr, 31u);
  EXPECT_EQ(e.avg_shift, 9u);
  EXPECT_TRUE(e.avg_final);
  EXPECT_TRUE(e.hold);
}

namespace {

// A random tree spec with at most `budget` leaves: nested lists of small counts.
std::string random_tree(std::mt19937_64& rng, int depth, int& budget) {
  if (depth == 0 || budget <= 3 || rng() % 3 == 0) {
    const int k = 1 + static_cast<int>(rng() % std::min(4, budget));
    budget -= k;
    return std::to_string(k);
  }
  const int kids = 1 + static_cast<int>(rng() % 3);
  std::string s = "(";
  for (int i = 0; i < kids && budget > 0; ++i) {
    if (i) s += ",";
    s += random_tree(rng, depth - 1, budget);
  }
  return s + ")";
}

}  // namespace

// Unrolled lists (docs/compiler.md section 8.3): the butterfly on a power of two runs
// straight-line code with no branch, the same on every chip; off a power of two the lists differ
// in shape and the interpreter runs them; forced off, the interpreter everywhere.
TEST(Compiler, UnrolledListsWhereEveryChipHasTheSameShape) {
  for (const char* t : {"ladder:8", "ring:8", "tree:((2,2),(2,2))", "ring:5"}) {
    SCOPED_TRACE(t);
    const Topology topo = parse_topology(t);
    CollectiveSpec spec;
    spec.coll = Collective::kAllReduce;
    spec.bytes = 256;
    spec.algo = Algo::kButterfly;
    const bool pow2 = (topo.num_chips & (topo.num_chips - 1)) == 0;
    const Plan plan = plan_collective(topo, spec);
    const Image img = build_image(topo, plan);
    int unrolled = 0;
    for (int t = 0; t < plan.tiles; ++t) {
      if (!img.unrolled[t]) continue;
      ++unrolled;
      EXPECT_LE(img.imem[t].size(), 128u);
      for (uint64_t w : img.imem[t]) {
        const Isa o = isa::opc(w);
        EXPECT_TRUE(o != Isa::kJmp && o != Isa::kBeq && o != Isa::kBne && o != Isa::kBlt &&
                    o != Isa::kBge)
            << isa::disasm(w);
      }
    }
    EXPECT_EQ(unrolled > 0, pow2);
    spec.unroll_lists = false;
    const Image lists = build_image(topo, plan_collective(topo, spec));
    for (int t = 0; t < plan.tiles; ++t) EXPECT_FALSE(lists.unrolled[t]);
    EXPECT_EQ(lists.pmem, img.pmem);  // the lists are the same; only the program differs
  }
}

// Held sessions (docs/compiler.md section 8.4), checked against the image itself: a Send has
// the hold bit only where its tile is the only one of its chip that sends on that link and its
// tile's next Send leaves on the same link; the ladder's ring loops hold, four ring planes on one
// link do not, and hold_sessions = false clears every bit.
TEST(Compiler, HoldOnlyWhereTheTileIsItsLinksOnlySender) {
  struct Case {
    const char* topo;
    uint64_t bytes;
    Algo algo;
    int tiles;
    int want_holding_planes;  // -1: some but not checked
  };
  for (const Case& k :
       {Case{"ladder:8", 16384, Algo::kLadder, 4, 4}, Case{"ring:8", 16384, Algo::kRing, 4, 0},
        Case{"ring:8", 16384, Algo::kRing, 1, 1}, Case{"biring:5", 12288, Algo::kBiring, 2, 2},
        Case{"ladder:8", 8, Algo::kButterfly, 4, -1},
        Case{"tree:((2,2),(2,2))", 2048, Algo::kTree, 4, -1},
        Case{"line:4", 4096, Algo::kAuto, 4, -1}}) {
    SCOPED_TRACE(std::string(k.topo) + " " + to_string(k.algo) + " tiles " +
                 std::to_string(k.tiles));
    const Topology topo = parse_topology(k.topo);
    CollectiveSpec spec;
    spec.coll = Collective::kAllReduce;
    spec.bytes = k.bytes;
    spec.algo = k.algo;
    spec.tiles = k.tiles;
    const Plan plan = plan_collective(topo, spec);
    const Image img = build_image(topo, plan);
    const int P = plan.chips;
    // Per chip, per tile: the Sends in program order as (port, hold).
    std::vector<std::vector<std::vector<std::pair<int, bool>>>> sends(
        P, std::vector<std::vector<std::pair<int, bool>>>(plan.tiles));
    auto port = [&](int c, unsigned lane, int dst) {
      return dst == c ? -1 : static_cast<int>(img.route[c][lane * kMaxChips + dst]);
    };
    int holding_planes = 0;
    for (int t = 0; t < plan.tiles; ++t) {
      bool any = false;
      if (img.ring_loop[t]) {  // the descriptors are the loop's Li r9 / r19
        std::vector<bool> holds;
        for (uint64_t w : img.imem[t])
          if (isa::opc(w) == Isa::kLi && (isa::rd(w) == 9 || isa::rd(w) == 19))
            holds.push_back(unpack_send_imm(isa::imm(w)).hold);
        ASSERT_EQ(holds.size(), 2u);
        EXPECT_EQ(holds[0], holds[1]);
        any = holds[0];
        for (const Transfer& x : plane_transfers(plan, t))
          sends[x.src][t].push_back({port(x.src, x.lane, x.dst), holds[0]});
      } else {
        const std::vector<uint32_t>& pm = img.pmem[t];
        for (int c = 0; c < P; ++c)
          for (uint32_t o = pm[c]; pm[o] != kDescEnd; o += desc_words(pm[o])) {
            if (pm[o] != kDescSend && pm[o] != kDescWaitSend) continue;
            const uint32_t* w = &pm[o + (pm[o] == kDescWaitSend ? 3 : 1)];
            const SendDesc d = unpack_send_imm(w[4]);
            sends[c][t].push_back({port(c, d.lane, static_cast<int>(w[2])), d.hold});
            any = any || d.hold;
          }
      }
      holding_planes += any;
    }
    for (int c = 0; c < P; ++c)
      for (int t = 0; t < plan.tiles; ++t)
        for (size_t i = 0; i < sends[c][t].size(); ++i) {
          const auto [p, hold] = sends[c][t][i];
          bool alone = p >= 0;
          for (int u = 0; u < plan.tiles; ++u)
            for (const auto& [q, h] : sends[c][u]) alone = alone && (u == t || q != p);
          const bool next_same = i + 1 < sends[c][t].size() && sends[c][t][i + 1].first == p;
          // A ring loop's last send holds too (the chips share one descriptor); it is harmless.
          if (hold) {
            EXPECT_TRUE(alone && (next_same || img.ring_loop[t]))
                << "chip " << c << " tile " << t << " send " << i << " on port " << p;
          } else if (!img.ring_loop[t]) {
            EXPECT_FALSE(alone && next_same)
                << "chip " << c << " tile " << t << " send " << i << " could hold";
          }
        }
    if (k.want_holding_planes >= 0) {
      EXPECT_EQ(holding_planes, k.want_holding_planes);
    }
    spec.hold_sessions = false;
    const Image off = build_image(topo, plan_collective(topo, spec));
    for (int t = 0; t < plan.tiles; ++t) {
      for (uint64_t w : off.imem[t])
        if (isa::opc(w) == Isa::kLi && (isa::rd(w) == 9 || isa::rd(w) == 19)) {
          EXPECT_FALSE(unpack_send_imm(isa::imm(w)).hold);
        }
      if (off.ring_loop[t]) continue;
      for (int c = 0; c < P; ++c)
        for (uint32_t o = off.pmem[t][c]; off.pmem[t][o] != kDescEnd;
             o += desc_words(off.pmem[t][o]))
          if (off.pmem[t][o] == kDescSend || off.pmem[t][o] == kDescWaitSend) {
            EXPECT_FALSE(
                unpack_send_imm(off.pmem[t][o + (off.pmem[t][o] == kDescWaitSend ? 7 : 5)]).hold);
          }
    }
  }
}

TEST(Compiler, RandomAsymmetricTrees) {
  std::mt19937_64 rng(seed());
  for (int i = 0; i < 60; ++i) {
    int budget = 24;
    const std::string spec = "tree:" + random_tree(rng, 4, budget);
    const Topology topo = parse_topology(spec);
    if (topo.num_chips < 2) continue;
    CollectiveSpec s;
    s.dtype = static_cast<DType>(i % kDTypeCount);
    s.op = static_cast<RedOp>(i % 3);
    s.bytes = dtype_size(s.dtype) * (500 + 7 * i);
    s.chunk_bytes = 256;
    check_plan(topo, s, spec);
  }
}

// The automatic chunk cuts a ring step's segment into equal chunks (docs/compiler.md section 4).
// With streamed sends a block goes whole up to 2048 bytes: 768 bytes (ring:8, 24 KiB, 4 tiles),
// the ladder's 256-byte segments (ladder:8, 8 KiB). Without them (--no-stream) a segment of 768
// bytes is 2 x 384 rather than 512 + 256, the ladder's 256 bytes 2 x 128. Either way, where P
// does not divide the plane the largest block sets the count, so that no block ends in a chunk
// of a flit or two (each block's last chunk is at least half a chunk).
TEST(Compiler, AutoChunkCutsASegmentIntoEqualChunks) {
  struct Want {
    const char* topo;
    Algo algo;
    uint64_t bytes;
    uint32_t chunk;
    bool stream;
  };
  for (const Want& w : {Want{"ring:8", Algo::kRing, 24576, 384, false},
                        Want{"ladder:8", Algo::kLadder, 8192, 128, false},
                        Want{"ring:8", Algo::kRing, 16384, 512, false},
                        Want{"ring:8", Algo::kRing, 1u << 20, 2048, false},
                        Want{"ring:8", Algo::kRing, 24576, 768, true},
                        Want{"ladder:8", Algo::kLadder, 8192, 256, true},
                        Want{"ladder:8", Algo::kLadder, 65536, 2048, true},
                        Want{"ring:8", Algo::kRing, 16384, 512, true},
                        Want{"ring:8", Algo::kRing, 1u << 20, 2048, true}}) {
    const Topology topo = parse_topology(w.topo);
    CollectiveSpec s;
    s.bytes = w.bytes;
    s.algo = w.algo;
    s.stream_sends = w.stream;
    EXPECT_EQ(build_image(topo, plan_collective(topo, s)).chunk_bytes, w.chunk)
        << w.topo << " " << w.bytes << (w.stream ? "" : " --no-stream");
  }
  for (const char* ts : {"ring:5", "ring:3", "biring:5", "ring:12"})
    for (uint64_t bytes : {12288ull, 20480ull, 65536ull, 1ull << 20})
      for (bool stream : {true, false}) {
        const Topology topo = parse_topology(ts);
        CollectiveSpec s;
        s.bytes = bytes;
        s.stream_sends = stream;
        s.algo = ts[0] == 'b' ? Algo::kBiring : Algo::kRing;
        const Plan plan = plan_collective(topo, s);
        const uint32_t chunk = build_image(topo, plan).chunk_bytes;
        for (const Slice& sl : plan.slices) {
          if (sl.len <= chunk) continue;
          const uint32_t last = sl.len - (sl.len - 1) / chunk * chunk;
          EXPECT_GE(2 * last, chunk) << ts << " " << bytes << " block " << sl.len;
        }
      }
}

TEST(Compiler, AutoChunkKeepsEveryProgramInsideTheHostWindows) {
  // The RTL loads programs through the host port, so every tile's instruction and parameter
  // memory must fit its window (IMEM 32 KiB, PMEM 64 KiB) for sizes up to 1 MiB per chip.
  for (const char* ts :
       {"ring:16", "ladder:16", "tree:((2,2),3,(1,4))", "tree:(4,4,4,4)", "line:16", "biring:12"})
    for (Collective c : {Collective::kAllReduce, Collective::kBroadcast, Collective::kReduce,
                         Collective::kReduceScatter})
      for (uint64_t bytes : {4096ull, 65536ull, 1ull << 20}) {
        const Topology topo = parse_topology(ts);
        CollectiveSpec s;
        s.coll = c;
        s.bytes = bytes;
        const Image img = build_image(topo, plan_collective(topo, s));
        for (size_t t = 0; t < img.pmem.size(); ++t) {
          EXPECT_LE(img.pmem[t].size() * 4, reg::kTilePmemSize)
              << ts << " " << to_string(c) << " " << bytes << " tile " << t;
          EXPECT_LE(img.imem[t].size() * 8, reg::kTileImemSize);
        }
      }
}
