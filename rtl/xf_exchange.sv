// The exchange of a chip (docs/exchange.md sections 1-4; model: Exchange, model/exchange.hpp): the tiles' paths
// into the exchange, one XB per link port (rtl/xf_xb.sv), the wormhole router (rtl/xf_router.sv)
// that joins link receivers, tile paths and XB queues to link transmitters and tile inputs, the
// XB -> tile message delay, and one route-lookup port per tile. Timing against the model, the
// budgets in full and the clear rule: docs/exchange.md "RTL: xf_exchange".
//
//   tile t tx_* --> [path FIFO, 3] --front--+-- link-bound data --> XB[port] queue --+
//   (tile register)  (write = the 1 stage)  +-- XREQ / XDONE ----> XB[port] control |
//                                           +-- tile-bound ------------+            |
//                                                                      v            v
//   link rx l  -------------------------------------------------> ROUTER inputs L+t, L+T+l, l
//                                                                  outputs l -> link tx l
//                                                                          L+t -> tile t rx
//   XB[l] msg_* --> 2 register stages --> every tile's xb_msg_*[l]
//   tile t route_raddr_i --> router lookup port t --> route_rdata_o (1 cycle)
//
// Router numbering (the model's order; L = NumLinks, T = NumTiles): inputs 0..L-1 link
// receivers, L..L+T-1 tile paths, L+T..2L+T-1 XB queues; outputs 0..L-1 link transmitters, L+t
// tile t (TileOutBase = L). Unused inputs never request, so the round-robin picks are the model's.
// The XB queues are the router's fixed inputs (FixedInBase = L+T): XB l feeds link l without a
// table read, as in the model.
//
// Tile path t (docs/tile.md "Interfaces"): a decision of cycle t is on tx_* in t+1 (the tile's
// register), written into the 3-entry FIFO at the end of t+1 (ExchangeLatencyCycles - 1 = 1
// stage) and at the front in t+2. The front is taken while router input L+t is ready (its stage
// is empty or its flit leaves): link-bound data, XREQ or XDONE into XB[tx_port_i] (never
// refused), a tile-bound flit into the router's stage. So a link-bound front waits behind a
// tile-bound flit still in the stage, as the model's Pipe keeps it behind its front. A link-bound
// front with a port >= NumLinks or ctrl 3 is taken and dropped (asserted). Credits (the tile has
// 3): a link-bound flit's on tx_credit_o the cycle after the take (a register); a tile-bound
// flit's when it leaves the stage (the router's in_done_o, combinational: one cycle after the
// model's arbiter moved it, when the model's credit arrives). The loop is 3 cycles at zero load,
// so a tile sustains one flit per cycle. XB messages of cycle c reach the tiles in c +
// XbCtrlLatencyCycles (2). The XBs are built with StagedConsumer: a flit in the router's stage
// counts in its XB's occupancy until it leaves, as in the model's queue. link_rx_ready_o is the
// router's in_ready_o: xf_link returns the credit when the router's stage takes the flit.
//
// Budgets: a tile path (with the router's stage) holds at most 3 flits, one per credit
// (PathAtMostThree_A; the FIFO never overflows). After XB l decides XOFF in c, at most 3 link-bound flits of the granted tile still
// arrive (each held its credit at the tile's decision of c+1), so the queue peaks at
// XoffThresholdFlits + 3 = 27 (28 for a tile that stops a cycle late), within QueueFlits = 32.
//
// clear_i resets nothing: the host starts or clears a chip only while its exchange is idle
// (ClearWhenIdle_A).
//
// Combinational paths: tx_credit_o from rx_ready_i and link_tx_ready_i (a tile-bound flit leaving
// the router's stage); xb_msg_*_o, route_rdata_o, cfg_route_rdata_o and stat_* are registers; rx_*_o and link_tx_*_o come from the router's registers (and the static
// cfg_num_ports_i); link_rx_ready_o is combinational from link_tx_ready_i and rx_ready_i.
// Nothing is combinational from tx_*_i.
//
// Parameter constraints: FlitBits 32, 64 or 128; 1 <= NumTiles <= 16, 1 <= NumLinks <= 8,
// 2*NumLinks + NumTiles <= 32; TableChips a power of two 1..4096 (the chip passes its own; the
// default 64 keeps the block test and the synthesis check small); the XB thresholds as xf_xb
// requires. Configuration is static while packets flow: cfg_num_ports_i <= NumLinks,
// cfg_num_tiles_i <= NumTiles. XREQ and XDONE are one flit at every width and travel with their
// kind in tx_ctrl_i: the exchange reads no header field itself (the router routes by the head).
module xf_exchange #(
  // flit width of the machine: 32, 64 or 128 (docs/packets.md section 2)
  parameter int FlitBits = xf_defs_pkg::FlitBits,
  // tiles of the chip (tile ids 0..NumTiles-1); 1..16
  parameter int NumTiles = 4,
  // link ports of the chip (one XB each); 1..8
  parameter int NumLinks = 4,
  // routing-table chips held per lane (xf_router); a power of two, 1..4096
  parameter int TableChips = 64,
  // XB queue depth in flits (xf_xb); >= XoffThresholdFlits + 5
  parameter int QueueFlits = xf_defs_pkg::XbQueueFlits,
  // XB queue occupancy at which XOFF is sent (xf_xb); > XonThresholdFlits
  parameter int XoffThresholdFlits = xf_defs_pkg::XbXoffThresholdFlits,
  // XB queue occupancy at or below which XON is sent (xf_xb); >= 0
  parameter int XonThresholdFlits = xf_defs_pkg::XbXonThresholdFlits,
  // the XB queues: 1 read synchronously one cycle ahead (block RAM, iCE40), 0 asynchronously
  // (distributed RAM: ECP5, Xilinx); the same cycles either way (rtl/xf_buf_ram.sv)
  parameter bit SyncBuffers = 1'b0,
  // XB occupancy width, room for QueueFlits + 1 (derived; do not override)
  parameter int XbOccBits = $clog2(QueueFlits + 3)
) (
  input  logic                         clk_i,                    // clock
  input  logic                         rst_ni,                   // async reset, active low
  // configuration (static while packets flow)
  input  logic [11:0]                  cfg_chip_id_i,            // this chip's id
  input  logic [4:0]                   cfg_num_tiles_i,          // tiles present (<= NumTiles)
  input  logic [3:0]                   cfg_num_ports_i,          // connected links (<= NumLinks)
  input  logic                         cfg_route_we_i,           // host writes one table entry
  input  logic [13:0]                  cfg_route_addr_i,         // entry lane*4096 + dst_chip
  input  logic [7:0]                   cfg_route_wdata_i,        // output port, 0xFF = none
  input  logic [13:0]                  cfg_route_raddr_i,        // host read address
  output logic [7:0]                   cfg_route_rdata_o,        // that entry, 1 cycle later
  input  logic                         clear_i,                  // start/clear pulse (checked)
  // tile paths into the exchange, tile t at bit t / [t*W +: W]
  input  logic [NumTiles-1:0]          tx_valid_i,               // tile t emits into its path
  input  logic [NumTiles*(FlitBits+2)-1:0] tx_flit_i,  // {head, tail, data}
  input  logic [NumTiles-1:0]          tx_link_i,                // 1 link-bound, 0 tile-bound
  input  logic [NumTiles*4-1:0]        tx_port_i,                // link port (link-bound)
  input  logic [NumTiles*2-1:0]        tx_ctrl_i,                // 0 data, 1 XREQ, 2 XDONE
  output logic [NumTiles-1:0]          tx_credit_o,              // one credit back (t+1)
  // exchange -> tile receive paths (router outputs NumLinks + t)
  output logic [NumTiles-1:0]          rx_valid_o,               // a flit for tile t
  input  logic [NumTiles-1:0]          rx_ready_i,               // tile t takes it
  output logic [NumTiles*(FlitBits+2)-1:0] rx_flit_o,  // {head, tail, data}
  // XB messages, tile t link l at bit t*NumLinks + l / kind [(t*NumLinks + l)*2 +: 2]
  output logic [NumTiles*NumLinks-1:0]   xb_msg_valid_o,         // message from XB l to tile t
  output logic [NumTiles*NumLinks*2-1:0] xb_msg_kind_o,          // 0 GRANT, 1 XON, 2 XOFF
  // route lookups of the tiles' send engines
  input  logic [NumTiles*14-1:0]       route_raddr_i,            // entry lane*4096 + dst_chip
  output logic [NumTiles*8-1:0]        route_rdata_o,            // that entry, 1 cycle later
  // link ports (xf_link tx_* / rx_* streams), link l at bit l / [l*W +: W], W = FlitBits + 2
  output logic [NumLinks-1:0]          link_tx_valid_o,          // router output l
  input  logic [NumLinks-1:0]          link_tx_ready_i,          // link transmitter takes it
  output logic [NumLinks*(FlitBits+2)-1:0] link_tx_flit_o,  // {head, tail, data}
  input  logic [NumLinks-1:0]          link_rx_valid_i,          // link receive buffer front
  output logic [NumLinks-1:0]          link_rx_ready_o,          // router input l takes it
  input  logic [NumLinks*(FlitBits+2)-1:0] link_rx_flit_i,  // {head, tail, data}
  // status (registers)
  output logic [31:0]                  stat_misroutes_o,         // packets dropped (saturating)
  output logic [NumLinks*XbOccBits-1:0] stat_xb_occupancy_o,     // XB l queue, start of cycle
  output logic [NumLinks*XbOccBits-1:0] stat_xb_max_occupancy_o, // XB l largest queue
  output logic [NumLinks-1:0]          stat_xb_xoff_o,           // XB l has its tile XOFFed
  output logic [NumLinks-1:0]          stat_xb_overflow_o,       // sticky: XB l queue overflowed
  output logic [NumLinks-1:0]          stat_xb_proto_err_o,      // sticky: XB l protocol error
  output logic [NumTiles*2-1:0]        stat_path_level_o         // flits in tile t's path FIFO
);

  `include "xf_assert.svh"
  `include "xf_types.svh"

  localparam int FlitW = FlitTypeBits;  // {head, tail, data}: flit_t
  // An entry of a tile's path: the flit and the tile's routing decision.
  typedef struct packed {
    logic [1:0] ctrl;  // 0 data, 1 XREQ, 2 XDONE
    logic [3:0] port;  // link port (link-bound), else the destination tile
    logic       link;  // link-bound
    flit_t      flit;
  } path_t;
  localparam int PathW = 2 + 4 + 1 + FlitW;
  localparam int PathFlits = xf_defs_pkg::ExchangeLatencyCycles + 1;  // the tile's credits
  localparam int MsgStages = xf_defs_pkg::XbCtrlLatencyCycles;
  localparam int NumIn = 2 * NumLinks + NumTiles;
  localparam int NumOut = NumLinks + NumTiles;
  // An XB's message on its way to the tiles (per link).
  typedef struct packed {
    logic [1:0]          kind;   // XbMsg
    logic [NumTiles-1:0] valid;  // for tile t
  } msg_t;
  localparam int MsgW = 2 + NumTiles;
  localparam logic [1:0] CtrlData = 2'd0;
  localparam logic [1:0] CtrlXreq = 2'd1;
  localparam logic [1:0] CtrlXdone = 2'd2;

  `ASSERT_INIT(NumTilesLegal_A, NumTiles >= 1 && NumTiles <= xf_defs_pkg::MaxTiles)
  `ASSERT_INIT(NumLinksLegal_A, NumLinks >= 1 && NumLinks <= 8 && NumIn <= 32)
  `ASSERT_INIT(TableChipsLegal_A, TableChips >= 1 && TableChips <= xf_defs_pkg::MaxChips &&
                                  (TableChips & (TableChips - 1)) == 0)
  // One register stage (the FIFO write) after the tile's own register: ExchangeLatencyCycles.
  `ASSERT_INIT(ExchangeLatencyLegal_A, xf_defs_pkg::ExchangeLatencyCycles == 2 && PathFlits == 3)
  `ASSERT_INIT(MsgStagesLegal_A, MsgStages >= 1)
  `ASSERT_INIT(XbOccBitsLegal_A, XbOccBits == $clog2(QueueFlits + 3))
  `ASSERT_INIT(FlitBitsLegal_A, (FlitBits == 32 || FlitBits == 64 || FlitBits == 128) &&
                                FlitW == FlitBits + 2)
  `ASSERT_INIT(PathWLegal_A, PathW == $bits(path_t))
  `ASSERT_INIT(MsgWLegal_A, MsgW == $bits(msg_t))

  // ---- Tile paths ---------------------------------------------------------------------------
  logic [NumTiles-1:0]       path_empty;    // FIFO holds no flit
  logic [NumTiles-1:0]       path_full;
  logic [NumTiles*PathW-1:0] path_front;    // {ctrl, port, link, flit} of the front
  logic [NumTiles*2-1:0]     path_count;
  logic [NumTiles-1:0]       front_valid;
  logic [NumTiles-1:0]       front_link;    // link-bound (taken at once)
  logic [NumTiles*4-1:0]     front_port;
  logic [NumTiles*2-1:0]     front_ctrl;
  logic [NumTiles*FlitW-1:0] front_flit;
  logic [NumTiles-1:0]       front_bad;     // link-bound with port >= NumLinks or ctrl 3
  logic [NumTiles-1:0]       take;          // the front leaves the path this cycle
  logic [NumTiles-1:0]       credit_d, credit_q;

  // Router input streams (flattened, model order).
  logic [NumIn-1:0]        r_in_valid, r_in_ready, r_in_done;
  logic [NumIn*FlitW-1:0]  r_in_flit;
  logic [NumOut-1:0]       r_out_valid, r_out_ready;
  logic [NumOut*FlitW-1:0] r_out_flit;

  // Tile t's entry into its path and the entry at its front (struct-typed signals stay at module
  // scope: Yosys 0.23 does not resolve their fields in generate blocks).
  path_t                     path_in, path_out;  // tile t's, in the loop below
  logic [NumTiles*PathW-1:0] path_push;
  always_comb begin
    logic [NumTiles*PathW-1:0] path_push_c;
    logic [NumTiles*FlitW-1:0] front_flit_c;
    logic [NumTiles-1:0] front_link_c;
    logic [NumTiles*4-1:0] front_port_c;
    logic [NumTiles*2-1:0] front_ctrl_c;
    for (int t = 0; t < NumTiles; t++) begin
      path_in.ctrl = tx_ctrl_i[t*2 +: 2];
      path_in.port = tx_port_i[t*4 +: 4];
      path_in.link = tx_link_i[t];
      path_in.flit = tx_flit_i[t*FlitW +: FlitW];
      path_push_c[t*PathW +: PathW] = path_in;
      path_out = path_front[t*PathW +: PathW];
      front_flit_c[t*FlitW +: FlitW] = path_out.flit;
      front_link_c[t] = path_out.link;
      front_port_c[t*4 +: 4] = path_out.port;
      front_ctrl_c[t*2 +: 2] = path_out.ctrl;
    end
    path_push = path_push_c;
    front_flit = front_flit_c;
    front_link = front_link_c;
    front_port = front_port_c;
    front_ctrl = front_ctrl_c;
  end

  for (genvar t = 0; t < NumTiles; t++) begin : gen_path
    logic [1:0] count;

    // The FIFO's write is the exchange's register stage: written at the end of the cycle the
    // tile presents the flit, at the front (pop_data_o) in the next.
    xf_fifo #(
      .DataBits    (PathW),
      .DepthEntries(PathFlits),
      .FallThrough (1'b0)
    ) u_path (
      .clk_i      (clk_i),
      .rst_ni     (rst_ni),
      .push_i     (tx_valid_i[t]),
      .push_data_i(path_push[t*PathW +: PathW]),
      .full_o     (path_full[t]),
      .pop_i      (take[t]),
      .pop_data_o (path_front[t*PathW +: PathW]),
      .empty_o    (path_empty[t]),
      .count_o    (count)
    );
    assign path_count[t*2 +: 2] = count;

    assign front_valid[t] = !path_empty[t];
    assign front_bad[t] = front_link[t] && ((32'(front_port[t*4 +: 4]) >= NumLinks) ||
                                            (front_ctrl[t*2 +: 2] == 2'd3));

    // Tile-bound fronts go to router input NumLinks + t.
    assign r_in_valid[NumLinks + t] = front_valid[t] && !front_link[t];
    assign r_in_flit[(NumLinks + t)*FlitW +: FlitW] = front_flit[t*FlitW +: FlitW];
    // A link-bound front waits while a tile-bound flit of this path sits in the router stage
    // (in_ready_o low: the stage is full and its flit does not leave): in the model it is still
    // the front of the tile's Pipe and keeps everything behind it waiting.
    assign take[t] = front_valid[t] && r_in_ready[NumLinks + t];
    // Credits: a link-bound front frees its slot when it is taken (a register: usable in the
    // next cycle, as the model's credit Pipe); a tile-bound flit when it leaves the router stage
    // (in_done_o, one cycle after the model's arbiter moved it: usable in that same cycle).
    // One of the two at most per cycle: a flit done in c entered the stage in c-1, so the
    // front taken in c-1 was tile-bound.
    assign credit_d[t] = take[t] && front_link[t];
    assign tx_credit_o[t] = credit_q[t] || r_in_done[NumLinks + t];
  end

  assign stat_path_level_o = path_count;

  // ---- XBs ----------------------------------------------------------------------------------
  logic [NumLinks*NumTiles-1:0] xb_xreq, xb_xdone, xb_msg_valid;
  logic [NumLinks-1:0]          xb_in_valid;
  logic [NumLinks*FlitW-1:0]    xb_in_flit;
  logic [NumLinks*2-1:0]        xb_msg_kind;
  logic [NumLinks*NumTiles-1:0] xb_data_sel;  // tile t's front is data for XB l
  logic [NumLinks-1:0]          unused_xb_granted_valid;
  logic [NumLinks*4-1:0]        unused_xb_granted_tile;
  logic [NumLinks*16-1:0]       unused_xb_overflow_count;

  always_comb begin
    logic [NumLinks*NumTiles-1:0] xb_xreq_c;
    logic [NumLinks*NumTiles-1:0] xb_xdone_c;
    logic [NumLinks*NumTiles-1:0] xb_data_sel_c;
    logic [NumLinks-1:0] xb_in_valid_c;
    logic [NumLinks*FlitW-1:0] xb_in_flit_c;
    xb_xreq_c = '0;
    xb_xdone_c = '0;
    xb_data_sel_c = '0;
    xb_in_valid_c = '0;
    xb_in_flit_c = '0;
    for (int l = 0; l < NumLinks; l++) begin
      for (int t = 0; t < NumTiles; t++) begin
        if (take[t] && front_link[t] && (32'(front_port[t*4 +: 4]) == l)) begin
          xb_xreq_c[l*NumTiles + t] = front_ctrl[t*2 +: 2] == CtrlXreq;
          xb_xdone_c[l*NumTiles + t] = front_ctrl[t*2 +: 2] == CtrlXdone;
          xb_data_sel_c[l*NumTiles + t] = front_ctrl[t*2 +: 2] == CtrlData;
        end
        // AND-OR multiplexer: only the granted tile sends data (OneDataPerXb_A).
        if (xb_data_sel_c[l*NumTiles + t]) begin
          xb_in_valid_c[l] = 1'b1;
          xb_in_flit_c[l*FlitW +: FlitW] = xb_in_flit_c[l*FlitW +: FlitW] |
                                         front_flit[t*FlitW +: FlitW];
        end
      end
    end
    xb_xreq = xb_xreq_c;
    xb_xdone = xb_xdone_c;
    xb_data_sel = xb_data_sel_c;
    xb_in_valid = xb_in_valid_c;
    xb_in_flit = xb_in_flit_c;
  end

  for (genvar l = 0; l < NumLinks; l++) begin : gen_xb
    xf_xb #(
      .FlitBits          (FlitBits),
      .NumTiles          (NumTiles),
      .QueueFlits        (QueueFlits),
      .XoffThresholdFlits(XoffThresholdFlits),
      .XonThresholdFlits (XonThresholdFlits),
      .StagedConsumer    (1'b1),
      .SyncBuffers       (SyncBuffers),
      .OccBits           (XbOccBits)
    ) u_xb (
      .clk_i                (clk_i),
      .rst_ni               (rst_ni),
      .xreq_i               (xb_xreq[l*NumTiles +: NumTiles]),
      .xdone_i              (xb_xdone[l*NumTiles +: NumTiles]),
      .in_valid_i           (xb_in_valid[l]),
      .in_flit_i            (xb_in_flit[l*FlitW +: FlitW]),
      .msg_valid_o          (xb_msg_valid[l*NumTiles +: NumTiles]),
      .msg_kind_o           (xb_msg_kind[l*2 +: 2]),
      .out_valid_o          (r_in_valid[NumLinks + NumTiles + l]),
      .out_ready_i          (r_in_ready[NumLinks + NumTiles + l]),
      .out_flit_o           (r_in_flit[(NumLinks + NumTiles + l)*FlitW +: FlitW]),
      .stat_occupancy_o     (stat_xb_occupancy_o[l*XbOccBits +: XbOccBits]),
      .stat_max_occupancy_o (stat_xb_max_occupancy_o[l*XbOccBits +: XbOccBits]),
      .stat_granted_valid_o (unused_xb_granted_valid[l]),
      .stat_granted_tile_o  (unused_xb_granted_tile[l*4 +: 4]),
      .stat_xoff_o          (stat_xb_xoff_o[l]),
      .stat_overflow_o      (stat_xb_overflow_o[l]),
      .stat_overflow_count_o(unused_xb_overflow_count[l*16 +: 16]),
      .stat_proto_err_o     (stat_xb_proto_err_o[l])
    );
  end

  // ---- XB -> tile messages: MsgStages register stages -----------------------------------------
  // Stage s, link l: a msg_t at [(s*NumLinks + l)*MsgW +: MsgW].
  logic [MsgStages*NumLinks*MsgW-1:0] msg_d, msg_q;
  msg_t msg_in, msg_out;  // link l's message into the first stage, out of the last
  logic [NumTiles-1:0] msg_out_valid;  // msg_out.valid (Icarus 11 selects a field's bit with
                                       // a constant index only)

  always_comb begin
    for (int l = 0; l < NumLinks; l++) begin
      msg_in.kind = xb_msg_kind[l*2 +: 2];
      msg_in.valid = xb_msg_valid[l*NumTiles +: NumTiles];
      msg_d[l*MsgW +: MsgW] = msg_in;
    end
    for (int s = 1; s < MsgStages; s++) begin
      msg_d[s*NumLinks*MsgW +: NumLinks*MsgW] = msg_q[(s-1)*NumLinks*MsgW +: NumLinks*MsgW];
    end
  end

  always_comb begin
    logic [NumTiles*NumLinks-1:0] xb_msg_valid_o_c;
    logic [NumTiles*NumLinks*2-1:0] xb_msg_kind_o_c;
    for (int t = 0; t < NumTiles; t++) begin
      for (int l = 0; l < NumLinks; l++) begin
        msg_out = msg_q[((MsgStages - 1)*NumLinks + l)*MsgW +: MsgW];
        msg_out_valid = msg_out.valid;
        xb_msg_valid_o_c[t*NumLinks + l] = msg_out_valid[t];
        xb_msg_kind_o_c[(t*NumLinks + l)*2 +: 2] = msg_out.kind;
      end
    end
    xb_msg_valid_o = xb_msg_valid_o_c;
    xb_msg_kind_o = xb_msg_kind_o_c;
  end

  // ---- Router -------------------------------------------------------------------------------
  assign r_in_valid[NumLinks-1:0] = link_rx_valid_i;
  assign r_in_flit[0 +: NumLinks*FlitW] = link_rx_flit_i;
  assign link_rx_ready_o = r_in_ready[NumLinks-1:0];
  assign link_tx_valid_o = r_out_valid[NumLinks-1:0];
  assign link_tx_flit_o = r_out_flit[0 +: NumLinks*FlitW];
  assign rx_valid_o = r_out_valid[NumLinks +: NumTiles];
  assign rx_flit_o = r_out_flit[NumLinks*FlitW +: NumTiles*FlitW];
  assign r_out_ready = {rx_ready_i, link_tx_ready_i};

  xf_router #(
    .FlitBits     (FlitBits),
    .NumIn        (NumIn),
    .NumOut       (NumOut),
    .TableChips   (TableChips),
    .NumLookups   (NumTiles),
    .TileOutBase  (NumLinks),
    .CreditOutputs(NumLinks),
    .FixedInBase  (NumLinks + NumTiles)
  ) u_router (
    .clk_i            (clk_i),
    .rst_ni           (rst_ni),
    .cfg_route_we_i   (cfg_route_we_i),
    .cfg_route_addr_i (cfg_route_addr_i),
    .cfg_route_wdata_i(cfg_route_wdata_i),
    .cfg_route_raddr_i(cfg_route_raddr_i),
    .cfg_route_rdata_o(cfg_route_rdata_o),
    .cfg_chip_id_i    (cfg_chip_id_i),
    .cfg_is_chip_i    (1'b1),
    .cfg_num_tiles_i  ({1'b0, cfg_num_tiles_i}),
    .cfg_num_ports_i  ({2'b00, cfg_num_ports_i}),
    .in_valid_i       (r_in_valid),
    .in_ready_o       (r_in_ready),
    .in_done_o        (r_in_done),
    .in_flit_i        (r_in_flit),
    .out_valid_o      (r_out_valid),
    .out_ready_i      (r_out_ready),
    .out_credit_i     ({{NumTiles{1'b1}}, link_tx_ready_i}),
    .out_flit_o       (r_out_flit),
    .lookup_addr_i    (route_raddr_i),
    .lookup_data_o    (route_rdata_o),
    .stat_misroutes_o (stat_misroutes_o)
  );

  // ---- Registers ----------------------------------------------------------------------------
  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      credit_q <= '0;
      msg_q <= '0;
    end else begin
      credit_q <= credit_d;
      msg_q <= msg_d;
    end
  end

  // Not used: the router's in_done_o of the link inputs (xf_link returns a credit on the take,
  // see the header), the XBs' grant and overflow-count status, clear_i (only checked).
  logic unused_exchange;
  assign unused_exchange = ^{r_in_done, unused_xb_granted_valid, unused_xb_granted_tile,
                             unused_xb_overflow_count, clear_i};

  // ---- Assertions ---------------------------------------------------------------------------
  `ASSERT_KNOWN(TxValidKnown_A, tx_valid_i)
  `ASSERT_KNOWN(RxReadyKnown_A, rx_ready_i)
  `ASSERT_KNOWN(LinkTxReadyKnown_A, link_tx_ready_i)
  `ASSERT_KNOWN(LinkRxValidKnown_A, link_rx_valid_i)
  `ASSERT_KNOWN(ClearKnown_A, clear_i)
  for (genvar t = 0; t < NumTiles; t++) begin : gen_path_asserts
    // The tile's 3 credits: its output register and the FIFO never hold more than 3 flits
    // (docs/exchange.md section 9), so the FIFO never overflows.
    `ASSERT(PathAtMostThree_A, !(tx_valid_i[t] && path_full[t]))
    // At most one credit per cycle (tx_credit_o is one bit).
    `ASSERT(OneCreditPerCycle_A, !(credit_q[t] && r_in_done[NumLinks + t]))
    // A link-bound flit names an existing, connected port and a legal kind.
    `ASSERT(TxLinkLegal_A, !(front_valid[t] && front_link[t]) ||
                           (!front_bad[t] && front_port[t*4 +: 4] < cfg_num_ports_i))
    `ASSERT(TxCtrlKnown_A, !tx_valid_i[t] ||
                           !$isunknown({tx_link_i[t], tx_port_i[t*4 +: 4], tx_ctrl_i[t*2 +: 2]}))
  end
  for (genvar l = 0; l < NumLinks; l++) begin : gen_xb_asserts
    // Only the granted tile sends data, so at most one tile's front is data for an XB.
    `ASSERT(OneDataPerXb_A, $onehot0(xb_data_sel[l*NumTiles +: NumTiles]))
  end
  // The host starts or clears the chip only while the tile paths are empty and no credit is on
  // the way back (the tiles reset their credits to 3 on that command).
  `ASSERT(ClearWhenIdle_A, !clear_i || (&path_empty && tx_valid_i == '0 && credit_q == '0))

endmodule
