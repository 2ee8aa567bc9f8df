// The serial host bridge (rtl/xf_uart_bridge.sv, docs/fpga.md section 3) against the driver's
// client (sw/include/xf/serial.hpp), bit by bit on the UART pins, with three mock host ports
// (two chips and a switch) that answer after random delays, refuse a forbidden range and can
// stall. Every request kind, every error status, the counters and the broadcast's single cycle.
// The delays and burst data come from the kit's per-test generator (tests/rtl_kit.hpp): XF_SEED
// overrides the default seed, and each test prints its seed.
// clang-format off
// RTL_TOP: xf_uart_bridge Vxf_uart_bridge -GNumNodes=3 -GNumChips=2 -GClkHz=40 -GBaud=10 -GTimeoutCycles=300 -GIdleBits=16 -GMachineName=512'h343a676e6972
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
#include "rtl_kit.hpp"
#include "uart_host.hpp"
#include "xf/serial.hpp"

namespace {

using namespace xf::serial;
namespace kit = xf::kit;

constexpr int kNodes = 3, kChips = 2, kClksPerBit = 4, kTimeout = 300;
const kit::TestFile kFile{0x0Au, "test_rtl_uart"};
constexpr uint32_t kForbidden = 0xBAD000;  // the mock ports refuse [kForbidden, +0x100)

// The design, the host's UART and the mock host ports, one clock at a time.
struct Bench : public ByteLink {
  explicit Bench(kit::Rng r) : rng(r), uart(kClksPerBit) {
    dut.reset(
        [](Vxf_uart_bridge& d) {
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
    dut->uart_rx_i = uart.pin;
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
      p.err = p.addr >= kForbidden && p.addr < kForbidden + 0x100;
      p.ready = false;
      p.wait = stall ? 1 << 30 : 1 + static_cast<int>(rng() % 4);
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

  kit::Rng rng;
  xf::tb::UartHost uart;
  kit::Dut<Vxf_uart_bridge> dut;
  Port port[kNodes];
  bool stall = false;
};

uint32_t bridge_reg(Client& c, uint32_t addr) { return c.read(kNodeBridge, addr, 1)[0]; }

TEST(RtlUart, BridgeRegistersNameTheMachine) {
  Bench b(kFile.rng());
  Client c(b);
  const BoardInfo bi = read_board_info(c);
  EXPECT_EQ(bi.nodes, kNodes);
  EXPECT_EQ(bi.chips, kChips);
  EXPECT_EQ(bi.words_per_frame, kMaxWords);
  EXPECT_EQ(bi.clock_hz, 40u);
  EXPECT_EQ(bi.machine, "ring:4");
  EXPECT_EQ(bridge_reg(c, breg::kFrames), 2u);  // the two reads before this one
}

TEST(RtlUart, RandomBurstsWriteAndReadBack) {
  kit::Rng rng = kFile.rng();
  Bench b(rng);
  Client c(b);
  std::map<std::pair<int, uint32_t>, uint32_t> expect;
  for (int i = 0; i < 40; ++i) {
    const int node = static_cast<int>(rng() % kNodes);
    const int count = 1 + static_cast<int>(rng() % (i < 4 ? 64 : 20));
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

TEST(RtlUart, BroadcastWritesEveryChipInOneCycle) {
  Bench b(kFile.rng());
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

TEST(RtlUart, BadRequestsAreAnsweredAndChangeNothing) {
  Bench b(kFile.rng());
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
  // counts 0 and 65: answered at the COUNT byte
  EXPECT_EQ(status(b.raw({kSync, kCmdRead, 0, 0})), static_cast<int>(Status::kBadLength));
  b.idle(200);
  EXPECT_EQ(status(b.raw({kSync, kCmdRead, 0, 65})), static_cast<int>(Status::kBadLength));
  b.idle(200);
  // a node the board does not have
  EXPECT_EQ(status(b.raw(encode_request(kCmdRead, 3, 0, nullptr, 1))),
            static_cast<int>(Status::kBadNode));
  // unaligned; outside the bridge's registers (also when only the burst's end is)
  EXPECT_EQ(status(b.raw(encode_request(kCmdRead, 0, 0x102, nullptr, 1))),
            static_cast<int>(Status::kBadAddress));
  EXPECT_EQ(status(b.raw(encode_request(kCmdRead, kNodeBridge, 0x20, nullptr, 1))),
            static_cast<int>(Status::kBadAddress));
  EXPECT_EQ(status(b.raw(encode_request(kCmdRead, kNodeBridge, 0x1C, nullptr, 2))),
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
  EXPECT_EQ(bridge_reg(c, breg::kFrameErrors), 11u);
  EXPECT_EQ(bridge_reg(c, breg::kJunk), 3u);
  EXPECT_EQ(bridge_reg(c, breg::kPortErrors), 0u);
}

TEST(RtlUart, RefusedWordStopsTheBurst) {
  Bench b(kFile.rng());
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
}

TEST(RtlUart, StalledPortTimesOutAndTheBridgeRecovers) {
  Bench b(kFile.rng());
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

TEST(RtlUart, ClientResendsAfterALineError) {
  Bench b(kFile.rng());
  Client c(b);
  // Damage the first request's CRC on the wire: the bridge answers BadCrc, the client sends it
  // again, and the write lands once.
  struct Flip : public ByteLink {
    Bench& b;
    bool first = true;
    explicit Flip(Bench& bb) : b(bb) {}
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

}  // namespace
