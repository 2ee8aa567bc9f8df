// The serial host bridge (rtl/xf_uart_bridge.sv, docs/fpga.md section 3) against the driver's
// client (sw/include/xf/serial.hpp), bit by bit on the UART pins, with three mock host ports
// (two chips and a switch) that answer after random delays, refuse a forbidden range and can
// stall. Every request kind, every error status, the counters and the broadcast's single cycle;
// addresses over all 32 bits and the top of the address space; the pins' timing (the reply's bits
// one bit period each, its bytes back to back every 10 bit periods + 1 cycle), busy_o from the
// first start bit, line glitches shorter than half a bit and a held-low line (one error); the
// serial backend's check of a program against the tiles' IMEM and PMEM. Every
// test runs at two bit periods, 4 and 5 clock cycles per bit (ClkHz 40 and 50, Baud 10: names
// ending in /c4, /c5), an even and an odd one. The delays and burst data come from the kit's
// per-test generator (tests/rtl_kit.hpp): XF_SEED overrides the default seed, and each test prints
// its seed.
// clang-format off
// RTL_TOP: xf_uart_bridge Vxf_uart_bridge -GNumNodes=3 -GNumChips=2 -GClkHz=40 -GBaud=10 -GTimeoutCycles=300 -GIdleBits=16 -GMachineName=512'h343a676e6972
// RTL_TOP: xf_uart_bridge Vxf_uart_bridge_c5 -GNumNodes=3 -GNumChips=2 -GClkHz=50 -GBaud=10 -GTimeoutCycles=300 -GIdleBits=16 -GMachineName=512'h343a676e6972
// RTL_SRCS: rtl/xf_defs_pkg.sv rtl/xf_uart_rx.sv rtl/xf_uart_tx.sv rtl/xf_uart_bridge.sv
// clang-format on
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <map>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "Vxf_uart_bridge.h"
#include "Vxf_uart_bridge_c5.h"
#include "rtl_kit.hpp"
#include "uart_host.hpp"
#include "xf/serial.hpp"

namespace {

using namespace xf::serial;
namespace kit = xf::kit;

constexpr int kNodes = 3, kChips = 2, kTimeout = 300;
const kit::TestFile kFile{0x0Au, "test_rtl_uart"};
constexpr uint32_t kForbidden = 0xBAD000;  // the mock ports refuse [kForbidden, +0x100)

// A Verilated bridge and its bit period: ClkHz / Baud clock cycles per bit (4 and 5 here, an even
// and an odd period: the receiver's half-bit wait and every counter differ).
template <class V, int Clks, uint32_t Hz>
struct Period {
  using Dut = V;
  static constexpr int kClks = Clks;
  static constexpr uint32_t kHz = Hz;
};
using P4 = Period<Vxf_uart_bridge, 4, 40>;
using P5 = Period<Vxf_uart_bridge_c5, 5, 50>;
using Periods = ::testing::Types<P4, P5>;
struct PeriodName {
  template <class P>
  static std::string GetName(int) {
    return "c" + std::to_string(P::kClks);
  }
};

// The design, the host's UART and the mock host ports, one clock at a time.
template <class P>
struct Bench : public ByteLink {
  explicit Bench(kit::Rng r) : rng(r), uart(P::kClks) {
    dut.reset(
        [](typename P::Dut& d) {
          d.uart_rx_i = 1;
          d.host_req_ready_i = 0x7;
        },
        0);  // the asynchronous reset alone: no clock edge
    for (auto& p : port) p.ready = true;
  }

  struct Port {
    std::map<uint32_t, uint32_t> mem;
    bool ready = true;
    int wait = -1;  // cycles until the answer; -1: nothing pending
    bool write = false, err = false;
    uint32_t addr = 0, wdata = 0;
    std::vector<uint64_t> taken;  // cycles an access was taken
  };

  void step() {
    uart.tick_tx();
    dut->uart_rx_i = force_pin >= 0 ? force_pin : uart.pin;
    // Inputs for this edge: ready, and any answer due now.
    uint32_t ready = 0, rsp_valid = 0, rsp_err = 0;
    for (int n = 0; n < kNodes; ++n) {
      Port& p = port[n];
      if (p.ready) ready |= 1u << n;
      if (p.wait == 0) {
        rsp_valid |= 1u << n;
        if (p.err) rsp_err |= 1u << n;
        dut->host_rsp_rdata_i[n] = p.write || p.err ? 0 : p.mem[p.addr];
        if (p.write && !p.err) p.mem[p.addr] = p.wdata;
      }
    }
    dut->host_req_ready_i = ready;
    dut->host_rsp_valid_i = rsp_valid;
    dut->host_rsp_err_i = rsp_err;
    dut->eval();
    // Accesses taken at this edge.
    std::vector<int> taken;
    for (int n = 0; n < kNodes; ++n)
      if (((dut->host_req_valid_o >> n) & 1) && port[n].ready) taken.push_back(n);
    for (int n : taken) {
      Port& p = port[n];
      p.write = (dut->host_req_write_o >> n) & 1;
      p.addr = dut->host_req_addr_o[n];
      p.wdata = dut->host_req_wdata_o[n];
      p.err = (p.addr >= kForbidden && p.addr < kForbidden + 0x100) || beyond_tile_memory(p.addr);
      p.ready = false;
      p.wait = stall ? 1 << 30 : answer_after >= 0 ? answer_after : 1 + static_cast<int>(rng() % 4);
      p.taken.push_back(dut.cycle());
    }
    dut.tick();
    for (int n = 0; n < kNodes; ++n) {
      Port& p = port[n];
      if (p.wait == 0) {
        p.wait = -1;
        p.ready = true;
      } else if (p.wait > 0 && std::find(taken.begin(), taken.end(), n) == taken.end()) {
        --p.wait;
      }
    }
    uart.tick_rx(dut->uart_tx_o);
    if (record_tx) tx_line.push_back(dut->uart_tx_o != 0);
  }

  // ByteLink: the client's bytes go out bit by bit; replies come back as the clock runs.
  void send(const uint8_t* p, size_t n) override { uart.out.insert(uart.out.end(), p, p + n); }
  size_t recv(uint8_t* p, size_t n, int timeout_ms) override {
    // timeout_ms of wall time stands for that many thousand cycles here
    for (uint64_t i = 0; uart.in.empty() && i < static_cast<uint64_t>(timeout_ms) * 1000; ++i)
      step();
    const size_t k = std::min(n, uart.in.size());
    for (size_t i = 0; i < k; ++i) p[i] = static_cast<uint8_t>(uart.in[i]);
    uart.in.erase(0, k);
    return k;
  }

  // A raw frame and its raw reply: {status, done, data...}, after checking sync and CRC.
  std::vector<uint8_t> raw(const std::vector<uint8_t>& frame, size_t reply_data_bytes = 0) {
    uart.in.clear();
    send(frame.data(), frame.size());
    const size_t need = 4 + reply_data_bytes;
    for (uint64_t i = 0; uart.in.size() < need && i < 200000; ++i) step();
    EXPECT_EQ(uart.in.size(), need) << "no complete reply";
    if (uart.in.size() < need) return {};
    std::vector<uint8_t> b(uart.in.begin(), uart.in.begin() + need);
    uart.in.erase(0, need);
    EXPECT_EQ(b[0], kReplySync);
    EXPECT_EQ(crc8(b.data() + 1, b.size() - 2), b.back()) << "reply CRC";
    return std::vector<uint8_t>(b.begin() + 1, b.end() - 1);
  }
  void idle(int cycles) {
    for (int i = 0; i < cycles; ++i) step();
  }
  // A chip built with tile_imem_words IMEM and tile_pmem_words PMEM words per tile (0: the
  // mock's memory holds everything) refuses the words beyond them, as rtl/xf_tile.sv does.
  bool beyond_tile_memory(uint32_t addr) const {
    const uint32_t off = (addr - xf::reg::kTileBase) % xf::reg::kTileStride;
    if (addr < xf::reg::kTileBase) return false;
    if (tile_imem_words && off >= xf::reg::kTileImem &&
        off < xf::reg::kTileImem + xf::reg::kTileImemSize)
      return (off - xf::reg::kTileImem) / 8 >= tile_imem_words;
    if (tile_pmem_words && off >= xf::reg::kTilePmem &&
        off < xf::reg::kTilePmem + xf::reg::kTilePmemSize)
      return (off - xf::reg::kTilePmem) / 4 >= tile_pmem_words;
    return false;
  }
  uint32_t tile_imem_words = 0, tile_pmem_words = 0;

  kit::Rng rng;
  xf::tb::UartHost uart;
  kit::Dut<typename P::Dut> dut;
  Port port[kNodes];
  bool stall = false;
  int answer_after = -1;   // >= 0: every access is answered this many cycles after it is taken
  int force_pin = -1;      // 0 or 1: drive the bridge's rx pin instead of the host's UART
  bool record_tx = false;  // record the bridge's tx pin, one entry a cycle, in tx_line
  std::vector<bool> tx_line;
};

uint32_t bridge_reg(Client& c, uint32_t addr) { return c.read(kNodeBridge, addr, 1)[0]; }

template <class P>
class RtlUart : public ::testing::Test {};
TYPED_TEST_SUITE(RtlUart, Periods, PeriodName);

TYPED_TEST(RtlUart, BridgeRegistersNameTheMachine) {
  Bench<TypeParam> b(kFile.rng());
  Client c(b);
  const BoardInfo bi = read_board_info(c);
  EXPECT_EQ(bi.nodes, kNodes);
  EXPECT_EQ(bi.chips, kChips);
  EXPECT_EQ(bi.words_per_frame, kMaxWords);
  EXPECT_EQ(bi.clock_hz, TypeParam::kHz);
  EXPECT_EQ(bi.machine, "ring:4");
  EXPECT_EQ(bridge_reg(c, breg::kFrames), 2u);  // the two reads before this one
}

TYPED_TEST(RtlUart, RandomBurstsWriteAndReadBack) {
  kit::Rng rng = kFile.rng();
  Bench<TypeParam> b(rng);
  Client c(b);
  std::map<std::pair<int, uint32_t>, uint32_t> expect;
  for (int i = 0; i < 40; ++i) {
    const int node = static_cast<int>(rng() % kNodes);
    // The first burst is the longest (64 words: the word counts' bit 6).
    const int count = i == 0 ? 64 : 1 + static_cast<int>(rng() % (i < 4 ? 64 : 20));
    const uint32_t addr = static_cast<uint32_t>(rng() % 0x400) * 4;
    std::vector<uint32_t> w(count);
    for (auto& v : w) v = static_cast<uint32_t>(rng());
    c.write(static_cast<uint8_t>(node), addr, w.data(), count);
    for (int k = 0; k < count; ++k) expect[{node, addr + 4 * k}] = w[k];
    const std::vector<uint32_t> r = c.read(static_cast<uint8_t>(node), addr, count);
    ASSERT_EQ(r, w) << "burst " << i << " node " << node << " addr " << addr;
  }
  for (const auto& [k, v] : expect) EXPECT_EQ(b.port[k.first].mem[k.second], v);
  EXPECT_EQ(c.retried(), 0u);
  EXPECT_EQ(bridge_reg(c, breg::kCrcErrors) + bridge_reg(c, breg::kFrameErrors) +
                bridge_reg(c, breg::kPortErrors),
            0u);
}

TYPED_TEST(RtlUart, BroadcastWritesEveryChipInOneCycle) {
  Bench<TypeParam> b(kFile.rng());
  Client c(b);
  const uint32_t v = 0x1234ABCD;
  c.write(kNodeAll, 0x40, &v, 1);
  ASSERT_EQ(b.port[0].taken.size(), 1u);
  ASSERT_EQ(b.port[1].taken.size(), 1u);
  EXPECT_EQ(b.port[0].taken[0], b.port[1].taken[0]);
  EXPECT_TRUE(b.port[2].taken.empty()) << "the switch (node 2) is not a chip";
  EXPECT_EQ(b.port[0].mem[0x40], v);
  EXPECT_EQ(b.port[1].mem[0x40], v);
}

TYPED_TEST(RtlUart, BadRequestsAreAnsweredAndChangeNothing) {
  Bench<TypeParam> b(kFile.rng());
  const uint32_t w[2] = {1, 2};
  auto status = [](const std::vector<uint8_t>& r) {
    return r.empty() ? -1 : static_cast<int>(r[0]);
  };
  // a damaged CRC: nothing written
  std::vector<uint8_t> f = encode_request(kCmdWrite, 0, 0x100, w, 2);
  f.back() ^= 0x01;
  EXPECT_EQ(status(b.raw(f)), static_cast<int>(Status::kBadCrc));
  EXPECT_TRUE(b.port[0].taken.empty());
  // an unknown command: answered at once
  EXPECT_EQ(status(b.raw({kSync, 0x03})), static_cast<int>(Status::kBadCommand));
  b.idle(200);
  EXPECT_EQ(status(b.raw({kSync, 0xFC})), static_cast<int>(Status::kBadCommand));
  b.idle(200);
  // counts 0 and 65: answered at the COUNT byte
  EXPECT_EQ(status(b.raw({kSync, kCmdRead, 0, 0})), static_cast<int>(Status::kBadLength));
  b.idle(200);
  EXPECT_EQ(status(b.raw({kSync, kCmdRead, 0, 65})), static_cast<int>(Status::kBadLength));
  b.idle(200);
  EXPECT_EQ(status(b.raw({kSync, kCmdRead, 0, 0xC0})), static_cast<int>(Status::kBadLength));
  b.idle(200);
  // a node the board does not have
  EXPECT_EQ(status(b.raw(encode_request(kCmdRead, 3, 0, nullptr, 1))),
            static_cast<int>(Status::kBadNode));
  // unaligned; outside the bridge's registers (also when only the burst's end is)
  EXPECT_EQ(status(b.raw(encode_request(kCmdRead, 0, 0x102, nullptr, 1))),
            static_cast<int>(Status::kBadAddress));
  EXPECT_EQ(status(b.raw(encode_request(kCmdRead, 0, 0x101, nullptr, 1))),
            static_cast<int>(Status::kBadAddress));
  EXPECT_EQ(status(b.raw(encode_request(kCmdRead, kNodeBridge, 0x20, nullptr, 1))),
            static_cast<int>(Status::kBadAddress));
  EXPECT_EQ(status(b.raw(encode_request(kCmdRead, kNodeBridge, 0x1C, nullptr, 2))),
            static_cast<int>(Status::kBadAddress));
  // the registers' window is 0x00..0x1F and 0x40..0x7F of the 32-bit address, no alias above
  for (uint32_t a : {0x100000u, 0x100040u, 0x80000040u})
    EXPECT_EQ(status(b.raw(encode_request(kCmdRead, kNodeBridge, a, nullptr, 1))),
              static_cast<int>(Status::kBadAddress))
        << std::hex << a;
  // a burst may not run past the top of the address space (no wrap to 0)
  EXPECT_EQ(status(b.raw(encode_request(kCmdRead, 0, 0xFFFFFFFC, nullptr, 2))),
            static_cast<int>(Status::kBadAddress));
  EXPECT_EQ(status(b.raw(encode_request(kCmdRead, 1, 0xFFFFFF80, nullptr, 64))),
            static_cast<int>(Status::kBadAddress));
  // a broadcast read and a bridge write are not defined
  EXPECT_EQ(status(b.raw(encode_request(kCmdRead, kNodeAll, 0, nullptr, 1))),
            static_cast<int>(Status::kBadCommand));
  EXPECT_EQ(status(b.raw(encode_request(kCmdWrite, kNodeBridge, 0, w, 1))),
            static_cast<int>(Status::kBadCommand));
  for (const auto& p : b.port) EXPECT_TRUE(p.taken.empty()) << "a bad request reached a port";
  // a frame that stops: Truncated after IdleBits = 16 bit periods
  std::vector<uint8_t> part = encode_request(kCmdWrite, 1, 0x200, w, 2);
  part.resize(6);
  EXPECT_EQ(status(b.raw(part)), static_cast<int>(Status::kTruncated));
  // a byte with a low stop bit inside a frame: Framing
  std::vector<uint8_t> fr = encode_request(kCmdWrite, 1, 0x200, w, 2);
  b.send(fr.data(), 6);
  while (b.uart.out.size() > 1) b.step();
  b.uart.bad_stop_next = true;  // the sixth byte
  EXPECT_EQ(status(b.raw({})), static_cast<int>(Status::kFraming));
  for (const auto& p : b.port) EXPECT_TRUE(p.taken.empty()) << "a bad request reached a port";
  b.idle(300);
  // junk outside a frame is dropped and counted, and the next frame still works
  b.send(std::vector<uint8_t>{0x00, 0x11, 0x22}.data(), 3);
  Client c(b);
  EXPECT_EQ(bridge_reg(c, breg::kId), kBridgeId);
  EXPECT_EQ(bridge_reg(c, breg::kCrcErrors), 1u);
  EXPECT_EQ(bridge_reg(c, breg::kFrameErrors), 19u);  // every bad request above but the CRC
  EXPECT_EQ(bridge_reg(c, breg::kJunk), 3u);
  EXPECT_EQ(bridge_reg(c, breg::kPortErrors), 0u);
}

TYPED_TEST(RtlUart, RefusedWordStopsTheBurst) {
  Bench<TypeParam> b(kFile.rng());
  std::vector<uint32_t> w = {10, 11, 12, 13};
  // word 2 falls into the refused range
  const std::vector<uint8_t> r = b.raw(encode_request(kCmdWrite, 1, kForbidden - 8, w.data(), 4));
  ASSERT_EQ(r.size(), 2u);
  EXPECT_EQ(r[0], static_cast<uint8_t>(Status::kAccessError));
  EXPECT_EQ(r[1], 2);
  EXPECT_EQ(b.port[1].taken.size(), 3u) << "word 3 must not be issued";
  EXPECT_EQ(b.port[1].mem[kForbidden - 8], 10u);
  EXPECT_EQ(b.port[1].mem[kForbidden - 4], 11u);
  // a read: the words before the refused one come back
  b.port[0].mem[kForbidden - 4] = 77;
  const std::vector<uint8_t> rr = b.raw(encode_request(kCmdRead, 0, kForbidden - 4, nullptr, 3), 4);
  ASSERT_EQ(rr.size(), 6u);
  EXPECT_EQ(rr[0], static_cast<uint8_t>(Status::kAccessError));
  EXPECT_EQ(rr[1], 1);
  EXPECT_EQ(rr[2], 77);
  Client c(b);
  EXPECT_THROW(c.read(0, kForbidden, 1), std::runtime_error);
  EXPECT_EQ(bridge_reg(c, breg::kPortErrors), 3u);
  // the counter counts on past 4 (its bit 2 set)
  for (int i = 0; i < 3; ++i) EXPECT_THROW(c.read(1, kForbidden + 4, 1), std::runtime_error);
  EXPECT_EQ(bridge_reg(c, breg::kPortErrors), 6u);
}

// The serial backend asks a board how much IMEM and PMEM its tiles hold (Config does not say)
// before it loads a program: an image longer than either is refused, naming both sizes.
TYPED_TEST(RtlUart, ProgramLongerThanTheTileMemoriesIsRefused) {
  Bench<TypeParam> b(kFile.rng());
  b.tile_imem_words = 64;
  b.tile_pmem_words = 256;
  Client c(b);
  SerialHost h(c, kChips, 40, 1);
  xf::Image img;
  img.imem.assign(1, std::vector<uint64_t>(64));
  img.pmem.assign(1, std::vector<uint32_t>(256));
  EXPECT_NO_THROW(check_memories(h, img)) << "an image that fits exactly";
  auto refused = [&](const xf::Image& im) {
    try {
      check_memories(h, im);
    } catch (const std::runtime_error& e) {
      return std::string(e.what());
    }
    return std::string("accepted");
  };
  img.imem[0].resize(65);
  EXPECT_EQ(refused(img),
            "serial: the collective needs 65 words of instruction memory (IMEM) per tile; the "
            "board's tiles hold 64; another --algo, or a larger --chunk or fewer --bytes, makes "
            "a shorter program");
  img.imem[0].resize(3);
  img.pmem.push_back(std::vector<uint32_t>(1000));  // the longest list of any tile counts
  EXPECT_EQ(refused(img),
            "serial: the collective needs 1000 words of parameter memory (PMEM) per tile; the "
            "board's tiles hold 256; a larger --chunk or fewer --bytes makes a shorter "
            "descriptor list");
  // a board whose PMEM is larger than the host window: the window is the limit
  b.tile_pmem_words = 0;
  img.pmem[1].resize(xf::reg::kTilePmemSize / 4 + 1);
  EXPECT_NE(refused(img).find("needs 16385 words of parameter memory (PMEM) per tile; the "
                              "board's tiles hold 16384;"),
            std::string::npos);
  // nothing was written
  for (const auto& p : b.port)
    for (const auto& [a, v] : p.mem) EXPECT_EQ(v, 0u) << "address 0x" << std::hex << a;
}

// A word not answered within TimeoutCycles of its start ends the request with Timeout (the
// bridge's header): the reply leaves in the same cycle whether the port took the access at once
// and never answered, held its ready low for part of that time or for all of it, and whatever
// the request before it left in the timer (here AccessErrors answered 1 to 255 cycles late, and
// a Timeout).
TYPED_TEST(RtlUart, TimeoutCountsFromTheWordsStart) {
  Bench<TypeParam> b(kFile.rng());
  std::vector<uint8_t> f = encode_request(kCmdRead, 0, 0x40, nullptr, 1);
  // Cycles from the request's last byte leaving the host to the reply's first start bit, with
  // the port's ready held low for `hold` cycles after that byte left; then the reply's status.
  auto reply_delay = [&](int hold) {
    b.port[0].ready = false;
    b.stall = true;
    b.send(f.data(), f.size());
    while (!b.uart.out.empty()) b.step();
    const uint64_t t0 = b.dut.cycle();
    while (b.dut->uart_tx_o && b.dut.cycle() - t0 < 20 * kTimeout) {
      if (b.dut.cycle() - t0 == static_cast<uint64_t>(hold)) b.port[0].ready = true;
      b.step();
    }
    const uint64_t d = b.dut.cycle() - t0;
    for (int i = 0; i < 100000 && b.uart.in.size() < 4; ++i) b.step();
    EXPECT_EQ(b.uart.in.size(), 4u);
    EXPECT_EQ(b.uart.in.size() > 1 ? static_cast<uint8_t>(b.uart.in[1]) : 0xFF,
              static_cast<uint8_t>(Status::kTimeout))
        << "hold " << hold;
    b.uart.in.clear();
    b.stall = false;
    b.port[0].wait = -1;  // the mock port forgets the access the bridge gave up on
    b.port[0].ready = true;
    return d;
  };
  const uint64_t base = reply_delay(0);
  EXPECT_GT(base, static_cast<uint64_t>(kTimeout));
  for (int hold : {1, 2, 3, 5, 31, 32, 33, 64, 100, 250, kTimeout + 50})
    EXPECT_EQ(reply_delay(hold), base) << "ready held low for " << hold << " cycles";
  // after an AccessError answered late (the timer stopped between 64 and 127)
  b.answer_after = 70;
  const std::vector<uint8_t> r = b.raw(encode_request(kCmdRead, 0, kForbidden, nullptr, 1), 0);
  ASSERT_EQ(r.size(), 2u);
  EXPECT_EQ(r[0], static_cast<uint8_t>(Status::kAccessError));
  b.answer_after = -1;
  EXPECT_EQ(reply_delay(0), base) << "after a late AccessError";
  EXPECT_EQ(reply_delay(0), base) << "after a Timeout";
  // The reply waits for the next bit period, which hides a timer a cycle or two off: the last
  // cycle an answer is still taken (found on a timer the request before left at 0) shows it.
  // It stays the same after AccessErrors answered late, the timer stopped at values with
  // each of its bits set.
  auto status_after = [&](int cycles) {
    b.answer_after = cycles;
    b.uart.in.clear();
    b.send(f.data(), f.size());
    for (int i = 0; i < 200000 && b.uart.in.size() < 2; ++i) b.step();
    const int st = b.uart.in.size() >= 2 ? static_cast<uint8_t>(b.uart.in[1]) : -1;
    const size_t need = st == static_cast<uint8_t>(Status::kOk) ? 8 : 4;  // a word, or none
    for (int i = 0; i < 200000 && b.uart.in.size() < need; ++i) b.step();
    EXPECT_EQ(b.uart.in.size(), need) << "answer after " << cycles;
    b.uart.in.clear();
    b.answer_after = -1;
    return st;
  };
  const int ok = static_cast<uint8_t>(Status::kOk),
            timeout = static_cast<uint8_t>(Status::kTimeout);
  int last = -1;
  bool timed_out = false;
  for (int a = kTimeout - 8; a <= kTimeout + 2; ++a) {
    const int st = status_after(a);
    EXPECT_TRUE(st == ok || st == timeout) << "answer after " << a << ": status " << st;
    EXPECT_FALSE(st == ok && timed_out) << "an answer after " << a << " taken, a sooner one not";
    timed_out |= st == timeout;
    if (st == ok) last = a;
  }
  ASSERT_GT(last, kTimeout - 8) << "no answer taken near TimeoutCycles";
  ASSERT_LT(last, kTimeout + 2) << "no answer timed out near TimeoutCycles";
  std::printf("the last answer taken comes %d cycles after the access (TimeoutCycles %d)\n", last,
              kTimeout);
  for (int late : {1, 2, 4, 8, 16, 32, 64, 70, 128, 200, 255}) {
    for (int a : {last, last + 1}) {
      b.answer_after = late;
      const std::vector<uint8_t> e = b.raw(encode_request(kCmdRead, 0, kForbidden, nullptr, 1), 0);
      ASSERT_EQ(e.size(), 2u);
      EXPECT_EQ(e[0], static_cast<uint8_t>(Status::kAccessError));
      EXPECT_EQ(status_after(a), a == last ? ok : timeout)
          << "an answer after " << a << " cycles, after an AccessError answered after " << late;
    }
  }
}

TYPED_TEST(RtlUart, StalledPortTimesOutAndTheBridgeRecovers) {
  Bench<TypeParam> b(kFile.rng());
  b.stall = true;
  const std::vector<uint8_t> r = b.raw(encode_request(kCmdRead, 2, 0x10, nullptr, 2));
  ASSERT_EQ(r.size(), 2u);
  EXPECT_EQ(r[0], static_cast<uint8_t>(Status::kTimeout));
  EXPECT_EQ(r[1], 0);
  // the port never answers: the next request to it times out waiting for ready, others work
  b.stall = false;
  const std::vector<uint8_t> r2 = b.raw(encode_request(kCmdRead, 2, 0x10, nullptr, 1));
  ASSERT_EQ(r2.size(), 2u);
  EXPECT_EQ(r2[0], static_cast<uint8_t>(Status::kTimeout));
  Client c(b);
  b.port[0].mem[0x10] = 5;
  EXPECT_EQ(c.read(0, 0x10, 1)[0], 5u);
  EXPECT_EQ(bridge_reg(c, breg::kPortErrors), 2u);
}

TYPED_TEST(RtlUart, ClientResendsAfterALineError) {
  Bench<TypeParam> b(kFile.rng());
  Client c(b);
  // Damage the first request's CRC on the wire: the bridge answers BadCrc, the client sends it
  // again, and the write lands once.
  struct Flip : public ByteLink {
    Bench<TypeParam>& b;
    bool first = true;
    explicit Flip(Bench<TypeParam>& bb) : b(bb) {}
    void send(const uint8_t* p, size_t n) override {
      std::vector<uint8_t> v(p, p + n);
      if (first) v.back() ^= 0x80;
      first = false;
      b.send(v.data(), n);
    }
    size_t recv(uint8_t* p, size_t n, int t) override { return b.recv(p, n, t); }
  } flip(b);
  Client cf(flip);
  const uint32_t v = 99;
  cf.write(1, 0x80, &v, 1);
  EXPECT_EQ(cf.retried(), 1u);
  EXPECT_EQ(b.port[1].mem[0x80], 99u);
  EXPECT_EQ(b.port[1].taken.size(), 1u);
  EXPECT_EQ(bridge_reg(c, breg::kCrcErrors), 1u);
}

// Word k of a request goes to ADDR + 4k over all 32 bits: random aligned addresses, high and low
// in turn (a bit left over from the previous request's address would show), up to the last word
// of the address space.
TYPED_TEST(RtlUart, AddressesUseAllThirtyTwoBits) {
  kit::Rng rng = kFile.rng();
  Bench<TypeParam> b(rng);
  Client c(b);
  for (int i = 0; i < 24; ++i) {
    const int node = static_cast<int>(rng() % kChips);
    const int count = 1 + static_cast<int>(rng() % 4);
    uint32_t addr = static_cast<uint32_t>(rng()) & ~3u;
    if (i % 2) addr &= 0xFFFu;       // low, after a (most likely) high one
    if (i == 5) addr = 0xFFFFFFF0u;  // the burst ends at the top word
    if (addr > 0xFFFFFFFCu - 4u * (count - 1)) addr -= 0x100u;
    if (addr >= kForbidden - 0x100u && addr < kForbidden + 0x100u) addr += 0x1000u;
    std::vector<uint32_t> w(count);
    for (auto& v : w) v = static_cast<uint32_t>(rng());
    c.write(static_cast<uint8_t>(node), addr, w.data(), count);
    for (int k = 0; k < count; ++k)
      ASSERT_EQ(b.port[node].mem.count(addr + 4u * k), 1u)
          << "request " << i << ": word " << k << " of 0x" << std::hex << addr
          << " not at its address";
    EXPECT_EQ(b.port[node].addr, addr + 4u * (count - 1)) << "request " << i;
    EXPECT_EQ(c.read(static_cast<uint8_t>(node), addr, count), w) << "request " << i;
  }
}

// The reply on the tx pin (rtl/xf_uart_tx.sv): every bit lasts ClksPerBit cycles, and the reply's
// bytes, offered back to back, start every 10 * ClksPerBit + 1 cycles (the stop bit one cycle
// longer).
TYPED_TEST(RtlUart, ReplyBitsLastOneBitPeriod) {
  constexpr int kClksPerBit = TypeParam::kClks;
  kit::Rng rng = kFile.rng();
  Bench<TypeParam> b(rng);
  for (int n = 0; n < 32; ++n) b.port[0].mem[0x100 + 4 * n] = static_cast<uint32_t>(rng());
  b.record_tx = true;
  const std::vector<uint8_t> r = b.raw(encode_request(kCmdRead, 0, 0x100, nullptr, 32), 128);
  ASSERT_EQ(r.size(), 130u);
  b.idle(100);
  const std::vector<bool>& line = b.tx_line;
  std::vector<size_t> starts;
  size_t t = 0;
  while (t < line.size()) {
    if (line[t]) {
      ++t;
      continue;
    }
    ASSERT_TRUE(t > 0 && line[t - 1]) << "cycle " << t << ": a start bit without a rising line";
    starts.push_back(t);
    // ten bits of ClksPerBit cycles each: constant within a bit, the stop bit high
    for (int bit = 0; bit < 10; ++bit)
      for (int k = 1; k < kClksPerBit; ++k)
        ASSERT_EQ(line.at(t + bit * kClksPerBit + k), line.at(t + bit * kClksPerBit))
            << "byte " << starts.size() - 1 << " bit " << bit << ": the pin changed " << k
            << " cycles into the bit";
    ASSERT_TRUE(line.at(t + 9 * kClksPerBit)) << "byte " << starts.size() - 1 << ": stop bit";
    t += 10 * kClksPerBit;
  }
  ASSERT_EQ(starts.size(), 4u + 128u) << "bytes on the pin";
  for (size_t i = 1; i < starts.size(); ++i)
    EXPECT_EQ(starts[i] - starts[i - 1], 10u * kClksPerBit + 1u) << "byte " << i;
}

// busy_o: a request is being received or handled, from its first start bit until the reply's
// last byte goes to the transmitter. Checked here while the first byte comes in (the receiver's
// part) and after the reply; BusyHasNoGapBetweenBytes checks the whole span.
template <class P>
void request_busy_trace(Bench<P>& b, std::vector<bool>& busy) {
  constexpr int kClksPerBit = P::kClks;
  b.idle(50);
  EXPECT_FALSE(b.dut->busy_o);
  const std::vector<uint8_t> f = encode_request(kCmdRead, 0, 0x10, nullptr, 1);
  b.send(f.data(), f.size());
  for (int i = 0; i < 20 * kClksPerBit && b.uart.pin; ++i) b.step();
  ASSERT_FALSE(b.uart.pin) << "no start bit";
  // from the first start bit until the host has all but the reply's last byte
  for (uint64_t i = 0; b.uart.in.size() < 7 && i < 20000; ++i) {
    b.step();
    busy.push_back(b.dut->busy_o != 0);
  }
  for (uint64_t i = 0; b.uart.in.size() < 8 && i < 20000; ++i) b.step();
  ASSERT_EQ(b.uart.in.size(), 8u);
  b.idle(4 * kClksPerBit);
  EXPECT_FALSE(b.dut->busy_o) << "busy_o high after the reply";
  EXPECT_FALSE(b.dut->bad_frame_o);
}

TYPED_TEST(RtlUart, BusyFromTheFirstStartBit) {
  constexpr int kClksPerBit = TypeParam::kClks;
  Bench<TypeParam> b(kFile.rng());
  std::vector<bool> busy;
  request_busy_trace(b, busy);
  // the two synchronising flip-flops and the receiver's state: busy within 4 cycles, until the
  // first byte is whole (10 bit periods)
  ASSERT_GT(busy.size(), 10u * kClksPerBit);
  for (int i = 3; i < 9 * kClksPerBit; ++i)
    EXPECT_TRUE(busy[i]) << "busy_o low " << i + 1 << " cycles into the request's first byte";
}

// busy_o has no gap: it was low for one cycle after the first byte of a request (the receiver
// idle again, the bridge's state StHunt until it takes the byte), found by mutation testing
// (docs/mutation.md section 4).
TYPED_TEST(RtlUart, BusyHasNoGapBetweenBytes) {
  Bench<TypeParam> b(kFile.rng());
  std::vector<bool> busy;
  request_busy_trace(b, busy);
  for (size_t i = 3; i < busy.size(); ++i)
    ASSERT_TRUE(busy[i]) << "busy_o low " << i + 1 << " cycles after the request's first start bit";
}

// The receiver (rtl/xf_uart_rx.sv): a low pulse shorter than half a bit period is a glitch, not
// a start bit; a line held low for several bytes is one framing error (one junk byte outside a
// frame), not one per byte time. Neither disturbs the next request.
TYPED_TEST(RtlUart, GlitchesAreIgnoredAndABreakIsOneError) {
  constexpr int kClksPerBit = TypeParam::kClks;
  kit::Rng rng = kFile.rng();
  Bench<TypeParam> b(rng);
  b.idle(20);
  for (int g = 0; g < 20; ++g) {  // one-cycle glitches, some far apart, some a bit apart
    b.force_pin = 0;
    b.step();
    b.force_pin = 1;
    b.idle(g % 2 ? kClksPerBit : 10 * kClksPerBit + static_cast<int>(rng() % 8));
  }
  b.force_pin = -1;
  b.idle(20 * kClksPerBit);
  EXPECT_FALSE(b.dut->busy_o) << "busy after glitches";
  Client c(b);
  EXPECT_EQ(bridge_reg(c, breg::kJunk), 0u) << "a glitch was taken for a byte";
  EXPECT_EQ(bridge_reg(c, breg::kFrameErrors), 0u);
  // a break: the line low for 5 byte times, then high
  b.idle(20);
  b.force_pin = 0;
  b.idle(50 * kClksPerBit);
  b.force_pin = -1;
  b.idle(20 * kClksPerBit);
  EXPECT_EQ(bridge_reg(c, breg::kJunk), 1u) << "a held-low line counts once";
  b.port[1].mem[0x20] = 0x5555AAAAu;
  EXPECT_EQ(c.read(1, 0x20, 1)[0], 0x5555AAAAu);
  EXPECT_EQ(bridge_reg(c, breg::kJunk), 1u);
  EXPECT_EQ(c.retried(), 0u);
}

}  // namespace
