// The driver library (xf/comm.hpp) on the model backend: every collective against the plain C++
// reference, in place and out of place, start/wait, the sharded-update sgd step against the
// reference with the state kept on the chips, and every error path with its status and message.
// One communicator per process (SystemC): ctest runs each case in its own process.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <random>

#include "model_test_main.hpp"
#include "xf/comm.hpp"
#include "xf/reference.hpp"

namespace xf {
namespace {

template <class T>
std::vector<const void*> cptrs(std::vector<std::vector<T>>& v) {
  std::vector<const void*> p;
  for (auto& x : v) p.push_back(x.data());
  return p;
}
template <class T>
std::vector<void*> ptrs(std::vector<std::vector<T>>& v) {
  std::vector<void*> p;
  for (auto& x : v) p.push_back(x.data());
  return p;
}

Comm make(const std::string& topo, const std::string& backend = "model", int tiles = 2) {
  Comm c;
  CommConfig cfg;
  cfg.tiles = tiles;
  const Result r = Comm::create(topo, backend, &c, cfg);
  EXPECT_TRUE(r.ok()) << r.message;
  return c;
}

// Small integers: every summation order is exact, so the expected sums need no reference order.
std::vector<std::vector<float>> data(int P, size_t n, uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::vector<std::vector<float>> v(P, std::vector<float>(n));
  for (auto& x : v)
    for (float& f : x) f = static_cast<float>(static_cast<int>(rng() % 17) - 8);
  return v;
}

TEST(Comm, AllreduceOutOfPlaceAndInPlace) {
  Comm c = make("ring:4");
  const size_t n = 1000;  // not a flit multiple
  auto in = data(4, n, 1);
  std::vector<std::vector<float>> out(4, std::vector<float>(n));
  ASSERT_TRUE(c.allreduce(cptrs(in), ptrs(out), n, DType::kFp32, RedOp::kSum).ok());
  for (size_t i = 0; i < n; ++i) {
    const float s = in[0][i] + in[1][i] + in[2][i] + in[3][i];
    for (int q = 0; q < 4; ++q) ASSERT_EQ(out[q][i], s) << "chip " << q << " element " << i;
  }
  EXPECT_GT(c.last().cycles, 0u);
  EXPECT_EQ(c.last().algorithm, "ring");
  auto io = in;  // in place
  ASSERT_TRUE(c.allreduce(cptrs(io), ptrs(io), n, DType::kFp32, RedOp::kSum).ok());
  EXPECT_EQ(io, out);
}

// CommConfig::flit_bits: the exact sums at every width (one width per process: SystemC
// elaborates once).
class CommWidth : public ::testing::TestWithParam<int> {};

TEST_P(CommWidth, AllreduceSumsExactly) {
  const size_t n = 3000;
  auto in = data(4, n, 2);
  CommConfig cfg;
  cfg.flit_bits = GetParam();
  Comm c;
  const Result r = Comm::create("ring:4", "model", &c, cfg);
  ASSERT_TRUE(r.ok()) << r.message;
  std::vector<std::vector<float>> out(4, std::vector<float>(n));
  ASSERT_TRUE(c.allreduce(cptrs(in), ptrs(out), n, DType::kFp32, RedOp::kSum).ok());
  for (size_t i = 0; i < n; ++i) {
    const float s = in[0][i] + in[1][i] + in[2][i] + in[3][i];
    for (int q = 0; q < 4; ++q) ASSERT_EQ(out[q][i], s) << "chip " << q << " element " << i;
  }
  EXPECT_EQ(c.topology().flit_bits, GetParam());
}

INSTANTIATE_TEST_SUITE_P(Widths, CommWidth, ::testing::Values(32, 64, 128));

TEST(CommErrors, FlitWidthMustBeOneTheFabricHas) {
  CommConfig bad;
  bad.flit_bits = 48;
  Comm c;
  const Result r = Comm::create("ring:4", "model", &c, bad);
  EXPECT_EQ(r.status, Status::kInvalidArgument);
  EXPECT_NE(r.message.find("use 32, 64 or 128"), std::string::npos) << r.message;
  EXPECT_FALSE(c.initialized());
}

TEST(Comm, ReduceScatterAndAllGatherNcclLayout) {
  Comm c = make("biring:4");
  const size_t n = 37;  // elements per chip's block: 148 bytes, padded to 160 inside
  auto in = data(4, 4 * n, 2);
  std::vector<std::vector<float>> rs(4, std::vector<float>(n));
  ASSERT_TRUE(c.reduce_scatter(cptrs(in), ptrs(rs), n, DType::kFp32, RedOp::kSum).ok());
  for (int q = 0; q < 4; ++q)
    for (size_t i = 0; i < n; ++i)
      ASSERT_EQ(rs[q][i],
                in[0][q * n + i] + in[1][q * n + i] + in[2][q * n + i] + in[3][q * n + i]);
  std::vector<std::vector<float>> ag(4, std::vector<float>(4 * n));
  ASSERT_TRUE(c.all_gather(cptrs(rs), ptrs(ag), n, DType::kFp32).ok());
  for (int q = 0; q < 4; ++q)
    for (int b = 0; b < 4; ++b)
      for (size_t i = 0; i < n; ++i) ASSERT_EQ(ag[q][b * n + i], rs[b][i]);
  // In place, NCCL's layout: recv = send + c * recvcount; send = recv + c * sendcount.
  auto io = in;
  std::vector<const void*> s;
  std::vector<void*> r;
  for (int q = 0; q < 4; ++q) {
    s.push_back(io[q].data());
    r.push_back(io[q].data() + q * n);
  }
  ASSERT_TRUE(c.reduce_scatter(s, r, n, DType::kFp32, RedOp::kSum).ok());
  for (int q = 0; q < 4; ++q)
    for (size_t i = 0; i < n; ++i) ASSERT_EQ(io[q][q * n + i], rs[q][i]);
  std::vector<const void*> s2;
  std::vector<void*> r2;
  for (int q = 0; q < 4; ++q) {
    s2.push_back(io[q].data() + q * n);
    r2.push_back(io[q].data());
  }
  ASSERT_TRUE(c.all_gather(s2, r2, n, DType::kFp32).ok());
  EXPECT_EQ(io, ag);
}

TEST(Comm, BroadcastReduceInt) {
  Comm c = make("tree:(2,2)");
  const size_t n = 300;
  std::vector<std::vector<int16_t>> in(4, std::vector<int16_t>(n));
  for (int q = 0; q < 4; ++q)
    for (size_t i = 0; i < n; ++i) in[q][i] = static_cast<int16_t>(q * 1000 + i);
  std::vector<std::vector<int16_t>> out(4, std::vector<int16_t>(n, -1));
  std::vector<const void*> s = {nullptr, nullptr, in[2].data(), nullptr};
  ASSERT_TRUE(c.broadcast(s, ptrs(out), n, DType::kInt16, 2).ok());
  for (int q = 0; q < 4; ++q) EXPECT_EQ(out[q], in[2]);
  std::vector<int16_t> red(n, 0);
  std::vector<void*> r = {nullptr, red.data(), nullptr, nullptr};
  ASSERT_TRUE(c.reduce(cptrs(in), r, n, DType::kInt16, RedOp::kMax, 1).ok());
  EXPECT_EQ(red, in[3]);
}

TEST(Comm, StartWaitOverlapsHostWork) {
  Comm c = make("ring:4");
  const size_t n = 4096;
  auto in = data(4, n, 3);
  std::vector<std::vector<float>> out(4, std::vector<float>(n));
  Request q = c.start_allreduce(cptrs(in), ptrs(out), n, DType::kFp32, RedOp::kSum);
  ASSERT_TRUE(q.valid());
  double host = 0;  // the host computes while the fabric runs
  for (int i = 0; i < 100000; ++i) host += std::sqrt(static_cast<double>(i));
  EXPECT_GT(host, 0);
  ASSERT_TRUE(c.wait(q).ok());
  EXPECT_TRUE(c.test(q));
  for (size_t i = 0; i < n; ++i) ASSERT_EQ(out[1][i], in[0][i] + in[1][i] + in[2][i] + in[3][i]);
  // Two started in a row run in order.
  std::vector<std::vector<float>> o2(4, std::vector<float>(n));
  Request a = c.start_allreduce(cptrs(in), ptrs(o2), n, DType::kFp32, RedOp::kMax);
  Request b = c.start_allreduce(cptrs(o2), ptrs(o2), n, DType::kFp32, RedOp::kSum);
  ASSERT_TRUE(c.wait(a).ok());
  ASSERT_TRUE(c.wait(b).ok());
  for (size_t i = 0; i < n; ++i) {
    const float m = std::max(std::max(in[0][i], in[1][i]), std::max(in[2][i], in[3][i]));
    ASSERT_EQ(o2[2][i], 4 * m);
  }
}

// Sharded sgd: three steps on the chips, against run_reference of the same plan with the state
// carried on the host; the state never leaves its chip, and every chip ends with the same params.
TEST(Comm, ShardedSgdStepsMatchReference) {
  Comm c = make("ladder:4");
  const size_t n = 1234;
  SgdConfig opt;
  opt.lr = 0.05f;
  opt.momentum = 0.9f;
  opt.weight_decay = 1e-3f;
  std::vector<float> w0(n);
  for (size_t i = 0; i < n; ++i) w0[i] = std::sin(static_cast<float>(i)) * 0.5f;
  ASSERT_TRUE(c.sgd_init(w0.data(), n, opt).ok());
  Plan plan;
  ASSERT_TRUE(c.sgd_plan(n, opt, &plan).ok());
  std::vector<SgdState> ref_state = sgd_initial_state(plan, w0.data());
  std::mt19937_64 rng(4);
  std::normal_distribution<float> nd(0, 1);
  for (int step = 0; step < 3; ++step) {
    std::vector<std::vector<float>> g(4, std::vector<float>(n));
    for (auto& x : g)
      for (float& f : x) f = nd(rng);
    std::vector<std::vector<float>> params(4, std::vector<float>(n));
    std::vector<const float*> gp;
    std::vector<float*> pp;
    for (int q = 0; q < 4; ++q) {
      gp.push_back(g[q].data());
      pp.push_back(params[q].data());
    }
    std::vector<SgdState> chip_state;
    ASSERT_TRUE(c.sgd_step(gp, pp, n, opt, &chip_state).ok()) << "step " << step;
    std::vector<Bytes> in(4);
    for (int q = 0; q < 4; ++q)
      in[q].assign(reinterpret_cast<uint8_t*>(g[q].data()),
                   reinterpret_cast<uint8_t*>(g[q].data()) + n * 4);
    const std::vector<Bytes> ref = run_reference(plan, in, &ref_state);
    for (int q = 0; q < 4; ++q) {
      ASSERT_EQ(0, std::memcmp(params[q].data(), ref[q].data(), n * 4)) << "chip " << q;
      EXPECT_EQ(chip_state[q].weights, ref_state[q].weights) << "chip " << q << " step " << step;
      EXPECT_EQ(chip_state[q].momentum, ref_state[q].momentum) << "chip " << q;
    }
    EXPECT_GT(c.last().cycles, 0u);
  }
}

// ---- error paths ------------------------------------------------------------------------------

TEST(CommErrors, UnknownBackendAndBadTopology) {
  Comm c;
  Result r = Comm::create("ring:4", "gpu", &c);
  EXPECT_EQ(r.status, Status::kUnknownBackend);
  EXPECT_NE(r.message.find("use model, rtl or serial"), std::string::npos) << r.message;
  EXPECT_FALSE(c.initialized());
  r = Comm::create("ring:x", "model", &c);
  EXPECT_EQ(r.status, Status::kInvalidArgument);
  EXPECT_NE(r.message.find("topology"), std::string::npos) << r.message;
  r = Comm::create("ring:4", "serial:", &c);
  EXPECT_EQ(r.status, Status::kInvalidArgument);
  EXPECT_NE(r.message.find("no device"), std::string::npos) << r.message;
  r = Comm::create("ring:4", "serial:/nonexistent/tty", &c);
  EXPECT_EQ(r.status, Status::kBackendError);
  EXPECT_NE(r.message.find("/nonexistent/tty"), std::string::npos) << r.message;
  r = Comm::create("ring:4", "rtl", &c);  // this test binary has no Verilated chip
  EXPECT_EQ(r.status, Status::kBackendError);
  EXPECT_NE(r.message.find("without the Verilated RTL"), std::string::npos) << r.message;
  std::vector<float> a(4), b(4);
  r = c.allreduce({a.data()}, {b.data()}, 4, DType::kFp32, RedOp::kSum);
  EXPECT_EQ(r.status, Status::kNotInitialized);
}

TEST(CommErrors, BadCountTypeOpRootAndBuffers) {
  Comm c = make("ring:4");
  std::vector<std::vector<float>> in(4, std::vector<float>(64)), out(4, std::vector<float>(64));
  Result r = c.allreduce(cptrs(in), ptrs(out), 0, DType::kFp32, RedOp::kSum);
  EXPECT_EQ(r.status, Status::kInvalidArgument);
  EXPECT_NE(r.message.find("count is 0"), std::string::npos) << r.message;
  r = c.allreduce(cptrs(in), ptrs(out), 64, DType::kFp32, RedOp::kAvg);
  EXPECT_EQ(r.status, Status::kUnsupported);
  EXPECT_NE(r.message.find("avg is for integer types"), std::string::npos) << r.message;
  r = c.allreduce(cptrs(in), ptrs(out), 64, static_cast<DType>(9), RedOp::kSum);
  EXPECT_EQ(r.status, Status::kInvalidArgument);
  r = c.allreduce(cptrs(in), ptrs(out), 64, DType::kFp32, RedOp::kScaleAdd);
  EXPECT_EQ(r.status, Status::kInvalidArgument);
  r = c.broadcast(cptrs(in), ptrs(out), 64, DType::kFp32, 4);
  EXPECT_EQ(r.status, Status::kInvalidArgument);
  EXPECT_NE(r.message.find("root 4 is not a chip (0..3)"), std::string::npos) << r.message;
  // Mismatched buffers: too few, null, overlapping send/recv, two chips sharing an output.
  auto s3 = cptrs(in);
  s3.pop_back();
  r = c.allreduce(s3, ptrs(out), 64, DType::kFp32, RedOp::kSum);
  EXPECT_EQ(r.status, Status::kInvalidArgument);
  EXPECT_NE(r.message.find("send has 3 buffers; give one per chip (4)"), std::string::npos)
      << r.message;
  auto rn = ptrs(out);
  rn[2] = nullptr;
  r = c.allreduce(cptrs(in), rn, 64, DType::kFp32, RedOp::kSum);
  EXPECT_NE(r.message.find("recv[2] is null"), std::string::npos) << r.message;
  auto ro = ptrs(out);
  ro[1] = in[1].data() + 1;  // overlaps send[1] but is not it
  r = c.allreduce(cptrs(in), ro, 64, DType::kFp32, RedOp::kSum);
  EXPECT_NE(r.message.find("send[1] and recv[1] overlap"), std::string::npos) << r.message;
  auto rs = ptrs(out);
  rs[3] = out[0].data() + 8;
  r = c.allreduce(cptrs(in), rs, 64, DType::kFp32, RedOp::kSum);
  EXPECT_NE(r.message.find("recv[0] and recv[3] overlap"), std::string::npos) << r.message;
  // Too large for a tile's data memory: the compiler says so.
  std::vector<std::vector<float>> big(4, std::vector<float>(1 << 20));
  r = c.allreduce(cptrs(big), ptrs(big), 1 << 20, DType::kFp32, RedOp::kSum);
  EXPECT_EQ(r.status, Status::kInvalidArgument);
  EXPECT_NE(r.message.find("bytes of data memory per tile"), std::string::npos) << r.message;
  // Refused requests never ran: the next call still works.
  EXPECT_TRUE(c.allreduce(cptrs(in), ptrs(out), 64, DType::kFp32, RedOp::kSum).ok());
  // sgd errors
  std::vector<const float*> g(4, in[0].data());
  std::vector<float*> p;
  for (auto& x : out) p.push_back(x.data());
  r = c.sgd_step(g, p, 64, SgdConfig{});
  EXPECT_NE(r.message.find("before sgd_init"), std::string::npos) << r.message;
  ASSERT_TRUE(c.sgd_init(in[0].data(), 64, SgdConfig{}).ok());
  r = c.sgd_step(g, p, 32, SgdConfig{});
  EXPECT_NE(r.message.find("differs from sgd_init's 64"), std::string::npos) << r.message;
}

// A chip that reports an error: a backend standing in for a machine whose chip 2 fails.
class FailingBackend final : public Backend {
 public:
  std::string name() const override { return "failing"; }
  uint32_t tile_dmem_bytes() const override { return reg::kTileDmemSize; }
  int max_tiles() const override { return 4; }
  BackendRun run(const Plan&, const Image&, const std::vector<Bytes>&, uint64_t,
                 std::vector<SgdState>*, std::vector<SgdState>*) override {
    BackendRun b;
    b.cycles = 77;
    b.error = "a node reports an error (Status bit 31)\n  chip 2 tile 1: error BadPacket";
    return b;
  }
};

TEST(CommErrors, ChipErrorIsReportedWithTheChip) {
  Comm c;
  ASSERT_TRUE(Comm::create("ring:4", std::make_unique<FailingBackend>(), &c).ok());
  std::vector<std::vector<float>> in(4, std::vector<float>(64));
  const Result r = c.allreduce(cptrs(in), ptrs(in), 64, DType::kFp32, RedOp::kSum);
  EXPECT_EQ(r.status, Status::kChipError);
  EXPECT_NE(r.message.find("chip 2 tile 1: error BadPacket"), std::string::npos) << r.message;
  EXPECT_NE(r.message.find("failing backend failed after 77 cycles"), std::string::npos)
      << r.message;
  EXPECT_STREQ(to_string(r.status), "chip error");
}

TEST(CommErrors, TimeoutSaysWhatToRaise) {
  // The model with a cycle limit far too small: a timeout that says what to raise.
  Comm c;
  CommConfig cfg;
  cfg.tiles = 1;
  cfg.max_cycles = 50;
  ASSERT_TRUE(Comm::create("ring:4", "model", &c, cfg).ok());
  std::vector<std::vector<float>> in(4, std::vector<float>(4096));
  Result r = c.allreduce(cptrs(in), ptrs(in), 4096, DType::kFp32, RedOp::kSum);
  EXPECT_EQ(r.status, Status::kTimeout) << r.message;
  EXPECT_NE(r.message.find("max_cycles"), std::string::npos) << r.message;
}

}  // namespace
}  // namespace xf
