// Block-level and error-path tests of the SystemC model, with hand-written programs.
//
// Space covered: the barrier across all tiles of all chips; the XB under four tiles
// contending for one link plus local traffic (queue never above its depth, every byte
// delivered); each tile error (illegal instruction, SEND outside the data memory, SEND with a
// control opcode, a received packet with a bad opcode or outside the memory, a packet for a
// tile that does not exist) is reported with its cause and nothing outside the window is
// written; a program that waits forever is turned into a watchdog error that names the chip,
// tile and counter; the host port rejects addresses that hit nothing; switches of 17 to 65 ports
// report their ports (Ports whole, Config bits 11:8 saturating) and a full routing-table lane.
// Every receive check (ErrCheck Opcode, Length, Pair, Window, Short, Long, Headless) with
// TileErrInfo (check and source), TileErrCount and the whole data memory compared before and after
// (a bad packet writes only inside [dst_addr, dst_addr + len), and only Short/Long ones at all);
// the tile watchdog (TileWatchdog) for each WaitKind with its exact period rule (the RTL test
// checks the same cycle counts), silent with period 0 and while progress is made; Control bit 1
// clears TileErrInfo/TileErrCount and keeps TileWatchdog. The host port's AluConfig (0xFF on chips,
// 0 on a switch) and DoneCycles (each chip's last End + 3 cycles after the start, held across a
// clear, 0 before the first start and on a switch; the same numbers as the RTL's
// HostPort.AluConfigAndDoneCycles). ScaleAdd (fp32 a + s*b) through a tile's Reduce to itself:
// the factor s is CSR 17 as the last Csrw left it (1.0 before any), bit-exact against `a + s*b`
// in volatile floats (two roundings), and Csrw to CSR 19 is an IllegalInstr. One case per
// process.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <functional>
#include <random>

#include "model_test_main.hpp"
#include "system.hpp"
#include "xf/compiler.hpp"

using namespace xf;
using namespace xf::model;
using isa::enc;

namespace {

void load(System& sys, int chip, int tile, const std::vector<uint64_t>& prog) {
  sys.host_write(chip, reg::kTileBase + tile * reg::kTileStride + reg::kTileImem, prog.data(),
                 prog.size() * 8);
}

uint32_t send_imm(unsigned tile, Opcode popc = Opcode::kWrite) {
  SendDesc d;
  d.tile = tile;
  d.popc = popc;
  return pack_send_imm(d);
}

}  // namespace

TEST(ModelBlocks, BarrierReleasesOnlyWhenAllTilesArrive) {
  const Topology topo = parse_topology("ring:3");
  System sys(topo, 2, 4096);
  // Chip 0 tile 0 spins 500 iterations before the barrier; everyone else goes straight in.
  const std::vector<uint64_t> fast = {enc(Isa::kBar, 0, 0, 0, 0, 0, 0),
                                      enc(Isa::kGeti, 1, 0, 0, 0, 0, 3),  // r1 = cycle
                                      enc(Isa::kEnd, 0, 0, 0, 0, 0, 0)};
  const std::vector<uint64_t> slow = {
      enc(Isa::kLi, 2, 0, 0, 0, 0, 500), enc(Isa::kAddi, 2, 2, 0, 0, 0, 0xFFFFFFFF),
      enc(Isa::kBne, 0, 2, 0, 0, 0, 1), enc(Isa::kBar, 0, 0, 0, 0, 0, 0),
      enc(Isa::kEnd, 0, 0, 0, 0, 0, 0)};
  for (int c = 0; c < 3; ++c)
    for (int t = 0; t < 2; ++t) load(sys, c, t, c == 0 && t == 0 ? slow : fast);
  const RunStats st = sys.run(100000);
  ASSERT_TRUE(st.ok) << st.error;
  // Nobody can finish before the slow tile has spun (2 instructions x 500 iterations).
  EXPECT_GE(st.cycles, 1000u);
  for (int c = 0; c < 3; ++c) EXPECT_EQ(sys.host_read32(c, reg::kStatus), 3u);
}

TEST(ModelBlocks, XbUnderContentionNeverOverflowsAndDeliversEverything) {
  const Topology topo = parse_topology("ring:2");
  const uint32_t kBytes = 16384;
  System sys(topo, 4, 4 * kBytes);
  for (int c = 0; c < 2; ++c)
    sys.host_write(c, reg::kRouteTable, std::vector<uint8_t>(kNumLanes * 2, 0).data(),
                   kNumLanes * 2);
  // Every tile of chip 0 sends two 8 KiB jobs to chip 1 (same link, same XB) interleaved with
  // a local job to its neighbour tile, so sessions, XOFF and local arbitration all happen.
  for (int t = 0; t < 4; ++t) {
    std::vector<uint8_t> d(kBytes);
    for (uint32_t i = 0; i < kBytes; ++i) d[i] = static_cast<uint8_t>(i * 7 + t * 13);
    sys.host_write(0, reg::kTileBase + t * reg::kTileStride + reg::kTileDmem, d.data(), kBytes);
    const std::vector<uint64_t> prog = {
        enc(Isa::kLi, 1, 0, 0, 0, 0, 0),           // local addr
        enc(Isa::kLi, 2, 0, 0, 0, 0, kBytes / 2),  // bytes
        enc(Isa::kLi, 3, 0, 0, 0, 0, 1),           // dst chip 1
        enc(Isa::kLi, 4, 0, 0, 0, 0, 0),           // dst addr
        enc(Isa::kSend, 0, 1, 2, 3, 4, send_imm(t)),
        enc(Isa::kLi, 5, 0, 0, 0, 0, 0),       // dst chip 0 (local)
        enc(Isa::kLi, 6, 0, 0, 0, 0, kBytes),  // into the neighbour's upper half
        enc(Isa::kSend, 0, 1, 2, 5, 6, send_imm((t + 1) % 4)),
        enc(Isa::kLi, 1, 0, 0, 0, 0, kBytes / 2),
        enc(Isa::kLi, 4, 0, 0, 0, 0, kBytes / 2),
        enc(Isa::kSend, 0, 1, 2, 3, 4, send_imm(t)),
        enc(Isa::kEnd, 0, 0, 0, 0, 0, 0)};
    load(sys, 0, t, prog);
    // Chip 1's tiles also feed their neighbours' receive ports, so the link's receive side
    // drains at about half rate, the credits run out and chip 0's XB queue reaches XOFF.
    load(sys, 1, t,
         {enc(Isa::kLi, 1, 0, 0, 0, 0, 2 * kBytes), enc(Isa::kLi, 2, 0, 0, 0, 0, kBytes),
          enc(Isa::kLi, 5, 0, 0, 0, 0, 1), enc(Isa::kLi, 6, 0, 0, 0, 0, 3 * kBytes),
          enc(Isa::kSend, 0, 1, 2, 5, 6, send_imm((t + 1) % 4)),
          enc(Isa::kLi, 1, 0, 0, 0, 0, 2 * kBytes / 16), enc(Isa::kWait, 0, 1, 0, 0, 0, 0),
          enc(Isa::kEnd, 0, 0, 0, 0, 0, 0)});
  }
  const RunStats st = sys.run(1000000);
  ASSERT_TRUE(st.ok) << st.error;
  EXPECT_EQ(st.xb_overflows, 0u);
  EXPECT_LE(st.xb_max_occupancy, kXbQueueFlits);
  EXPECT_GE(st.xb_max_occupancy, kXbXoffThresholdFlits) << "the test should reach XOFF";
  std::printf("cycles %llu, XB max occupancy %u of %u\n",
              static_cast<unsigned long long>(st.cycles), st.xb_max_occupancy, kXbQueueFlits);
  for (int t = 0; t < 4; ++t) {
    std::vector<uint8_t> got(kBytes), local(kBytes / 2);
    sys.host_read(1, reg::kTileBase + t * reg::kTileStride + reg::kTileDmem, got.data(), kBytes);
    const int from = (t + 3) % 4;
    sys.host_read(0, reg::kTileBase + t * reg::kTileStride + reg::kTileDmem + kBytes, local.data(),
                  kBytes / 2);
    for (uint32_t i = 0; i < kBytes; ++i)
      ASSERT_EQ(got[i], static_cast<uint8_t>(i * 7 + t * 13)) << "tile " << t << " byte " << i;
    for (uint32_t i = 0; i < kBytes / 2; ++i)
      ASSERT_EQ(local[i], static_cast<uint8_t>(i * 7 + from * 13)) << "local tile " << t;
  }
}

namespace {

RunStats run_one(const std::vector<uint64_t>& prog, System& sys) {
  load(sys, 0, 0, prog);
  load(sys, 1, 0, {enc(Isa::kEnd, 0, 0, 0, 0, 0, 0)});
  return sys.run(200000, 5000);
}

}  // namespace

TEST(ModelBlocks, IllegalInstructionIsReported) {
  System sys(parse_topology("ring:2"), 1, 1024);
  const RunStats st = run_one({enc(Isa::kNop, 0, 0, 0, 0, 0, 0), 0xFF00000000000000ull}, sys);
  ASSERT_FALSE(st.ok);
  EXPECT_NE(st.error.find("illegalinstr"), std::string::npos) << st.error;
  EXPECT_NE(st.error.find("pc 1"), std::string::npos) << st.error;
  EXPECT_EQ(sys.host_read32(0, reg::kStatus) >> 31, 1u);
  EXPECT_EQ(sys.host_read32(0, reg::kTileBase + reg::kTileStatus) & 15u,
            static_cast<uint32_t>(TileErr::kIllegalInstr));
}

TEST(ModelBlocks, SendOutsideDataMemoryIsRefused) {
  System sys(parse_topology("ring:2"), 1, 1024);
  const RunStats st =
      run_one({enc(Isa::kLi, 1, 0, 0, 0, 0, 1008), enc(Isa::kLi, 2, 0, 0, 0, 0, 32),
               enc(Isa::kLi, 3, 0, 0, 0, 0, 1), enc(Isa::kSend, 0, 1, 2, 3, 0, send_imm(0)),
               enc(Isa::kEnd, 0, 0, 0, 0, 0, 0)},
              sys);
  ASSERT_FALSE(st.ok);
  EXPECT_NE(st.error.find("dmemrange"), std::string::npos) << st.error;
}

TEST(ModelBlocks, SendWithControlOpcodeIsRefused) {
  System sys(parse_topology("ring:2"), 1, 1024);
  const RunStats st = run_one({enc(Isa::kLi, 2, 0, 0, 0, 0, 16), enc(Isa::kLi, 3, 0, 0, 0, 0, 1),
                               enc(Isa::kSend, 0, 0, 2, 3, 0, send_imm(0, Opcode::kXreq)),
                               enc(Isa::kEnd, 0, 0, 0, 0, 0, 0)},
                              sys);
  ASSERT_FALSE(st.ok);
  EXPECT_NE(st.error.find("only write and reduce"), std::string::npos) << st.error;
}

TEST(ModelBlocks, PacketForMissingTileIsDroppedAndCounted) {
  System sys(parse_topology("ring:2"), 1, 1024);
  for (int c = 0; c < 2; ++c)
    sys.host_write(c, reg::kRouteTable, std::vector<uint8_t>(kNumLanes * 2, 0).data(),
                   kNumLanes * 2);
  const RunStats st =
      run_one({enc(Isa::kLi, 2, 0, 0, 0, 0, 16), enc(Isa::kLi, 3, 0, 0, 0, 0, 1),
               enc(Isa::kSend, 0, 0, 2, 3, 0, send_imm(9)), enc(Isa::kEnd, 0, 0, 0, 0, 0, 0)},
              sys);
  ASSERT_FALSE(st.ok);
  EXPECT_EQ(st.misroutes, 1u);
  EXPECT_NE(st.error.find("unknown destination"), std::string::npos) << st.error;
}

TEST(ModelBlocks, BadReceivedPacketsNeverWriteOutsideTheWindow) {
  System sys(parse_topology("ring:2"), 1, 1024);
  Tile& tl = sys.node(0).tile(0);
  auto inject = [&](Opcode opc, uint32_t addr, uint16_t len) {
    Header h;
    h.opcode = opc;
    h.dst_addr = addr;
    h.len = len;
    h.src_chip = 1;
    Flit f;
    f.head = true;
    f.tail = len == 0;
    const auto w = pack_header(h);
    std::memcpy(f.data.data(), w.data(), sizeof w);
    tl.in.push(0, f);
    for (uint16_t i = 0; i < len / 16; ++i) {
      Flit p;
      p.tail = i + 1 == len / 16;
      p.data.fill(0xAB);
      tl.in.push(0, p);
    }
  };
  inject(Opcode::kWrite, 1024 - 16, 32);  // runs past the end of the data memory
  load(sys, 0, 0, {enc(Isa::kEnd, 0, 0, 0, 0, 0, 0)});
  load(sys, 1, 0, {enc(Isa::kEnd, 0, 0, 0, 0, 0, 0)});
  const RunStats st = sys.run(10000, 2000);
  ASSERT_FALSE(st.ok);
  EXPECT_NE(st.error.find("dmemrange"), std::string::npos) << st.error;
  for (uint8_t b : tl.dmem) ASSERT_EQ(b, 0) << "a dropped packet wrote memory";
}

TEST(ModelBlocks, BadOpcodePacketIsDropped) {
  System sys(parse_topology("ring:2"), 1, 1024);
  Tile& tl = sys.node(0).tile(0);
  Header h;
  h.opcode = static_cast<Opcode>(13);
  h.len = 16;
  Flit f;
  f.head = true;
  const auto w = pack_header(h);
  std::memcpy(f.data.data(), w.data(), sizeof w);
  tl.in.push(0, f);
  Flit p;
  p.tail = true;
  p.data.fill(0x5A);
  tl.in.push(0, p);
  load(sys, 0, 0, {enc(Isa::kEnd, 0, 0, 0, 0, 0, 0)});
  load(sys, 1, 0, {enc(Isa::kEnd, 0, 0, 0, 0, 0, 0)});
  const RunStats st = sys.run(10000, 2000);
  ASSERT_FALSE(st.ok);
  EXPECT_NE(st.error.find("badpacket"), std::string::npos) << st.error;
  for (uint8_t b : tl.dmem) ASSERT_EQ(b, 0);
}

TEST(ModelBlocks, WaitForeverBecomesAWatchdogErrorNamingTheWait) {
  System sys(parse_topology("ring:2"), 1, 1024);
  const RunStats st = run_one({enc(Isa::kLi, 1, 0, 0, 0, 0, 5), enc(Isa::kWait, 0, 1, 0, 0, 0, 3),
                               enc(Isa::kEnd, 0, 0, 0, 0, 0, 0)},
                              sys);
  ASSERT_FALSE(st.ok);
  EXPECT_NE(st.error.find("watchdog"), std::string::npos) << st.error;
  EXPECT_NE(st.error.find("chip 0 tile 0"), std::string::npos) << st.error;
  EXPECT_NE(st.error.find("WAIT counter 3 >= 5"), std::string::npos) << st.error;
}

TEST(ModelBlocks, HostPortRejectsUnmappedAddresses) {
  System sys(parse_topology("ring:2"), 1, 1024);
  uint32_t v = 0;
  // The first address after the link registers (0x80 is LinkDiscards since the retry layer).
  EXPECT_THROW(sys.host_read(0, reg::kLinkDiscards + reg::kLinkDiscardsSize, &v, 4),
               std::out_of_range);
  EXPECT_THROW(sys.host_write(0, reg::kTileBase + 5 * reg::kTileStride, &v, 4), std::out_of_range);
  EXPECT_THROW(sys.host_read(7, reg::kStatus, &v, 4), std::out_of_range);
  try {
    sys.host_write(0, 0x00F00000, &v, 4);
  } catch (const std::out_of_range& e) {
    EXPECT_NE(std::string(e.what()).find("0xf00000"), std::string::npos) << e.what();
  }
  sys.host_write32(0, reg::kIndexWr, 42);
  EXPECT_EQ(sys.host_read32(0, reg::kChipId), 42u);
}

// Switch nodes of 17, 33 and 65 ports (issue 26): Config's 4-bit port field saturates at 15
// instead of carrying into the routing-table field (which the host driver reads to size its table
// writes), the Ports register has the whole count, and the driver's write of a full lane fits.
TEST(ModelBlocks, WideSwitchesReportTheirPortsAndAFullTable) {
  const Topology topo = parse_topology("tree:(16,32,64)");
  System sys(topo, 1, 1024);
  const std::vector<uint8_t> lane(kMaxChips, 0xFF);
  for (int n = 0; n < topo.num_nodes; ++n) {
    const uint32_t config = sys.host_read32(n, reg::kConfig);
    const uint32_t ports = static_cast<uint32_t>(topo.num_ports[n]);
    EXPECT_EQ(sys.host_read32(n, reg::kPorts), ports) << "node " << n;
    EXPECT_EQ((config >> 8) & 0xFu, std::min(ports, 15u)) << "node " << n;
    EXPECT_EQ((config >> 12) & 0xFu, 12u) << "node " << n;  // the 4096-chip table
    EXPECT_EQ(config & 0x1Fu, n < topo.num_chips ? 1u : 0u) << "node " << n;
    EXPECT_EQ((config >> 5) & 7u, 4u) << "node " << n;  // 2^4 = 16-byte flits
    const uint32_t table_chips = 1u << ((config >> 12) & 0xFu);
    EXPECT_NO_THROW(sys.host_write(n, reg::kRouteTable + 3 * kMaxChips, lane.data(), table_chips))
        << "node " << n;
  }
  EXPECT_EQ(sys.host_read32(topo.num_nodes - 1, reg::kPorts), 65u);
}

TEST(ModelBlocks, LocalSendToMissingTileIsAnErrorNotAStall) {
  System sys(parse_topology("ring:2"), 2, 1024);
  const RunStats st = run_one({enc(Isa::kLi, 2, 0, 0, 0, 0, 16),
                               enc(Isa::kSend, 0, 0, 2, 0, 0, send_imm(9)),  // chip 0 = self
                               enc(Isa::kEnd, 0, 0, 0, 0, 0, 0)},
                              sys);
  ASSERT_FALSE(st.ok);
  EXPECT_NE(st.error.find("no route to chip 0 tile 9"), std::string::npos) << st.error;
  EXPECT_EQ(st.error.find("watchdog"), std::string::npos) << st.error;
}

TEST(ModelBlocks, RouteEntryNamingAMissingPortIsAnError) {
  System sys(parse_topology("ring:2"), 1, 1024);
  std::vector<uint8_t> route(kNumLanes * kMaxChips, 255);
  route[1] = 7;  // lane 0, chip 1 -> port 7: ring:2 chips have ports 0 and 1
  sys.host_write(0, reg::kRouteTable, route.data(), route.size());
  const RunStats st =
      run_one({enc(Isa::kLi, 2, 0, 0, 0, 0, 16), enc(Isa::kLi, 3, 0, 0, 0, 0, 1),
               enc(Isa::kSend, 0, 0, 2, 3, 0, send_imm(0)), enc(Isa::kEnd, 0, 0, 0, 0, 0, 0)},
              sys);
  ASSERT_FALSE(st.ok);
  EXPECT_NE(st.error.find("check the routing table"), std::string::npos) << st.error;
}

TEST(ModelBlocks, SendBeyondTheDestinationAddressSpaceIsRefused) {
  System sys(parse_topology("ring:2"), 1, 1024);
  const RunStats st =
      run_one({enc(Isa::kLi, 2, 0, 0, 0, 0, 32), enc(Isa::kLi, 3, 0, 0, 0, 0, 1),
               enc(Isa::kLi, 4, 0, 0, 0, 0, (1u << 24) - 16),
               enc(Isa::kSend, 0, 0, 2, 3, 4, send_imm(0)), enc(Isa::kEnd, 0, 0, 0, 0, 0, 0)},
              sys);
  ASSERT_FALSE(st.ok);
  EXPECT_NE(st.error.find("24-bit"), std::string::npos) << st.error;
}

// ScaleAdd end to end in the model: tile 0 of chip 0 sends three fp32 ScaleAdd Reduce packets of
// 64 bytes to itself (b at 0x100.., onto a at 0x000..), the first with the CSR 17 value of a
// start (1.0), the second after `Csrw 17` = -0.1f, the third after `Csrw 17` = 1 + 2^-12; it waits
// for each, then executes `Csrw 19`, which fails with IllegalInstr at its pc. Data: random fp32
// with a quarter specials (zeros, subnormals, infinities, NaNs) and one lane whose product is a
// rounding tie (s = b = 1 + 2^-12, a = -(1 + 2^-11): 0 with two roundings, 2^-24 with one).
// Every result is compared with `float p = s * b; float r = a + p;` in volatile floats.
TEST(ModelBlocks, ScaleAddUsesCsr17AndRoundsTwice) {
  System sys(parse_topology("ring:2"), 1, 1024);
  constexpr uint32_t kA = 0x000, kB = 0x100, kRegion = 64, kFloats = 3 * kRegion / 4;
  const uint32_t scales[3] = {0x3F800000u, 0xBDCCCCCDu, 0x3F800800u};
  std::mt19937_64 rng(0x5CA1EADDu);
  std::printf("[   SEED   ] ScaleAddUsesCsr17AndRoundsTwice: 0x5CA1EADD (fixed)\n");
  const uint32_t specials[] = {0x00000000u, 0x80000000u, 0x00000001u, 0x807FFFFFu, 0x00800000u,
                               0x7F7FFFFFu, 0x7F800000u, 0xFF800000u, 0x7FC00000u, 0xFF800001u};
  std::vector<uint32_t> a(kFloats), b(kFloats);
  for (uint32_t i = 0; i < kFloats; ++i) {
    for (uint32_t* v : {&a[i], &b[i]}) {
      const uint64_t x = rng();
      *v = (x & 3u) == 0 ? specials[(x >> 8) % 10]
                         : (static_cast<uint32_t>(x >> 32) & 0x807FFFFFu) |
                               static_cast<uint32_t>((x >> 8) % 60u + 97u) << 23;
    }
  }
  a[kFloats - 1] = 0xBF801000u;  // the tie lane, in the third region
  b[kFloats - 1] = 0x3F800800u;
  const uint32_t dmem = reg::kTileBase + reg::kTileDmem;
  sys.host_write(0, dmem + kA, a.data(), a.size() * 4);
  sys.host_write(0, dmem + kB, b.data(), b.size() * 4);

  SendDesc d;
  d.popc = Opcode::kReduce;
  d.dtype = DType::kFp32;
  d.op = RedOp::kScaleAdd;
  const uint32_t imm = pack_send_imm(d);
  std::vector<uint64_t> prog = {enc(Isa::kLi, 2, 0, 0, 0, 0, kRegion),
                                enc(Isa::kLi, 3, 0, 0, 0, 0, 0)};  // 64 bytes to chip 0
  for (uint32_t r = 0; r < 3; ++r) {
    if (r > 0) {
      prog.push_back(enc(Isa::kLi, 10, 0, 0, 0, 0, scales[r]));
      prog.push_back(enc(Isa::kCsrw, 0, 10, 0, 0, 0, 17));
    }
    prog.push_back(enc(Isa::kLi, 1, 0, 0, 0, 0, kB + r * kRegion));
    prog.push_back(enc(Isa::kLi, 4, 0, 0, 0, 0, kA + r * kRegion));
    prog.push_back(enc(Isa::kSend, 0, 1, 2, 3, 4, imm));
    prog.push_back(enc(Isa::kLi, 5, 0, 0, 0, 0, (r + 1) * kRegion / 16));
    prog.push_back(enc(Isa::kWait, 0, 5, 0, 0, 0, 0));  // counter 0 >= flits so far
  }
  const uint32_t bad_pc = static_cast<uint32_t>(prog.size());
  prog.push_back(enc(Isa::kCsrw, 0, 10, 0, 0, 0, 19));  // CSRs are 16, 17 and 18
  prog.push_back(enc(Isa::kEnd, 0, 0, 0, 0, 0, 0));
  const RunStats st = run_one(prog, sys);
  ASSERT_FALSE(st.ok);
  EXPECT_NE(st.error.find("illegalinstr"), std::string::npos) << st.error;
  const uint32_t status = sys.host_read32(0, reg::kTileBase + reg::kTileStatus);
  EXPECT_EQ(status & 15u, static_cast<uint32_t>(TileErr::kIllegalInstr));
  EXPECT_EQ(status >> 16, bad_pc);

  std::vector<uint32_t> got(kFloats);
  sys.host_read(0, dmem + kA, got.data(), got.size() * 4);
  for (uint32_t i = 0; i < kFloats; ++i) {
    const uint32_t s = scales[i / (kRegion / 4)];
    volatile float fs, fb, fa;
    std::memcpy(const_cast<float*>(&fs), &s, 4);
    std::memcpy(const_cast<float*>(&fb), &b[i], 4);
    std::memcpy(const_cast<float*>(&fa), &a[i], 4);
    volatile float p = fs * fb;
    volatile float r = fa + p;
    const float rf = r;
    uint32_t want;
    std::memcpy(&want, &rf, 4);
    if (std::isnan(rf)) want = 0x7FC00000u;
    EXPECT_EQ(got[i], want) << std::hex << "float " << std::dec << i << std::hex << ": a 0x" << a[i]
                            << " s 0x" << s << " b 0x" << b[i];
  }
  EXPECT_EQ(got[kFloats - 1], 0x00000000u) << "two roundings: (1 + 2^-12)^2 rounds to 1 + 2^-11";
  std::printf("[  VECTORS ] ScaleAddUsesCsr17AndRoundsTwice: %u floats in 3 packets\n", kFloats);
}

TEST(ModelBlocks, WatchdogSetsTheTileStatusCode) {
  System sys(parse_topology("ring:2"), 1, 1024);
  const RunStats st = run_one({enc(Isa::kLi, 1, 0, 0, 0, 0, 1), enc(Isa::kWait, 0, 1, 0, 0, 0, 0),
                               enc(Isa::kEnd, 0, 0, 0, 0, 0, 0)},
                              sys);
  ASSERT_FALSE(st.ok);
  const uint32_t status = sys.host_read32(0, reg::kTileBase + reg::kTileStatus);
  EXPECT_EQ(status & 15u, static_cast<uint32_t>(TileErr::kWatchdog));
  EXPECT_EQ(status >> 16, 1u) << "pc of the WAIT";
  EXPECT_EQ(sys.host_read32(0, reg::kStatus) >> 31, 1u);
}

// AluConfig and DoneCycles (docs/chip.md section 3) on tree:3 (chips 0..2, switch 3), 2 tiles per
// chip. Every tile loops N = 10 * index + 3 * tile + 5 times after 8 straight instructions, so
// its End retires in collective cycle 8 + 3N (the start's bubble, then 3 cycles per iteration with
// its taken branch and 2 for the last) and chip i's DoneCycles is its tile 1's End + 3 = 35 +
// 30 i; the run takes 8 + 3 * 28 + 1 = 93 cycles = chip 2's DoneCycles - 2. The RTL test
// HostPort.AluConfigAndDoneCycles expects the same numbers.
TEST(ModelBlocks, AluConfigAndDoneCyclesOfChipsAndSwitch) {
  const Topology topo = parse_topology("tree:3");
  System sys(topo, 2, 1024);
  const std::vector<uint64_t> prog = {
      enc(Isa::kGeti, 2, 0, 0, 0, 0, 0),            // 0: r2 = index
      enc(Isa::kGeti, 3, 0, 0, 0, 0, 1),            // 1: r3 = tile
      enc(Isa::kLi, 4, 0, 0, 0, 0, 10),             // 2
      enc(Isa::kMul, 1, 2, 4, 0, 0, 0),             // 3: r1 = 10 * index
      enc(Isa::kLi, 4, 0, 0, 0, 0, 3),              // 4
      enc(Isa::kMul, 5, 3, 4, 0, 0, 0),             // 5: r5 = 3 * tile
      enc(Isa::kAdd, 1, 1, 5, 0, 0, 0),             // 6
      enc(Isa::kAddi, 1, 1, 0, 0, 0, 5),            // 7: r1 = N
      enc(Isa::kAddi, 1, 1, 0, 0, 0, 0xFFFFFFFFu),  // 8: loop: r1 -= 1
      enc(Isa::kBne, 0, 1, 0, 0, 0, 8),             // 9: while r1 != 0
      enc(Isa::kEnd, 0, 0, 0, 0, 0, 0)};            // 10: cycle 8 + 3N
  for (int c = 0; c < 3; ++c) {
    sys.host_write32(c, reg::kIndexWr, static_cast<uint32_t>(c));
    for (int t = 0; t < 2; ++t) load(sys, c, t, prog);
  }
  for (int n = 0; n < 4; ++n) {
    EXPECT_EQ(sys.host_read32(n, reg::kAluConfig), n < 3 ? 0xFFu : 0u) << "node " << n;
    EXPECT_EQ(sys.host_read32(n, reg::kDoneCycles), 0u) << "node " << n << " before a start";
  }
  for (int run = 0; run < 2; ++run) {
    const RunStats st = sys.run(100000);
    ASSERT_TRUE(st.ok) << st.error;
    EXPECT_EQ(st.cycles, 93u);
    for (int c = 0; c < 3; ++c)
      EXPECT_EQ(sys.host_read32(c, reg::kDoneCycles), 35u + 30u * c) << "chip " << c;
    EXPECT_EQ(sys.host_read32(3, reg::kDoneCycles), 0u) << "switch";
    for (int c = 0; c < 3; ++c) sys.host_write32(c, reg::kControl, 2);  // clear: kept
    for (int c = 0; c < 3; ++c)
      EXPECT_EQ(sys.host_read32(c, reg::kDoneCycles), 35u + 30u * c) << "chip " << c;
  }
  sys.host_write32(0, reg::kControl, 1);  // a start: 0 until the tiles are done again
  EXPECT_EQ(sys.host_read32(0, reg::kDoneCycles), 0u);
}

TEST(ModelBlocks, HostPortReadsBackProgramsAndCountsCyclesFromStart) {
  System sys(parse_topology("ring:2"), 1, 1024);
  const std::vector<uint64_t> prog = {
      enc(Isa::kLi, 1, 0, 0, 0, 0, 300), enc(Isa::kAddi, 1, 1, 0, 0, 0, 0xFFFFFFFF),
      enc(Isa::kBne, 0, 1, 0, 0, 0, 1), enc(Isa::kEnd, 0, 0, 0, 0, 0, 0)};
  const std::vector<uint32_t> params = {11, 22, 33};
  const uint32_t base = reg::kTileBase;
  sys.host_write(0, base + reg::kTilePmem, params.data(), 12);
  const RunStats st = run_one(prog, sys);
  ASSERT_TRUE(st.ok) << st.error;
  std::vector<uint64_t> im(prog.size());
  std::vector<uint32_t> pm(3);
  sys.host_read(0, base + reg::kTileImem, im.data(), im.size() * 8);
  sys.host_read(0, base + reg::kTilePmem, pm.data(), 12);
  EXPECT_EQ(im, prog);
  EXPECT_EQ(pm, params);
  const uint32_t cycles = sys.host_read32(0, reg::kCycles);
  EXPECT_GE(cycles, 600u);  // 300 iterations of two instructions since the start
  EXPECT_LT(cycles, 5000u);
  EXPECT_EQ(sys.host_read32(0, reg::kTileBase + reg::kTileStatus) & 16u, 16u) << "done";
}

namespace {

// Flits of a packet as another sender would inject them into a tile's receive pipe at a flit of
// `w` bytes: the header's 16 / w flits, `flits` payload flits of byte `fill`, the tail on payload
// flit `tail_at` (-1: the last; -2: none; on the last header flit when there is no payload).
std::vector<Flit> packet(const Header& h, int flits, uint8_t fill, int tail_at = -1,
                         uint32_t w = kFlitBytes) {
  std::vector<Flit> v;
  const auto hw = pack_header(h);
  uint8_t bytes[16];
  std::memcpy(bytes, hw.data(), sizeof bytes);
  for (uint32_t i = 0; i < 16 / w; ++i) {
    Flit f;
    f.head = i == 0;
    f.tail = i + 1 == 16 / w && flits == 0 && tail_at != -2;
    std::memcpy(f.data.data(), bytes + w * i, w);
    v.push_back(f);
  }
  for (int i = 0; i < flits; ++i) {
    Flit p;
    p.tail = tail_at == -1 ? i + 1 == flits : i == tail_at;
    p.data.fill(fill);
    v.push_back(p);
  }
  return v;
}

Header hdr(Opcode opc, uint32_t addr, uint16_t len, uint16_t src_chip, uint8_t src_tile,
           DType dt = DType::kFp32, RedOp op = RedOp::kSum) {
  Header h;
  h.opcode = opc;
  h.dst_addr = addr;
  h.len = len;
  h.src_chip = src_chip;
  h.src_tile = src_tile;
  h.dtype = dt;
  h.op = op;
  h.ctr = 3;
  return h;
}

}  // namespace

TEST(ModelBlocks, EveryReceiveCheckIsRecordedCountedAndWritesOnlyInsideItsPacket) {
  const uint32_t kDmem = 4096;
  System sys(parse_topology("ring:2"), 1, kDmem);
  Tile& tl = sys.node(0).tile(0);
  const uint32_t base = reg::kTileBase;
  std::vector<uint8_t> mirror(kDmem);
  for (uint32_t i = 0; i < kDmem; ++i) mirror[i] = static_cast<uint8_t>(i * 7 + 1);
  sys.host_write(0, base + reg::kTileDmem, mirror.data(), kDmem);
  sys.host_write32(0, base + reg::kTileWatchdog, 12345);  // kept across starts and clears
  struct Case {
    std::string name;
    std::vector<Flit> flits;
    TileErr err;
    ErrCheck check;
    uint32_t src_chip, src_tile, dropped;
    uint32_t wr_lo, wr_hi;  // bytes the case writes (with its fill byte)
    uint32_t counter3;      // counter 3 afterwards
  };
  const Opcode kW = Opcode::kWrite, kR = Opcode::kReduce;
  std::vector<Case> cases;
  auto add = [&](std::string name, std::vector<Flit> f, TileErr e, ErrCheck c, uint32_t sc,
                 uint32_t st, uint32_t dropped = 1, uint32_t lo = 0, uint32_t hi = 0,
                 uint32_t ctr = 0) {
    cases.push_back({std::move(name), std::move(f), e, c, sc, st, dropped, lo, hi, ctr});
  };
  const TileErr kBad = TileErr::kBadPacket;
  add("opcode 13", packet(hdr(static_cast<Opcode>(13), 0x100, 32, 1, 1), 2, 0xA1), kBad,
      ErrCheck::kOpcode, 1, 1);
  add("opcode Xreq token", packet(hdr(Opcode::kXreq, 0, 0, 2, 3), 0, 0), kBad, ErrCheck::kOpcode, 2,
      3);
  add("len % 16", packet(hdr(kW, 0x100, 24, 3, 5), 2, 0xA2), kBad, ErrCheck::kLength, 3, 5);
  add("dst % 16", packet(hdr(kW, 0x108, 32, 4, 7), 2, 0xA3), kBad, ErrCheck::kWindow, 4, 7);
  add("len > 2048", packet(hdr(kW, 0x100, 2064, 4095, 15), 129, 0xA4), kBad, ErrCheck::kLength,
      4095, 15);
  add("avg on fp32", packet(hdr(kR, 0x100, 32, 6, 0, DType::kFp32, RedOp::kAvg), 2, 0xA5), kBad,
      ErrCheck::kPair, 6, 0);
  add("window", packet(hdr(kW, kDmem - 16, 32, 7, 2), 2, 0xA6), TileErr::kDmemRange,
      ErrCheck::kWindow, 7, 2);
  add("window 24-bit", packet(hdr(kR, 0xFFF800, 2048, 8, 2, DType::kInt32), 128, 0xA7),
      TileErr::kDmemRange, ErrCheck::kWindow, 8, 2);
  add("short: tail at flit 1 of 4", packet(hdr(kW, 0x200, 64, 9, 4), 2, 0xA8), kBad,
      ErrCheck::kShort, 9, 4, 1, 0x200, 0x220);
  add("short: header with tail, len 32", packet(hdr(kW, 0x300, 32, 10, 4), 0, 0), kBad,
      ErrCheck::kShort, 10, 4);
  add("short: header with tail, every source bit", packet(hdr(kW, 0x310, 16, 4095, 15), 0, 0), kBad,
      ErrCheck::kShort, 4095, 15);
  {
    auto f = packet(hdr(kW, 0x400, 64, 11, 6), 2, 0xA9, -2);  // no tail, then a good token
    const auto tok = packet(hdr(kW, 0, 0, 1, 1), 0, 0);
    f.insert(f.end(), tok.begin(), tok.end());
    add("short: cut off by the next header", f, kBad, ErrCheck::kShort, 11, 6, 1, 0x400, 0x420, 1);
  }
  add("long: 4 flits for len 32", packet(hdr(kW, 0x500, 32, 12, 8), 4, 0xAA), kBad, ErrCheck::kLong,
      12, 8, 1, 0x500, 0x520);
  add("long reduce", packet(hdr(kR, kDmem - 32, 32, 13, 9, DType::kInt8, RedOp::kMax), 3, 0x7F),
      kBad, ErrCheck::kLong, 13, 9, 1, kDmem - 32, kDmem);
  {
    Flit p;
    p.data.fill(0xAB);
    Flit t = p;
    t.tail = true;
    add("headless", {p, p, t}, kBad, ErrCheck::kHeadless, 0, 0);
  }
  {
    auto f = packet(hdr(kW, 0x600, 64, 14, 1), 1, 0xAC, -2);  // cut off by a bad header
    const auto bad = packet(hdr(kW, kDmem, 16, 15, 2), 1, 0xAD);
    f.insert(f.end(), bad.begin(), bad.end());
    add("short and window in one cycle", f, kBad, ErrCheck::kShort, 14, 1, 2, 0x600, 0x610);
  }
  {
    auto f = packet(hdr(static_cast<Opcode>(7), 0x100, 16, 16, 3), 1, 0xAE);
    const auto bad = packet(hdr(kW, 0x108, 16, 17, 4), 1, 0xAF);
    f.insert(f.end(), bad.begin(), bad.end());
    add("first error kept, both counted", f, kBad, ErrCheck::kOpcode, 16, 3, 2);
  }
  add("token at the end of memory", packet(hdr(kW, kDmem, 0, 1, 1), 0, 0), TileErr::kNone,
      ErrCheck::kNone, 0, 0, 0, 0, 0, 1);
  add("good packet", packet(hdr(kW, 0x700, 32, 1, 1), 2, 0xB0), TileErr::kNone, ErrCheck::kNone, 0,
      0, 0, 0x700, 0x720, 2);

  // Chip 0 tile 0 counts down for about 600 cycles and ends, unless an error stops it first.
  const std::vector<uint64_t> spin = {
      enc(Isa::kLi, 1, 0, 0, 0, 0, 300), enc(Isa::kAddi, 1, 1, 0, 0, 0, 0xFFFFFFFF),
      enc(Isa::kBne, 0, 1, 0, 0, 0, 1), enc(Isa::kEnd, 0, 0, 0, 0, 0, 0)};
  for (const Case& c : cases) {
    for (const Flit& f : c.flits) tl.in.push(sys.node(0).ctx.now(), f);
    load(sys, 0, 0, spin);
    load(sys, 1, 0, {enc(Isa::kEnd, 0, 0, 0, 0, 0, 0)});
    const RunStats st = sys.run(5000, 1000);
    EXPECT_EQ(st.ok, c.err == TileErr::kNone) << c.name << ": " << st.error;
    const uint32_t status = sys.host_read32(0, base + reg::kTileStatus);
    const uint32_t info = sys.host_read32(0, base + reg::kTileErrInfo);
    EXPECT_EQ(status & 15u, static_cast<uint32_t>(c.err)) << c.name << ": " << st.error;
    EXPECT_EQ(info & 15u, static_cast<uint32_t>(c.check)) << c.name;
    EXPECT_EQ((info >> 12) & 0xFFFu, c.src_chip) << c.name;
    EXPECT_EQ((info >> 24) & 0xFu, c.src_tile) << c.name;
    EXPECT_EQ(info & 0xF0000FF0u, 0u) << c.name;
    EXPECT_EQ(sys.host_read32(0, base + reg::kTileErrCount), c.dropped) << c.name;
    EXPECT_EQ(sys.host_read32(0, base + reg::kTileCounters + 12), c.counter3) << c.name;
    if (c.err != TileErr::kNone) {
      EXPECT_NE(st.error.find(std::string("check ") + to_string(c.check)), std::string::npos)
          << st.error;
    }
    // The whole data memory: only the case's own bytes changed.
    for (uint32_t a = c.wr_lo; a < c.wr_hi; ++a) mirror[a] = c.flits[1].data[0];
    if (c.name == "long reduce")  // int8 max of the old bytes and 0x7F
      for (uint32_t a = c.wr_lo; a < c.wr_hi; ++a)
        mirror[a] = static_cast<uint8_t>(
            std::max<int8_t>(static_cast<int8_t>(static_cast<uint8_t>(a * 7 + 1)), 0x7F));
    std::vector<uint8_t> got(kDmem);
    sys.host_read(0, base + reg::kTileDmem, got.data(), kDmem);
    for (uint32_t a = 0; a < kDmem; ++a)
      ASSERT_EQ(got[a], mirror[a]) << c.name << ": byte " << a << " changed";
  }
  // Control bit 1 clears the error, its detail and the count; the watchdog period stays.
  sys.host_write32(0, reg::kControl, 2);
  EXPECT_EQ(sys.host_read32(0, base + reg::kTileStatus) & 15u, 0u);
  EXPECT_EQ(sys.host_read32(0, base + reg::kTileErrInfo), 0u);
  EXPECT_EQ(sys.host_read32(0, base + reg::kTileErrCount), 0u);
  EXPECT_EQ(sys.host_read32(0, base + reg::kTileWatchdog), 12345u);
  uint32_t v = 0;
  EXPECT_THROW(sys.host_write(0, base + reg::kTileErrInfo, &v, 4), std::out_of_range);
  EXPECT_THROW(sys.host_write(0, base + reg::kTileErrCount, &v, 4), std::out_of_range);
}

// At 32 bits a header takes four flits (docs/packets.md sections 3 and 6): a packet cut off or
// ended inside its header is Short with the source unknown; the payload checks count 4-byte
// flits; counters still count 16-byte grains.
TEST(ModelBlocks, NarrowFlitHeadersAndPayloadAreCheckedAtTheLastHeaderFlit) {
  const uint32_t kDmem = 4096, W = 4;
  Topology topo = parse_topology("ring:2");
  set_flit_bits(topo, 32);
  System sys(topo, 1, kDmem);
  Tile& tl = sys.node(0).tile(0);
  const uint32_t base = reg::kTileBase;
  const Opcode kW = Opcode::kWrite;
  struct Case {
    std::string name;
    std::vector<Flit> flits;
    ErrCheck check;  // None: a good packet
    uint32_t src_chip, lo, hi, counter3;
  };
  std::vector<Case> cases;
  cases.push_back({"good: 32 bytes in 8 flits", packet(hdr(kW, 0x700, 32, 1, 1), 8, 0xB0, -1, W),
                   ErrCheck::kNone, 0, 0x700, 0x720, 2});
  {
    auto f = packet(hdr(kW, 0x400, 64, 11, 6), 16, 0xA9, -1, W);
    f.resize(2);  // head and one more header flit, then a good token
    const auto tok = packet(hdr(kW, 0, 0, 1, 1), 0, 0, -1, W);
    f.insert(f.end(), tok.begin(), tok.end());
    cases.push_back({"cut off inside the header", f, ErrCheck::kShort, 0, 0, 0, 1});
  }
  {
    auto f = packet(hdr(kW, 0x400, 64, 11, 6), 16, 0xA9, -1, W);
    f.resize(2);
    f[1].tail = true;
    cases.push_back({"tail inside the header", f, ErrCheck::kShort, 0, 0, 0, 0});
  }
  cases.push_back({"short payload", packet(hdr(kW, 0x200, 64, 9, 4), 3, 0xA8, -1, W),
                   ErrCheck::kShort, 9, 0x200, 0x20C, 0});
  cases.push_back({"long payload", packet(hdr(kW, 0x500, 16, 12, 8), 5, 0xAA, -1, W),
                   ErrCheck::kLong, 12, 0x500, 0x510, 0});
  const std::vector<uint64_t> spin = {
      enc(Isa::kLi, 1, 0, 0, 0, 0, 300), enc(Isa::kAddi, 1, 1, 0, 0, 0, 0xFFFFFFFF),
      enc(Isa::kBne, 0, 1, 0, 0, 0, 1), enc(Isa::kEnd, 0, 0, 0, 0, 0, 0)};
  std::vector<uint8_t> mirror(kDmem, 0);
  for (const Case& c : cases) {
    sys.host_write32(0, reg::kControl, 2);  // clear the previous case's error and counters
    for (const Flit& f : c.flits) tl.in.push(sys.node(0).ctx.now(), f);
    load(sys, 0, 0, spin);
    load(sys, 1, 0, {enc(Isa::kEnd, 0, 0, 0, 0, 0, 0)});
    const RunStats st = sys.run(5000, 1000);
    EXPECT_EQ(st.ok, c.check == ErrCheck::kNone) << c.name << ": " << st.error;
    const uint32_t info = sys.host_read32(0, base + reg::kTileErrInfo);
    EXPECT_EQ(info & 15u, static_cast<uint32_t>(c.check)) << c.name << ": " << st.error;
    EXPECT_EQ((info >> 12) & 0xFFFu, c.src_chip) << c.name;
    EXPECT_EQ(sys.host_read32(0, base + reg::kTileErrCount), c.check == ErrCheck::kNone ? 0u : 1u)
        << c.name;
    EXPECT_EQ(sys.host_read32(0, base + reg::kTileCounters + 12), c.counter3) << c.name;
    for (uint32_t a = c.lo; a < c.hi; ++a) mirror[a] = c.flits.back().data[0];
    std::vector<uint8_t> got(kDmem);
    sys.host_read(0, base + reg::kTileDmem, got.data(), kDmem);
    for (uint32_t a = 0; a < kDmem; ++a) ASSERT_EQ(got[a], mirror[a]) << c.name << ": byte " << a;
  }
}

// The watchdog: per WaitKind, with the period rule the RTL shares (xf_tile_seq): it fires in the
// P-th consecutive cycle in which the tile stalls on a wait with no progress (no instruction
// retired; no flit received or emitted and no counter incremented in the cycle before), so a
// program Li, Li, Wait runs 2 + P cycles; the RTL test (RtlTile.WatchdogEveryWaitKind) checks the
// same numbers.
TEST(ModelBlocks, WatchdogNamesEveryWaitKindWithThePeriodRuleOfTheRtl) {
  System sys(parse_topology("ring:2"), 1, 16384);
  for (int c = 0; c < 2; ++c)
    sys.host_write(c, reg::kRouteTable, std::vector<uint8_t>(kNumLanes * 2, 0).data(),
                   kNumLanes * 2);
  Tile& tl = sys.node(0).tile(0);
  const uint32_t base = reg::kTileBase;
  uint64_t tick = 0;
  auto step = [&] {
    sc_core::sc_start(sc_core::sc_time(1, sc_core::SC_NS));
    ++tick;
  };
  auto start = [&](const std::vector<uint64_t>& prog, uint32_t period) {
    load(sys, 0, 0, prog);
    load(sys, 1, 0, {enc(Isa::kEnd, 0, 0, 0, 0, 0, 0)});
    sys.host_write32(0, base + reg::kTileWatchdog, period);
    EXPECT_EQ(sys.host_read32(0, base + reg::kTileWatchdog), period);
    for (int c = 0; c < 2; ++c) sys.host_write32(c, reg::kControl, 1);
  };
  // Steps until the tile stops running; returns the cycles it ran (or -1 past the limit).
  auto run_to_stop = [&](int limit, const std::function<void(int)>& each = nullptr) {
    for (int k = 1; k <= limit; ++k) {
      step();
      if (each) each(k);
      if (!tl.running) return k;
    }
    return -1;
  };
  auto status = [&] { return sys.host_read32(0, base + reg::kTileStatus); };
  auto info = [&] { return sys.host_read32(0, base + reg::kTileErrInfo); };
  const uint32_t kWatchdog = static_cast<uint32_t>(TileErr::kWatchdog);

  // Counter: Wait at pc 2 on counter (3 + r2) % 32 = 7; runs 3 + P cycles (the start's bubble,
  // two Li, P stalled Waits).
  const std::vector<uint64_t> wait7 = {enc(Isa::kLi, 1, 0, 0, 0, 0, 5),
                                       enc(Isa::kLi, 2, 0, 0, 0, 0, 4),
                                       enc(Isa::kWait, 0, 1, 2, 0, 0, 3)};
  for (uint32_t p : {1u, 37u}) {
    start(wait7, p);
    EXPECT_EQ(run_to_stop(1000), static_cast<int>(3 + p)) << "period " << p;
    EXPECT_EQ(status(), kWatchdog | 2u << 16);
    EXPECT_EQ(info(), static_cast<uint32_t>(WaitKind::kCounter) | 7u << 4);
    EXPECT_EQ(sys.host_read32(0, base + reg::kTileErrCount), 0u);
  }
  // Period 0: never.
  start(wait7, 0);
  EXPECT_EQ(run_to_stop(3000), -1);
  EXPECT_EQ(status() & 15u, 0u);
  // Progress keeps it silent: a token (counter 9, not the one waited on) every 15 cycles with
  // P = 20; after the last one it fires P + 1 cycles after the token's counter increment (seen
  // in the next cycle), which comes RecvPipelineCycles after the token was received.
  start(wait7, 20);
  uint64_t last_rx = 0, rx_seen = tl.flits_received;
  Header tok = hdr(Opcode::kWrite, 0, 0, 1, 0);
  tok.ctr = 9;
  const int ran = run_to_stop(2000, [&](int k) {
    if (k % 15 == 0 && k <= 300)
      for (const Flit& f : packet(tok, 0, 0)) tl.in.push(sys.node(0).ctx.now(), f);
    if (tl.flits_received != rx_seen) {
      rx_seen = tl.flits_received;
      last_rx = tick;
    }
  });
  ASSERT_GT(ran, 300);
  EXPECT_EQ(tick - last_rx, kRecvPipelineCycles + 1u + 20u);
  EXPECT_EQ(sys.host_read32(0, base + reg::kTileCounters + 4 * 9), 20u);
  EXPECT_EQ(info(), static_cast<uint32_t>(WaitKind::kCounter) | 7u << 4);

  // Sends and SendQueue: 4096-byte jobs to chip 1 (link 0); a stray XOFF after the first flits
  // freezes the session, so nothing moves from then on. The stall while flits still go out is
  // not counted (emitting is progress, seen in the next cycle); the watchdog fires P + 1 cycles
  // after the last emission.
  auto frozen = [&](std::vector<uint64_t> prog, uint32_t p, WaitKind kind, uint32_t pc) {
    const std::vector<uint64_t> pro = {
        enc(Isa::kLi, 1, 0, 0, 0, 0, 0), enc(Isa::kLi, 2, 0, 0, 0, 0, 4096),
        enc(Isa::kLi, 3, 0, 0, 0, 0, 1), enc(Isa::kLi, 4, 0, 0, 0, 0, 0)};
    prog.insert(prog.begin(), pro.begin(), pro.end());
    start(prog, p);
    const uint64_t sent0 = tl.flits_sent;
    uint64_t sent = sent0, last_tx = 0;
    bool xoff = false;
    const int r = run_to_stop(3000, [&](int) {
      if (tl.flits_sent != sent) {
        sent = tl.flits_sent;
        last_tx = tick;
      }
      if (!xoff && tl.flits_sent >= sent0 + 20) {
        tl.xb_in[0].push(sys.node(0).ctx.now(), XbMsg::kXoff);
        xoff = true;
      }
    });
    ASSERT_GT(r, 0) << to_string(kind);
    EXPECT_EQ(tick - last_tx, p + 1) << to_string(kind);
    EXPECT_EQ(status(), kWatchdog | pc << 16) << to_string(kind);
    EXPECT_EQ(info(), static_cast<uint32_t>(kind)) << to_string(kind);
    // Unfreeze: the engines keep working after the error, drain the jobs and close the session.
    tl.xb_in[0].push(sys.node(0).ctx.now(), XbMsg::kXon);
    for (int i = 0; i < 2000; ++i) step();
  };
  const uint64_t send = enc(Isa::kSend, 0, 1, 2, 3, 4, send_imm(0));
  frozen({send, send, send, send, send, enc(Isa::kEnd, 0, 0, 0, 0, 0, 0)}, 30, WaitKind::kSendQueue,
         8);
  frozen({send, enc(Isa::kWaits, 0, 0, 0, 0, 0, 0), enc(Isa::kEnd, 0, 0, 0, 0, 0, 0)}, 25,
         WaitKind::kSends, 5);
  frozen({send, enc(Isa::kEnd, 0, 0, 0, 0, 0, 0)}, 40, WaitKind::kSends, 5);

  // Barrier (last: the barrier keeps this tile's arrival): Bar at pc 0 from the second cycle
  // (after the start's bubble).
  start({enc(Isa::kBar, 0, 0, 0, 0, 0, 0)}, 10);
  EXPECT_EQ(run_to_stop(1000), 11);
  EXPECT_EQ(status(), kWatchdog);
  EXPECT_EQ(info(), static_cast<uint32_t>(WaitKind::kBarrier));
  // Control bit 1 clears the error and its detail; the period stays.
  sys.host_write32(0, reg::kControl, 2);
  EXPECT_EQ(status(), 0u);
  EXPECT_EQ(info(), 0u);
  EXPECT_EQ(sys.host_read32(0, base + reg::kTileWatchdog), 10u);
}
