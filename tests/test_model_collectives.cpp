// Collectives on the SystemC model, checked against the plain C++ reference.
//
// Space covered: every collective on every topology kind (ring, biring, line, ladder, tree,
// asymmetric trees) for P in {2,3,4,5,8,12,16} where the kind allows it; dtype/op pairs rotate
// so that every pair appears; sizes divide by neither P nor the tile and chunk counts; every
// dtype x op on ring:5, ladder:8 and tree:((2,2),3,(1,4)); saturating sums; averaging on
// every topology kind. Each case: the run ends without error, every element equals the
// reference bit for bit, replicated results are bit-identical on every chip, the reference
// equals the exact result where one exists, the XB queues never overflowed.
// Seed: XF_SEED (default 1), printed. One case per process (SystemC elaborates once).
// Reproduce one case: build/cmake/test_model_collectives --gtest_filter='*/<index>'.
#include <cstdlib>
#include <map>
#include <string>
#include <tuple>
#include <vector>

#include "driver.hpp"
#include "model_test_main.hpp"
#include "xf/alu.hpp"
#include "xf/checks.hpp"
#include "xf/compiler.hpp"

using namespace xf;

namespace {

struct Case {
  std::string topo;
  Collective coll;
  DType dtype;
  RedOp op;
  uint64_t bytes;
  bool sat = false;
  Algo algo = Algo::kAuto;
  bool lists = false;  // force the interpreted descriptor lists (no ring loop, no unrolling)
  int flit_bits = kFlitBits;
};

std::vector<Case> cases() {
  std::vector<Case> v;
  std::vector<std::string> topos;
  for (int p : {2, 3, 4, 5, 8, 12, 16}) {
    topos.push_back("ring:" + std::to_string(p));
    topos.push_back("biring:" + std::to_string(p));
    topos.push_back("line:" + std::to_string(p));
    if (p >= 4 && p % 2 == 0) topos.push_back("ladder:" + std::to_string(p));
  }
  for (const char* t :
       {"tree:2", "tree:3", "tree:4", "tree:(2,3)", "tree:((2,2),3,(1,4))", "tree:((1,2),(2,3))",
        "tree:(4,4,4,4)", "tree:(((1,3),2),(1,(2,2)),1)", "tree:((3),((1,1),2),4)"})
    topos.push_back(t);
  const Collective colls[] = {Collective::kAllReduce, Collective::kReduceScatter,
                              Collective::kAllGather, Collective::kBroadcast, Collective::kReduce};
  int k = 0;
  for (const auto& t : topos)
    for (Collective c : colls) {
      const DType d = static_cast<DType>(k % kDTypeCount);
      const RedOp op = static_cast<RedOp>((k / kDTypeCount) % 3);
      v.push_back({t, c, d, op, dtype_size(d) * (1500 + 37 * (k % 11))});
      ++k;
    }
  for (const char* t : {"ring:5", "ladder:8", "tree:((2,2),3,(1,4))"})
    for (unsigned d = 0; d < kDTypeCount; ++d)
      for (RedOp op : {RedOp::kSum, RedOp::kMax, RedOp::kMin})
        v.push_back({t, Collective::kAllReduce, static_cast<DType>(d), op,
                     dtype_size(static_cast<DType>(d)) * 2049});
  for (DType d : {DType::kInt8, DType::kUint8, DType::kInt16, DType::kInt32})
    v.push_back({"ring:4", Collective::kAllReduce, d, RedOp::kSum, 3000, true});
  for (const char* t : {"ring:5", "biring:8", "line:3", "ladder:12", "tree:((2,2),3,(1,4))"})
    for (DType d : {DType::kInt8, DType::kUint8})
      v.push_back({t, Collective::kAllReduce, d, RedOp::kAvg, 2000});
  v.push_back({"ring:6", Collective::kReduceScatter, DType::kInt16, RedOp::kAvg, 6000});
  for (const char* t : {"ring:5", "biring:4", "ladder:8", "tree:((2,2),3,(1,4))"})
    for (Collective c :
         {Collective::kAllReduce, Collective::kReduceScatter, Collective::kAllGather})
      v.push_back({t, c, DType::kBf16, RedOp::kSum, 7000, false, Algo::kRing, true});
  for (Algo a : {Algo::kRing, Algo::kBiring, Algo::kLine})
    v.push_back({"ladder:8", Collective::kAllReduce, DType::kBf16, RedOp::kSum, 10000, false, a});
  // Narrow flits (docs/packets.md section 3): every topology kind and collective at 32 and
  // 64 bits, integer averages, descriptor lists and the butterfly among them.
  int n = 0;
  for (int fb : {32, 64})
    for (const char* t : {"ring:5", "biring:4", "line:3", "ladder:8", "tree:((2,2),3,(1,4))"})
      for (Collective c : colls) {
        const DType d = static_cast<DType>(n % kDTypeCount);
        const RedOp op = static_cast<RedOp>(n % 3);
        v.push_back({t, c, d, op, dtype_size(d) * (1300 + 53 * (n % 7)), false, Algo::kAuto,
                     n % 4 == 3, fb});
        ++n;
      }
  // The butterfly's programs: unrolled where every chip's list has the same shape (powers of
  // two), the interpreter with WaitSend descriptors otherwise and when forced.
  for (const char* t :
       {"ring:8", "ladder:8", "tree:((2,2),(2,2))", "ring:5", "ladder:12", "tree:((2,2),3,(1,4))"})
    for (uint64_t bytes : {8u, 272u})
      for (bool lists : {false, true})
        v.push_back({t, Collective::kAllReduce, DType::kFp32, RedOp::kSum, bytes, false,
                     Algo::kButterfly, lists});
  v.push_back(
      {"ring:8", Collective::kAllReduce, DType::kInt16, RedOp::kAvg, 64, false, Algo::kAvg, false});
  for (int fb : {32, 64}) {
    v.push_back({"ladder:8", Collective::kAllReduce, DType::kFp32, RedOp::kSum, 256, false,
                 Algo::kButterfly, false, fb});
    v.push_back({"biring:8", Collective::kAllReduce, DType::kInt8, RedOp::kAvg, 2000, false,
                 Algo::kAuto, false, fb});
    v.push_back({"ring:4", Collective::kAllReduce, DType::kInt16, RedOp::kSum, 3000, true,
                 Algo::kAuto, false, fb});
  }
  return v;
}

uint64_t seed() {
  const char* s = std::getenv("XF_SEED");
  return s ? std::strtoull(s, nullptr, 0) : 1;
}

class ModelCollective : public ::testing::TestWithParam<Case> {};

TEST_P(ModelCollective, MatchesReference) {
  const Case& c = GetParam();
  Topology topo = parse_topology(c.topo);
  set_flit_bits(topo, c.flit_bits);
  CollectiveSpec s;
  s.coll = c.coll;
  s.dtype = c.dtype;
  s.op = c.op;
  s.bytes = c.bytes;
  s.sat = c.sat;
  s.algo = c.algo;
  s.ring_loops = !c.lists;
  s.unroll_lists = !c.lists;
  s.root = topo.num_chips / 2;
  s.chunk_bytes = 1024;
  const Plan plan = plan_collective(topo, s);
  const Image img = build_image(topo, plan);
  const auto in = make_inputs(plan, seed(), dtype_is_float(c.dtype) ? 1 : 0);
  std::printf("seed %llu: %s %d-bit flits %s %s %s %llu bytes%s algo %s\n",
              static_cast<unsigned long long>(seed()), c.topo.c_str(), c.flit_bits,
              to_string(c.coll), to_string(c.dtype), to_string(c.op),
              static_cast<unsigned long long>(c.bytes), c.sat ? " sat" : "", to_string(plan.algo));
  const model::CollectiveRun run = model::run_on_model(topo, plan, img, in);
  ASSERT_TRUE(run.stats.ok) << run.stats.error;
  EXPECT_EQ(run.stats.xb_overflows, 0u);
  EXPECT_LE(run.stats.xb_max_occupancy, kXbQueueFlits);
  const Check k = check_outputs(plan, in, run.outputs);
  EXPECT_EQ(k.wrong, 0u);
  EXPECT_EQ(k.not_identical, 0u);
  EXPECT_EQ(k.inexact, 0u);
  std::printf("cycles %llu, packets %llu, XB max occupancy %u/%u\n",
              static_cast<unsigned long long>(run.stats.cycles),
              static_cast<unsigned long long>(run.stats.packets), run.stats.xb_max_occupancy,
              kXbQueueFlits);
}

std::string name(const ::testing::TestParamInfo<Case>& i) {
  std::string s = i.param.topo + "_" + to_string(i.param.coll) + "_" + to_string(i.param.dtype) +
                  "_" + to_string(i.param.op) + (i.param.sat ? "_sat" : "") +
                  (i.param.lists ? "_lists" : "") + "_" + to_string(i.param.algo) +
                  (i.param.flit_bits != kFlitBits ? "_w" + std::to_string(i.param.flit_bits) : "") +
                  "_" + std::to_string(i.index);
  for (auto& ch : s)
    if (!std::isalnum(static_cast<unsigned char>(ch))) ch = '_';
  return s;
}

INSTANTIATE_TEST_SUITE_P(All, ModelCollective, ::testing::ValuesIn(cases()), name);

}  // namespace

namespace {
void PrintTo(const Case& c, std::ostream* os) {
  *os << c.topo << " " << to_string(c.coll) << " " << to_string(c.dtype) << " " << to_string(c.op)
      << " " << c.bytes << "B" << (c.sat ? " sat" : "") << " algo " << to_string(c.algo)
      << (c.lists ? " descriptor lists" : "");
}
}  // namespace

// The packet observer (the model side of the per-stream RTL checker) sees every packet that
// crosses a link exactly once, in order: on a ring every send leaves on a link, so the count
// equals the packets the tiles sent, and sequence numbers rise along each stream.
TEST(ModelPacketLog, EveryLinkPacketOnceAndInStreamOrder) {
  const Topology topo = parse_topology("biring:5");
  CollectiveSpec s;
  s.dtype = DType::kBf16;
  s.bytes = 2 * 9000;
  const Plan plan = plan_collective(topo, s);
  const Image img = build_image(topo, plan);
  const auto in = make_inputs(plan, 3, 1);
  std::vector<model::PacketEvent> ev;
  const model::CollectiveRun run = model::run_on_model(
      topo, plan, img, in, 1'000'000, [&](const model::PacketEvent& e) { ev.push_back(e); });
  ASSERT_TRUE(run.stats.ok) << run.stats.error;
  EXPECT_EQ(ev.size(), run.stats.packets);
  std::map<std::tuple<int, int, int>, int> last_seq;
  for (const auto& e : ev) {
    EXPECT_FALSE(e.transit);
    EXPECT_EQ(e.node, e.hdr.src_chip);
    auto key = std::make_tuple(e.hdr.src_chip, e.hdr.src_tile, e.port);
    auto it = last_seq.find(key);
    if (it != last_seq.end()) {
      EXPECT_GT(static_cast<int>(e.hdr.seq), it->second);
    }
    last_seq[key] = e.hdr.seq;
  }
}
