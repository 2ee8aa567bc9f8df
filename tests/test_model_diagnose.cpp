// Tests of xf::diagnose (sw/include/xf/diagnose.hpp), the driver's reading of every error
// register into English lines.
//
// Space covered: the worked examples of docs/errors.md, register value to message, word for
// word, through a host of fixed register values (every TileErr, every ErrCheck, every WaitKind,
// Misroutes, both XbErrors kinds, a link that escalated and one that recovered, saturated
// counters, switch nodes without tiles); then on the SystemC model: a clean run says nothing; a
// run with a bad packet, a watchdog and a misroute gives exactly the three lines that name them;
// a link whose wire drops every word escalates and is reported as a warning next to the tile
// watchdog it causes. The model cases build one System each (SystemC elaborates once per
// process; ctest runs one process per case).
#include <map>
#include <utility>

#include "model_test_main.hpp"
#include "system.hpp"
#include "xf/compiler.hpp"
#include "xf/diagnose.hpp"

using namespace xf;
using namespace xf::model;
using isa::enc;

namespace {

// Registers with fixed values; everything else reads 0.
struct FakeHost {
  std::map<std::pair<int, uint32_t>, uint32_t> regs;
  uint32_t read32(int node, uint32_t addr) {
    auto it = regs.find({node, addr});
    return it == regs.end() ? 0 : it->second;
  }
  void set(int node, uint32_t addr, uint32_t v) { regs[{node, addr}] = v; }
  void tile(int node, int t, uint32_t off, uint32_t v) {
    set(node, reg::kTileBase + static_cast<uint32_t>(t) * reg::kTileStride + off, v);
  }
};

struct ModelHost {
  System& sys;
  uint32_t read32(int node, uint32_t addr) { return sys.host_read32(node, addr); }
};

std::string joined(const std::vector<std::string>& v) {
  std::string s;
  for (const auto& l : v) s += "\n  " + l;
  return s;
}

uint32_t tile_addr(int t, uint32_t off) {
  return reg::kTileBase + static_cast<uint32_t>(t) * reg::kTileStride + off;
}

}  // namespace

// docs/errors.md: each worked example, register values -> message.
TEST(Diagnose, WorkedExamplesOfDocsErrors) {
  FakeHost h;
  for (int n = 0; n < 5; ++n) h.set(n, reg::kConfig, 4u | 4u << 8);  // 4 tiles, 4 link ports
  h.set(4, reg::kConfig, 0u | 8u << 8);                              // switch node: 8 ports
  // Status: tile 0 done, bit 31 set, nothing else on chip 0 says why.
  h.set(0, reg::kStatus, 0x80000001u);
  // Misroutes and XbErrors on chip 1.
  h.set(1, reg::kMisroutes, 3);
  h.set(1, reg::kXbErrors, 0x00040001u);
  // TileStatus / TileErrInfo / TileErrCount: chip 2 tile 1, a receive Window error.
  h.tile(2, 1, reg::kTileStatus, 0x00070004u);
  h.tile(2, 1, reg::kTileErrInfo, 0x03000004u);
  h.tile(2, 1, reg::kTileErrCount, 4);
  // TileWatchdog: chip 3 tile 0, Wait on counter 3 at pc 0x12 after 100000 cycles.
  h.tile(3, 0, reg::kTileStatus, 0x00120007u);
  h.tile(3, 0, reg::kTileErrInfo, 0x31u);
  h.tile(3, 0, reg::kTileWatchdog, 100000);
  h.tile(3, 0, reg::kTileCounters + 4 * 3, 80);
  // Links: chip 3 link 2 escalated; switch 4 link 1 recovered everything.
  h.set(3, reg::kLinkCrcErrors + 4 * 2, 56);
  h.set(3, reg::kLinkStatus + 4 * 2, 0x04D20081u);
  h.set(4, reg::kLinkCrcErrors + 4 * 1, 2);
  h.set(4, reg::kLinkStatus + 4 * 1, 0x00050000u);
  h.set(4, reg::kLinkDiscards + 4 * 1, 0x00030028u);
  const std::vector<std::string> want = {
      "chip 0: Status bit 31 (error) is set, but no tile, Misroutes or XbErrors register says why",
      "chip 1: 3 packets dropped by the exchange for want of a route (Misroutes): no "
      "routing-table entry, a missing tile or an unconnected port (check the routing table)",
      "chip 1 link 0: the XB queue overflowed (XbErrors bit 0): more flits arrived after XOFF "
      "than the budget allows",
      "chip 1 link 2: a tile broke the XB protocol (XbErrors bit 18): data without a grant or a "
      "second XREQ",
      "chip 2 tile 1: bad packet from chip 0 tile 3 dropped: dst_addr + len beyond the tile's "
      "data memory (check Window); 4 packets dropped in all",
      "chip 3 tile 0: watchdog after 100000 cycles: Wait on counter 3 (pc 0x12): the counter is "
      "at 80; a packet it counts never arrived",
      "chip 3 link 2: warning: escalated: 8 replays in a row without an acknowledgement (the "
      "link is down or too noisy); 1234 replays, 56 CRC errors",
      "switch 4 link 1: warning: errors recovered by the retry layer, no data lost; 5 replays, 2 "
      "CRC errors, 3 replay timer expiries, 40 flits discarded out of sequence",
  };
  EXPECT_EQ(diagnose(h, 5, 4, 4), want) << joined(diagnose(h, 5, 4, 4));
}

// Every TileErr, ErrCheck and WaitKind has its own words; saturated counters say "or more".
TEST(Diagnose, EveryCodeCheckAndWaitKindHasItsMessage) {
  using diag::tile_error_text;
  const uint32_t pc = 0x21;
  struct C {
    TileErr err;
    uint32_t info;
    const char* has;
  };
  const std::vector<C> cases = {
      {TileErr::kIllegalInstr, 0, "illegal instruction (pc 0x21)"},
      {TileErr::kPcRange, 0, "pc 0x21 outside the instruction memory"},
      {TileErr::kPmemRange, 0, "Lw (pc 0x21) outside the parameter memory"},
      {TileErr::kDmemRange, 0, "Send (pc 0x21) refused: an address or length not a multiple"},
      {TileErr::kBadPacket, 0, "a destination chip that does not exist, or no route"},
      {TileErr::kBadPacket, 0x05123001u,
       "from chip 291 tile 5 dropped: the opcode is not write "
       "or reduce (check Opcode)"},
      {TileErr::kBadPacket, 0x2u, "len is not a multiple of 16 or is above 2048 (check Length)"},
      {TileErr::kBadPacket, 0x3u, "(dtype, op) pair the ALU does not have (check Pair)"},
      {TileErr::kBadPacket, 0x4u, "dst_addr is not a multiple of 16 (check Window)"},
      {TileErr::kDmemRange, 0x4u, "dst_addr + len beyond the tile's data memory (check Window)"},
      {TileErr::kBadPacket, 0x5u, "ended before len bytes of payload"},
      {TileErr::kBadPacket, 0x6u, "more payload flits than len says"},
      {TileErr::kBadPacket, 0x7u,
       "no open packet (its header was lost) (check Headless); "
       "source unknown"},
      {TileErr::kHazard, 0x01002000u,
       "a packet from chip 2 tile 1 wrote bytes that a queued "
       "send had not read yet (pc 0x21)"},
      {TileErr::kWatchdog, 0x1u | 31u << 4, "Wait on counter 31 (pc 0x21): the counter is at 9"},
      {TileErr::kWatchdog, 0x2u, "Waits or End for its own sends to drain (pc 0x21)"},
      {TileErr::kWatchdog, 0x3u, "Send with the send queue full (pc 0x21)"},
      {TileErr::kWatchdog, 0x4u, "Bar (pc 0x21): other tiles have not arrived"},
      {TileErr::kWatchdog, 0x0u, "not at a wait (pc 0x21)"},
  };
  for (const C& c : cases) {
    const std::string s = tile_error_text(c.err, pc, c.info, 0, 500, 9);
    EXPECT_NE(s.find(c.has), std::string::npos) << to_string(c.err) << ": " << s;
    EXPECT_EQ(s.find("dropped in all"), std::string::npos) << s;
  }
  EXPECT_EQ(tile_error_text(TileErr::kWatchdog, 3, 0x4u, 0, 0, 0),
            "watchdog (the simulator saw nothing move): Bar (pc 0x3): other tiles have not "
            "arrived");
  EXPECT_NE(tile_error_text(TileErr::kHazard, 3, 0, 1, 0, 0).find("; 1 packet dropped in all"),
            std::string::npos);
  EXPECT_NE(tile_error_text(TileErr::kBadPacket, 3, 7, 0xFFFFFFFFu, 0, 0)
                .find("; 4294967295 or more packets dropped in all"),
            std::string::npos);
  EXPECT_EQ(diag::link_text(0xFFFF, 0xFFFF0000u, 0),
            "warning: errors recovered by the retry "
            "layer, no data lost; 65535 or more "
            "replays, 65535 or more CRC errors");
  EXPECT_EQ(diag::link_text(0, 0x00010030u, 0)
                .rfind("warning: replaying now (3 replays in a "
                       "row); 1 replay, 0 CRC errors",
                       0),
            0u);
  EXPECT_EQ(diag::link_text(0, 0, 0), "");
  // A switch node has no tiles: its tile windows are never read.
  FakeHost h;
  h.set(1, reg::kConfig, 2u << 8);
  h.tile(1, 0, reg::kTileStatus, 5);
  EXPECT_TRUE(diagnose(h, 2, 1, 4).empty());
}

TEST(ModelDiagnose, CleanRunSaysNothing) {
  System sys(parse_topology("ring:3"), 2, 1024);
  for (int c = 0; c < 3; ++c)
    for (int t = 0; t < 2; ++t)
      sys.host_write(c, tile_addr(t, reg::kTileImem),
                     std::vector<uint64_t>{enc(Isa::kEnd, 0, 0, 0, 0, 0, 0)}.data(), 8);
  const RunStats st = sys.run(10000);
  ASSERT_TRUE(st.ok) << st.error;
  ModelHost h{sys};
  EXPECT_TRUE(diagnose(h, 3, 3, 2).empty()) << joined(diagnose(h, 3, 3, 2));
}

// Chip 2 tile 1 receives four bad packets (the first from chip 0 tile 3 runs past its data
// memory); chip 1 tile 0 waits on counter 3 with a 100-cycle watchdog; chip 0 tile 0 sends to
// tile 9 of chip 1, which does not exist (a misroute at chip 1). Exactly three lines.
TEST(ModelDiagnose, BadPacketWatchdogAndMisrouteAreNamed) {
  System sys(parse_topology("ring:3"), 2, 1024);
  std::vector<uint8_t> route(kNumLanes * kMaxChips, 255);
  route[1] = 0;  // chip 0, lane 0, chip 1 -> port 0
  sys.host_write(0, reg::kRouteTable, route.data(), route.size());
  const uint64_t end = enc(Isa::kEnd, 0, 0, 0, 0, 0, 0);
  auto load = [&](int c, int t, const std::vector<uint64_t>& p) {
    sys.host_write(c, tile_addr(t, reg::kTileImem), p.data(), p.size() * 8);
  };
  for (int c = 0; c < 3; ++c)
    for (int t = 0; t < 2; ++t) load(c, t, {end});
  SendDesc d;
  d.tile = 9;
  load(0, 0,
       {enc(Isa::kLi, 2, 0, 0, 0, 0, 16), enc(Isa::kLi, 3, 0, 0, 0, 0, 1),
        enc(Isa::kSend, 0, 0, 2, 3, 0, pack_send_imm(d)), end});
  load(1, 0, {enc(Isa::kLi, 1, 0, 0, 0, 0, 5), enc(Isa::kWait, 0, 1, 0, 0, 0, 3), end});
  sys.host_write32(1, tile_addr(0, reg::kTileWatchdog), 100);
  Tile& victim = sys.node(2).tile(1);
  for (int k = 0; k < 4; ++k) {
    Header h;
    h.dst_addr = k == 0 ? 1024 - 16 : 0;
    h.len = k == 0 ? 32 : 24;  // then three with a len that is not a multiple of 16
    h.src_chip = 0;
    h.src_tile = 3;
    Flit f;
    f.head = true;
    const auto w = pack_header(h);
    std::memcpy(f.data.data(), w.data(), sizeof w);
    victim.in.push(0, f);
    Flit p;
    victim.in.push(0, p);
    p.tail = true;
    victim.in.push(0, p);
  }
  const RunStats st = sys.run(100000);
  ASSERT_FALSE(st.ok);
  ModelHost h{sys};
  const std::vector<std::string> want = {
      "chip 1: 1 packet dropped by the exchange for want of a route (Misroutes): no routing-table "
      "entry, a missing tile or an unconnected port (check the routing table)",
      "chip 1 tile 0: watchdog after 100 cycles: Wait on counter 3 (pc 0x1): the counter is at 0; "
      "a packet it counts never arrived",
      "chip 2 tile 1: bad packet from chip 0 tile 3 dropped: dst_addr + len beyond the tile's "
      "data memory (check Window); 4 packets dropped in all",
  };
  EXPECT_EQ(diagnose(h, 3, 3, 2), want) << joined(diagnose(h, 3, 3, 2));
}

// A wire that drops every word: chip 0's transmitter on link 0 replays until it escalates, and
// its tile, whose send cannot drain, is stopped by its watchdog. The link line is a warning.
TEST(ModelDiagnose, EscalatedLinkIsAWarningBesideTheWatchdogItCauses) {
  FaultSpec f;
  f.drop = 1.0;
  System sys(parse_topology("ring:2"), 1, 4096, f);
  for (int c = 0; c < 2; ++c)
    sys.host_write(c, reg::kRouteTable, std::vector<uint8_t>(kNumLanes * 2, 0).data(),
                   kNumLanes * 2);
  const uint64_t end = enc(Isa::kEnd, 0, 0, 0, 0, 0, 0);
  SendDesc d;
  sys.host_write(
      0, tile_addr(0, reg::kTileImem),
      std::vector<uint64_t>{enc(Isa::kLi, 2, 0, 0, 0, 0, 2048), enc(Isa::kLi, 3, 0, 0, 0, 0, 1),
                            enc(Isa::kSend, 0, 0, 2, 3, 0, pack_send_imm(d)), end}
          .data(),
      32);
  sys.host_write(1, tile_addr(0, reg::kTileImem), &end, 8);
  sys.host_write32(0, tile_addr(0, reg::kTileWatchdog), 3000);
  const RunStats st = sys.run(100000);
  ASSERT_FALSE(st.ok);
  ModelHost h{sys};
  const auto lines = diagnose(h, 2, 2, 1);
  ASSERT_GE(lines.size(), 2u) << joined(lines);
  EXPECT_EQ(lines[0].rfind("chip 0 tile 0: watchdog after 3000 cycles: Waits or End for its own "
                           "sends to drain (pc 0x3)",
                           0),
            0u)
      << joined(lines);
  bool escalated = false;
  for (const auto& l : lines)
    if (l.rfind("chip 0 link 0: warning: escalated: 8 replays in a row", 0) == 0) escalated = true;
  EXPECT_TRUE(escalated) << joined(lines);
  std::printf("%s\n", joined(lines).c_str());
}
