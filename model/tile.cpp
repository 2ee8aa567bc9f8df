// Model of xf_tile (see tile.hpp).
#include "tile.hpp"

#include <cstring>
#include <sstream>

#include "node.hpp"
#include "xf/compiler.hpp"

namespace xf::model {

Tile::Tile(sc_core::sc_module_name name, ChipCtx* chip, int tile_id, int num_links)
    : sc_module(name),
      out(kExchangeLatencyCycles),
      in(1),
      xb_in(num_links, Pipe<XbMsg>(kXbCtrlLatencyCycles)),
      chip_(chip),
      id_(tile_id) {
  SC_HAS_PROCESS(Tile);
  SC_METHOD(tick);
  sensitive << clk_i.pos();
  dont_initialize();
}

void Tile::reset_state() {
  std::memset(regs_, 0, sizeof regs_);
  std::memset(counters, 0, sizeof counters);
  pc = 0;
  done = false;
  running = false;
  err = TileErr::kNone;
  err_detail.clear();
  err_info = err_count = 0;  // the watchdog period stays
  wait_kind_ = WaitKind::kRunning;
  wait_ctr_ = 0;
  wd_idle_ = 0;
  progress_q_ = false;
  jobs_.clear();
  in_session_ = xon_ = requested_ = held_ = false;
  session_link_ = -1;
  job_off_ = pkt_left_ = hdr_left_ = 0;
  rx_active_ = rx_drop_ = false;
  rx_hdr_flits_ = 0;
  rx_held_ = false;  // rx_writes_ stays: the RTL's pipeline still writes its flits after a start
  at_barrier = false;
  lw_issued_ = false;
  bubble_ = true;  // the first instruction executes in the second running cycle
  pending_counts_.clear();
  seq_ = 0;
  avg_scale = 1u << kAvgScaleFracBits;
  scale = kScaleAddResetBits;
  stream_csr = 0;
}

void Tile::fail(TileErr e, const std::string& why, uint32_t info) {
  if (err == TileErr::kNone) {
    err = e;
    err_cycle = chip_->now();
    err_detail = why;
    err_info = info;
  }
  running = false;
}

namespace {
// TileErrInfo of a packet error: ErrCheck in bits 3:0, source chip 23:12, source tile 27:24.
uint32_t packet_info(ErrCheck c, uint32_t src_chip, uint32_t src_tile) {
  return static_cast<uint32_t>(c) | (src_chip & 0xFFFu) << 12 | (src_tile & 0xFu) << 24;
}
std::string from(uint32_t src_chip, uint32_t src_tile) {
  return "from chip " + std::to_string(src_chip) + " tile " + std::to_string(src_tile);
}
}  // namespace

void Tile::discard(TileErr e, ErrCheck c, uint32_t src_chip, uint32_t src_tile,
                   const std::string& why) {
  if (err_count != 0xFFFFFFFFu) ++err_count;
  fail(e, why + " (check " + to_string(c) + ")", packet_info(c, src_chip, src_tile));
}

uint32_t Tile::wait_info() const {
  return static_cast<uint32_t>(wait_kind_) |
         (wait_kind_ == WaitKind::kCounter ? (wait_ctr_ & 31u) << 4 : 0u);
}

// The watchdog (docs/errors.md section 5; xf_tile_seq): counts consecutive cycles in which the
// sequencer stalled on a wait (a stalled instruction does not retire) and the engines did not
// progress in the cycle before (progress_q_: no flit received or emitted, no counter
// incremented); fires when the count reaches the period.
void Tile::watchdog_step() {
  if (wait_kind_ == WaitKind::kRunning || progress_q_) {
    wd_idle_ = 0;
    return;
  }
  if (wd_idle_ != 0xFFFFFFFFu) ++wd_idle_;
  if (watchdog != 0 && wd_idle_ >= watchdog)
    fail(TileErr::kWatchdog,
         "no progress for " + std::to_string(watchdog) + " cycles: " + wait_what_, wait_info());
}

std::string Tile::describe_wait() const {
  std::ostringstream o;
  o << "chip " << chip_->chip << " tile " << id_ << " pc " << pc << ": ";
  if (!wait_what_.empty())
    o << wait_what_;
  else
    o << "running";
  o << " (send jobs queued " << jobs_.size() << ")";
  return o.str();
}

// The receive pipeline (DMEM read and ALU in the RTL) makes a counter increment visible
// kRecvPipelineCycles after the tail (or token) arrived.
void Tile::count_later(uint64_t now, unsigned ctr, uint32_t n) {
  pending_counts_.push_back({now + kRecvPipelineCycles, ctr, n});
}

// The sequencer runs on the cycle's starting state (rtl/xf_tile.sv, "Cycle order"): whether
// the tile runs, and the send queue and session as they are before the engines' steps. An
// engine's error in this cycle stops it from the next one. Taken once per cycle, before the
// receive engine's step, which the exchange may run before tick() (rx_held).
void Tile::begin_cycle(uint64_t now) {
  if (cycle_ == now) return;
  cycle_ = now;
  cycle_running_ = running;
  seq_jobs_ = jobs_.size();
  seq_session_ = in_session_;
  seq_held_ = held_;
  // Streamed jobs (docs/tile.md section 4.5), the RTL's registers: avail is last cycle's ann,
  // and ann grows by one word when, in the last cycle c, the word it reaches next was announced
  // (its write due in c + 2) or written, for a job queued before c.
  for (Job& j : jobs_) j.avail = j.ann;
  if (now > 0 && !jobs_.empty()) {
    const uint64_t c = now - 1;
    const uint32_t kNone = UINT32_MAX;
    uint32_t notice = kNone, write = kNone;
    for (const auto& [taken, word] : rx_writes_) {
      if (taken + kStreamNoticeCycles == c) notice = word * chip_->flit_bytes;
      if (taken + kRecvHoldCycles == c) write = word * chip_->flit_bytes;
    }
    if (notice != kNone || write != kNone)
      for (Job& j : jobs_)
        if (j.d.stream && j.pushed < c && j.ann < j.bytes &&
            (notice == j.addr + j.ann || write == j.addr + j.ann))
          j.ann += chip_->flit_bytes;
  }
  // The writes done before this cycle leave the hold window.
  while (!rx_writes_.empty() && rx_writes_.front().first + kRecvHoldCycles < now)
    rx_writes_.pop_front();
}

void Tile::tick() {
  const uint64_t now = chip_->now();
  begin_cycle(now);
  progress_ = false;
  while (!pending_counts_.empty() && pending_counts_.front().due <= now) {
    counters[pending_counts_.front().ctr] += pending_counts_.front().n;
    inc_cycle_ = now;
    inc_ctr_ = pending_counts_.front().ctr;
    inc_n_ = pending_counts_.front().n;
    pending_counts_.pop_front();
    progress_ = true;
  }
  const bool run = cycle_running_;
  rx_step(now);
  progress_ = progress_ || rx_took_;
  for (size_t l = 0; l < xb_in.size(); ++l)
    while (xb_in[l].ready(now)) {
      const XbMsg m = xb_in[l].front();
      xb_in[l].pop();
      if (!in_session_ || static_cast<int>(l) != session_link_) continue;  // stale
      if (requested_) {
        if (m == XbMsg::kGrant) {
          requested_ = false;
          xon_ = true;
        }
      } else if (m != XbMsg::kGrant) {
        xon_ = m == XbMsg::kXon;
      }
    }
  send_engine();
  if (run) {
    wait_kind_ = WaitKind::kRunning;
    sequencer();
    watchdog_step();
  } else {
    wd_idle_ = 0;
  }
  progress_q_ = progress_;
}

void Tile::rx_step(uint64_t now) {
  begin_cycle(now);
  if (rx_cycle_ == now) return;
  rx_cycle_ = now;
  rx_held_ = false;
  rx_took_ = receive();
}

// Receive engine: one flit per cycle. Checks and what each drops: docs/packets.md section 6
// (the RTL's xf_tile_recv in the same order). It holds a Reduce payload flit whose word a flit
// taken in the 5 cycles before still writes (docs/tile.md section 5): the flit stays at the
// front of `in`, and the exchange moves nothing to this tile in the cycle (rx_held).
bool Tile::receive() {
  const uint64_t now = chip_->now();
  if (!in.ready(now)) return false;
  const uint32_t W = chip_->flit_bytes, H = kHeaderBits / 8 / W;
  if (!in.front().head && rx_hdr_flits_ == 0 && rx_active_ && !rx_drop_ && rx_off_ < rx_hdr_.len &&
      rx_hdr_.opcode == Opcode::kReduce) {
    const uint32_t word = (rx_hdr_.dst_addr + rx_off_) / W;
    for (const auto& cw : rx_writes_)
      if (cw.second == word) {
        rx_held_ = true;
        return false;
      }
  }
  Flit f = in.front();
  in.pop();
  last_progress = now;
  ++flits_received;
  if (f.head) {
    if (rx_hdr_flits_)  // the open packet's header never came whole
      discard(TileErr::kBadPacket, ErrCheck::kShort, 0, 0,
              "packet cut off by the next header after " + std::to_string(rx_hdr_flits_) +
                  " of its " + std::to_string(H) + " header flits (source unknown)");
    else if (rx_active_ && !rx_drop_)  // the open packet never saw its tail
      discard(TileErr::kBadPacket, ErrCheck::kShort, rx_hdr_.src_chip, rx_hdr_.src_tile,
              "packet " + from(rx_hdr_.src_chip, rx_hdr_.src_tile) +
                  " cut off by the next header after " + std::to_string(rx_off_ / W) + " of " +
                  std::to_string(rx_hdr_.len / W) + " payload flits, without its tail");
    rx_hdr_flits_ = 0;
    rx_active_ = rx_drop_ = false;
  }
  if (f.head || rx_hdr_flits_) {  // a header flit: header bits [8W*i, 8W*i + 8W)
    std::memcpy(&rx_hword_[rx_hdr_flits_ * W], f.data.data(), W);
    if (++rx_hdr_flits_ == H) {
      rx_hdr_flits_ = 0;
      header_done(now, f.tail);
    } else if (f.tail) {
      discard(TileErr::kBadPacket, ErrCheck::kShort, 0, 0,
              "tail after " + std::to_string(rx_hdr_flits_) + " of a header's " +
                  std::to_string(H) + " flits (source unknown)");
      rx_hdr_flits_ = 0;
    }
    return true;
  }
  if (!rx_active_) {  // dropped with the flits up to its tail
    discard(TileErr::kBadPacket, ErrCheck::kHeadless, 0, 0, "payload flit without a header");
    rx_active_ = rx_drop_ = !f.tail;
    return true;
  }
  if (!rx_drop_ && rx_off_ >= rx_hdr_.len) {  // never written
    discard(TileErr::kBadPacket, ErrCheck::kLong, rx_hdr_.src_chip, rx_hdr_.src_tile,
            "bad packet " + from(rx_hdr_.src_chip, rx_hdr_.src_tile) + ": more than " +
                std::to_string(rx_hdr_.len / W) + " payload flits (len " +
                std::to_string(rx_hdr_.len) + "); the rest is dropped");
    rx_drop_ = true;
  }
  if (!rx_drop_) {
    // a < dst_addr + len <= dmem.size(): the Window and Long checks keep every write inside.
    const uint32_t a = rx_hdr_.dst_addr + rx_off_;
    // Hazard: bytes a queued send has not read yet must not change under it. A streamed job
    // waits for them to be written (docs/isa.md section 5.2).
    for (size_t i = 0; i < jobs_.size(); ++i) {
      if (jobs_[i].d.stream) continue;
      const uint32_t b0 = jobs_[i].addr + (i == 0 ? job_off_ : 0),
                     b1 = jobs_[i].addr + jobs_[i].bytes;
      if (a < b1 && b0 < a + W)
        fail(TileErr::kHazard,
             "receive at " + std::to_string(a) + " " + from(rx_hdr_.src_chip, rx_hdr_.src_tile) +
                 " overwrote unsent bytes",
             packet_info(ErrCheck::kNone, rx_hdr_.src_chip, rx_hdr_.src_tile));
    }
    if (rx_hdr_.opcode == Opcode::kWrite) {
      std::memcpy(&dmem[a], f.data.data(), W);
    } else {
      AluCfg cfg;
      cfg.dtype = rx_hdr_.dtype;
      cfg.op = rx_hdr_.op;
      cfg.sat = rx_hdr_.sat;
      cfg.avg_shift = rx_hdr_.avg_shift;
      cfg.avg_final = rx_hdr_.avg_final;
      cfg.avg_scale = avg_scale;
      cfg.scale = scale;
      alu_reduce(cfg, &dmem[a], f.data.data(), W);
    }
    rx_writes_.push_back({now, a / W});
    rx_off_ += W;
    if (f.tail) {
      if (rx_off_ < rx_hdr_.len)  // written (inside the window), but not counted
        discard(TileErr::kBadPacket, ErrCheck::kShort, rx_hdr_.src_chip, rx_hdr_.src_tile,
                "bad packet " + from(rx_hdr_.src_chip, rx_hdr_.src_tile) + ": tail after " +
                    std::to_string(rx_off_ / W) + " of " + std::to_string(rx_hdr_.len / W) +
                    " payload flits");
      else
        count_later(now, rx_hdr_.ctr, rx_hdr_.len / kGrainBytes);
    }
  }
  if (f.tail) rx_active_ = false;
  return true;
}

// The receive engine has the whole header: the checks of docs/packets.md section 6 in order,
// then a token or a header that is also the tail closes the packet.
void Tile::header_done(uint64_t now, bool tail) {
  std::array<uint64_t, 2> w;
  std::memcpy(w.data(), rx_hword_.data(), sizeof w);
  rx_hdr_ = unpack_header(w);
  rx_off_ = 0;
  rx_drop_ = false;
  rx_active_ = true;
  const Header& h = rx_hdr_;
  const std::string bad = "bad packet " + from(h.src_chip, h.src_tile) + ": ";
  ErrCheck c = ErrCheck::kNone;
  TileErr e = TileErr::kBadPacket;
  std::string why;
  if (h.opcode != Opcode::kWrite && h.opcode != Opcode::kReduce) {
    c = ErrCheck::kOpcode;
    why = "opcode " + std::to_string(static_cast<unsigned>(h.opcode)) + " is not write or reduce";
  } else if (h.len % kGrainBytes) {
    c = ErrCheck::kLength;
    why = "len " + std::to_string(h.len) + " is not a multiple of 16";
  } else if (h.dst_addr % kGrainBytes) {
    c = ErrCheck::kWindow;
    why = "dst_addr " + std::to_string(h.dst_addr) + " is not a multiple of 16";
  } else if (h.len > kMaxPacketPayloadBytes) {
    c = ErrCheck::kLength;
    why = "len " + std::to_string(h.len) + " is above " + std::to_string(kMaxPacketPayloadBytes);
  } else if (h.opcode == Opcode::kReduce && !valid_pair(h.dtype, h.op)) {
    c = ErrCheck::kPair;
    why = std::string("reduce with ") + to_string(h.op) + " on " + to_string(h.dtype) +
          ": not an ALU pair";
  } else if (static_cast<uint64_t>(h.dst_addr) + h.len > dmem.size()) {
    c = ErrCheck::kWindow;
    e = TileErr::kDmemRange;
    why = "dst_addr " + std::to_string(h.dst_addr) + " + len " + std::to_string(h.len) +
          " writes outside the data memory of " + std::to_string(dmem.size()) + " bytes";
  }
  if (c != ErrCheck::kNone) {
    discard(e, c, h.src_chip, h.src_tile, bad + why);
    rx_drop_ = true;
  }
  if (h.len == 0) {  // readiness token
    if (!rx_drop_) count_later(now, h.ctr, 1);
    rx_active_ = false;
  } else if (tail) {  // a header that is also the tail carries none of its len bytes
    if (!rx_drop_)
      discard(TileErr::kBadPacket, ErrCheck::kShort, h.src_chip, h.src_tile,
              bad + "the header is also the tail, but len is " + std::to_string(h.len));
    rx_active_ = false;
  }
}

// XDONE ends the XB session, so the XB can grant its link to the next tile.
void Tile::close_session(uint64_t now) {
  Flit f;
  f.head = f.tail = true;
  f.hdr.opcode = Opcode::kXdone;
  f.target = Target::kLink;
  f.port = static_cast<uint8_t>(session_link_);
  push_out(now, f);
  in_session_ = xon_ = held_ = false;
  session_link_ = -1;
}

void Tile::push_out(uint64_t now, const Flit& f) {
  --out_credits_;
  progress_ = true;
  out.push(now, f);
}

bool Tile::target_of(const Job& j, Target& t, uint8_t& port) {
  if (j.dst_chip == static_cast<uint32_t>(chip_->chip)) {
    if (j.d.tile >= static_cast<unsigned>(chip_->num_tiles)) return false;
    t = Target::kTile;
    port = static_cast<uint8_t>(j.d.tile);
    return true;
  }
  const uint8_t p = (*chip_->route)[j.d.lane * kMaxChips + j.dst_chip];
  if (p >= chip_->num_ports) return false;  // 255 = no route; anything else out of range
  t = Target::kLink;
  port = p;
  return true;
}

bool Tile::stream_ready(const Job& j, uint32_t off, bool start) const {
  if (!j.d.stream || off < (start ? j.ann : j.avail)) return true;
  const uint32_t c =
      counters[j.sctr] - (inc_cycle_ == chip_->now() && inc_ctr_ == j.sctr ? inc_n_ : 0);
  return c >= j.sval;
}

// Send engine: packets of at most kMaxPacketPayloadBytes; off-chip jobs run inside an XB
// session (XREQ, wait XON, flits while not XOFF, XDONE when the next job leaves elsewhere).
void Tile::send_engine() {
  const uint64_t now = chip_->now();
  // The path into the exchange is valid/ready, modelled with credits: at most
  // kExchangeLatencyCycles + 1 flits are in flight, so a packet waiting for a tile port cannot
  // build a backlog behind it that would reach an XB after its XOFF (docs/exchange.md).
  while (out_credits_in.ready(now)) {
    out_credits_ += out_credits_in.front();
    out_credits_in.pop();
  }
  if (out_credits_ <= 0) return;
  if (jobs_.empty()) {
    if (in_session_ && !(held_ && cycle_running_)) close_session(now);
    return;
  }
  Job& j = jobs_.front();
  Target tgt;
  uint8_t port;
  if (!target_of(j, tgt, port)) {
    fail(TileErr::kBadPacket, "no route to chip " + std::to_string(j.dst_chip) + " tile " +
                                  std::to_string(j.d.tile) + " on lane " +
                                  std::to_string(j.d.lane) + " (check the routing table)");
    jobs_.pop_front();
    return;
  }
  const bool fresh = pkt_left_ == 0 && hdr_left_ == 0 && job_off_ == 0;
  if (fresh && !stream_ready(j, 0, true)) {  // a streamed job starts with its first word due
    if (in_session_ && !(held_ && cycle_running_)) close_session(now);
    return;
  }
  if (in_session_ && (tgt != Target::kLink || session_link_ != port) && fresh) {
    close_session(now);  // the next job does not use this link: let other tiles have it
    return;
  }
  if (tgt == Target::kLink) {
    if (!in_session_) {
      Flit f;
      f.head = f.tail = true;
      f.hdr.opcode = Opcode::kXreq;
      f.hdr.src_tile = static_cast<uint8_t>(id_);
      f.target = Target::kLink;
      f.port = port;
      push_out(now, f);
      in_session_ = true;
      requested_ = true;
      xon_ = false;
      session_link_ = port;
      return;
    }
    if (!xon_) return;
  }
  if (pkt_left_ > 0 && hdr_left_ == 0 && !stream_ready(j, job_off_, false)) return;
  Flit f;
  f.target = tgt;
  f.port = port;
  const uint32_t W = chip_->flit_bytes;
  if (pkt_left_ == 0 && hdr_left_ == 0) {
    const uint32_t len = std::min<uint32_t>(kMaxPacketPayloadBytes, j.bytes - job_off_);
    Header h;
    h.opcode = j.d.popc;
    h.dst_chip = static_cast<uint16_t>(j.dst_chip);
    h.dst_tile = static_cast<uint8_t>(j.d.tile);
    h.dst_addr = j.dst_addr + job_off_;
    h.len = static_cast<uint16_t>(len);
    h.dtype = j.d.dtype;
    h.op = j.d.op;
    h.sat = j.d.sat;
    h.avg_final = j.d.avg_final;
    h.avg_shift = static_cast<uint8_t>(j.d.avg_shift);
    h.ctr = static_cast<uint8_t>(j.d.ctr);
    h.lane = static_cast<uint8_t>(j.d.lane);
    h.src_chip = static_cast<uint16_t>(chip_->chip);
    h.src_tile = static_cast<uint8_t>(id_);
    h.seq = seq_++;
    f.head = true;
    f.hdr = h;
    auto w = pack_header(h);
    std::memcpy(tx_hdr_.data(), w.data(), sizeof w);
    std::memcpy(f.data.data(), tx_hdr_.data(), W);
    hdr_left_ = kHeaderBits / 8 / W - 1;
    pkt_left_ = len / W;
    ++packets_sent;
  } else if (hdr_left_ > 0) {  // header flit i carries header bytes [W*i, W*i + W)
    std::memcpy(f.data.data(), &tx_hdr_[kHeaderBits / 8 - W * hdr_left_], W);
    --hdr_left_;
  } else {
    std::memcpy(f.data.data(), &dmem[j.addr + job_off_], W);
    job_off_ += W;
    --pkt_left_;
  }
  f.tail = hdr_left_ == 0 && pkt_left_ == 0;
  if (f.tail && job_off_ == j.bytes) {  // the job's last packet (a token's only one)
    held_ = tgt == Target::kLink && j.d.hold;
    jobs_.pop_front();
    job_off_ = 0;
  }
  ++flits_sent;
  last_progress = now;
  push_out(now, f);
}

// One instruction per cycle through the RTL's fetch, decode and execute stages (xf_tile_seq): a
// start and a taken branch or jump leave the execute stage empty for one cycle (bubble_), in
// which nothing executes and nothing waits.
void Tile::sequencer() {
  const uint64_t now = chip_->now();
  if (bubble_) {
    bubble_ = false;
    wait_what_.clear();
    return;
  }
  if (pc >= imem.size()) {
    fail(TileErr::kPcRange, "pc " + std::to_string(pc) + " outside the instruction memory");
    return;
  }
  const uint64_t w = imem[pc];
  const unsigned rd = isa::rd(w), rs1 = isa::rs1(w), rs2 = isa::rs2(w), rs3 = isa::rs3(w),
                 rs4 = isa::rs4(w);
  const uint32_t imm = isa::imm(w);
  const uint32_t a = regs_[rs1], b = regs_[rs2];
  bool taken = false;
  auto wr = [&](uint32_t v) {
    if (rd) regs_[rd] = v;
  };
  wait_what_.clear();
  switch (isa::opc(w)) {
    case Isa::kNop:
      break;
    case Isa::kEnd:
      if (seq_jobs_ != 0 || (seq_session_ && !seq_held_)) {  // a held session closes at halt
        wait_what_ = "END: waiting for its sends to drain";
        wait_kind_ = WaitKind::kSends;
        return;
      }
      done = true;
      done_cycle = now;
      running = false;
      break;
    case Isa::kLi:
      wr(imm);
      break;
    case Isa::kAdd:
      wr(a + b);
      break;
    case Isa::kSub:
      wr(a - b);
      break;
    case Isa::kMul:
      wr(a * b);
      break;
    case Isa::kAddi:
      wr(a + imm);
      break;
    case Isa::kLw: {
      const uint64_t i = static_cast<uint64_t>(a) + imm;
      if (i >= pmem.size()) {
        fail(TileErr::kPmemRange, "Lw at word " + std::to_string(i) + " outside pmem");
        return;
      }
      // Two cycles, as the RTL's synchronous PMEM read: the read is issued in the first cycle
      // and the register written when the instruction retires in the second.
      if (!lw_issued_) {
        lw_issued_ = true;
        return;
      }
      lw_issued_ = false;
      wr(pmem[i]);
      break;
    }
    case Isa::kGeti: {
      const uint32_t v[] = {chip_->index, static_cast<uint32_t>(id_),
                            static_cast<uint32_t>(chip_->num_chips),
                            // the Cycles register: the start's cycle is 0, so the first
                            // running cycle (the model's start_cycle) reads 1
                            static_cast<uint32_t>(now - chip_->start_cycle + 1)};
      if (imm > 3) {
        fail(TileErr::kIllegalInstr, "Geti " + std::to_string(imm));
        return;
      }
      wr(v[imm]);
      break;
    }
    case Isa::kBeq:
      taken = a == b;
      break;
    case Isa::kBne:
      taken = a != b;
      break;
    case Isa::kBlt:
      taken = static_cast<int32_t>(a) < static_cast<int32_t>(b);
      break;
    case Isa::kBge:
      taken = static_cast<int32_t>(a) >= static_cast<int32_t>(b);
      break;
    case Isa::kJmp:
      taken = true;
      break;
    case Isa::kSend: {
      if (seq_jobs_ >= 4) {
        wait_what_ = "SEND: send queue full";
        wait_kind_ = WaitKind::kSendQueue;
        return;
      }
      Job j{a, b, regs_[rs3], regs_[rs4], unpack_send_imm(imm | regs_[rd])};
      if (j.d.stream) {
        j.sctr = stream_csr >> 27;
        j.sval = stream_csr & ((1u << 27) - 1);
        j.pushed = now;
      }
      if (j.addr % kGrainBytes || j.bytes % kGrainBytes || j.dst_addr % kGrainBytes ||
          static_cast<uint64_t>(j.addr) + j.bytes > dmem.size()) {
        fail(TileErr::kDmemRange, "SEND of " + std::to_string(j.bytes) + " bytes at " +
                                      std::to_string(j.addr) + " outside or unaligned");
        return;
      }
      if (static_cast<uint64_t>(j.dst_addr) + j.bytes > (1ull << header::kDstAddrBits)) {
        fail(TileErr::kDmemRange, "SEND to address " + std::to_string(j.dst_addr) +
                                      " beyond the 24-bit destination address space");
        return;
      }
      if (j.d.popc != Opcode::kWrite && j.d.popc != Opcode::kReduce) {
        fail(TileErr::kIllegalInstr, std::string("SEND with packet opcode ") + to_string(j.d.popc) +
                                         ": only write and reduce");
        return;
      }
      if (j.d.popc == Opcode::kReduce && !valid_pair(j.d.dtype, j.d.op)) {
        fail(TileErr::kIllegalInstr, std::string("SEND reduce with ") + to_string(j.d.op) + " on " +
                                         to_string(j.d.dtype) + ": not an ALU pair");
        return;
      }
      if (j.dst_chip >= static_cast<uint32_t>(chip_->num_chips)) {
        fail(TileErr::kBadPacket,
             "SEND to chip " + std::to_string(j.dst_chip) + " which does not exist");
        return;
      }
      jobs_.push_back(j);
      break;
    }
    case Isa::kWait: {
      const unsigned c = (imm + b) % kNumCounters;
      if (counters[c] < a) {
        wait_what_ = "WAIT counter " + std::to_string(c) + " >= " + std::to_string(a) + " (now " +
                     std::to_string(counters[c]) + ")";
        wait_kind_ = WaitKind::kCounter;
        wait_ctr_ = c;
        return;
      }
      break;
    }
    case Isa::kWaits:
      if (seq_jobs_ != 0) {
        wait_what_ = "WAITS: sends pending";
        wait_kind_ = WaitKind::kSends;
        return;
      }
      break;
    case Isa::kBar: {
      Barrier& br = *chip_->barrier;
      if (!at_barrier) {
        at_barrier = true;
        bar_gen_ = br.generation;
        if (++br.arrived == br.members) {
          br.arrived = 0;
          ++br.generation;
          br.release_at = now + 2;  // as the RTL: arrived register, then release register
        }
      }
      if (br.generation == bar_gen_ || now < br.release_at) {
        wait_what_ = "BAR: waiting for the other tiles";
        wait_kind_ = WaitKind::kBarrier;
        return;
      }
      at_barrier = false;
      break;
    }
    case Isa::kCsrw:
      if (imm == kCsrAvgScale) {
        avg_scale = a;
      } else if (imm == kCsrAluScale) {
        scale = a;
      } else if (imm == kCsrStream) {
        stream_csr = a;
      } else {
        fail(TileErr::kIllegalInstr, "Csrw to csr " + std::to_string(imm));
        return;
      }
      break;
    default:
      fail(TileErr::kIllegalInstr,
           "illegal instruction " + isa::disasm(w) + " at pc " + std::to_string(pc));
      return;
  }
  regs_[0] = 0;
  ++instrs;
  last_progress = now;
  pc = taken ? imm : pc + 1;
  bubble_ = taken;
}

}  // namespace xf::model
