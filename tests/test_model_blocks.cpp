// Block-level and error-path tests of the SystemC model, with hand-written programs.
//
// Space covered: the barrier across all tiles of all chips; the XB under four tiles
// contending for one link plus local traffic (queue never above its depth, every byte
// delivered); each tile error (illegal instruction, SEND outside the data memory, SEND with a
// control opcode, a received packet with a bad opcode or outside the memory, a packet for a
// tile that does not exist) is reported with its cause and nothing outside the window is
// written; a program that waits forever is turned into a watchdog error that names the chip,
// tile and counter; the host port rejects addresses that hit nothing. One case per process.
#include <cstring>

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
  EXPECT_THROW(sys.host_read(0, 0x80, &v, 4), std::out_of_range);
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
