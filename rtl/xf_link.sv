// The retry layer of one endpoint of a chip-to-chip link, both directions of one port
// (docs/exchange.md "RTL: xf_link"; the retry layer: docs/reliability.md sections 1-5; model:
// `Link` and `LinkRetry` in model/link.*). rtl/xf_link_phy.sv wraps it with the CRC-32 stages
// (rtl/xf_crc32.sv), one register each way, and is the endpoint the chips and switches use; the
// link proof (formal/xf_link_formal.sv) checks this module alone. The transmitter decides one link
// word per cycle: a new flit (with a credit), a replayed flit, or an idle word; every word also
// carries this end's receiver state for the reverse direction (ack, cumulative credits returned,
// cumulative NAKs). The receiver accepts each flit exactly once, in sequence order, into a
// RxBufferFlits-deep buffer and returns a credit for every flit the exchange takes from it.
//
//          this link (xf_link_phy: CRC stages around xf_link)              far link
//   tx_flit_i -> [credit?] -> replay buffer -> phy_q -> CRC =wire (3)=> CRC -> rx_in_q -> [seq]
//                 ^ credits_q                                      buffer -> rx_flit_o <-+
//                 +- [seq] <- rx_in_q <- CRC <=wire (3)= CRC <- phy_q <- ack, credits (on pop),
//                                                                        naks
//
// Streams (valid/ready, docs/conventions.md rule 6), flits {head, tail, data[FlitBits-1:0]}:
//   tx_*  accepted with tx_valid_i && tx_ready_o; tx_ready_o = credits_q != 0, no replay running
//         and a free replay entry, itself a register (tx_ready_q, computed from the next state).
//   rx_*  rx_valid_o = buffer not empty, rx_flit_o = its front (registers); taken with
//         rx_valid_o && rx_ready_i.
// PHY side (docs/reliability.md section 1), to and from xf_link_phy's CRC stages: phy_*_valid,
// phy_*_flit, phy_*_ctl (a link_ctl_t: seq, ack, credits mod 256, NAKs mod 16, fv); on the
// receive side phy_rx_crc_ok_i says whether the word's CRC-32 over the FlitBits + 40 bits {ctl,
// 6'b0, head, tail, data} matched (xf_link_phy computes it in the register stage before this
// module's input register).
// Combinational paths: none from an input to an output.
//
// Latency (3 register stages here, 2 in xf_link_phy, plus the wire; PhyWireDelayCycles here is
// the cycles from phy_tx_*_o to the far phy_rx_*_i, the far CRC stage included: xf_link_phy
// passes its own wire + 2, so its wire of 3 gives the model's LinkLatencyCycles = 8 on both paths;
// the retry layer adds no cycle on a clean wire):
//   flit accepted in cycle t                     credit: flit popped by the far end in s
//   t    credit spent, copy into replay buffer   s    far rx_valid_o && rx_ready_i
//   t+1  phy_tx_*_o (phy_q)                [1]   s+1  far phy_tx_ctl_o counts it       [1]
//   t+2  xf_link_phy's output, with the CRC      s+2  its CRC stage
//   t+5  far xf_link_phy's input (3 wire cycles) s+5  (3 wire cycles)
//   t+6  far CRC stage: CRC compared             s+6  CRC stage: CRC compared
//   t+7  far rx_in_q: seq checked          [2]   s+7  rx_in_q                          [2]
//   t+8  far buffer: rx_valid_o            [3]   s+8  credits_q: pays for a flit in s+8 [3]
//   t+15 the far ack has moved una_q here (at most 15 flits unacknowledged at full rate)
//
// Budget: a credit is back 2 x (RegCycles + PhyWireDelayCycles) = 16 cycles after it was spent,
// so RxBufferFlits = 32 sustains one flit per cycle with a margin of 16. The receive buffer never
// overflows (every credit is always in exactly one place; RxBufferNoOverflow_A) and the replay
// buffer neither (a flit is acked no later than its credit returns, so at most RxBufferFlits <=
// ReplayFlits are unacknowledged; ReplayNoOverflow_A): docs/exchange.md "RTL: xf_link".
//
// Parameter constraints: FlitBits 32, 64 or 128 and RxBufferFlits >= 2 x (3 + PhyWireDelayCycles),
// both equal on both ends; ReplayFlits a power of two, RxBufferFlits..64 (8-bit sequence numbers);
// ReplayTimeoutCycles > 2 x (3 + PhyWireDelayCycles) (the ack round trip); EscalateReplays 1..15.
// Both ends leave reset together (or before the first word arrives).
module xf_link #(
  // flit width of the machine: 32, 64 or 128 (docs/packets.md section 2)
  parameter int FlitBits = xf_defs_pkg::FlitBits,
  // depth of the receive buffer in flits; also the initial credits, so the far end's buffer
  // must have the same depth. >= 2 x (3 + PhyWireDelayCycles) for one flit per cycle
  parameter int RxBufferFlits = xf_defs_pkg::LinkRxBufferFlits,
  // cycles between a phy_tx_*_o and the far phy_rx_*_i, each direction (xf_link_phy's CRC stages
  // and the wire); >= 0. Used only by the credit-loop check; LinkLatencyCycles - 3 = 5 (2 CRC
  // stages and 3 wire cycles) matches the model
  parameter int PhyWireDelayCycles = xf_defs_pkg::LinkLatencyCycles - 3,
  // flits of the replay buffer; a power of two >= RxBufferFlits
  parameter int ReplayFlits = xf_defs_pkg::LinkReplayFlits,
  // cycles without ack progress before unacknowledged flits are replayed
  parameter int ReplayTimeoutCycles = xf_defs_pkg::LinkReplayTimeoutCycles,
  // replays in a row without progress that set stat_escalated_o
  parameter int EscalateReplays = xf_defs_pkg::LinkEscalateReplays,
  // the receive and replay buffers: 1 read synchronously one cycle ahead (block RAM, iCE40), 0
  // asynchronously (distributed RAM: ECP5, Xilinx); the same cycles either way
  // (rtl/xf_buf_ram.sv)
  parameter bit SyncBuffers = 1'b0
) (
  input  logic                               clk_i,              // clock
  input  logic                               rst_ni,             // asynchronous reset, active low
  input  logic                               clr_i,              // clear stat_escalated_o
  // transmit stream from the exchange
  input  logic                               tx_valid_i,         // a flit is offered
  output logic                               tx_ready_o,         // credit held, not replaying
  input  logic [FlitBits+1:0]                tx_flit_i,          // {head, tail, data}
  // receive stream to the exchange
  output logic                               rx_valid_o,         // the buffer holds a flit
  input  logic                               rx_ready_i,         // the exchange takes the flit
  output logic [FlitBits+1:0]                rx_flit_o,          // the buffer's front flit
  // PHY, outgoing word (to xf_link_phy's CRC stage)
  output logic                               phy_tx_valid_o,     // a word is present
  output logic [FlitBits+1:0]                phy_tx_flit_o,      // the flit, with ctl fv
  output logic [31:0]                        phy_tx_ctl_o,       // seq, ack, credits, naks, fv
  // PHY, incoming word (the far link's word after the wire and this end's CRC stage)
  input  logic                               phy_rx_valid_i,     // a word is present
  input  logic [FlitBits+1:0]                phy_rx_flit_i,      // the flit, with ctl fv
  input  logic [31:0]                        phy_rx_ctl_i,       // seq, ack, credits, naks, fv
  input  logic                               phy_rx_crc_ok_i,    // its CRC-32 matched
  // statistics (registers; the 16-bit counts saturate at 0xFFFF)
  output logic [15:0]                        stat_crc_errors_o,  // words with a CRC mismatch
  output logic [15:0]                        stat_discards_o,    // good flits out of sequence
  output logic [15:0]                        stat_timeouts_o,    // replay timer expiries
  output logic [15:0]                        stat_replays_o,     // replays started
  output logic [3:0]                         stat_run_o,         // replays in a row now
  output logic                               stat_escalated_o,   // sticky until clr_i
  output logic [31:0]                        stat_tx_packets_o,  // new tail flits sent (wraps)
  output logic [31:0]                        stat_rx_packets_o,  // tail flits accepted (wraps)
  output logic [$clog2(RxBufferFlits+1)-1:0] stat_tx_credits_o,  // credits held now
  output logic [$clog2(RxBufferFlits+1)-1:0] stat_rx_level_o     // flits in the receive buffer
);

  `include "xf_assert.svh"
  `include "xf_types.svh"

  // Register stages of this module on the flit path and on the credit path (see the budget).
  localparam int RegCycles = 3;
  // Cycles a credit is away: flit path plus credit path.
  localparam int CreditLoopCycles = 2 * (RegCycles + PhyWireDelayCycles);
  localparam int CountBits = $clog2(RxBufferFlits + 1);
  localparam int PtrBits = (RxBufferFlits > 1) ? $clog2(RxBufferFlits) : 1;
  localparam int RpBits = $clog2(ReplayFlits);
  localparam int TimerBits = $clog2(ReplayTimeoutCycles + 1);
  localparam logic [CountBits-1:0] RxBufferCount = CountBits'(RxBufferFlits);
  localparam logic [CountBits-1:0] CountOne = CountBits'(1);
  localparam logic [PtrBits-1:0] PtrOne = PtrBits'(1);
  localparam logic [PtrBits-1:0] PtrLast = PtrBits'(RxBufferFlits - 1);
  localparam int FlitW = FlitTypeBits;  // {head, tail, data}: flit_t

  `ASSERT_INIT(PhyWireDelayLegal_A, PhyWireDelayCycles >= 0)
  `ASSERT_INIT(CtlReservedBits_A, LinkCtlTypeBits == 29)  // bits 31:29 of the ctl word are 0
  `ASSERT_INIT(RxBufferSustainsRate_A, RxBufferFlits >= CreditLoopCycles)
  `ASSERT_INIT(FlitBitsLegal_A, (FlitBits == 32 || FlitBits == 64 || FlitBits == 128) &&
                               FlitW == FlitBits + 2)
  `ASSERT_INIT(ReplayFlitsLegal_A, ReplayFlits >= RxBufferFlits && ReplayFlits <= 64 &&
                                   (ReplayFlits & (ReplayFlits - 1)) == 0)
  `ASSERT_INIT(EscalateLegal_A, EscalateReplays >= 1 && EscalateReplays <= 15)
  `ASSERT_INIT(TimeoutLegal_A, ReplayTimeoutCycles > 2 * (RegCycles + PhyWireDelayCycles))

  // True when sequence number a lies behind b (a - b in 128..255, modulo 256).
  function automatic logic seq_behind(logic [7:0] a, logic [7:0] b);
    logic [7:0] d;
    d = a - b;
    seq_behind = d >= 8'd128;  // (Yosys 0.23 has no `return`)
  endfunction

  // Saturating 16-bit increment.
  function automatic logic [15:0] sat_inc(logic [15:0] v, logic en);
    sat_inc = (en && v != 16'hFFFF) ? v + 16'd1 : v;
  endfunction

  // The flits and control fields the link reads (it carries the flits' data without reading it).
  // Waiver: of a flit, the link reads the framing bits only.
  /* verilator lint_off UNUSEDSIGNAL */
  flit_t     tx_flit, rx_in_flit;
  /* verilator lint_on UNUSEDSIGNAL */
  link_ctl_t rx_ctl, tx_ctl;
  assign tx_flit = tx_flit_i;

  // ---- Receiver: input register and checks ---------------------------------------------------
  logic         rx_in_valid_d, rx_in_valid_q;
  logic [FlitW-1:0] rx_in_flit_d, rx_in_flit_q;
  logic [31:0]  rx_in_ctl_d, rx_in_ctl_q;
  logic         rx_in_crc_ok_d, rx_in_crc_ok_q;
  logic         rx_good, rx_bad, rx_fv, rx_accept, rx_ahead, rx_behind;
  logic [7:0]   rx_seq, rx_dist;
  logic [7:0]   expected_d, expected_q;    // next sequence number to accept (the ack we send)
  logic         nak_pending_d, nak_pending_q;
  logic [3:0]   naks_d, naks_q;            // NAKs sent since reset (mod 16)
  logic [7:0]   cred_ret_d, cred_ret_q;    // credits returned since reset (mod 256)
  logic [15:0]  crc_errors_d, crc_errors_q, discards_d, discards_q;
  logic [31:0]  rx_packets_d, rx_packets_q;
  logic         rx_push, rx_pop;

  always_comb begin
    logic [3:0] naks_d_c;
    rx_in_valid_d = phy_rx_valid_i;
    rx_in_flit_d = phy_rx_valid_i ? phy_rx_flit_i : rx_in_flit_q;
    rx_in_ctl_d = phy_rx_valid_i ? phy_rx_ctl_i : rx_in_ctl_q;
    rx_in_crc_ok_d = phy_rx_valid_i ? phy_rx_crc_ok_i : rx_in_crc_ok_q;
    rx_in_flit = rx_in_flit_q;
    rx_ctl = link_ctl_unpack(rx_in_ctl_q);
    rx_good = rx_in_valid_q && rx_in_crc_ok_q;
    rx_bad = rx_in_valid_q && !rx_good;
    rx_fv = rx_good && rx_ctl.fv;
    rx_seq = rx_ctl.seq;
    rx_dist = rx_seq - expected_q;
    rx_accept = rx_fv && rx_dist == 8'd0;
    rx_ahead = rx_fv && rx_dist != 8'd0 && !rx_dist[7];
    rx_behind = rx_fv && rx_dist[7];
    rx_push = rx_accept;
    expected_d = rx_accept ? expected_q + 8'd1 : expected_q;
    nak_pending_d = nak_pending_q;
    naks_d_c = naks_q;
    if (rx_accept) begin
      nak_pending_d = 1'b0;
    end else if (rx_ahead && !nak_pending_q) begin
      nak_pending_d = 1'b1;
      naks_d_c = naks_q + 4'd1;
    end
    cred_ret_d = rx_pop ? cred_ret_q + 8'd1 : cred_ret_q;  // credit on pop
    crc_errors_d = sat_inc(crc_errors_q, rx_bad);
    discards_d = sat_inc(discards_q, rx_ahead || rx_behind);
    rx_packets_d = (rx_accept && rx_in_flit.tail) ? rx_packets_q + 32'd1 : rx_packets_q;
    naks_d = naks_d_c;
  end

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      rx_in_valid_q <= 1'b0;
      rx_in_flit_q <= '0;
      rx_in_ctl_q <= '0;
      rx_in_crc_ok_q <= 1'b0;
      expected_q <= '0;
      nak_pending_q <= 1'b0;
      naks_q <= '0;
      cred_ret_q <= '0;
      crc_errors_q <= '0;
      discards_q <= '0;
      rx_packets_q <= '0;
    end else begin
      rx_in_valid_q <= rx_in_valid_d;
      rx_in_flit_q <= rx_in_flit_d;
      rx_in_ctl_q <= rx_in_ctl_d;
      rx_in_crc_ok_q <= rx_in_crc_ok_d;
      expected_q <= expected_d;
      nak_pending_q <= nak_pending_d;
      naks_q <= naks_d;
      cred_ret_q <= cred_ret_d;
      crc_errors_q <= crc_errors_d;
      discards_q <= discards_d;
      rx_packets_q <= rx_packets_d;
    end
  end

  assign stat_crc_errors_o = crc_errors_q;
  assign stat_discards_o = discards_q;
  assign stat_rx_packets_o = rx_packets_q;

  // ---- Receiver: buffer ----------------------------------------------------------------------
  // Storage, written at wr_ptr_q and read at rd_ptr_q as if asynchronously; not reset, an entry
  // is read only after it is written. Synthesis and simulation see an xf_buf_ram, which FPGA
  // tools map to distributed RAM (ECP5 TRELLIS_DPR16X4) or, with SyncBuffers (read one cycle
  // ahead at rd_ptr_d, the same cycles), to block RAM (iCE40 SB_RAM40_4K; docs/fpga.md section
  // 10) instead of RxBufferFlits*(FlitBits+2) flip-flops and a wide read multiplexer. The link proof (FORMAL,
  // read by Yosys with -formal) sees the same storage as one flat vector buf_q, entry i at
  // [i*FlitW +: FlitW], because its harness reads every entry (formal/xf_link_formal.sv); both
  // forms write the same entry on the same edge and show the same entry.
  logic [FlitW-1:0]             buf_front;
  logic [PtrBits-1:0]           wr_ptr_d, wr_ptr_q, rd_ptr_d, rd_ptr_q;
  logic [CountBits-1:0]         count_d, count_q;

  assign rx_pop = rx_valid_o && rx_ready_i;

`ifdef FORMAL
  logic [RxBufferFlits*FlitW-1:0] buf_d, buf_q;

  always_comb begin
    logic [FlitW-1:0] buf_front_c;
    buf_d = buf_q;
    buf_front_c = '0;
    for (int i = 0; i < RxBufferFlits; i++) begin
      if (rx_push && wr_ptr_q == PtrBits'(i)) buf_d[i*FlitW +: FlitW] = rx_in_flit_q;
      if (rd_ptr_q == PtrBits'(i)) buf_front_c = buf_q[i*FlitW +: FlitW];
    end
    buf_front = buf_front_c;
  end

  always_ff @(posedge clk_i) begin
    buf_q <= buf_d;
  end
`else
  xf_buf_ram #(
    .Words   (RxBufferFlits),
    .DataBits(FlitW),
    .SyncRead(SyncBuffers),
    .AddrBits(PtrBits)
  ) u_rx_buf (
    .clk_i       (clk_i),
    .rst_ni      (rst_ni),
    .we_i        (rx_push),
    .waddr_i     (wr_ptr_q),
    .wdata_i     (rx_in_flit_q),
    .raddr_next_i(rd_ptr_d),
    .raddr_i     (rd_ptr_q),
    .rdata_o     (buf_front)
  );
`endif

  always_comb begin
    wr_ptr_d = wr_ptr_q;
    rd_ptr_d = rd_ptr_q;
    count_d = count_q;
    if (rx_push) begin
      wr_ptr_d = (wr_ptr_q == PtrLast) ? '0 : wr_ptr_q + PtrOne;
    end
    if (rx_pop) begin
      rd_ptr_d = (rd_ptr_q == PtrLast) ? '0 : rd_ptr_q + PtrOne;
    end
    if (rx_push && !rx_pop) begin
      count_d = count_q + CountOne;
    end else if (!rx_push && rx_pop) begin
      count_d = count_q - CountOne;
    end
  end

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      wr_ptr_q <= '0;
      rd_ptr_q <= '0;
      count_q <= '0;
    end else begin
      wr_ptr_q <= wr_ptr_d;
      rd_ptr_q <= rd_ptr_d;
      count_q <= count_d;
    end
  end

  assign rx_valid_o = (count_q != '0);
  assign rx_flit_o = buf_front;
  assign stat_rx_level_o = count_q;

  // ---- Transmitter -----------------------------------------------------------------------------
  logic [CountBits-1:0] credits_d, credits_q;
  logic [7:0]           nxt_d, nxt_q;          // seq of the next new flit
  logic [7:0]           una_d, una_q;          // oldest unacknowledged seq
  logic [7:0]           rp_d, rp_q;            // next seq to replay
  logic                 replaying_d, replaying_q;
  logic [TimerBits-1:0] timer_d, timer_q;
  logic [7:0]           cred_seen_d, cred_seen_q;  // far credits count last seen
  logic [3:0]           naks_seen_d, naks_seen_q;  // far NAK count last seen
  logic [3:0]           run_d, run_q;
  logic                 escalated_d, escalated_q;
  logic [15:0]          timeouts_d, timeouts_q, replays_d, replays_q;
  logic [31:0]          tx_packets_d, tx_packets_q;
  logic                 tx_in_pkt_d, tx_in_pkt_q;  // inside a packet (head taken, tail not yet)
  logic                 tx_fire, progress, nak_new, timeout, start_replay, ack_ok;
  logic [7:0]           ack_in, cred_in, cred_delta;
  logic [FlitW-1:0]     rb_front;               // replay buffer entry rp_q mod ReplayFlits
  logic                 phy_valid_d, phy_valid_q;
  logic [FlitW-1:0]     phy_flit_d, phy_flit_q;
  logic [31:0]          phy_ctl_d, phy_ctl_q;
  logic                 phy_fv;
  logic [7:0]           phy_seq;

  // The replay-buffer term never binds with a correct far end (the header's argument); it keeps a
  // far end that returns credits without acks from overwriting unacknowledged flits. A register
  // (tx_ready_q), computed from the next state, so that the consumers' grant and pop decisions
  // start from a flip-flop instead of behind an 8-bit subtract and compare (TxReadyRegister_A).
  logic tx_ready_d, tx_ready_q;
  assign tx_ready_o = tx_ready_q;
  function automatic logic tx_ready_of(logic [CountBits-1:0] credits, logic replaying,
                                       logic [7:0] nxt, logic [7:0] una);
    tx_ready_of = credits != '0 && !replaying && 8'(nxt - una) < 8'(ReplayFlits);
  endfunction
  assign tx_fire = tx_valid_i && tx_ready_o;

  always_comb begin
    // Control fields of a good far word: ack, credits, NAKs (cumulative, so a lost word only
    // delays them). An ack outside una..nxt cannot come from a correct far end; it is ignored.
    ack_in = rx_ctl.ack;
    cred_in = rx_ctl.credits;
    ack_ok = rx_good && (8'(ack_in - una_q) <= 8'(nxt_q - una_q));
    una_d = ack_ok ? ack_in : una_q;
    progress = una_d != una_q;
    cred_delta = rx_good ? 8'(cred_in - cred_seen_q) : 8'd0;
    cred_seen_d = rx_good ? cred_in : cred_seen_q;
    nak_new = rx_good && rx_ctl.naks != naks_seen_q;
    naks_seen_d = rx_good ? rx_ctl.naks : naks_seen_q;
    timeout = !replaying_q && una_q != nxt_q && !progress &&
              timer_q == TimerBits'(ReplayTimeoutCycles - 1);
    start_replay = nak_new || timeout;

    credits_d = CountBits'(8'(credits_q) - (tx_fire ? 8'd1 : 8'd0) + cred_delta);

    // This cycle's word: a replayed flit, a new flit, or an idle word.
    nxt_d = tx_fire ? nxt_q + 8'd1 : nxt_q;
    phy_fv = replaying_q || tx_fire;
    phy_seq = replaying_q ? rp_q : nxt_q;
    phy_flit_d = replaying_q ? rb_front : (tx_fire ? tx_flit_i : phy_flit_q);
    tx_ctl.fv = phy_fv;
    tx_ctl.naks = naks_d;
    tx_ctl.credits = cred_ret_d;
    tx_ctl.ack = expected_d;
    tx_ctl.seq = phy_seq;
    phy_ctl_d = link_ctl_pack(tx_ctl);
    phy_valid_d = 1'b1;

    // Replay pointer: a new replay starts from the oldest unacknowledged flit; a running one
    // ends when it has resent the newest.
    rp_d = rp_q;
    replaying_d = replaying_q;
    if (replaying_q) begin
      rp_d = rp_q + 8'd1;
      // An ack that overtakes the replay skips the flits it acknowledges.
      if (8'(una_d - rp_d) != 8'd0 && !seq_behind(una_d, rp_d)) rp_d = una_d;
      replaying_d = rp_d != nxt_q;
    end
    if (start_replay) begin
      rp_d = una_d;
      replaying_d = una_d != nxt_d;
    end

    // Timer: counts while flits wait for an ack and no replay runs.
    if (progress || start_replay || replaying_q || una_q == nxt_q) begin
      timer_d = '0;
    end else begin
      timer_d = timer_q + TimerBits'(1);
    end

    run_d = run_q;
    if (progress) run_d = 4'd0;
    if (start_replay && run_d != 4'hF) run_d = run_d + 4'd1;
    escalated_d = (escalated_q && !clr_i) || run_d >= 4'(EscalateReplays);
    timeouts_d = sat_inc(timeouts_q, timeout);
    replays_d = sat_inc(replays_q, start_replay);
    tx_in_pkt_d = tx_fire ? !tx_flit.tail : tx_in_pkt_q;
    tx_packets_d = (tx_fire && tx_flit.tail) ? tx_packets_q + 32'd1 : tx_packets_q;
    tx_ready_d = tx_ready_of(credits_d, replaying_d, nxt_d, una_d);
  end

  // Replay buffer: entry seq mod ReplayFlits, written when a new flit is sent, read at rp_q as if
  // asynchronously; not reset (read only while replaying, of entries written before). An
  // xf_buf_ram (with SyncBuffers read ahead at rp_d) for synthesis and simulation, a flat vector
  // rb_q for the link proof, as the receive buffer above.
`ifdef FORMAL
  logic [ReplayFlits*FlitW-1:0] rb_d, rb_q;

  always_comb begin
    logic [FlitW-1:0] rb_front_c;
    rb_d = rb_q;
    rb_front_c = '0;
    for (int i = 0; i < ReplayFlits; i++) begin
      if (rp_q[RpBits-1:0] == RpBits'(i)) rb_front_c = rb_q[i*FlitW +: FlitW];
      if (tx_fire && nxt_q[RpBits-1:0] == RpBits'(i)) rb_d[i*FlitW +: FlitW] = tx_flit_i;
    end
    rb_front = rb_front_c;
  end

  always_ff @(posedge clk_i) begin
    rb_q <= rb_d;
  end
`else
  xf_buf_ram #(
    .Words   (ReplayFlits),
    .DataBits(FlitW),
    .SyncRead(SyncBuffers),
    .AddrBits(RpBits)
  ) u_replay_buf (
    .clk_i       (clk_i),
    .rst_ni      (rst_ni),
    .we_i        (tx_fire),
    .waddr_i     (nxt_q[RpBits-1:0]),
    .wdata_i     (tx_flit_i),
    .raddr_next_i(rp_d[RpBits-1:0]),
    .raddr_i     (rp_q[RpBits-1:0]),
    .rdata_o     (rb_front)
  );
`endif

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      credits_q <= RxBufferCount;
      tx_ready_q <= RxBufferCount != '0;  // and no replay, no flit unacknowledged
      nxt_q <= '0;
      una_q <= '0;
      rp_q <= '0;
      replaying_q <= 1'b0;
      timer_q <= '0;
      cred_seen_q <= '0;
      naks_seen_q <= '0;
      run_q <= '0;
      escalated_q <= 1'b0;
      timeouts_q <= '0;
      replays_q <= '0;
      tx_packets_q <= '0;
      tx_in_pkt_q <= 1'b0;
      phy_valid_q <= 1'b0;
      phy_flit_q <= '0;
      phy_ctl_q <= '0;
    end else begin
      credits_q <= credits_d;
      tx_ready_q <= tx_ready_d;
      nxt_q <= nxt_d;
      una_q <= una_d;
      rp_q <= rp_d;
      replaying_q <= replaying_d;
      timer_q <= timer_d;
      cred_seen_q <= cred_seen_d;
      naks_seen_q <= naks_seen_d;
      run_q <= run_d;
      escalated_q <= escalated_d;
      timeouts_q <= timeouts_d;
      replays_q <= replays_d;
      tx_packets_q <= tx_packets_d;
      tx_in_pkt_q <= tx_in_pkt_d;
      phy_valid_q <= phy_valid_d;
      phy_flit_q <= phy_flit_d;
      phy_ctl_q <= phy_ctl_d;
    end
  end

  assign phy_tx_valid_o = phy_valid_q;
  assign phy_tx_flit_o = phy_flit_q;
  assign phy_tx_ctl_o = phy_ctl_q;
  assign stat_timeouts_o = timeouts_q;
  assign stat_replays_o = replays_q;
  assign stat_run_o = run_q;
  assign stat_escalated_o = escalated_q;
  assign stat_tx_packets_o = tx_packets_q;
  assign stat_tx_credits_o = credits_q;

  // ---- Assertions ----------------------------------------------------------------------------
  // The receive buffer never overflows (the credit conservation argument in the header).
  `ASSERT(RxBufferNoOverflow_A, !(rx_push && !rx_pop && count_q == RxBufferCount))
  `ASSERT(RxBufferLevelInRange_A, count_q <= RxBufferCount)
  // Credits stay in 0..RxBufferFlits: never spent below zero, never returned above the start.
  `ASSERT(CreditsInRange_A, credits_q <= RxBufferCount)
  `ASSERT(CreditNoUnderflow_A, !(tx_fire && credits_q == '0))
  // The replay buffer never overwrites an unacknowledged flit (the argument in the header).
  `ASSERT(ReplayNoOverflow_A, !(tx_fire && 8'(nxt_q - una_q) >= 8'(ReplayFlits)))
  // A replay resends only numbers that were sent.
  `ASSERT(ReplayInWindow_A, !replaying_q || 8'(rp_q - una_q) < 8'(nxt_q - una_q))
  // Valid/ready rules on the transmit input (the exchange's obligations) and the receive output.
  `ASSERT_KNOWN(TxValidKnown_A, tx_valid_i)
  `ASSERT_KNOWN(RxReadyKnown_A, rx_ready_i)
  `ASSERT_KNOWN(PhyRxValidKnown_A, phy_rx_valid_i)
  `ASSERT(TxReadyRegister_A, tx_ready_q == tx_ready_of(credits_q, replaying_q, nxt_q, una_q))
  `ASSERT(TxValidHolds_A, !$past(tx_valid_i && !tx_ready_o) || tx_valid_i)
  `ASSERT_STABLE(TxFlitStable_A, tx_flit_i, tx_valid_i && !tx_ready_o)
  `ASSERT(RxValidHolds_A, !$past(rx_valid_o && !rx_ready_i) || rx_valid_o)
  `ASSERT_STABLE(RxFlitStable_A, rx_flit_o, rx_valid_o && !rx_ready_i)
  // The exchange hands over whole packets (wormhole): a head exactly when no packet is open.
  `ASSERT(TxFraming_A, !tx_fire || (tx_flit.head == !tx_in_pkt_q))

endmodule
