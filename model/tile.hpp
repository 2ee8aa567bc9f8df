// Model of xf_tile: sequencer, registers, index register, instruction/parameter/data memories,
// send engine (packets, XB sessions) and receive engine (write, reduce, arrival counters).
// docs/tile.md describes the block; docs/isa.md the instructions.
//
// Per cycle, in this order: the receive engine takes at most one flit from `in`, XB control
// messages are applied, the send engine emits at most one flit into `out`, the sequencer
// executes at most one instruction if the tile was running at the start of the cycle, seeing the
// send queue and session as they were then (an engine's error stops it from the next cycle; the
// RTL's registers, rtl/xf_tile.sv "Cycle order"). All inputs arrive through Pipes, so the order
// of blocks within a cycle does not matter.
#pragma once

#include <cstdlib>
#include <deque>
#include <functional>
#include <new>
#include <string>
#include <systemc>
#include <utility>
#include <vector>

#include "flit.hpp"
#include "xf/alu.hpp"
#include "xf/compiler.hpp"

namespace xf::model {

struct ChipCtx;

// An allocator whose memory starts as zero pages: calloc takes large blocks straight from the
// OS, already zero, and its default construction writes nothing, so a vector of it occupies only
// the pages a run writes. A tile's 768 KiB data memory then costs the bytes the collective uses,
// which lets the model hold machines of thousands of chips (docs/performance.md, section 7).
// Written here because the standard library has no such allocator (std::allocator value-
// initialises every byte, and so touches every page).
template <class T>
struct ZeroPages {
  using value_type = T;
  ZeroPages() = default;
  template <class U>
  explicit ZeroPages(const ZeroPages<U>&) {}
  T* allocate(std::size_t n) {
    if (void* p = std::calloc(n, sizeof(T))) return static_cast<T*>(p);
    throw std::bad_alloc();
  }
  void deallocate(T* p, std::size_t) { std::free(p); }
  template <class U>
  void construct(U*) {}  // default construction: calloc's zeros stand
  template <class U, class... A>
  void construct(U* p, A&&... a) {
    ::new (static_cast<void*>(p)) U(std::forward<A>(a)...);
  }
  friend bool operator==(const ZeroPages&, const ZeroPages&) { return true; }
  friend bool operator!=(const ZeroPages&, const ZeroPages&) { return false; }
};

class Tile : public sc_core::sc_module {
 public:
  sc_core::sc_in<bool> clk_i;

  Tile(sc_core::sc_module_name name, ChipCtx* chip, int tile_id, int num_links);

  // Wiring (owned here, driven by the chip's exchange).
  Pipe<Flit> out;                  // to the exchange
  Pipe<int> out_credits_in{1};     // credits the exchange returns as it takes flits from `out`
  Pipe<Flit> in;                   // from the exchange
  std::vector<Pipe<XbMsg>> xb_in;  // XON/XOFF from each link's XB

  // Memories and state visible to the host port.
  std::vector<uint64_t> imem;
  std::vector<uint32_t> pmem;
  std::vector<uint8_t, ZeroPages<uint8_t>> dmem;  // sized by System: tile_dmem_bytes
  uint32_t counters[kNumCounters] = {};
  uint32_t avg_scale = 1u << kAvgScaleFracBits;  // CSR 16: Avg final scale, Q1.31
  uint32_t scale = kScaleAddResetBits;           // CSR 17: ScaleAdd factor s, fp32 bits
  uint32_t stream_csr = 0;  // CSR 18: a streamed Send's counter (31:27) and value (26:0)
  bool running = false, done = false;
  uint64_t done_cycle = 0;  // cycle its End retired (valid while done; the host's DoneCycles)
  TileErr err = TileErr::kNone;
  uint64_t err_cycle = 0;  // cycle of the first error (valid while err != kNone)
  std::string err_detail;
  // TileErrInfo (the first error's detail: ErrCheck and source of a bad packet, or WaitKind and
  // counter of a watchdog), TileErrCount (packets the receive engine dropped, saturating) and
  // TileWatchdog (period in cycles, 0 = off; kept across reset_state). docs/errors.md.
  uint32_t err_info = 0, err_count = 0, watchdog = 0;
  uint32_t pc = 0;
  uint64_t last_progress = 0;  // cycle of the last instruction retired or flit moved
  uint64_t packets_sent = 0, flits_sent = 0, flits_received = 0, instrs = 0;
  bool at_barrier = false;

  void reset_state();
  // The receive engine's step of cycle `now` (run once per cycle, by the first of tick() and
  // this), then whether it held the flit at the front of `in`: a Reduce payload flit whose word
  // a flit taken in the 5 cycles before still writes (the RTL's read-after-write hold,
  // docs/tile.md section 5). The exchange asks before it routes (TilePort::rx_held).
  bool rx_held(uint64_t now) {
    rx_step(now);
    return rx_held_;
  }
  std::string describe_wait() const;  // what a stalled tile is waiting for
  uint32_t wait_info() const;         // TileErrInfo of a watchdog now: WaitKind | counter << 4

 private:
  struct Job {
    uint32_t addr, bytes, dst_chip, dst_addr;
    SendDesc d;
    // A streamed job (d.stream, docs/tile.md section 4.5): its data are complete once counter
    // sctr reaches sval. Before that: `ann`, the bytes in order from addr that the receive
    // engine has announced (its write due in two cycles) or written since the job was queued,
    // and `avail`, ann a cycle later (the RTL's register). The job starts once ann covers its
    // first word and a payload word leaves once it lies below addr + avail: in the cycle of its
    // write at the earliest (the RTL forwards the write to the send engine's read).
    unsigned sctr = 0;
    uint32_t sval = 0, ann = 0, avail = 0;
    uint64_t pushed = 0;
  };
  // Whether the front job may start (`start`: its first word is due by the next cycle) or its
  // payload byte `off` may leave in this cycle.
  bool stream_ready(const Job& j, uint32_t off, bool start) const;
  void tick();
  void begin_cycle(uint64_t now);
  void rx_step(uint64_t now);
  // Takes the front flit of `in`, or holds it (rx_held_); true when a flit was taken.
  bool receive();
  void send_engine();
  void sequencer();
  void fail(TileErr e, const std::string& why, uint32_t info = 0);
  // The receive engine drops a packet: counted in err_count, reported as the first error.
  void discard(TileErr e, ErrCheck c, uint32_t src_chip, uint32_t src_tile, const std::string& why);
  void watchdog_step();
  bool target_of(const Job& j, Target& t, uint8_t& port);
  void push_out(uint64_t now, const Flit& f);
  void close_session(uint64_t now);
  void count_later(uint64_t now, unsigned ctr, uint32_t n);
  // The receive engine has the whole header (rx_hword_): checks, token, tail (section 6).
  void header_done(uint64_t now, bool tail);

  ChipCtx* chip_;
  int id_;
  uint32_t regs_[kNumRegs] = {};
  std::deque<Job> jobs_;
  // send engine
  bool in_session_ = false, xon_ = false, requested_ = false;
  // The session is held: the last job it sent had the descriptor's hold bit, so it stays open
  // while the queue is empty and the tile runs (docs/tile.md section 4.3).
  bool held_ = false;
  int session_link_ = -1;
  uint32_t job_off_ = 0, pkt_left_ = 0;  // bytes done in the current job, payload flits left
  // The header flits of the current packet still to send after its head flit, and the packed
  // header they come from (docs/packets.md section 3: flit i carries bytes [W*i, W*i + W)).
  uint32_t hdr_left_ = 0;
  std::array<uint8_t, kHeaderBits / 8> tx_hdr_{};
  uint16_t seq_ = 0;
  // Valid/ready into the exchange as credits: kExchangeLatencyCycles + 1 cover the loop.
  int out_credits_ = kExchangeLatencyCycles + 1;
  // What the sequencer sees of the send engine this cycle: its queue and session at the start of
  // the cycle (Tile::tick), the RTL's registers.
  size_t seq_jobs_ = 0;
  bool seq_session_ = false, seq_held_ = false;
  // Whether the tile ran at the start of the cycle: the send engine keeps a held session only
  // then (an error or END in this cycle closes it from the next).
  bool cycle_running_ = false;
  uint64_t cycle_ = UINT64_MAX;  // the cycle begin_cycle() last ran in
  // receive engine
  bool rx_active_ = false, rx_drop_ = false;
  // A header arriving over several flits: the flits taken so far (0 when none is open) and
  // its bytes.
  uint32_t rx_hdr_flits_ = 0;
  std::array<uint8_t, kHeaderBits / 8> rx_hword_{};
  Header rx_hdr_;
  uint32_t rx_off_ = 0;
  // The receive step's cycle (rx_step runs once per cycle), whether it took a flit and whether
  // it held one.
  uint64_t rx_cycle_ = UINT64_MAX;
  bool rx_took_ = false, rx_held_ = false;
  // The DMEM words written by the payload flits taken in the last kRecvHoldCycles cycles (the
  // RTL's stage 1 and ALU stages), as (cycle taken, word); the oldest first. They hold a Reduce
  // to the same word until the cycle after the RTL's write, and count for the streamed jobs
  // twice: announced kStreamNoticeCycles after the flit was taken (the RTL's ALU stage two
  // cycles before the write) and written kRecvHoldCycles after. Not cleared by a start: the
  // RTL's pipeline still writes its flits.
  static constexpr uint64_t kRecvHoldCycles = kRecvPipelineCycles;
  static constexpr uint64_t kStreamNoticeCycles = kRecvPipelineCycles - 2;
  std::deque<std::pair<uint64_t, uint32_t>> rx_writes_;
  // The counter increment applied in this cycle (the send engine reads the counters as they
  // were at the start of the cycle, the RTL's registers).
  uint64_t inc_cycle_ = UINT64_MAX;
  unsigned inc_ctr_ = 0;
  uint32_t inc_n_ = 0;
  std::string wait_what_;
  // watchdog: what the sequencer waits for in this cycle, progress in this cycle, and the
  // consecutive stalled cycles without progress
  WaitKind wait_kind_ = WaitKind::kRunning;
  unsigned wait_ctr_ = 0;
  bool progress_ = false;
  // progress_ of the last cycle: what the watchdog sees (the RTL's register)
  bool progress_q_ = false;
  uint32_t wd_idle_ = 0;
  uint64_t bar_gen_ = 0;
  bool lw_issued_ = false;  // Lw: PMEM read issued, retires next cycle
  bool bubble_ = true;      // the execute stage is empty this cycle (start, taken branch)
  struct PendingCount {
    uint64_t due;
    unsigned ctr;
    uint32_t n;
  };
  std::deque<PendingCount> pending_counts_;  // increments still in the receive pipeline
};

}  // namespace xf::model
