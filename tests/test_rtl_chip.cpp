// RTL_LIB: xf_rtl_chip
// Chip-level test of the RTL (rtl/xf_chip.sv with its defaults: 4 tiles, 4 links, the
// host-window memory sizes; rtl/xf_switch.sv with 16 links) on machines of Verilated chips and
// switch nodes wired by a topology (sw/backends/rtl/rtl_system.hpp, docs/chip.md section 6).
//
// Space covered:
//  - the host port (HostPort.*): every chip register (read, write, read-only and write-only
//    errors), unaligned and unmapped addresses, tile windows of tiles that do not exist, the
//    routing table (write, read back, the end of the table), every tile region (IMEM, PMEM, DMEM
//    written and read back, TileStatus, TileCounters, refused writes, DMEM end);
//  - AluConfig and DoneCycles (HostPort.AluConfigAndDoneCycles): tree:3, 2 tiles per chip, a
//    loop of a length set by the chip index and the tile; 0xFF and 0 (switch), DoneCycles 0
//    before a start, each chip's last End + 3 after it (the model's test expects the same
//    numbers), run() cycles = the last chip's DoneCycles - 2; a second start right after the
//    first (the chip's done still high from the first run) captures the same values; a clear
//    keeps them; DoneCyclesVsModel.*: after compiled collectives on ring:3, tree:((2,1),3),
//    ladder:4 and tree:16 (a switch with all 16 ports connected), every node's DoneCycles and
//    AluConfig equal the model's, and the last chip's DoneCycles - 2 is the cycle count of both;
//  - the switch's registers at 16 links (HostPort.SwitchRegisters: Config saturates, Ports 16,
//    link registers for links 0..7) and the machine's node limits (Machine.NodeLimits: 4 ports
//    per chip, 16 per switch, the one-line reason for a node beyond them);
//  - chip-level errors (ChipErrors.*): a Send whose route is an unconnected port and an
//    illegal instruction in three tiles, and in each tile alone: the tiles' error codes, Status
//    bit 31 and the failed run's diagnosis;
//    packets that reach a chip or a switch without a routing-table entry (Misroutes.*): the
//    run stops at the node's error in the model's cycle, Misroutes as the model's; a failed
//    run of each tile error kind (ErrorStop.*) stops in the model's cycle, TileStatus and
//    TileErrInfo as the model's;
//  - the barrier (Barrier.*): two chips x two tiles, one tile late by a long loop, and two chips
//    x four tiles with tile 1, 2 or 3 late; every tile checks after `Bar` that the cycle count
//    has passed the late tile's loop (an early release jumps to an illegal instruction, which the
//    run reports), then a second barrier right after the first, after which the late tile ends
//    last; the run's cycles, each chip's DoneCycles and its link registers equal the model's;
//  - compiled collectives (Collectives.*) run end to end through the host ports: every
//    collective (allreduce, reduce_scatter, all_gather, broadcast, reduce), the ring, biring,
//    ladder, line and tree (through switch nodes, tree patent) algorithms and pairwise averaging,
//    int8, uint8, int32, fp16, bf16, fp32, sum/max/min/avg, 1, 2 and 4 tiles per chip, 2 to 6
//    chips; the outputs of every chip are compared bit for bit with the C++ reference
//    (run_reference) and the order-independent exact result (check_outputs); the cycle count is
//    printed beside the bound;
//  - the co-simulation checker (Cosim.*, sw/backends/rtl/cosim_checker.hpp): an RTL run in lock
//  step with the
//    SystemC model passes; the same run against a model record with one packet's payload CRC
//    changed stops at that packet's cycle and names its stream; a model record with an output
//    element, the cycle count or an extra packet changed fails at the end with chip, byte and
//    both values. (This binary links the model: SystemC owns main, see model_test_main.hpp.)
// Inputs: make_inputs with a fixed seed per case that XF_SEED overrides; each case prints it.
#include <gtest/gtest.h>
#include <verilated.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "Vxf_chip.h"
#include "Vxf_switch.h"
#include "cosim_checker.hpp"
#include "driver.hpp"
#include "model_test_main.hpp"
#include "rtl_kit.hpp"
#include "rtl_system.hpp"
#include "rtl_widths.hpp"
#include "xf/checks.hpp"
#include "xf/compiler.hpp"
#include "xf/layout.hpp"
#include "xf/reference.hpp"
#include "xf/topology.hpp"

namespace xf {
namespace {

constexpr int kTiles = 4;  // the Verilated chip's NumTiles
constexpr uint32_t kDmemBytes = 786432;
constexpr uint32_t kTableChips = 64;  // routing-table entries per lane (Config: 2^6)
using Sys = rtl::RtlSystem<Vxf_chip, Vxf_switch>;
static_assert(Sys::kChipLinks == 4 && Sys::kSwitchLinks == 16, "CMakeLists.txt's NumLinks");
const kit::TestFile kCollectivesSeed{0xC41Bu, "test_rtl_chip"};
const kit::TestFile kDoneCyclesSeed{0xD0CEu, "test_rtl_chip"};
const kit::TestFile kCosimSeed{0xC05Eu, "test_rtl_chip"};
const kit::TestFile kProgramSeed{0x9A0Cu, "test_rtl_chip"};

uint32_t tile_base(int t) { return reg::kTileBase + t * reg::kTileStride; }

Topology single_chip() {
  Topology t;
  t.spec = "single chip";
  t.num_chips = t.num_nodes = 1;
  t.num_ports = {0};
  return t;
}

// The same host write to the RTL machine (queued; the caller flushes) and to the model.
void write_both(Sys& sys, model::System& msys, int node, uint32_t addr, const void* data,
                size_t n) {
  sys.queue_write(node, addr, data, n);
  msys.host_write(node, addr, data, n);
}
void write_both32(Sys& sys, model::System& msys, int node, uint32_t addr, uint32_t v) {
  write_both(sys, msys, node, addr, &v, 4);
}

// The spanning-tree routes (xf::spanning_tree_routes) in every lane of every node's table, on
// both machines (queued on the RTL; the caller flushes).
void write_tree_routes_both(Sys& sys, model::System& msys, const Topology& topo) {
  const std::vector<std::vector<int>> next = spanning_tree_routes(topo);
  for (int n = 0; n < topo.num_nodes; ++n) {
    std::vector<uint8_t> table(kTableChips, 0xFF);  // the RTL table's chips per lane
    for (int dc = 0; dc < topo.num_chips; ++dc)
      if (next[n][dc] >= 0) table[dc] = static_cast<uint8_t>(next[n][dc]);
    for (uint32_t lane = 0; lane < kNumLanes; ++lane)
      write_both(sys, msys, n, reg::kRouteTable + lane * kMaxChips, table.data(), table.size());
  }
}

// Expects the host access to be refused with an error naming the address.
template <class F>
void expect_refused(F&& f, const char* what) {
  bool thrown = false;
  try {
    f();
  } catch (const std::runtime_error& e) {
    thrown = true;
    EXPECT_NE(std::string(e.what()).find("refused"), std::string::npos) << e.what();
  }
  EXPECT_TRUE(thrown) << what << " was accepted";
}

TEST(HostPort, ChipRegisters) {
  auto ctx = kit::make_context();
  Sys sys(single_chip(), kTiles, ctx.get());
  kit::open_trace_if_asked(sys);
  sys.host_write32(0, reg::kIndexWr, 0x12345678u);
  EXPECT_EQ(sys.host_read32(0, reg::kChipId), 0x12345678u);
  EXPECT_EQ(sys.host_read32(0, reg::kIndexWr), 0x12345678u);
  for (const uint32_t v : {0xFFFFFFFFu, 0u, 0x12345678u}) {  // every bit both ways
    sys.host_write32(0, reg::kIndexWr, v);
    EXPECT_EQ(sys.host_read32(0, reg::kChipId), v);
  }
  EXPECT_EQ(sys.host_read32(0, reg::kStatus), 0u);
  EXPECT_EQ(sys.host_read32(0, reg::kMisroutes), 0u);
  EXPECT_EQ(sys.host_read32(0, reg::kXbErrors), 0u);
  // Config: 4 tiles, 2^4 = 16-byte flits, 4 links, 2^6 = 64 table chips, 768 KiB of DMEM per
  // tile.
  EXPECT_EQ(sys.host_read32(0, reg::kConfig), 4u | 4u << 5 | 4u << 8 | 6u << 12 | 768u << 16);
  EXPECT_EQ(sys.host_read32(0, reg::kPorts), 4u);  // the whole count (the model's may pass 15)
  for (uint32_t l = 0; l < 8; ++l) {               // a single chip: no link has moved a word
    EXPECT_EQ(sys.host_read32(0, reg::kLinkCrcErrors + 4 * l), 0u) << "link " << l;
    EXPECT_EQ(sys.host_read32(0, reg::kLinkStatus + 4 * l), 0u) << "link " << l;
    EXPECT_EQ(sys.host_read32(0, reg::kLinkDiscards + 4 * l), 0u) << "link " << l;
  }
  const uint32_t c0 = sys.host_read32(0, reg::kCycles);
  const uint32_t c1 = sys.host_read32(0, reg::kCycles);
  EXPECT_GT(c1, c0);
  expect_refused([&] { sys.host_write32(0, reg::kChipId, 1); }, "write to ChipId");
  expect_refused([&] { sys.host_write32(0, reg::kStatus, 1); }, "write to Status");
  expect_refused([&] { sys.host_write32(0, reg::kCycles, 1); }, "write to Cycles");
  expect_refused([&] { sys.host_write32(0, reg::kConfig, 1); }, "write to Config");
  expect_refused([&] { sys.host_write32(0, reg::kPorts, 1); }, "write to Ports");
  expect_refused([&] { sys.host_read32(0, reg::kControl); }, "read of Control");
  expect_refused([&] { sys.host_read32(0, 0x2u); }, "unaligned read");
  expect_refused([&] { sys.host_read32(0, 0x1u); }, "unaligned read (bit 0)");
  expect_refused([&] { sys.host_write32(0, reg::kIndexWr + 1, 1); }, "unaligned write");
  expect_refused([&] { sys.host_read32(0, 0x7F800000u); }, "read at bits 30:23 set");
  expect_refused([&] { sys.host_read32(0, 0x800u); }, "read of an unmapped register");
  expect_refused([&] { sys.host_read32(0, 0x80000u); }, "read between the table and the tiles");
  expect_refused([&] { sys.host_read32(0, tile_base(kTiles)); }, "tile that does not exist");
  expect_refused([&] { sys.host_read32(0, 0x80000000u); }, "read far beyond the map");
}

// The switch node built with 16 links: Config's port field saturates at 15 and Ports has the
// count; the link registers exist for links 0..7 only (the register map's 8 slots each).
TEST(HostPort, SwitchRegisters) {
  auto ctx = kit::make_context();
  Sys sys(parse_topology("tree:2"), 1, ctx.get());
  kit::open_trace_if_asked(sys);
  const int sw = 2;
  // Config: no tiles, 16-byte flits, 15 (saturated) link ports, 2^6 = 64 table chips, no DMEM.
  EXPECT_EQ(sys.host_read32(sw, reg::kConfig), 4u << 5 | 15u << 8 | 6u << 12);
  EXPECT_EQ(sys.host_read32(sw, reg::kPorts), 16u);
  EXPECT_EQ(sys.host_read32(0, reg::kPorts), 4u);  // a chip's
  for (uint32_t l = 0; l < 8; ++l) {
    EXPECT_EQ(sys.host_read32(sw, reg::kLinkCrcErrors + 4 * l), 0u) << "link " << l;
    EXPECT_EQ(sys.host_read32(sw, reg::kLinkStatus + 4 * l), 0u) << "link " << l;
    EXPECT_EQ(sys.host_read32(sw, reg::kLinkDiscards + 4 * l), 0u) << "link " << l;
  }
  expect_refused([&] { sys.host_write32(sw, reg::kPorts, 1); }, "write to Ports");
  expect_refused([&] { sys.host_read32(sw, reg::kLinkDiscards + 32); }, "past LinkDiscards");
  expect_refused([&] { sys.host_read32(sw, tile_base(0)); }, "a switch's tile window");
  expect_refused([&] { sys.host_read32(sw, 0x3u); }, "unaligned read");
  expect_refused([&] { sys.host_read32(sw, 0xFFFFFFFCu); }, "read at the top of the map");
  // A routing-table word (lane 3, chips 60..63) holds every bit both ways.
  const uint32_t rt = reg::kRouteTable + 3 * kMaxChips + 60;
  for (const uint32_t v : {0xFFFFFFFFu, 0u, 0x5A3C0F01u}) {
    sys.host_write32(sw, rt, v);
    EXPECT_EQ(sys.host_read32(sw, rt), v);
  }
}

// The machine takes every chip with up to 4 ports and every switch with up to 16, and names
// the limit of a node beyond it.
TEST(Machine, NodeLimits) {
  EXPECT_EQ(Sys::unfit(parse_topology("tree:16")), "");
  EXPECT_EQ(Sys::unfit(parse_topology("tree:(2,(1,14))")), "");  // a 15-port inner switch
  EXPECT_EQ(Sys::unfit(parse_topology("tree:(2,(1,15))")), "");  // a 16-port inner switch
  EXPECT_EQ(Sys::unfit(parse_topology("tree:17")),
            "switch node 17 has 17 ports; the RTL switch has 16");
  EXPECT_EQ(Sys::unfit(parse_topology("tree:(2,(1,16))")),
            "switch node 23 has 17 ports; the RTL switch has 16");
  auto ctx = kit::make_context();
  bool thrown = false;
  try {
    Sys sys(parse_topology("tree:17"), 1, ctx.get());
  } catch (const std::runtime_error& e) {
    thrown = true;
    EXPECT_NE(std::string(e.what()).find("the RTL switch has 16"), std::string::npos) << e.what();
  }
  EXPECT_TRUE(thrown) << "a 17-port switch was built";
}

TEST(HostPort, RouteTable) {
  auto ctx = kit::make_context();
  Sys sys(single_chip(), kTiles, ctx.get());
  kit::open_trace_if_asked(sys);
  const uint32_t words[] = {0x03020100u, 0xFFFF0201u, 0x01234567u, 0x89ABCDEFu};
  // Lanes 0, 2 and 3 within the chip's 64 entries per lane.
  const uint32_t at[] = {0, 4, 4096 * 2 + 8, 4096 * 3 + 60};
  for (int i = 0; i < 4; ++i) sys.host_write32(0, reg::kRouteTable + at[i], words[i]);
  for (int i = 0; i < 4; ++i) EXPECT_EQ(sys.host_read32(0, reg::kRouteTable + at[i]), words[i]);
  // Entries beyond the chip's 64 per lane do not exist: writes are ignored, reads give 0xFF.
  sys.host_write32(0, reg::kRouteTable + 64, 0x01010101u);
  EXPECT_EQ(sys.host_read32(0, reg::kRouteTable + 64), 0xFFFFFFFFu);
  EXPECT_EQ(sys.host_read32(0, reg::kRouteTable + 16384 - 4), 0xFFFFFFFFu);
  expect_refused([&] { sys.host_read32(0, reg::kRouteTable + 16384); }, "read past the table");
  expect_refused([&] { sys.host_write32(0, reg::kRouteTable + 16384, 0); }, "write past it");
  // Route-table and chip-register accesses right after a tile access leave the tile alone.
  const uint32_t dmem = tile_base(2) + reg::kTileDmem + 0x40;
  sys.host_write32(0, dmem, 0x5A5A5A5Au);
  sys.host_write32(0, reg::kRouteTable + 8, 0x02020202u);
  EXPECT_EQ(sys.host_read32(0, dmem), 0x5A5A5A5Au) << "a route-table write reached the tile";
  sys.host_write32(0, dmem, 0x6B6B6B6Bu);
  sys.host_write32(0, reg::kIndexWr, 0x13572468u);
  EXPECT_EQ(sys.host_read32(0, dmem), 0x6B6B6B6Bu) << "an IndexWr write reached the tile";
}

TEST(HostPort, TileRegions) {
  auto ctx = kit::make_context();
  Sys sys(single_chip(), kTiles, ctx.get());
  kit::open_trace_if_asked(sys);
  for (int t = 0; t < kTiles; ++t) {
    const uint32_t b = tile_base(t);
    const uint32_t v = 0xA5000000u + static_cast<uint32_t>(t);
    sys.host_write32(0, b + reg::kTileImem, v);
    sys.host_write32(0, b + reg::kTileImem + 4, ~v);
    sys.host_write32(0, b + reg::kTileImem + 4095 * 8 + 4, v + 1);
    sys.host_write32(0, b + reg::kTilePmem + 4 * 16383, v + 2);
    sys.host_write32(0, b + reg::kTileDmem, v + 3);
    sys.host_write32(0, b + reg::kTileDmem + kDmemBytes - 4, v + 4);
    EXPECT_EQ(sys.host_read32(0, b + reg::kTileImem), v);
    EXPECT_EQ(sys.host_read32(0, b + reg::kTileImem + 4), ~v);
    EXPECT_EQ(sys.host_read32(0, b + reg::kTileImem + 4095 * 8 + 4), v + 1);
    EXPECT_EQ(sys.host_read32(0, b + reg::kTilePmem + 4 * 16383), v + 2);
    EXPECT_EQ(sys.host_read32(0, b + reg::kTileDmem), v + 3);
    EXPECT_EQ(sys.host_read32(0, b + reg::kTileDmem + kDmemBytes - 4), v + 4);
    EXPECT_EQ(sys.host_read32(0, b + reg::kTileStatus), 0u);
    EXPECT_EQ(sys.host_read32(0, b + reg::kTileCounters + 4 * 31), 0u);
    EXPECT_EQ(sys.host_read32(0, b + reg::kTileErrInfo), 0u);
    EXPECT_EQ(sys.host_read32(0, b + reg::kTileErrCount), 0u);
    sys.host_write32(0, b + reg::kTileWatchdog, v);  // the one writable tile register
    EXPECT_EQ(sys.host_read32(0, b + reg::kTileWatchdog), v);
    sys.host_write32(0, b + reg::kTileWatchdog, 0);
    expect_refused([&] { sys.host_write32(0, b + reg::kTileStatus, 1); }, "TileStatus write");
    expect_refused([&] { sys.host_write32(0, b + reg::kTileErrInfo, 1); }, "TileErrInfo write");
    expect_refused([&] { sys.host_write32(0, b + reg::kTileCounters, 1); }, "counter write");
    // DMEM fills its window to the end of the tile's 1 MiB; the gaps and ends elsewhere:
    expect_refused([&] { sys.host_read32(0, b + reg::kTilePmem + 16384 * 4); }, "PMEM end");
    expect_refused([&] { sys.host_read32(0, b + reg::kTileCounters + 128); }, "counter end");
    expect_refused([&] { sys.host_read32(0, b + 0x10); }, "gap after TileWatchdog");
    expect_refused([&] { sys.host_read32(0, b + reg::kTileImem + 4096 * 8); }, "IMEM end");
  }
}

// Every tile of two chips meets at a barrier; chip 0's tile 0 arrives late after a loop of
// `kLoop` iterations (2 instructions each). After the barrier each tile reads the cycle count
// (Geti 3) and jumps to an illegal instruction if it is below 2 * kLoop: a tile released early
// fails the run. Then all meet at a second barrier at once and end.
// The model's ModelBlocks.AluConfigAndDoneCyclesOfChipsAndSwitch runs the same program: every
// tile loops N = 10 * index + 3 * tile + 5 times after 8 straight instructions, so its End
// retires in collective cycle 8 + 3N and chip i's DoneCycles is 35 + 30 i; 93 cycles in all.
TEST(HostPort, AluConfigAndDoneCycles) {
  auto ctx = kit::make_context();
  Sys sys(parse_topology("tree:3"), 2, ctx.get());
  kit::open_trace_if_asked(sys);
  using isa::enc;
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
    sys.queue_write32(c, reg::kIndexWr, static_cast<uint32_t>(c));
    for (int t = 0; t < 2; ++t)
      sys.queue_write(c, tile_base(t) + reg::kTileImem, prog.data(), prog.size() * 8);
  }
  sys.flush();
  for (int n = 0; n < 4; ++n) {
    EXPECT_EQ(sys.host_read32(n, reg::kAluConfig), n < 3 ? 0xFFu : 0u) << "node " << n;
    EXPECT_EQ(sys.host_read32(n, reg::kDoneCycles), 0u) << "node " << n << " before a start";
  }
  expect_refused([&] { sys.host_write32(0, reg::kAluConfig, 1); }, "write to AluConfig");
  expect_refused([&] { sys.host_write32(0, reg::kDoneCycles, 1); }, "write to DoneCycles");
  const rtl::RtlRunStats st = sys.run(100000);
  ASSERT_TRUE(st.ok) << st.error;
  EXPECT_EQ(st.cycles, 93u);
  auto expect_done_cycles = [&](const char* when) {
    for (int c = 0; c < 3; ++c)
      EXPECT_EQ(sys.host_read32(c, reg::kDoneCycles), 35u + 30u * c) << "chip " << c << when;
    EXPECT_EQ(sys.host_read32(3, reg::kDoneCycles), 0u) << "switch" << when;
  };
  expect_done_cycles(" after the run");
  // Started again with every tile still done (stat_done_o is high in the start's cycle and the
  // next): 0 from the start until the tiles are done again, then the same values.
  for (int c = 0; c < 3; ++c) sys.queue_write32(c, reg::kControl, 1);
  sys.flush();
  EXPECT_EQ(sys.host_read32(2, reg::kDoneCycles), 0u) << "right after the second start";
  for (int i = 0; i < 200 && sys.host_read32(2, reg::kDoneCycles) == 0; ++i) {
  }
  expect_done_cycles(" after the second start");
  for (int c = 0; c < 3; ++c) sys.queue_write32(c, reg::kControl, 2);  // clear: kept
  sys.flush();
  expect_done_cycles(" after a clear");
}

// The barrier on ring:2, RTL against the model to the cycle (one model System per process, so
// one case per test): `tiles` tiles per chip; tile `late` of chip 0 alone runs a long loop
// before the first barrier, and a short one after the second, so it is also the tile that ends
// last (the chip's done waits for it: DoneCycles).
struct BarrierCase {
  int tiles;
  uint32_t late;
  const char* name;
};
class Barrier : public ::testing::TestWithParam<BarrierCase> {};

TEST_P(Barrier, AllTilesOfAllChipsMatchTheModel) {
  const BarrierCase& k = GetParam();
  const Topology topo = parse_topology("ring:2");
  constexpr uint32_t kLoop = 300, kTail = 40;
  using isa::enc;
  const std::vector<uint64_t> prog = {
      enc(Isa::kGeti, 1, 0, 0, 0, 0, 0),            // 0: r1 = index
      enc(Isa::kLi, 8, 0, 0, 0, 0, 16),             // 1: r8 = 16
      enc(Isa::kMul, 1, 1, 8, 0, 0, 0),             // 2: r1 = 16 * index
      enc(Isa::kGeti, 2, 0, 0, 0, 0, 1),            // 3: r2 = tile id
      enc(Isa::kLi, 7, 0, 0, 0, 0, k.late),         // 4: r7 = late
      enc(Isa::kSub, 2, 2, 7, 0, 0, 0),             // 5: r2 = tile id - late
      enc(Isa::kAdd, 3, 1, 2, 0, 0, 0),             // 6: r3 = 0 only for chip 0, tile late
      enc(Isa::kBne, 0, 3, 0, 0, 0, 11),            // 7: others go straight to the barrier
      enc(Isa::kLi, 4, 0, 0, 0, 0, kLoop),          // 8: r4 = kLoop
      enc(Isa::kAddi, 4, 4, 0, 0, 0, 0xFFFFFFFFu),  // 9: loop: r4 -= 1
      enc(Isa::kBne, 0, 4, 0, 0, 0, 9),             // 10: while r4 != 0
      enc(Isa::kBar, 0, 0, 0, 0, 0, 0),             // 11: barrier
      enc(Isa::kGeti, 5, 0, 0, 0, 0, 3),            // 12: r5 = cycles since start
      enc(Isa::kLi, 6, 0, 0, 0, 0, 2 * kLoop),      // 13: r6 = the late tile's loop
      enc(Isa::kBlt, 0, 5, 6, 0, 0, 22),            // 14: released too early -> illegal
      enc(Isa::kBar, 0, 0, 0, 0, 0, 0),             // 15: everyone at once
      enc(Isa::kBne, 0, 3, 0, 0, 0, 21),            // 16: others end at once
      enc(Isa::kLi, 4, 0, 0, 0, 0, kTail),          // 17: the late tile ends last
      enc(Isa::kAddi, 4, 4, 0, 0, 0, 0xFFFFFFFFu),  // 18: loop: r4 -= 1
      enc(Isa::kBne, 0, 4, 0, 0, 0, 18),            // 19: while r4 != 0
      enc(Isa::kNop, 0, 0, 0, 0, 0, 0),             // 20
      enc(Isa::kEnd, 0, 0, 0, 0, 0, 0),             // 21
      0xFF00000000000000ull,                        // 22: illegal instruction
  };
  model::System msys(topo, k.tiles, 1024);
  auto ctx = kit::make_context();
  Sys sys(topo, k.tiles, ctx.get());
  kit::open_trace_if_asked(sys);
  for (int c = 0; c < 2; ++c) {
    write_both32(sys, msys, c, reg::kIndexWr, static_cast<uint32_t>(c));
    for (int t = 0; t < k.tiles; ++t)
      write_both(sys, msys, c, tile_base(t) + reg::kTileImem, prog.data(), prog.size() * 8);
  }
  sys.flush();
  const auto ms = msys.run(100000);
  ASSERT_TRUE(ms.ok) << ms.error;
  const rtl::RtlRunStats st = sys.run(100000);
  ASSERT_TRUE(st.ok) << st.error;
  // The release cycle of each barrier and the chip's done, to the cycle: every tile's End and
  // so each chip's DoneCycles and the run's length follow from them.
  EXPECT_EQ(st.cycles, ms.cycles);
  EXPECT_GE(st.cycles, 2 * kLoop + 2 * kTail);
  for (int c = 0; c < 2; ++c) {
    EXPECT_EQ(sys.host_read32(c, reg::kDoneCycles), msys.host_read32(c, reg::kDoneCycles))
        << "chip " << c;
    for (int t = 0; t < k.tiles; ++t)
      EXPECT_EQ(sys.host_read32(c, tile_base(t) + reg::kTileStatus) & 0x1Fu, 0x10u)
          << "chip " << c << " tile " << t << " is not done without error";
    // the link registers of both ports (no faults: 0 on both) and of the absent ones
    for (uint32_t l = 0; l < 8; ++l)
      for (const uint32_t r : {reg::kLinkCrcErrors, reg::kLinkStatus, reg::kLinkDiscards})
        EXPECT_EQ(sys.host_read32(c, r + 4 * l), msys.host_read32(c, r + 4 * l))
            << "chip " << c << " link " << l << " register 0x" << std::hex << r;
  }
  std::printf(
      "barrier run, %d tiles, late tile %u: %llu cycles (RTL), %llu (model); DoneCycles "
      "%u, %u\n",
      k.tiles, k.late, static_cast<unsigned long long>(st.cycles),
      static_cast<unsigned long long>(ms.cycles), sys.host_read32(0, reg::kDoneCycles),
      sys.host_read32(1, reg::kDoneCycles));
}

// Two tiles with tile 0 late, and every tile of the chip in the barrier with each of the
// others late in turn (tile 2 or 3 of four late: a barrier or a done that leaves a tile out).
const BarrierCase kBarrierCases[] = {{2, 0, "tiles2_late0"},
                                     {kTiles, 1, "tiles4_late1"},
                                     {kTiles, 2, "tiles4_late2"},
                                     {kTiles, 3, "tiles4_late3"}};

INSTANTIATE_TEST_SUITE_P(Rtl, Barrier, ::testing::ValuesIn(kBarrierCases),
                         [](const ::testing::TestParamInfo<BarrierCase>& i) {
                           return std::string(i.param.name);
                         });

// A chip reports its errors through the host port (docs/errors.md, docs/chip.md): a Send with no
// route and an illegal instruction each stop their tile with an error code, set Status bit 31,
// and make the run fail with the driver's diagnosis naming them. The block tests drive each
// error inside its block; this is the chip-level path from the blocks' flags to the registers.
// (Misroutes at chip level are not reached here: a tile refuses a Send the routing table cannot
// carry, and a packet's destination chip takes it to its tile.)
TEST(ChipErrors, RouteErrorsAndIllegalInstructionsReachStatus) {
  const uint64_t seed = kCollectivesSeed.seed();
  const Topology topo = parse_topology("ring:2");
  CollectiveSpec spec;
  spec.bytes = 2048;
  spec.tiles = 1;
  const Plan plan = plan_collective(topo, spec);
  const std::vector<Bytes> inputs = make_inputs(plan, seed, 0);
  {  // chip 0's route to chip 1 on every lane: port 3, which ring:2 does not connect
    Image img = build_image(topo, plan);
    for (uint32_t lane = 0; lane < kNumLanes; ++lane) img.route[0][lane * kMaxChips + 1] = 3;
    auto ctx = kit::make_context();
    Sys sys(topo, 1, ctx.get());
    kit::open_trace_if_asked(sys);
    const rtl::RtlCollectiveRun run = rtl::run_on_rtl(sys, plan, img, inputs, 200000);
    EXPECT_FALSE(run.stats.ok) << "a collective whose packets cannot leave chip 0 finished";
    EXPECT_NE(run.stats.error.find("no route for its lane and chip"), std::string::npos)
        << run.stats.error;
    EXPECT_NE(sys.host_read32(0, reg::kStatus) & 0x80000000u, 0u) << "Status bit 31";
    EXPECT_NE(sys.host_read32(0, tile_base(0) + reg::kTileStatus) & 0xFu, 0u);
  }
  {
    auto ctx = kit::make_context();
    Sys sys(single_chip(), kTiles, ctx.get());
    const uint64_t illegal = 0xFF00000000000000ull;
    const uint64_t end = isa::enc(Isa::kEnd, 0, 0, 0, 0, 0, 0);
    for (int t : {1, 2, 3}) sys.queue_write(0, tile_base(t) + reg::kTileImem, &illegal, 8);
    sys.queue_write(0, tile_base(0) + reg::kTileImem, &end, 8);
    sys.flush();
    EXPECT_EQ(sys.host_read32(0, reg::kStatus) & 0x80000000u, 0u);
    const rtl::RtlRunStats st = sys.run(10000);
    EXPECT_FALSE(st.ok) << "an illegal instruction ran without an error";
    EXPECT_NE(sys.host_read32(0, reg::kStatus) & 0x80000000u, 0u) << "Status bit 31";
    for (int t : {1, 2, 3})
      EXPECT_EQ(sys.host_read32(0, tile_base(t) + reg::kTileStatus) & 0xFu,
                static_cast<uint32_t>(TileErr::kIllegalInstr))
          << "tile " << t;
    EXPECT_EQ(sys.host_read32(0, tile_base(0) + reg::kTileStatus) & 0x1Fu, 0x10u)
        << "tile 0 is not done without error";
  }
  // Each tile's error alone reaches Status bit 31 (no other tile's error to set it).
  for (int bad = 0; bad < kTiles; ++bad) {
    auto ctx = kit::make_context();
    Sys sys(single_chip(), kTiles, ctx.get());
    const uint64_t illegal = 0xFF00000000000000ull;
    const uint64_t end = isa::enc(Isa::kEnd, 0, 0, 0, 0, 0, 0);
    for (int t = 0; t < kTiles; ++t)
      sys.queue_write(0, tile_base(t) + reg::kTileImem, t == bad ? &illegal : &end, 8);
    sys.flush();
    const rtl::RtlRunStats st = sys.run(10000);
    EXPECT_FALSE(st.ok) << "tile " << bad << "'s illegal instruction ran without an error";
    EXPECT_NE(sys.host_read32(0, reg::kStatus) & 0x80000000u, 0u)
        << "Status bit 31, tile " << bad << " alone";
    EXPECT_EQ(sys.host_read32(0, tile_base(bad) + reg::kTileStatus) & 0xFu,
              static_cast<uint32_t>(TileErr::kIllegalInstr))
        << "tile " << bad;
  }
}

// A packet that reaches a node whose routing table has no entry for its chip is dropped there and
// counted (Misroutes), and the node's Status bit 31 says so (docs/errors.md): on ring:3, chip 0
// sends its packets for chip 1 the long way (port 1, through chip 2), and chip 2's table has no
// entry for chip 1; on tree:(3), the switches' tables have no entries at all. Each run fails,
// stopped by the misrouting node's error output in the model's cycle (not by the watchdog), the
// diagnosis names the misrouting node's Misroutes, every node's Misroutes equals the model's
// (one model System per process: one topology per case), and no node reports an XB error.
class Misroutes : public ::testing::TestWithParam<const char*> {};

TEST_P(Misroutes, PacketsWithoutARouteAreDroppedAndCounted) {
  const uint64_t seed = kCollectivesSeed.seed();
  const char* spec_text = GetParam();
  const Topology topo = parse_topology(spec_text);
  CollectiveSpec spec;
  spec.bytes = 1536;
  spec.tiles = 1;
  const Plan plan = plan_collective(topo, spec);
  const std::vector<Bytes> inputs = make_inputs(plan, seed, 0);
  Image img = build_image(topo, plan);
  std::vector<bool> bad(topo.num_nodes, false);  // the nodes that may misroute
  for (uint32_t lane = 0; lane < kNumLanes; ++lane) {
    if (topo.num_nodes == topo.num_chips) {
      img.route[0][lane * kMaxChips + 1] = 1;
      img.route[2][lane * kMaxChips + 1] = 255;
      bad[2] = true;
    } else {
      for (int n = topo.num_chips; n < topo.num_nodes; ++n) {
        for (uint32_t c = 0; c < kMaxChips; ++c) img.route[n][lane * kMaxChips + c] = 255;
        bad[n] = true;
      }
    }
  }
  uint32_t dmem = 0;
  for (int t = 0; t < plan.tiles; ++t) dmem = std::max(dmem, tile_footprint(plan, t));
  model::System msys(topo, plan.tiles, dmem);
  const model::CollectiveRun m = model::run_on_system(msys, plan, img, inputs, 100000);
  EXPECT_FALSE(m.stats.ok) << "the model finished a collective whose packets were dropped";
  auto ctx = kit::make_context();
  Sys sys(topo, 1, ctx.get());
  kit::open_trace_if_asked(sys);
  const rtl::RtlCollectiveRun run = rtl::run_on_rtl(sys, plan, img, inputs, 100000);
  EXPECT_FALSE(run.stats.ok) << "a collective whose packets were dropped finished";
  EXPECT_NE(run.stats.error.find("(Misroutes)"), std::string::npos) << run.stats.error;
  // stopped by the misrouting node's error output (stat_err_o), not by the watchdog
  EXPECT_NE(run.stats.error.find("a node reports an error"), std::string::npos) << run.stats.error;
  EXPECT_EQ(run.stats.cycles, m.stats.cycles) << run.stats.error << " / " << m.stats.error;
  EXPECT_LT(run.stats.cycles, 100u) << run.stats.error;
  uint32_t misrouted = 0;
  for (int n = 0; n < topo.num_nodes; ++n) {
    const uint32_t r = sys.host_read32(n, reg::kMisroutes);
    misrouted += r;
    EXPECT_EQ(r, msys.host_read32(n, reg::kMisroutes)) << "node " << n << ": Misroutes";
    EXPECT_TRUE(bad[n] || r == 0) << "node " << n << " misrouted " << r << " packets";
    if (r) {
      const std::string node = (topo.is_switch(n) ? "switch " : "chip ") + std::to_string(n);
      EXPECT_NE(run.stats.error.find(node + ": "), std::string::npos) << run.stats.error;
      EXPECT_NE(sys.host_read32(n, reg::kStatus) & 0x80000000u, 0u) << node << " Status bit 31";
    }
    EXPECT_EQ(sys.host_read32(n, reg::kXbErrors), 0u) << "node " << n;
  }
  EXPECT_GT(misrouted, 0u) << "no node counted a misroute";
  std::printf("%s: stopped after %llu cycles (RTL), %llu (model); %u misroutes\n", spec_text,
              static_cast<unsigned long long>(run.stats.cycles),
              static_cast<unsigned long long>(m.stats.cycles), misrouted);
}

INSTANTIATE_TEST_SUITE_P(Rtl, Misroutes, ::testing::Values("ring:3", "tree:(3)"),
                         [](const ::testing::TestParamInfo<const char*>& i) {
                           return std::string(i.param[0] == 'r' ? "ring3" : "tree3");
                         });

// A failed run stops in the same cycle on the RTL and on the model, whatever the error and
// the block that raises it (docs/model.md section 5): the RTL's run stops when a node's
// stat_err_o is seen; the model counts from the cycle the error arose plus the registers between.
// On ring:2, one tile per chip; chip 0's tile (or chip 1's, for a receive error) fails, the other
// chip's tile waits on a counter nothing reaches. Cycles, every tile's status and its error
// detail (TileErrInfo) equal the model's.
struct ErrorCase {
  const char* name;
  std::vector<uint64_t> prog0, prog1;  // chips 0 and 1
  uint32_t route01 = 0xFF;             // chip 0's route to chip 1 on lane 0
  uint32_t watchdog = 0;               // chip 0 tile 0's TileWatchdog
};

std::vector<ErrorCase> error_cases() {
  using isa::enc;
  const uint64_t illegal = 0xFF00000000000000ull;
  const std::vector<uint64_t> wait_forever = {enc(Isa::kLi, 1, 0, 0, 0, 0, 1),
                                              enc(Isa::kWait, 0, 1, 0, 0, 0, 5)};
  SendDesc d;
  d.popc = Opcode::kWrite;
  const uint32_t write = pack_send_imm(d);
  auto send_to_chip1 = [&](uint32_t dst) {  // 16 bytes from DMEM 0 to chip 1 at dst
    return std::vector<uint64_t>{
        enc(Isa::kLi, 1, 0, 0, 0, 0, 0),       enc(Isa::kLi, 2, 0, 0, 0, 0, 16),
        enc(Isa::kLi, 3, 0, 0, 0, 0, 1),       enc(Isa::kLi, 4, 0, 0, 0, 0, dst),
        enc(Isa::kSend, 0, 1, 2, 3, 4, write), enc(Isa::kEnd, 0, 0, 0, 0, 0, 0)};
  };
  std::vector<ErrorCase> v;
  v.push_back({"illegal_at_0", {illegal}, wait_forever});
  v.push_back({"illegal_after_a_loop",
               {enc(Isa::kLi, 1, 0, 0, 0, 0, 7), enc(Isa::kAddi, 1, 1, 0, 0, 0, 0xFFFFFFFFu),
                enc(Isa::kBne, 0, 1, 0, 0, 0, 1), illegal},
               wait_forever});
  v.push_back({"pc_range", {enc(Isa::kJmp, 0, 0, 0, 0, 0, 5000)}, wait_forever});
  v.push_back({"pmem_range", {enc(Isa::kLw, 1, 0, 0, 0, 0, 0x100000)}, wait_forever});
  v.push_back({"send_without_route", send_to_chip1(0x100), wait_forever});
  v.push_back({"receive_beyond_dmem", send_to_chip1(kDmemBytes), wait_forever, 0});
  v.push_back({"watchdog", wait_forever, wait_forever, 0xFF, 60});
  v[5].route01 = 0;  // the packet leaves and chip 1's receive check refuses it
  return v;
}

class ErrorStop : public ::testing::TestWithParam<ErrorCase> {};

TEST_P(ErrorStop, TheRunStopsInTheModelsCycle) {
  const ErrorCase& k = GetParam();
  const Topology topo = parse_topology("ring:2");
  model::System msys(topo, 1, kDmemBytes);
  auto ctx = kit::make_context();
  Sys sys(topo, 1, ctx.get());
  kit::open_trace_if_asked(sys);
  for (int c = 0; c < 2; ++c) {
    const std::vector<uint64_t>& p = c == 0 ? k.prog0 : k.prog1;
    write_both(sys, msys, c, tile_base(0) + reg::kTileImem, p.data(), p.size() * 8);
  }
  const uint32_t rt = 0xFFFF00FFu | (k.route01 & 0xFFu) << 8;  // chips 0..3 on lane 0
  write_both32(sys, msys, 0, reg::kRouteTable, rt);
  write_both32(sys, msys, 0, tile_base(0) + reg::kTileWatchdog, k.watchdog);
  sys.flush();
  const auto ms = msys.run(100000);
  const rtl::RtlRunStats st = sys.run(100000);
  EXPECT_FALSE(ms.ok) << "the model finished";
  EXPECT_FALSE(st.ok) << "the RTL finished";
  EXPECT_EQ(st.cycles, ms.cycles) << "RTL: " << st.error << "; model: " << ms.error;
  for (int c = 0; c < 2; ++c)
    for (const uint32_t r : {reg::kTileStatus, reg::kTileErrInfo})
      EXPECT_EQ(sys.host_read32(c, tile_base(0) + r), msys.host_read32(c, tile_base(0) + r))
          << "chip " << c << " register 0x" << std::hex << r;
  std::printf("%s: stopped after %llu cycles (RTL), %llu (model): %s\n", k.name,
              static_cast<unsigned long long>(st.cycles),
              static_cast<unsigned long long>(ms.cycles), ms.error.c_str());
}

INSTANTIATE_TEST_SUITE_P(Rtl, ErrorStop, ::testing::ValuesIn(error_cases()),
                         [](const ::testing::TestParamInfo<ErrorCase>& i) {
                           return std::string(i.param.name);
                         });

// A streamed Send counts the receive engine's words from the cycle after its push (docs/tile.md
// section 4.5): a word written in cycle T is announced in T - 2 and counts for the jobs pushed
// before T - 2 (the job starts in T - 1 and sends the word in T), or, pushed later but before T,
// by its write (the job starts in T + 1). On ring:2 with one tile per chip, chip 1 writes 16
// bytes of A into chip 0's word X, and (with `release`) 120 cycles later 16 bytes of B. Chip 0
// runs k Nops, then queues a streamed Send of X to chip 1 whose CSR 18 names a counter value no
// packet reaches, so only a write after the push releases it: A if the first write counted, B
// if it came before the push or in its cycle. Chip 1 ends once the streamed packet is in (and,
// with `release`, after sending B). With today's latencies A's write lands in the cycle after
// the push at k = kStreamLastA and in the push's own cycle at kStreamLastA + 1; A's announcement
// is two cycles earlier. A changed pipeline that moves the boundaries fails the rule checks
// first; move kStreamLastA with it (the printed cycles show where the write now lands).
constexpr int kStreamLastA = 20;

// The streamed-job cases' memory (ring:2, one tile per chip): in both chips' DMEM 16 bytes of A
// at kSrcA, of B at kSrcB, and of Y at kX and kY (the destinations).
constexpr uint32_t kSrcA = 0x0, kSrcB = 0x10, kX = 0x100, kY = 0x200;
constexpr uint8_t kStreamA = 0xA1, kStreamB = 0xB2, kStreamY = 0x5C;

// Loads a streamed-job case into the RTL and the model alike: the routes, chip c's program (p0,
// p1) and the memory above.
void load_stream_case(Sys& sys, model::System& msys, const Topology& topo,
                      const std::vector<uint64_t>& p0, const std::vector<uint64_t>& p1) {
  write_tree_routes_both(sys, msys, topo);
  const std::vector<uint8_t> a(16, kStreamA), b(16, kStreamB), y(16, kStreamY);
  for (int c = 0; c < 2; ++c) {
    const std::vector<uint64_t>& p = c == 0 ? p0 : p1;
    write_both(sys, msys, c, tile_base(0) + reg::kTileImem, p.data(), p.size() * 8);
    write_both(sys, msys, c, tile_base(0) + reg::kTileDmem + kSrcA, a.data(), 16);
    write_both(sys, msys, c, tile_base(0) + reg::kTileDmem + kSrcB, b.data(), 16);
    write_both(sys, msys, c, tile_base(0) + reg::kTileDmem + kX, y.data(), 16);
    write_both(sys, msys, c, tile_base(0) + reg::kTileDmem + kY, y.data(), 16);
  }
  sys.flush();
}

struct StreamRun {
  uint64_t cycles;      // the run's, RTL and model equal (checked)
  uint32_t chip1_done;  // chip 1's DoneCycles, RTL and model equal (checked)
  bool streamed_a;      // chip 1 received A (else B)
};

StreamRun stream_case(int k, bool release) {
  using isa::enc;
  SendDesc wd;
  wd.popc = Opcode::kWrite;
  wd.ctr = 1;
  const uint32_t write_ctr1 = pack_send_imm(wd);
  wd.ctr = 2;
  wd.stream = true;
  const uint32_t stream_ctr2 = pack_send_imm(wd);
  const uint32_t never = (31u << 27) | 0x7FFFFFFu;  // CSR 18: counter 31 >= 2^27 - 1
  std::vector<uint64_t> p1 = {enc(Isa::kLi, 1, 0, 0, 0, 0, kSrcA), enc(Isa::kLi, 2, 0, 0, 0, 0, 16),
                              enc(Isa::kLi, 3, 0, 0, 0, 0, 0), enc(Isa::kLi, 4, 0, 0, 0, 0, kX),
                              enc(Isa::kSend, 0, 1, 2, 3, 4, write_ctr1)};
  if (release)
    for (const uint64_t w :
         {enc(Isa::kLi, 9, 0, 0, 0, 0, 60),  // about 120 cycles
          enc(Isa::kAddi, 9, 9, 0, 0, 0, 0xFFFFFFFFu), enc(Isa::kBne, 0, 9, 0, 0, 0, 6),
          enc(Isa::kLi, 1, 0, 0, 0, 0, kSrcB), enc(Isa::kSend, 0, 1, 2, 3, 4, write_ctr1)})
      p1.push_back(w);
  for (const uint64_t w : {enc(Isa::kLi, 14, 0, 0, 0, 0, 1), enc(Isa::kWait, 0, 14, 0, 0, 0, 2),
                           enc(Isa::kEnd, 0, 0, 0, 0, 0, 0)})
    p1.push_back(w);
  std::vector<uint64_t> p0(static_cast<size_t>(k), enc(Isa::kNop, 0, 0, 0, 0, 0, 0));
  for (const uint64_t w :
       {enc(Isa::kLi, 5, 0, 0, 0, 0, never), enc(Isa::kLi, 1, 0, 0, 0, 0, kX),
        enc(Isa::kLi, 2, 0, 0, 0, 0, 16), enc(Isa::kLi, 3, 0, 0, 0, 0, 1),
        enc(Isa::kLi, 4, 0, 0, 0, 0, kY), enc(Isa::kCsrw, 0, 5, 0, 0, 0, kCsrStream),
        enc(Isa::kSend, 0, 1, 2, 3, 4, stream_ctr2), enc(Isa::kLi, 14, 0, 0, 0, 0, release ? 2 : 1),
        enc(Isa::kWait, 0, 14, 0, 0, 0, 1), enc(Isa::kEnd, 0, 0, 0, 0, 0, 0)})
    p0.push_back(w);
  const Topology topo = parse_topology("ring:2");
  model::System msys(topo, 1, kDmemBytes);
  auto ctx = kit::make_context();
  Sys sys(topo, 1, ctx.get());
  kit::open_trace_if_asked(sys);
  const std::vector<uint8_t> a(16, kStreamA), b(16, kStreamB);
  load_stream_case(sys, msys, topo, p0, p1);
  const auto ms = msys.run(100000);
  EXPECT_TRUE(ms.ok) << ms.error;
  const rtl::RtlRunStats st = sys.run(100000);
  EXPECT_TRUE(st.ok) << st.error;
  EXPECT_EQ(st.cycles, ms.cycles) << "k = " << k;
  for (int c = 0; c < 2; ++c)
    EXPECT_EQ(sys.host_read32(c, tile_base(0) + reg::kTileStatus),
              msys.host_read32(c, tile_base(0) + reg::kTileStatus))
        << "chip " << c;
  const uint32_t done = msys.host_read32(1, reg::kDoneCycles);
  EXPECT_EQ(sys.host_read32(1, reg::kDoneCycles), done) << "chip 1's DoneCycles, k = " << k;
  std::vector<uint8_t> yr(16), ym(16);
  sys.queue_read(1, tile_base(0) + reg::kTileDmem + kY, yr.data(), 16);
  sys.flush();
  msys.host_read(1, tile_base(0) + reg::kTileDmem + kY, ym.data(), 16);
  EXPECT_EQ(yr, ym) << "the streamed packet's bytes: RTL against the model";
  EXPECT_TRUE(ym == a || ym == b) << "k = " << k << ": the streamed bytes are neither A nor B";
  std::printf("k = %d%s: streamed %s, %llu cycles (RTL), %llu (model), chip 1 done at %u\n", k,
              release ? "" : " (no B)", ym == a ? "A" : "B",
              static_cast<unsigned long long>(st.cycles),
              static_cast<unsigned long long>(ms.cycles), done);
  return {st.cycles, done, ym == a};
}

class StreamBoundary : public ::testing::TestWithParam<int> {};

TEST_P(StreamBoundary, AWriteCountsFromTheCycleAfterThePush) {
  const int k = GetParam();
  const StreamRun r = stream_case(k, true);
  EXPECT_EQ(r.streamed_a, k <= kStreamLastA)
      << "k = " << k << ": streamed " << (r.streamed_a ? "A" : "B") << ", the rule says "
      << (k <= kStreamLastA ? "A" : "B");
}

INSTANTIATE_TEST_SUITE_P(Rtl, StreamBoundary, ::testing::Range(kStreamLastA - 3, kStreamLastA + 4));

// The announcement's boundary, without B: a job pushed up to kStreamLastA - 2 counts A from its
// announcement and sends it in its write's cycle; pushed in the two cycles after, from its
// write, 2 cycles later. Chip 1's DoneCycles (the streamed packet's arrival) shows which:
// kStreamDoneA with today's latencies (a changed pipeline moves it; the printed value shows
// where). One case per process (a SystemC simulation cannot be built after another ran).
constexpr uint32_t kStreamDoneA = 53;

class StreamNotice : public ::testing::TestWithParam<int> {};

TEST_P(StreamNotice, AnAnnouncementCountsTwoCyclesBeforeTheWrite) {
  const int k = GetParam();
  const bool noticed = k <= kStreamLastA - 2;
  const StreamRun r = stream_case(k, false);
  EXPECT_TRUE(r.streamed_a) << "k = " << k;
  EXPECT_EQ(r.chip1_done, kStreamDoneA + (noticed ? 0u : 2u))
      << "k = " << k << ": the rule says counted from "
      << (noticed ? "the announcement" : "the write");
}

INSTANTIATE_TEST_SUITE_P(Rtl, StreamNotice, ::testing::Range(kStreamLastA - 4, kStreamLastA + 1));

// The send engine decides whether its front streamed job's counter has reached its value a cycle
// ahead (rtl/xf_tile_send.sv, sreach_q), for the job that will be at the front: entry 1 after a
// pop. Chip 0 queues a plain Send while CSR 18 names a value no counter reaches (the plain job
// keeps it, unread), then a streamed Send whose value is 0 (whole at once). When the plain job
// pops, the compare must be the streamed job's, not the front's (StreamReachRegister_A fires
// in the cycle after otherwise); both packets arrive, RTL and model equal to the cycle.
TEST(RtlChip, StreamedJobBehindAPlainJob) {
  using isa::enc;
  SendDesc wd;
  wd.popc = Opcode::kWrite;
  wd.ctr = 1;
  const uint32_t plain = pack_send_imm(wd);
  wd.stream = true;
  const uint32_t streamed = pack_send_imm(wd);
  const uint32_t never = (31u << 27) | 0x7FFFFFFu;  // CSR 18: counter 31 >= 2^27 - 1
  const uint32_t at_once = 2u << 27;                // CSR 18: counter 2 >= 0
  const std::vector<uint64_t> p0 = {enc(Isa::kLi, 5, 0, 0, 0, 0, never),
                                    enc(Isa::kCsrw, 0, 5, 0, 0, 0, kCsrStream),
                                    enc(Isa::kLi, 1, 0, 0, 0, 0, kSrcA),
                                    enc(Isa::kLi, 2, 0, 0, 0, 0, 16),
                                    enc(Isa::kLi, 3, 0, 0, 0, 0, 1),
                                    enc(Isa::kLi, 4, 0, 0, 0, 0, kX),
                                    enc(Isa::kSend, 0, 1, 2, 3, 4, plain),
                                    enc(Isa::kLi, 6, 0, 0, 0, 0, at_once),
                                    enc(Isa::kCsrw, 0, 6, 0, 0, 0, kCsrStream),
                                    enc(Isa::kLi, 1, 0, 0, 0, 0, kSrcB),
                                    enc(Isa::kLi, 4, 0, 0, 0, 0, kY),
                                    enc(Isa::kSend, 0, 1, 2, 3, 4, streamed),
                                    enc(Isa::kWaits, 0, 0, 0, 0, 0, 0),
                                    enc(Isa::kEnd, 0, 0, 0, 0, 0, 0)};
  const std::vector<uint64_t> p1 = {enc(Isa::kLi, 14, 0, 0, 0, 0, 2),
                                    enc(Isa::kWait, 0, 14, 0, 0, 0, 1),
                                    enc(Isa::kEnd, 0, 0, 0, 0, 0, 0)};
  const Topology topo = parse_topology("ring:2");
  model::System msys(topo, 1, kDmemBytes);
  auto ctx = kit::make_context();
  Sys sys(topo, 1, ctx.get());
  kit::open_trace_if_asked(sys);
  const std::vector<uint8_t> a(16, kStreamA), b(16, kStreamB);
  load_stream_case(sys, msys, topo, p0, p1);
  const auto ms = msys.run(100000);
  ASSERT_TRUE(ms.ok) << ms.error;
  const rtl::RtlRunStats st = sys.run(100000);
  ASSERT_TRUE(st.ok) << st.error;
  EXPECT_EQ(st.cycles, ms.cycles);
  for (const uint32_t addr : {kX, kY}) {
    std::vector<uint8_t> r(16), m(16);
    sys.queue_read(1, tile_base(0) + reg::kTileDmem + addr, r.data(), 16);
    sys.flush();
    msys.host_read(1, tile_base(0) + reg::kTileDmem + addr, m.data(), 16);
    EXPECT_EQ(r, m) << "chip 1's word at 0x" << std::hex << addr << ": RTL against the model";
    EXPECT_EQ(m, addr == kX ? a : b) << "chip 1's word at 0x" << std::hex << addr;
  }
  std::printf("a streamed job behind a plain one: %llu cycles (RTL), %llu (model)\n",
              static_cast<unsigned long long>(st.cycles),
              static_cast<unsigned long long>(ms.cycles));
}

// Random programs, RTL against the model to the cycle (the compiler's programs use a few of the
// instructions in a few patterns; a barrier was a cycle early in the model until such a test ran
// a program with Bar). Per case a topology, 1 to 4 tiles per chip and one random program per
// tile: Li/Add/Sub/Mul/Addi on r1..r8, Lw from a random PMEM, Geti 0..3 (the cycle count makes
// later branches depend on timing), forward Beq/Bne/Blt/Bge, counted loops, Nop, Csrw 16 and 17
// from registers (read by the receiving tile's Avg and ScaleAdd), the same number of Bar in every
// tile, and Sends from an 8 KiB source region to random tiles of any chip, with a random
// counter: Writes of 16 to 4096 bytes anywhere in a 4 KiB area (overlapping, so arrival order
// shows), and Reduces of 16 to 1024 bytes with a random dtype and op (Avg on integers, ScaleAdd
// on fp32), half of them into the Write area and half into a 2 KiB area of their own, so that
// Reduces meet earlier Writes and Reduces to the same words back to back: the receive engine's
// read-after-write hold and its back-pressure into the exchange (docs/tile.md section 7; the
// model lacked them until make regress-programs found the difference). One Send in four
// outside a burst is streamed (Csrw 18, then the stream bit: docs/tile.md section 4.5) and waits
// for a counter value of its own tile that the early sends reach. Each tile
// ends by waiting for every flit the plan sends it, counter by counter, then End. Compared:
// the run's cycles, every chip's DoneCycles, every tile's TileStatus and arrival counters, and
// its destination region, byte for byte.
struct ProgramCase {
  const char* topo;
  int index;  // the case's seed offset
};
class RandomPrograms : public ::testing::TestWithParam<ProgramCase> {};

TEST_P(RandomPrograms, MatchTheModelToTheCycle) {
  const ProgramCase& k = GetParam();
  kit::Rng rng = kProgramSeed.rng();
  auto pick = [&](uint64_t n) { return static_cast<uint32_t>(rng() % n); };
  const Topology topo = parse_topology(k.topo);
  const int chips = topo.num_chips, tiles = 1 + pick(kTiles);
  constexpr uint32_t kSrc = 0, kRegion = 0x2000, kPmemWords = 64;
  constexpr uint32_t kDst = 0x10000, kWriteArea = 0x1000, kReduceArea = 0x800;
  constexpr uint32_t kDstBytes = kWriteArea + kReduceArea;
  using isa::enc;
  const int bars = pick(3);
  // flits[chip][tile][counter] each tile receives
  std::vector<std::vector<std::vector<uint32_t>>> flits(
      chips, std::vector<std::vector<uint32_t>>(tiles, std::vector<uint32_t>(kNumCounters, 0)));
  std::vector<std::vector<std::vector<uint64_t>>> progs(chips,
                                                        std::vector<std::vector<uint64_t>>(tiles));
  int sends = 0;
  // Streamed Sends (docs/tile.md section 4.5): each waits for its own tile's counter to reach a
  // value that the early sends alone reach (those before any Bar and any streamed Send of their
  // program, which nothing can hold up), so no program can wait on itself. Their value is known
  // once every program is drawn: the Li that loads CSR 18 is patched then.
  std::vector<std::vector<std::vector<uint32_t>>> early = flits;
  struct StreamPatch {
    int chip, tile;
    size_t at;
    uint32_t ctr;
  };
  std::vector<StreamPatch> patches;
  for (int c = 0; c < chips; ++c)
    for (int t = 0; t < tiles; ++t) {
      std::vector<uint64_t>& p = progs[c][t];
      bool late = false;                       // a Bar or a streamed Send came before
      auto reg = [&] { return 1 + pick(8); };  // r1..r8
      auto value = [&]() -> uint32_t {
        switch (pick(4)) {
          case 0:
            return pick(16);
          case 1:
            return static_cast<uint32_t>(rng());
          case 2:
            return 0xFFFFFFF0u + pick(16);
          default:
            return 1u << pick(32);
        }
      };
      auto alu = [&] {
        switch (pick(5)) {
          case 0:
            p.push_back(enc(Isa::kLi, reg(), 0, 0, 0, 0, value()));
            break;
          case 1:
            p.push_back(enc(Isa::kAdd, reg(), reg(), reg(), 0, 0, 0));
            break;
          case 2:
            p.push_back(enc(Isa::kSub, reg(), reg(), reg(), 0, 0, 0));
            break;
          case 3:
            p.push_back(enc(Isa::kMul, reg(), reg(), reg(), 0, 0, 0));
            break;
          default:
            p.push_back(enc(Isa::kAddi, reg(), reg(), 0, 0, 0, value()));
            break;
        }
      };
      for (int r = 1; r <= 8; ++r) p.push_back(enc(Isa::kLi, r, 0, 0, 0, 0, value()));
      std::vector<int> bar_at;  // segments after which a Bar goes
      const int segments = 4 + pick(8);
      for (int b = 0; b < bars; ++b) bar_at.push_back(pick(segments));
      for (int seg = 0; seg < segments; ++seg) {
        const uint32_t seg_kind = pick(9);
        switch (seg_kind) {
          case 0:
          case 1:
            for (int i = 0, n = 1 + pick(4); i < n; ++i) alu();
            break;
          case 2:
            p.push_back(enc(Isa::kLw, reg(), 0, 0, 0, 0, pick(kPmemWords)));
            break;
          case 3:
            p.push_back(enc(Isa::kGeti, reg(), 0, 0, 0, 0, pick(4)));
            break;
          case 4: {  // a forward branch over 1 to 3 instructions
            static const Isa kBr[] = {Isa::kBeq, Isa::kBne, Isa::kBlt, Isa::kBge};
            const int n = 1 + pick(3);
            const uint32_t target = static_cast<uint32_t>(p.size()) + 1 + n;
            p.push_back(enc(kBr[pick(4)], 0, reg(), reg(), 0, 0, target));
            for (int i = 0; i < n; ++i) alu();
            break;
          }
          case 5: {  // a counted loop on r9
            p.push_back(enc(Isa::kLi, 9, 0, 0, 0, 0, 1 + pick(20)));
            const uint32_t top = static_cast<uint32_t>(p.size());
            for (int i = 0, n = pick(3); i < n; ++i) alu();
            p.push_back(enc(Isa::kAddi, 9, 9, 0, 0, 0, 0xFFFFFFFFu));
            p.push_back(enc(Isa::kBne, 0, 9, 0, 0, 0, top));
            break;
          }
          case 6:
            p.push_back(pick(2) ? enc(Isa::kNop, 0, 0, 0, 0, 0, 0)
                                : enc(Isa::kCsrw, 0, reg(), 0, 0, 0, 16 + pick(2)));
            break;
          default: {  // a Send, or (case 7) a burst of 2 to 4 short Reduces to the same words
            const int dc = pick(chips), dt = pick(tiles);
            const bool burst = seg_kind == 7;
            const bool stream = !burst && pick(4) == 0;
            // A Reduce into the Write area or the Reduce area; a Write into the Write area. The
            // sends of a burst share the destination and size.
            const bool reduce = burst || pick(3) != 0;
            uint32_t bytes = burst ? 16 * (1 + pick(4)) : 16 * (1 + pick(64)), dst = 0;
            if (reduce) {
              const bool own = pick(2) != 0;
              const uint32_t base = own ? kDst + kWriteArea : kDst;
              dst = base + 16 * pick(((own ? kReduceArea : kWriteArea) - bytes) / 16 + 1);
            } else {
              bytes = 16 * (1 + pick(256));
              dst = kDst + 16 * pick((kWriteArea - bytes) / 16 + 1);
            }
            for (int k = 0, n = burst ? 2 + pick(3) : 1; k < n; ++k) {
              const uint32_t src = kSrc + 16 * pick((kRegion - bytes) / 16 + 1);
              SendDesc d;
              d.tile = dt;
              d.ctr = pick(4);
              if (!reduce) {
                d.popc = Opcode::kWrite;
              } else {
                d.popc = Opcode::kReduce;
                d.dtype = static_cast<DType>(pick(kDTypeCount));
                const bool integer = d.dtype <= DType::kInt32;
                switch (pick(5)) {
                  case 0:
                    d.op = RedOp::kMax;
                    break;
                  case 1:
                    d.op = RedOp::kMin;
                    break;
                  case 2:
                    d.op = integer                   ? RedOp::kAvg
                           : d.dtype == DType::kFp32 ? RedOp::kScaleAdd
                                                     : RedOp::kSum;
                    break;
                  default:
                    d.op = RedOp::kSum;
                    break;
                }
                d.sat = integer && d.op == RedOp::kSum && pick(2);
                if (d.op == RedOp::kAvg) {
                  d.avg_shift = pick(4);
                  d.avg_final = pick(2);
                }
              }
              if (stream) {
                d.stream = true;
                late = true;
                patches.push_back({c, t, p.size(), pick(4)});
                p.push_back(0);  // Li r14, CSR 18's value (patched below)
                p.push_back(enc(Isa::kCsrw, 0, 14, 0, 0, 0, kCsrStream));
              }
              p.push_back(enc(Isa::kLi, 10, 0, 0, 0, 0, src));
              p.push_back(enc(Isa::kLi, 11, 0, 0, 0, 0, bytes));
              p.push_back(enc(Isa::kLi, 12, 0, 0, 0, 0, static_cast<uint32_t>(dc)));
              p.push_back(enc(Isa::kLi, 13, 0, 0, 0, 0, dst));
              p.push_back(enc(Isa::kSend, 0, 10, 11, 12, 13, pack_send_imm(d)));
              flits[dc][dt][d.ctr] += bytes / 16;
              if (!late) early[dc][dt][d.ctr] += bytes / 16;
              ++sends;
            }
            break;
          }
        }
        for (int b : bar_at)
          if (b == seg) {
            p.push_back(enc(Isa::kBar, 0, 0, 0, 0, 0, 0));
            late = true;
          }
      }
    }
  for (const StreamPatch& sp : patches) {
    const uint32_t reach = early[sp.chip][sp.tile][sp.ctr];
    progs[sp.chip][sp.tile][sp.at] =
        enc(Isa::kLi, 14, 0, 0, 0, 0, sp.ctr << 27 | (reach ? pick(reach + 1) : 0));
  }
  for (int c = 0; c < chips; ++c)
    for (int t = 0; t < tiles; ++t) {
      for (uint32_t ctr = 0; ctr < kNumCounters; ++ctr)
        if (flits[c][t][ctr] != 0) {
          progs[c][t].push_back(enc(Isa::kLi, 14, 0, 0, 0, 0, flits[c][t][ctr]));
          progs[c][t].push_back(enc(Isa::kWait, 0, 14, 0, 0, 0, ctr));
        }
      progs[c][t].push_back(enc(Isa::kEnd, 0, 0, 0, 0, 0, 0));
    }
  // the same machine state on both: programs, PMEM, source regions, routes (every lane)
  model::System msys(topo, tiles, kDmemBytes);
  auto ctx = kit::make_context();
  Sys sys(topo, tiles, ctx.get());
  kit::open_trace_if_asked(sys);
  write_tree_routes_both(sys, msys, topo);
  for (int c = 0; c < chips; ++c) {
    write_both32(sys, msys, c, reg::kIndexWr, static_cast<uint32_t>(c));
    for (int t = 0; t < tiles; ++t) {
      write_both(sys, msys, c, tile_base(t) + reg::kTileImem, progs[c][t].data(),
                 progs[c][t].size() * 8);
      std::vector<uint32_t> pmem(kPmemWords);
      for (auto& w : pmem) w = static_cast<uint32_t>(rng());
      write_both(sys, msys, c, tile_base(t) + reg::kTilePmem, pmem.data(), pmem.size() * 4);
      std::vector<uint8_t> data(kRegion + kDstBytes);  // source region, then the destination's
      for (auto& b : data) b = static_cast<uint8_t>(rng());
      write_both(sys, msys, c, tile_base(t) + reg::kTileDmem + kSrc, data.data(), kRegion);
      write_both(sys, msys, c, tile_base(t) + reg::kTileDmem + kDst, data.data() + kRegion,
                 kDstBytes);
    }
  }
  sys.flush();
  const auto ms = msys.run(2'000'000);
  ASSERT_TRUE(ms.ok) << ms.error << "\n" << kProgramSeed.repro();
  const rtl::RtlRunStats st = sys.run(2'000'000);
  ASSERT_TRUE(st.ok) << st.error << "\n" << kProgramSeed.repro();
  EXPECT_EQ(st.cycles, ms.cycles) << kProgramSeed.repro();
  int mismatches = 0;
  for (int c = 0; c < chips; ++c) {
    EXPECT_EQ(sys.host_read32(c, reg::kDoneCycles), msys.host_read32(c, reg::kDoneCycles))
        << "chip " << c;
    for (int t = 0; t < tiles; ++t) {
      const uint32_t base = tile_base(t);
      EXPECT_EQ(sys.host_read32(c, base + reg::kTileStatus),
                msys.host_read32(c, base + reg::kTileStatus))
          << "chip " << c << " tile " << t << " TileStatus";
      std::vector<uint32_t> cr(kNumCounters), cm(kNumCounters);
      sys.queue_read(c, base + reg::kTileCounters, cr.data(), cr.size() * 4);
      sys.flush();
      msys.host_read(c, base + reg::kTileCounters, cm.data(), cm.size() * 4);
      EXPECT_EQ(cr, cm) << "chip " << c << " tile " << t << " counters";
      std::vector<uint8_t> dr(kDstBytes), dm(kDstBytes);
      sys.queue_read(c, base + reg::kTileDmem + kDst, dr.data(), dr.size());
      sys.flush();
      msys.host_read(c, base + reg::kTileDmem + kDst, dm.data(), dm.size());
      for (uint32_t i = 0; i < kDstBytes && mismatches < 5; ++i)
        if (dr[i] != dm[i]) {
          ADD_FAILURE() << "chip " << c << " tile " << t << " DMEM 0x" << std::hex << kDst + i
                        << ": RTL 0x" << +dr[i] << ", model 0x" << +dm[i];
          ++mismatches;
        }
    }
  }
  size_t words = 0;
  for (const auto& pc : progs)
    for (const auto& p : pc) words += p.size();
  std::printf(
      "%s, %d tiles, %d Bar each, %zu instructions, %d sends: %llu cycles (RTL), %llu "
      "(model)\n",
      k.topo, tiles, bars, words, sends, static_cast<unsigned long long>(st.cycles),
      static_cast<unsigned long long>(ms.cycles));
  if (HasFailure()) std::printf("reproduce: %s\n", kProgramSeed.repro().c_str());
}

const ProgramCase kProgramCases[] = {{"ring:2", 0},   {"ring:2", 1},          {"ring:3", 2},
                                     {"ring:3", 3},   {"line:3", 4},          {"tree:(3)", 5},
                                     {"tree:(3)", 6}, {"tree:((2,1),3)", 7},  {"ladder:4", 8},
                                     {"ladder:4", 9}, {"tree:((2,1),3)", 10}, {"ring:2", 11}};

INSTANTIATE_TEST_SUITE_P(Rtl, RandomPrograms, ::testing::ValuesIn(kProgramCases),
                         [](const ::testing::TestParamInfo<ProgramCase>& i) {
                           std::string n = i.param.topo;
                           n.erase(std::remove_if(n.begin(), n.end(),
                                                  [](char ch) { return !std::isalnum(ch); }),
                                   n.end());
                           return n + "_" + std::to_string(i.param.index);
                         });

struct Case {
  const char* topo;
  Collective coll;
  DType dtype;
  RedOp op;
  uint64_t bytes;
  int tiles;
  Algo algo;
  int root;
  const char* name;
  int flit_bits = 128;
};

class Collectives : public ::testing::TestWithParam<Case> {};

TEST_P(Collectives, MatchReference) {
  const Case& k = GetParam();
  const uint64_t seed = kCollectivesSeed.seed();
  std::printf("case %s, seed 0x%llx (XF_SEED overrides)\n", k.name,
              static_cast<unsigned long long>(seed));
  Topology topo = parse_topology(k.topo);
  set_flit_bits(topo, k.flit_bits);
  CollectiveSpec spec;
  spec.coll = k.coll;
  spec.dtype = k.dtype;
  spec.op = k.op;
  spec.bytes = k.bytes;
  spec.tiles = k.tiles;
  spec.algo = k.algo;
  spec.root = k.root;
  const Plan plan = plan_collective(topo, spec);
  const Image img = build_image(topo, plan);
  const std::vector<Bytes> inputs = make_inputs(plan, seed, 0);
  auto ctx = kit::make_context();
  rtl::with_machine(k.flit_bits, [&](auto tag) {
    typename decltype(tag)::type sys(topo, k.tiles, ctx.get());
    kit::open_trace_if_asked(sys);
    const rtl::RtlCollectiveRun run = rtl::run_on_rtl(sys, plan, img, inputs);
    ASSERT_TRUE(run.stats.ok) << run.stats.error;
    const std::vector<Bytes> ref = run_reference(plan, inputs);
    for (int c = 0; c < topo.num_chips; ++c)
      EXPECT_TRUE(run.outputs[c] == ref[c]) << "chip " << c << " differs from the reference";
    const Check chk = check_outputs(plan, inputs, run.outputs);
    EXPECT_EQ(chk.wrong, 0u);
    EXPECT_EQ(chk.inexact, 0u);
    std::printf("%s: %llu cycles on the RTL, bound %.0f; %llu cycles simulated in all\n", k.name,
                static_cast<unsigned long long>(run.stats.cycles), bound_cycles(plan),
                static_cast<unsigned long long>(sys.cycle()));
  });
}

const Case kCases[] = {
    {"ring:2", Collective::kAllReduce, DType::kFp32, RedOp::kSum, 4096, 2, Algo::kAuto, 0,
     "ring2_allreduce_fp32_sum"},
    {"ring:4", Collective::kAllReduce, DType::kBf16, RedOp::kSum, 8192, 4, Algo::kAuto, 0,
     "ring4_allreduce_bf16_sum"},
    {"biring:4", Collective::kAllReduce, DType::kInt8, RedOp::kMax, 4096, 2, Algo::kAuto, 0,
     "biring4_allreduce_int8_max"},
    {"ladder:4", Collective::kAllReduce, DType::kFp16, RedOp::kSum, 8192, 4, Algo::kAuto, 0,
     "ladder4_allreduce_fp16_sum"},
    {"line:3", Collective::kAllReduce, DType::kInt32, RedOp::kMin, 4096, 2, Algo::kAuto, 0,
     "line3_allreduce_int32_min"},
    {"ring:3", Collective::kReduceScatter, DType::kFp32, RedOp::kMax, 6144, 1, Algo::kAuto, 0,
     "ring3_reduce_scatter_fp32_max"},
    // Blocks of one flit on held sessions: each streamed word leaves in its write's cycle, read
    // through the tile's forward (docs/tile.md section 4.5); with larger blocks the words are
    // written long before their turn.
    {"ring:3", Collective::kAllReduce, DType::kFp32, RedOp::kSum, 48, 1, Algo::kRing, 0,
     "ring3_allreduce_fp32_sum_one_flit_blocks"},
    {"ladder:4", Collective::kAllReduce, DType::kBf16, RedOp::kMax, 256, 4, Algo::kLadder, 0,
     "ladder4_allreduce_bf16_max_one_flit_blocks"},
    {"ring:4", Collective::kAllGather, DType::kFp16, RedOp::kSum, 4096, 2, Algo::kAuto, 0,
     "ring4_all_gather_fp16"},
    {"ring:4", Collective::kBroadcast, DType::kInt32, RedOp::kSum, 4096, 2, Algo::kAuto, 1,
     "ring4_broadcast_root1"},
    {"ring:4", Collective::kReduce, DType::kBf16, RedOp::kMin, 4096, 2, Algo::kAuto, 2,
     "ring4_reduce_bf16_min_root2"},
    {"ring:4", Collective::kAllReduce, DType::kUint8, RedOp::kAvg, 4096, 2, Algo::kAvg, 0,
     "ring4_allreduce_uint8_avg"},
    {"ring:6", Collective::kAllReduce, DType::kInt8, RedOp::kAvg, 2048, 1, Algo::kAvg, 0,
     "ring6_allreduce_int8_avg"},
    {"tree:3", Collective::kAllReduce, DType::kFp32, RedOp::kSum, 3072, 2, Algo::kAuto, 0,
     "tree3_allreduce_fp32_sum"},
    {"tree:((2,1),3)", Collective::kAllReduce, DType::kBf16, RedOp::kMax, 4096, 2, Algo::kAuto, 0,
     "tree_asym_allreduce_bf16_max"},
    // Narrow flits (docs/packets.md section 2): every topology kind and collective at 64 and 32.
    {"ring:4", Collective::kAllReduce, DType::kFp32, RedOp::kSum, 4096, 2, Algo::kAuto, 0,
     "w64_ring4_allreduce_fp32_sum", 64},
    {"biring:4", Collective::kReduceScatter, DType::kInt8, RedOp::kMax, 4096, 2, Algo::kAuto, 0,
     "w64_biring4_reduce_scatter_int8_max", 64},
    {"ladder:4", Collective::kAllGather, DType::kBf16, RedOp::kSum, 4096, 4, Algo::kAuto, 0,
     "w64_ladder4_all_gather_bf16", 64},
    {"line:3", Collective::kBroadcast, DType::kInt32, RedOp::kSum, 3072, 2, Algo::kAuto, 1,
     "w64_line3_broadcast_root1", 64},
    {"tree:((2,1),3)", Collective::kReduce, DType::kFp16, RedOp::kMin, 4096, 2, Algo::kAuto, 2,
     "w64_tree_asym_reduce_fp16_min_root2", 64},
    {"ring:4", Collective::kAllReduce, DType::kUint8, RedOp::kAvg, 4096, 2, Algo::kAvg, 0,
     "w64_ring4_allreduce_uint8_avg", 64},
    {"ring:4", Collective::kAllReduce, DType::kBf16, RedOp::kSum, 4096, 2, Algo::kAuto, 0,
     "w32_ring4_allreduce_bf16_sum", 32},
    {"biring:4", Collective::kAllGather, DType::kInt16, RedOp::kSum, 4096, 2, Algo::kAuto, 0,
     "w32_biring4_all_gather_int16", 32},
    {"ladder:4", Collective::kReduceScatter, DType::kFp32, RedOp::kMax, 4096, 4, Algo::kAuto, 0,
     "w32_ladder4_reduce_scatter_fp32_max", 32},
    {"line:3", Collective::kAllReduce, DType::kInt32, RedOp::kMin, 3072, 2, Algo::kAuto, 0,
     "w32_line3_allreduce_int32_min", 32},
    {"tree:((2,1),3)", Collective::kBroadcast, DType::kUint8, RedOp::kSum, 4096, 2, Algo::kAuto, 3,
     "w32_tree_asym_broadcast_root3", 32},
    {"ring:6", Collective::kAllReduce, DType::kInt8, RedOp::kAvg, 2048, 1, Algo::kAvg, 0,
     "w32_ring6_allreduce_int8_avg", 32},
};

INSTANTIATE_TEST_SUITE_P(Rtl, Collectives, ::testing::ValuesIn(kCases),
                         [](const ::testing::TestParamInfo<Case>& i) {
                           return std::string(i.param.name);
                         });

// DoneCycles after a compiled collective on the RTL and on the model (docs/chip.md section 3):
// equal on every node (0 on switches), and DoneCycles - 2 of the chip that finishes last is the
// cycle count of both runs. AluConfig: 0xFF on chips, 0 on switches, on both.
struct DoneCase {
  const char* topo;
  DType dtype;
  const char* name;
  int flit_bits = 128;
};
class DoneCyclesVsModel : public ::testing::TestWithParam<DoneCase> {};

TEST_P(DoneCyclesVsModel, EveryNodeAgrees) {
  const DoneCase& k = GetParam();
  Topology topo = parse_topology(k.topo);
  set_flit_bits(topo, k.flit_bits);
  CollectiveSpec spec;
  spec.dtype = k.dtype;
  spec.bytes = 4096;
  spec.tiles = 2;
  const Plan plan = plan_collective(topo, spec);
  const Image img = build_image(topo, plan);
  const std::vector<Bytes> inputs = make_inputs(plan, kDoneCyclesSeed.seed(), 1);
  uint32_t dmem = 0;
  for (int t = 0; t < plan.tiles; ++t) dmem = std::max(dmem, tile_footprint(plan, t));
  model::System msys(topo, plan.tiles, dmem);
  const model::CollectiveRun m = model::run_on_system(msys, plan, img, inputs, 10'000'000);
  ASSERT_TRUE(m.stats.ok) << m.stats.error;
  auto ctx = kit::make_context();
  rtl::with_machine(k.flit_bits, [&](auto tag) {
    typename decltype(tag)::type sys(topo, plan.tiles, ctx.get());
    kit::open_trace_if_asked(sys);
    const rtl::RtlCollectiveRun r = rtl::run_on_rtl(sys, plan, img, inputs);
    ASSERT_TRUE(r.stats.ok) << r.stats.error;
    EXPECT_EQ(r.stats.cycles, m.stats.cycles);
    uint32_t last_rtl = 0, last_model = 0;
    for (int n = 0; n < topo.num_nodes; ++n) {
      const bool chip = !topo.is_switch(n);
      const uint32_t dr = sys.host_read32(n, reg::kDoneCycles);
      const uint32_t dm = msys.host_read32(n, reg::kDoneCycles);
      EXPECT_EQ(dr, dm) << "node " << n;
      EXPECT_EQ(dr != 0, chip) << "node " << n;
      EXPECT_EQ(sys.host_read32(n, reg::kAluConfig), chip ? 0xFFu : 0u) << "node " << n;
      EXPECT_EQ(msys.host_read32(n, reg::kAluConfig), chip ? 0xFFu : 0u) << "node " << n;
      std::printf("%s node %d: DoneCycles RTL %u, model %u\n", k.name, n, dr, dm);
      last_rtl = std::max(last_rtl, dr);
      last_model = std::max(last_model, dm);
    }
    EXPECT_EQ(last_rtl - 2, r.stats.cycles);
    EXPECT_EQ(last_model - 2, m.stats.cycles);
    std::printf("%s: %llu cycles (RTL), %llu (model); last DoneCycles %u\n", k.name,
                static_cast<unsigned long long>(r.stats.cycles),
                static_cast<unsigned long long>(m.stats.cycles), last_rtl);
  });
}

const DoneCase kDoneCases[] = {{"ring:3", DType::kFp32, "ring3_fp32"},
                               {"tree:((2,1),3)", DType::kBf16, "tree_asym_bf16"},
                               {"ladder:4", DType::kInt32, "ladder4_int32"},
                               {"tree:16", DType::kFp16, "tree16_fp16"},
                               {"ladder:4", DType::kFp32, "w64_ladder4_fp32", 64},
                               {"tree:((2,1),3)", DType::kInt8, "w64_tree_asym_int8", 64},
                               {"ladder:4", DType::kBf16, "w32_ladder4_bf16", 32},
                               {"tree:((2,1),3)", DType::kFp32, "w32_tree_asym_fp32", 32}};

INSTANTIATE_TEST_SUITE_P(Rtl, DoneCyclesVsModel, ::testing::ValuesIn(kDoneCases),
                         [](const ::testing::TestParamInfo<DoneCase>& i) {
                           return std::string(i.param.name);
                         });

// One collective run on the model (packets recorded) and on the RTL, for the checker tests.
struct CosimRun {
  Topology topo;
  Plan plan;
  std::vector<Bytes> inputs, ref;
  model::CollectiveRun model;
  std::vector<model::PacketEvent> model_packets;
  std::vector<rtl::RtlPacket> rtl_packets;
};

CosimRun cosim_setup(const char* topology) {
  CosimRun r;
  r.topo = parse_topology(topology);
  const Topology& topo = r.topo;
  CollectiveSpec spec;
  spec.dtype = DType::kFp32;
  spec.bytes = 4096;
  spec.tiles = 2;
  r.plan = plan_collective(topo, spec);
  r.inputs = make_inputs(r.plan, kCosimSeed.seed(), 1);
  r.ref = run_reference(r.plan, r.inputs);
  const Image img = build_image(topo, r.plan);
  r.model =
      model::run_on_model(topo, r.plan, img, r.inputs, 10'000'000,
                          [&r](const model::PacketEvent& e) { r.model_packets.push_back(e); });
  EXPECT_TRUE(r.model.stats.ok) << r.model.stats.error;
  return r;
}

// Runs the RTL with `chk` called at every packet and at the end, as fabric --backend both does.
rtl::RtlCollectiveRun run_checked(CosimRun& r, cosim::Checker& chk, uint64_t* end_cycle) {
  const Topology& topo = r.topo;
  auto ctx = kit::make_context();
  Sys sys(topo, r.plan.tiles, ctx.get());
  kit::open_trace_if_asked(sys);
  sys.start_observer = [&](uint64_t c) { chk.on_collective_start(c); };
  sys.observer = [&](const rtl::RtlPacket& e) {
    r.rtl_packets.push_back(e);
    if (!chk.on_packet(e)) sys.request_stop("mismatch");
  };
  rtl::RtlCollectiveRun run = rtl::run_on_rtl(sys, r.plan, build_image(topo, r.plan), r.inputs);
  if (!run.stats.stopped && run.stats.ok)
    chk.on_collective_end(sys.cycle(), run.stats.cycles, run.outputs);
  *end_cycle = sys.cycle();
  return run;
}

TEST(Cosim, LockStepPassesAndStopsAtACorruptPacket) {
  CosimRun r = cosim_setup("ring:3");
  cosim::ModelChecker good(r.model_packets, r.model.stats.cycles, r.model.outputs, r.ref, 4);
  uint64_t full_end = 0;
  const rtl::RtlCollectiveRun run = run_checked(r, good, &full_end);
  ASSERT_TRUE(run.stats.ok) << run.stats.error;
  ASSERT_FALSE(good.mismatch()) << good.mismatch()->what;
  EXPECT_EQ(good.packets(), r.model_packets.size());
  EXPECT_EQ(r.rtl_packets.size(), r.model_packets.size());

  // The same run against a record whose middle packet carries another payload CRC: the
  // checker must stop the RTL in the cycle that packet's tail leaves.
  const size_t k = r.model_packets.size() / 2;
  std::vector<model::PacketEvent> bad = r.model_packets;
  bad[k].payload_crc ^= 1;
  const rtl::RtlPacket seen = r.rtl_packets[k];  // packets leave in the same order on both
  ASSERT_EQ(seen.node, bad[k].node);
  r.rtl_packets.clear();
  cosim::ModelChecker chk(bad, r.model.stats.cycles, r.model.outputs, r.ref, 4);
  uint64_t end = 0;
  const rtl::RtlCollectiveRun stopped = run_checked(r, chk, &end);
  EXPECT_TRUE(stopped.stats.stopped);
  EXPECT_TRUE(stopped.outputs.empty());
  ASSERT_TRUE(chk.mismatch());
  const cosim::Mismatch& m = *chk.mismatch();
  EXPECT_EQ(m.rtl_cycle, seen.cycle);
  EXPECT_LT(m.cycle, m.rtl_cycle);  // counted from the collective's start
  EXPECT_EQ(m.node, seen.node);
  EXPECT_NE(
      m.stream.find("node " + std::to_string(seen.node) + " link " + std::to_string(seen.port)),
      std::string::npos)
      << m.stream;
  EXPECT_NE(m.expected.find("payload crc"), std::string::npos);
  EXPECT_LT(end, full_end);  // stopped early, not at the end of the collective
  char buf[2048] = {};
  std::FILE* f = fmemopen(buf, sizeof buf - 1, "w");
  chk.report(f, "fabric run ... --trace xf_mismatch.fst");
  std::fclose(f);
  std::printf("%s", buf);
  EXPECT_NE(std::string(buf).find("reproduce with waves: fabric run"), std::string::npos);
}

TEST(Cosim, EndOfRunChecks) {
  CosimRun r = cosim_setup("tree:((2,1),3)");
  cosim::ModelChecker good(r.model_packets, r.model.stats.cycles, r.model.outputs, r.ref, 4);
  uint64_t end = 0;
  const rtl::RtlCollectiveRun run = run_checked(r, good, &end);
  ASSERT_TRUE(run.stats.ok) << run.stats.error;
  ASSERT_FALSE(good.mismatch()) << good.mismatch()->what;
  // Replays the RTL's packets and outputs into a checker built from a changed record.
  auto replay = [&](const std::vector<model::PacketEvent>& pk, uint64_t cycles,
                    const std::vector<Bytes>& mo) {
    auto c = std::make_unique<cosim::ModelChecker>(pk, cycles, mo, r.ref, 4);
    for (const auto& e : r.rtl_packets)
      if (!c->on_packet(e)) return c;
    c->on_collective_end(end, run.stats.cycles, run.outputs);
    return c;
  };
  {  // one element of chip 2's output
    std::vector<Bytes> mo = r.model.outputs;
    mo[2][40] ^= 0x10;
    const auto c = replay(r.model_packets, r.model.stats.cycles, mo);
    ASSERT_TRUE(c->mismatch());
    EXPECT_EQ(c->mismatch()->node, 2);
    EXPECT_NE(c->mismatch()->what.find("first at byte 40"), std::string::npos)
        << c->mismatch()->what;
  }
  {  // the cycle count, 5% more
    const auto c = replay(r.model_packets, r.model.stats.cycles * 105 / 100, r.model.outputs);
    ASSERT_TRUE(c->mismatch());
    EXPECT_NE(c->mismatch()->what.find("cycle count"), std::string::npos);
  }
  {  // one cycle off: RTL = model to the exact cycle
    const auto c = replay(r.model_packets, r.model.stats.cycles + 1, r.model.outputs);
    ASSERT_TRUE(c->mismatch());
    EXPECT_NE(c->mismatch()->what.find("cycle count"), std::string::npos);
  }
  {  // a packet the RTL never sent
    std::vector<model::PacketEvent> pk = r.model_packets;
    pk.push_back(pk.back());
    const auto c = replay(pk, r.model.stats.cycles, r.model.outputs);
    ASSERT_TRUE(c->mismatch());
    EXPECT_NE(c->mismatch()->what.find("without sending"), std::string::npos);
  }
  {  // a packet of a stream the model never had
    std::vector<model::PacketEvent> pk = r.model_packets;
    pk.erase(pk.begin());
    const auto c = replay(pk, r.model.stats.cycles, r.model.outputs);
    ASSERT_TRUE(c->mismatch());
  }
}

}  // namespace
}  // namespace xf
