// Host port of a chip or switch node (docs/chip.md section 3; the register map of
// docs/generated/defs.md; model: HostPort in model/host_port.hpp, its table of regions). Decodes
// one 32-bit host access at a time onto the node's registers, its routing table and its tiles'
// windows, and answers every access exactly once, with an error flag for an address that hits
// nothing.
//
// Protocol: a valid/ready request stream (host_req_*) and a response pulse (host_rsp_*), one
// response per request, in request order, reads with host_rsp_rdata_o and writes with 0.
// Accesses are pipelined: a taken request waits in a one-entry stage until it completes, and the
// stage takes the next request in the cycle it empties, so a stream of tile accesses runs at one
// per cycle (the tiles take one access per cycle and answer in the next cycle). host_rsp_err_o
// flags an access the map does not allow: an unaligned address, an address that hits nothing, a
// write to a read-only register or a read of Control; the tile windows add their own
// (tile_rsp_err_i). An erroneous access changes nothing.
//
//   cycle              0    1    2    3    4    5
//   host_req_valid_i  ~~~~~~~~~~~~~~~\__________        three tile writes W0 W1 W2
//   host_req_ready_o  ~~~~~~~~~~~~~~~~~~~~~~~~~~        (the tile takes one per cycle)
//   stage             .    W0   W1   W2   .
//   tile takes        .    W0   W1   W2   .
//   host_rsp_valid_o  ______________/~~~~~~~~~~~~\__  responses to W0 W1 W2 in 3 4 5
//
// Latency (request taken in t): a register answers in t + 2, a tile access in t + 3 when the
// tile takes it at once, a RouteTable word in t + 5 (write) or t + 6 (read): the table is
// written and read one byte entry per cycle (the router's table port). A register or table
// access waits until the response of an earlier tile access has gone out, so responses never
// reorder.
//
// Registers: the map of docs/generated/defs.md (ChipId, IndexWr, Control, Status, Cycles,
// Misroutes, XbErrors, Config, AluConfig, DoneCycles, Ports, LinkCrcErrors, LinkStatus,
// LinkDiscards).
// Status bit 31 = a tile error, a misroute or an XB error (link CRC errors are recovered by the
// retry layer and are not errors). A switch node (NumTiles = 0) has no tile windows (accesses
// there are errors) and its Control does nothing.
//
// Cycles and DoneCycles: a Control write with bit 0 taken in S-1 raises ctl_start_o in S;
// Cycles holds c - S in cycle c > S; DoneCycles = D - S for the first cycle D >= S+2 with done_i
// high (= the collective's cycles + 2 on the chip that finishes last), held until the next
// start, 0 before. The derivation: docs/chip.md section 3, "Cycles and DoneCycles".
//
// Combinational paths: host_req_ready_o from tile_req_ready_i (the tiles derive it from
// tile_req_*, which are registers here); nothing from host_req_*. Every other output is a
// register.
//
// Link registers: LinkCrcErrors, LinkStatus and LinkDiscards have 8 slots each, links 0..7; a
// node with more links (a switch of up to 16) has no registers for links 8 and up. Ports answers
// NumLinks whole; Config's field (bits 11:8) saturates at 15.
//
// Parameter constraints: 0 <= NumTiles <= MaxTiles (16); 1 <= NumLinks <= 16; TableChips a power
// of two 1..4096; DmemBytes and AluDtypes 0 for a switch node (NumTiles = 0).
module xf_host_port #(
  // flit width of the machine: 32, 64 or 128 (docs/packets.md section 2)
  parameter int FlitBits = xf_defs_pkg::FlitBits,
  // tiles behind the port; 0 for a switch node
  parameter int NumTiles = 4,
  // link ports (the Ports register; LinkCrcErrors entries for links 0..7); 1..16
  parameter int NumLinks = 4,
  // routing-table chips per lane (Config); a power of two, 1..4096
  parameter int TableChips = 64,
  // data memory per tile in bytes (Config, in KiB); 0 for a switch node
  parameter int DmemBytes = 0,
  // ALU units the tiles are built with (AluConfig: bit d dtype d, bit 7 ScaleAdd); 0 for a switch
  parameter logic [7:0] AluDtypes = 8'h00,
  // tile port slots (derived: at least 1 so that the ports exist; do not override)
  parameter int TileSlots = (NumTiles > 0) ? NumTiles : 1
) (
  input  logic                    clk_i,              // clock
  input  logic                    rst_ni,             // asynchronous reset, active low
  // host request (valid/ready) and response
  input  logic                    host_req_valid_i,   // an access is offered
  output logic                    host_req_ready_o,   // the stage is empty or completes
  input  logic                    host_req_write_i,   // 1 write, 0 read
  input  logic [31:0]             host_req_addr_i,    // byte address in the node's map
  input  logic [31:0]             host_req_wdata_i,   // write data
  output logic                    host_rsp_valid_o,   // the access is answered (one cycle)
  output logic [31:0]             host_rsp_rdata_o,   // read data (0 for writes and errors)
  output logic                    host_rsp_err_o,     // the access was not allowed
  // node registers
  output logic [31:0]             index_o,            // IndexWr: the chip's index value
  output logic                    ctl_start_o,        // Control bit 0 written (pulse)
  output logic                    ctl_clear_o,        // Control bit 1 written (pulse)
  output logic [31:0]             cycles_o,           // cycles since the last start
  // status in
  input  logic [TileSlots-1:0]    tile_done_i,        // tile t has executed End
  input  logic                    tile_err_i,         // some tile holds an error code
  input  logic [31:0]             misroutes_i,        // Misroutes
  input  logic [31:0]             xb_errors_i,        // XbErrors
  input  logic [NumLinks*16-1:0]  crc_errors_i,       // link l's CRC error count
  input  logic [NumLinks*32-1:0]  link_status_i,      // link l's LinkStatus register
  input  logic [NumLinks*32-1:0]  link_discards_i,    // link l's LinkDiscards register
  input  logic                    done_i,             // every tile in use has ended (register)
  // routing table port (the router's host port)
  output logic                    route_we_o,         // write one entry
  output logic [13:0]             route_addr_o,       // entry lane*4096 + dst_chip
  output logic [7:0]              route_wdata_o,      // the entry
  output logic [13:0]             route_raddr_o,      // read address
  input  logic [7:0]              route_rdata_i,      // entry at route_raddr_o, 1 cycle later
  // tile windows (one request port per tile; offsets within the 1 MiB window)
  output logic [TileSlots-1:0]    tile_req_valid_o,   // an access for tile t
  input  logic [TileSlots-1:0]    tile_req_ready_i,   // tile t takes it
  output logic                    tile_req_write_o,   // 1 write, 0 read
  output logic [19:0]             tile_req_addr_o,    // byte offset in the tile window
  output logic [31:0]             tile_req_wdata_o,   // write data
  input  logic [TileSlots-1:0]    tile_rsp_valid_i,   // tile t answers
  input  logic [TileSlots*32-1:0] tile_rsp_rdata_i,   // its read data
  input  logic [TileSlots-1:0]    tile_rsp_err_i      // its error flag
);

  `include "xf_assert.svh"
  `include "xf_types.svh"

  localparam int RouteBytes = xf_defs_pkg::NumLanes * xf_defs_pkg::MaxChips;  // 16384
  // links with LinkCrcErrors, LinkStatus and LinkDiscards registers (8 slots of 4 bytes each)
  localparam int RegLinks = (NumLinks < 8) ? NumLinks : 8;

  // Config and AluConfig: what the node is built with, from the parameters (constants here, so
  // that they fold into the read multiplexer even when a flow keeps the hierarchy).
  reg_config_t     node_config;
  reg_alu_config_t alu_config;
  logic [31:0]     config_word, alu_config_word;
  assign node_config.tiles = 5'(NumTiles);
  assign node_config.flit_bytes_log2 = 3'($clog2(FlitBits / 8));  // 2, 3, 4: 32, 64, 128 bits
  assign node_config.ports = 4'(NumLinks > 15 ? 15 : NumLinks);  // saturates (Ports is whole)
  assign node_config.table_chips_log2 = 4'($clog2(TableChips));
  assign node_config.dmem_kib = 16'(DmemBytes / 1024);
  assign alu_config.units = AluDtypes;
  assign config_word = reg_config_pack(node_config);
  assign alu_config_word = reg_alu_config_pack(alu_config);

  // The accepted request waits in the stage (s_*) until it completes: a register access in one
  // cycle, a table word in 4 or 5 (StRoute), a tile access when the tile takes it.
  typedef enum logic [1:0] {
    KindReg,    // chip register (or an erroneous access: answered at once)
    KindRoute,  // routing-table word
    KindTile    // tile window
  } kind_e;

  logic s_valid_q, s_valid_d;
  kind_e s_kind_q, s_kind_d;
  logic s_write_q, s_write_d;
  logic [31:0] s_wdata_q, s_wdata_d;
  logic [31:0] s_rdata_q, s_rdata_d;  // register read data or assembled table word
  logic s_err_q, s_err_d;
  logic [3:0] s_tile_q, s_tile_d;
  logic [19:0] s_toff_q, s_toff_d;
  logic [13:0] rt_addr_q, rt_addr_d;  // first entry of the word
  logic [2:0] rt_k_q, rt_k_d;  // entries issued so far
  logic [31:0] index_q, index_d;
  logic [31:0] cycles_q, cycles_d;
  logic start_q, start_d, clear_q, clear_d;
  logic start_dly_q, start_dly_d;  // start_q one cycle later (done_i is stale in S and S+1)
  logic dc_armed_q, dc_armed_d;    // a start has come and DoneCycles is not yet captured
  logic [31:0] done_cycles_q, done_cycles_d;
  logic tpend_q, tpend_d;  // a tile took an access last cycle: its response is due now
  logic [3:0] tpend_tile_q, tpend_tile_d;
  logic tpend_write_q, tpend_write_d;
  logic rsp_valid_q, rsp_valid_d, rsp_err_q, rsp_err_d;
  logic [31:0] rsp_rdata_q, rsp_rdata_d;

  // ---- Decode of the offered request -------------------------------------------------------
  logic [31:0] a;
  logic is_reg, is_route, is_tile;
  logic [4:0] tile_slot;  // addr[24:20] - 1 for a tile window
  always_comb begin
    a = host_req_addr_i;
    is_reg = a < xf_defs_pkg::REG_ROUTE_TABLE;
    is_route = a >= xf_defs_pkg::REG_ROUTE_TABLE &&
               a < xf_defs_pkg::REG_ROUTE_TABLE + 32'(RouteBytes);
    tile_slot = a[24:20] - 5'd1;
    is_tile = NumTiles > 0 && a[31:25] == 7'd0 && a[24:20] != 5'd0 &&
              {27'd0, tile_slot} < NumTiles;
  end

  // Register reads and writes (one cycle). reg_ok and reg_rdata matter only for an aligned
  // address below RouteTable (is_reg), so they decode the word index a[11:2] alone; the link
  // registers are blocks of 8 words (32 bytes) each.
  localparam logic [6:0] LinkCrcErrorsBlock = 7'(xf_defs_pkg::REG_LINK_CRC_ERRORS >> 5);
  localparam logic [6:0] LinkStatusBlock = 7'(xf_defs_pkg::REG_LINK_STATUS >> 5);
  localparam logic [6:0] LinkDiscardsBlock = 7'(xf_defs_pkg::REG_LINK_DISCARDS >> 5);
  logic [9:0] reg_word;
  assign reg_word = a[11:2];
  logic reg_ok;
  logic [31:0] reg_rdata;
  logic [2:0] crc_link;
  reg_status_t status;
  logic [15:0] status_done;  // status.done (Icarus 11 selects a field's bit with a constant index)
  reg_control_t control;  // a Control write's data
  always_comb begin
    logic reg_ok_c;
    logic [31:0] reg_rdata_c;
    reg_ok_c = 1'b0;
    reg_rdata_c = '0;
    crc_link = a[4:2];
    status_done = '0;
    for (int t = 0; t < NumTiles; t++) status_done[t] = tile_done_i[t];
    status = '0;
    status.done = status_done;
    // Link CRC errors are recovered by the retry layer: not errors.
    status.error = tile_err_i || misroutes_i != 0 || xb_errors_i != 0;
    unique case (reg_word)
      10'(xf_defs_pkg::REG_CHIP_ID >> 2): begin
        reg_ok_c = !host_req_write_i;
        reg_rdata_c = index_q;
      end
      10'(xf_defs_pkg::REG_INDEX_WR >> 2): begin
        reg_ok_c = 1'b1;
        reg_rdata_c = index_q;
      end
      10'(xf_defs_pkg::REG_CONTROL >> 2): reg_ok_c = host_req_write_i;
      10'(xf_defs_pkg::REG_STATUS >> 2): begin
        reg_ok_c = !host_req_write_i;
        reg_rdata_c = reg_status_pack(status);
      end
      10'(xf_defs_pkg::REG_CYCLES >> 2): begin
        reg_ok_c = !host_req_write_i;
        reg_rdata_c = cycles_q;
      end
      10'(xf_defs_pkg::REG_MISROUTES >> 2): begin
        reg_ok_c = !host_req_write_i;
        reg_rdata_c = misroutes_i;
      end
      10'(xf_defs_pkg::REG_XB_ERRORS >> 2): begin
        reg_ok_c = !host_req_write_i;
        reg_rdata_c = xb_errors_i;
      end
      10'(xf_defs_pkg::REG_CONFIG >> 2): begin
        reg_ok_c = !host_req_write_i;
        reg_rdata_c = config_word;
      end
      10'(xf_defs_pkg::REG_PORTS >> 2): begin  // whole, where Config's field saturates at 15
        reg_ok_c = !host_req_write_i;
        reg_rdata_c = 32'(NumLinks);
      end
      10'(xf_defs_pkg::REG_ALU_CONFIG >> 2): begin
        reg_ok_c = !host_req_write_i;
        reg_rdata_c = alu_config_word;
      end
      10'(xf_defs_pkg::REG_DONE_CYCLES >> 2): begin
        reg_ok_c = !host_req_write_i;
        reg_rdata_c = done_cycles_q;
      end
      default: begin
        if (reg_word[9:3] == LinkCrcErrorsBlock) begin  // 8 links x 4 bytes
          reg_ok_c = !host_req_write_i;
          for (int l = 0; l < RegLinks; l++)
            if (crc_link == 3'(l)) reg_rdata_c = {16'd0, crc_errors_i[l*16 +: 16]};
        end else if (reg_word[9:3] == LinkStatusBlock) begin
          reg_ok_c = !host_req_write_i;
          for (int l = 0; l < RegLinks; l++)
            if (crc_link == 3'(l)) reg_rdata_c = link_status_i[l*32 +: 32];
        end else if (reg_word[9:3] == LinkDiscardsBlock) begin
          reg_ok_c = !host_req_write_i;
          for (int l = 0; l < RegLinks; l++)
            if (crc_link == 3'(l)) reg_rdata_c = link_discards_i[l*32 +: 32];
        end
      end
    endcase
    reg_ok = reg_ok_c;
    reg_rdata = reg_rdata_c;
  end

  // Links 8 and up (a wide switch) have no registers.
  if (NumLinks > RegLinks) begin : gen_unregistered_links
    logic unused_links;
    always_comb begin
      unused_links = 1'b0;
      for (int l = RegLinks; l < NumLinks; l++)
        unused_links ^= ^{crc_errors_i[l*16 +: 16], link_status_i[l*32 +: 32],
                          link_discards_i[l*32 +: 32]};
    end
  end

  // The stage's tile and the pending response's tile.
  logic sel_ready, pend_rsp_valid, pend_rsp_err;
  logic [31:0] pend_rsp_rdata;
  always_comb begin
    logic sel_ready_c;
    logic pend_rsp_valid_c;
    logic pend_rsp_err_c;
    logic [31:0] pend_rsp_rdata_c;
    sel_ready_c = 1'b0;
    pend_rsp_valid_c = 1'b0;
    pend_rsp_err_c = 1'b0;
    pend_rsp_rdata_c = '0;
    for (int t = 0; t < TileSlots; t++) begin
      if (s_tile_q == 4'(t)) sel_ready_c = tile_req_ready_i[t];
      if (tpend_tile_q == 4'(t)) begin
        pend_rsp_valid_c = tile_rsp_valid_i[t];
        pend_rsp_err_c = tile_rsp_err_i[t];
        pend_rsp_rdata_c = tile_rsp_rdata_i[t*32 +: 32];
      end
    end
    sel_ready = sel_ready_c;
    pend_rsp_valid = pend_rsp_valid_c;
    pend_rsp_err = pend_rsp_err_c;
    pend_rsp_rdata = pend_rsp_rdata_c;
  end

  // ---- Stage and response -------------------------------------------------------------------
  logic s_done;  // the stage's access completes (leaves the stage) in this cycle
  logic take;    // a new request enters the stage
  logic rt_last;  // the table access's last step
  always_comb begin
    logic s_done_c;
    rt_last = (s_write_q && rt_k_q >= 3'd3) || rt_k_q == 3'd4;
    s_done_c = 1'b0;
    if (s_valid_q) begin
      unique case (s_kind_q)
        KindTile: s_done_c = sel_ready;
        KindRoute: s_done_c = rt_last && !tpend_q;
        default: s_done_c = !tpend_q;
      endcase
    end
    s_done = s_done_c;
  end

  // Ready: the stage is empty or completes this cycle. Combinational from tile_req_ready_i (which
  // the tiles derive from the stage's registers) and from registers; not from host_req_*.
  assign host_req_ready_o = !s_valid_q || s_done;
  assign take = host_req_valid_i && host_req_ready_o;

  assign control = reg_control_unpack(host_req_wdata_i);

  always_comb begin
    s_valid_d = s_valid_q;
    s_kind_d = s_kind_q;
    s_write_d = s_write_q;
    s_wdata_d = s_wdata_q;
    s_rdata_d = s_rdata_q;
    s_err_d = s_err_q;
    s_tile_d = s_tile_q;
    s_toff_d = s_toff_q;
    rt_addr_d = rt_addr_q;
    rt_k_d = rt_k_q;
    index_d = index_q;
    cycles_d = start_q ? 32'd1 : cycles_q + 32'd1;  // the start's cycle is cycle 0
    start_d = 1'b0;
    clear_d = 1'b0;
    start_dly_d = start_q;
    // DoneCycles: the Cycles of the first cycle from S+2 on in which every tile is done.
    dc_armed_d = dc_armed_q;
    done_cycles_d = done_cycles_q;
    if (dc_armed_q && done_i && !start_q && !start_dly_q) begin
      dc_armed_d = 1'b0;
      done_cycles_d = cycles_q;
    end
    tpend_d = 1'b0;
    tpend_tile_d = tpend_tile_q;
    tpend_write_d = tpend_write_q;
    rsp_valid_d = 1'b0;
    rsp_err_d = 1'b0;
    rsp_rdata_d = '0;

    // A tile's response (to an access it took last cycle) is passed on first: it is older than
    // anything in the stage.
    if (tpend_q) begin
      rsp_valid_d = 1'b1;
      rsp_err_d = pend_rsp_err;
      rsp_rdata_d = tpend_write_q ? 32'd0 : pend_rsp_rdata;
    end

    if (s_valid_q) begin
      unique case (s_kind_q)
        KindTile: begin
          if (sel_ready) begin
            tpend_d = 1'b1;
            tpend_tile_d = s_tile_q;
            tpend_write_d = s_write_q;
          end
        end
        KindRoute: begin
          // Entry k is addressed in step k and read back in step k + 1 (entries shift in from
          // the top: after four, entry 0 is in bits 7:0). A write takes 4 steps, a read 5.
          if (!s_write_q && rt_k_q != 3'd0) s_rdata_d = {route_rdata_i, s_rdata_q[31:8]};
          rt_k_d = rt_k_q + 3'd1;
          if (rt_last) begin
            if (!tpend_q) begin
              rsp_valid_d = 1'b1;
              rsp_rdata_d = s_write_q ? 32'd0 : s_rdata_d;
            end else begin
              rt_k_d = rt_k_q;  // wait for the older tile response to go out first
              s_rdata_d = s_rdata_q;
            end
          end
        end
        default: begin  // KindReg, and every refused access
          if (!tpend_q) begin
            rsp_valid_d = 1'b1;
            rsp_err_d = s_err_q;
            rsp_rdata_d = s_err_q ? 32'd0 : s_rdata_q;
          end
        end
      endcase
    end
    if (s_done) s_valid_d = 1'b0;

    // A new request enters the stage when it is free or being freed.
    if (take) begin
      s_valid_d = 1'b1;
      s_write_d = host_req_write_i;
      s_wdata_d = host_req_wdata_i;
      s_rdata_d = '0;
      s_err_d = 1'b0;
      s_kind_d = KindReg;
      rt_k_d = '0;
      if (a[1:0] != 2'd0) begin
        s_err_d = 1'b1;
      end else if (is_reg) begin
        s_err_d = !reg_ok;
        if (reg_ok && !host_req_write_i) s_rdata_d = reg_rdata;
        if (reg_ok && host_req_write_i) begin
          if (reg_word == 10'(xf_defs_pkg::REG_INDEX_WR >> 2)) index_d = host_req_wdata_i;
          if (reg_word == 10'(xf_defs_pkg::REG_CONTROL >> 2) && NumTiles > 0) begin
            start_d = control.start;
            clear_d = control.clear;
            if (control.start) begin  // DoneCycles reads 0 from the start's cycle on
              dc_armed_d = 1'b1;
              done_cycles_d = '0;
            end
          end
        end
      end else if (is_route) begin
        s_kind_d = KindRoute;
        rt_addr_d = 14'(a - xf_defs_pkg::REG_ROUTE_TABLE);
      end else if (is_tile) begin
        s_kind_d = KindTile;
        s_toff_d = a[19:0];
        s_tile_d = tile_slot[3:0];
      end else begin
        s_err_d = 1'b1;
      end
    end
  end

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      s_valid_q <= 1'b0;
      s_kind_q <= KindReg;
      s_write_q <= 1'b0;
      s_wdata_q <= '0;
      s_rdata_q <= '0;
      s_err_q <= 1'b0;
      s_tile_q <= '0;
      s_toff_q <= '0;
      rt_addr_q <= '0;
      rt_k_q <= '0;
      index_q <= '0;
      cycles_q <= '0;
      start_q <= 1'b0;
      clear_q <= 1'b0;
      start_dly_q <= 1'b0;
      dc_armed_q <= 1'b0;
      done_cycles_q <= '0;
      tpend_q <= 1'b0;
      tpend_tile_q <= '0;
      tpend_write_q <= 1'b0;
      rsp_valid_q <= 1'b0;
      rsp_err_q <= 1'b0;
      rsp_rdata_q <= '0;
    end else begin
      s_valid_q <= s_valid_d;
      s_kind_q <= s_kind_d;
      s_write_q <= s_write_d;
      s_wdata_q <= s_wdata_d;
      s_rdata_q <= s_rdata_d;
      s_err_q <= s_err_d;
      s_tile_q <= s_tile_d;
      s_toff_q <= s_toff_d;
      rt_addr_q <= rt_addr_d;
      rt_k_q <= rt_k_d;
      index_q <= index_d;
      cycles_q <= cycles_d;
      start_q <= start_d;
      clear_q <= clear_d;
      start_dly_q <= start_dly_d;
      dc_armed_q <= dc_armed_d;
      done_cycles_q <= done_cycles_d;
      tpend_q <= tpend_d;
      tpend_tile_q <= tpend_tile_d;
      tpend_write_q <= tpend_write_d;
      rsp_valid_q <= rsp_valid_d;
      rsp_err_q <= rsp_err_d;
      rsp_rdata_q <= rsp_rdata_d;
    end
  end

  assign host_rsp_valid_o = rsp_valid_q;
  assign host_rsp_rdata_o = rsp_rdata_q;
  assign host_rsp_err_o = rsp_err_q;
  assign index_o = index_q;
  assign ctl_start_o = start_q;
  assign ctl_clear_o = clear_q;
  assign cycles_o = cycles_q;

  assign route_we_o = s_valid_q && s_kind_q == KindRoute && s_write_q && rt_k_q <= 3'd3;
  assign route_addr_o = rt_addr_q + 14'(rt_k_q);
  assign route_raddr_o = rt_addr_q + 14'(rt_k_q);
  always_comb begin
    logic [7:0] route_wdata_o_c;
    unique case (rt_k_q[1:0])
      2'd0: route_wdata_o_c = s_wdata_q[7:0];
      2'd1: route_wdata_o_c = s_wdata_q[15:8];
      2'd2: route_wdata_o_c = s_wdata_q[23:16];
      default: route_wdata_o_c = s_wdata_q[31:24];
    endcase
    route_wdata_o = route_wdata_o_c;
  end

  always_comb begin
    logic [TileSlots-1:0] tile_req_valid_o_c;
    tile_req_valid_o_c = '0;
    for (int t = 0; t < TileSlots; t++)
      if (s_valid_q && s_kind_q == KindTile && s_tile_q == 4'(t)) tile_req_valid_o_c[t] = 1'b1;
    tile_req_valid_o = tile_req_valid_o_c;
  end
  assign tile_req_write_o = s_write_q;
  assign tile_req_addr_o = s_toff_q;
  assign tile_req_wdata_o = s_wdata_q;

  // ---- Assertions ---------------------------------------------------------------------------
  `ASSERT_INIT(NumTilesLegal_A, NumTiles >= 0 && NumTiles <= xf_defs_pkg::MaxTiles)
  `ASSERT_INIT(NumLinksLegal_A, NumLinks >= 1 && NumLinks <= 16)
  `ASSERT(TileSelInRange_A, !(s_valid_q && s_kind_q == KindTile) || int'(s_tile_q) < TileSlots)
  // The tiles answer every access in the cycle after they take it (rtl/xf_tile.sv).
  `ASSERT(TileAnswersNextCycle_A, !tpend_q || pend_rsp_valid)
  `ASSERT_KNOWN(ReqValidKnown_A, host_req_valid_i)

endmodule
