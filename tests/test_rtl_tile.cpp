// RTL_TOP: xf_tile
// RTL_TOP: xf_tile Vxf_tile_d08 -GAluDtypes=8'h08
// RTL_TOP: xf_tile Vxf_tile_w64 -GFlitBits=64
// RTL_TOP: xf_tile Vxf_tile_w32 -GFlitBits=32 -GSyncBuffers=1'b1
// RTL_SRCS: rtl/xf_defs_pkg.sv rtl/xf_buf_ram.sv rtl/xf_fifo.sv rtl/xf_delay.sv
// RTL_SRCS: rtl/xf_int_lane.sv rtl/xf_fp_add.sv rtl/xf_fp_mul.sv rtl/xf_fp_maxmin.sv
// RTL_SRCS: rtl/xf_reduce_alu.sv rtl/xf_tile_ram.sv rtl/xf_tile_seq.sv rtl/xf_tile_send.sv
// RTL_SRCS: rtl/xf_tile_recv.sv rtl/xf_tile.sv
// Block test of the RTL tile (rtl/xf_tile.sv and its xf_tile_* parts, Verilated with
// its defaults: NumLinks 4, ImemWords 4096, PmemWords 16384, DmemBytes 786432) inside a C++ model
// of the exchange around ONE tile, with the interface timing of docs/tile.md "Interfaces":
//  - the tile's path: tx_valid_o in cycle n reaches the path's front in n+1 and is taken
//    there (link-bound: at once; tile-bound: when the tile output register is free); the credit
//    pulse comes in the cycle after the take; the path never holds more than 3 flits;
//  - tile-bound flits with dst_chip == cfg_chip_id and dst_tile == the tile's id loop back to
//    its rx port through a router output register (rx_valid_i in the cycle after the move),
//    with random idle insertion; other tile-bound flits are recorded; the test can also inject
//    packets of its own (other senders), arbitrated per packet with the loop-back;
//  - per link the model's XB (xf::model::Xb, model/xb.hpp): GRANT to a request when idle and
//    below the XOFF threshold, XOFF at 24 queued flits, XON at 8; around it the bench delivers
//    its messages 2 cycles later (XbCtrlLatencyCycles) and drains its queue onto the link with a
//    random stall rate; the test can add stray XON/XOFF messages (other links, before the grant);
//  - a route table served to route_raddr_o one cycle later.
// Programs are built with xf::isa::enc, loaded through the host port, started with
// ctl_start_i. Register values are observed through the headers of link-bound sends (dst_chip,
// dst_addr) and with in-program compares that branch to a failure marker; DMEM through the
// host port.
//
// Checked: every instruction (Nop, End, Li, Add, Sub, Mul, Addi, Lw (2 cycles), Geti 0..3 (Geti 3
// at cycle counts with every bit set),
// Beq/Bne/Blt/Bge taken and not taken with signed operands, Jmp, Send, Wait, Waits, Bar, Csrw);
// every error code with its pc and the first-error rule; Send's checks in the model's order, its
// DmemRange bounds and Lw's PmemRange on the 33-bit sums (every bit of the excess), Send of a
// Reduce with each (dtype, op) of the fields (valid pairs reduce, the others IllegalInstr); the
// session rules (XREQ in the cycle after Send retires, GRANT, XOFF/XON, XDONE when the queue runs
// empty, session kept across jobs to one link, closed for a local job and for another link); exact
// timing: Send retire -> first flit 1 cycle after, a 2048-byte job as 129 flits in 129 consecutive
// cycles, a 4096-byte job as 258, rx tail -> Wait 5 cycles, XOFF -> no flit in the next decision;
// four queued jobs keeping every descriptor field; Wait on all 32 bits of a counter (2^17 grains),
// a Wait's counter index modulo 32 at every bit of imm + r[rs2],
// the 32 counters counting apart; receive Write, Reduce (int8, uint8, int16, int32, fp16, bf16,
// fp32 with sum, max, min, avg with final scale) against xf::alu_reduce, tokens, every bad-packet
// kind, DmemRange, Hazard (at both ends of each of 4 queued jobs' unread ranges, none once the
// queue drained), the read-after-write hold at each pipeline distance; every ErrCheck (Opcode,
// Length, Pair, Window, Short, Long, Headless) with TileErrInfo (check, source) and TileErrCount,
// the whole DMEM compared before and after (a bad packet writes only inside [dst_addr, dst_addr +
// len)); the watchdog for each WaitKind with the model's cycle counts, silent with period 0 and
// while progress is made; simultaneous receive-reduce and send at one flit per cycle each; host
// access to every region (each word with a value and its complement), host errors and host access
// while the tile runs; random loop-back programs under random rx idle insertion and random link
// stalls (XOFF/XON timing) against a C++ computation, with the XB queue never above its 32 flits
// and no link data flit outside a granted, XON'd session.
//
// ScaleAdd (ScaleAddCsr17LoopBack): CSR 17 at its start value 1.0, then written by Csrw 17
// twice, each value used by the fp32 ScaleAdd Reduce packets the tile sends to itself after it
// (DMEM bit-exact against xf::alu_reduce with that scale, a rounding-tie lane checked against
// its documented two-rounding result), a start resetting CSR 17 to 1.0 again, and Csrw 19 failing
// with IllegalInstr at its pc; ScaleAdd on int32/fp16 received and on bf16 sent are invalid
// pairs (ReceiveErrors, SequencerErrors).
//
// ALU subset (AluSubsetTreatsUnbuiltDtypesAsInvalidPairs): a second Verilated tile with
// AluDtypes = 8'h08 (int32 only). A received Reduce of another dtype (valid pair or token) is
// dropped exactly as an invalid pair: BadPacket, ErrCheck Pair, its source, one count, no
// counter increment, DMEM unchanged; a Send of a Reduce of another dtype fails with
// IllegalInstr at its pc, as an invalid pair; int32 Reduce and Write packets still work
// (checked against xf::alu_reduce).
//
// Flit widths (RtlTileWidth/*, a typed test over the default tile and two more Verilated with
// FlitBits = 64 and 32, docs/packets.md sections 3 and 6): the send engine's packets are H =
// 128 / FlitBits header flits (flit i = header bits [i*FlitBits +: FlitBits], head on flit 0,
// tail on the last iff len == 0) and len / W payload flits of W = FlitBits / 8 bytes, all back
// to back at one flit per cycle with the same XREQ/grant/XDONE timing as at 128 bits (a 4096-byte
// job and a token: 2 (H + 2048 / W) + H flits); received Write and Reduce packets of many
// dtype/op pairs (xf::alu_reduce), tokens and counters in grains, under random idle insertion;
// simultaneous receive-reduce and send at one flit per cycle each; the host's 32-bit DMEM lanes;
// the header checks and the narrow-only Short cases (a head while a header is collected, a tail
// before the header is complete: source 0) with TileErrInfo and TileErrCount, and a good packet
// after each.
//
// Inputs change away from the rising edge. Random data: std::mt19937_64 seeded with a fixed
// default that XF_SEED overrides; each test prints its seed.
#include <gtest/gtest.h>
#include <verilated.h>

#include <algorithm>
#include <array>
#include <cinttypes>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "Vxf_tile.h"
#include "Vxf_tile_d08.h"
#include "Vxf_tile_w32.h"
#include "Vxf_tile_w64.h"
#include "model_test_main.hpp"
#include "rtl_kit.hpp"
#include "rtl_kit_model.hpp"
#include "xb.hpp"
#include "xf/alu.hpp"
#include "xf/compiler.hpp"
#include "xf/defs.hpp"

namespace xf {
namespace {

const kit::TestFile kFile{0x711Eu, "test_rtl_tile"};
constexpr int kLinks = 4;
constexpr uint32_t kImemWords = 4096, kPmemWords = 16384, kDmemBytes = 786432;
constexpr uint32_t kChip = 5, kTileId = 2;
constexpr int kWaitLatency = 5;  // rx tail accepted in t -> Wait retires in t + 5

// ---- Headers -----------------------------------------------------------------------------------
using kit::Flit;

struct Hdr {
  uint32_t opcode = 0, dst_chip = 0, dst_tile = 0, dst_addr = 0, len = 0, dtype = 6, op = 0;
  uint32_t sat = 0, avg_final = 0, avg_shift = 0, ctr = 0, lane = 0, src_chip = 0, src_tile = 0;
  uint32_t seq = 0;
};

// The header's fields and where Hdr keeps them.
const std::pair<kit::Field, uint32_t Hdr::*> kHdrFields[] = {{kit::hdr::kOpcode, &Hdr::opcode},
                                                             {kit::hdr::kDstChip, &Hdr::dst_chip},
                                                             {kit::hdr::kDstTile, &Hdr::dst_tile},
                                                             {kit::hdr::kDstAddr, &Hdr::dst_addr},
                                                             {kit::hdr::kLen, &Hdr::len},
                                                             {kit::hdr::kDtype, &Hdr::dtype},
                                                             {kit::hdr::kOp, &Hdr::op},
                                                             {kit::hdr::kSat, &Hdr::sat},
                                                             {kit::hdr::kAvgFinal, &Hdr::avg_final},
                                                             {kit::hdr::kAvgShift, &Hdr::avg_shift},
                                                             {kit::hdr::kCtr, &Hdr::ctr},
                                                             {kit::hdr::kLane, &Hdr::lane},
                                                             {kit::hdr::kSrcChip, &Hdr::src_chip},
                                                             {kit::hdr::kSrcTile, &Hdr::src_tile},
                                                             {kit::hdr::kSeq, &Hdr::seq}};

Hdr unpack(const Flit& f) {
  Hdr h;
  for (const auto& [field, member] : kHdrFields) h.*member = static_cast<uint32_t>(f.get(field));
  return h;
}

Flit pack(const Hdr& h, bool tail) {
  Flit f;
  f.head = true;
  f.tail = tail;
  for (const auto& [field, member] : kHdrFields) f.set(field, h.*member);
  return f;
}

// A packet built from a header and payload bytes (len = payload size unless overridden).
std::vector<Flit> make_packet(const Hdr& h, const std::vector<uint8_t>& payload) {
  std::vector<Flit> v;
  const size_t n = payload.size() / 16;
  v.push_back(pack(h, n == 0));
  for (size_t i = 0; i < n; ++i) {
    Flit f;
    std::memcpy(f.w.data(), &payload[16 * i], 16);
    f.tail = i + 1 == n;
    v.push_back(f);
  }
  return v;
}

// FlitBits of a Verilated tile class (its RTL_TOP line): 128 unless named here.
template <class Dut>
struct TileBits {
  static constexpr uint32_t kBits = 128;
};
template <>
struct TileBits<Vxf_tile_w64> {
  static constexpr uint32_t kBits = 64;
};
template <>
struct TileBits<Vxf_tile_w32> {
  static constexpr uint32_t kBits = 32;
};

// A packet at flit width `bits` (docs/packets.md section 3): 128 / bits header flits, then
// payload flits of bits / 8 bytes; the tail on the last flit.
std::vector<Flit> make_packet_w(const Hdr& h, const std::vector<uint8_t>& payload, uint32_t bits) {
  const uint32_t w = bits / 8, nh = 128 / bits;
  const Flit whole = pack(h, false);
  std::vector<Flit> v;
  for (uint32_t i = 0; i < nh; ++i) {
    Flit f;
    f.head = i == 0;
    f.tail = i + 1 == nh && payload.empty();
    for (uint32_t k = 0; k < bits; k += 32) f.w[k / 32] = whole.w[(i * bits + k) / 32];
    v.push_back(f);
  }
  for (size_t i = 0; i < payload.size() / w; ++i) {
    Flit f;
    std::memcpy(f.w.data(), &payload[w * i], w);
    f.tail = (i + 1) * w == payload.size();
    v.push_back(f);
  }
  return v;
}

// The payload bytes of a packet at width `bits`.
std::vector<uint8_t> payload_of(const std::vector<Flit>& pkt, uint32_t bits) {
  std::vector<uint8_t> out;
  for (size_t i = 128 / bits; i < pkt.size(); ++i) {
    const auto* p = reinterpret_cast<const uint8_t*>(pkt[i].w.data());
    out.insert(out.end(), p, p + bits / 8);
  }
  return out;
}

// ---- Instructions ------------------------------------------------------------------------------
uint64_t I(Isa o, unsigned rd = 0, unsigned rs1 = 0, unsigned rs2 = 0, unsigned rs3 = 0,
           unsigned rs4 = 0, uint32_t imm = 0) {
  return isa::enc(o, rd, rs1, rs2, rs3, rs4, imm);
}
uint64_t LI(unsigned rd, uint32_t v) { return I(Isa::kLi, rd, 0, 0, 0, 0, v); }
uint64_t ADDI(unsigned rd, unsigned a, uint32_t v) { return I(Isa::kAddi, rd, a, 0, 0, 0, v); }
uint64_t NOP() { return I(Isa::kNop); }
uint64_t END() { return I(Isa::kEnd); }
// send [r_addr], r_bytes -> chip r_chip @ r_daddr, desc imm | r_desc
uint64_t SEND(unsigned r_addr, unsigned r_bytes, unsigned r_chip, unsigned r_daddr, uint32_t imm,
              unsigned r_desc = 0) {
  return I(Isa::kSend, r_desc, r_addr, r_bytes, r_chip, r_daddr, imm);
}
uint64_t WAIT(unsigned r_val, unsigned r_ctr, uint32_t imm) {
  return I(Isa::kWait, 0, r_val, r_ctr, 0, 0, imm);
}

uint32_t desc(unsigned tile, unsigned lane, Opcode popc, DType dt = DType::kFp32,
              RedOp op = RedOp::kSum, unsigned ctr = 0, bool sat = false, unsigned shift = 0,
              bool fin = false) {
  SendDesc d;
  d.tile = tile;
  d.lane = lane;
  d.popc = popc;
  d.dtype = dt;
  d.op = op;
  d.ctr = ctr;
  d.sat = sat;
  d.avg_shift = shift;
  d.avg_final = fin;
  return pack_send_imm(d);
}

// ---- The bench ---------------------------------------------------------------------------------
struct TxRec {
  uint64_t cycle;  // cycle in which tx_valid_o was high
  Flit f;
  bool link;
  int port, ctrl;
};

struct XbMsgRec {
  uint64_t cycle;  // cycle the tile sees it
  int link, kind;
};

// Dut: a Verilated xf_tile class (the default build, or Vxf_tile_d08 with the int32-only ALU).
template <class Dut>
class TileBenchT {
 public:
  static constexpr uint32_t kBits = TileBits<Dut>::kBits;  // FlitBits
  static constexpr uint32_t kW = kBits / 8;                // payload bytes per flit
  static constexpr uint32_t kH = 128 / kBits;              // header flits per packet

  // Configuration (cfg_*), route table, random knobs.
  uint32_t chip = kChip, tile = kTileId, index = 0x00C0FFEEu, num_chips = 4096, num_tiles = 4,
           num_ports = kLinks;
  std::vector<uint8_t> route = std::vector<uint8_t>(4 * 4096, 0xFF);
  double rx_idle = 0.0;     // probability that the router output does not load a flit
  double link_stall = 0.0;  // probability that a link does not drain its XB queue in a cycle
  std::mt19937_64 rng{1};

  // Observations.
  std::vector<TxRec> tx;                            // every tx_valid_o
  std::vector<std::vector<Flit>> link_out;          // per link: data flits as they leave on it
  std::vector<std::pair<uint64_t, Flit>> rx_taken;  // flits the tile accepted (cycle, flit)
  std::vector<Flit> other_tile;                     // tile-bound flits not for this tile
  std::vector<XbMsgRec> msgs;                       // messages delivered
  std::vector<uint64_t> rx_stall_cycles;            // rx_valid_i && !rx_ready_o
  uint32_t max_xb_occ = 0, max_path = 0;
  int bad_link_flits = 0;  // link data flits the tile emitted outside a granted, XON'd session
  uint64_t start_cycle = 0;
  uint32_t cycles_base = 0;  // cycles_i = cycles_base + cycles since the first running cycle

  TileBenchT() {
    link_out.resize(kLinks);
    xb_.resize(kLinks);
    dut_.reset([this](Dut&) { drive_idle(); });
  }
  Dut& dut() { return *dut_; }
  uint64_t cycle() const { return dut_.cycle(); }

  // Inject a packet from "another sender" into the rx path.
  void inject(const std::vector<Flit>& p) {
    for (const auto& f : p) inject_q_.push_back(f);
  }
  bool inject_empty() const { return inject_q_.empty(); }
  // A stray message delivered to the tile in cycle `at`.
  void stray_msg(uint64_t at, int link, int kind) { extra_msgs_[at].push_back({at, link, kind}); }
  // Hold bar_release_i high in cycle `at`.
  void release_at(uint64_t at) { release_.push_back(at); }

  // One clock cycle.
  void step() {
    const uint64_t n = dut_.cycle();
    drive_idle();
    dut_->tx_credit_i = credits_due_.count(n) ? 1 : 0;
    credits_due_.erase(n);
    dut_->rx_valid_i = rx_reg_valid_;
    if constexpr (kBits == 128) {
      kit::put_flit(dut_->rx_flit_i, 0, rx_reg_);
    } else {
      kit::put_flit(dut_->rx_flit_i, 0, rx_reg_, kBits);
    }
    dut_->route_rdata_i = route_next_;
    dut_->cycles_i = cycles_base + static_cast<uint32_t>(n - start_cycle);
    dut_->bar_release_i = std::find(release_.begin(), release_.end(), n) != release_.end();
    if (start_now_) dut_->ctl_start_i = 1;
    if (clear_now_) dut_->ctl_clear_i = 1;
    // XB messages of this cycle.
    uint32_t mv = 0, mk = 0;
    std::vector<XbMsgRec> now;
    for (auto& m : xb_msgs_[n]) now.push_back(m);
    for (auto& m : extra_msgs_[n]) now.push_back(m);
    xb_msgs_.erase(n);
    extra_msgs_.erase(n);
    for (auto& m : now) {
      if ((mv >> m.link) & 1u) continue;  // at most one per link and cycle
      mv |= 1u << m.link;
      mk |= static_cast<uint32_t>(m.kind) << (2 * m.link);
      msgs.push_back(m);
    }
    dut_->xb_msg_valid_i = mv;
    dut_->xb_msg_kind_i = mk;
    // Host request.
    if (!host_q_.empty()) {
      const HostOp& h = host_q_.front();
      dut_->host_req_valid_i = 1;
      dut_->host_req_write_i = h.write;
      dut_->host_req_addr_i = h.addr;
      dut_->host_req_wdata_i = h.wdata;
    }
    dut_->eval();

    // Mirror of the tile's session state for the XOFF check (model rules), messages of n.
    for (int l = 0; l < kLinks; ++l) {
      if (!((mv >> l) & 1u) || !m_session_ || m_link_ != l) continue;
      const int k = (mk >> (2 * l)) & 3;
      if (m_requested_) {
        if (k == 0) {
          m_requested_ = false;
          m_xon_ = true;
        }
      } else if (k != 0) {
        m_xon_ = k == 1;
      }
    }

    // Combinational outputs of this cycle.
    const bool rx_take = rx_reg_valid_ && dut_->rx_ready_o;
    if (rx_reg_valid_ && !dut_->rx_ready_o) rx_stall_cycles.push_back(n);
    if (rx_take) {
      rx_taken.push_back({n, rx_reg_});
      rx_reg_valid_ = false;
    }
    if (!host_q_.empty() && dut_->host_req_ready_o) {
      rsp_q_.push_back(host_q_.front());
      host_q_.pop_front();
    }
    route_next_ = route[dut_->route_raddr_o & 0x3FFF];
    if (dut_->host_rsp_valid_o) {
      EXPECT_FALSE(rsp_q_.empty()) << "host response without a request at cycle " << n;
      if (!rsp_q_.empty()) {
        HostOp h = rsp_q_.front();
        rsp_q_.pop_front();
        h.rdata = dut_->host_rsp_rdata_o;
        h.err = dut_->host_rsp_err_o;
        h.done = true;
        if (h.cb) h.cb(h);
      }
    }

    // The tile's path: the flit emitted in n (tx_valid_o) is at the front in n+1.
    // First the front of this cycle.
    if (!path_.empty() && path_.front().ready <= n) {
      PathEnt& e = path_.front();
      bool taken = false;
      if (e.rec.link) {
        taken = true;
        xb_arrive(e.rec);
      } else {
        const Hdr h = unpack(e.rec.f);
        if (e.rec.f.head) path_dst_self_ = h.dst_chip == chip && h.dst_tile == tile;
        if (!path_dst_self_) {
          other_tile.push_back(e.rec.f);
          taken = true;
        } else if (!rx_reg_valid_ &&
                   (rx_lock_ == 0 || (rx_lock_ < 0 && (!inject_turn_ || inject_q_.empty()))) &&
                   !coin(rx_idle)) {
          rx_reg_ = e.rec.f;
          rx_reg_valid_ = true;
          rx_lock_ = e.rec.f.tail ? -1 : 0;
          if (e.rec.f.tail) inject_turn_ = true;
          taken = true;
        }
      }
      if (taken) {
        path_.pop_front();
        credits_due_[n + 1] = 1;
      }
    }
    // Injected flits compete for the rx register per packet.
    if (!inject_q_.empty() && !rx_reg_valid_ && rx_lock_ != 0 && !coin(rx_idle)) {
      const bool path_wants =
          !path_.empty() && path_.front().ready <= n + 1 && !path_.front().rec.link;
      if (rx_lock_ == 1 || !path_wants || inject_turn_) {
        rx_reg_ = inject_q_.front();
        inject_q_.pop_front();
        rx_reg_valid_ = true;
        rx_lock_ = rx_reg_.tail ? -1 : 1;
        if (rx_reg_.tail) inject_turn_ = false;
      }
    }
    if (dut_->tx_valid_o) {
      TxRec r;
      r.cycle = n;
      if constexpr (kBits == 128) {
        r.f = kit::get_flit(dut_->tx_flit_o);
      } else {
        r.f = kit::get_flit(dut_->tx_flit_o, 0, kBits);
      }
      r.link = dut_->tx_link_o;
      r.port = dut_->tx_port_o;
      r.ctrl = dut_->tx_ctrl_o;
      tx.push_back(r);
      path_.push_back({n + 1, r});
      max_path = std::max<uint32_t>(max_path, static_cast<uint32_t>(path_.size()));
      // XOFF check: a link data flit emitted (decided in n-1) needs a granted, XON'd session
      // in the mirror as it was after the messages of n-1.
      if (r.link && r.ctrl == 0 && !(prev_session_ && prev_xon_ && !prev_requested_))
        ++bad_link_flits;
      if (r.ctrl == 1) {
        m_session_ = true;
        m_requested_ = true;
        m_xon_ = false;
        m_link_ = r.port;
      } else if (r.ctrl == 2) {
        m_session_ = false;
        m_xon_ = false;
      }
    }
    prev_session_ = m_session_;
    prev_xon_ = m_xon_;
    prev_requested_ = m_requested_;
    // XBs: decision and the link.
    for (int l = 0; l < kLinks; ++l) xb_step(n, l);

    dut_.tick();
  }

  void run(uint64_t cycles) {
    for (uint64_t i = 0; i < cycles; ++i) step();
  }
  // Runs until cond() or the limit; returns whether cond() held.
  bool run_until(const std::function<bool()>& cond, uint64_t limit = 200000) {
    for (uint64_t i = 0; i < limit; ++i) {
      if (cond()) return true;
      step();
    }
    return cond();
  }

  // ---- Host port -------------------------------------------------------------------------------
  struct HostOp {
    bool write = false;
    uint32_t addr = 0, wdata = 0, rdata = 0;
    bool err = false, done = false;
    std::function<void(const HostOp&)> cb;
  };
  void host_async(bool write, uint32_t addr, uint32_t wdata,
                  std::function<void(const HostOp&)> cb = nullptr) {
    HostOp h;
    h.write = write;
    h.addr = addr;
    h.wdata = wdata;
    h.cb = std::move(cb);
    host_q_.push_back(h);
  }
  bool host_idle() const { return host_q_.empty() && rsp_q_.empty(); }
  HostOp host(bool write, uint32_t addr, uint32_t wdata = 0) {
    HostOp out;
    host_async(write, addr, wdata, [&out](const HostOp& h) { out = h; });
    run_until([&] { return out.done; }, 1000);
    EXPECT_TRUE(out.done) << "host access to 0x" << std::hex << addr << " hung";
    return out;
  }
  void host_write(uint32_t addr, uint32_t v) {
    const HostOp h = host(true, addr, v);
    EXPECT_FALSE(h.err) << "host write 0x" << std::hex << addr;
  }
  uint32_t host_read(uint32_t addr) {
    const HostOp h = host(false, addr);
    EXPECT_FALSE(h.err) << "host read 0x" << std::hex << addr;
    return h.rdata;
  }
  // Bulk loads: pipelined, one access per cycle.
  void load_imem(const std::vector<uint64_t>& prog, uint32_t at = 0) {
    for (size_t i = 0; i < prog.size(); ++i) {
      host_async(true, reg::kTileImem + 8 * (at + i), static_cast<uint32_t>(prog[i]));
      host_async(true, reg::kTileImem + 8 * (at + i) + 4, static_cast<uint32_t>(prog[i] >> 32));
    }
    drain_host();
  }
  void load_pmem(const std::vector<uint32_t>& words, uint32_t at = 0) {
    for (size_t i = 0; i < words.size(); ++i)
      host_async(true, reg::kTilePmem + 4 * (at + i), words[i]);
    drain_host();
  }
  void load_dmem(uint32_t addr, const std::vector<uint8_t>& bytes) {
    for (size_t i = 0; i < bytes.size(); i += 4) {
      uint32_t v = 0;
      std::memcpy(&v, &bytes[i], 4);
      host_async(true, reg::kTileDmem + addr + static_cast<uint32_t>(i), v);
    }
    drain_host();
  }
  std::vector<uint8_t> read_dmem(uint32_t addr, uint32_t n) {
    std::vector<uint8_t> out(n);
    for (uint32_t i = 0; i < n; i += 4)
      host_async(false, reg::kTileDmem + addr + i, 0,
                 [&out, i](const HostOp& h) { std::memcpy(&out[i], &h.rdata, 4); });
    drain_host();
    return out;
  }
  void drain_host() {
    run_until([&] { return host_idle(); }, 10000000);
  }

  // ---- Control ---------------------------------------------------------------------------------
  void start() {
    start_now_ = true;
    step();
    start_now_ = false;
    start_cycle = dut_.cycle();  // cycles_i counts from the first running cycle
  }
  void clear() {
    clear_now_ = true;
    step();
    clear_now_ = false;
  }
  // Runs until the tile is not running any more (End or an error).
  bool run_to_halt(uint64_t limit = 200000) {
    return run_until([&] { return !dut_->stat_running_o; }, limit);
  }
  // Runs until everything in flight has settled (path, rx, injection, XB queues).
  void settle(uint64_t extra = 12) {
    run_until(
        [&] {
          bool q = false;
          for (auto& x : xb_) q = q || x.xb.out_valid();
          return path_.empty() && !rx_reg_valid_ && inject_q_.empty() && !q;
        },
        100000);
    run(extra);
  }

  // Link data packets per link: split into packets (header + payload).
  static std::vector<std::vector<Flit>> packets(const std::vector<Flit>& flits) {
    std::vector<std::vector<Flit>> out;
    for (const auto& f : flits) {
      if (f.head) out.emplace_back();
      if (!out.empty()) out.back().push_back(f);
    }
    return out;
  }

 private:
  struct PathEnt {
    uint64_t ready;
    TxRec rec;
  };
  bool coin(double p) { return p > 0 && std::uniform_real_distribution<double>(0, 1)(rng) < p; }

  void drive_idle() {
    dut_->tx_credit_i = 0;
    dut_->rx_valid_i = 0;
    dut_->xb_msg_valid_i = 0;
    dut_->xb_msg_kind_i = 0;
    dut_->route_rdata_i = 0xFF;
    dut_->cfg_chip_id_i = chip;
    dut_->cfg_tile_id_i = tile;
    dut_->cfg_index_i = index;
    dut_->cfg_num_chips_i = num_chips;
    dut_->cfg_num_tiles_i = num_tiles;
    dut_->cfg_num_ports_i = num_ports;
    dut_->ctl_clear_i = 0;
    dut_->ctl_start_i = 0;
    dut_->bar_release_i = 0;
    dut_->host_req_valid_i = 0;
    dut_->host_req_write_i = 0;
    dut_->host_req_addr_i = 0;
    dut_->host_req_wdata_i = 0;
  }

  // ---- The exchange's XBs: the model's (model/xb.hpp), one per link ---------------------------
  // The bench is their environment: the tile's path hands them its XREQ, XDONE and link-bound
  // flits (xb_arrive, the XB's step 1), their messages reach the tile XbCtrlLatencyCycles later
  // and the link drains a queue at the random stall rate (xb_step, steps 2-4). `open` (XREQ seen,
  // XDONE not yet) checks the tile's side of the protocol.
  struct XbPort {
    model::Xb xb;
    bool open = false;
  };

  void xb_arrive(const TxRec& r) {
    XbPort& x = xb_[r.port];
    const int t = static_cast<int>(tile);
    if (r.ctrl == 1) {
      EXPECT_FALSE(x.open) << "second XREQ on link " << r.port;
      x.open = true;
      x.xb.request(t);
    } else if (r.ctrl == 2) {
      EXPECT_TRUE(x.open) << "XDONE without a session on link " << r.port;
      x.open = false;
      x.xb.done(t);
    } else {
      EXPECT_EQ(x.xb.granted(), t) << "link data flit without a grant on link " << r.port;
      x.xb.push(kit::to_model_raw(r.f));
    }
  }
  void xb_step(uint64_t n, int l) {
    model::Xb& x = xb_[l].xb;
    max_xb_occ = std::max(max_xb_occ, x.occupancy());
    const model::Xb::Msg m = x.decide();
    if (m.tile >= 0) {
      const uint64_t at = n + kXbCtrlLatencyCycles;
      xb_msgs_[at].push_back({at, l, static_cast<int>(m.kind)});
    }
    if (x.out_valid() && !coin(link_stall)) {
      link_out[l].push_back(kit::from_model_raw(x.front()));
      x.pop();
    }
    x.end_cycle();
  }

  // ---- The bench's state ----------------------------------------------------------------------
  kit::Dut<Dut> dut_;
  bool start_now_ = false, clear_now_ = false;
  std::map<uint64_t, int> credits_due_;
  std::deque<PathEnt> path_;
  bool path_dst_self_ = false;
  bool rx_reg_valid_ = false;
  Flit rx_reg_;
  int rx_lock_ = -1;  // -1 free, 0 the path's packet, 1 an injected packet
  bool inject_turn_ = false;
  std::deque<Flit> inject_q_;
  uint8_t route_next_ = 0xFF;
  std::vector<XbPort> xb_;
  std::map<uint64_t, std::vector<XbMsgRec>> xb_msgs_, extra_msgs_;
  std::vector<uint64_t> release_;
  std::deque<HostOp> host_q_, rsp_q_;
  bool m_session_ = false, m_requested_ = false, m_xon_ = false;
  int m_link_ = -1;
  bool prev_session_ = false, prev_xon_ = false, prev_requested_ = false;
};
using TileBench = TileBenchT<Vxf_tile>;

// Registers used by observe(): r31 = 16, r15, r14, r13 scratch (a Send's destination address
// register is r0..r15).
constexpr unsigned kR16 = 31, kRObs = 15, kRExp = 14, kRChip = 13;

// Emits "observe register r": r29 = expect; a token to chip 1 (routed to a link) whose
// dst_addr is (r - expect + tag) * 16, so a matching register shows dst_addr = tag * 16 (a
// mismatch shows another address or fails with DmemRange); then a full 32-bit compare of r with
// `expect` that jumps to `fail_pc` on a mismatch.
void observe(std::vector<uint64_t>& p, unsigned r, uint32_t expect, uint32_t tag,
             uint32_t fail_pc) {
  p.push_back(LI(kRExp, expect));
  p.push_back(I(Isa::kSub, kRObs, r, kRExp));
  p.push_back(ADDI(kRObs, kRObs, tag));
  p.push_back(I(Isa::kMul, kRObs, kRObs, kR16));
  p.push_back(LI(kRChip, 1));
  p.push_back(
      SEND(0, 0, kRChip, kRObs, desc(0, 0, Opcode::kWrite, DType::kFp32, RedOp::kSum, tag)));
  p.push_back(I(Isa::kBne, 0, r, kRExp, 0, 0, fail_pc));
}

// Pads a program to fail_pc with Nops and puts the failure marker there, which observe()'s
// compares branch to: a token to chip 2 (the test routes chip 2 to link 2 and wants it empty).
void fail_marker(std::vector<uint64_t>& p, uint32_t fail_pc) {
  p.resize(fail_pc, NOP());
  p.push_back(LI(kRExp, 2));
  p.push_back(SEND(0, 0, kRExp, 0, desc(0, 0, Opcode::kWrite)));
  p.push_back(END());
}

// Link-bound headers seen on link `l` (data packets), in order.
template <class Dut>
std::vector<Hdr> link_headers(const TileBenchT<Dut>& b, int l) {
  std::vector<Hdr> v;
  for (const auto& f : b.link_out[l]) {
    if (!f.head) continue;
    v.push_back(unpack(f));
    if (TileBenchT<Dut>::kH == 1) {  // bits 127:107 reserved, sent as 0 (docs/packets.md)
      EXPECT_EQ(f.bits(107, 21), 0u) << "reserved header bits of a packet on link " << l;
    }
  }
  return v;
}

std::vector<uint8_t> random_bytes(std::mt19937_64& rng, size_t n) {
  std::vector<uint8_t> v(n);
  for (auto& x : v) x = static_cast<uint8_t>(rng());
  return v;
}

// A header for the tile under test (chip kChip, tile kTileId), counter 3, no source.
Hdr rx_hdr(uint32_t opc, uint32_t len, uint32_t addr, uint32_t dt = 6, uint32_t op = 0) {
  Hdr h;
  h.opcode = opc;
  h.dst_chip = kChip;
  h.dst_tile = kTileId;
  h.len = len;
  h.dst_addr = addr;
  h.dtype = dt;
  h.op = op;
  h.ctr = 3;
  return h;
}

// ---- Tests
// ---------------------------------------------------------------------------------------

TEST(RtlTile, ResetState) {
  TileBench b;
  EXPECT_EQ(b.dut().stat_err_o, 0);
  EXPECT_EQ(b.dut().stat_done_o, 0);
  EXPECT_EQ(b.dut().stat_running_o, 0);
  EXPECT_EQ(b.dut().tx_valid_o, 0);
  EXPECT_EQ(b.dut().bar_wait_o, 0);
  EXPECT_EQ(b.host_read(reg::kTileStatus), 0u);
  EXPECT_EQ(b.host_read(reg::kTileErrInfo), 0u);
  EXPECT_EQ(b.host_read(reg::kTileErrCount), 0u);
  EXPECT_EQ(b.host_read(reg::kTileWatchdog), 0u);
  for (uint32_t c = 0; c < 32; ++c) EXPECT_EQ(b.host_read(reg::kTileCounters + 4 * c), 0u);
}

TEST(RtlTile, HostRegionsAndErrors) {
  auto rng = kFile.rng();
  TileBench b;
  // IMEM halves, PMEM, DMEM lanes: write then read back, at both ends of each memory, each
  // word with a random value and its complement.
  const std::vector<uint32_t> addrs = {reg::kTileImem,
                                       reg::kTileImem + 4,
                                       reg::kTileImem + 8 * (kImemWords - 1),
                                       reg::kTileImem + 8 * (kImemWords - 1) + 4,
                                       reg::kTilePmem,
                                       reg::kTilePmem + 4 * (kPmemWords - 1),
                                       reg::kTileDmem,
                                       reg::kTileDmem + 4,
                                       reg::kTileDmem + 8,
                                       reg::kTileDmem + 12,
                                       reg::kTileDmem + kDmemBytes - 4,
                                       reg::kTileDmem + 0x1230};
  std::map<uint32_t, uint32_t> vals;
  for (uint32_t a : addrs) {
    vals[a] = static_cast<uint32_t>(rng());
    b.host_write(a, vals[a]);
  }
  for (uint32_t a : addrs) EXPECT_EQ(b.host_read(a), vals[a]) << std::hex << a;
  // Every bit of each word both ways: the complements, then the values again.
  for (uint32_t a : addrs) b.host_write(a, ~vals[a]);
  for (uint32_t a : addrs) EXPECT_EQ(b.host_read(a), ~vals[a]) << std::hex << a;
  for (uint32_t a : addrs) b.host_write(a, vals[a]);
  // A lane write leaves the other lanes of the DMEM word alone.
  b.host_write(reg::kTileDmem + 4, 0xA5A5A5A5u);
  EXPECT_EQ(b.host_read(reg::kTileDmem), vals[reg::kTileDmem]);
  EXPECT_EQ(b.host_read(reg::kTileDmem + 8), vals[reg::kTileDmem + 8]);
  // Errors: read-only regions written, holes, beyond IMEM/PMEM, unaligned.
  struct E {
    bool write;
    uint32_t addr;
  };
  const std::vector<E> errs = {{true, reg::kTileStatus},
                               {true, reg::kTileErrInfo},
                               {true, reg::kTileErrCount},
                               {true, reg::kTileCounters},
                               {true, reg::kTileCounters + 0x7C},
                               {false, 0x10},
                               {false, 0xFC},
                               {false, 0x180},
                               {true, 0x200},
                               {false, 0x8000},
                               {false, reg::kTileImem + 8 * kImemWords},
                               {true, reg::kTileImem + 8 * kImemWords + 4},
                               {false, reg::kTilePmem + 4 * kPmemWords},
                               {true, 0x30000},
                               {false, 0x3FFFC},
                               {false, reg::kTileDmem + 2},
                               {true, reg::kTileImem + 1}};
  for (const auto& e : errs) {
    const auto h = b.host(e.write, e.addr, 0xDEADBEEF);
    EXPECT_TRUE(h.err) << (e.write ? "write " : "read ") << std::hex << e.addr;
    EXPECT_EQ(h.rdata, 0u);
  }
  // Failed writes changed nothing.
  EXPECT_EQ(b.host_read(reg::kTileStatus), 0u);
  EXPECT_EQ(b.host_read(reg::kTileErrInfo), 0u);
  EXPECT_EQ(b.host_read(reg::kTileErrCount), 0u);
  // TileWatchdog is the one writable tile register; start and clear keep it.
  b.host_write(reg::kTileWatchdog, 0x89ABCDEFu);
  EXPECT_EQ(b.host_read(reg::kTileWatchdog), 0x89ABCDEFu);
  b.clear();
  EXPECT_EQ(b.host_read(reg::kTileWatchdog), 0x89ABCDEFu);
  b.host_write(reg::kTileWatchdog, 0);
  EXPECT_EQ(b.host_read(reg::kTileImem), vals[reg::kTileImem]);
  // Pipelined: one access per cycle, responses in order one cycle after acceptance.
  std::vector<uint32_t> got;
  const uint64_t c0 = b.cycle();
  for (int i = 0; i < 8; ++i)
    b.host_async(false, reg::kTileDmem + 4 * i, 0,
                 [&got](const auto& h) { got.push_back(h.rdata); });
  b.drain_host();
  EXPECT_LE(b.cycle() - c0, 10u);
  ASSERT_EQ(got.size(), 8u);
  EXPECT_EQ(got[0], vals[reg::kTileDmem]);
  EXPECT_EQ(got[2], vals[reg::kTileDmem + 8]);
}

// Every ALU/branch/CSR instruction, observed through link-bound token headers and compares.
TEST(RtlTile, InstructionsAndRegisters) {
  TileBench b;
  b.index = 0x87654321u;
  b.num_chips = 3000;
  b.route[0 * 4096 + 1] = 1;  // chip 1, lane 0 -> link 1
  const uint32_t kFail = 1000;
  std::vector<uint64_t> p;
  p.push_back(LI(kR16, 16));
  p.push_back(LI(1, 0xFFFFFFF0u));                // -16
  p.push_back(LI(2, 100));                        //
  p.push_back(I(Isa::kAdd, 3, 1, 2));             // 84
  p.push_back(I(Isa::kSub, 4, 1, 2));             // -116
  p.push_back(I(Isa::kMul, 5, 1, 2));             // -1600
  p.push_back(I(Isa::kMul, 6, 1, 1, 0, 0));       // 256
  p.push_back(ADDI(7, 2, 0xFFFFFFFFu));           // 99
  p.push_back(I(Isa::kGeti, 8, 0, 0, 0, 0, 0));   // index
  p.push_back(I(Isa::kGeti, 9, 0, 0, 0, 0, 1));   // tile id
  p.push_back(I(Isa::kGeti, 10, 0, 0, 0, 0, 2));  // chips
  p.push_back(I(Isa::kGeti, 11, 0, 0, 0, 0, 3));  // cycles (pc 11: 12 cycles after start)
  p.push_back(LI(0, 1234));                       // r0 stays 0
  p.push_back(I(Isa::kAdd, 12, 0, 0));            // 0
  p.push_back(LI(21, 0x80000001u));               // large: mul wraps
  p.push_back(I(Isa::kMul, 22, 21, 21));          // 0x80000001^2 mod 2^32 = 1
  // Branches: r20 counts the taken ones that should be taken.
  p.push_back(LI(20, 0));
  const size_t b0 = p.size();
  p.push_back(I(Isa::kBeq, 0, 1, 1, 0, 0, static_cast<uint32_t>(b0 + 3)));  // taken
  p.push_back(I(Isa::kJmp, 0, 0, 0, 0, 0, kFail));
  p.push_back(I(Isa::kJmp, 0, 0, 0, 0, 0, kFail));
  p.push_back(I(Isa::kBeq, 0, 1, 2, 0, 0, kFail));                          // not taken
  p.push_back(I(Isa::kBne, 0, 1, 1, 0, 0, kFail));                          // not taken
  p.push_back(I(Isa::kBne, 0, 1, 2, 0, 0, static_cast<uint32_t>(b0 + 7)));  // taken
  p.push_back(I(Isa::kJmp, 0, 0, 0, 0, 0, kFail));
  p.push_back(I(Isa::kBlt, 0, 1, 2, 0, 0, static_cast<uint32_t>(b0 + 9)));  // -16 < 100 signed
  p.push_back(I(Isa::kJmp, 0, 0, 0, 0, 0, kFail));
  p.push_back(I(Isa::kBlt, 0, 2, 1, 0, 0, kFail));                           // not taken
  p.push_back(I(Isa::kBlt, 0, 2, 2, 0, 0, kFail));                           // equal: not taken
  p.push_back(I(Isa::kBge, 0, 2, 1, 0, 0, static_cast<uint32_t>(b0 + 13)));  // taken
  p.push_back(I(Isa::kJmp, 0, 0, 0, 0, 0, kFail));
  p.push_back(I(Isa::kBge, 0, 2, 2, 0, 0, static_cast<uint32_t>(b0 + 15)));  // equal: taken
  p.push_back(I(Isa::kJmp, 0, 0, 0, 0, 0, kFail));
  p.push_back(I(Isa::kBge, 0, 1, 2, 0, 0, kFail));  // not taken
  p.push_back(I(Isa::kJmp, 0, 0, 0, 0, 0, static_cast<uint32_t>(b0 + 18)));
  p.push_back(I(Isa::kJmp, 0, 0, 0, 0, 0, kFail));
  p.push_back(LI(20, 7));
  p.push_back(I(Isa::kCsrw, 0, 2, 0, 0, 0, 16));  // avg scale = 100 (checked in the Avg test)
  p.push_back(NOP());
  struct Obs {
    unsigned r;
    uint32_t v;
  };
  std::vector<Obs> obs = {{1, 0xFFFFFFF0u}, {2, 100},   {3, 84},  {4, 0xFFFFFF8Cu},
                          {5, 0xFFFFF9C0u}, {6, 256},   {7, 99},  {8, 0x87654321u},
                          {9, kTileId},     {10, 3000}, {11, 12}, {12, 0},
                          {22, 1},          {20, 7},    {0, 0}};
  // The registers the program above leaves unwritten, each with its own value.
  for (unsigned r : {16u, 17u, 18u, 19u, 23u, 24u, 25u, 26u, 27u, 28u, 29u, 30u}) {
    obs.push_back({r, 0x9E3779B9u * r});
    p.push_back(LI(r, 0x9E3779B9u * r));
  }
  for (size_t i = 0; i < obs.size(); ++i)
    observe(p, obs[i].r, obs[i].v, static_cast<uint32_t>(i), kFail);
  const uint32_t end_pc = static_cast<uint32_t>(p.size());
  p.push_back(END());
  ASSERT_LT(p.size(), kFail);
  fail_marker(p, kFail);
  b.route[2] = 2;
  b.load_imem(p);
  b.start();
  ASSERT_TRUE(b.run_to_halt());
  b.settle();
  EXPECT_EQ(b.dut().stat_err_o, 0);
  EXPECT_EQ(b.dut().stat_done_o, 1);
  EXPECT_TRUE(b.link_out[2].empty()) << "a compare failed in the program";
  const auto hs = link_headers(b, 1);
  ASSERT_EQ(hs.size(), obs.size());
  for (size_t i = 0; i < obs.size(); ++i) {
    EXPECT_EQ(hs[i].ctr, i);
    EXPECT_EQ(hs[i].dst_addr, i * 16) << "register r" << obs[i].r;
    EXPECT_EQ(hs[i].dst_chip, 1u);
    EXPECT_EQ(hs[i].src_chip, kChip);
    EXPECT_EQ(hs[i].src_tile, kTileId);
    EXPECT_EQ(hs[i].seq, i);
    EXPECT_EQ(hs[i].len, 0u);
  }
  // TileStatus: done, pc past End.
  const uint32_t st = b.host_read(reg::kTileStatus);
  EXPECT_EQ(st & 0x1F, 0x10u);
  EXPECT_EQ(st >> 16, end_pc + 1);  // End advances pc
}

// Geti 3 returns all 32 bits of the chip's cycle count (cycles_i), at counts with each bit set.
TEST(RtlTile, GetiThreeReadsEveryBitOfTheCycleCount) {
  for (uint32_t base : {0x007FFFFFu, 0x00800000u, 0x00FFFFF0u, 0x04A5A5A0u, 0x5B6C7D00u,
                        0x7FFFFFFFu, 0xFFFFFFF0u}) {
    TileBench b;
    b.cycles_base = base;
    const uint32_t kFail = 100;
    std::vector<uint64_t> p = {I(Isa::kGeti, 1, 0, 0, 0, 0, 3), LI(kR16, 16)};
    observe(p, 1, base + 1, 0, kFail);  // Geti at pc 0: the second running cycle, count 1
    p.push_back(END());
    fail_marker(p, kFail);
    b.route[1] = 1;
    b.route[2] = 2;
    b.load_imem(p);
    b.start();
    ASSERT_TRUE(b.run_to_halt());
    b.settle();
    EXPECT_EQ(b.dut().stat_err_o, 0);
    EXPECT_TRUE(b.link_out[2].empty()) << "Geti 3 read other than 0x" << std::hex << base;
    EXPECT_EQ(link_headers(b, 1).size(), 1u);
  }
}

// A Wait's counter is (imm + r[rs2]) modulo 32 (docs/isa.md), whichever of the 32 bits the sum
// has set: a Wait on counter 2^k + 3 (in the register, or in the immediate) waits on counter 3
// and retires when a token arrives there.
TEST(RtlTile, WaitCounterIndexIsModuloThirtyTwo) {
  for (int k = 5; k < 32; ++k)
    for (bool in_imm : {false, true}) {
      TileBench b;
      const uint32_t idx = (1u << k) + 3;
      b.load_imem({LI(1, 1), LI(2, in_imm ? 3 : idx), WAIT(1, 2, in_imm ? (1u << k) : 0), END()});
      b.start();
      b.run_until([&] { return false; }, 50);
      EXPECT_TRUE(b.dut().stat_running_o) << "the Wait retired before its token, bit " << k;
      Hdr t = rx_hdr(0, 0, 0);
      t.ctr = 3;
      b.inject(make_packet(t, {}));
      EXPECT_TRUE(b.run_to_halt(2000))
          << "a Wait on counter 2^" << k << " + 3" << (in_imm ? " (immediate)" : " (register)");
      EXPECT_EQ(b.dut().stat_err_o, 0);
    }
}

// A start clears the counters and squashes the increments still in the receive pipeline, also
// in the early copy a Wait reads (rtl/xf_tile_recv.sv, EarlyCounter_A checks it against the
// array in every cycle): a token taken in the start's cycle or before it never counts, one taken
// after it does. The token is taken up to a dozen cycles before the start, in its cycle or after
// it; a Wait on its counter retires exactly when the token counts, and a second token always does.
TEST(RtlTile, StartSquashesCounterIncrementsInFlight) {
  int counted = 0, in_flight = 0, before = 0;  // the cases met: each kind must occur
  for (int d = 0; d < 14; ++d) {
    TileBench b;
    b.load_imem({LI(1, 1), LI(2, 3), WAIT(1, 2, 0), END()});
    b.inject(make_packet(rx_hdr(0, 0, 0), {}));  // a token to counter 3
    for (int k = 0; k < d; ++k) b.step();
    b.start();
    const uint64_t start = b.cycle() - 1;  // ctl_start_i was high in this cycle
    b.run(40);
    ASSERT_EQ(b.rx_taken.size(), 1u) << "d " << d;
    const bool counts = b.rx_taken[0].first > start;
    counted += counts;
    in_flight += !counts && b.rx_taken[0].first + kRecvPipelineCycles > start;
    before += b.rx_taken[0].first + kRecvPipelineCycles <= start;
    EXPECT_EQ(b.host_read(reg::kTileCounters + 12), counts ? 1u : 0u)
        << "token taken in cycle " << b.rx_taken[0].first << ", start in " << start;
    EXPECT_EQ(b.dut().stat_running_o, counts ? 0 : 1) << "d " << d;
    b.inject(make_packet(rx_hdr(0, 0, 0), {}));
    EXPECT_TRUE(b.run_to_halt(200)) << "d " << d;
    b.settle();
    EXPECT_EQ(b.host_read(reg::kTileCounters + 12), counts ? 2u : 1u) << "d " << d;
    EXPECT_EQ(b.dut().stat_err_o, 0) << "d " << d;
  }
  EXPECT_GT(counted, 0);
  EXPECT_GT(in_flight, 0);
  EXPECT_GT(before, 0);
}

// One Send of 256 KiB (2^14 words, from above 256 KiB of DMEM: the job's length, offset and
// read address use their upper bits) leaves as full packets in order: their lengths add up to
// the Send's, each header's address follows the last, and the payload is DMEM's, byte for byte.
TEST(RtlTile, LargeSendLeavesAsPacketsInOrder) {
  auto rng = kFile.rng();
  TileBench b;
  b.route[7] = 1;  // lane 0, chip 7 -> link 1
  constexpr uint32_t kBytes = 0x40000, kSrc = 0x48000, kDst = 0x100;
  const auto data = random_bytes(rng, kBytes);
  b.load_dmem(kSrc, data);
  b.load_imem({LI(1, kSrc), LI(2, kBytes), LI(3, 7), LI(4, kDst),
               SEND(1, 2, 3, 4, desc(0, 0, Opcode::kWrite)), END()});
  b.start();
  ASSERT_TRUE(b.run_to_halt(400000));
  b.settle();
  EXPECT_EQ(b.dut().stat_err_o, 0);
  std::vector<std::vector<Flit>> pkts;
  for (const auto& f : b.link_out[1]) {
    if (f.head) pkts.emplace_back();
    ASSERT_FALSE(pkts.empty()) << "a flit before the first header";
    pkts.back().push_back(f);
  }
  std::vector<uint8_t> got;
  uint32_t next = kDst;
  for (const auto& pkt : pkts) {
    const Hdr h = unpack(pkt[0]);
    EXPECT_EQ(h.dst_addr, next);
    next += h.len;
    const auto part = payload_of(pkt, kFlitBits);
    got.insert(got.end(), part.begin(), part.end());
  }
  EXPECT_EQ(next - kDst, kBytes) << "the packets' lengths";
  EXPECT_TRUE(got == data) << "payload differs from DMEM (" << got.size() << " bytes)";
}

// A Send queued behind a running one (it waits in the queue's entry 1) from above 512 KiB of
// DMEM: both leave whole, in order, each packet's header with its reserved bits 0.
TEST(RtlTile, QueuedSendFromAboveHalfOfDmem) {
  auto rng = kFile.rng();
  TileBench b;
  b.route[7] = 1;  // lane 0, chip 7 -> link 1
  constexpr uint32_t kSrc1 = 0x1000, kBytes1 = 0x2000, kDst1 = 0x100;
  constexpr uint32_t kSrc2 = 0xA1230, kBytes2 = 0x1000, kDst2 = 0x8000;
  const auto data1 = random_bytes(rng, kBytes1);
  const auto data2 = random_bytes(rng, kBytes2);
  b.load_dmem(kSrc1, data1);
  b.load_dmem(kSrc2, data2);
  b.load_imem({LI(1, kSrc1), LI(2, kBytes1), LI(3, 7), LI(4, kDst1),
               SEND(1, 2, 3, 4, desc(0, 0, Opcode::kWrite)), LI(5, kSrc2), LI(6, kBytes2),
               LI(7, kDst2), SEND(5, 6, 3, 7, desc(0, 0, Opcode::kWrite)), END()});
  b.start();
  ASSERT_TRUE(b.run_to_halt(40000));
  b.settle();
  EXPECT_EQ(b.dut().stat_err_o, 0);
  std::vector<uint8_t> got(kDst2 + kBytes2, 0);
  uint32_t sent = 0;
  for (const auto& pkt : TileBench::packets(b.link_out[1])) {
    const Hdr h = unpack(pkt[0]);
    EXPECT_EQ(pkt[0].bits(107, 21), 0u)
        << "reserved header bits of the packet to 0x" << std::hex << h.dst_addr;
    const auto part = payload_of(pkt, kFlitBits);
    ASSERT_LE(h.dst_addr + part.size(), got.size()) << "a packet to 0x" << std::hex << h.dst_addr;
    std::copy(part.begin(), part.end(), got.begin() + h.dst_addr);
    sent += static_cast<uint32_t>(part.size());
  }
  EXPECT_EQ(sent, kBytes1 + kBytes2);
  EXPECT_TRUE(std::equal(data1.begin(), data1.end(), got.begin() + kDst1)) << "the first Send";
  EXPECT_TRUE(std::equal(data2.begin(), data2.end(), got.begin() + kDst2))
      << "the queued Send from 0x" << std::hex << kSrc2;
}

// Lw takes exactly 2 cycles, Nop 1 (Geti 3 differences), and reads PMEM with rs1 + imm.
TEST(RtlTile, LwTwoCyclesAndPmemRange) {
  TileBench b;
  b.route[1] = 0;
  std::vector<uint64_t> p = {
      LI(kR16, 16),
      LI(1, 5),
      I(Isa::kGeti, 2, 0, 0, 0, 0, 3),
      I(Isa::kLw, 3, 1, 0, 0, 0, 7),  // pmem[12]
      I(Isa::kGeti, 4, 0, 0, 0, 0, 3),
      NOP(),
      I(Isa::kGeti, 5, 0, 0, 0, 0, 3),
      I(Isa::kLw, 6, 0, 0, 0, 0, kPmemWords - 1),
      I(Isa::kLw, 7, 7, 0, 0, 0, 0),   // rd == rs1: pmem[r7 = 0x...]? r7 = 0 -> pmem[0]
      I(Isa::kSub, 8, 4, 2),           // 3: Geti, Lw (2)
      I(Isa::kSub, 9, 5, 4),           // 2: Geti, Nop
      I(Isa::kLw, 12, 0, 0, 0, 0, 1),  // pmem[1] = ~pmem[0]: every bit of a word both ways
  };
  const uint32_t kFail = 200;
  observe(p, 3, 0xCAFE0012u, 0, kFail);
  observe(p, 6, 0x12345678u, 1, kFail);
  observe(p, 7, 0xABCD0000u, 2, kFail);
  observe(p, 8, 3, 3, kFail);
  observe(p, 9, 2, 4, kFail);
  observe(p, 12, ~0xABCD0000u, 5, kFail);
  p.push_back(LI(10, kPmemWords - 3));
  p.push_back(I(Isa::kLw, 11, 10, 0, 0, 0, 3));  // PmemRange
  const uint32_t bad_pc = static_cast<uint32_t>(p.size() - 1);
  p.resize(kFail, NOP());
  p.push_back(END());
  b.load_imem(p);
  b.load_pmem({0xABCD0000u, ~0xABCD0000u}, 0);
  b.load_pmem({0xCAFE0012u}, 12);
  b.load_pmem({0x12345678u}, kPmemWords - 1);
  b.start();
  ASSERT_TRUE(b.run_to_halt());
  b.settle();
  EXPECT_EQ(b.dut().stat_err_o, static_cast<int>(TileErr::kPmemRange));
  EXPECT_EQ(b.dut().stat_done_o, 0);
  EXPECT_EQ(b.dut().stat_pc_o, bad_pc);
  const auto hs = link_headers(b, 0);
  ASSERT_EQ(hs.size(), 6u);
  for (uint32_t i = 0; i < 6; ++i) EXPECT_EQ(hs[i].dst_addr, i * 16);
}

// PmemRange is decided on the whole 33-bit index rs1 + imm (docs/isa.md): an index of 2^k for
// every k from log2(PmemWords) to 32 (the carry out of the 32-bit add) fails at the Lw's pc,
// whatever its low 14 bits (which alone address PMEM) say; the last word, reached through a
// carry, loads.
TEST(RtlTile, LwPmemRangeEveryIndexBit) {
  TileBench b;
  b.load_pmem({0x600DF00Du}, kPmemWords - 1);
  for (uint32_t k = 14; k <= 32; ++k) {
    const uint64_t idx = uint64_t{1} << k;
    const uint32_t imm = 3 + k;  // rs1 + imm = 2^k, with a carry through the low bits
    const uint32_t a = static_cast<uint32_t>(idx - imm);
    b.load_imem({LI(1, a), I(Isa::kLw, 2, 1, 0, 0, 0, imm), END()});
    b.start();
    b.run(20);
    EXPECT_EQ(b.dut().stat_err_o, static_cast<int>(TileErr::kPmemRange)) << "2^" << k;
    EXPECT_EQ(b.dut().stat_pc_o, 1u) << "2^" << k;
  }
  // In range after a carry through the low bits: (kPmemWords - 4) + 3 loads the last word.
  const uint32_t kFail = 20;
  std::vector<uint64_t> p = {LI(kR16, 16), LI(1, kPmemWords - 4), I(Isa::kLw, 2, 1, 0, 0, 0, 3)};
  observe(p, 2, 0x600DF00Du, 1, kFail);
  p.resize(kFail, NOP());
  p.push_back(END());
  b.route[1] = 0;
  b.load_imem(p);
  b.start();
  ASSERT_TRUE(b.run_to_halt());
  b.settle();
  EXPECT_EQ(b.dut().stat_err_o, 0);
  EXPECT_EQ(b.dut().stat_done_o, 1);
  const auto hs = link_headers(b, 0);
  ASSERT_EQ(hs.size(), 1u);
  EXPECT_EQ(hs[0].dst_addr, 16u);
}

// Send -> XREQ in the next cycle; grant after the XB round trip; payload from DMEM; XDONE when
// the queue runs empty; End waits for the XDONE. Full rate: 2048 B = 129 flits back to back.
TEST(RtlTile, SendSessionFullRate) {
  auto rng = kFile.rng();
  TileBench b;
  b.route[1 * 4096 + 7] = 3;  // lane 1, chip 7 -> link 3
  const auto data = random_bytes(rng, 4096 + 32);
  b.load_dmem(0x1000, data);
  std::vector<uint64_t> p = {
      LI(1, 0x1000),
      LI(2, 2048),
      LI(3, 7),
      LI(4, 0x200),
      SEND(1, 2, 3, 4, desc(9, 1, Opcode::kReduce, DType::kInt16, RedOp::kMax, 17, true, 3, true)),
      END()};
  b.load_imem(p);
  b.start();
  const uint64_t t0 = b.cycle() + 1;  // pc 0 executes here, after the start's bubble
  ASSERT_TRUE(b.run_to_halt());
  const uint64_t t_end = b.cycle();
  b.settle();
  ASSERT_GE(b.tx.size(), 131u);
  // Send executes in t0 + 4; the engine decides XREQ in t0 + 5; tx_valid_o in t0 + 6.
  EXPECT_EQ(b.tx[0].ctrl, 1);
  EXPECT_EQ(b.tx[0].port, 3);
  EXPECT_EQ(b.tx[0].cycle, t0 + 6);
  // Grant: XREQ at the XB in t0 + 7, GRANT seen in t0 + 9, header decided there, on tx in +10.
  EXPECT_EQ(b.tx[1].cycle, t0 + 10);
  for (int i = 1; i <= 129; ++i) {
    EXPECT_EQ(b.tx[i].cycle, b.tx[1].cycle + i - 1) << "flit " << i;
    EXPECT_TRUE(b.tx[i].link);
    EXPECT_EQ(b.tx[i].ctrl, 0);
  }
  EXPECT_EQ(b.tx[130].ctrl, 2);  // XDONE right after the last flit
  EXPECT_EQ(b.tx[130].cycle, b.tx[129].cycle + 1);
  EXPECT_EQ(b.tx.size(), 131u);
  EXPECT_GE(t_end, b.tx[130].cycle);  // End retired after the XDONE decision
  EXPECT_LE(t_end, b.tx[130].cycle + 2);
  const auto pk = TileBench::packets(b.link_out[3]);
  ASSERT_EQ(pk.size(), 1u);
  ASSERT_EQ(pk[0].size(), 129u);
  const Hdr h = unpack(pk[0][0]);
  EXPECT_EQ(h.opcode, 1u);
  EXPECT_EQ(h.dst_chip, 7u);
  EXPECT_EQ(h.dst_tile, 9u);
  EXPECT_EQ(h.dst_addr, 0x200u);
  EXPECT_EQ(h.len, 2048u);
  EXPECT_EQ(h.dtype, 2u);
  EXPECT_EQ(h.op, 1u);
  EXPECT_EQ(h.sat, 1u);
  EXPECT_EQ(h.avg_final, 1u);
  EXPECT_EQ(h.avg_shift, 3u);
  EXPECT_EQ(h.ctr, 17u);
  EXPECT_EQ(h.lane, 1u);
  EXPECT_FALSE(pk[0][0].tail);
  for (int i = 1; i <= 128; ++i) {
    EXPECT_EQ(std::memcmp(pk[0][i].w.data(), &data[16 * (i - 1)], 16), 0) << "payload " << i;
    EXPECT_EQ(pk[0][i].tail, i == 128);
  }
  EXPECT_EQ(b.dut().stat_done_o, 1);
  EXPECT_EQ(b.bad_link_flits, 0);
}

// Two jobs to one link share a session (no XDONE/XREQ between, 4096 B = 258 flits back to back
// plus the next job); a local job closes it; a job to another link closes and reopens.
TEST(RtlTile, SessionRules) {
  auto rng = kFile.rng();
  TileBench b;
  b.route[7] = 1;
  b.route[8] = 1;
  b.route[9] = 2;
  const auto data = random_bytes(rng, 8192);
  b.load_dmem(0, data);
  std::vector<uint64_t> p = {LI(1, 0),
                             LI(2, 4096),
                             LI(3, 7),
                             LI(4, 0x10),
                             LI(5, 8),
                             LI(6, 9),
                             LI(7, 32),
                             LI(8, kChip),
                             LI(9, 0x8000),
                             SEND(1, 2, 3, 4, desc(0, 0, Opcode::kWrite)),        // link 1
                             SEND(1, 7, 5, 4, desc(0, 0, Opcode::kWrite)),        // link 1 again
                             SEND(1, 7, 8, 9, desc(kTileId, 0, Opcode::kWrite)),  // local
                             SEND(1, 7, 6, 4, desc(0, 0, Opcode::kWrite)),        // link 2
                             SEND(1, 0, 3, 4, desc(0, 0, Opcode::kWrite)),        // link 1, token
                             END()};
  b.load_imem(p);
  b.start();
  ASSERT_TRUE(b.run_to_halt());
  b.settle();
  EXPECT_EQ(b.dut().stat_err_o, 0);
  // Expected control sequence.
  std::vector<std::string> seq;
  for (const auto& r : b.tx) {
    if (r.ctrl == 1) seq.push_back("XREQ" + std::to_string(r.port));
    if (r.ctrl == 2) seq.push_back("XDONE" + std::to_string(r.port));
    if (r.ctrl == 0 && r.f.head) seq.push_back((r.link ? "L" : "T") + std::to_string(r.port));
  }
  const std::vector<std::string> want = {"XREQ1", "L1", "L1",     "L1",    "XDONE1", "T2",
                                         "XREQ2", "L2", "XDONE2", "XREQ1", "L1",     "XDONE1"};
  EXPECT_EQ(seq, want);
  // The first 2 packets (258 flits) and the next job's packet are back to back.
  size_t first = 0;
  while (b.tx[first].ctrl != 0) ++first;
  for (size_t i = 0; i < 258 + 3; ++i) EXPECT_EQ(b.tx[first + i].cycle, b.tx[first].cycle + i);
  // Payload and headers on link 1: 2048 + 2048 + 32 bytes then the token.
  const auto pk = TileBench::packets(b.link_out[1]);
  ASSERT_EQ(pk.size(), 4u);
  EXPECT_EQ(unpack(pk[1][0]).dst_addr, 0x10u + 2048);
  EXPECT_EQ(unpack(pk[2][0]).dst_chip, 8u);
  EXPECT_EQ(unpack(pk[2][0]).len, 32u);
  EXPECT_EQ(unpack(pk[3][0]).len, 0u);
  for (int i = 0; i < 4; ++i)
    EXPECT_EQ(unpack(pk[i][0]).seq, static_cast<uint32_t>(i == 3 ? 5 : i));
  for (size_t k = 1; k < pk[1].size(); ++k)
    EXPECT_EQ(std::memcmp(pk[1][k].w.data(), &data[2048 + 16 * (k - 1)], 16), 0);
  // The local job looped back into DMEM at 0x8000.
  EXPECT_EQ(b.read_dmem(0x8000, 32), std::vector<uint8_t>(data.begin(), data.begin() + 32));
  EXPECT_EQ(b.host_read(reg::kTileCounters), 2u);
  EXPECT_EQ(b.bad_link_flits, 0);
}

// Held sessions (docs/tile.md section 4.3): a job with the descriptor's hold bit leaves its
// session open while the queue is empty, so the next job to that link sends its header in the
// cycle after its Send retires, without XREQ/GRANT; a job without hold closes the session when
// the queue runs empty; a job to another link closes a held session; End does not wait for a
// held session, which closes (XDONE) in the cycle after the tile halts.
TEST(RtlTile, HeldSession) {
  auto rng = kFile.rng();
  TileBench b;
  b.route[7] = 1;
  b.route[9] = 2;
  b.load_dmem(0, random_bytes(rng, 64));
  auto hold = [](uint32_t d) { return d | (1u << sendimm::kHoldLsb); };
  const uint32_t w = desc(0, 0, Opcode::kWrite);
  std::vector<uint64_t> p = {LI(1, 0), LI(2, 32), LI(3, 7), LI(4, 0x10), LI(5, 9)};
  std::vector<size_t> send_at;  // the Sends' IMEM indices = their cycles after t0
  for (const auto& [chip, d] : {std::pair{3u, hold(w)}, {3u, w}, {3u, hold(w)}, {5u, hold(w)}}) {
    send_at.push_back(p.size());
    p.push_back(SEND(1, 2, chip, 4, d));
    p.resize(p.size() + 12, NOP());  // every job long done before the next
  }
  const size_t end_at = p.size();
  p.push_back(END());
  b.load_imem(p);
  b.start();
  const uint64_t t0 = b.cycle() + 1;  // pc 0 executes here, after the start's bubble
  ASSERT_TRUE(b.run_to_halt());
  b.settle();
  EXPECT_EQ(b.dut().stat_err_o, 0);
  std::vector<std::string> seq;
  std::vector<uint64_t> at;  // tx_valid_o cycles
  for (const auto& r : b.tx) {
    if (r.ctrl == 0 && !r.f.head) continue;
    seq.push_back((r.ctrl == 1 ? "XREQ" : r.ctrl == 2 ? "XDONE" : "L") + std::to_string(r.port));
    at.push_back(r.cycle - t0);
  }
  const std::vector<std::string> want = {"XREQ1", "L1",     "L1",    "XDONE1", "XREQ1",
                                         "L1",    "XDONE1", "XREQ2", "L2",     "XDONE2"};
  ASSERT_EQ(seq, want);
  // Job 0: XREQ decided after its Send, the header 4 cycles later (the XB's round trip).
  EXPECT_EQ(at[0], send_at[0] + 2);
  EXPECT_EQ(at[1], send_at[0] + 6);
  // Job 1 on the held session: its header is decided in the cycle after its Send retires.
  EXPECT_EQ(at[2], send_at[1] + 2);
  // Job 1 had no hold: XDONE right after its last (second) payload flit.
  EXPECT_EQ(at[3], at[2] + 3);
  // Job 2 opens a session again; job 3 leaves on link 2: XDONE1, then XREQ2.
  EXPECT_EQ(at[4], send_at[2] + 2);
  EXPECT_EQ(at[6], send_at[3] + 2);
  EXPECT_EQ(at[7], send_at[3] + 3);
  // End retires with the session held; XDONE2 is decided in the next cycle.
  EXPECT_EQ(at[9], end_at + 2);
  EXPECT_EQ(b.dut().stat_done_o, 1);
  EXPECT_EQ(b.bad_link_flits, 0);
}

// XOFF stops the link data in the next decision, XON resumes it; stray messages (other links,
// XON/XOFF before the grant, a second GRANT) are ignored. Random link stalls exercise the XB's
// real thresholds; the queue never exceeds 32 flits.
TEST(RtlTile, XoffXon) {
  auto rng = kFile.rng();
  for (double stall : {0.0, 0.5, 0.8, 0.95}) {
    TileBench b;
    b.rng.seed(rng());
    b.link_stall = stall;
    b.route[7] = 0;
    const auto data = random_bytes(rng, 6000 * 16 / 16 * 1 + 16);
    b.load_dmem(0, data);
    std::vector<uint64_t> p = {
        LI(1, 0), LI(2, 5984), LI(3, 7), LI(4, 0), SEND(1, 2, 3, 4, desc(0, 0, Opcode::kWrite)),
        END()};
    b.load_imem(p);
    // Stray messages around the request: link 1 XON, link 0 XOFF/XON before the grant.
    b.stray_msg(b.cycle() + 8, 1, 1);
    b.stray_msg(b.cycle() + 9, 0, 2);
    b.stray_msg(b.cycle() + 10, 0, 1);
    b.start();
    for (int i = 0; i < 40; ++i) b.stray_msg(b.cycle() + 30 + rng() % 2000, 1 + rng() % 3, 2);
    ASSERT_TRUE(b.run_to_halt(400000));
    b.settle();
    EXPECT_EQ(b.bad_link_flits, 0) << "stall " << stall;
    EXPECT_LE(b.max_xb_occ, kXbQueueFlits);
    const auto pk = TileBench::packets(b.link_out[0]);
    std::vector<uint8_t> got;
    for (const auto& q : pk)
      for (size_t k = 1; k < q.size(); ++k)
        got.insert(got.end(), reinterpret_cast<const uint8_t*>(q[k].w.data()),
                   reinterpret_cast<const uint8_t*>(q[k].w.data()) + 16);
    EXPECT_EQ(got, std::vector<uint8_t>(data.begin(), data.begin() + 5984)) << "stall " << stall;
    if (stall >= 0.5) {
      int xoffs = 0;
      for (const auto& m : b.msgs) xoffs += m.link == 0 && m.kind == 2;
      EXPECT_GT(xoffs, 0);
    }
  }
}

// XOFF reaction exactly: a scripted XOFF delivered in cycle c means no link data flit on tx in
// c+1; XON in c' means a flit again on tx in c'+1.
TEST(RtlTile, XoffExactTiming) {
  TileBench b;
  b.route[7] = 2;
  std::vector<uint64_t> p = {
      LI(1, 0), LI(2, 2048), LI(3, 7), LI(4, 0), SEND(1, 2, 3, 4, desc(0, 0, Opcode::kWrite)),
      END()};
  b.load_imem(p);
  b.start();
  b.run_until([&] { return b.tx.size() >= 20; });
  const uint64_t c = b.cycle() + 1;
  b.stray_msg(c, 2, 2);       // XOFF from link 2 in c
  b.stray_msg(c + 10, 2, 1);  // XON in c + 10
  b.run_until([&] { return b.cycle() > c + 20; });
  for (const auto& r : b.tx) {
    if (r.ctrl != 0) continue;
    EXPECT_FALSE(r.cycle > c && r.cycle <= c + 10) << "flit on tx in cycle " << r.cycle;
  }
  bool at_c = false, at_c11 = false;
  for (const auto& r : b.tx) {
    at_c = at_c || r.cycle == c;
    at_c11 = at_c11 || r.cycle == c + 11;
  }
  EXPECT_TRUE(at_c);
  EXPECT_TRUE(at_c11);
  ASSERT_TRUE(b.run_to_halt());
}

// ReceiveWriteReduce with the avg scale CSR 16 = avg_scale.
void receive_write_reduce(kit::Rng& rng, uint32_t avg_scale) {
  SCOPED_TRACE(testing::Message() << "avg scale 0x" << std::hex << avg_scale);
  TileBench b;
  b.rng.seed(rng());
  struct Pair {
    DType dt;
    RedOp op;
    bool sat, fin;
    unsigned shift;
  };
  const std::vector<Pair> pairs = {
      {DType::kInt8, RedOp::kSum, false, false, 0},  {DType::kInt8, RedOp::kSum, true, false, 0},
      {DType::kUint8, RedOp::kMax, false, false, 0}, {DType::kInt16, RedOp::kMin, false, false, 0},
      {DType::kInt32, RedOp::kSum, true, false, 0},  {DType::kInt16, RedOp::kAvg, false, true, 2},
      {DType::kUint8, RedOp::kAvg, false, false, 1}, {DType::kFp16, RedOp::kSum, false, false, 0},
      {DType::kBf16, RedOp::kMax, false, false, 0},  {DType::kFp32, RedOp::kSum, false, false, 0},
      {DType::kFp32, RedOp::kMin, false, false, 0},  {DType::kInt32, RedOp::kAvg, false, true, 0},
      {DType::kInt32, RedOp::kAvg, false, true, 13}};  // shift field bits 3:2 too
  // Program: set the avg scale, then wait for every packet's counter, then End.
  std::vector<uint64_t> p = {LI(1, avg_scale), I(Isa::kCsrw, 0, 1, 0, 0, 0, 16)};
  std::map<uint32_t, std::vector<uint8_t>> ref;  // addr -> expected bytes
  uint32_t addr = 0x2000;
  uint32_t ctr_total[32] = {};
  std::vector<std::vector<Flit>> pkts;
  for (size_t i = 0; i < pairs.size(); ++i) {
    const uint32_t n = 16 * (1 + rng() % 24);
    auto local = random_bytes(rng, n);
    auto in = random_bytes(rng, n);
    b.load_dmem(addr, local);
    Hdr h;
    h.opcode = 1;
    h.dst_chip = kChip;
    h.dst_tile = kTileId;
    h.dst_addr = addr;
    h.len = n;
    h.dtype = static_cast<uint32_t>(pairs[i].dt);
    h.op = static_cast<uint32_t>(pairs[i].op);
    h.sat = pairs[i].sat;
    h.avg_final = pairs[i].fin;
    h.avg_shift = pairs[i].shift;
    h.ctr = static_cast<uint32_t>(i % 3);
    pkts.push_back(make_packet(h, in));
    AluCfg cfg;
    cfg.dtype = pairs[i].dt;
    cfg.op = pairs[i].op;
    cfg.sat = pairs[i].sat;
    cfg.avg_final = pairs[i].fin;
    cfg.avg_shift = static_cast<uint8_t>(pairs[i].shift);
    cfg.avg_scale = avg_scale;
    alu_reduce(cfg, local.data(), in.data(), n);
    ref[addr] = local;
    ctr_total[h.ctr] += n / 16;
    addr += n + 16 * (rng() % 3);
  }
  // A Write and tokens.
  {
    auto in = random_bytes(rng, 512);
    Hdr h;
    h.opcode = 0;
    h.dst_chip = kChip;
    h.dst_tile = kTileId;
    h.dst_addr = 0x9000;
    h.len = 512;
    h.ctr = 5;
    pkts.push_back(make_packet(h, in));
    ref[0x9000] = in;
    ctr_total[5] += 32;
    Hdr t;
    t.ctr = 6;
    t.dst_addr = 0x7FFF0;  // tokens write nothing
    pkts.push_back(make_packet(t, {}));
    pkts.push_back(make_packet(t, {}));
    t.opcode = 1;
    t.dtype = static_cast<uint32_t>(DType::kInt8);  // a Reduce token needs a valid pair too
    pkts.push_back(make_packet(t, {}));
    ctr_total[6] += 3;
  }
  for (int c : {0, 1, 2, 5, 6}) {
    p.push_back(LI(2, ctr_total[c]));
    p.push_back(WAIT(2, 0, static_cast<uint32_t>(c)));
  }
  p.push_back(END());
  b.load_imem(p);
  b.start();
  b.rx_idle = 0.3;
  for (auto& pk : pkts) b.inject(pk);
  ASSERT_TRUE(b.run_to_halt());
  EXPECT_EQ(b.dut().stat_err_o, 0);
  EXPECT_EQ(b.dut().stat_done_o, 1);
  // Wait timing: the last tail to counter 6 came before the End; the Waits passed in order.
  b.settle();
  for (const auto& [a, bytes] : ref)
    EXPECT_EQ(b.read_dmem(a, static_cast<uint32_t>(bytes.size())), bytes) << std::hex << a;
  for (int c : {0, 1, 2, 5, 6})
    EXPECT_EQ(b.host_read(reg::kTileCounters + 4 * c), ctr_total[c]) << "counter " << c;
}

// Receive: Write and Reduce for many dtype/op pairs (checked against xf::alu_reduce), tokens,
// counters, Wait timing (tail accepted in t -> Wait retires in t + 5). Twice: with an avg scale
// CSR value and with its complement, so that each of its bits is used both ways.
TEST(RtlTile, ReceiveWriteReduce) {
  auto rng = kFile.rng();
  for (const uint32_t avg_scale : {0x6B7DA5C3u, ~0x6B7DA5C3u})  // about 0.84, 1.16: no zero byte
    receive_write_reduce(rng, avg_scale);
}

// A Wait whose counter is completed by a tail accepted in cycle t retires in t + 5 (its pc
// moves in t + 5: visible in TileStatus / stat_pc_o from t + 6).
TEST(RtlTile, WaitLatency) {
  TileBench b;
  std::vector<uint64_t> p = {LI(1, 2), WAIT(1, 0, 4), NOP(), NOP(), END()};
  b.load_imem(p);
  b.start();
  b.run(20);
  EXPECT_EQ(b.dut().stat_pc_o, 1);
  Hdr h;
  h.dst_chip = kChip;
  h.dst_tile = kTileId;
  h.dst_addr = 0x100;
  h.len = 32;
  h.ctr = 4;
  b.inject(make_packet(h, std::vector<uint8_t>(32, 7)));
  b.run_until([&] { return !b.rx_taken.empty() && b.rx_taken.back().second.tail; });
  const uint64_t t = b.rx_taken.back().first;
  while (b.cycle() <= t + kWaitLatency) {
    EXPECT_EQ(b.dut().stat_pc_o, 1) << "cycle " << b.cycle();
    b.step();
  }
  EXPECT_EQ(b.dut().stat_pc_o, 2) << "Wait did not retire in t + " << kWaitLatency;
  ASSERT_TRUE(b.run_to_halt());
}

// Read after write between two Reduce packets to the same words: rx_ready_o goes low (never
// within a packet), and the result is a + b1 + b2.
TEST(RtlTile, ReadAfterWriteHold) {
  auto rng = kFile.rng();
  TileBench b;
  const uint32_t n = 64;
  auto local = random_bytes(rng, n);
  b.load_dmem(0x400, local);
  std::vector<std::vector<uint8_t>> ins;
  for (int k = 0; k < 3; ++k) {
    ins.push_back(random_bytes(rng, n));
    Hdr h;
    h.opcode = 1;
    h.dst_chip = kChip;
    h.dst_tile = kTileId;
    h.dst_addr = 0x400;
    h.len = n;
    h.dtype = static_cast<uint32_t>(DType::kInt32);
    h.op = 0;
    b.inject(make_packet(h, ins.back()));
  }
  b.run_until([&] { return b.inject_empty(); });
  b.settle();
  AluCfg cfg;
  cfg.dtype = DType::kInt32;
  cfg.op = RedOp::kSum;
  for (auto& in : ins) alu_reduce(cfg, local.data(), in.data(), n);
  EXPECT_EQ(b.read_dmem(0x400, n), local);
  EXPECT_FALSE(b.rx_stall_cycles.empty());
  // Stalls only on the first payload flit of the 2nd and 3rd packets.
  std::vector<uint64_t> heads;
  for (size_t i = 0; i < b.rx_taken.size(); ++i)
    if (b.rx_taken[i].second.head) heads.push_back(b.rx_taken[i].first);
  ASSERT_EQ(heads.size(), 3u);
  for (uint64_t c : b.rx_stall_cycles)
    EXPECT_TRUE(c > heads[1] && c <= heads[1] + 6 ? true : c > heads[2]);
  EXPECT_EQ(b.dut().stat_err_o, 0);
}

// The read-after-write hold at every distance (docs/tile.md, xf_tile_recv): two int32 Sum Reduce
// packets of n = 1..5 words to the same bytes, back to back, so that the second packet's first
// word follows the first packet's by n + 1 cycles (accepted 2..6 cycles earlier: each pipeline
// stage in turn, and once past it); DMEM holds both sums (xf::alu_reduce), no error.
TEST(RtlTile, ReadAfterWriteHoldEveryDistance) {
  auto rng = kFile.rng();
  for (uint32_t n = 1; n <= 5; ++n) {
    TileBench b;
    auto local = random_bytes(rng, 16 * n);
    b.load_dmem(0x400, local);
    AluCfg cfg;
    cfg.dtype = DType::kInt32;
    for (int k = 0; k < 2; ++k) {
      const auto in = random_bytes(rng, 16 * n);
      b.inject(make_packet(rx_hdr(1, 16 * n, 0x400, static_cast<uint32_t>(DType::kInt32)), in));
      alu_reduce(cfg, local.data(), in.data(), 16 * n);
    }
    b.settle();
    EXPECT_EQ(b.dut().stat_err_o, 0) << n << " words";
    EXPECT_EQ(b.read_dmem(0x400, 16 * n), local) << n << " words";
    EXPECT_EQ(b.host_read(reg::kTileCounters + 12), 2 * n) << n << " words";
  }
}

// Wait compares all 32 bits of its counter (docs/isa.md, Wait): 2048-byte Writes add 128 grains
// each to counter 9. A Wait for 129 still stalls at 128 (bit 7 set) and retires with the second
// packet; a Wait for 2^17 still stalls at 2^17 - 128 and retires with the 1024th.
TEST(RtlTile, WaitComparesTheWholeCounter) {
  auto rng = kFile.rng();
  TileBench b;
  Hdr h = rx_hdr(0, 2048, 0x1000);
  h.ctr = 9;
  const auto pkt = make_packet(h, random_bytes(rng, 2048));
  b.load_imem({LI(1, 129), WAIT(1, 0, 9), LI(1, 1u << 17), WAIT(1, 0, 9), END()});
  b.start();
  auto receive = [&](int packets) {
    for (int i = 0; i < packets; ++i) {
      b.inject(pkt);
      if (i % 256 == 255) b.settle();  // settle() runs up to 100,000 cycles
    }
    b.settle();
  };
  receive(1);
  EXPECT_EQ(b.host_read(reg::kTileCounters + 36), 128u);
  EXPECT_EQ(b.dut().stat_pc_o, 1u) << "Wait 129 at 128";
  receive(1);
  EXPECT_EQ(b.dut().stat_pc_o, 3u) << "Wait 129 at 256";
  receive(1021);
  EXPECT_EQ(b.host_read(reg::kTileCounters + 36), (1u << 17) - 128);
  EXPECT_EQ(b.dut().stat_pc_o, 3u) << "Wait 2^17 at 2^17 - 128";
  EXPECT_EQ(b.dut().stat_running_o, 1);
  receive(1);
  EXPECT_EQ(b.dut().stat_done_o, 1) << "Wait 2^17 at 2^17";
  EXPECT_EQ(b.dut().stat_err_o, 0);
}

// The 32 arrival counters count apart (docs/tile.md section 5): c + 1 tokens to counter c, for c
// from 31 down to 0, each batch followed by a host read of all 32 (each reads its own count so
// far, or 0).
TEST(RtlTile, EveryCounterCountsAlone) {
  TileBench b;
  b.load_imem({I(Isa::kJmp)});  // spin
  b.start();
  for (int c = 31; c >= 0; --c) {
    Hdr t = rx_hdr(0, 0, 0);
    t.ctr = static_cast<uint32_t>(c);
    for (int i = 0; i <= c; ++i) b.inject(make_packet(t, {}));
    b.settle();
    for (int k = 0; k < 32; ++k)
      EXPECT_EQ(b.host_read(reg::kTileCounters + 4 * k), k >= c ? k + 1u : 0u)
          << "counter " << k << " after the tokens to " << c;
  }
  EXPECT_EQ(b.dut().stat_err_o, 0);
}

// Receive-reduce one stream and send another at one flit per cycle each, at the same time.
TEST(RtlTile, SimultaneousReduceAndSend) {
  auto rng = kFile.rng();
  TileBench b;
  b.route[7] = 0;
  const uint32_t n = 4096;
  auto src = random_bytes(rng, n);
  auto local = random_bytes(rng, n);
  auto in = random_bytes(rng, n);
  b.load_dmem(0, src);
  b.load_dmem(0x10000, local);
  std::vector<uint64_t> p = {LI(1, 0),      LI(2, n),
                             LI(3, 7),      LI(4, 0),
                             LI(5, n / 16), SEND(1, 2, 3, 4, desc(0, 0, Opcode::kWrite)),
                             WAIT(5, 0, 9), END()};
  b.load_imem(p);
  b.start();
  Hdr h;
  h.opcode = 1;
  h.dst_chip = kChip;
  h.dst_tile = kTileId;
  h.dtype = static_cast<uint32_t>(DType::kFp32);
  h.ctr = 9;
  h.len = 2048;
  for (uint32_t off = 0; off < n; off += 2048) {
    h.dst_addr = 0x10000 + off;
    b.inject(make_packet(h, std::vector<uint8_t>(in.begin() + off, in.begin() + off + 2048)));
  }
  ASSERT_TRUE(b.run_to_halt());
  b.settle();
  EXPECT_EQ(b.dut().stat_err_o, 0);
  // Both streams ran at one flit per cycle: rx flits in consecutive cycles, tx data as well,
  // and they overlapped.
  for (size_t i = 1; i < b.rx_taken.size(); ++i)
    EXPECT_EQ(b.rx_taken[i].first, b.rx_taken[i - 1].first + 1);
  std::vector<uint64_t> txc;
  for (const auto& r : b.tx)
    if (r.ctrl == 0) txc.push_back(r.cycle);
  ASSERT_EQ(txc.size(), 258u);
  for (size_t i = 1; i < txc.size(); ++i) EXPECT_EQ(txc[i], txc[i - 1] + 1);
  EXPECT_LT(b.rx_taken.front().first, txc.back());
  EXPECT_GT(b.rx_taken.back().first, txc.front());
  AluCfg cfg;
  alu_reduce(cfg, local.data(), in.data(), n);
  EXPECT_EQ(b.read_dmem(0x10000, n), local);
  std::vector<uint8_t> got;
  for (const auto& q : TileBench::packets(b.link_out[0]))
    for (size_t k = 1; k < q.size(); ++k)
      got.insert(got.end(), reinterpret_cast<const uint8_t*>(q[k].w.data()),
                 reinterpret_cast<const uint8_t*>(q[k].w.data()) + 16);
  EXPECT_EQ(got, src);
}

// fp32 values for ScaleAdd: a quarter specials (zeros, subnormals, max, infinities, NaNs), the
// rest with exponent fields 100..153 (products and sums that round, cancel and tie).
std::vector<uint8_t> random_fp32_bytes(std::mt19937_64& rng, size_t n) {
  const uint32_t sp[] = {0x00000000u, 0x80000000u, 0x00000001u, 0x807FFFFFu, 0x00800000u,
                         0x7F7FFFFFu, 0x7F800000u, 0xFF800000u, 0x7FC00000u, 0xFF800001u};
  std::vector<uint8_t> v(n);
  for (size_t i = 0; i < n; i += 4) {
    const uint64_t x = rng();
    const uint32_t u = (x & 3u) == 0 ? sp[(x >> 8) % 10]
                                     : (static_cast<uint32_t>(x >> 32) & 0x807FFFFFu) |
                                           (static_cast<uint32_t>((x >> 8) % 54u + 100u) << 23);
    std::memcpy(&v[i], &u, 4);
  }
  return v;
}

// ScaleAdd through the tile: four 512-byte fp32 ScaleAdd Reduce jobs to the tile itself (the
// loop-back), the first with CSR 17 as the start left it (1.0), the second after Csrw 17 =
// -0.1f, the third after Csrw 17 = 1 + 2^-12 (its first lane a rounding tie: s = b = 1 + 2^-12,
// a = -(1 + 2^-11) gives 0 with two roundings, 2^-24 fused), the fourth after Csrw 17 =
// 0x40100010 (2.25 + 2^-18: bits 30, 20 and 4 set, which the others leave 0); then Csrw 19
// fails with IllegalInstr at its pc. Every byte of the four regions against xf::alu_reduce. A
// second start with a program that only reduces checks that start resets CSR 17 to 1.0.
TEST(RtlTile, ScaleAddCsr17LoopBack) {
  auto rng = kFile.rng();
  TileBench b;
  b.rx_idle = 0.2;
  constexpr uint32_t kN = 512, kA = 0x1000, kB = 0x8000, kStride = 0x400;
  const uint32_t scales[4] = {0x3F800000u, 0xBDCCCCCDu, 0x3F800800u, 0x40100010u};
  std::vector<std::vector<uint8_t>> want(4);
  std::vector<uint64_t> p = {LI(2, kN), LI(3, kChip)};
  const uint32_t d = desc(kTileId, 0, Opcode::kReduce, DType::kFp32, RedOp::kScaleAdd, 4);
  for (uint32_t r = 0; r < 4; ++r) {
    auto a = random_fp32_bytes(rng, kN);
    auto in = random_fp32_bytes(rng, kN);
    if (r == 2) {
      const uint32_t ta = 0xBF801000u, tb = 0x3F800800u;
      std::memcpy(&a[0], &ta, 4);
      std::memcpy(&in[0], &tb, 4);
    }
    b.load_dmem(kA + r * kStride, a);
    b.load_dmem(kB + r * kStride, in);
    AluCfg cfg;
    cfg.op = RedOp::kScaleAdd;
    cfg.scale = scales[r];
    alu_reduce(cfg, a.data(), in.data(), kN);
    want[r] = a;
    if (r > 0) {
      p.push_back(LI(10, scales[r]));
      p.push_back(I(Isa::kCsrw, 0, 10, 0, 0, 0, 17));
    }
    p.push_back(LI(1, kB + r * kStride));
    p.push_back(LI(4, kA + r * kStride));
    p.push_back(SEND(1, 2, 3, 4, d));
    p.push_back(LI(5, (r + 1) * kN / 16));
    p.push_back(WAIT(5, 0, 4));
  }
  const uint32_t bad_pc = static_cast<uint32_t>(p.size());
  p.push_back(I(Isa::kCsrw, 0, 10, 0, 0, 0, 19));
  p.push_back(END());
  b.load_imem(p);
  b.start();
  ASSERT_TRUE(b.run_to_halt());
  b.settle();
  EXPECT_EQ(b.dut().stat_err_o, static_cast<int>(TileErr::kIllegalInstr));
  EXPECT_EQ(b.dut().stat_pc_o, bad_pc);
  for (uint32_t r = 0; r < 4; ++r)
    EXPECT_EQ(b.read_dmem(kA + r * kStride, kN), want[r]) << "region " << r;
  uint32_t tie;
  const auto t = b.read_dmem(kA + 2 * kStride, 4);
  std::memcpy(&tie, t.data(), 4);
  EXPECT_EQ(tie, 0x00000000u) << "two roundings";

  // Start again (CSR 17 back to 1.0): ScaleAdd of region 1 onto region 0 is then a Sum.
  AluCfg sum;
  std::vector<uint8_t> w0 = want[0];
  alu_reduce(sum, w0.data(), want[1].data(), kN);
  b.load_imem({LI(1, kA + kStride), LI(2, kN), LI(3, kChip), LI(4, kA), SEND(1, 2, 3, 4, d),
               LI(5, kN / 16), WAIT(5, 0, 4), END()});
  b.start();
  ASSERT_TRUE(b.run_to_halt());
  b.settle();
  EXPECT_EQ(b.dut().stat_err_o, 0);
  EXPECT_EQ(b.read_dmem(kA, kN), w0) << "after a start, CSR 17 is 1.0";
}

// Every receive-side error: the first error is kept, the sequencer stops, the engines go on.
TEST(RtlTile, ReceiveErrors) {
  struct Case {
    std::string name;
    std::function<std::vector<Flit>()> pkt;
    TileErr err;
  };
  auto pkt = [](const Hdr& h, size_t payload_flits) {
    std::vector<Flit> v = make_packet(h, std::vector<uint8_t>(16 * payload_flits, 0x55));
    if (payload_flits == 0) v[0].tail = true;
    return v;
  };
  const std::vector<Case> cases = {
      {"opcode ReduceSend", [&] { return pkt(rx_hdr(2, 32, 0x100), 2); }, TileErr::kBadPacket},
      {"opcode Xreq", [&] { return pkt(rx_hdr(3, 0, 0), 0); }, TileErr::kBadPacket},
      {"opcode 15", [&] { return pkt(rx_hdr(15, 16, 0x100), 1); }, TileErr::kBadPacket},
      {"len % 16", [&] { return pkt(rx_hdr(0, 24, 0x100), 2); }, TileErr::kBadPacket},
      {"dst % 16", [&] { return pkt(rx_hdr(0, 32, 0x108), 2); }, TileErr::kBadPacket},
      {"len > 2048", [&] { return pkt(rx_hdr(0, 2064, 0x100), 129); }, TileErr::kBadPacket},
      {"avg on fp32", [&] { return pkt(rx_hdr(1, 32, 0x100, 6, 3), 2); }, TileErr::kBadPacket},
      {"dtype 7", [&] { return pkt(rx_hdr(1, 32, 0x100, 7, 0), 2); }, TileErr::kBadPacket},
      {"scale_add int32", [&] { return pkt(rx_hdr(1, 32, 0x100, 3, 4), 2); }, TileErr::kBadPacket},
      {"scale_add fp16", [&] { return pkt(rx_hdr(1, 32, 0x100, 4, 4), 2); }, TileErr::kBadPacket},
      {"bad pair + range", [&] { return pkt(rx_hdr(1, 32, 0xFFFFF0, 6, 3), 2); },
       TileErr::kBadPacket},
      {"range", [&] { return pkt(rx_hdr(0, 32, kDmemBytes - 16), 2); }, TileErr::kDmemRange},
      {"range token", [&] { return pkt(rx_hdr(0, 0, kDmemBytes), 0); }, TileErr::kNone},
      {"range 24-bit", [&] { return pkt(rx_hdr(1, 2048, 0xFFF800), 128); }, TileErr::kDmemRange},
      {"payload without header",
       [&] {
         Flit f;
         f.tail = true;
         return std::vector<Flit>{f};
       },
       TileErr::kBadPacket},
  };
  for (const auto& c : cases) {
    TileBench b;
    b.load_dmem(0x100, std::vector<uint8_t>(64, 0x11));
    // Program: spin at pc 2 (a loop) so the error's stop is visible.
    b.load_imem({NOP(), NOP(), I(Isa::kJmp, 0, 0, 0, 0, 0, 2)});
    b.start();
    b.run(10);
    b.inject(c.pkt());
    Hdr good = rx_hdr(0, 16, 0x200);
    good.ctr = 4;
    b.inject(make_packet(good, std::vector<uint8_t>(16, 0x77)));  // still consumed afterwards
    b.settle();
    EXPECT_EQ(b.dut().stat_err_o, static_cast<int>(c.err)) << c.name;
    EXPECT_EQ(b.dut().stat_running_o, c.err == TileErr::kNone ? 1 : 0) << c.name;
    EXPECT_EQ(b.read_dmem(0x100, 64), std::vector<uint8_t>(64, 0x11)) << c.name;
    EXPECT_EQ(b.host_read(reg::kTileCounters + 12), c.err == TileErr::kNone ? 1u : 0u) << c.name;
    EXPECT_EQ(b.host_read(reg::kTileCounters + 16), 1u) << c.name;  // the good packet
    EXPECT_EQ(b.read_dmem(0x200, 16), std::vector<uint8_t>(16, 0x77)) << c.name;
  }
}

// Every bit of the host-visible counters and registers: TileWatchdog written and read back with
// each bit alone and all of them (the response register carries every bit), and TileErrCount
// past the low bits (7 dropped packets; the mutation survivors tile #9 and #18 of
// docs/mutation.md section 4 change bit 28 of the response and bit 2 of the count).
TEST(RtlTile, TileRegistersHoldEveryBit) {
  TileBench b;
  for (int k = -1; k <= 32; ++k) {
    const uint32_t v = k < 0 ? 0u : k == 32 ? 0xFFFFFFFFu : 1u << k;
    b.host_write(reg::kTileWatchdog, v);
    EXPECT_EQ(b.host_read(reg::kTileWatchdog), v) << "bit " << k;
  }
  b.host_write(reg::kTileWatchdog, 0);
  b.load_imem({I(Isa::kJmp, 0, 0, 0, 0, 0, 0)});
  b.start();
  for (uint32_t n = 1; n <= 7; ++n) {
    b.inject(make_packet(rx_hdr(15, 16, 0x100), std::vector<uint8_t>(16, 0x55)));  // bad opcode
    b.settle();
    EXPECT_EQ(b.host_read(reg::kTileErrCount), n);
  }
}

// An error of the receive engine in cycle t stops the sequencer from t+1: the instruction of t
// still executes (rtl/xf_tile.sv "Cycle order"; the model's Tile::tick decides on the cycle's
// starting state), so no combinational path runs from the exchange into the sequencer.
TEST(RtlTile, EngineErrorStopsSequencerNextCycle) {
  TileBench b;
  std::vector<uint64_t> p(64, NOP());
  p.push_back(I(Isa::kJmp, 0, 0, 0, 0, 0, 64));
  b.load_imem(p);
  b.start();
  b.run(5);
  b.inject(make_packet(rx_hdr(15, 16, 0x100), std::vector<uint8_t>(16, 0x55)));  // bad opcode
  std::map<uint64_t, uint32_t> pc_at;  // stat_pc_o (the pc register) in each cycle
  while (b.rx_taken.empty()) {
    ASSERT_LT(b.cycle(), 200u) << "the packet was never taken";
    pc_at[b.cycle()] = b.dut().stat_pc_o;
    b.step();
  }
  const uint64_t t = b.rx_taken.front().first;  // the head: checked and failed in t
  ASSERT_EQ(pc_at.count(t), 1u);
  ASSERT_LT(pc_at[t], 63u) << "the error must come while the Nops run";
  b.settle();
  EXPECT_EQ(b.dut().stat_err_o, static_cast<int>(TileErr::kBadPacket));
  EXPECT_EQ(b.dut().stat_running_o, 0);
  EXPECT_EQ(b.dut().stat_pc_o, pc_at[t] + 1) << "the Nop of the error's cycle retires";
}

// A packet from another sender: `flits` payload flits of byte `fill`, the tail on payload flit
// `tail_at` (-1: the last; -2: none; on the header when there is no payload).
std::vector<Flit> rx_packet(const Hdr& h, int flits, uint8_t fill, int tail_at = -1) {
  std::vector<Flit> v;
  v.push_back(pack(h, flits == 0 && tail_at != -2));
  for (int i = 0; i < flits; ++i) {
    Flit f;
    f.w.fill(0x01010101u * fill);
    f.tail = tail_at == -1 ? i + 1 == flits : i == tail_at;
    v.push_back(f);
  }
  return v;
}

// Every receive check: TileStatus, TileErrInfo (ErrCheck, source chip and tile), TileErrCount,
// counter 3, and the whole DMEM against a mirror in which only each case's own bytes changed
// (the cases use disjoint addresses, so a stray write names its case by address). The same
// cases as ModelBlocks.EveryReceiveCheckIsRecordedCountedAndWritesOnlyInsideItsPacket.
TEST(RtlTile, ErrInfoCountAndDmemForEveryCheck) {
  TileBench b;
  std::vector<uint8_t> mirror(kDmemBytes, 0);
  // A pattern around every address a case aims at (the rest of DMEM is zero after reset).
  for (uint32_t lo : {0x0u, kDmemBytes - 0x100}) {
    std::vector<uint8_t> pat(0x800);
    if (lo != 0) pat.resize(0x100);
    for (uint32_t i = 0; i < pat.size(); ++i) pat[i] = mirror[lo + i] = uint8_t((lo + i) * 7 + 1);
    b.load_dmem(lo, pat);
  }
  ASSERT_EQ(b.read_dmem(0, kDmemBytes), mirror) << "DMEM before the cases";
  auto hdr = [](uint32_t opc, uint32_t addr, uint32_t len, uint32_t sc, uint32_t st,
                uint32_t dt = 6, uint32_t op = 0) {
    Hdr h = rx_hdr(opc, len, addr, dt, op);
    h.src_chip = sc;
    h.src_tile = st;
    return h;
  };
  struct Case {
    std::string name;
    std::vector<Flit> flits;
    TileErr err;
    ErrCheck check;
    uint32_t src_chip, src_tile, dropped, wr_lo, wr_hi, counter3;
    uint8_t wr_byte;
  };
  std::vector<Case> cases;
  auto add = [&](std::string name, std::vector<Flit> f, TileErr e, ErrCheck c, uint32_t sc,
                 uint32_t st, uint32_t dropped = 1, uint32_t lo = 0, uint32_t hi = 0,
                 uint32_t ctr = 0, uint8_t byte = 0) {
    cases.push_back({std::move(name), std::move(f), e, c, sc, st, dropped, lo, hi, ctr, byte});
  };
  const TileErr kBad = TileErr::kBadPacket;
  add("opcode 13", rx_packet(hdr(13, 0x100, 32, 1, 1), 2, 0xA1), kBad, ErrCheck::kOpcode, 1, 1);
  add("opcode Xreq token", rx_packet(hdr(3, 0, 0, 2, 3), 0, 0), kBad, ErrCheck::kOpcode, 2, 3);
  add("len % 16", rx_packet(hdr(0, 0x100, 24, 3, 5), 2, 0xA2), kBad, ErrCheck::kLength, 3, 5);
  add("dst % 16", rx_packet(hdr(0, 0x108, 32, 4, 7), 2, 0xA3), kBad, ErrCheck::kWindow, 4, 7);
  add("len > 2048", rx_packet(hdr(0, 0x100, 2064, 4095, 15), 129, 0xA4), kBad, ErrCheck::kLength,
      4095, 15);
  add("avg on fp32", rx_packet(hdr(1, 0x100, 32, 6, 0, 6, 3), 2, 0xA5), kBad, ErrCheck::kPair, 6,
      0);
  add("window", rx_packet(hdr(0, kDmemBytes - 16, 32, 7, 2), 2, 0xA6), TileErr::kDmemRange,
      ErrCheck::kWindow, 7, 2);
  add("window 24-bit", rx_packet(hdr(1, 0xFFF800, 2048, 8, 2, 3), 128, 0xA7), TileErr::kDmemRange,
      ErrCheck::kWindow, 8, 2);
  add("short: tail at flit 1 of 4", rx_packet(hdr(0, 0x200, 64, 9, 4), 2, 0xA8), kBad,
      ErrCheck::kShort, 9, 4, 1, 0x200, 0x220, 0, 0xA8);
  add("short: header with tail, len 32", rx_packet(hdr(0, 0x300, 32, 10, 4), 0, 0), kBad,
      ErrCheck::kShort, 10, 4);
  add("short: header with tail, every source bit", rx_packet(hdr(0, 0x310, 16, 4095, 15), 0, 0),
      kBad, ErrCheck::kShort, 4095, 15);
  {
    auto f = rx_packet(hdr(0, 0x400, 64, 11, 6), 2, 0xA9, -2);  // no tail, then a good token
    const auto tok = rx_packet(hdr(0, 0, 0, 1, 1), 0, 0);
    f.insert(f.end(), tok.begin(), tok.end());
    add("short: cut off by the next header", f, kBad, ErrCheck::kShort, 11, 6, 1, 0x400, 0x420, 1,
        0xA9);
  }
  add("long: 4 flits for len 32", rx_packet(hdr(0, 0x500, 32, 12, 8), 4, 0xAA), kBad,
      ErrCheck::kLong, 12, 8, 1, 0x500, 0x520, 0, 0xAA);
  add("long reduce", rx_packet(hdr(1, kDmemBytes - 32, 32, 13, 9, 0, 1), 3, 0x7F), kBad,
      ErrCheck::kLong, 13, 9, 1, kDmemBytes - 32, kDmemBytes, 0, 0x7F);  // int8 max with 127
  {
    Flit p;
    p.w.fill(0xABABABABu);
    Flit t = p;
    t.tail = true;
    add("headless", {p, p, t}, kBad, ErrCheck::kHeadless, 0, 0);
  }
  {
    auto f = rx_packet(hdr(0, 0x600, 64, 14, 1), 1, 0xAC, -2);  // cut off by a bad header
    const auto bad = rx_packet(hdr(0, kDmemBytes, 16, 15, 2), 1, 0xAD);
    f.insert(f.end(), bad.begin(), bad.end());
    add("short and window in one cycle", f, kBad, ErrCheck::kShort, 14, 1, 2, 0x600, 0x610, 0,
        0xAC);
  }
  {
    auto f = rx_packet(hdr(7, 0x100, 16, 16, 3), 1, 0xAE);
    const auto bad = rx_packet(hdr(0, 0x108, 16, 17, 4), 1, 0xAF);
    f.insert(f.end(), bad.begin(), bad.end());
    add("first error kept, both counted", f, kBad, ErrCheck::kOpcode, 16, 3, 2);
  }
  add("token at the end of memory", rx_packet(hdr(0, kDmemBytes, 0, 1, 1), 0, 0), TileErr::kNone,
      ErrCheck::kNone, 0, 0, 0, 0, 0, 1);
  add("good packet", rx_packet(hdr(0, 0x700, 32, 1, 1), 2, 0xB0), TileErr::kNone, ErrCheck::kNone,
      0, 0, 0, 0x700, 0x720, 2, 0xB0);

  for (const Case& c : cases) {
    b.clear();  // Control bit 1: error, detail, count and counters back to 0
    EXPECT_EQ(b.host_read(reg::kTileErrInfo), 0u);
    EXPECT_EQ(b.host_read(reg::kTileErrCount), 0u);
    b.inject(c.flits);
    b.settle();
    const uint32_t info = b.host_read(reg::kTileErrInfo);
    EXPECT_EQ(b.host_read(reg::kTileStatus) & 15u, static_cast<uint32_t>(c.err)) << c.name;
    EXPECT_EQ(info & 15u, static_cast<uint32_t>(c.check)) << c.name;
    EXPECT_EQ((info >> 12) & 0xFFFu, c.src_chip) << c.name;
    EXPECT_EQ((info >> 24) & 0xFu, c.src_tile) << c.name;
    EXPECT_EQ(info & 0xF0000FF0u, 0u) << c.name;
    EXPECT_EQ(b.host_read(reg::kTileErrCount), c.dropped) << c.name;
    EXPECT_EQ(b.host_read(reg::kTileCounters + 12), c.counter3) << c.name;
    for (uint32_t a = c.wr_lo; a < c.wr_hi; ++a) mirror[a] = c.wr_byte;
    if (c.wr_hi > c.wr_lo) {
      EXPECT_EQ(b.read_dmem(c.wr_lo & ~0xFFu, 0x100),
                std::vector<uint8_t>(mirror.begin() + (c.wr_lo & ~0xFFu),
                                     mirror.begin() + (c.wr_lo & ~0xFFu) + 0x100))
          << c.name;
    }
  }
  const auto after = b.read_dmem(0, kDmemBytes);
  for (uint32_t a = 0; a < kDmemBytes; ++a)
    ASSERT_EQ(after[a], mirror[a]) << "DMEM byte 0x" << std::hex << a << " changed";
}

// ALU subset build (AluDtypes = 8'h08, int32 only): a Reduce of a dtype the ALU leaves out is
// an invalid pair on both sides. Received: dropped with BadPacket / ErrCheck Pair, counted once,
// no counter increment, nothing written (the same as "avg on fp32", an invalid pair, on the same
// tile); int32 Reduce and Write packets are applied. Sent: IllegalInstr at the Send's pc, as
// for an invalid pair; an int32 Reduce is queued and sent.
TEST(RtlTile, AluSubsetTreatsUnbuiltDtypesAsInvalidPairs) {
  auto rng = kFile.rng();
  // One bench at a time: Verilator 5.006 destroys a model's scopes through the thread's last
  // context, so a bench must not outlive one built after it.
  {
    TileBenchT<Vxf_tile_d08> b;
    const std::vector<uint8_t> pat = random_bytes(rng, 0x800);
    b.load_dmem(0, pat);
    std::vector<uint8_t> mirror = pat;
    auto hdr = [](uint32_t opc, uint32_t addr, uint32_t len, DType dt, RedOp op) {
      Hdr h = rx_hdr(opc, len, addr, static_cast<uint32_t>(dt), static_cast<uint32_t>(op));
      h.src_chip = 21;
      h.src_tile = 6;
      return h;
    };
    struct Case {
      std::string name;
      Hdr h;
      bool dropped;
    };
    const std::vector<Case> cases = {
        {"int8 sum (not built)", hdr(1, 0x100, 64, DType::kInt8, RedOp::kSum), true},
        {"uint8 avg (not built)", hdr(1, 0x140, 32, DType::kUint8, RedOp::kAvg), true},
        {"int16 max (not built)", hdr(1, 0x180, 32, DType::kInt16, RedOp::kMax), true},
        {"fp16 sum (not built)", hdr(1, 0x1C0, 32, DType::kFp16, RedOp::kSum), true},
        {"bf16 min (not built)", hdr(1, 0x200, 32, DType::kBf16, RedOp::kMin), true},
        {"fp32 sum (not built)", hdr(1, 0x240, 128, DType::kFp32, RedOp::kSum), true},
        {"fp32 sum token (not built)", hdr(1, 0x300, 0, DType::kFp32, RedOp::kSum), true},
        {"avg on fp32 (invalid pair)", hdr(1, 0x340, 32, DType::kFp32, RedOp::kAvg), true},
        {"int32 sum (built)", hdr(1, 0x400, 64, DType::kInt32, RedOp::kSum), false},
        {"int32 avg (built)", hdr(1, 0x440, 32, DType::kInt32, RedOp::kAvg), false},
        {"int32 token (built)", hdr(1, 0x480, 0, DType::kInt32, RedOp::kMax), false},
        {"write", hdr(0, 0x500, 48, DType::kFp16, RedOp::kAvg), false},
    };
    for (const Case& c : cases) {
      b.clear();
      const std::vector<uint8_t> payload = random_bytes(rng, c.h.len);
      b.inject(make_packet(c.h, payload));
      b.settle();
      const uint32_t status = b.host_read(reg::kTileStatus);
      const uint32_t info = b.host_read(reg::kTileErrInfo);
      if (c.dropped) {
        EXPECT_EQ(status & 15u, static_cast<uint32_t>(TileErr::kBadPacket)) << c.name;
        EXPECT_EQ(info, static_cast<uint32_t>(ErrCheck::kPair) | 21u << 12 | 6u << 24) << c.name;
        EXPECT_EQ(b.host_read(reg::kTileErrCount), 1u) << c.name;
        EXPECT_EQ(b.host_read(reg::kTileCounters + 12), 0u) << c.name;
      } else {
        EXPECT_EQ(status & 15u, 0u) << c.name;
        EXPECT_EQ(info, 0u) << c.name;
        EXPECT_EQ(b.host_read(reg::kTileErrCount), 0u) << c.name;
        EXPECT_EQ(b.host_read(reg::kTileCounters + 12), c.h.len ? c.h.len / 16 : 1u) << c.name;
        uint8_t* local = &mirror[c.h.dst_addr];
        if (c.h.opcode == 0) {
          std::memcpy(local, payload.data(), payload.size());
        } else {
          AluCfg cfg;
          cfg.dtype = static_cast<DType>(c.h.dtype);
          cfg.op = static_cast<RedOp>(c.h.op);
          cfg.avg_scale = 0x80000000u;
          alu_reduce(cfg, local, payload.data(), payload.size());
        }
      }
      EXPECT_EQ(b.read_dmem(0, 0x800), mirror) << c.name << ": DMEM";
    }
  }

  // Send: a Reduce with Sum and with Avg of every dtype code 0..7, to chip 7 (routed to link 1):
  // only int32 (Sum and Avg) is sent; every other one fails as an invalid pair does.
  const std::vector<uint64_t> pro = {LI(1, 0x100), LI(2, 32), LI(3, 7), LI(4, 0x40)};
  for (unsigned t = 0; t < 8; ++t) {
    for (RedOp op : {RedOp::kSum, RedOp::kAvg}) {
      const DType dt = static_cast<DType>(t);
      TileBenchT<Vxf_tile_d08> s;
      s.route[7] = 1;
      std::vector<uint64_t> p = pro;
      p.push_back(SEND(1, 2, 3, 4, desc(0, 0, Opcode::kReduce, dt, op)));
      p.push_back(END());
      s.load_imem(p);
      s.start();
      s.run(300);
      const bool ok = dt == DType::kInt32;  // the only dtype built; Avg is a valid int32 pair
      const std::string name = "send reduce dtype " + std::to_string(t) + " op " +
                               std::to_string(static_cast<unsigned>(op));
      if (ok) {
        EXPECT_EQ(s.dut().stat_err_o, 0) << name;
        EXPECT_EQ(s.dut().stat_done_o, 1) << name;
        ASSERT_EQ(link_headers(s, 1).size(), 1u) << name;
        EXPECT_EQ(link_headers(s, 1)[0].dtype, t) << name;
      } else {
        EXPECT_EQ(s.dut().stat_err_o, static_cast<int>(TileErr::kIllegalInstr)) << name;
        EXPECT_EQ(s.dut().stat_pc_o, pro.size()) << name << ": the Send keeps its pc";
        EXPECT_EQ(s.dut().stat_done_o, 0) << name;
        EXPECT_TRUE(s.tx.empty()) << name << ": nothing sent";
      }
    }
  }
}

// The watchdog for each WaitKind (docs/errors.md section 5): it fires in the P-th consecutive
// cycle in which the tile stalls on a wait with nothing progressing (the engines' progress seen
// one cycle later, from a register); the same numbers as
// ModelBlocks.WatchdogNamesEveryWaitKindWithThePeriodRuleOfTheRtl.
TEST(RtlTile, WatchdogEveryWaitKind) {
  const uint32_t kWd = static_cast<uint32_t>(TileErr::kWatchdog);
  auto start = [](TileBench& b, const std::vector<uint64_t>& prog, uint32_t period) {
    b.load_imem(prog);
    b.host_write(reg::kTileWatchdog, period);
    b.start();
  };
  // Cycles the tile runs after start (-1: still running after `limit`).
  auto ran = [](TileBench& b, int limit, const std::function<void()>& each = nullptr) {
    for (int k = 1; k <= limit; ++k) {
      if (each) each();
      b.step();
      if (!b.dut().stat_running_o) return k;
    }
    return -1;
  };
  // Counter: Wait at pc 2 on counter (3 + r2) % 32 = 7, then 24 (ErrInfo bits 8:4 both ways):
  // 3 + P cycles (the start's bubble, two Li, P stalled Waits).
  const std::vector<uint64_t> wait7 = {LI(1, 5), LI(2, 4), WAIT(1, 2, 3)};
  for (const auto& [p, ctr] : {std::pair{1u, 7u}, std::pair{37u, 24u}}) {
    TileBench b;
    start(b, {LI(1, 5), LI(2, ctr - 3), WAIT(1, 2, 3)}, p);
    EXPECT_EQ(ran(b, 1000), static_cast<int>(3 + p)) << "period " << p;
    EXPECT_EQ(b.host_read(reg::kTileStatus), kWd | 2u << 16);
    EXPECT_EQ(b.host_read(reg::kTileErrInfo), static_cast<uint32_t>(WaitKind::kCounter) | ctr << 4);
    EXPECT_EQ(b.host_read(reg::kTileErrCount), 0u);
    // Control bit 1 clears the error and its detail, not the period.
    b.clear();
    EXPECT_EQ(b.host_read(reg::kTileStatus), 0u);
    EXPECT_EQ(b.host_read(reg::kTileErrInfo), 0u);
    EXPECT_EQ(b.host_read(reg::kTileWatchdog), p);
  }
  {  // Period 0: never.
    TileBench b;
    start(b, wait7, 0);
    EXPECT_EQ(ran(b, 3000), -1);
    EXPECT_EQ(b.dut().stat_err_o, 0);
  }
  {  // Progress keeps it silent: a token on counter 9 every 15 cycles, P = 20; then it fires
     // 5 + 1 + P cycles after the last token is taken (its increment, in t + 5, is the last
     // progress, seen in t + 6).
    TileBench b;
    start(b, wait7, 20);
    Hdr h;
    h.dst_chip = kChip;
    h.dst_tile = kTileId;
    h.ctr = 9;
    int k = 0;
    const int r = ran(b, 2000, [&] {
      if (++k % 15 == 0 && k <= 300) b.inject({pack(h, true)});
    });
    ASSERT_GT(r, 300);
    ASSERT_EQ(b.rx_taken.size(), 20u);
    EXPECT_EQ(b.cycle() - 1 - b.rx_taken.back().first, 5u + 1u + 20u);
    EXPECT_EQ(b.host_read(reg::kTileCounters + 4 * 9), 20u);
    EXPECT_EQ(b.host_read(reg::kTileErrInfo), static_cast<uint32_t>(WaitKind::kCounter) | 7u << 4);
  }
  // Sends and SendQueue: 4096-byte jobs to chip 7 (link 1); a stray XOFF after 20 data flits
  // freezes the session. Emitting is progress (seen in the next cycle); it fires P + 1 cycles
  // after the last decision.
  auto frozen = [&](std::vector<uint64_t> prog, uint32_t p, WaitKind kind, uint32_t pc) {
    TileBench b;
    b.route[7] = 1;
    const std::vector<uint64_t> pro = {LI(1, 0), LI(2, 4096), LI(3, 7), LI(4, 0)};
    prog.insert(prog.begin(), pro.begin(), pro.end());
    start(b, prog, p);
    bool xoff = false;
    const int r = ran(b, 3000, [&] {
      size_t data = 0;
      for (const auto& t : b.tx) data += t.ctrl == 0;
      if (!xoff && data >= 20) {
        b.stray_msg(b.cycle(), 1, 2);
        xoff = true;
      }
    });
    ASSERT_GT(r, 0) << to_string(kind);
    const uint64_t last_decision = b.tx.back().cycle - 1;
    EXPECT_EQ(b.cycle() - 1 - last_decision, p + 1) << to_string(kind);
    EXPECT_EQ(b.host_read(reg::kTileStatus), kWd | pc << 16) << to_string(kind);
    EXPECT_EQ(b.host_read(reg::kTileErrInfo), static_cast<uint32_t>(kind)) << to_string(kind);
  };
  const uint64_t send = SEND(1, 2, 3, 4, desc(0, 0, Opcode::kWrite));
  frozen({send, send, send, send, send, END()}, 30, WaitKind::kSendQueue, 8);
  frozen({send, I(Isa::kWaits), END()}, 25, WaitKind::kSends, 5);
  frozen({send, END()}, 40, WaitKind::kSends, 5);
  {  // Barrier: Bar at pc 0 from the second cycle (after the start's bubble), never released.
    TileBench b;
    start(b, {I(Isa::kBar)}, 10);
    EXPECT_EQ(ran(b, 1000), 11);
    EXPECT_EQ(b.host_read(reg::kTileStatus), kWd);
    EXPECT_EQ(b.host_read(reg::kTileErrInfo), static_cast<uint32_t>(WaitKind::kBarrier));
    EXPECT_EQ(b.dut().bar_wait_o, 0);
  }
}

// Sequencer and send-engine errors, each with its pc, and the first-error rule.
TEST(RtlTile, SequencerErrors) {
  struct Case {
    std::string name;
    std::vector<uint64_t> prog;  // after the common prologue
    TileErr err;
  };
  // Prologue: r1 = 0x100 (aligned address), r2 = 32 (bytes), r3 = 7 (a chip routed to link 1),
  // r4 = 0x40, r5 = 4063 (no such chip with 4063 chips), r6 = 8 (unrouted chip), r7 = kChip.
  const std::vector<uint64_t> pro = {
      LI(1, 0x100),    LI(2, 32),    LI(3, 7), LI(4, 0x40),  LI(5, 4063),
      LI(6, 8),        LI(7, kChip), LI(8, 9), LI(9, 0x104), LI(10, kDmemBytes - 16),
      LI(11, 0xFFFFF0)};
  const uint32_t w = desc(0, 0, Opcode::kWrite);
  const std::vector<Case> cases = {
      {"illegal 19", {I(Isa::kFwd)}, TileErr::kIllegalInstr},
      {"illegal 200", {I(static_cast<Isa>(200))}, TileErr::kIllegalInstr},
      {"geti 4", {I(Isa::kGeti, 1, 0, 0, 0, 0, 4)}, TileErr::kIllegalInstr},
      {"csrw 0", {I(Isa::kCsrw, 0, 1, 0, 0, 0, 0)}, TileErr::kIllegalInstr},
      {"csrw 15", {I(Isa::kCsrw, 0, 1, 0, 0, 0, 15)}, TileErr::kIllegalInstr},
      {"csrw 19", {I(Isa::kCsrw, 0, 1, 0, 0, 0, 19)}, TileErr::kIllegalInstr},
      {"send scale_add bf16",
       {SEND(1, 2, 3, 4, desc(0, 0, Opcode::kReduce, DType::kBf16, RedOp::kScaleAdd))},
       TileErr::kIllegalInstr},
      {"send popc 2", {SEND(1, 2, 3, 4, desc(0, 0, Opcode::kReduceSend))}, TileErr::kIllegalInstr},
      {"send bad pair",
       {SEND(1, 2, 3, 4, desc(0, 0, Opcode::kReduce, DType::kFp16, RedOp::kAvg))},
       TileErr::kIllegalInstr},
      {"send unaligned src", {SEND(9, 2, 3, 4, w)}, TileErr::kDmemRange},
      {"send unaligned bytes", {LI(2, 40), SEND(1, 2, 3, 4, w)}, TileErr::kDmemRange},
      {"send unaligned dst", {SEND(1, 2, 3, 9, w)}, TileErr::kDmemRange},
      {"send unaligned dst 0xB", {LI(13, 0x10B), SEND(1, 2, 3, 13, w)}, TileErr::kDmemRange},
      {"send beyond dmem", {SEND(10, 2, 3, 4, w)}, TileErr::kDmemRange},
      {"send beyond 2^24", {SEND(1, 2, 3, 11, w)}, TileErr::kDmemRange},
      {"dmem before popc", {SEND(9, 2, 3, 4, desc(0, 0, Opcode::kXon))}, TileErr::kDmemRange},
      {"popc before chip", {SEND(1, 2, 5, 4, desc(0, 0, Opcode::kXon))}, TileErr::kIllegalInstr},
      {"send no chip", {SEND(1, 2, 5, 4, w)}, TileErr::kBadPacket},
      {"send chip 2^32-1", {LI(13, 0xFFFFFFFFu), SEND(1, 2, 13, 4, w)}, TileErr::kBadPacket},
      {"no route 0xFF", {SEND(1, 2, 6, 4, w), NOP(), NOP(), NOP()}, TileErr::kBadPacket},
      {"route >= ports", {SEND(1, 2, 8, 4, w), NOP(), NOP(), NOP()}, TileErr::kBadPacket},
      {"local tile >= tiles",
       {SEND(1, 2, 7, 4, desc(5, 0, Opcode::kWrite)), NOP(), NOP(), NOP()},
       TileErr::kBadPacket},
      {"lw range", {LI(12, kPmemWords), I(Isa::kLw, 13, 12)}, TileErr::kPmemRange},
      {"pc range", {I(Isa::kJmp, 0, 0, 0, 0, 0, kImemWords - 1)}, TileErr::kPcRange},
      {"pc range jump", {I(Isa::kJmp, 0, 0, 0, 0, 0, 0x10000)}, TileErr::kPcRange},
      {"pc range jump 2^32-1", {I(Isa::kJmp, 0, 0, 0, 0, 0, 0xFFFFFFFFu)}, TileErr::kPcRange},
  };
  for (const auto& c : cases) {
    TileBench b;
    b.num_chips = 4063;  // 0xFDF
    b.route[7] = 1;
    b.route[9] = 4;  // == num_ports: no route
    std::vector<uint64_t> p = pro;
    p.insert(p.end(), c.prog.begin(), c.prog.end());
    p.push_back(I(Isa::kJmp, 0, 0, 0, 0, 0, static_cast<uint32_t>(p.size())));  // spin
    b.load_imem(p);
    b.host_write(reg::kTileImem + 8 * (kImemWords - 1), static_cast<uint32_t>(NOP()));
    b.host_write(reg::kTileImem + 8 * (kImemWords - 1) + 4, static_cast<uint32_t>(NOP() >> 32));
    b.start();
    b.run(300);
    EXPECT_EQ(b.dut().stat_err_o, static_cast<int>(c.err)) << c.name;
    EXPECT_EQ(b.dut().stat_running_o, 0) << c.name;
    EXPECT_EQ(b.dut().stat_done_o, 0) << c.name;
    // The failing instruction keeps its pc (the spin loop is never reached).
    const uint32_t pc = b.dut().stat_pc_o;
    if (c.name == "pc range") {
      EXPECT_EQ(pc, kImemWords) << c.name;
    } else if (c.name == "pc range jump") {
      EXPECT_EQ(pc, 0u) << c.name;  // 0x10000: stat_pc_o shows bits 15:0
    } else if (c.name == "pc range jump 2^32-1") {
      EXPECT_EQ(pc, 0xFFFFu) << c.name;
    } else if (c.err != TileErr::kBadPacket || c.name.rfind("send", 0) == 0) {
      EXPECT_EQ(pc, pro.size() + c.prog.size() - 1) << c.name;
    }
    EXPECT_EQ(b.host_read(reg::kTileStatus) & 0xF, static_cast<uint32_t>(c.err)) << c.name;
  }
  // First error kept: a bad packet after an IllegalInstr leaves IllegalInstr; start clears it.
  TileBench b;
  b.load_imem({I(Isa::kFwd)});
  b.start();
  b.run(5);
  Hdr h;
  h.opcode = 9;
  h.dst_chip = kChip;
  h.dst_tile = kTileId;
  b.inject(make_packet(h, {}));
  b.settle();
  EXPECT_EQ(b.dut().stat_err_o, static_cast<int>(TileErr::kIllegalInstr));
  b.load_imem({END()});
  b.start();
  b.run_to_halt();
  EXPECT_EQ(b.dut().stat_err_o, 0);
  EXPECT_EQ(b.dut().stat_done_o, 1);
}

// Send's pair check (docs/isa.md, Send; xf::valid_pair): every (dtype, op) of the 3-bit fields'
// first 7 x 5 values as a Reduce to the tile itself. A valid pair is queued and its 64 bytes
// reduce into DMEM as xf::alu_reduce says (CSR 16 and 17 at their start values); an invalid
// one fails with IllegalInstr at the Send's pc and changes nothing.
TEST(RtlTile, SendReduceEveryPair) {
  auto rng = kFile.rng();
  TileBench b;
  constexpr uint32_t kN = 64, kSrc = 0x1000, kDst = 0x8000;
  for (uint32_t dt = 0; dt < kDTypeCount; ++dt) {
    for (uint32_t op = 0; op < kRedOpCount; ++op) {
      const auto t = static_cast<DType>(dt);
      const auto o = static_cast<RedOp>(op);
      const auto in = random_bytes(rng, kN);
      const auto local = random_bytes(rng, kN);
      b.load_dmem(kSrc, in);
      b.load_dmem(kDst, local);
      b.load_imem({LI(1, kSrc), LI(2, kN), LI(3, kChip), LI(4, kDst),
                   SEND(1, 2, 3, 4, desc(kTileId, 0, Opcode::kReduce, t, o, 4)), END()});
      b.start();
      ASSERT_TRUE(b.run_to_halt()) << "dtype " << dt << " op " << op;
      b.settle();
      std::vector<uint8_t> want = local;
      if (valid_pair(t, o)) {
        AluCfg cfg;
        cfg.dtype = t;
        cfg.op = o;
        alu_reduce(cfg, want.data(), in.data(), kN);
        EXPECT_EQ(b.dut().stat_err_o, 0) << "dtype " << dt << " op " << op;
        EXPECT_EQ(b.dut().stat_done_o, 1) << "dtype " << dt << " op " << op;
      } else {
        EXPECT_EQ(b.dut().stat_err_o, static_cast<int>(TileErr::kIllegalInstr))
            << "dtype " << dt << " op " << op;
        EXPECT_EQ(b.dut().stat_pc_o, 4u) << "dtype " << dt << " op " << op;
      }
      EXPECT_EQ(b.read_dmem(kDst, kN), want) << "dtype " << dt << " op " << op;
    }
  }
}

// Send's DmemRange bounds are decided on the 33-bit sums (docs/isa.md, Send): src_end = rs1 + rs2
// past DmemBytes and dst_end = r[rs4] + rs2 past 2^24 fail, by one grain or by 2^k bytes for every
// k up to 31, and with a carry out of 32 bits; each sum exactly at its bound is legal.
TEST(RtlTile, SendRangeEveryEndBit) {
  TileBench b;
  b.route[7] = 1;
  const uint32_t w = desc(0, 0, Opcode::kWrite);
  struct Case {
    uint32_t src, bytes, dst;
    bool ok;
  };
  std::vector<Case> cases = {{kDmemBytes - 16, 16, 0, true},
                             {0, 16, (1u << 24) - 16, true},
                             {0xFFFFFFF0u, 32, 0, false},
                             {0, 32, 0xFFFFFFF0u, false}};
  for (uint32_t k = 4; k < 32; ++k) {
    cases.push_back({kDmemBytes - 16 + (1u << k), 16, 0, false});
    cases.push_back({0, 16, (1u << 24) - 16 + (1u << k), false});
  }
  for (const auto& c : cases) {
    b.load_imem({LI(1, c.src), LI(2, c.bytes), LI(3, 7), LI(4, c.dst), SEND(1, 2, 3, 4, w), END()});
    b.start();
    ASSERT_TRUE(b.run_to_halt()) << std::hex << c.src << " " << c.dst;
    b.settle();
    EXPECT_EQ(b.dut().stat_err_o, c.ok ? 0 : static_cast<int>(TileErr::kDmemRange))
        << std::hex << "src 0x" << c.src << " bytes 0x" << c.bytes << " dst 0x" << c.dst;
    EXPECT_EQ(b.dut().stat_pc_o, c.ok ? 6u : 4u) << std::hex << c.src << " " << c.dst;
  }
}

// Hazard: a received payload flit into bytes a queued job has not read yet.
TEST(RtlTile, Hazard) {
  for (int variant = 0; variant < 3; ++variant) {
    TileBench b;
    b.route[7] = 1;
    // The job waits for its grant forever (the XB never grants: requests on link 1 only stall
    // when we withhold the grant, so route to a link and block the XB with stray XOFF instead).
    std::vector<uint64_t> p = {LI(1, 0x1000),
                               LI(2, 256),
                               LI(3, 7),
                               LI(4, 0),
                               SEND(1, 2, 3, 4, desc(0, 0, Opcode::kWrite)),
                               I(Isa::kJmp, 0, 0, 0, 0, 0, 5)};
    b.load_imem(p);
    b.start();
    // XOFF right after the grant so the job stays partly unread (first flits go out).
    b.run_until([&] { return !b.msgs.empty(); });
    b.stray_msg(b.cycle() + 2, 1, 2);
    b.run(20);
    const uint32_t sent = [&] {
      uint32_t n = 0;
      for (const auto& r : b.tx) n += r.ctrl == 0 && !r.f.head;
      return n;
    }();
    ASSERT_GT(sent, 0u);
    ASSERT_LT(sent, 16u);
    // Already-sent bytes: no hazard; unsent: hazard; outside: no hazard.
    const uint32_t addr = variant == 0   ? 0x1000 + 16 * (sent - 1)
                          : variant == 1 ? 0x1000 + 16 * sent
                                         : 0x1100;
    Hdr h;
    h.dst_chip = kChip;
    h.dst_tile = kTileId;
    h.dst_addr = addr;
    h.len = 16;
    b.inject(make_packet(h, std::vector<uint8_t>(16, 0xEE)));
    b.settle();
    EXPECT_EQ(b.dut().stat_err_o, variant == 1 ? static_cast<int>(TileErr::kHazard) : 0)
        << "variant " << variant;
    EXPECT_EQ(b.read_dmem(addr, 16), std::vector<uint8_t>(16, 0xEE));  // still applied
  }
}

// The hazard ranges of a full queue (docs/tile.md section 7): four 256-byte jobs to link 1 from
// 0x4000 (j + 1), held by an XOFF after the first flits. A received 16-byte Write into the first
// or the last grain a job has not read raises Hazard; one into the grain just before a job or
// just past its end does not. Once the queue has drained (the same jobs sent in full, Waits
// retired), no grain of any of them raises Hazard: only queued jobs are checked. The jobs'
// descriptors differ in every field (odd counters among them), and each header on the link
// carries its own job's, with its payload: a job keeps its fields while it waits in the queue.
TEST(RtlTile, HazardRangesOfEveryQueuedJob) {
  auto rng = kFile.rng();
  constexpr uint32_t kBytes = 256;
  auto job_src = [](uint32_t j) { return 0x4000 * (j + 1); };
  auto job_dst = [](uint32_t j) { return 0x10000u * (j + 1) + 0x30; };
  const DType dts[4] = {DType::kBf16, DType::kFp16, DType::kInt32, DType::kUint8};
  const RedOp ops[4] = {RedOp::kMin, RedOp::kMax, RedOp::kAvg, RedOp::kSum};
  auto job_desc = [&](uint32_t j) {
    return desc(9 + j, 0, Opcode::kWrite, dts[j], ops[j], 31 - 2 * j, j % 2 == 0, 15 - j, j != 1);
  };
  auto program = [&](bool drain) {
    std::vector<uint64_t> p = {LI(2, kBytes), LI(3, 7)};
    for (uint32_t j = 0; j < 4; ++j) {
      p.push_back(LI(1, job_src(j)));
      p.push_back(LI(4, job_dst(j)));
      p.push_back(SEND(1, 2, 3, 4, job_desc(j)));
    }
    if (drain) p.push_back(I(Isa::kWaits));
    p.push_back(I(Isa::kJmp, 0, 0, 0, 0, 0, static_cast<uint32_t>(p.size())));  // spin
    return p;
  };
  auto write16 = [](uint32_t addr) {
    Hdr h;
    h.dst_chip = kChip;
    h.dst_tile = kTileId;
    h.dst_addr = addr;
    h.len = 16;
    return make_packet(h, std::vector<uint8_t>(16, 0xEE));
  };
  for (uint32_t j = 0; j < 4; ++j) {
    // (address, Hazard expected); the front job's first unread grain moves, so job 0 is
    // checked at its end only.
    std::vector<std::pair<uint32_t, bool>> probes = {{job_src(j) + kBytes - 16, true},
                                                     {job_src(j) + kBytes, false}};
    if (j > 0) {
      probes.push_back({job_src(j), true});
      probes.push_back({job_src(j) - 16, false});
    }
    for (const auto& [addr, hazard] : probes) {
      TileBench b;
      b.route[7] = 1;
      b.load_imem(program(false));
      b.start();
      b.run_until([&] { return !b.msgs.empty(); });  // the GRANT
      b.stray_msg(b.cycle() + 2, 1, 2);              // XOFF
      b.run(20);
      ASSERT_EQ(b.dut().stat_err_o, 0);
      uint32_t sent = 0;  // job 0's payload flits out: it and the three behind it stay queued
      for (const auto& r : b.tx) sent += r.ctrl == 0 && !r.f.head;
      ASSERT_LT(sent, kBytes / 16);
      b.inject(write16(addr));
      b.settle();
      EXPECT_EQ(b.dut().stat_err_o, hazard ? static_cast<int>(TileErr::kHazard) : 0)
          << "job " << j << " addr 0x" << std::hex << addr;
      EXPECT_EQ(b.read_dmem(addr, 16), std::vector<uint8_t>(16, 0xEE));  // applied either way
    }
  }
  TileBench b;
  b.route[7] = 1;
  const auto data = random_bytes(rng, 4 * 0x4000);
  b.load_dmem(job_src(0), data);
  const auto p = program(true);
  b.load_imem(p);
  b.start();
  ASSERT_TRUE(b.run_until([&] { return b.dut().stat_pc_o == p.size() - 1; }, 10000));
  for (uint32_t j = 0; j < 4; ++j) {
    b.inject(write16(job_src(j)));
    b.inject(write16(job_src(j) + kBytes - 16));
  }
  b.settle();
  EXPECT_EQ(b.dut().stat_err_o, 0);
  EXPECT_EQ(b.dut().stat_running_o, 1);
  const auto pk = TileBench::packets(b.link_out[1]);
  ASSERT_EQ(pk.size(), 4u);
  for (uint32_t j = 0; j < 4; ++j) {
    const Hdr h = unpack(pk[j][0]);
    const SendDesc d = unpack_send_imm(job_desc(j));
    EXPECT_EQ(h.dst_chip, 7u) << "job " << j;
    EXPECT_EQ(h.dst_tile, d.tile) << "job " << j;
    EXPECT_EQ(h.dst_addr, job_dst(j)) << "job " << j;
    EXPECT_EQ(h.len, kBytes) << "job " << j;
    EXPECT_EQ(h.dtype, static_cast<uint32_t>(d.dtype)) << "job " << j;
    EXPECT_EQ(h.op, static_cast<uint32_t>(d.op)) << "job " << j;
    EXPECT_EQ(h.ctr, d.ctr) << "job " << j;
    EXPECT_EQ(h.sat, d.sat ? 1u : 0u) << "job " << j;
    EXPECT_EQ(h.avg_shift, d.avg_shift) << "job " << j;
    EXPECT_EQ(h.avg_final, d.avg_final ? 1u : 0u) << "job " << j;
    ASSERT_EQ(pk[j].size(), 1 + kBytes / 16) << "job " << j;
    std::vector<uint8_t> got;
    for (size_t k = 1; k < pk[j].size(); ++k) {
      const auto* w = reinterpret_cast<const uint8_t*>(pk[j][k].w.data());
      got.insert(got.end(), w, w + 16);
    }
    const auto at = data.begin() + (job_src(j) - job_src(0));
    EXPECT_EQ(got, std::vector<uint8_t>(at, at + kBytes)) << "job " << j;
  }
}

// Waits stalls while jobs are queued; Bar waits for bar_release_i and raises bar_wait_o.
TEST(RtlTile, WaitsAndBar) {
  TileBench b;
  b.route[7] = 1;
  std::vector<uint64_t> p = {LI(1, 0),
                             LI(2, 512),
                             LI(3, 7),
                             LI(4, 0),
                             SEND(1, 2, 3, 4, desc(0, 0, Opcode::kWrite)),
                             I(Isa::kWaits),
                             I(Isa::kGeti, 5, 0, 0, 0, 0, 3),
                             I(Isa::kBar),
                             I(Isa::kGeti, 6, 0, 0, 0, 0, 3),
                             LI(kR16, 16)};
  p.push_back(LI(kRExp, 1));
  p.push_back(I(Isa::kMul, kRObs, 5, kR16));
  p.push_back(SEND(0, 0, kRExp, kRObs, desc(0, 0, Opcode::kWrite)));
  p.push_back(I(Isa::kMul, kRObs, 6, kR16));
  p.push_back(SEND(0, 0, kRExp, kRObs, desc(0, 0, Opcode::kWrite)));
  p.push_back(END());
  b.route[1] = 2;
  b.load_imem(p);
  b.start();
  b.run_until([&] { return b.dut().bar_wait_o == 1; });
  const uint64_t bar_seen = b.cycle();
  // The job's last flit was decided before Waits retired.
  uint64_t last_data = 0;
  for (const auto& r : b.tx)
    if (r.ctrl == 0) last_data = r.cycle;
  // The last flit is decided (and the job popped) in last_data - 1; Waits sees the queue of the
  // start of a cycle, so it retires in last_data, Geti follows, Bar is executed from
  // last_data + 2.
  EXPECT_EQ(last_data + 2, bar_seen);
  b.run(30);
  EXPECT_EQ(b.dut().bar_wait_o, 1);
  EXPECT_EQ(b.dut().stat_pc_o, 7);
  const uint64_t rel = b.cycle() + 3;
  b.release_at(rel);
  ASSERT_TRUE(b.run_to_halt());
  b.settle();
  const auto hs = link_headers(b, 2);
  ASSERT_EQ(hs.size(), 2u);
  const uint32_t t_geti5 = hs[0].dst_addr / 16, t_geti6 = hs[1].dst_addr / 16;
  EXPECT_EQ(t_geti6 - t_geti5, rel - bar_seen + 2);
  EXPECT_EQ(b.dut().bar_wait_o, 0);
}

// Host access while the tile runs: DMEM reads take the send engine's port (the payload waits a
// cycle, data stays right), IMEM reads make the sequencer refetch, counters/status read live.
TEST(RtlTile, HostWhileRunning) {
  auto rng = kFile.rng();
  TileBench b;
  b.route[7] = 0;
  const auto data = random_bytes(rng, 8192);
  b.load_dmem(0, data);
  std::vector<uint64_t> p = {LI(1, 0), LI(2, 2048), LI(3, 7), LI(4, 0),
                             LI(5, 0), LI(6, 16),   LI(7, 0), LI(8, 64)};
  // Loop: send 8 x 2 KiB, count iterations in r7.
  const uint32_t loop = static_cast<uint32_t>(p.size());
  p.push_back(SEND(5, 2, 3, 4, desc(0, 0, Opcode::kWrite)));
  p.push_back(ADDI(7, 7, 1));
  p.push_back(I(Isa::kAdd, 5, 5, 2));
  p.push_back(LI(9, 8192));
  p.push_back(I(Isa::kBne, 0, 5, 9, 0, 0, loop + 6));
  p.push_back(LI(5, 0));
  p.push_back(I(Isa::kBlt, 0, 7, 6, 0, 0, loop));
  p.push_back(END());
  b.load_imem(p);
  b.start();
  int reads = 0, imem_reads = 0;
  for (int i = 0; i < 3000 && b.dut().stat_running_o; ++i) {
    if (b.host_idle() && rng() % 3 == 0) {
      const uint32_t a = static_cast<uint32_t>(rng() % 8192) & ~3u;
      b.host_async(false, reg::kTileDmem + a, 0, [&, a](const auto& h) {
        uint32_t v;
        std::memcpy(&v, &data[a], 4);
        EXPECT_EQ(h.rdata, v);
        ++reads;
      });
      if (rng() % 2) {
        const uint32_t k = static_cast<uint32_t>(rng() % p.size());
        b.host_async(false, reg::kTileImem + 8 * k, 0, [&, k](const auto& h) {
          EXPECT_EQ(h.rdata, static_cast<uint32_t>(p[k]));
          ++imem_reads;
        });
      }
      b.host_async(false, reg::kTileStatus, 0);
    }
    b.step();
  }
  ASSERT_TRUE(b.run_to_halt());
  b.settle();
  EXPECT_GT(reads, 50);
  EXPECT_GT(imem_reads, 20);
  EXPECT_EQ(b.dut().stat_err_o, 0);
  std::vector<uint8_t> got;
  for (const auto& q : TileBench::packets(b.link_out[0]))
    for (size_t k = 1; k < q.size(); ++k)
      got.insert(got.end(), reinterpret_cast<const uint8_t*>(q[k].w.data()),
                 reinterpret_cast<const uint8_t*>(q[k].w.data()) + 16);
  std::vector<uint8_t> want;
  for (int i = 0; i < 16 / 4; ++i) want.insert(want.end(), data.begin(), data.end());
  EXPECT_EQ(got, want);
}

// Random single-tile loop-back programs: the tile writes and reduces blocks of its own DMEM
// into other blocks through the exchange loop-back, waits on its counters and ends; checked
// against a C++ computation, with random rx idle insertion, random link traffic and stalls.
TEST(RtlTile, RandomLoopback) {
  auto rng = kFile.rng();
  for (int iter = 0; iter < 12; ++iter) {
    TileBench b;
    b.rng.seed(rng());
    b.rx_idle = (iter % 4) * 0.25;
    b.link_stall = (iter % 3) * 0.4;
    b.route[1 * 4096 + 7] = static_cast<uint8_t>(iter % kLinks);
    const uint32_t kBlocks = 8, kBlock = 512;
    // Sources at 0 .. 8 blocks, destinations at 0x10000 .. (disjoint: no hazards).
    auto src = random_bytes(rng, kBlocks * kBlock);
    auto dst = random_bytes(rng, kBlocks * kBlock);
    b.load_dmem(0, src);
    b.load_dmem(0x10000, dst);
    std::vector<uint64_t> p = {LI(7, kChip), LI(8, 7), LI(kR16, 16)};
    uint32_t ctr = 0;
    const int jobs = 6 + static_cast<int>(rng() % 10);
    for (int j = 0; j < jobs; ++j) {
      const uint32_t sb = static_cast<uint32_t>(rng() % kBlocks);
      const uint32_t db = static_cast<uint32_t>(rng() % kBlocks);
      const uint32_t bytes = 16 * static_cast<uint32_t>(rng() % (kBlock / 16 + 1));
      const int kind = static_cast<int>(rng() % 4);  // 0 write, 1/2 reduce, 3 link send
      p.push_back(LI(1, sb * kBlock));
      p.push_back(LI(2, bytes));
      p.push_back(LI(4, 0x10000 + db * kBlock));
      if (kind == 3) {
        p.push_back(SEND(1, 2, 8, 4, desc(0, 1, Opcode::kWrite)));
        continue;
      }
      const DType dt = kind == 1 ? DType::kInt32 : DType::kInt8;
      const RedOp op = kind == 1 ? RedOp::kSum : RedOp::kMax;
      p.push_back(SEND(1, 2, 7, 4,
                       desc(kTileId, 0, kind == 0 ? Opcode::kWrite : Opcode::kReduce, dt, op, 1)));
      if (kind == 0) {
        std::memcpy(&dst[db * kBlock], &src[sb * kBlock], bytes);
      } else {
        AluCfg cfg;
        cfg.dtype = dt;
        cfg.op = op;
        alu_reduce(cfg, &dst[db * kBlock], &src[sb * kBlock], bytes);
      }
      ctr += bytes == 0 ? 1 : bytes / 16;
      // Sometimes wait right away (serialises the order of overlapping destinations).
      p.push_back(LI(3, ctr));
      p.push_back(WAIT(3, 0, 1));
    }
    p.push_back(END());
    b.load_imem(p);
    b.start();
    ASSERT_TRUE(b.run_to_halt(400000))
        << "iter " << iter << " pc " << b.dut().stat_pc_o << " counter1 "
        << b.host_read(reg::kTileCounters + 4) << " want " << ctr << " rx " << b.rx_taken.size()
        << " tx " << b.tx.size();
    b.settle();
    EXPECT_EQ(b.dut().stat_err_o, 0) << "iter " << iter;
    EXPECT_EQ(b.dut().stat_done_o, 1);
    EXPECT_EQ(b.read_dmem(0x10000, kBlocks * kBlock), dst) << "iter " << iter;
    EXPECT_EQ(b.host_read(reg::kTileCounters + 4), ctr);
    EXPECT_EQ(b.bad_link_flits, 0);
    EXPECT_LE(b.max_xb_occ, kXbQueueFlits);
    EXPECT_LE(b.max_path, 3u);
  }
}

// ---- Flit widths
// ---------------------------------------------------------------------------------

template <class Dut>
class RtlTileWidth : public ::testing::Test {};
using TileWidths = ::testing::Types<Vxf_tile, Vxf_tile_w64, Vxf_tile_w32>;
TYPED_TEST_SUITE(RtlTileWidth, TileWidths);

// A 4096-byte Reduce job and a token to one link: XREQ and grant as at 128 bits, then two
// packets of H + 2048 / W flits and the token's H flits back to back, XDONE right after; every
// header flit's head/tail bits, the assembled headers and the payload bytes.
TYPED_TEST(RtlTileWidth, SendFullRate) {
  using Bench = TileBenchT<TypeParam>;
  constexpr uint32_t kBits = Bench::kBits, kW = Bench::kW, kH = Bench::kH;
  auto rng = kFile.rng();
  Bench b;
  b.route[1 * 4096 + 7] = 3;  // lane 1, chip 7 -> link 3
  const auto data = random_bytes(rng, 4096);
  b.load_dmem(0x1000, data);
  const uint32_t d = desc(9, 1, Opcode::kReduce, DType::kInt16, RedOp::kMax, 17, true, 3, true);
  std::vector<uint64_t> p = {LI(1, 0x1000),       LI(2, 4096), LI(3, 7),
                             LI(4, 0x200),        LI(5, 0),    SEND(1, 2, 3, 4, d),
                             SEND(1, 5, 3, 4, d), END()};
  b.load_imem(p);
  b.start();
  const uint64_t t0 = b.cycle() + 1;  // pc 0 executes here, after the start's bubble
  ASSERT_TRUE(b.run_to_halt());
  b.settle();
  const size_t per_pkt = kH + 2048 / kW, flits = 2 * per_pkt + kH;
  ASSERT_EQ(b.tx.size(), flits + 2);
  EXPECT_EQ(b.tx[0].ctrl, 1);
  EXPECT_EQ(b.tx[0].cycle, t0 + 7);  // one Li more than SendSessionFullRate
  EXPECT_EQ(b.tx[1].cycle, t0 + 11);
  for (size_t i = 1; i <= flits; ++i) {
    EXPECT_EQ(b.tx[i].cycle, b.tx[1].cycle + i - 1) << "flit " << i;
    EXPECT_EQ(b.tx[i].ctrl, 0);
  }
  EXPECT_EQ(b.tx[flits + 1].ctrl, 2);
  EXPECT_EQ(b.tx[flits + 1].cycle, b.tx[flits].cycle + 1);
  const auto pk = Bench::packets(b.link_out[3]);
  ASSERT_EQ(pk.size(), 3u);
  for (uint32_t k = 0; k < 3; ++k) {
    ASSERT_EQ(pk[k].size(), k < 2 ? per_pkt : kH) << "packet " << k;
    for (size_t i = 0; i < pk[k].size(); ++i) {
      EXPECT_EQ(pk[k][i].head, i == 0) << "packet " << k << " flit " << i;
      EXPECT_EQ(pk[k][i].tail, i + 1 == pk[k].size()) << "packet " << k << " flit " << i;
      for (uint32_t w = kBits / 32; w < 4; ++w) EXPECT_EQ(pk[k][i].w[w], 0u);
    }
    const Flit hf = kit::header_of(pk[k], kBits);
    EXPECT_EQ(hf.bits(107, 21), 0u) << "reserved header bits, packet " << k;
    const Hdr h = unpack(hf);
    EXPECT_EQ(h.opcode, 1u);
    EXPECT_EQ(h.dst_chip, 7u);
    EXPECT_EQ(h.dst_tile, 9u);
    EXPECT_EQ(h.dst_addr, k == 1 ? 0x200u + 2048 : 0x200u);
    EXPECT_EQ(h.len, k < 2 ? 2048u : 0u);
    EXPECT_EQ(h.dtype, 2u);
    EXPECT_EQ(h.op, 1u);
    EXPECT_EQ(h.sat, 1u);
    EXPECT_EQ(h.avg_final, 1u);
    EXPECT_EQ(h.avg_shift, 3u);
    EXPECT_EQ(h.ctr, 17u);
    EXPECT_EQ(h.lane, 1u);
    EXPECT_EQ(h.src_chip, kChip);
    EXPECT_EQ(h.src_tile, kTileId);
    EXPECT_EQ(h.seq, k);
  }
  EXPECT_EQ(payload_of(pk[0], kBits), std::vector<uint8_t>(data.begin(), data.begin() + 2048));
  EXPECT_EQ(payload_of(pk[1], kBits), std::vector<uint8_t>(data.begin() + 2048, data.end()));
  EXPECT_EQ(b.dut().stat_done_o, 1);
  EXPECT_EQ(b.bad_link_flits, 0);
}

// Receive: Write and Reduce of many dtype/op pairs and tokens under random idle insertion, DMEM
// against xf::alu_reduce, counters in grains, the Wait latency of 5 cycles after the last tail.
TYPED_TEST(RtlTileWidth, ReceiveWriteReduce) {
  using Bench = TileBenchT<TypeParam>;
  auto rng = kFile.rng();
  {  // one bench at a time: Verilator 5.006 deadlocks destroying a model while another lives
    Bench b;
    b.rng.seed(rng());
    const std::pair<DType, RedOp> pairs[] = {
        {DType::kInt8, RedOp::kSum},  {DType::kUint8, RedOp::kAvg}, {DType::kInt16, RedOp::kMin},
        {DType::kInt32, RedOp::kSum}, {DType::kFp16, RedOp::kSum},  {DType::kBf16, RedOp::kMax},
        {DType::kFp32, RedOp::kSum},  {DType::kFp32, RedOp::kMin},  {DType::kInt32, RedOp::kAvg}};
    std::map<uint32_t, std::vector<uint8_t>> ref;
    uint32_t ctr_total[32] = {};
    uint32_t addr = 0x2000;
    std::vector<std::vector<Flit>> pkts;  // injected after the start (which clears the counters)
    for (size_t i = 0; i < std::size(pairs); ++i) {
      const uint32_t n = 16 * (1 + rng() % 20);
      auto local = random_bytes(rng, n), in = random_bytes(rng, n);
      b.load_dmem(addr, local);
      Hdr h;
      h.opcode = 1;
      h.dst_chip = kChip;
      h.dst_tile = kTileId;
      h.dst_addr = addr;
      h.len = n;
      h.dtype = static_cast<uint32_t>(pairs[i].first);
      h.op = static_cast<uint32_t>(pairs[i].second);
      h.sat = rng() & 1;
      h.ctr = static_cast<uint32_t>(i % 3);
      pkts.push_back(make_packet_w(h, in, Bench::kBits));
      AluCfg cfg;
      cfg.dtype = pairs[i].first;
      cfg.op = pairs[i].second;
      cfg.sat = h.sat;
      alu_reduce(cfg, local.data(), in.data(), n);
      ref[addr] = local;
      ctr_total[h.ctr] += n / 16;
      addr += n + 16 * (rng() % 3);
    }
    auto in = random_bytes(rng, 512);
    Hdr w;
    w.dst_chip = kChip;
    w.dst_tile = kTileId;
    w.dst_addr = 0x9000;
    w.len = 512;
    w.ctr = 5;
    pkts.push_back(make_packet_w(w, in, Bench::kBits));
    ref[0x9000] = in;
    ctr_total[5] += 32;
    Hdr t;
    t.ctr = 6;
    pkts.push_back(make_packet_w(t, {}, Bench::kBits));
    pkts.push_back(make_packet_w(t, {}, Bench::kBits));
    ctr_total[6] += 2;
    std::vector<uint64_t> p;
    for (int c : {0, 1, 2, 5, 6}) {
      p.push_back(LI(2, ctr_total[c]));
      p.push_back(WAIT(2, 0, static_cast<uint32_t>(c)));
    }
    p.push_back(END());
    b.load_imem(p);
    b.start();
    b.rx_idle = 0.3;
    for (const auto& pk : pkts) b.inject(pk);
    ASSERT_TRUE(b.run_to_halt());
    b.settle();
    EXPECT_EQ(b.dut().stat_err_o, 0);
    EXPECT_EQ(b.dut().stat_done_o, 1);
    for (const auto& [a, bytes] : ref)
      EXPECT_EQ(b.read_dmem(a, static_cast<uint32_t>(bytes.size())), bytes) << std::hex << a;
    for (int c : {0, 1, 2, 5, 6})
      EXPECT_EQ(b.host_read(reg::kTileCounters + 4 * c), ctr_total[c]) << "counter " << c;
  }
  // Wait latency: a tail accepted in t retires the Wait in t + 5.
  Bench b2;
  b2.load_imem({LI(1, 2), WAIT(1, 0, 4), NOP(), END()});
  b2.start();
  b2.run(20);
  Hdr h;
  h.dst_chip = kChip;
  h.dst_tile = kTileId;
  h.dst_addr = 0x100;
  h.len = 32;
  h.ctr = 4;
  b2.inject(make_packet_w(h, std::vector<uint8_t>(32, 7), Bench::kBits));
  b2.run_until([&] { return !b2.rx_taken.empty() && b2.rx_taken.back().second.tail; });
  const uint64_t tt = b2.rx_taken.back().first;
  while (b2.cycle() <= tt + kWaitLatency) {
    EXPECT_EQ(b2.dut().stat_pc_o, 1) << "cycle " << b2.cycle();
    b2.step();
  }
  EXPECT_EQ(b2.dut().stat_pc_o, 2);
}

// Receive-reduce one stream and send another at one flit per cycle each, at the same time.
TYPED_TEST(RtlTileWidth, SimultaneousReduceAndSend) {
  using Bench = TileBenchT<TypeParam>;
  auto rng = kFile.rng();
  Bench b;
  b.route[7] = 0;
  const uint32_t n = 4096;
  auto src = random_bytes(rng, n), local = random_bytes(rng, n), in = random_bytes(rng, n);
  b.load_dmem(0, src);
  b.load_dmem(0x10000, local);
  b.load_imem({LI(1, 0), LI(2, n), LI(3, 7), LI(4, 0), LI(5, n / 16),
               SEND(1, 2, 3, 4, desc(0, 0, Opcode::kWrite)), WAIT(5, 0, 9), END()});
  b.start();
  Hdr h;
  h.opcode = 1;
  h.dst_chip = kChip;
  h.dst_tile = kTileId;
  h.dtype = static_cast<uint32_t>(DType::kFp32);
  h.ctr = 9;
  h.len = 2048;
  for (uint32_t off = 0; off < n; off += 2048) {
    h.dst_addr = 0x10000 + off;
    b.inject(make_packet_w(h, std::vector<uint8_t>(in.begin() + off, in.begin() + off + 2048),
                           Bench::kBits));
  }
  ASSERT_TRUE(b.run_to_halt());
  b.settle();
  EXPECT_EQ(b.dut().stat_err_o, 0);
  for (size_t i = 1; i < b.rx_taken.size(); ++i)
    EXPECT_EQ(b.rx_taken[i].first, b.rx_taken[i - 1].first + 1);
  std::vector<uint64_t> txc;
  for (const auto& r : b.tx)
    if (r.ctrl == 0) txc.push_back(r.cycle);
  ASSERT_EQ(txc.size(), 2 * (Bench::kH + 2048 / Bench::kW));
  for (size_t i = 1; i < txc.size(); ++i) EXPECT_EQ(txc[i], txc[i - 1] + 1);
  EXPECT_LT(b.rx_taken.front().first, txc.back());
  EXPECT_GT(b.rx_taken.back().first, txc.front());
  AluCfg cfg;
  alu_reduce(cfg, local.data(), in.data(), n);
  EXPECT_EQ(b.read_dmem(0x10000, n), local);
  std::vector<uint8_t> got;
  for (const auto& q : Bench::packets(b.link_out[0])) {
    const auto part = payload_of(q, Bench::kBits);
    got.insert(got.end(), part.begin(), part.end());
  }
  EXPECT_EQ(got, src);
}

// The host's 32-bit words in every lane of the DMEM word (4, 2 or 1 lanes): written, read back,
// a lane write leaving the others alone; the last word of DMEM (it ends the 20-bit window).
TYPED_TEST(RtlTileWidth, HostDmemLanes) {
  auto rng = kFile.rng();
  TileBenchT<TypeParam> b;
  std::map<uint32_t, uint32_t> vals;
  for (uint32_t a : {0u, 4u, 8u, 12u, 16u, 20u, 0x1234u * 4, kDmemBytes - 8, kDmemBytes - 4}) {
    vals[a] = static_cast<uint32_t>(rng());
    b.host_write(reg::kTileDmem + a, vals[a]);
  }
  for (const auto& [a, v] : vals) EXPECT_EQ(b.host_read(reg::kTileDmem + a), v) << std::hex << a;
  b.host_write(reg::kTileDmem + 4, 0xA5A5A5A5u);
  EXPECT_EQ(b.host_read(reg::kTileDmem), vals[0]);
  EXPECT_EQ(b.host_read(reg::kTileDmem + 8), vals[8]);
  EXPECT_EQ(b.host_read(reg::kTileDmem + 4), 0xA5A5A5A5u);
}

// Header checks at every width, and the Short cases only a narrow width has: each bad packet is
// counted once with its ErrCheck and source (0 when the header never came whole), writes
// nothing, and the good packet after it is received.
TYPED_TEST(RtlTileWidth, ReceiveErrors) {
  using Bench = TileBenchT<TypeParam>;
  constexpr uint32_t kBits = Bench::kBits, kH = Bench::kH;
  struct Case {
    std::string name;
    std::vector<Flit> flits;
    ErrCheck check;
    bool src_known;
  };
  auto hdr = [](uint32_t opc, uint32_t len, uint32_t addr, uint32_t dt = 6, uint32_t op = 0) {
    Hdr h = rx_hdr(opc, len, addr, dt, op);
    h.src_chip = 0x123;
    h.src_tile = 7;
    return h;
  };
  auto pkt = [](const Hdr& h) {
    return make_packet_w(h, std::vector<uint8_t>(h.len, 0x55), kBits);
  };
  std::vector<Case> cases = {
      {"opcode 15", pkt(hdr(15, 32, 0x100)), ErrCheck::kOpcode, true},
      {"len % 16", make_packet_w(hdr(0, 24, 0x100), std::vector<uint8_t>(32, 0x55), kBits),
       ErrCheck::kLength, true},
      {"dst % 16", pkt(hdr(0, 32, 0x108)), ErrCheck::kWindow, true},
      {"avg on fp32", pkt(hdr(1, 32, 0x100, 6, 3)), ErrCheck::kPair, true},
      {"range", pkt(hdr(0, 32, kDmemBytes - 16)), ErrCheck::kWindow, true},
  };
  {  // Long: one payload flit more than len / W.
    auto v = pkt(hdr(0, 32, 0x100));
    v.back().tail = false;
    Flit f;
    f.tail = true;
    v.push_back(f);
    cases.push_back({"long", v, ErrCheck::kLong, true});
  }
  {  // Short: the tail one payload flit early (written, not counted).
    auto v = pkt(hdr(0, 32, 0x100));
    v.pop_back();
    v.back().tail = true;
    cases.push_back({"short payload", v, ErrCheck::kShort, true});
  }
  {  // Headless: a payload flit without a header.
    Flit f;
    f.tail = true;
    cases.push_back({"headless", {f}, ErrCheck::kHeadless, false});
  }
  if (kH > 1) {
    // A head while a header is being collected: the first packet's header was cut off.
    auto v = pkt(hdr(0, 32, 0x100));
    v.resize(kH - 1);
    cases.push_back({"head while collecting", v, ErrCheck::kShort, false});
    // The tail before the header is whole.
    auto t = pkt(hdr(0, 0, 0x100));
    t.resize(kH - 1);
    t.back().tail = true;
    cases.push_back({"tail inside the header", t, ErrCheck::kShort, false});
  }
  for (const auto& c : cases) {
    Bench b;
    b.load_dmem(0x100, std::vector<uint8_t>(64, 0x11));
    b.load_imem({NOP(), NOP(), I(Isa::kJmp, 0, 0, 0, 0, 0, 2)});
    b.start();
    b.run(10);
    b.inject(c.flits);
    Hdr good = hdr(0, 16, 0x200);
    good.ctr = 4;
    b.inject(make_packet_w(good, std::vector<uint8_t>(16, 0x77), kBits));
    b.settle();
    const TileErr want = c.name == "range" ? TileErr::kDmemRange : TileErr::kBadPacket;
    EXPECT_EQ(b.dut().stat_err_o, static_cast<int>(want)) << c.name;
    const uint32_t info = b.host_read(reg::kTileErrInfo);
    EXPECT_EQ(info & 0xF, static_cast<uint32_t>(c.check)) << c.name;
    EXPECT_EQ((info >> 12) & 0xFFF, c.src_known ? 0x123u : 0u) << c.name;
    EXPECT_EQ((info >> 24) & 0xF, c.src_known ? 7u : 0u) << c.name;
    EXPECT_EQ(b.host_read(reg::kTileErrCount), 1u) << c.name;
    if (c.name != "short payload" && c.name != "long") {  // those write their len bytes
      EXPECT_EQ(b.read_dmem(0x100, 64), std::vector<uint8_t>(64, 0x11)) << c.name;
    }
    EXPECT_EQ(b.host_read(reg::kTileCounters + 12), 0u) << c.name;
    EXPECT_EQ(b.host_read(reg::kTileCounters + 16), 1u) << c.name;  // the good packet
    EXPECT_EQ(b.read_dmem(0x200, 16), std::vector<uint8_t>(16, 0x77)) << c.name;
  }
}

}  // namespace
}  // namespace xf
