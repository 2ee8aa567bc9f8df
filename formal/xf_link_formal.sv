// Formal harness of the link retry layer (rtl/xf_link.sv, docs/reliability.md): with it, Yosys and
// yosys-smtbmc (z3) prove by k-induction that the receive side delivers every flit the far
// transmitter accepted exactly once and in order, whatever the wires do to the words: drop,
// delay, stall or corrupt them (scripts/formal.sh runs it; docs/formal.md part 2). Formal only:
// read with `read_verilog -formal -DSYNTHESIS` (the RTL's own simulation assertions compile out;
// this file restates the ones it proves); in no RTL file list.
//
//   source --tx--> u_a ==u_wire_ab (lossy)==> u_b --rx--> sink
//                  u_a <==u_wire_ba (lossy)== u_b           (acks, credits, NAKs)
//
// Environment (every free choice an $anyseq or $anyconst signal):
//   - Reset: rst_ni low in the first cycle, high from then on; both links leave reset together.
//   - Source: tx_valid_i free in every cycle (a superset of the valid/ready rule: the link's
//     tx_ready_o does not depend on tx_valid_i, and the link keeps no flit it did not accept).
//     The flits: the one accepted as number TrackN (mod 256; any number, $anyconst) is TrackFlit
//     (any 130-bit value, $anyconst), every other flit is free. Checking that the flit delivered
//     as number TrackN is TrackFlit, for every TrackN and TrackFlit, checks the whole delivered
//     stream against the accepted one: no flit lost, duplicated, reordered or corrupted.
//   - Sink: u_b's rx_ready_i free (any back-pressure); u_a's receive side is unused (u_b sends
//     no flits: one direction of traffic; u_b's words carry the acks, credits and NAKs back).
//   - Wires: xf_link_formal_wire in each direction: any in-order subsequence of the sent words,
//     each intact or replaced by an arbitrary word, with 0 to WireSlots cycles in the queue.
//   - Assumed (the only assumption about the environment): a corrupted word fails the
//     receiver's CRC check (CrcCatchesA_M, CrcCatchesB_M). A corrupted word passes CRC-32 with
//     probability about 2^-32 (docs/reliability.md section 2); that case is out of scope. The
//     flit, ctl and crc of a corrupted word are otherwise arbitrary, so this covers every error
//     pattern the CRC detects.
//   - The CRC check: the links here are the retry layer alone (rtl/xf_link.sv). The CRC stages
//     that rtl/xf_link_phy.sv puts around it are registers of the whole word on either side of
//     the wire (to the retry layer, two more cycles of wire, and the wire model below delivers
//     with any delay), and their check result, each link's phy_rx_crc_ok_i, is a free value
//     here ($anyseq), so an intact word may fail the check too, like a drop. This only adds
//     behaviours, and z3 cannot unroll the real CRC in useful time.
//
// Ghost state (harness bookkeeping, never seen by the links): acc_q counts the flits u_a accepted
// (tx_valid_i && tx_ready_o), del_q those u_b delivered (rx_valid_o && rx_ready_i), both mod 256
// like the sequence numbers; every word on the A -> B wire carries the value of acc_q when it was
// sent (`n`: every flit it can carry was accepted before n).
//
// Properties (immediate assertions, every cycle after reset):
//   Deliver_A             a flit u_b delivers as number TrackN is TrackFlit (the headline)
//   DeliverNotAhead_A     u_b delivers only flits that were accepted (del_q before acc_q)
//   RxBufferNoOverflow_A, RxBufferLevelInRange_A (u_b), CreditsInRange_A, CreditNoUnderflow_A,
//   ReplayNoOverflow_A, ReplayInWindow_A (u_a): the RTL's assertions of the same names
//   ReplayTermIdle_A      the replay-buffer term of u_a's tx_ready_o never binds (xf_link's
//                         comment: credits alone limit the transmitter)
// and the helper invariants Inv*_A (docs/formal.md part 2 says what each states); being
// asserted, they are proved too. They read internal registers of the links through wires named
// `\u_a.<signal>` with the attribute (* hierconn *): Yosys's flatten connects such a wire to the
// flattened instance's signal of that name (Yosys 0.23 has no hierarchical references);
// scripts/formal.sh fails if one is left unconnected. The covers Cover*_C show that the retry
// paths are reachable: a lost flit delivered after a NAK replay and after a timeout replay, a
// duplicate discarded, a corrupted word, the credits exhausted with the buffer full.
//
// The proof is 1-induction, split into one smtbmc run per group of properties: check_i selects
// the properties a run checks, and split_i assumes (PastProps_M) that every property held in the
// previous cycle. Every run together is exactly the induction step; check_i all ones with
// split_i low is the ordinary model for BMC and covers. Both inputs are constants of a run, set
// by scripts/formal.sh in an smtc file.
//
// Mutations for the sanity check are applied by scripts/formal.sh to a copy of rtl/xf_link.sv.
//
// Parameter constraints: those of xf_link (its header), for the proof to describe a legal link:
// RxBufferFlits >= 2 x (3 + PhyWireDelayCycles), ReplayFlits a power of two >= RxBufferFlits,
// ReplayTimeoutCycles > 2 x (3 + PhyWireDelayCycles); WireSlots >= 1.
module xf_link_formal #(
  // receive buffer of both links (6: the least the credit loop allows with PhyWireDelayCycles 0)
  parameter int RxBufferFlits = 6,
  // nominal wire delay given to the links (used only by their parameter checks; the wire model
  // delivers with any latency from 0 to WireSlots cycles)
  parameter int PhyWireDelayCycles = 0,
  // replay buffer of both links (the least power of two >= RxBufferFlits)
  parameter int ReplayFlits = 8,
  // replay timer (the least above the credit loop of 6 cycles)
  parameter int ReplayTimeoutCycles = 7,
  // replays in a row that set stat_escalated_o (no effect on the properties)
  parameter int EscalateReplays = 2,
  // words each wire can hold
  parameter int WireSlots = 2,
  // 0: only the two replay covers (make formal); 1: all five (scripts/formal.sh --all-covers
  // defines XF_FORMAL_ALL_COVERS)
`ifdef XF_FORMAL_ALL_COVERS
  parameter bit AllCovers = 1'b1
`else
  parameter bit AllCovers = 1'b0
`endif
) (
  input logic        clk_i,    // clock (the solver steps every flip-flop together)
  // Constants for one run, set by scripts/formal.sh through an smtc file (see the header):
  input logic [25:0] check_i,  // the properties this run checks (bit i: property i + 1)
  input logic        split_i   // assume that every property held in the previous cycle
);

  localparam int Rx = RxBufferFlits;
  localparam int CountBits = $clog2(Rx + 1);
  localparam int PtrBits = (Rx > 1) ? $clog2(Rx) : 1;
  localparam int RpBits = $clog2(ReplayFlits);
  localparam int WireCountBits = $clog2(WireSlots + 1);
  localparam int WordBits = 194;  // wire slot: {crc, ctl, flit}
  localparam int Fv = 28;
  localparam logic [7:0] Rx8 = 8'(Rx);

  // ---- Reset: low in the first cycle only ---------------------------------------------------
  logic rst_ni;
  logic rst_done_q = 1'b0;  // initial value: the first state is the reset
  always_ff @(posedge clk_i) begin
    rst_done_q <= 1'b1;
  end
  assign rst_ni = rst_done_q;

  // ---- Free inputs --------------------------------------------------------------------------
  logic [7:0]   track_n;     // the tracked flit number (mod 256)
  logic [129:0] track_flit;  // the tracked flit's value
  logic         tx_valid, b_rx_ready, a_rx_ready, a_crc_ok, b_crc_ok;
  logic [129:0] other_flit;
  assign track_n = $anyconst;
  assign track_flit = $anyconst;
  assign tx_valid = $anyseq;
  assign other_flit = $anyseq;
  assign b_rx_ready = $anyseq;
  assign a_rx_ready = $anyseq;
  assign a_crc_ok = $anyseq;  // the CRC stage's check of the word u_a takes (see the header)
  assign b_crc_ok = $anyseq;

  // ---- Ghost counters -----------------------------------------------------------------------
  logic [7:0]   acc_q, del_q;
  logic [129:0] tx_flit;
  logic         a_tx_ready, a_tx_fire, b_rx_valid, b_pop;
  logic [129:0] b_rx_flit;

  assign tx_flit = (acc_q == track_n) ? track_flit : other_flit;
  assign a_tx_fire = tx_valid && a_tx_ready;
  assign b_pop = b_rx_valid && b_rx_ready;

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      acc_q <= '0;
      del_q <= '0;
    end else begin
      acc_q <= acc_q + (a_tx_fire ? 8'd1 : 8'd0);
      del_q <= del_q + (b_pop ? 8'd1 : 8'd0);
    end
  end

  // ---- The two links ------------------------------------------------------------------------
  logic         a_phy_valid, b_phy_valid, a_in_valid, b_in_valid;
  logic [129:0] a_phy_flit, b_phy_flit, a_in_flit, b_in_flit;
  logic [31:0]  a_phy_ctl, b_phy_ctl, a_in_ctl, b_in_ctl;
  logic [31:0]  a_phy_crc, b_phy_crc, a_in_crc, b_in_crc;  // the wire's CRC field: not read
  logic [15:0]  a_crc_errors, a_discards, a_timeouts, a_replays;
  logic [15:0]  b_crc_errors, b_discards, b_timeouts, b_replays;
  logic [3:0]   a_run, b_run;
  logic         a_escalated, b_escalated, b_tx_ready, a_rx_valid;
  logic [31:0]  a_tx_packets, a_rx_packets, b_tx_packets, b_rx_packets;
  logic [CountBits-1:0] a_credits, a_rx_level, b_credits, b_rx_level;
  logic [129:0] a_rx_flit;

  xf_link #(
    .RxBufferFlits      (RxBufferFlits),
    .PhyWireDelayCycles (PhyWireDelayCycles),
    .ReplayFlits        (ReplayFlits),
    .ReplayTimeoutCycles(ReplayTimeoutCycles),
    .EscalateReplays    (EscalateReplays)
  ) u_a (
    .clk_i            (clk_i),
    .rst_ni           (rst_ni),
    .clr_i            (1'b0),
    .tx_valid_i       (tx_valid),
    .tx_ready_o       (a_tx_ready),
    .tx_flit_i        (tx_flit),
    .rx_valid_o       (a_rx_valid),
    .rx_ready_i       (a_rx_ready),
    .rx_flit_o        (a_rx_flit),
    .phy_tx_valid_o   (a_phy_valid),
    .phy_tx_flit_o    (a_phy_flit),
    .phy_tx_ctl_o     (a_phy_ctl),
    .phy_rx_valid_i   (a_in_valid),
    .phy_rx_flit_i    (a_in_flit),
    .phy_rx_ctl_i     (a_in_ctl),
    .phy_rx_crc_ok_i  (a_crc_ok),
    .stat_crc_errors_o(a_crc_errors),
    .stat_discards_o  (a_discards),
    .stat_timeouts_o  (a_timeouts),
    .stat_replays_o   (a_replays),
    .stat_run_o       (a_run),
    .stat_escalated_o (a_escalated),
    .stat_tx_packets_o(a_tx_packets),
    .stat_rx_packets_o(a_rx_packets),
    .stat_tx_credits_o(a_credits),
    .stat_rx_level_o  (a_rx_level)
  );

  xf_link #(
    .RxBufferFlits      (RxBufferFlits),
    .PhyWireDelayCycles (PhyWireDelayCycles),
    .ReplayFlits        (ReplayFlits),
    .ReplayTimeoutCycles(ReplayTimeoutCycles),
    .EscalateReplays    (EscalateReplays)
  ) u_b (
    .clk_i            (clk_i),
    .rst_ni           (rst_ni),
    .clr_i            (1'b0),
    .tx_valid_i       (1'b0),
    .tx_ready_o       (b_tx_ready),
    .tx_flit_i        ('0),
    .rx_valid_o       (b_rx_valid),
    .rx_ready_i       (b_rx_ready),
    .rx_flit_o        (b_rx_flit),
    .phy_tx_valid_o   (b_phy_valid),
    .phy_tx_flit_o    (b_phy_flit),
    .phy_tx_ctl_o     (b_phy_ctl),
    .phy_rx_valid_i   (b_in_valid),
    .phy_rx_flit_i    (b_in_flit),
    .phy_rx_ctl_i     (b_in_ctl),
    .phy_rx_crc_ok_i  (b_crc_ok),
    .stat_crc_errors_o(b_crc_errors),
    .stat_discards_o  (b_discards),
    .stat_timeouts_o  (b_timeouts),
    .stat_replays_o   (b_replays),
    .stat_run_o       (b_run),
    .stat_escalated_o (b_escalated),
    .stat_tx_packets_o(b_tx_packets),
    .stat_rx_packets_o(b_rx_packets),
    .stat_tx_credits_o(b_credits),
    .stat_rx_level_o  (b_rx_level)
  );

  // ---- The two wires ------------------------------------------------------------------------
  // A word's CRC field travels with it (and a corrupted word's is arbitrary) but nothing reads it:
  // the check is the free phy_rx_crc_ok_i above.
  assign a_phy_crc = '0;
  assign b_phy_crc = '0;
  logic                           ab_corrupt, ba_corrupt, ab_lost, ab_lost_flit;
  logic                           ba_lost, ba_lost_flit;
  logic [7:0]                     ab_out_n;
  logic [31:0]                    ab_sent_ctl, ba_sent_ctl;  // ctl of the delivered word as sent
  logic                           ba_out_ghost;
  logic [WireCountBits-1:0]       ab_count, ba_count;
  logic [WireSlots*WordBits-1:0]  ab_words, ba_words;
  logic [WireSlots*8-1:0]         ab_ns;
  logic [WireSlots-1:0]           ba_ghosts;

  xf_link_formal_wire #(
    .WireSlots(WireSlots),
    .GhostBits(8)
  ) u_wire_ab (
    .clk_i        (clk_i),
    .rst_ni       (rst_ni),
    .in_valid_i   (a_phy_valid),
    .in_flit_i    (a_phy_flit),
    .in_ctl_i     (a_phy_ctl),
    .in_crc_i     (a_phy_crc),
    .in_ghost_i   (acc_q),
    .out_valid_o  (b_in_valid),
    .out_flit_o   (b_in_flit),
    .out_ctl_o    (b_in_ctl),
    .out_crc_o    (b_in_crc),
    .out_corrupt_o(ab_corrupt),
    .out_ghost_o  (ab_out_n),
    .out_sent_ctl_o(ab_sent_ctl),
    .lost_o       (ab_lost),
    .lost_flit_o  (ab_lost_flit),
    .count_o      (ab_count),
    .slot_word_o  (ab_words),
    .slot_ghost_o (ab_ns)
  );

  xf_link_formal_wire #(
    .WireSlots(WireSlots),
    .GhostBits(1)
  ) u_wire_ba (
    .clk_i        (clk_i),
    .rst_ni       (rst_ni),
    .in_valid_i   (b_phy_valid),
    .in_flit_i    (b_phy_flit),
    .in_ctl_i     (b_phy_ctl),
    .in_crc_i     (b_phy_crc),
    .in_ghost_i   (1'b0),
    .out_valid_o  (a_in_valid),
    .out_flit_o   (a_in_flit),
    .out_ctl_o    (a_in_ctl),
    .out_crc_o    (a_in_crc),
    .out_corrupt_o(ba_corrupt),
    .out_ghost_o  (ba_out_ghost),
    .out_sent_ctl_o(ba_sent_ctl),
    .lost_o       (ba_lost),
    .lost_flit_o  (ba_lost_flit),
    .count_o      (ba_count),
    .slot_word_o  (ba_words),
    .slot_ghost_o (ba_ghosts)
  );

  // Shadows of the links' input registers: was the word now in rx_in_q corrupted on the wire,
  // and (A -> B) its n.
  logic       a_in_corrupt_q, b_in_corrupt_q;
  logic [7:0] b_in_n_q;
  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      a_in_corrupt_q <= 1'b0;
      b_in_corrupt_q <= 1'b0;
      b_in_n_q <= '0;
    end else begin
      a_in_corrupt_q <= ba_corrupt;
      b_in_corrupt_q <= ab_corrupt;
      b_in_n_q <= b_in_valid ? ab_out_n : b_in_n_q;
    end
  end

  // ---- Internal signals of the links (connected by flatten, see the header) -----------------
  (* hierconn *) logic [7:0]              \u_a.nxt_q ;
  (* hierconn *) logic [7:0]              \u_a.una_q ;
  (* hierconn *) logic [7:0]              \u_a.rp_q ;
  (* hierconn *) logic                    \u_a.replaying_q ;
  (* hierconn *) logic [7:0]              \u_a.cred_seen_q ;
  (* hierconn *) logic [ReplayFlits*130-1:0] \u_a.rb_q ;
  (* hierconn *) logic                    \u_a.rx_in_valid_q ;
  (* hierconn *) logic [31:0]             \u_a.rx_in_ctl_q ;
  (* hierconn *) logic                    \u_a.rx_good ;
  (* hierconn *) logic [7:0]              \u_b.expected_q ;
  (* hierconn *) logic [7:0]              \u_b.cred_ret_q ;
  (* hierconn *) logic [PtrBits-1:0]      \u_b.rd_ptr_q ;
  (* hierconn *) logic [PtrBits-1:0]      \u_b.wr_ptr_q ;
  (* hierconn *) logic [Rx*130-1:0]       \u_b.buf_q ;
  (* hierconn *) logic                    \u_b.rx_in_valid_q ;
  (* hierconn *) logic [129:0]            \u_b.rx_in_flit_q ;
  (* hierconn *) logic [31:0]             \u_b.rx_in_ctl_q ;
  (* hierconn *) logic                    \u_b.rx_good ;
  (* hierconn *) logic                    \u_b.rx_push ;
  (* hierconn *) logic                    \u_b.rx_behind ;
  (* hierconn *) logic [7:0]              \u_b.nxt_q ;
  (* hierconn *) logic [7:0]              \u_b.una_q ;
  (* hierconn *) logic                    \u_b.replaying_q ;

  logic [7:0] a_nxt, a_una, a_rp, a_cred_seen, b_expected, b_cred_ret;
  logic       a_replaying;
  assign a_nxt = \u_a.nxt_q ;
  assign a_una = \u_a.una_q ;
  assign a_rp = \u_a.rp_q ;
  assign a_replaying = \u_a.replaying_q ;
  assign a_cred_seen = \u_a.cred_seen_q ;
  assign b_expected = \u_b.expected_q ;
  assign b_cred_ret = \u_b.cred_ret_q ;

  // ---- The assumption: the CRC catches every corrupted word ---------------------------------
  always_comb begin
    if (rst_ni) begin
      CrcCatchesA_M: assume (!(a_in_corrupt_q && \u_a.rx_good ));
      CrcCatchesB_M: assume (!(b_in_corrupt_q && \u_b.rx_good ));
    end
  end

  // ---- Properties ---------------------------------------------------------------------------
  // Distances on the sequence-number circle, measured from the oldest point of the credit loop:
  // the far credit count u_a has seen. Every counter below lies within Rx of it.
  // (Yosys 0.23 has no `return`: functions assign their name.)
  function automatic logic [7:0] dist(logic [7:0] a, logic [7:0] b);
    dist = a - b;
  endfunction
  logic [7:0] d_una, d_exp, d_acc, d_del;
  assign d_una = dist(a_una, a_cred_seen);
  assign d_exp = dist(b_expected, a_cred_seen);
  assign d_acc = dist(acc_q, a_cred_seen);
  assign d_del = dist(del_q, a_cred_seen);

  // The tracked flit in the replay buffer and in the receive buffer.
  logic [129:0] rb_tracked, buf_tracked;
  logic         rb_holds, buf_holds;
  logic [7:0]   buf_pos;  // position of the tracked flit in the receive buffer (0: front)
  always_comb begin
    rb_holds = dist(track_n, a_una) < dist(a_nxt, a_una);
    rb_tracked = '0;
    for (int i = 0; i < ReplayFlits; i++) begin
      if (track_n[RpBits-1:0] == RpBits'(i)) rb_tracked = \u_a.rb_q [i*130 +: 130];
    end
    buf_pos = dist(track_n, del_q);
    buf_holds = buf_pos < 8'(b_rx_level);
    buf_tracked = '0;
    for (int i = 0; i < Rx; i++) begin
      // slot (rd_ptr + buf_pos) mod Rx
      if (buf_pos < 8'(Rx) && 8'(\u_b.rd_ptr_q ) + buf_pos == 8'(i)) begin
        buf_tracked = \u_b.buf_q [i*130 +: 130];
      end
      if (buf_pos < 8'(Rx) && 8'(\u_b.rd_ptr_q ) + buf_pos == 8'(i + Rx)) begin
        buf_tracked = \u_b.buf_q [i*130 +: 130];
      end
    end
  end

  // A -> B words: u_a's output register (n = acc_q), the wire's slots, u_b's input register.
  // Each: a flit's number lies within Rx before n; the tracked number carries the tracked flit.
  function automatic logic word_ok(logic [31:0] ctl, logic [129:0] flit, logic [7:0] n,
                                   logic [7:0] tn, logic [129:0] tf);
    word_ok = !ctl[Fv] || (8'(n - ctl[7:0]) >= 8'd1 && 8'(n - ctl[7:0]) <= Rx8 &&
                           (ctl[7:0] != tn || flit == tf));
  endfunction

  logic [WireSlots-1:0] ab_slot_ok, ba_slot_ok;
  logic                 b_in_ok, a_in_ok;
  logic [7:0]           ab_first_n;      // n of the oldest word on the wire (acc_q if none)
  logic [7:0]           ba_first_ack, ba_first_cred;  // fields of the oldest B -> A word
  always_comb begin
    for (int i = 0; i < WireSlots; i++) begin
      logic [WordBits-1:0] w;
      logic [7:0]          n, n_next, ack, cred, ack_next, cred_next;
      w = ab_words[i*WordBits +: WordBits];
      n = ab_ns[i*8 +: 8];
      n_next = (i + 1 < WireSlots && WireCountBits'(i + 1) < ab_count) ?
               ab_ns[((i+1)%WireSlots)*8 +: 8] : acc_q;
      ab_slot_ok[i] = WireCountBits'(i) >= ab_count ||
                      (word_ok(w[161:130], w[129:0], n, track_n, track_flit) &&
                       dist(n, a_cred_seen) >= d_exp && dist(n, a_cred_seen) <=
                       dist(n_next, a_cred_seen));
      // B -> A: ack and credits count up along the wire, towards u_b's current values.
      w = ba_words[i*WordBits +: WordBits];
      ack = w[145:138];
      cred = w[153:146];
      ack_next = (i + 1 < WireSlots && WireCountBits'(i + 1) < ba_count) ?
                 ba_words[((i+1)%WireSlots)*WordBits + 138 +: 8] : b_expected;
      cred_next = (i + 1 < WireSlots && WireCountBits'(i + 1) < ba_count) ?
                  ba_words[((i+1)%WireSlots)*WordBits + 146 +: 8] : b_cred_ret;
      ba_slot_ok[i] = WireCountBits'(i) >= ba_count ||
                      (dist(cred, a_cred_seen) <= dist(ack, a_cred_seen) &&
                       dist(ack, a_cred_seen) >= d_una &&
                       dist(ack, a_cred_seen) <= dist(ack_next, a_cred_seen) &&
                       dist(cred, a_cred_seen) <= dist(cred_next, a_cred_seen));
    end
    ab_first_n = ab_count != '0 ? ab_ns[7:0] : acc_q;
    ba_first_ack = ba_count != '0 ? ba_words[145:138] : b_expected;
    ba_first_cred = ba_count != '0 ? ba_words[153:146] : b_cred_ret;
    b_in_ok = !\u_b.rx_in_valid_q || b_in_corrupt_q ||
              (word_ok(\u_b.rx_in_ctl_q , \u_b.rx_in_flit_q , b_in_n_q, track_n, track_flit) &&
               dist(b_in_n_q, a_cred_seen) >= d_exp &&
               dist(b_in_n_q, a_cred_seen) <= dist(ab_first_n, a_cred_seen));
    a_in_ok = !\u_a.rx_in_valid_q || a_in_corrupt_q ||
              (dist(\u_a.rx_in_ctl_q [23:16], a_cred_seen) <=
               dist(\u_a.rx_in_ctl_q [15:8], a_cred_seen) &&
               dist(\u_a.rx_in_ctl_q [15:8], a_cred_seen) >= d_una &&
               dist(\u_a.rx_in_ctl_q [15:8], a_cred_seen) <= dist(ba_first_ack, a_cred_seen) &&
               dist(\u_a.rx_in_ctl_q [23:16], a_cred_seen) <=
               dist(ba_first_cred, a_cred_seen));
  end

  // Every property as one bit of prop (index = its number in the table of docs/formal.md part 2,
  // minus one), so that goal_i can select one for the split induction step (see the header).
  localparam int NumProps = 26;
  logic [NumProps-1:0] prop, prop_past_q, check;
  always_comb begin
    // The headline: the flit delivered as number track_n is the one accepted as track_n.
    prop[0] = !(b_pop && del_q == track_n) || b_rx_flit == track_flit;  // Deliver_A
    prop[1] = !b_rx_valid || dist(acc_q, del_q) >= 8'(b_rx_level);  // DeliverNotAhead_A
    // The RTL's assertions, restated.
    prop[2] = !(\u_b.rx_push && !b_pop &&
            b_rx_level == CountBits'(Rx));  // RxBufferNoOverflow_A
    prop[3] = b_rx_level <= CountBits'(Rx);  // RxBufferLevelInRange_A
    prop[4] = a_credits <= CountBits'(Rx);  // CreditsInRange_A
    prop[5] = !(a_tx_fire && a_credits == '0);  // CreditNoUnderflow_A
    prop[6] = !(a_tx_fire && dist(a_nxt, a_una) >= 8'(ReplayFlits));  // ReplayNoOverflow_A
    prop[7] = !a_replaying || dist(a_rp, a_una) < dist(a_nxt, a_una);  // ReplayInWindow_A
    // Helper invariants.
    prop[8] = a_nxt == acc_q;  // InvAccIsNxt_A
    prop[9] = b_cred_ret == del_q;  // InvDelIsCredRet_A
    prop[10] = 8'(a_credits) + d_acc == Rx8;  // InvCreditSum_A
    prop[11] = d_una <= d_exp && d_del <= d_exp && d_exp <= d_acc;  // InvOrder_A
    prop[12] = 8'(b_rx_level) == dist(b_expected, del_q);  // InvRxLevel_A
    prop[13] = 8'(\u_b.rd_ptr_q ) < Rx8 && 8'(\u_b.wr_ptr_q ) < Rx8 &&
            (8'(\u_b.rd_ptr_q ) + 8'(b_rx_level)
            == 8'(\u_b.wr_ptr_q ) || 8'(\u_b.rd_ptr_q ) + 8'(b_rx_level) ==
            8'(\u_b.wr_ptr_q ) + Rx8);  // InvRxPtrs_A
    prop[14] = !rb_holds || rb_tracked == track_flit;  // InvReplayData_A
    prop[15] = !buf_holds || buf_tracked == track_flit;  // InvRxBufData_A
    prop[16] = \u_b.una_q == \u_b.nxt_q && !\u_b.replaying_q ;  // InvBIdle_A
    prop[17] = word_ok(a_phy_ctl, a_phy_flit, acc_q, track_n, track_flit);  // InvAOut_A
    prop[18] = ab_count <= WireCountBits'(WireSlots) &&
            ba_count <= WireCountBits'(WireSlots);  // InvWireCount_A
    prop[19] = &ab_slot_ok;  // InvWireAb_A
    prop[20] = b_in_ok;  // InvBIn_A
    prop[21] = b_phy_ctl[15:8] == b_expected && b_phy_ctl[23:16] == b_cred_ret;  // InvBOut_A
    prop[22] = &ba_slot_ok;  // InvWireBa_A
    prop[23] = a_in_ok;  // InvAIn_A
    // The replay-buffer term of u_a's tx_ready_o never binds: credits alone decide.
    prop[24] = !(a_credits != '0 && !a_replaying &&
                 dist(a_nxt, a_una) >= 8'(ReplayFlits));  // ReplayTermIdle_A
    // Each link's tx_ready_o is the register of its condition on the current state.
    prop[25] = a_tx_ready == (a_credits != '0 && !a_replaying &&
                              dist(a_nxt, a_una) < 8'(ReplayFlits)) &&
               b_tx_ready == (b_credits != '0 && !\u_b.replaying_q &&
                              dist(\u_b.nxt_q , \u_b.una_q ) < 8'(ReplayFlits));  // InvTxReady_A
    if (!rst_ni) prop = '1;
  end

  // The previous cycle's properties (no reset: in the first cycle of a run they are free).
  always_ff @(posedge clk_i) begin
    prop_past_q <= prop;
  end

  always_comb begin
    check = check_i;
    if (rst_ni) begin
      if (split_i) begin
        PastProps_M: assume (&prop_past_q);
      end
      Deliver_A: assert (!check[0] || prop[0]);
      DeliverNotAhead_A: assert (!check[1] || prop[1]);
      RxBufferNoOverflow_A: assert (!check[2] || prop[2]);
      RxBufferLevelInRange_A: assert (!check[3] || prop[3]);
      CreditsInRange_A: assert (!check[4] || prop[4]);
      CreditNoUnderflow_A: assert (!check[5] || prop[5]);
      ReplayNoOverflow_A: assert (!check[6] || prop[6]);
      ReplayInWindow_A: assert (!check[7] || prop[7]);
      InvAccIsNxt_A: assert (!check[8] || prop[8]);
      InvDelIsCredRet_A: assert (!check[9] || prop[9]);
      InvCreditSum_A: assert (!check[10] || prop[10]);
      InvOrder_A: assert (!check[11] || prop[11]);
      InvRxLevel_A: assert (!check[12] || prop[12]);
      InvRxPtrs_A: assert (!check[13] || prop[13]);
      InvReplayData_A: assert (!check[14] || prop[14]);
      InvRxBufData_A: assert (!check[15] || prop[15]);
      InvBIdle_A: assert (!check[16] || prop[16]);
      InvAOut_A: assert (!check[17] || prop[17]);
      InvWireCount_A: assert (!check[18] || prop[18]);
      InvWireAb_A: assert (!check[19] || prop[19]);
      InvBIn_A: assert (!check[20] || prop[20]);
      InvBOut_A: assert (!check[21] || prop[21]);
      InvWireBa_A: assert (!check[22] || prop[22]);
      InvAIn_A: assert (!check[23] || prop[23]);
      ReplayTermIdle_A: assert (!check[24] || prop[24]);
      InvTxReady_A: assert (!check[25] || prop[25]);
    end
  end

  // ---- Covers: the retry paths are reachable ------------------------------------------------
  logic       lost_q;       // a flit word was lost or corrupted on the A -> B wire
  logic [7:0] lost_seq_q;   // the number of the first one
  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      lost_q <= 1'b0;
      lost_seq_q <= '0;
    end else if (!lost_q && (ab_lost_flit || (ab_corrupt && ab_sent_ctl[Fv]))) begin
      lost_q <= 1'b1;
      lost_seq_q <= ab_lost_flit ? a_phy_ctl[7:0] : ab_sent_ctl[7:0];
    end
  end

  always_comb begin
    if (rst_ni) begin
      // A lost flit is delivered after a replay that a NAK started (no timeout yet).
      CoverNakReplay_C: cover (lost_q && b_pop && del_q == lost_seq_q && a_timeouts == '0 &&
                               a_replays != '0);
      // ... and after a replay that the timer started.
      CoverTimeoutReplay_C: cover (lost_q && b_pop && del_q == lost_seq_q && a_timeouts != '0);
      if (AllCovers) begin
        // A replayed duplicate reaches u_b and is discarded.
        CoverDuplicate_C: cover (\u_b.rx_behind );
        // A corrupted word reaches u_b and is caught, and a later flit is delivered.
        CoverCorrupt_C: cover (b_crc_errors != '0 && b_pop);
        // Credits exhausted with the receive buffer full.
        CoverCreditsOut_C: cover (a_credits == '0 && b_rx_level == CountBits'(Rx));
      end
    end
  end

  // Unused outputs of the links and wires (this harness checks the A -> B direction).
  logic unused_outputs;
  assign unused_outputs = ^{a_in_crc, b_in_crc, a_crc_errors, a_discards, a_run, a_escalated, a_tx_packets,
                            a_rx_packets, a_rx_level, a_rx_valid, a_rx_flit, b_discards,
                            b_timeouts, b_replays, b_run, b_escalated, b_tx_packets,
                            b_rx_packets, ba_lost, ba_lost_flit,
                            ba_out_ghost, ba_ghosts, ab_lost, ba_sent_ctl, d_del};

endmodule
