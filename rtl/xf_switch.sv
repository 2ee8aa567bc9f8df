// A switch node (docs/chip.md section 5; model: `Node` with no tiles in model/node.*): the
// parent of the tree patent's trees. NumLinks link endpoints (rtl/xf_link_phy.sv) around the
// wormhole router (rtl/xf_router.sv) with link ports only (cfg_is_chip_i = 0: every packet is
// routed by the table, RouteTable[lane][dst_chip]), and a host port (rtl/xf_host_port.sv with no
// tiles) for the routing table and the status registers. No tiles, no XBs, no barrier members.
//
// Timing: a head flit taken from a link's receive buffer in cycle t leaves on the output link in
// t + 1 (the router's input stage); the model moves it in t. Misrouted packets are dropped and
// counted (Misroutes).
//
// Combinational paths: none from inputs to outputs.
//
// Parameter constraints: FlitBits 32, 64 or 128 (the machine's); 1 <= NumLinks <= 16; TableChips
// a power of two, 1..MaxChips; LinkRxBufferFlits and PhyWireDelayCycles as rtl/xf_link_phy.sv
// requires, equal on both ends.
module xf_switch #(
  // flit width of the machine: 32, 64 or 128 (docs/packets.md section 2)
  parameter int FlitBits = xf_defs_pkg::FlitBits,
  // link ports instantiated; 1..16 (the Verilated harness builds 16, sw/backends/rtl/rtl_system.hpp)
  parameter int NumLinks = 4,
  // routing-table chips per lane (a power of two, 1..4096); chips >= TableChips are misroutes.
  // 64 by default, as xf_chip
  parameter int TableChips = 64,
  // link receive buffer (and initial credits); equal on both ends of every link
  parameter int LinkRxBufferFlits = xf_defs_pkg::LinkRxBufferFlits,
  // PHY wire delay each way, cycles (sizes the link's credit-loop check only)
  parameter int PhyWireDelayCycles = xf_defs_pkg::LinkLatencyCycles - xf_defs_pkg::LinkRegCycles,
  // the links' buffers: 1 read synchronously one cycle ahead (block RAM, iCE40), 0 asynchronously
  // (distributed RAM: ECP5, Xilinx); the same cycles either way (rtl/xf_buf_ram.sv)
  parameter bit SyncBuffers = 1'b0
) (
  input  logic                    clk_i,             // clock
  input  logic                    rst_ni,            // asynchronous reset, active low
  // straps
  input  logic [11:0]             cfg_node_id_i,     // this node's id (>= the number of chips)
  input  logic [4:0]              cfg_num_ports_i,   // links connected (<= NumLinks)
  // host port (rtl/xf_host_port.sv)
  input  logic                    host_req_valid_i,  // an access is offered
  output logic                    host_req_ready_o,  // no access in progress
  input  logic                    host_req_write_i,  // 1 write, 0 read
  input  logic [31:0]             host_req_addr_i,   // byte address in the node's map
  input  logic [31:0]             host_req_wdata_i,  // write data
  output logic                    host_rsp_valid_o,  // the access is answered
  output logic [31:0]             host_rsp_rdata_o,  // read data
  output logic                    host_rsp_err_o,    // the access was not allowed
  // link PHYs (rtl/xf_link_phy.sv), link l at [l*W +: W]
  output logic [NumLinks-1:0]     phy_tx_valid_o,    // a word is present
  output logic [NumLinks*(FlitBits+2)-1:0] phy_tx_flit_o,  // {head, tail, data}
  output logic [NumLinks*32-1:0]  phy_tx_ctl_o,      // seq, ack, credits, naks, fv
  output logic [NumLinks*32-1:0]  phy_tx_crc_o,      // CRC-32 of the word
  input  logic [NumLinks-1:0]     phy_rx_valid_i,    // a word arrives
  input  logic [NumLinks*(FlitBits+2)-1:0] phy_rx_flit_i,  // {head, tail, data}
  input  logic [NumLinks*32-1:0]  phy_rx_ctl_i,      // seq, ack, credits, naks, fv
  input  logic [NumLinks*32-1:0]  phy_rx_crc_i,      // CRC-32 of the word
  // status (register)
  output logic                    stat_err_o         // Status bit 31: a misroute or CRC error
);

  `include "xf_assert.svh"
  `include "xf_types.svh"

  localparam int FlitW = FlitTypeBits;  // {head, tail, data}: flit_t

  localparam int L = NumLinks;

  logic [31:0] misroutes;
  logic [L*16-1:0] crc_errors;
  logic [L*32-1:0] link_status, link_discards;
  logic route_we;
  logic [13:0] route_addr, route_raddr;
  logic [7:0] route_wdata, route_rdata;
  logic [31:0] index, cycles;
  logic ctl_start, ctl_clear;
  logic treq_valid, treq_write;
  logic [19:0] treq_addr;
  logic [31:0] treq_wdata;

  xf_host_port #(
    .FlitBits(FlitBits),
    .NumTiles  (0),
    .NumLinks  (L),
    .TableChips(TableChips),
    .DmemBytes (0),
    .AluDtypes (8'h00)
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
    .tile_done_i      (1'b0),
    .tile_err_i       (1'b0),
    .misroutes_i      (misroutes),
    .xb_errors_i      (32'd0),
    .crc_errors_i     (crc_errors),
    .link_status_i    (link_status),
    .link_discards_i  (link_discards),
    .done_i           (1'b0),
    .route_we_o       (route_we),
    .route_addr_o     (route_addr),
    .route_wdata_o    (route_wdata),
    .route_raddr_o    (route_raddr),
    .route_rdata_i    (route_rdata),
    .tile_req_valid_o (treq_valid),
    .tile_req_ready_i (1'b0),
    .tile_req_write_o (treq_write),
    .tile_req_addr_o  (treq_addr),
    .tile_req_wdata_o (treq_wdata),
    .tile_rsp_valid_i (1'b0),
    .tile_rsp_rdata_i (32'd0),
    .tile_rsp_err_i   (1'b0)
  );

  logic unused_host;
  assign unused_host = ^{index, cycles, ctl_start, treq_valid, treq_write, treq_addr,
                         treq_wdata};

  // ---- Router: link receive buffers in, link transmitters out ---------------------------------
  logic [L-1:0] ltx_valid, ltx_ready, lrx_valid, lrx_ready, lrx_done;
  logic [L*FlitW-1:0] ltx_flit, lrx_flit;
  logic [7:0] lookup_unused;

  xf_router #(
    .FlitBits     (FlitBits),
    .NumIn        (L),
    .NumOut       (L),
    .TableChips   (TableChips),
    .NumLookups   (0),
    .CreditOutputs(L)
  ) u_router (
    .clk_i            (clk_i),
    .rst_ni           (rst_ni),
    .cfg_route_we_i   (route_we),
    .cfg_route_addr_i (route_addr),
    .cfg_route_wdata_i(route_wdata),
    .cfg_route_raddr_i(route_raddr),
    .cfg_route_rdata_o(route_rdata),
    .cfg_chip_id_i    (cfg_node_id_i),
    .cfg_is_chip_i    (1'b0),
    .cfg_num_tiles_i  (6'd0),
    .cfg_num_ports_i  ({1'b0, cfg_num_ports_i}),
    .in_valid_i       (lrx_valid),
    .in_ready_o       (lrx_ready),
    .in_done_o        (lrx_done),
    .in_flit_i        (lrx_flit),
    .out_valid_o      (ltx_valid),
    .out_ready_i      (ltx_ready),
    .out_credit_i     (ltx_ready),
    .out_flit_o       (ltx_flit),
    .lookup_addr_i    (14'd0),
    .lookup_data_o    (lookup_unused),
    .stat_misroutes_o (misroutes)
  );

  logic unused_router;
  assign unused_router = ^{lrx_done, lookup_unused};

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

  logic err_q, err_d;
  assign err_d = misroutes != 0;  // link CRC errors are recovered by retry: not errors
  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) err_q <= 1'b0;
    else err_q <= err_d;
  end
  assign stat_err_o = err_q;

  `ASSERT_INIT(FlitBitsLegal_A, (FlitBits == 32 || FlitBits == 64 || FlitBits == 128) &&
                                FlitW == FlitBits + 2)
  `ASSERT_INIT(NumLinksLegal_A, NumLinks >= 1 && NumLinks <= 16)
  `ASSERT(StrapsLegal_A, int'(cfg_num_ports_i) <= NumLinks)

endmodule
