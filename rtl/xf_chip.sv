// One chip of the fabric (docs/chip.md; model: `Node` with tiles in model/node.hpp): NumTiles
// tiles (rtl/xf_tile.sv), the exchange with one XB per link and the router
// (rtl/xf_exchange.sv), NumLinks link endpoints (rtl/xf_link_phy.sv), the host port
// (rtl/xf_host_port.sv) and the chip's share of the barrier.
//
//            host_req/rsp                          bar_arrived_o   bar_all_i
//                 |                                      ^              |
//   +-------------v------------+                 +------+--------------v-----+
//   | xf_host_port: registers, |--start/clear--->| barrier: AND of the tiles' |
//   | route table, tile windows|                 | waits, release on the rise |
//   +--+----------------+------+                 +---------------+-----------+
//      | tile windows   | route table                            | release
//   +--v-----------+  +-v---------------------------------+      |
//   | xf_tile x T  |<>| xf_exchange: tile paths, XB per   |<-----+
//   | (seq, send,  |  | link, wormhole router, XB->tile   |
//   |  receive,ALU)|  | message delays, route lookups     |
//   +--------------+  +-----------+-----------------------+
//                                 | link tx/rx streams
//                          +------v----------+
//                          | xf_link_phy x L |==== phy_* (to the far chip, through the wire)
//                          +-----------------+
//
// Straps (static, wired by the system top or the board): cfg_chip_id_i (this node's id, the
// header's src_chip; packets for it go to its tiles), cfg_num_chips_i (Geti 2 and the Send
// check), cfg_num_tiles_i (tiles in use, <= NumTiles: the others stay idle, are not barrier
// members and get no packets) and cfg_num_ports_i (links connected, <= NumLinks: routes to the
// others are misroutes).
//
// Barrier (docs/chip.md section 4): bar_arrived_o (a register) is high while every tile in use
// waits at `Bar`; the system ANDs it over all chips onto bar_all_i, and every chip releases its
// tiles one cycle after its rising edge (bar_arrived_o is forced low in the release cycle). A
// single chip ties bar_all_i to bar_arrived_o.
//
// PHY ports: link l's word (rtl/xf_link_phy.sv) on bits [l*W +: W] of the flattened ports; the
// wire between two chips (PhyWireDelayCycles register stages each way, 3 for the model's 8-cycle
// link) is outside the chip. An unconnected link keeps phy_rx_* at zero.
//
// Combinational paths: none from inputs to outputs (the host port, the links and the barrier
// register their outputs).
//
// AluDtypes (bit d = dtype d, bit 7 = fp32 ScaleAdd): the units every tile's ALU is built with
// (docs/alu.md section 9; the host reads it in AluConfig).
//
// Parameter constraints: FlitBits 32, 64 or 128 (the machine's, passed to every block); 1 <=
// NumTiles <= MaxTiles (16); 1 <= NumLinks <= 8; ImemWords, PmemWords >= 1; DmemBytes a multiple
// of 16; TableChips a power of two, 1..MaxChips;
// PhyWireDelayCycles and LinkRxBufferFlits as rtl/xf_link_phy.sv requires, equal on both ends;
// AluDtypes[7] (ScaleAdd) only with AluDtypes[6] (fp32).
module xf_chip #(
  // flit width of the machine: 32, 64 or 128 (docs/packets.md section 2)
  parameter int FlitBits = xf_defs_pkg::FlitBits,
  // tiles instantiated; 1..16
  parameter int NumTiles = 4,
  // link ports instantiated; 1..8
  parameter int NumLinks = 4,
  // instruction memory per tile, 64-bit words; the host window holds 4096
  parameter int ImemWords = 4096,
  // parameter memory per tile, 32-bit words; the host window holds 16384
  parameter int PmemWords = 16384,
  // data memory per tile in bytes, a multiple of 16; the host window holds 786432
  parameter int DmemBytes = 786432,
  // routing-table chips per lane (a power of two, 1..4096); chips >= TableChips are misroutes.
  // 64 by default: the largest machine simulated (ladder:64); the table is TableChips*4 bytes
  parameter int TableChips = 64,
  // link receive buffer (and initial credits); equal on both ends of every link
  parameter int LinkRxBufferFlits = xf_defs_pkg::LinkRxBufferFlits,
  // PHY wire delay each way, cycles (sizes the link's credit-loop check only)
  parameter int PhyWireDelayCycles = xf_defs_pkg::LinkLatencyCycles - xf_defs_pkg::LinkRegCycles,
  // units the tiles' reduction ALUs are built with: bit d = dtype d (0 int8 .. 6 fp32), bit 7 =
  // fp32 ScaleAdd
  parameter logic [7:0] AluDtypes = 8'hFF,
  // the links' buffers, the XB queues and the tiles' register files: 1 read synchronously one
  // cycle ahead (block RAM, iCE40), 0 asynchronously (distributed RAM: ECP5, Xilinx); the same
  // cycles either way (rtl/xf_buf_ram.sv)
  parameter bit SyncBuffers = 1'b0
) (
  input  logic                   clk_i,              // clock
  input  logic                   rst_ni,             // asynchronous reset, active low
  // straps
  input  logic [11:0]            cfg_chip_id_i,      // this node's id
  input  logic [12:0]            cfg_num_chips_i,    // chips in the machine
  input  logic [4:0]             cfg_num_tiles_i,    // tiles in use (<= NumTiles)
  input  logic [3:0]             cfg_num_ports_i,    // links connected (<= NumLinks)
  // host port (rtl/xf_host_port.sv)
  input  logic                   host_req_valid_i,   // an access is offered
  output logic                   host_req_ready_o,   // no access in progress
  input  logic                   host_req_write_i,   // 1 write, 0 read
  input  logic [31:0]            host_req_addr_i,    // byte address in the chip's map
  input  logic [31:0]            host_req_wdata_i,   // write data
  output logic                   host_rsp_valid_o,   // the access is answered
  output logic [31:0]            host_rsp_rdata_o,   // read data
  output logic                   host_rsp_err_o,     // the access was not allowed
  // link PHYs (rtl/xf_link_phy.sv), link l at [l*W +: W]
  output logic [NumLinks-1:0]     phy_tx_valid_o,    // a word is present
  output logic [NumLinks*(FlitBits+2)-1:0] phy_tx_flit_o,  // {head, tail, data}
  output logic [NumLinks*32-1:0]  phy_tx_ctl_o,      // seq, ack, credits, naks, fv
  output logic [NumLinks*32-1:0]  phy_tx_crc_o,      // CRC-32 of the word
  input  logic [NumLinks-1:0]     phy_rx_valid_i,    // a word arrives
  input  logic [NumLinks*(FlitBits+2)-1:0] phy_rx_flit_i,  // {head, tail, data}
  input  logic [NumLinks*32-1:0]  phy_rx_ctl_i,      // seq, ack, credits, naks, fv
  input  logic [NumLinks*32-1:0]  phy_rx_crc_i,      // CRC-32 of the word
  // barrier across all chips
  output logic                   bar_arrived_o,      // every tile in use waits at Bar
  input  logic                   bar_all_i,          // AND of bar_arrived_o over all chips
  // status (registers)
  output logic                   stat_done_o,        // every tile in use has executed End
  output logic                   stat_err_o          // Status bit 31: some error on this chip
);

  `include "xf_assert.svh"
  `include "xf_types.svh"

  localparam int FlitW = FlitTypeBits;  // {head, tail, data}: flit_t

  localparam int T = NumTiles;
  localparam int L = NumLinks;

  // ---- Host port ----------------------------------------------------------------------------
  logic done_q;  // stat_done_o: every tile in use has ended (the barrier and status section)
  logic [31:0] index;
  logic ctl_start, ctl_clear;
  logic [31:0] cycles;
  logic [T-1:0] tile_done, tile_errs;
  logic [31:0] misroutes, xb_errors;
  logic [L*16-1:0] crc_errors;
  logic [L*32-1:0] link_status, link_discards;
  logic route_we;
  logic [13:0] route_addr, route_raddr;
  logic [7:0] route_wdata, route_rdata;
  logic [T-1:0] treq_valid, treq_ready, trsp_valid, trsp_err;
  logic treq_write;
  logic [19:0] treq_addr;
  logic [31:0] treq_wdata;
  logic [T*32-1:0] trsp_rdata;
  reg_xb_errors_t xb_error_bits;  // XbErrors

  xf_host_port #(
    .FlitBits(FlitBits),
    .NumTiles  (T),
    .NumLinks  (L),
    .TableChips(TableChips),
    .DmemBytes (DmemBytes),
    .AluDtypes (AluDtypes)
  ) u_host (
    .clk_i            (clk_i),
    .rst_ni           (rst_ni),
    .host_req_valid_i (host_req_valid_i),
    .host_req_ready_o (host_req_ready_o),
    .host_req_write_i (host_req_write_i),
    .host_req_addr_i  (host_req_addr_i),
    .host_req_wdata_i (host_req_wdata_i),
    .host_rsp_valid_o (host_rsp_valid_o),
    .host_rsp_rdata_o (host_rsp_rdata_o),
    .host_rsp_err_o   (host_rsp_err_o),
    .index_o          (index),
    .ctl_start_o      (ctl_start),
    .ctl_clear_o      (ctl_clear),
    .cycles_o         (cycles),
    .tile_done_i      (tile_done),
    .tile_err_i       (|tile_errs),
    .misroutes_i      (misroutes),
    .xb_errors_i      (xb_errors),
    .crc_errors_i     (crc_errors),
    .link_status_i    (link_status),
    .link_discards_i  (link_discards),
    .done_i           (done_q),
    .route_we_o       (route_we),
    .route_addr_o     (route_addr),
    .route_wdata_o    (route_wdata),
    .route_raddr_o    (route_raddr),
    .route_rdata_i    (route_rdata),
    .tile_req_valid_o (treq_valid),
    .tile_req_ready_i (treq_ready),
    .tile_req_write_o (treq_write),
    .tile_req_addr_o  (treq_addr),
    .tile_req_wdata_o (treq_wdata),
    .tile_rsp_valid_i (trsp_valid),
    .tile_rsp_rdata_i (trsp_rdata),
    .tile_rsp_err_i   (trsp_err)
  );

  // ---- Tiles --------------------------------------------------------------------------------
  logic [T-1:0] tx_valid, tx_link, tx_credit, rx_valid, rx_ready;
  logic [T*FlitW-1:0] tx_flit, rx_flit;
  logic [T*4-1:0] tx_port;
  logic [T*2-1:0] tx_ctrl;
  logic [T*L-1:0] msg_valid;
  logic [T*L*2-1:0] msg_kind;
  logic [T*14-1:0] lookup_addr;
  logic [T*8-1:0] lookup_data;
  logic [T-1:0] bar_wait, tile_used;
  logic bar_release_q, bar_release_d;

  for (genvar t = 0; t < T; t++) begin : gen_tile
    logic [3:0] err;
    logic [15:0] pc;
    logic running;
    logic unused_tile;
    assign tile_used[t] = 5'(t) < cfg_num_tiles_i;

    xf_tile #(
      .FlitBits (FlitBits),
      .NumLinks (L),
      .ImemWords(ImemWords),
      .PmemWords(PmemWords),
      .DmemBytes  (DmemBytes),
      .AluDtypes  (AluDtypes),
      .SyncBuffers(SyncBuffers)
    ) u_tile (
      .clk_i            (clk_i),
      .rst_ni           (rst_ni),
      .cfg_chip_id_i    (cfg_chip_id_i),
      .cfg_tile_id_i    (4'(t)),
      .cfg_index_i      (index),
      .cfg_num_chips_i  (cfg_num_chips_i),
      .cfg_num_tiles_i  (cfg_num_tiles_i),
      .cfg_num_ports_i  (cfg_num_ports_i),
      .cycles_i         (cycles),
      .ctl_clear_i      (ctl_clear),
      .ctl_start_i      (ctl_start && tile_used[t]),
      .bar_wait_o       (bar_wait[t]),
      .bar_release_i    (bar_release_q),
      .stat_err_o       (err),
      .stat_done_o      (tile_done[t]),
      .stat_running_o   (running),
      .stat_pc_o        (pc),
      .tx_valid_o       (tx_valid[t]),
      .tx_flit_o        (tx_flit[t*FlitW +: FlitW]),
      .tx_link_o        (tx_link[t]),
      .tx_port_o        (tx_port[t*4 +: 4]),
      .tx_ctrl_o        (tx_ctrl[t*2 +: 2]),
      .tx_credit_i      (tx_credit[t]),
      .rx_valid_i       (rx_valid[t]),
      .rx_ready_o       (rx_ready[t]),
      .rx_flit_i        (rx_flit[t*FlitW +: FlitW]),
      .xb_msg_valid_i   (msg_valid[t*L +: L]),
      .xb_msg_kind_i    (msg_kind[t*L*2 +: L*2]),
      .route_raddr_o    (lookup_addr[t*14 +: 14]),
      .route_rdata_i    (lookup_data[t*8 +: 8]),
      .host_req_valid_i (treq_valid[t]),
      .host_req_ready_o (treq_ready[t]),
      .host_req_write_i (treq_write),
      .host_req_addr_i  (treq_addr),
      .host_req_wdata_i (treq_wdata),
      .host_rsp_valid_o (trsp_valid[t]),
      .host_rsp_rdata_o (trsp_rdata[t*32 +: 32]),
      .host_rsp_err_o   (trsp_err[t])
    );
    assign tile_errs[t] = err != 4'd0;
    assign unused_tile = ^{pc, running};
  end

  // ---- Exchange -----------------------------------------------------------------------------
  logic [L-1:0] ltx_valid, ltx_ready, lrx_valid, lrx_ready;
  logic [L*FlitW-1:0] ltx_flit, lrx_flit;
  logic [L-1:0] xb_overflow, xb_proto_err, xb_xoff;
  localparam int XbOccBits = $clog2(xf_defs_pkg::XbQueueFlits + 3);
  logic [L*XbOccBits-1:0] xb_occupancy, xb_max_occupancy;
  logic [T*2-1:0] path_level;

  xf_exchange #(
    .FlitBits   (FlitBits),
    .NumTiles   (T),
    .NumLinks   (L),
    .TableChips (TableChips),
    .SyncBuffers(SyncBuffers)
  ) u_exchange (
    .clk_i              (clk_i),
    .rst_ni             (rst_ni),
    .cfg_chip_id_i      (cfg_chip_id_i),
    .cfg_num_tiles_i    (cfg_num_tiles_i),
    .cfg_num_ports_i    (cfg_num_ports_i),
    .clear_i            (ctl_start || ctl_clear),
    .cfg_route_we_i     (route_we),
    .cfg_route_addr_i   (route_addr),
    .cfg_route_wdata_i  (route_wdata),
    .cfg_route_raddr_i  (route_raddr),
    .cfg_route_rdata_o  (route_rdata),
    .tx_valid_i         (tx_valid),
    .tx_flit_i          (tx_flit),
    .tx_link_i          (tx_link),
    .tx_port_i          (tx_port),
    .tx_ctrl_i          (tx_ctrl),
    .tx_credit_o        (tx_credit),
    .rx_valid_o         (rx_valid),
    .rx_ready_i         (rx_ready),
    .rx_flit_o          (rx_flit),
    .xb_msg_valid_o     (msg_valid),
    .xb_msg_kind_o      (msg_kind),
    .route_raddr_i      (lookup_addr),
    .route_rdata_o      (lookup_data),
    .link_tx_valid_o    (ltx_valid),
    .link_tx_ready_i    (ltx_ready),
    .link_tx_flit_o     (ltx_flit),
    .link_rx_valid_i    (lrx_valid),
    .link_rx_ready_o    (lrx_ready),
    .link_rx_flit_i     (lrx_flit),
    .stat_misroutes_o       (misroutes),
    .stat_xb_occupancy_o    (xb_occupancy),
    .stat_xb_max_occupancy_o(xb_max_occupancy),
    .stat_xb_xoff_o         (xb_xoff),
    .stat_xb_overflow_o     (xb_overflow),
    .stat_xb_proto_err_o    (xb_proto_err),
    .stat_path_level_o      (path_level)
  );
  logic unused_exchange;
  assign unused_exchange = ^{xb_occupancy, xb_max_occupancy, xb_xoff, path_level};

  always_comb begin
    xb_error_bits.overflow = 16'(xb_overflow);
    xb_error_bits.proto_err = 16'(xb_proto_err);
    xb_errors = reg_xb_errors_pack(xb_error_bits);
  end

  // ---- Links --------------------------------------------------------------------------------
  xf_link_array #(
    .FlitBits          (FlitBits),
    .NumLinks          (L),
    .RxBufferFlits     (LinkRxBufferFlits),
    .PhyWireDelayCycles(PhyWireDelayCycles),
    .SyncBuffers       (SyncBuffers)
  ) u_links (
    .clk_i            (clk_i),
    .rst_ni           (rst_ni),
    .clr_i            (ctl_clear),
    .tx_valid_i       (ltx_valid),
    .tx_ready_o       (ltx_ready),
    .tx_flit_i        (ltx_flit),
    .rx_valid_o       (lrx_valid),
    .rx_ready_i       (lrx_ready),
    .rx_flit_o        (lrx_flit),
    .phy_tx_valid_o   (phy_tx_valid_o),
    .phy_tx_flit_o    (phy_tx_flit_o),
    .phy_tx_ctl_o     (phy_tx_ctl_o),
    .phy_tx_crc_o     (phy_tx_crc_o),
    .phy_rx_valid_i   (phy_rx_valid_i),
    .phy_rx_flit_i    (phy_rx_flit_i),
    .phy_rx_ctl_i     (phy_rx_ctl_i),
    .phy_rx_crc_i     (phy_rx_crc_i),
    .stat_crc_errors_o(crc_errors),
    .stat_status_o    (link_status),
    .stat_discards_o  (link_discards)
  );

  // ---- Barrier and status -------------------------------------------------------------------
  logic arrived_q, arrived_d, bar_all_q;
  logic done_d, err_q, err_d;
  always_comb begin
    arrived_d = (&(bar_wait | ~tile_used)) && !bar_release_q;
    bar_release_d = bar_all_i && !bar_all_q;
    done_d = &(tile_done | ~tile_used);
    // Link CRC errors and replays are recovered by the retry layer: not errors (warnings the
    // driver reports from LinkStatus).
    err_d = (|tile_errs) || misroutes != 0 || xb_errors != 0;
  end

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      arrived_q <= 1'b0;
      bar_all_q <= 1'b0;
      bar_release_q <= 1'b0;
      done_q <= 1'b0;
      err_q <= 1'b0;
    end else begin
      arrived_q <= arrived_d;
      bar_all_q <= bar_all_i;
      bar_release_q <= bar_release_d;
      done_q <= done_d;
      err_q <= err_d;
    end
  end

  assign bar_arrived_o = arrived_q;
  assign stat_done_o = done_q;
  assign stat_err_o = err_q;

  // ---- Assertions ---------------------------------------------------------------------------
  `ASSERT_INIT(NumTilesLegal_A, NumTiles >= 1 && NumTiles <= xf_defs_pkg::MaxTiles)
  `ASSERT_INIT(FlitBitsLegal_A, (FlitBits == 32 || FlitBits == 64 || FlitBits == 128) &&
                                FlitW == FlitBits + 2)
  `ASSERT_INIT(NumLinksLegal_A, NumLinks >= 1 && NumLinks <= 8)
  `ASSERT_INIT(DmemLegal_A, DmemBytes % 16 == 0 && DmemBytes >= 16)
  `ASSERT(StrapsLegal_A, int'(cfg_num_tiles_i) <= NumTiles && int'(cfg_num_ports_i) <= NumLinks)

endmodule
