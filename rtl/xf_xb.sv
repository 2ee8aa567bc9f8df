// Exchange block (XB) of one off-chip link (docs/exchange.md sections 3 and 4, the exchange
// patent's XB; model: Xb, model/xb.hpp): admits one tile at a time to the link with the
// XREQ / GRANT / XOFF / XON / XDONE protocol and queues the granted tile's link-bound flits for
// the link transmitter. Cycle-exact with the model; the arguments: docs/exchange.md "RTL: xf_xb".
//
// Cycle order (the model's), in a cycle t the XB
//   1. takes xreq_i (requesters join the list, ascending tile order), xdone_i (ends the grant of
//      the granted tile; from any other tile it is ignored, as in the model) and in_valid_i
//      (in_flit_i is enqueued);
//   2. decides on occ = flits held at the start of t + in_valid_i:
//        no tile granted, a request waits, occ < XoffThreshold -> GRANT the oldest, xoff <- 0
//        a tile granted, !xoff, occ >= XoffThreshold          -> XOFF to it, xoff <- 1
//        a tile granted, xoff, occ <= XonThreshold            -> XON to it, xoff <- 0
//      with the message on msg_valid_o / msg_kind_o in t itself;
//   3. offers the oldest flit on out_*; a flit enqueued into an empty queue in t leaves in t.
// The exchange adds XbCtrlLatencyCycles (2) register stages between msg_* and the tile; in_*,
// xreq_i and xdone_i come ExchangeLatencyCycles (2) after the tile emitted them.
//
//   cycle           14   15   16   17   18   19   20   21   22   23   24
//   xreq_i[0]       ___________/~~~\_______________________________________  (emitted in 14)
//   msg_valid_o[0]  ___________/~~~\_______________________________________  GRANT, same cycle
//   in_valid_i      _______________________________/~~~~~~~~~~~~~\_________  H D D
//   out_valid_o     _______________________________/~~~~~~~~~~~~~\_________  fall-through
//   xdone_i[0]      ___________________________________________________/~~~\  ends the grant
//
// Streams: in_* has no ready (the XB never refuses a flit; the budget below guarantees room; a
// flit at a full queue fires QueueNoOverflow_A, is counted in stat_overflow_*, and is lost unless
// the link takes a flit in that cycle). out_* is valid/ready (docs/conventions.md rule 6).
// Combinational paths: msg_* from xreq_i, xdone_i and in_valid_i (and out_ready_i with
// StagedConsumer); out_valid_o and out_flit_o from in_* while the queue is empty; stat_* are
// registers. With StagedConsumer the consumer is a one-flit stage (the router's) and occ also
// counts the flit it holds and does not release this cycle (out_ready_i low), as the model's
// queue holds that flit until its arbiter moves it.
//
// Round-trip budget for XOFF, from the cycle t in which the XB sends XOFF (link taking nothing):
//   t+1 .. t+2  XOFF crosses the exchange's 2 stages; the tile keeps sending      2 flits
//   t+2         the tile acts on XOFF; a tile that registers it sends one more     1 flit
//   up to t+4   flits already in the tile's path (ExchangeLatencyCycles = 2)       2 flits
//   InFlightFlits = 5; margin QueueFlits - XoffThreshold - 5 = 3 (peak 27; 28 for a late tile).
// XON at 8, the request list's size: docs/exchange.md "RTL: xf_xb", Budget.
//
// Parameter constraints: FlitBits 32, 64 or 128; 1 <= NumTiles <= MaxTiles (16); 0 <=
// XonThresholdFlits < XoffThresholdFlits <= QueueFlits; QueueFlits - XoffThresholdFlits >=
// XbCtrlLatencyCycles + 1 + ExchangeLatencyCycles (5).
module xf_xb #(
  // flit width of the machine: 32, 64 or 128 (docs/packets.md section 2); the XB stores flits
  // without reading them, its thresholds count flits at every width
  parameter int FlitBits = xf_defs_pkg::FlitBits,
  // tiles that can use this link (tile ids 0 .. NumTiles-1); 1..16
  parameter int NumTiles = xf_defs_pkg::MaxTiles,
  // flits of the queue; >= XoffThresholdFlits + 5
  parameter int QueueFlits = xf_defs_pkg::XbQueueFlits,
  // occupancy at which XOFF is sent; > XonThresholdFlits
  parameter int XoffThresholdFlits = xf_defs_pkg::XbXoffThresholdFlits,
  // occupancy at or below which XON is sent after XOFF; >= 0
  parameter int XonThresholdFlits = xf_defs_pkg::XbXonThresholdFlits,
  // 1: the consumer is a one-flit stage that takes the offered flit as soon as it is free
  // (xf_router's input stage), so out_ready_i low means "the stage holds our flit and it does
  // not leave this cycle"; that flit still counts in the occupancy, as the model's queue holds
  // it until its arbiter moves it. 0: a flit leaves the count when it is taken
  parameter bit StagedConsumer = 1'b0,
  // the queue: 1 read synchronously one cycle ahead (block RAM, iCE40), 0 asynchronously
  // (distributed RAM: ECP5, Xilinx); the same cycles either way (rtl/xf_buf_ram.sv)
  parameter bit SyncBuffers = 1'b0,
  // occupancy width, room for QueueFlits + 2 (derived; do not override)
  parameter int OccBits = $clog2(QueueFlits + 3)
) (
  input  logic                clk_i,                  // clock
  input  logic                rst_ni,                 // asynchronous reset, active low
  // session control from the tiles (the tile paths' outputs), one pulse per XREQ / XDONE
  input  logic [NumTiles-1:0] xreq_i,                 // tile i asks for the link
  input  logic [NumTiles-1:0] xdone_i,                // tile i ends its session
  // link-bound flits of the granted tile (no ready: never refused)
  input  logic                in_valid_i,             // a flit arrives
  input  logic [FlitBits+1:0] in_flit_i,              // {head, tail, data}
  // messages to the tiles (the exchange wiring adds XbCtrlLatencyCycles)
  output logic [NumTiles-1:0] msg_valid_o,            // a message for tile i (at most one bit)
  output logic [1:0]          msg_kind_o,             // MsgGrant, MsgXon or MsgXoff
  // queue output to the link transmitter
  output logic                out_valid_o,            // a flit is offered
  input  logic                out_ready_i,            // the transmitter takes it
  output logic [FlitBits+1:0] out_flit_o,             // {head, tail, data}
  // status (registers)
  output logic [OccBits-1:0]  stat_occupancy_o,       // flits queued at the start of the cycle
  output logic [OccBits-1:0]  stat_max_occupancy_o,   // largest occ since reset
  output logic                stat_granted_valid_o,   // a tile holds the grant
  output logic [3:0]          stat_granted_tile_o,    // which tile (when valid)
  output logic                stat_xoff_o,            // XOFF sent and no XON since
  output logic                stat_overflow_o,        // a flit ever arrived at a full queue
  output logic [15:0]         stat_overflow_count_o,  // such arrivals (saturating)
  output logic                stat_proto_err_o        // a tile ever broke the protocol (below)
);

  `include "xf_assert.svh"

  // Message kinds on msg_kind_o (the model's XbMsg order).
  localparam logic [1:0] MsgGrant = xf_defs_pkg::XB_MSG_GRANT;  // spec/xf_defs.json XbMsg
  localparam logic [1:0] MsgXon = xf_defs_pkg::XB_MSG_XON;
  localparam logic [1:0] MsgXoff = xf_defs_pkg::XB_MSG_XOFF;

  // Flits that can still arrive after the XOFF decision (header budget).
  localparam int InFlightFlits =
      xf_defs_pkg::XbCtrlLatencyCycles + 1 + xf_defs_pkg::ExchangeLatencyCycles;
  localparam int FlitWidth = FlitBits + 2;  // {head, tail, data}: a flit_t word
  localparam int TileIdBits = 4;
  localparam int ReqCountBits = $clog2(NumTiles + 1);
  localparam int QueueCountBits = $clog2(QueueFlits + 1);

  `ASSERT_INIT(NumTilesLegal_A, NumTiles >= 1 && NumTiles <= xf_defs_pkg::MaxTiles)
  `ASSERT_INIT(TileIdBitsLegal_A, (1 << TileIdBits) == xf_defs_pkg::MaxTiles)
  `ASSERT_INIT(ThresholdsLegal_A, XonThresholdFlits >= 0 &&
                                  XonThresholdFlits < XoffThresholdFlits &&
                                  XoffThresholdFlits <= QueueFlits)
  `ASSERT_INIT(XoffBudgetLegal_A, QueueFlits - XoffThresholdFlits >= InFlightFlits)
  `ASSERT_INIT(OccBitsLegal_A, OccBits == $clog2(QueueFlits + 3))
  `ASSERT_INIT(FlitBitsLegal_A, FlitBits == 32 || FlitBits == 64 || FlitBits == 128)

  // ---- Queue (fall-through FIFO) ----------------------------------------------------------------
  logic                      q_push, q_pop, q_full, q_empty;
  logic [QueueCountBits-1:0] q_count;

  xf_fifo #(
    .DataBits    (FlitWidth),
    .DepthEntries(QueueFlits),
    .FallThrough (1'b1),
    .SyncRead    (SyncBuffers)
  ) u_queue (
    .clk_i      (clk_i),
    .rst_ni     (rst_ni),
    .push_i     (q_push),
    .push_data_i(in_flit_i),
    .full_o     (q_full),
    .pop_i      (q_pop),
    .pop_data_o (out_flit_o),
    .empty_o    (q_empty),
    .count_o    (q_count)
  );

  assign out_valid_o = !q_empty;
  // out_valid_o && out_ready_i, written without the queue's empty_o, which follows in_valid_i
  // through the queue's push (an empty fall-through queue offers the flit arriving now): the
  // late in_valid_i then reaches the queue's write in two LUT levels (docs/exchange.md, "RTL:
  // xf_xb").
  assign q_pop = out_ready_i && (q_count != '0 || in_valid_i);
  // A flit at a full queue is stored only if the link frees a slot in the same cycle (a full
  // queue offers a flit, so that is out_ready_i; written so to avoid a loop through q_pop).
  assign q_push = in_valid_i && (!q_full || out_ready_i);

  // ---- Control state ------------------------------------------------------------------------
  // Request list, oldest first: entry j (valid for j < req_count_q) in bits
  // [j*TileIdBits +: TileIdBits] (flat: Yosys 0.23 rejects packed arrays of vectors).
  logic [NumTiles*TileIdBits-1:0] req_d, req_q;
  logic [ReqCountBits-1:0] req_count_d, req_count_q;
  logic                    granted_valid_d, granted_valid_q;
  logic [TileIdBits-1:0]   granted_tile_d, granted_tile_q;
  logic                    xoff_d, xoff_q;
  logic [OccBits-1:0]      max_occ_d, max_occ_q;
  logic                    overflow_d, overflow_q;
  logic [15:0]             overflow_count_d, overflow_count_q;
  logic                    proto_err_d, proto_err_q;

  // Intermediate values of the cycle (after step 1).
  logic [OccBits-1:0]      occ;            // flits queued after this cycle's enqueue
  logic [OccBits-1:0]      occ_base;       // ... without this cycle's in_valid_i
  logic [OccBits-1:0]      occ_base_p1;    // ... with it (modulo, as occ)
  logic                    occ_below_xoff; // occ < XoffThresholdFlits
  logic                    occ_at_xon;     // occ <= XonThresholdFlits
  logic                    occ_wraps;      // occ_base + 1 wraps to 0 (never reached)
  logic                    occ_overflow;   // occ > QueueFlits
  logic [NumTiles*TileIdBits-1:0] req_mid;
  logic [ReqCountBits-1:0] req_count_mid;
  logic                    req_drop;       // a request found the list full
  logic                    released;       // XDONE from the granted tile
  logic                    granted_mid;    // a tile holds the grant after step 1
  logic                    grant;          // step 2 grants the oldest requester
  logic                    proto_err;      // this cycle breaks the protocol

  // The count the decisions use (the model's queue): the queue, plus with StagedConsumer the
  // flit the consumer's stage holds and does not release this cycle. The budget is on this
  // count; the queue itself is never fuller (a full queue makes occ > QueueFlits).
  assign occ_base = OccBits'(q_count) + OccBits'(StagedConsumer && !out_ready_i);
  assign occ_base_p1 = occ_base + OccBits'(1);
  assign occ = in_valid_i ? occ_base_p1 : occ_base;
  // The decisions' compares of occ, each taken on occ_base for both values of the late
  // in_valid_i and chosen by it last. occ_base + 1 is compared in occ's own modular arithmetic
  // (occ_base all ones wraps to 0), so that these equal the compares of occ in every state, also
  // the unreachable ones (scripts/equiv_rtl.sh proves it); occ never exceeds QueueFlits + 2.
  assign occ_wraps = occ_base == '1;
  assign occ_overflow = in_valid_i && occ_base >= OccBits'(QueueFlits) && !occ_wraps;
  assign occ_below_xoff = in_valid_i ? (occ_base < OccBits'(XoffThresholdFlits - 1) || occ_wraps) :
                                       (occ_base < OccBits'(XoffThresholdFlits));
  assign occ_at_xon = in_valid_i ? (occ_base < OccBits'(XonThresholdFlits) || occ_wraps) :
                                   (occ_base <= OccBits'(XonThresholdFlits));

  always_comb begin
    logic req_drop_c;
    logic [NumTiles-1:0] msg_valid_o_c;
    logic [1:0] msg_kind_o_c;
    // Step 1: requests in ascending tile order, XDONE of the granted tile.
    req_mid = req_q;
    req_count_mid = req_count_q;
    req_drop_c = 1'b0;
    released = 1'b0;
    proto_err = 1'b0;
    for (int i = 0; i < NumTiles; i++) begin
      if (xdone_i[i]) begin
        if (granted_valid_q && granted_tile_q == TileIdBits'(i)) begin
          released = 1'b1;
        end else begin
          proto_err = 1'b1;  // XDONE from a tile without the grant (ignored, as the model)
        end
      end
    end
    granted_mid = granted_valid_q && !released;
    for (int i = 0; i < NumTiles; i++) begin
      if (xreq_i[i]) begin
        // A tile that waits or holds the grant must not ask again.
        if (granted_mid && granted_tile_q == TileIdBits'(i)) begin
          proto_err = 1'b1;
        end
        for (int j = 0; j < NumTiles; j++) begin
          if (ReqCountBits'(j) < req_count_q &&
              req_q[j*TileIdBits +: TileIdBits] == TileIdBits'(i)) begin
            proto_err = 1'b1;
          end
        end
        if (req_count_mid == ReqCountBits'(NumTiles)) begin
          req_drop_c = 1'b1;
          proto_err = 1'b1;
        end else begin
          for (int j = 0; j < NumTiles; j++) begin
            if (ReqCountBits'(j) == req_count_mid) begin
              req_mid[j*TileIdBits +: TileIdBits] = TileIdBits'(i);
            end
          end
          req_count_mid = req_count_mid + 1'b1;
        end
      end
    end
    // Data with no tile granted.
    if (in_valid_i && !granted_valid_q) begin
      proto_err = 1'b1;
    end

    // Step 2: control.
    req_d = req_mid;
    req_count_d = req_count_mid;
    granted_valid_d = granted_mid;
    granted_tile_d = granted_tile_q;
    xoff_d = xoff_q;
    msg_valid_o_c = '0;
    msg_kind_o_c = MsgGrant;
    grant = !granted_mid && req_count_mid != '0 && occ_below_xoff;
    if (grant) begin
      for (int j = 0; j < NumTiles - 1; j++) begin
        req_d[j*TileIdBits +: TileIdBits] = req_mid[(j + 1)*TileIdBits +: TileIdBits];
      end
      req_count_d = req_count_mid - 1'b1;
      granted_valid_d = 1'b1;
      granted_tile_d = req_mid[TileIdBits-1:0];
      xoff_d = 1'b0;
      msg_kind_o_c = MsgGrant;
      for (int i = 0; i < NumTiles; i++) begin
        msg_valid_o_c[i] = req_mid[TileIdBits-1:0] == TileIdBits'(i);
      end
    end else if (granted_mid) begin
      if (!xoff_q && !occ_below_xoff) begin
        xoff_d = 1'b1;
        msg_kind_o_c = MsgXoff;
        for (int i = 0; i < NumTiles; i++) begin
          msg_valid_o_c[i] = granted_tile_q == TileIdBits'(i);
        end
      end else if (xoff_q && occ_at_xon) begin
        xoff_d = 1'b0;
        msg_kind_o_c = MsgXon;
        for (int i = 0; i < NumTiles; i++) begin
          msg_valid_o_c[i] = granted_tile_q == TileIdBits'(i);
        end
      end
    end

    // Status.
    // Both candidates compared before the late in_valid_i chooses (as the decisions above).
    if (in_valid_i) max_occ_d = occ_base_p1 > max_occ_q ? occ_base_p1 : max_occ_q;
    else max_occ_d = occ_base > max_occ_q ? occ_base : max_occ_q;
    overflow_d = overflow_q || occ_overflow;
    overflow_count_d = overflow_count_q;
    if (occ_overflow && overflow_count_q != '1) begin
      overflow_count_d = overflow_count_q + 1'b1;
    end
    proto_err_d = proto_err_q || proto_err;
    req_drop = req_drop_c;
    msg_valid_o = msg_valid_o_c;
    msg_kind_o = msg_kind_o_c;
  end

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      req_q <= '0;
      req_count_q <= '0;
      granted_valid_q <= 1'b0;
      granted_tile_q <= '0;
      xoff_q <= 1'b0;
      max_occ_q <= '0;
      overflow_q <= 1'b0;
      overflow_count_q <= '0;
      proto_err_q <= 1'b0;
    end else begin
      req_q <= req_d;
      req_count_q <= req_count_d;
      granted_valid_q <= granted_valid_d;
      granted_tile_q <= granted_tile_d;
      xoff_q <= xoff_d;
      max_occ_q <= max_occ_d;
      overflow_q <= overflow_d;
      overflow_count_q <= overflow_count_d;
      proto_err_q <= proto_err_d;
    end
  end

  assign stat_occupancy_o = OccBits'(q_count);
  assign stat_max_occupancy_o = max_occ_q;
  assign stat_granted_valid_o = granted_valid_q;
  assign stat_granted_tile_o = granted_tile_q;
  assign stat_xoff_o = xoff_q;
  assign stat_overflow_o = overflow_q;
  assign stat_overflow_count_o = overflow_count_q;
  assign stat_proto_err_o = proto_err_q;

  // ---- Assertions (docs/exchange.md section 9) ------------------------------------------------
  // The XOFF budget holds: the queue never holds more than QueueFlits flits.
  `ASSERT(QueueNoOverflow_A, !occ_overflow)
  `ASSERT(ReqListNoOverflow_A, !req_drop)
  `ASSERT(GrantedTileInRange_A, !granted_valid_q || int'(granted_tile_q) < NumTiles)
  // At most one message per cycle.
  `ASSERT(OneMessage_A, (msg_valid_o & (msg_valid_o - 1'b1)) == '0)
  // A grant only when no tile holds the grant and the queue is below the XOFF threshold.
  `ASSERT(GrantLegal_A, !(msg_valid_o != '0 && msg_kind_o == MsgGrant) ||
                        (!granted_mid && occ < OccBits'(XoffThresholdFlits)))
  // XOFF and XON only to the granted tile, alternating (never two XOFFs or two XONs in a row).
  `ASSERT(XoffLegal_A, !(msg_valid_o != '0 && msg_kind_o == MsgXoff) || (granted_mid && !xoff_q))
  `ASSERT(XonLegal_A, !(msg_valid_o != '0 && msg_kind_o == MsgXon) || (granted_mid && xoff_q))
  `ASSERT(MsgKindLegal_A, msg_kind_o != 2'd3)
  // Valid/ready on the output stream.
  `ASSERT(OutValidHolds_A, !$past(out_valid_o && !out_ready_i) || out_valid_o)
  `ASSERT_STABLE(OutFlitStable_A, out_flit_o, out_valid_o && !out_ready_i)
  `ASSERT_KNOWN(InValidKnown_A, in_valid_i)
  `ASSERT_KNOWN(CtrlKnown_A, {xreq_i, xdone_i})
  `ASSERT_KNOWN(OutReadyKnown_A, out_ready_i)
  // The rewritten terms equal what they replace.
  `ASSERT(PopIsOfferTaken_A, q_pop == (out_valid_o && out_ready_i))
  `ASSERT(OccComparesEqual_A, occ_below_xoff == (occ < OccBits'(XoffThresholdFlits)) &&
                              occ_at_xon == (occ <= OccBits'(XonThresholdFlits)) &&
                              occ_overflow == (in_valid_i && occ > OccBits'(QueueFlits)))

endmodule
