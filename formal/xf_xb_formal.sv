// Formal harness of the exchange block (rtl/xf_xb.sv): with it, Yosys and yosys-smtbmc (z3)
// prove by k-induction that the XB queue never overflows and never drops a flit while the tiles
// obey the XREQ / GRANT / XOFF / XON / XDONE protocol of docs/exchange.md section 3 with the
// latencies of the XOFF budget of section 4 (scripts/formal.sh runs it; docs/formal.md).
// Formal only: read with `read_verilog -formal -DSYNTHESIS` (the RTL's own simulation
// assertions compile out; this file restates what it proves); in no RTL file list.
//
// Environment: every free choice is an $anyseq signal and nothing is assumed, so the harness
// can only produce what the protocol allows:
//   - Reset: rst_ni is low in the first cycle and high from then on (a register with an
//     initial value: the solver's first state is the reset).
//   - Message path: every msg_valid_o / msg_kind_o passes CtrlLatencyCycles register stages
//     (XbCtrlLatencyCycles = 2, the exchange's wiring) before its tile sees it.
//   - Tiles (NumTiles of them), each with a phase IDLE / WAIT / SESS and an XON flag, as the
//     send engine (docs/tile.md section 4.3): IDLE may emit XREQ (then WAIT); WAIT emits nothing
//     and takes only a GRANT (then SESS with XON); SESS may emit XDONE in any cycle (then IDLE,
//     stopped or not: a tile whose send queue ran empty) or, while its XON flag allows, a data
//     flit in any cycle (back-to-back or with any gaps). In SESS an XOFF clears the flag and an
//     XON sets it; a message in IDLE, a GRANT in SESS and XON / XOFF in WAIT are discarded, as
//     the tile does. One emission per tile and cycle at most.
//   - Tile reaction: TileLagCycles = 1 makes the tile decide on its registered phase and flag,
//     so it still emits in the cycle an XOFF reaches it (the budget's "tile that registers
//     XOFF"); 0 is the model's tile, which applies a message before it decides.
//   - Tile path: an emission reaches the XB PathStages cycles later, in order, never refused
//     (the exchange takes a link-bound front in the cycle it appears). The default 3 is the
//     tile's output register plus the budget's two path stages, one more than the RTL exchange
//     (whose ExchangeLatencyCycles = 2 includes the output register).
//   - Link: out_ready_i is free in every cycle (any drain pattern, none at all for ever).
//     With ConsumerStage = 1 (the exchange as built, the XB's StagedConsumer) the XB feeds a
//     one-flit stage, as the router's input stage: the stage takes the offered flit when it is
//     empty or its flit leaves, and its flit leaves in any cycle (free, any pattern); a flit
//     counts until it leaves the stage.
// Flits that can reach the XB after its XOFF decision: EnvInFlightFlits = CtrlLatencyCycles +
// TileLagCycles + PathStages - 1 = 2 + 1 + 3 - 1 = 5 with the defaults, the budget's
// InFlightFlits; 3 with TileLagCycles = 0 and PathStages = 2 (the exchange as built).
// Not modelled: tile-bound flits in a tile's path. With the exchange's 3 path credits they can
// only delay the link-bound flits behind them, never add any after an XOFF (docs/exchange.md,
// RTL xf_exchange, Budget).
//
// Properties (immediate assertions, checked in every cycle after reset):
//   NoOverflow_A     occ = stat_occupancy_o + in_valid_i (+ a flit the stage keeps) <= QueueFlits:
//                    no flit ever arrives at a full queue (the RTL's QueueNoOverflow_A)
//   NoDrop_A         the queue (and stage) hold exactly the flits that arrived minus those that
//                    left
//                    (a ghost count kept here, independent of the XB's counter)
//   NoOverflowFlag_A the XB's own sticky stat_overflow_o never rises
//   PeakInBudget_A   occ <= XoffThresholdFlits + EnvInFlightFlits (29; 27 for the exchange as
//                    built): the budget's peak for the documented threshold, so it fails if
//                    the XB's threshold is raised at all (XoffDeltaFlits > 0)
//   OneDataPerXb_A   at most one tile's flit reaches the XB per cycle (sessions never overlap)
//   NoProtoErr_A     the XB never flags a protocol error (stat_proto_err_o). Bounded only
//                    (ProtoErrCheck = 0 in the induction): XREQ errors depend on the XB's
//                    request list, internal state this harness cannot see or constrain
// and the helper invariants Inv*_A that make the properties 5-inductive (docs/formal.md says
// which are needed): they tie each tile's phase, XON flag, path and the messages in flight to
// the XB's grant and XOFF flag. Being asserted, they are proved too. The covers Cover*_C show
// that the environment reaches the budget's peak, a hand-over at the edge of the grant rule
// and an XON, so the proof is not vacuous.
//
// Parameter constraints: 1 <= NumTiles <= 16; CtrlLatencyCycles >= 1; PathStages >= 1;
// TileLagCycles in {0, 1}; the XB's own constraints (xf_xb.sv header) with
// XoffThresholdFlits + XoffDeltaFlits in its place.
module xf_xb_formal #(
  // tiles sharing the XB (2: requests can wait while another tile holds the grant)
  parameter int NumTiles = 2,
  // queue depth and thresholds: the real ones
  parameter int QueueFlits = xf_defs_pkg::XbQueueFlits,
  parameter int XoffThresholdFlits = xf_defs_pkg::XbXoffThresholdFlits,
  parameter int XonThresholdFlits = xf_defs_pkg::XbXonThresholdFlits,
  // mutation only: added to the XOFF threshold of the XB instance (the properties keep the
  // nominal XoffThresholdFlits); scripts/formal.sh --xoff-delta N sets it
  parameter int XoffDeltaFlits = 0,
  // register stages from msg_*_o to the tile (XbCtrlLatencyCycles)
  parameter int CtrlLatencyCycles = xf_defs_pkg::XbCtrlLatencyCycles,
  // 1: the tile acts on a message one cycle after it arrives; 0: in the cycle it arrives
  parameter int TileLagCycles = 1,
  // cycles from a tile's emission to the XB's input (output register + path stages)
  parameter int PathStages = xf_defs_pkg::ExchangeLatencyCycles + 1,
  // 1: the XB feeds a one-flit stage (StagedConsumer, the router's input stage); 0: the link
  parameter bit ConsumerStage = 1'b0,
  // 1: assert NoProtoErr_A (BMC only, see the header); 0: leave it out (the induction run)
  parameter bit ProtoErrCheck = 1'b1
) (
  input logic clk_i  // clock (the solver steps every flip-flop together)
);

  localparam int OccBits = $clog2(QueueFlits + 3);
  localparam int MsgBits = NumTiles + 2;  // one message stage: {kind, valid per tile}
  // flits that can reach the XB after it decides XOFF (docs/exchange.md section 4)
  localparam int EnvInFlightFlits = CtrlLatencyCycles + TileLagCycles + PathStages - 1;
  localparam int PeakFlits = XoffThresholdFlits + EnvInFlightFlits;

  localparam logic [1:0] MsgGrant = xf_defs_pkg::XB_MSG_GRANT;
  localparam logic [1:0] MsgXon = xf_defs_pkg::XB_MSG_XON;
  localparam logic [1:0] MsgXoff = xf_defs_pkg::XB_MSG_XOFF;

  // Tile phases and path tokens.
  localparam logic [1:0] PhIdle = 2'd0;
  localparam logic [1:0] PhWait = 2'd1;
  localparam logic [1:0] PhSess = 2'd2;
  localparam logic [1:0] TokNone = 2'd0;
  localparam logic [1:0] TokData = 2'd1;
  localparam logic [1:0] TokXreq = 2'd2;
  localparam logic [1:0] TokXdone = 2'd3;

  // ---- Reset: low in the first cycle only -------------------------------------------------------
  logic rst_ni;
  logic rst_done_q = 1'b0;  // initial value: the first state is the reset
  always_ff @(posedge clk_i) begin
    rst_done_q <= 1'b1;
  end
  assign rst_ni = rst_done_q;

  // ---- Free inputs ------------------------------------------------------------------------------
  logic [NumTiles-1:0] want_req, want_done, want_data;  // a tile's choices this cycle
  logic                out_ready;                       // the link takes the offered flit
  logic                leave;                           // the stage's flit leaves (ConsumerStage)
  assign want_req = $anyseq;
  assign want_done = $anyseq;
  assign want_data = $anyseq;
  assign leave = $anyseq;

  // ---- The consumer: the link itself, or a one-flit stage in front of it ------------------------
  logic stage_d, stage_q;  // the stage holds a flit (ConsumerStage)
  logic departure;         // a flit stops counting: taken by the link, or leaves the stage
  logic stage_held;        // the stage holds a flit that does not leave this cycle
  logic out_valid;
  if (ConsumerStage) begin : gen_stage
    assign out_ready = !stage_q || leave;
    assign departure = stage_q && leave;
    assign stage_held = stage_q && !leave;
    assign stage_d = (out_valid && out_ready) || stage_held;
  end else begin : gen_link
    assign out_ready = $anyseq;
    assign departure = out_valid && out_ready;
    assign stage_held = 1'b0;
    assign stage_d = 1'b0;
  end
  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      stage_q <= 1'b0;
    end else begin
      stage_q <= stage_d;
    end
  end

  // ---- The XB under proof -----------------------------------------------------------------------
  logic [NumTiles-1:0] xreq, xdone, msg_valid;
  logic [1:0]          msg_kind;
  logic                in_valid;
  logic [129:0]        out_flit;
  logic [OccBits-1:0]  occupancy, max_occupancy;
  logic                granted_valid, xoff, overflow, proto_err;
  logic [3:0]          granted_tile;
  logic [15:0]         overflow_count;

  xf_xb #(
    .NumTiles          (NumTiles),
    .QueueFlits        (QueueFlits),
    .XoffThresholdFlits(XoffThresholdFlits + XoffDeltaFlits),
    .XonThresholdFlits (XonThresholdFlits),
    .StagedConsumer    (ConsumerStage)
  ) u_xb (
    .clk_i                (clk_i),
    .rst_ni               (rst_ni),
    .xreq_i               (xreq),
    .xdone_i              (xdone),
    .in_valid_i           (in_valid),
    .in_flit_i            ('0),  // the data is not part of this proof
    .msg_valid_o          (msg_valid),
    .msg_kind_o           (msg_kind),
    .out_valid_o          (out_valid),
    .out_ready_i          (out_ready),
    .out_flit_o           (out_flit),
    .stat_occupancy_o     (occupancy),
    .stat_max_occupancy_o (max_occupancy),
    .stat_granted_valid_o (granted_valid),
    .stat_granted_tile_o  (granted_tile),
    .stat_xoff_o          (xoff),
    .stat_overflow_o      (overflow),
    .stat_overflow_count_o(overflow_count),
    .stat_proto_err_o     (proto_err)
  );

  // ---- Message path: CtrlLatencyCycles register stages ------------------------------------------
  // Stage 0 holds the message sent in the previous cycle; the tile sees the last stage.
  // Not rtl/xf_delay.sv: the helper invariants below read every stage (messages in flight),
  // and xf_delay exposes only its last.
  logic [CtrlLatencyCycles*MsgBits-1:0] msg_pipe_d, msg_pipe_q;
  if (CtrlLatencyCycles > 1) begin : gen_msg_shift
    assign msg_pipe_d = {msg_pipe_q[(CtrlLatencyCycles-1)*MsgBits-1:0], msg_kind, msg_valid};
  end else begin : gen_msg_one
    assign msg_pipe_d = {msg_kind, msg_valid};
  end
  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      msg_pipe_q <= '0;
    end else begin
      msg_pipe_q <= msg_pipe_d;
    end
  end

  // ---- Tiles and their paths --------------------------------------------------------------------
  logic [2*NumTiles-1:0] phase_all;    // each tile's phase (registered)
  logic [NumTiles-1:0]   xon_all;      // each tile's XON flag (registered)
  logic [NumTiles-1:0]   eff_xon;      // the flag once every message in flight has arrived
  logic [NumTiles-1:0]   grant_inflight;  // a GRANT for the tile is on the message path
  logic [NumTiles-1:0]   path_data;    // a data flit is on the tile's path
  logic [NumTiles-1:0]   path_xdone;   // an XDONE is on the tile's path
  logic [NumTiles-1:0]   in_data;      // the tile's path delivers a data flit now

  for (genvar i = 0; i < NumTiles; i++) begin : gen_tile
    logic [1:0]              phase_d, phase_q;
    logic                    xon_d, xon_q;
    logic [1:0]              dec_phase;  // phase the emission decision uses
    logic                    dec_xon;    // flag the emission decision uses
    logic [1:0]              tok;        // this cycle's emission
    logic [2*PathStages-1:0] path_d, path_q;  // stage 0: the tile's output register
    logic [1:0]              front;      // what reaches the XB now
    logic                    seen_valid;
    logic [1:0]              seen_kind;

    assign seen_valid = msg_pipe_q[(CtrlLatencyCycles-1)*MsgBits + i];
    assign seen_kind = msg_pipe_q[(CtrlLatencyCycles-1)*MsgBits + NumTiles +: 2];

    always_comb begin
      // Messages first (the tile's rules), then the emission on the phase and flag the tile's
      // reaction uses: after this cycle's message (TileLagCycles = 0) or before it (1).
      phase_d = phase_q;
      xon_d = xon_q;
      if (seen_valid) begin
        if (phase_q == PhWait && seen_kind == MsgGrant) begin
          phase_d = PhSess;
          xon_d = 1'b1;
        end else if (phase_q == PhSess && seen_kind != MsgGrant) begin
          xon_d = seen_kind == MsgXon;
        end
      end
      dec_phase = TileLagCycles != 0 ? phase_q : phase_d;
      dec_xon = TileLagCycles != 0 ? xon_q : xon_d;
      tok = TokNone;
      if (dec_phase == PhIdle && want_req[i]) begin
        tok = TokXreq;
        phase_d = PhWait;
      end else if (dec_phase == PhSess && want_done[i]) begin
        tok = TokXdone;
        phase_d = PhIdle;
        xon_d = 1'b0;
      end else if (dec_phase == PhSess && dec_xon && want_data[i]) begin
        tok = TokData;
      end
    end

    if (PathStages > 1) begin : gen_path_shift
      assign path_d = {path_q[2*(PathStages-1)-1:0], tok};
    end else begin : gen_path_one
      assign path_d = tok;
    end
    assign front = path_q[2*(PathStages-1) +: 2];

    always_ff @(posedge clk_i or negedge rst_ni) begin
      if (!rst_ni) begin
        phase_q <= PhIdle;
        xon_q <= 1'b0;
        path_q <= '0;
      end else begin
        phase_q <= phase_d;
        xon_q <= xon_d;
        path_q <= path_d;
      end
    end

    assign xreq[i] = front == TokXreq;
    assign xdone[i] = front == TokXdone;
    assign in_data[i] = front == TokData;
    assign phase_all[2*i +: 2] = phase_q;
    assign xon_all[i] = xon_q;

    // Summaries for the invariants.
    always_comb begin
      path_data[i] = 1'b0;
      path_xdone[i] = 1'b0;
      for (int s = 0; s < PathStages; s++) begin
        path_data[i] = path_data[i] || path_q[2*s +: 2] == TokData;
        path_xdone[i] = path_xdone[i] || path_q[2*s +: 2] == TokXdone;
      end
      // Oldest message first, so the newest one decides.
      eff_xon[i] = xon_q;
      grant_inflight[i] = 1'b0;
      for (int s = CtrlLatencyCycles - 1; s >= 0; s--) begin
        if (msg_pipe_q[s*MsgBits + i]) begin
          if (msg_pipe_q[s*MsgBits + NumTiles +: 2] == MsgGrant) begin
            grant_inflight[i] = 1'b1;
          end else begin
            eff_xon[i] = msg_pipe_q[s*MsgBits + NumTiles +: 2] == MsgXon;
          end
        end
      end
    end
  end

  assign in_valid = |in_data;

  // ---- Ghost count: arrivals minus departures ---------------------------------------------------
  // One bit wider than the occupancy so that a lost flit or an overflow shows as a mismatch.
  logic [OccBits:0] ghost_count_d, ghost_count_q;
  assign ghost_count_d = ghost_count_q + (OccBits+1)'(in_valid) - (OccBits+1)'(departure);
  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      ghost_count_q <= '0;
    end else begin
      ghost_count_q <= ghost_count_d;
    end
  end

  // ---- Properties -------------------------------------------------------------------------------
  logic [OccBits:0] occ;   // occupancy after this cycle's enqueue (the XB's occ)
  logic [OccBits:0] held;  // flits counted at the start of the cycle: queue and stage
  assign occ = (OccBits+1)'(occupancy) + (OccBits+1)'(in_valid) + (OccBits+1)'(stage_held);
  assign held = (OccBits+1)'(occupancy) + (OccBits+1)'(ConsumerStage && stage_q);

  logic [NumTiles-1:0] granted_to;  // the tile holding the grant (one-hot or zero)
  for (genvar t = 0; t < NumTiles; t++) begin : gen_granted_to
    assign granted_to[t] = granted_valid && granted_tile == 4'(t);
  end

  always_comb begin
    if (rst_ni) begin
      NoOverflow_A: assert (occ <= (OccBits+1)'(QueueFlits));
      NoDrop_A: assert (ghost_count_q == held);
      NoOverflowFlag_A: assert (!overflow);
      PeakInBudget_A: assert (occ <= (OccBits+1)'(PeakFlits));
      if (ProtoErrCheck) begin
        NoProtoErr_A: assert (!proto_err);
      end
      OneDataPerXb_A: assert ((in_data & (in_data - 1'b1)) == '0);

      // Helper invariants (true in every reachable state; they make the induction go through).
      // While a tile holds the grant with XON in force, the queue is below the XOFF threshold:
      // XOFF is sent the first cycle occ reaches it, a grant needs occ below it, XON occ <= 8.
      // Not needed for the proof; it shortens the induction from 6 cycles to 5.
      InvBelowXoff_A: assert (!granted_valid || xoff ||
                              held < (OccBits+1)'(XoffThresholdFlits + XoffDeltaFlits));
    end
  end

  // Per-tile helper invariants, one bit per tile (asserted together below: Yosys 0.23 gives
  // procedural assertions in a generate loop one name).
  logic [NumTiles-1:0] inv_sess_granted, inv_grant_in_flight, inv_xon_agrees;
  for (genvar t = 0; t < NumTiles; t++) begin : gen_tile_inv
    logic in_sess;
    assign in_sess = phase_all[2*t +: 2] == PhSess;
    // A tile in session, or one whose data or XDONE is still on its path, holds the grant: the
    // XB granted it and releases it only when that XDONE arrives (after the data).
    assign inv_sess_granted[t] = !(in_sess || path_data[t] || path_xdone[t]) || granted_to[t];
    // A GRANT in flight: the XB holds the grant for this tile, the tile is not in session,
    // nothing of an earlier session is on its path, and no XOFF can have been sent since.
    assign inv_grant_in_flight[t] = !grant_inflight[t] ||
                                    (granted_to[t] && !in_sess && !path_data[t] &&
                                     !path_xdone[t] && !xoff);
    // A tile in session agrees with the XB's XOFF flag once the messages in flight arrive.
    assign inv_xon_agrees[t] = !in_sess || eff_xon[t] == !xoff;
  end

  always_comb begin
    if (rst_ni) begin
      InvSessGranted_A: assert (&inv_sess_granted);
      InvGrantInFlight_A: assert (&inv_grant_in_flight);
      InvXonAgrees_A: assert (&inv_xon_agrees);
    end
  end

  // ---- Covers: the environment reaches the interesting states -----------------------------------
  logic [NumTiles-1:0] msg_xon_to;
  assign msg_xon_to = msg_kind == MsgXon ? msg_valid : '0;
  always_comb begin
    if (rst_ni) begin
      // The budget's peak: XOFF at the threshold and every in-flight flit arrives undrained.
      CoverPeak_C: cover (occ == (OccBits+1)'(PeakFlits));
      // An XOFF / XON episode completes.
      CoverXon_C: cover (msg_xon_to != '0);
      // Hand-over at the edge of the grant rule: the last tile is granted in the cycle the first
      // tile's XDONE arrives, with the queue one flit below the XOFF threshold (the highest
      // occupancy a session can start at; the budget's second condition).
      CoverHandover_C: cover (NumTiles > 1 && xdone[0] && granted_to[0] &&
                              msg_valid[NumTiles-1] && msg_kind == MsgGrant &&
                              occ == (OccBits+1)'(XoffThresholdFlits + XoffDeltaFlits - 1));
    end
  end

  // Unused XB outputs (the flit data, the statistics this harness does not check).
  logic unused_outputs;
  assign unused_outputs = ^{out_flit, max_occupancy, overflow_count, xon_all};

endmodule
