// Link faults on the SystemC model: the retry layer (model/link.*, docs/reliability.md sections
// 3-5) under the fault kinds of section 7.
//
// Space covered:
// - LinkRetry alone (two link ends driven cycle by cycle, no SystemC), traffic both ways with a
//   receiver that stalls at random: under every fault kind at once at high rates, every flit is
//   delivered exactly once and in order, the receive buffer never holds more than the credits,
//   every credit comes back; on a clean wire a flit takes exactly 9 cycles and nothing is resent.
// - allreduce on ring:4 and tree:(2,3) (switch nodes in the path) under wer=1e-2, drop=1e-2,
//   stall=0.1, down=1e-3 with downlen=300, and all of them at once: outputs bit-identical to
//   run_reference, the retry counters of that fault kind non-zero, the host-port link registers
//   equal to the counters, no escalation without downs, Status bit 31 clear.
// - without faults: RunStats::link and every link register zero, and the cycle count of a run
//   with FaultSpec{} equal to one with no FaultSpec at all; with the retry layer on but a wire
//   that never fails, the cycle count is still that of the clean model (ladder:8 bf16 64K, ring:8
//   fp32 4K, tree:(2,3) int16); under faults every packet stream is the clean run's.
// - a long down escalates a link (LinkStatus bit 0) and Control bit 1 clears it.
// Seeds: fixed per case, printed (FaultSpec::seed; inputs seed 1). One case per process
// (SystemC elaborates once); comparisons with a clean run fork a child for it.
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstring>
#include <functional>
#include <map>
#include <ostream>
#include <string>
#include <tuple>
#include <vector>

#include "driver.hpp"
#include "link.hpp"
#include "model_test_main.hpp"
#include "xf/checks.hpp"
#include "xf/compiler.hpp"
#include "xf/crc32.hpp"
#include "xf/faults.hpp"
#include "xf/layout.hpp"
#include "xf/reference.hpp"

using namespace xf;
using namespace xf::model;

namespace {

// ---- LinkRetry alone ----------------------------------------------------------------------

Flit numbered(uint32_t i) {
  Flit f;
  std::memcpy(f.data.data(), &i, 4);
  f.head = i % 5 == 0;
  f.tail = i % 5 == 4;
  return f;
}
uint32_t number(const Flit& f) {
  uint32_t i;
  std::memcpy(&i, f.data.data(), 4);
  return i;
}

// One node's side of a link pair: its transmitter's direction, the reverse direction it
// receives, and what its exchange does (sends numbered flits, pops with probability `pop`).
struct End {
  LinkRetry* tx = nullptr;
  LinkRetry* rx = nullptr;
  Pipe<Flit>* rx_buf = nullptr;
  int credits = kLinkRxBufferFlits + kRouterStageCycles;  // as Node::connect
  uint32_t sent = 0, received = 0, out_of_order = 0;
  size_t max_buffered = 0;
  std::vector<uint64_t> offered_at, delivered_at;
};

struct PairResult {
  End a, b;
  LinkStats ab, ba;
  uint64_t cycles = 0;
};

// Drives ends A and B as two Nodes would (Node::tick's order) until both have received `n`
// flits or `limit` cycles pass.
PairResult run_pair(const FaultSpec& f, uint32_t n, double pop, uint64_t limit) {
  Pipe<Flit> buf_ab(0), buf_ba(0);
  LinkRetry ab(f, 1 << 8 | 0, &buf_ab), ba(f, 0 << 8 | 0, &buf_ba);
  PairResult r;
  r.a.tx = &ab;  // A sends on ab and receives ba (into buf_ba); B the other way round
  r.a.rx = &ba;
  r.a.rx_buf = &buf_ba;
  r.b.tx = &ba;
  r.b.rx = &ab;
  r.b.rx_buf = &buf_ab;
  SplitMix rng(99);
  uint64_t now = 0;
  for (; now < limit && (r.a.received < n || r.b.received < n); ++now) {
    for (End* e : {&r.a, &r.b}) {  // start of the tick: receive, acks, credits, timer
      LinkCtl c;
      if (e->rx->receive(now, &c)) e->credits += static_cast<int>(e->tx->on_control(c));
      e->tx->tick_timer();
    }
    for (End* e : {&r.a, &r.b}) {  // the exchange: take one flit, give one flit
      e->max_buffered = std::max(e->max_buffered, e->rx_buf->size());
      if (e->rx_buf->ready(now) && rng.chance(pop)) {
        if (number(e->rx_buf->front()) != e->received) ++e->out_of_order;
        ++e->received;
        e->delivered_at.push_back(now);
        e->rx_buf->pop();
        e->rx->credit_returned();
      }
      if (e->sent < n && e->credits > 0 && e->tx->tx_ready()) {
        e->tx->offer(now, numbered(e->sent++));
        e->offered_at.push_back(now);
        --e->credits;
      }
    }
    r.a.tx->transmit(now, r.a.rx->rx_ctl());  // end of the tick: one word each way
    r.b.tx->transmit(now, r.b.rx->rx_ctl());
  }
  // Let the last credits come home.
  for (uint64_t k = 0; k < 2000; ++k, ++now)
    for (End* e : {&r.a, &r.b}) {
      LinkCtl c;
      if (e->rx->receive(now, &c)) e->credits += static_cast<int>(e->tx->on_control(c));
      e->tx->tick_timer();
      e->tx->transmit(now, e->rx->rx_ctl());
    }
  r.ab = ab.stats();
  r.ba = ba.stats();
  r.cycles = now;
  return r;
}

TEST(LinkRetry, EveryFlitOnceAndInOrderUnderEveryFaultKind) {
  const FaultSpec f =
      parse_faults("ber=2e-3,wer=0.05,drop=0.05,stall=0.2,down=2e-3,downlen=150,seed=11");
  std::printf("faults %s\n", f.str().c_str());
  const uint32_t n = 20000;
  const PairResult r = run_pair(f, n, 0.7, 5'000'000);
  for (const End* e : {&r.a, &r.b}) {
    EXPECT_EQ(e->received, n);
    EXPECT_EQ(e->out_of_order, 0u);
    EXPECT_LE(e->max_buffered, kLinkRxBufferFlits + kRouterStageCycles);
    EXPECT_EQ(e->credits, static_cast<int>(kLinkRxBufferFlits + kRouterStageCycles));
  }
  for (const LinkStats* s : {&r.ab, &r.ba}) {
    EXPECT_EQ(s->flits, n);  // a credit was spent once per flit
    EXPECT_EQ(s->accepted, n);
    EXPECT_GT(s->corrupted, 0u);
    EXPECT_GT(s->dropped, 0u);
    EXPECT_GT(s->lost_down, 0u);
    EXPECT_GT(s->stall_cycles, 0u);
    EXPECT_GT(s->naks, 0u);
    EXPECT_GT(s->timeouts, 0u);
    EXPECT_GT(s->flits_replayed, 0u);
    EXPECT_LE(s->max_unacked, kLinkReplayFlits);
    std::printf(
        "words %llu corrupted %llu dropped %llu down %llu stall %llu replays %llu "
        "(timeouts %llu) resent %llu discards %llu goodput %.3f\n",
        (unsigned long long)s->words, (unsigned long long)s->corrupted,
        (unsigned long long)s->dropped, (unsigned long long)s->lost_down,
        (unsigned long long)s->stall_cycles, (unsigned long long)s->replays,
        (unsigned long long)s->timeouts, (unsigned long long)s->flits_replayed,
        (unsigned long long)s->discards, double(s->flits) / double(s->flits + s->flits_replayed));
  }
}

TEST(LinkRetry, CleanWireTakesNineCyclesAndResendsNothing) {
  FaultSpec f;
  f.drop = 1e-300;  // the layer is on (any()), the wire never fails
  const PairResult r = run_pair(f, 5000, 1.0, 1'000'000);
  for (const End* e : {&r.a, &r.b}) {
    ASSERT_EQ(e->received, 5000u);
    // At full rate with an always-ready receiver: offered in t, usable by the far exchange in
    // t + LinkLatencyCycles + RouterStageCycles, as the flit pipe of a clean Link (model/link.hpp,
    // with the router stage).
    for (size_t i = 0; i < e->delivered_at.size(); ++i)
      ASSERT_EQ(e->delivered_at[i], (&r.a == e ? r.b : r.a).offered_at[i] + 9) << "flit " << i;
  }
  for (const LinkStats* s : {&r.ab, &r.ba}) {
    EXPECT_EQ(s->replays, 0u);
    EXPECT_EQ(s->flits_replayed, 0u);
    EXPECT_EQ(s->discards, 0u);
    EXPECT_EQ(s->replay_full, 0u);
    EXPECT_LE(s->max_unacked, 17u);  // the ack round trip (docs/reliability.md, "Budget")
  }
}

// ---- Collectives on the model ---------------------------------------------------------------

struct Job {
  Topology topo;
  Plan plan;
  Image img;
  std::vector<Bytes> in;
  uint32_t dmem = 0;
};

Job setup(const std::string& topo, DType dtype, uint64_t bytes) {
  Job s;
  s.topo = parse_topology(topo);
  CollectiveSpec c;
  c.coll = Collective::kAllReduce;
  c.dtype = dtype;
  c.op = RedOp::kSum;
  c.bytes = bytes;
  s.plan = plan_collective(s.topo, c);
  s.img = build_image(s.topo, s.plan);
  s.in = make_inputs(s.plan, 1, dtype_is_float(dtype) ? 1 : 0);
  for (int t = 0; t < s.plan.tiles; ++t) s.dmem = std::max(s.dmem, tile_footprint(s.plan, t));
  return s;
}

// Runs `fn` in a forked child (a second System in this process is impossible) and returns the
// number it computes, or ~0 when the child fails.
uint64_t in_child(const std::function<uint64_t()>& fn) {
  std::fflush(stdout);
  int fd[2];
  if (pipe(fd) != 0) return ~0ull;
  const pid_t pid = fork();
  if (pid == 0) {
    close(fd[0]);
    const uint64_t v = fn();
    if (write(fd[1], &v, sizeof v) != sizeof v) _exit(2);
    std::fflush(stdout);
    _exit(0);
  }
  close(fd[1]);
  uint64_t v = ~0ull;
  if (pid < 0 || read(fd[0], &v, sizeof v) != sizeof v) v = ~0ull;
  close(fd[0]);
  int status = 0;
  if (pid > 0) waitpid(pid, &status, 0);
  return v;
}

uint64_t clean_cycles(const Job& s) {
  return in_child([&] {
    const CollectiveRun r = run_on_model(s.topo, s.plan, s.img, s.in);
    return r.stats.ok ? r.stats.cycles : ~0ull;
  });
}

// Sum over every node and link port of one link register's field.
uint64_t sum_reg(System& sys, uint32_t base, uint32_t shift, uint32_t mask) {
  uint64_t sum = 0;
  for (int n = 0; n < sys.num_nodes(); ++n)
    for (int l = 0; l < sys.node(n).num_ports(); ++l)
      sum += (sys.host_read32(n, base + 4 * l) >> shift) & mask;
  return sum;
}

void print_link(const RunStats& st) {
  const LinkStats& k = st.link;
  std::printf(
      "cycles %llu; link words %llu: corrupted %llu, dropped %llu, lost down %llu; "
      "stall cycles %llu; flits %llu + %llu resent (goodput %.3f); replays %llu "
      "(timeouts %llu), NAKs %llu, discards %llu, escalations %llu, replay-full %llu\n",
      (unsigned long long)st.cycles, (unsigned long long)k.words, (unsigned long long)k.corrupted,
      (unsigned long long)k.dropped, (unsigned long long)k.lost_down,
      (unsigned long long)k.stall_cycles, (unsigned long long)k.flits,
      (unsigned long long)k.flits_replayed,
      k.flits ? double(k.flits) / double(k.flits + k.flits_replayed) : 1.0,
      (unsigned long long)k.replays, (unsigned long long)k.timeouts, (unsigned long long)k.naks,
      (unsigned long long)k.discards, (unsigned long long)k.escalations,
      (unsigned long long)k.replay_full);
}

struct FaultCase {
  std::string topo, faults, name;
};
void PrintTo(const FaultCase& c, std::ostream* os) { *os << c.topo << " " << c.faults; }

class ModelFaults : public ::testing::TestWithParam<FaultCase> {};

TEST_P(ModelFaults, AllReduceBitExact) {
  const FaultCase& c = GetParam();
  const Job s = setup(c.topo, DType::kBf16, 16000);
  const FaultSpec f = parse_faults(c.faults);
  std::printf("%s allreduce bf16 sum 16000 bytes, faults %s, inputs seed 1\n", c.topo.c_str(),
              f.str().c_str());
  System sys(s.topo, s.plan.tiles, s.dmem, f);
  const CollectiveRun run = run_on_system(sys, s.plan, s.img, s.in);
  print_link(run.stats);
  ASSERT_TRUE(run.stats.ok) << run.stats.error;
  EXPECT_EQ(run.outputs, run_reference(s.plan, s.in));
  const Check k = check_outputs(s.plan, s.in, run.outputs);
  EXPECT_EQ(k.wrong, 0u);
  EXPECT_EQ(k.not_identical, 0u);
  const LinkStats& l = run.stats.link;
  EXPECT_GT(l.words, 0u);
  EXPECT_EQ(l.accepted, l.flits);  // every flit accepted exactly once
  if (f.wer > 0 || f.ber > 0) {
    EXPECT_GT(l.corrupted, 0u);
  }
  if (f.drop > 0) {
    EXPECT_GT(l.dropped, 0u);
  }
  if (f.stall > 0) {
    EXPECT_GT(l.stall_cycles, 0u);
  }
  if (f.down > 0) {
    EXPECT_GT(l.lost_down, 0u);
  }
  if (f.wer > 0 || f.ber > 0 || f.drop > 0 || f.down > 0) {  // words are lost: flits resent
    EXPECT_GT(l.replays, 0u);
    EXPECT_GT(l.flits_replayed, 0u);
    EXPECT_GT(l.discards, 0u);
  }
  // Random errors cost a replay or two in a row; only a long loss escalates: a direction held
  // down (or its acknowledgements' direction) for about 8 x 64 cycles, which two overlapping
  // downs of 300 cycles can make.
  if (f.down == 0) {
    EXPECT_EQ(l.escalations, 0u);
  }
  // The host port reports the same (no field saturates at these sizes).
  EXPECT_EQ(sum_reg(sys, reg::kLinkCrcErrors, 0, 0xFFFF), l.corrupted);
  EXPECT_EQ(sum_reg(sys, reg::kLinkDiscards, 0, 0xFFFF), l.discards);
  EXPECT_EQ(sum_reg(sys, reg::kLinkDiscards, 16, 0xFFFF), l.timeouts);
  EXPECT_EQ(sum_reg(sys, reg::kLinkStatus, 16, 0xFFFF), l.replays);
  const uint64_t escalated = sum_reg(sys, reg::kLinkStatus, 0, 1);  // sticky: never cleared here
  EXPECT_LE(escalated, l.escalations);
  EXPECT_EQ(escalated > 0, l.escalations > 0);
  // Recovered link errors are not errors: Status bit 31 stays clear.
  for (int n = 0; n < s.topo.num_chips; ++n)
    EXPECT_EQ(sys.host_read32(n, reg::kStatus) >> 31, 0u) << "chip " << n;
}

std::vector<FaultCase> fault_cases() {
  const std::vector<std::pair<std::string, std::string>> kinds = {
      {"wer", "wer=1e-2,seed=3"},
      {"drop", "drop=1e-2,seed=4"},
      {"stall", "stall=0.1,seed=5"},
      {"down", "down=1e-3,downlen=300,seed=6"},
      {"all", "ber=1e-4,wer=1e-2,drop=1e-2,stall=0.1,down=1e-3,downlen=300,seed=7"}};
  std::vector<FaultCase> v;
  for (const char* t : {"ring:4", "tree:(2,3)"})
    for (const auto& k : kinds) {
      std::string name = std::string(t) + "_" + k.first;
      for (auto& ch : name)
        if (!std::isalnum(static_cast<unsigned char>(ch))) ch = '_';
      v.push_back({t, k.second, name});
    }
  return v;
}

INSTANTIATE_TEST_SUITE_P(Kinds, ModelFaults, ::testing::ValuesIn(fault_cases()),
                         [](const ::testing::TestParamInfo<FaultCase>& i) { return i.param.name; });

TEST(ModelFaultsClean, NoFaultsMeansNoRetryLayerAndTheSameCycles) {
  const Job s = setup("ring:8", DType::kFp32, 4096);
  const uint64_t clean = clean_cycles(s);  // run_on_model without a FaultSpec
  System sys(s.topo, s.plan.tiles, s.dmem, FaultSpec{});
  const CollectiveRun run = run_on_system(sys, s.plan, s.img, s.in);
  ASSERT_TRUE(run.stats.ok) << run.stats.error;
  std::printf("ring:8 fp32 4K allreduce: %llu cycles without a FaultSpec, %llu with FaultSpec{}\n",
              (unsigned long long)clean, (unsigned long long)run.stats.cycles);
  EXPECT_EQ(run.stats.cycles, clean);
  EXPECT_EQ(run.outputs, run_reference(s.plan, s.in));
  const LinkStats& l = run.stats.link;
  EXPECT_EQ(l.words + l.flits + l.corrupted + l.dropped + l.lost_down + l.stall_cycles + l.replays +
                l.timeouts + l.discards + l.naks + l.escalations,
            0u);
  for (int n = 0; n < sys.num_nodes(); ++n)
    for (uint32_t a = reg::kLinkCrcErrors; a < reg::kLinkDiscards + reg::kLinkDiscardsSize; a += 4)
      EXPECT_EQ(sys.host_read32(n, a), 0u) << "node " << n << " register 0x" << std::hex << a;
}

// The retry layer on a wire that never fails keeps the clean model's timing to the cycle, so a
// faulty run's extra cycles are the faults' alone.
struct Figure {
  std::string topo;
  DType dtype;
  uint64_t bytes;
  std::string name;
};
void PrintTo(const Figure& c, std::ostream* os) {
  *os << c.topo << " " << to_string(c.dtype) << " " << c.bytes << " bytes";
}

class ModelFaultsCleanWire : public ::testing::TestWithParam<Figure> {};

TEST_P(ModelFaultsCleanWire, RetryLayerOnACleanWireAddsNoCycle) {
  const Figure& c = GetParam();
  const Job s = setup(c.topo, c.dtype, c.bytes);
  const uint64_t clean = clean_cycles(s);
  FaultSpec f;
  f.drop = 1e-300;  // any() is true: every link gets the retry layer
  const CollectiveRun run = run_on_model(s.topo, s.plan, s.img, s.in, 2'000'000'000, nullptr, f);
  ASSERT_TRUE(run.stats.ok) << run.stats.error;
  std::printf("%s %s %llu bytes allreduce: clean %llu cycles, retry layer on a clean wire %llu\n",
              c.topo.c_str(), to_string(c.dtype), (unsigned long long)c.bytes,
              (unsigned long long)clean, (unsigned long long)run.stats.cycles);
  EXPECT_EQ(run.stats.cycles, clean);
  EXPECT_EQ(run.outputs, run_reference(s.plan, s.in));
  EXPECT_GT(run.stats.link.flits, 0u);
  EXPECT_EQ(run.stats.link.flits_replayed, 0u);
  EXPECT_EQ(run.stats.link.replay_full, 0u);
}

// fabric run --topology ladder:8 --collective allreduce --dtype bf16 --op sum --bytes 64K prints
// 1882 cycles, ring:8 fp32 4K 787.
INSTANTIATE_TEST_SUITE_P(
    Figures, ModelFaultsCleanWire,
    ::testing::Values(Figure{"ladder:8", DType::kBf16, 65536, "ladder_8_bf16_64K"},
                      Figure{"ring:8", DType::kFp32, 4096, "ring_8_fp32_4K"},
                      Figure{"tree:(2,3)", DType::kInt16, 6000, "tree_2_3_int16_6000"}),
    [](const ::testing::TestParamInfo<Figure>& i) { return i.param.name; });

// Under faults every stream (source chip, source tile, link) carries the same packets, in the
// same order, with the same payloads as on a clean run: the retry layer hides the faults from
// everything above the link (docs/reliability.md section 7, what --backend both checks).
uint64_t stream_digest(const std::vector<PacketEvent>& ev) {
  std::map<std::tuple<int, int, int, int>, uint32_t> streams;  // (node, port, chip, tile) -> CRC
  for (const PacketEvent& e : ev) {
    uint32_t& c = streams[{e.node, e.port, e.hdr.src_chip, e.hdr.src_tile}];
    const uint32_t fields[] = {e.hdr.seq,      e.hdr.dst_chip, e.hdr.dst_tile,
                               e.hdr.dst_addr, e.hdr.len,      static_cast<uint32_t>(e.hdr.opcode),
                               e.payload_crc};
    c = crc32_update(c, reinterpret_cast<const uint8_t*>(fields), sizeof fields);
  }
  uint64_t d = streams.size();
  for (const auto& [key, c] : streams) {
    const auto [n, p, sc, st] = key;
    const uint32_t k[] = {static_cast<uint32_t>(n), static_cast<uint32_t>(p),
                          static_cast<uint32_t>(sc), static_cast<uint32_t>(st), c};
    d = d * 0x100000001B3ull ^ crc32_update(0, reinterpret_cast<const uint8_t*>(k), sizeof k);
  }
  return d;
}

TEST(ModelFaultsStreams, EveryPacketStreamIsTheCleanRunsUnderFaults) {
  const Job s = setup("tree:(2,3)", DType::kFp32, 12000);
  const uint64_t clean = in_child([&] {
    std::vector<PacketEvent> ev;
    const CollectiveRun r = run_on_model(s.topo, s.plan, s.img, s.in, 2'000'000'000,
                                         [&](const PacketEvent& e) { ev.push_back(e); });
    return r.stats.ok ? stream_digest(ev) : ~0ull;
  });
  const FaultSpec f = parse_faults("wer=2e-2,drop=1e-2,stall=0.1,down=1e-3,downlen=200,seed=9");
  std::printf("faults %s\n", f.str().c_str());
  std::vector<PacketEvent> ev;
  const CollectiveRun run = run_on_model(
      s.topo, s.plan, s.img, s.in, 2'000'000'000, [&](const PacketEvent& e) { ev.push_back(e); },
      f);
  print_link(run.stats);
  ASSERT_TRUE(run.stats.ok) << run.stats.error;
  EXPECT_GT(run.stats.link.flits_replayed, 0u);
  EXPECT_FALSE(ev.empty());
  EXPECT_EQ(stream_digest(ev), clean);
  EXPECT_EQ(run.outputs, run_reference(s.plan, s.in));
}

// A link held down for a long time replays again and again without progress: it escalates
// (LinkStatus bit 0, sticky), keeps retrying, recovers when the link comes back, and the
// collective still ends bit-exact. Control bit 1 clears the bit and nothing else of the register.
TEST(ModelFaultsEscalation, LongDownEscalatesAndControlBit1Clears) {
  const Job s = setup("ring:4", DType::kBf16, 16000);
  const FaultSpec f = parse_faults("down=3e-4,downlen=2000,seed=3");
  std::printf("ring:4 allreduce bf16 16000 bytes, faults %s\n", f.str().c_str());
  System sys(s.topo, s.plan.tiles, s.dmem, f);
  const CollectiveRun run = run_on_system(sys, s.plan, s.img, s.in);
  print_link(run.stats);
  ASSERT_TRUE(run.stats.ok) << run.stats.error;
  EXPECT_EQ(run.outputs, run_reference(s.plan, s.in));
  EXPECT_GT(run.stats.link.escalations, 0u);
  EXPECT_GT(run.stats.link.timeouts, 0u);
  std::vector<std::pair<int, int>> escalated;
  std::vector<uint32_t> before;
  for (int n = 0; n < sys.num_nodes(); ++n)
    for (int l = 0; l < sys.node(n).num_ports(); ++l) {
      const uint32_t v = sys.host_read32(n, reg::kLinkStatus + 4 * l);
      if (v & 1) escalated.push_back({n, l});
      before.push_back(v);
    }
  ASSERT_FALSE(escalated.empty());
  for (const auto& [n, l] : escalated) std::printf("escalated: node %d link %d\n", n, l);
  EXPECT_EQ(sys.host_read32(escalated[0].first, reg::kStatus) >> 31, 0u);  // a warning only
  for (int n = 0; n < sys.num_nodes(); ++n) sys.host_write32(n, reg::kControl, 2);
  size_t i = 0;
  for (int n = 0; n < sys.num_nodes(); ++n)
    for (int l = 0; l < sys.node(n).num_ports(); ++l, ++i)
      EXPECT_EQ(sys.host_read32(n, reg::kLinkStatus + 4 * l), before[i] & ~1u)
          << "node " << n << " link " << l;
}

}  // namespace
