// A tile (docs/tile.md, model/tile.cpp class Tile): IMEM, PMEM and DMEM, the sequencer
// (xf_tile_seq), the send engine (xf_tile_send), the receive engine with the reduction ALU and
// the arrival counters (xf_tile_recv), the status (running, done, first error) and the host
// port. Interfaces (tile <-> exchange, tile <-> chip), timing diagrams and the latencies against
// the model: docs/tile.md "RTL: xf_tile".
//
// Cycle order (the model's Tile::tick): in a cycle t the receive engine takes at most one flit,
// the XB messages of t are applied, the send engine decides at most one emission, and the
// sequencer executes at most one instruction if the tile was running at the start of t, seeing
// the send queue and session as they were at the start of t (registers: no path from the
// exchange through the engines reaches it). An engine's error in t (a bad packet received, "no
// route") stops the sequencer from t+1: the instruction of t still executes. First error kept
// (receive engine, then send engine, then sequencer); any error clears running; the engines
// keep working. With the first error, TileErrInfo takes its detail
// (docs/errors.md): the receive engine's ErrCheck and the bad packet's source, or the
// sequencer's watchdog WaitKind and counter (0 for the other errors). TileErrCount counts every
// packet the receive engine drops (saturating). Both are cleared by start/clear. TileWatchdog
// (RW, reset 0, kept across start/clear) is the sequencer's watchdog period.
//
// Memories (xf_tile_ram, synchronous read, one write port):
//   IMEM  ImemWords x 64, 2 write lanes of 32 (host), 1 read port: sequencer fetch (fetch pc),
//         or the host for one cycle (the sequencer then fetches the word again: one cycle lost
//         if its execute stage advances in the next cycle).
//   PMEM  PmemWords x 32, write: host; 1 read port: Lw (first cycle), or the host, which has
//         priority (a Lw issue waits one cycle).
//   DMEM  DmemBytes/W x FlitBits (W = FlitBits / 8 bytes, one flit a word), FlitBits/32 write
//         lanes of 32; read port A: send engine payload reads, or the host, which has priority
//         (a payload flit waits one cycle); read port B: receive engine (Reduce); write port:
//         receive engine (all lanes); a host write waits for a cycle in which the receive engine
//         does not write (at most 2048/W + 1 cycles: a packet is at most 2048/W payload flits
//         and its header flits write nothing). The host's 32-bit word is lane (addr / 4) mod
//         (FlitBits / 32) of DMEM word addr / W.
//
// Host port: one 32-bit access per cycle, response (host_rsp_valid_o) in the cycle after
// acceptance, in order. host_req_ready_o is low only for a DMEM write while the receive engine
// writes DMEM (combinational from host_req_write_i and host_req_addr_i). Regions and offsets
// (TileStatus, TileErrInfo, TileErrCount, TileWatchdog, TileCounters, IMEM, PMEM, DMEM):
// docs/tile.md "RTL: xf_tile", Host access; an unaligned, out-of-range or read-only-written
// address answers host_rsp_err_o with rdata 0 and has no effect.
//
// Combinational paths (all allowed by docs/tile.md "Interfaces"): rx_ready_o is a register (the
// receive skid buffer's, below); route_raddr_o from registers only; host_req_ready_o from
// host_req_*; bar_wait_o, tx_*, stat_* and host_rsp_* from registers only.
//
// ALU subsets (AluDtypes, docs/alu.md section 9): the ALU builds only these dtypes (bits 0..6)
// and ScaleAdd only with bit 7; a received Reduce of another dtype (or a ScaleAdd) is dropped as
// an invalid pair (BadPacket, ErrCheck Pair) and a Send of one fails as an invalid pair
// (IllegalInstr), as they do for an invalid (dtype, op) pair.
//
// Parameter constraints: FlitBits 32, 64 or 128; NumLinks 1..8; ImemWords 2..4096 and PmemWords 2..16384, powers of two;
// DmemBytes a multiple of 16, 32..786432 (the host window); AluDtypes[7] (ScaleAdd) only with
// AluDtypes[6] (fp32).
module xf_tile #(
  // flit width of the machine: 32, 64 or 128 (docs/packets.md section 2)
  parameter int FlitBits = xf_defs_pkg::FlitBits,
  // links (width of xb_msg_*)
  parameter int NumLinks = 4,
  // instruction memory, 64-bit words
  parameter int ImemWords = 4096,
  // parameter memory, 32-bit words
  parameter int PmemWords = 16384,
  // data memory bytes
  parameter int DmemBytes = 786432,
  // units the reduction ALU is built with: bit d = dtype d (0 int8 .. 6 fp32), bit 7 = fp32
  // ScaleAdd; 8'hFF = all
  parameter logic [7:0] AluDtypes = 8'hFF,
  // the sequencer's register file: 1 in block RAM (iCE40), 0 in distributed RAM (ECP5,
  // Xilinx); the same cycles either way (rtl/xf_tile_seq.sv)
  parameter bit SyncBuffers = 1'b0
) (
  input  logic                  clk_i,             // clock
  input  logic                  rst_ni,            // asynchronous reset, active low
  // tile -> exchange path
  output logic                  tx_valid_o,        // a flit/control enters the path
  output logic [FlitBits+1:0]   tx_flit_o,         // {head, tail, data}; XREQ/XDONE: data 0
  output logic                  tx_link_o,         // link-bound
  output logic [3:0]            tx_port_o,         // link port (tile-bound: the dst tile)
  output logic [1:0]            tx_ctrl_o,         // 0 data, 1 XREQ, 2 XDONE
  input  logic                  tx_credit_i,       // one credit back
  // exchange -> tile receive path
  input  logic                  rx_valid_i,        // a flit is offered
  output logic                  rx_ready_o,        // taken (low only for read after write)
  input  logic [FlitBits+1:0]   rx_flit_i,         // {head, tail, data}
  // XB messages
  input  logic [NumLinks-1:0]   xb_msg_valid_i,    // message from link l
  input  logic [2*NumLinks-1:0] xb_msg_kind_i,     // per link: 0 GRANT, 1 XON, 2 XOFF
  // route lookup
  output logic [13:0]           route_raddr_o,     // lane * 4096 + dst_chip
  input  logic [7:0]            route_rdata_i,     // entry, one cycle after the address
  // chip
  input  logic [11:0]           cfg_chip_id_i,     // this chip
  input  logic [3:0]            cfg_tile_id_i,     // this tile
  input  logic [31:0]           cfg_index_i,       // CSR 0
  input  logic [12:0]           cfg_num_chips_i,   // chips in the machine
  input  logic [4:0]            cfg_num_tiles_i,   // tiles on this chip
  input  logic [3:0]            cfg_num_ports_i,   // connected link ports
  input  logic [31:0]           cycles_i,          // cycles since the last start (Geti 3)
  input  logic                  ctl_clear_i,       // pulse: clear
  input  logic                  ctl_start_i,       // pulse: clear, then run
  output logic                  bar_wait_o,        // waiting at Bar
  input  logic                  bar_release_i,     // pulse: retire Bar
  output logic [3:0]            stat_err_o,        // first error (TileErr)
  output logic                  stat_done_o,       // End retired
  output logic                  stat_running_o,    // running
  output logic [15:0]           stat_pc_o,         // pc
  // host port
  input  logic                  host_req_valid_i,  // a request
  output logic                  host_req_ready_o,  // accepted
  input  logic                  host_req_write_i,  // 1 write, 0 read
  input  logic [19:0]           host_req_addr_i,   // byte offset in the tile window
  input  logic [31:0]           host_req_wdata_i,  // write data
  output logic                  host_rsp_valid_o,  // one pulse per accepted request
  output logic [31:0]           host_rsp_rdata_o,  // read data (0 for writes and errors)
  output logic                  host_rsp_err_o     // no such address, or read-only
);

  `include "xf_assert.svh"
  `include "xf_types.svh"

  localparam int FlitBytes = FlitBits / 8;  // W: bytes of a flit and of a DMEM word
  localparam int ByteShift = $clog2(FlitBytes);
  localparam int DmemLanes = FlitBits / 32;  // 32-bit host lanes of a DMEM word
  localparam int DmemWords = DmemBytes / FlitBytes;
  localparam int WordBits = $clog2(DmemWords + 1);  // a DMEM word index or count
  localparam int GrainBits = $clog2(DmemBytes / xf_defs_pkg::GrainBytes + 1);  // in grains
  localparam int ImemAddrBits = $clog2(ImemWords);
  localparam int PmemAddrBits = $clog2(PmemWords);
  localparam int DmemAddrBits = $clog2(DmemWords);

  `ASSERT_INIT(FlitBitsLegal_A, FlitBits == 32 || FlitBits == 64 || FlitBits == 128)
  `ASSERT_INIT(NumLinksLegal_A, NumLinks >= 1 && NumLinks <= 8)
  `ASSERT_INIT(DmemBytesLegal_A, DmemBytes % 16 == 0 && DmemBytes >= 32 && DmemBytes <= 786432)
  `ASSERT_INIT(WordBitsLegal_A, WordBits >= DmemAddrBits)

  // ---- Status ---------------------------------------------------------------------------------
  logic       clear;
  logic       running_d, running_q, done_d, done_q;
  logic [3:0] err_d, err_q;
  reg_tile_err_info_t err_info_d, err_info_q;  // TileErrInfo
  logic [31:0] err_count_d, err_count_q;  // TileErrCount
  logic [31:0] wd_period_d, wd_period_q;  // TileWatchdog

  // ---- Block interconnect ------------------------------------------------------------------
  logic                    rx_fail, send_fail, seq_fail, seq_halt;
  logic [3:0]              rx_fail_code, seq_fail_code;
  logic [3:0]              rx_fail_check;
  logic [11:0]             rx_fail_src_chip;
  logic [3:0]              rx_fail_src_tile;
  logic [1:0]              rx_discard;
  logic [3:0]              seq_fail_kind;
  logic [4:0]              seq_fail_ctr;
  logic                    rx_progress, send_emit;
  logic                    progress_q;  // an engine progressed in the last cycle (watchdog)
  logic [32:0]             err_count_sum;
  logic [31:0]             avg_scale, scale, pc;
  logic                    seq_imem_re;
  logic [ImemAddrBits-1:0] seq_imem_raddr;
  logic [63:0]             imem_rdata;
  logic                    seq_pmem_re;
  logic [PmemAddrBits-1:0] seq_pmem_raddr;
  logic [31:0]             pmem_rdata;
  logic [2:0]              send_jobs;
  logic                    send_session, send_held;
  logic                    push;
  logic [GrainBits-1:0]    push_addr, push_words;
  logic [11:0]             push_dst_chip;
  logic [23:0]             push_dst_addr;
  logic                    push_local;
  logic [28:0]             push_desc;
  logic [31:0]             push_stream;
  logic [4:0]              stream_ctr;
  logic [31:0]             stream_count;
  logic [14:0]             stream_next_ctr;
  logic [95:0]             stream_next_count;
  logic [4:0]              wait_ctr;
  logic [31:0]             wait_count, host_ctr_rdata;
  logic                    send_re;
  logic [WordBits-1:0]     send_raddr;
  logic                    recv_re, recv_we;
  logic [WordBits-1:0]     recv_raddr, recv_waddr;
  logic [FlitBits-1:0]     recv_wdata;
  logic                    recv_notice_we;
  logic [WordBits-1:0]     recv_notice_waddr;
  logic                    fwd_q;         // port A's read of last cycle hit the write of its cycle
  logic [FlitBits-1:0]     fwd_data_q;    // ... which wrote this
  logic [FlitBits-1:0]     send_rdata;
  logic [2*FlitBits-1:0]   dmem_rdata;
  logic                    rx_full, rx_empty, recv_ready;  // receive skid buffer
  logic [FlitBits+1:0]     recv_flit;
  logic                    unused_rx_count;  // the skid buffer's count is its full_o
  logic [3:0]              hz_valid;
  logic [4*WordBits-1:0]   hz_lo, hz_hi;

  // ---- Host port decode -------------------------------------------------------------------
  logic        h_status, h_ctr, h_imem, h_pmem, h_dmem, h_hit, h_err, h_accept, h_wd_wr;
  logic [19:0] h_dmem_off;
  logic        h_imem_rd, h_imem_wr, h_pmem_rd, h_pmem_wr, h_dmem_rd, h_dmem_wr;
  logic        fetch_bad_d, fetch_bad_q;  // the host had the IMEM port last cycle
  logic        rsp_valid_d, rsp_valid_q, rsp_err_d, rsp_err_q;
  logic [1:0]  rsp_src_d, rsp_src_q;      // 0 register value, 1 IMEM, 2 PMEM, 3 DMEM
  logic [1:0]  rsp_sel_d, rsp_sel_q;      // IMEM half (bit 0) or DMEM lane
  logic [1:0]  h_lane;                    // the host's DMEM lane
  logic [31:0] rsp_reg_d, rsp_reg_q;
  reg_tile_status_t tile_status;          // TileStatus

  // RAM ports
  logic                           imem_re;
  logic [ImemAddrBits-1:0]        imem_raddr, imem_waddr;
  logic [1:0]                     imem_we;
  logic                           pmem_re;
  logic [PmemAddrBits-1:0]        pmem_raddr, pmem_waddr;
  logic [0:0]                     pmem_we;
  logic [1:0]                     dmem_re;
  logic [2*DmemAddrBits-1:0]      dmem_raddr;
  logic [DmemAddrBits-1:0]        dmem_waddr;
  logic [DmemLanes-1:0]           dmem_we;
  logic [FlitBits-1:0]            dmem_wdata;

  always_comb begin
    h_status = host_req_addr_i[19:4] == '0;  // TileStatus, ErrInfo, ErrCount, Watchdog
    h_ctr = host_req_addr_i[19:7] == 13'h2;  // 0x100 .. 0x17F
    h_imem = host_req_addr_i[19:16] == 4'h1 && 32'(host_req_addr_i[15:3]) < ImemWords;
    h_pmem = host_req_addr_i[19:16] == 4'h2 && 32'(host_req_addr_i[15:2]) < PmemWords;
    h_dmem_off = host_req_addr_i - 20'h40000;
    h_dmem = host_req_addr_i >= 20'h40000 && 32'(h_dmem_off) < DmemBytes;
    h_hit = host_req_addr_i[1:0] == 2'b00 && (h_status || h_ctr || h_imem || h_pmem || h_dmem);
    h_err = !h_hit || (host_req_write_i && ((h_status && host_req_addr_i[3:2] != 2'd3) || h_ctr));
    // A DMEM write waits for a cycle in which the receive engine does not write.
    host_req_ready_o = !(host_req_write_i && h_dmem && recv_we);
    h_accept = host_req_valid_i && host_req_ready_o;
    h_imem_rd = h_accept && !h_err && h_imem && !host_req_write_i;
    h_imem_wr = h_accept && !h_err && h_imem && host_req_write_i;
    h_pmem_rd = h_accept && !h_err && h_pmem && !host_req_write_i;
    h_pmem_wr = h_accept && !h_err && h_pmem && host_req_write_i;
    h_dmem_rd = h_accept && !h_err && h_dmem && !host_req_write_i;
    h_dmem_wr = h_accept && !h_err && h_dmem && host_req_write_i;
    h_wd_wr = h_accept && !h_err && h_status && host_req_write_i;

    rsp_valid_d = h_accept;
    rsp_err_d = h_accept && h_err;
    rsp_src_d = 2'd0;
    h_lane = host_req_addr_i[3:2] & 2'(DmemLanes - 1);
    rsp_sel_d = h_dmem ? h_lane : host_req_addr_i[3:2];
    rsp_reg_d = '0;
    tile_status = '0;
    tile_status.err = err_q;
    tile_status.done = done_q;
    tile_status.pc = stat_pc_o;
    if (h_accept && !h_err && !host_req_write_i) begin
      if (h_status) begin
        case (host_req_addr_i[3:2])
          2'd0: rsp_reg_d = reg_tile_status_pack(tile_status);
          2'd1: rsp_reg_d = reg_tile_err_info_pack(err_info_q);
          2'd2: rsp_reg_d = err_count_q;
          default: rsp_reg_d = wd_period_q;
        endcase
      end
      if (h_ctr) rsp_reg_d = host_ctr_rdata;
      if (h_imem) rsp_src_d = 2'd1;
      if (h_pmem) rsp_src_d = 2'd2;
      if (h_dmem) rsp_src_d = 2'd3;
    end
    fetch_bad_d = h_imem_rd;
  end

  // Memory ports.
  always_comb begin
    logic [1:0] dmem_re_c;
    logic [2*DmemAddrBits-1:0] dmem_raddr_c;
    logic [DmemLanes-1:0] dmem_we_c;
    logic [DmemAddrBits-1:0] dmem_waddr_c;
    logic [FlitBits-1:0] dmem_wdata_c;
    // IMEM: the sequencer's fetch unless the host reads.
    imem_re = h_imem_rd || seq_imem_re;
    imem_raddr = h_imem_rd ? host_req_addr_i[3 +: ImemAddrBits] : seq_imem_raddr;
    imem_waddr = host_req_addr_i[3 +: ImemAddrBits];
    imem_we = h_imem_wr ? (host_req_addr_i[2] ? 2'b10 : 2'b01) : 2'b00;
    // PMEM: the host has priority over a Lw issue.
    pmem_re = h_pmem_rd || seq_pmem_re;
    pmem_raddr = h_pmem_rd ? host_req_addr_i[2 +: PmemAddrBits] : seq_pmem_raddr;
    pmem_waddr = host_req_addr_i[2 +: PmemAddrBits];
    pmem_we = h_pmem_wr;
    // DMEM port A: the host has priority over a payload read (the send engine waits).
    dmem_re_c[0] = h_dmem_rd || send_re;
    dmem_raddr_c[0 +: DmemAddrBits] = h_dmem_rd ? h_dmem_off[ByteShift +: DmemAddrBits] :
                                                send_raddr[DmemAddrBits-1:0];
    dmem_re_c[1] = recv_re;
    dmem_raddr_c[DmemAddrBits +: DmemAddrBits] = recv_raddr[DmemAddrBits-1:0];
    // DMEM write: the receive engine, else the host (one lane).
    if (recv_we) begin
      dmem_we_c = '1;
      dmem_waddr_c = recv_waddr[DmemAddrBits-1:0];
      dmem_wdata_c = recv_wdata;
    end else begin
      dmem_we_c = h_dmem_wr ? DmemLanes'(1) << h_lane : '0;
      dmem_waddr_c = h_dmem_off[ByteShift +: DmemAddrBits];
      dmem_wdata_c = {DmemLanes{host_req_wdata_i}};
    end
    dmem_re = dmem_re_c;
    dmem_raddr = dmem_raddr_c;
    dmem_we = dmem_we_c;
    dmem_waddr = dmem_waddr_c;
    dmem_wdata = dmem_wdata_c;
  end

  // ---- Status: running, done, first error -------------------------------------------------
  assign clear = ctl_clear_i || ctl_start_i;
  // The sequencer runs on running_q, the cycle's starting state: an engine's error in t stops it
  // from t+1 (model: Tile::tick), so no path runs from the exchange through the engines' checks
  // into it.

  always_comb begin
    running_d = running_q;
    done_d = done_q;
    err_d = err_q;
    err_info_d = err_info_q;
    if (err_q == xf_defs_pkg::TILE_ERR_NONE) begin
      if (rx_fail) begin
        err_d = rx_fail_code;
        err_info_d = '0;
        err_info_d.code = rx_fail_check;
        err_info_d.src_chip = rx_fail_src_chip;
        err_info_d.src_tile = rx_fail_src_tile;
      end else if (send_fail) begin
        err_d = xf_defs_pkg::TILE_ERR_BAD_PACKET;
        err_info_d = '0;
      end else if (seq_fail) begin
        err_d = seq_fail_code;
        err_info_d = '0;
        err_info_d.code = seq_fail_kind;  // Watchdog: its WaitKind and counter; else 0
        err_info_d.ctr = seq_fail_ctr;
      end
    end
    // Every packet the receive engine drops, saturating.
    err_count_sum = {1'b0, err_count_q} + {31'b0, rx_discard};
    err_count_d = err_count_sum[32] ? '1 : err_count_sum[31:0];
    wd_period_d = h_wd_wr ? host_req_wdata_i : wd_period_q;
    if (rx_fail || send_fail || seq_fail || seq_halt) running_d = 1'b0;
    if (seq_halt) done_d = 1'b1;
    if (clear) begin
      running_d = ctl_start_i;
      done_d = 1'b0;
      err_d = xf_defs_pkg::TILE_ERR_NONE;
      err_info_d = '0;
      err_count_d = '0;
    end
  end

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      running_q <= 1'b0;
      done_q <= 1'b0;
      err_q <= '0;
      err_info_q <= '0;
      err_count_q <= '0;
      wd_period_q <= '0;
      fetch_bad_q <= 1'b0;
      progress_q <= 1'b0;
      rsp_valid_q <= 1'b0;
      rsp_err_q <= 1'b0;
      rsp_src_q <= '0;
      rsp_sel_q <= '0;
      rsp_reg_q <= '0;
    end else begin
      running_q <= running_d;
      done_q <= done_d;
      err_q <= err_d;
      err_info_q <= err_info_d;
      err_count_q <= err_count_d;
      wd_period_q <= wd_period_d;
      fetch_bad_q <= fetch_bad_d;
      progress_q <= !clear && (rx_progress || send_emit);
      rsp_valid_q <= rsp_valid_d;
      rsp_err_q <= rsp_err_d;
      rsp_src_q <= rsp_src_d;
      rsp_sel_q <= rsp_sel_d;
      rsp_reg_q <= rsp_reg_d;
    end
  end

  always_comb begin
    logic [31:0] host_rsp_rdata_o_c;
    case (rsp_src_q)
      2'd1: host_rsp_rdata_o_c = rsp_sel_q[0] ? imem_rdata[63:32] : imem_rdata[31:0];
      2'd2: host_rsp_rdata_o_c = pmem_rdata;
      2'd3: host_rsp_rdata_o_c = dmem_rdata[32*rsp_sel_q +: 32];  // a lane of port A
      default: host_rsp_rdata_o_c = rsp_reg_q;
    endcase
    host_rsp_rdata_o = host_rsp_rdata_o_c;
  end
  assign host_rsp_valid_o = rsp_valid_q;
  assign host_rsp_err_o = rsp_err_q;

  assign stat_err_o = err_q;
  assign stat_done_o = done_q;
  assign stat_running_o = running_q;
  assign stat_pc_o = pc[15:0];
  logic [15:0] unused_pc;
  assign unused_pc = pc[31:16];  // PcRange stops the tile long before pc reaches 2^16

  // ---- Memories -----------------------------------------------------------------------------
  xf_tile_ram #(
    .Words       (ImemWords),
    .DataBits    (64),
    .LaneBits    (32),
    .NumReadPorts(1)
  ) u_imem (
    .clk_i  (clk_i),
    .rst_ni (rst_ni),
    .re_i   (imem_re),
    .raddr_i(imem_raddr),
    .rdata_o(imem_rdata),
    .we_i   (imem_we),
    .waddr_i(imem_waddr),
    .wdata_i({2{host_req_wdata_i}})
  );

  xf_tile_ram #(
    .Words       (PmemWords),
    .DataBits    (32),
    .LaneBits    (32),
    .NumReadPorts(1)
  ) u_pmem (
    .clk_i  (clk_i),
    .rst_ni (rst_ni),
    .re_i   (pmem_re),
    .raddr_i(pmem_raddr),
    .rdata_o(pmem_rdata),
    .we_i   (pmem_we),
    .waddr_i(pmem_waddr),
    .wdata_i(host_req_wdata_i)
  );

  xf_tile_ram #(
    .Words       (DmemWords),
    .DataBits    (FlitBits),
    .LaneBits    (32),
    .NumReadPorts(2)
  ) u_dmem (
    .clk_i  (clk_i),
    .rst_ni (rst_ni),
    .re_i   (dmem_re),
    .raddr_i(dmem_raddr),
    .rdata_o(dmem_rdata),
    .we_i   (dmem_we),
    .waddr_i(dmem_waddr),
    .wdata_i(dmem_wdata)
  );

  // Read-during-write forward of port A for the send engine: a payload word the receive engine
  // writes in the cycle the send engine reads it (a streamed job's word, read in the cycle of its
  // write: docs/tile.md section 4.5) comes from the write, not from the array (read-first).
  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) fwd_q <= 1'b0;
    else fwd_q <= send_re && recv_we && recv_waddr == send_raddr;
  end
  always_ff @(posedge clk_i) begin
    if (recv_we) fwd_data_q <= recv_wdata;
  end
  assign send_rdata = fwd_q ? fwd_data_q : dmem_rdata[0 +: FlitBits];

  // ---- Engines ------------------------------------------------------------------------------
  xf_tile_seq #(
    .FlitBits (FlitBits),
    .ImemWords(ImemWords),
    .PmemWords(PmemWords),
    .DmemBytes(DmemBytes),
    .AluDtypes(AluDtypes),
    .SyncRegs (SyncBuffers)
  ) u_seq (
    .clk_i          (clk_i),
    .rst_ni         (rst_ni),
    .clear_i        (clear),
    .running_i      (running_q),
    .cfg_index_i    (cfg_index_i),
    .cfg_tile_id_i  (cfg_tile_id_i),
    .cfg_num_chips_i(cfg_num_chips_i),
    .cfg_chip_id_i  (cfg_chip_id_i),
    .cycles_i       (cycles_i),
    .avg_scale_o    (avg_scale),
    .scale_o        (scale),
    .imem_re_o      (seq_imem_re),
    .imem_raddr_o   (seq_imem_raddr),
    .imem_valid_i   (!fetch_bad_q),
    .instr_i        (imem_rdata),
    .pmem_re_o      (seq_pmem_re),
    .pmem_raddr_o   (seq_pmem_raddr),
    .pmem_rdata_i   (pmem_rdata),
    .pmem_busy_i    (h_pmem_rd),
    .jobs_i         (send_jobs),
    .session_i      (send_session),
    .held_i         (send_held),
    .push_o         (push),
    .push_addr_o    (push_addr),
    .push_words_o   (push_words),
    .push_dst_chip_o(push_dst_chip),
    .push_dst_addr_o(push_dst_addr),
    .push_local_o   (push_local),
    .push_desc_o    (push_desc),
    .push_stream_o  (push_stream),
    .route_raddr_o  (route_raddr_o),
    .wait_ctr_o     (wait_ctr),
    .wait_count_i   (wait_count),
    .bar_wait_o     (bar_wait_o),
    .bar_release_i  (bar_release_i),
    .wd_period_i    (wd_period_q),
    .progress_i     (progress_q),
    .halt_o         (seq_halt),
    .fail_o         (seq_fail),
    .fail_code_o    (seq_fail_code),
    .fail_kind_o    (seq_fail_kind),
    .fail_ctr_o     (seq_fail_ctr),
    .pc_o           (pc)
  );

  xf_tile_send #(
    .FlitBits (FlitBits),
    .NumLinks (NumLinks),
    .WordBits (WordBits),
    .GrainBits(GrainBits)
  ) u_send (
    .clk_i          (clk_i),
    .rst_ni         (rst_ni),
    .clear_i        (clear),
    .cfg_chip_id_i  (cfg_chip_id_i),
    .cfg_tile_id_i  (cfg_tile_id_i),
    .cfg_num_tiles_i(cfg_num_tiles_i),
    .cfg_num_ports_i(cfg_num_ports_i),
    .push_i         (push),
    .push_addr_i    (push_addr),
    .push_words_i   (push_words),
    .push_dst_chip_i(push_dst_chip),
    .push_dst_addr_i(push_dst_addr),
    .push_local_i   (push_local),
    .push_desc_i    (push_desc),
    .push_stream_i  (push_stream),
    .running_i      (running_q),
    .jobs_o         (send_jobs),
    .session_o      (send_session),
    .held_o         (send_held),
    .route_rdata_i  (route_rdata_i),
    .xb_msg_valid_i (xb_msg_valid_i),
    .xb_msg_kind_i  (xb_msg_kind_i),
    .tx_valid_o     (tx_valid_o),
    .tx_flit_o      (tx_flit_o),
    .tx_link_o      (tx_link_o),
    .tx_port_o      (tx_port_o),
    .tx_ctrl_o      (tx_ctrl_o),
    .tx_credit_i    (tx_credit_i),
    .dmem_re_o      (send_re),
    .dmem_raddr_o   (send_raddr),
    .dmem_rdata_i   (send_rdata),
    .stall_i        (h_dmem_rd),
    .rx_notice_we_i   (recv_notice_we),
    .rx_notice_waddr_i(recv_notice_waddr),
    .rx_we_i          (recv_we),
    .rx_waddr_i       (recv_waddr),
    .stream_ctr_o   (stream_ctr),
    .stream_count_i (stream_count),
    .stream_next_ctr_o  (stream_next_ctr),
    .stream_next_count_i(stream_next_count),
    .hz_valid_o     (hz_valid),
    .hz_lo_o        (hz_lo),
    .hz_hi_o        (hz_hi),
    .fail_o         (send_fail),
    .emit_o         (send_emit)
  );

  // Receive skid buffer: one entry that fills only while the receive engine holds a flit (read
  // after write), so that rx_ready_o is a register (!rx_full) and no combinational path runs
  // from the exchange's rx_flit_o through the engine's checks back into the router. An empty
  // buffer passes the flit through in the same cycle (FallThrough): no cycle is added, and the
  // exchange's timing is the model's (the model's receive engine never holds). After a hold the
  // buffer is full for at least one cycle, in which the exchange does not offer a flit.
  assign rx_ready_o = !rx_full;

  xf_fifo #(
    .DataBits    (FlitBits + 2),
    .DepthEntries(1),
    .FallThrough (1'b1)
  ) u_rx_skid (
    .clk_i      (clk_i),
    .rst_ni     (rst_ni),
    .push_i     (rx_valid_i && !rx_full),
    .push_data_i(rx_flit_i),
    .full_o     (rx_full),
    .pop_i      (!rx_empty && recv_ready),
    .pop_data_o (recv_flit),
    .empty_o    (rx_empty),
    .count_o    (unused_rx_count)
  );

  xf_tile_recv #(
    .FlitBits (FlitBits),
    .DmemBytes(DmemBytes),
    .AluDtypes(AluDtypes)
  ) u_recv (
    .clk_i           (clk_i),
    .rst_ni          (rst_ni),
    .clear_i         (clear),
    .rx_valid_i      (!rx_empty),
    .rx_ready_o      (recv_ready),
    .rx_flit_i       (recv_flit),
    .hz_valid_i      (hz_valid),
    .hz_lo_i         (hz_lo),
    .hz_hi_i         (hz_hi),
    .avg_scale_i     (avg_scale),
    .scale_i         (scale),
    .dmem_re_o       (recv_re),
    .dmem_raddr_o    (recv_raddr),
    .dmem_rdata_i    (dmem_rdata[FlitBits +: FlitBits]),
    .dmem_we_o       (recv_we),
    .dmem_waddr_o    (recv_waddr),
    .dmem_wdata_o    (recv_wdata),
    .notice_we_o     (recv_notice_we),
    .notice_waddr_o  (recv_notice_waddr),
    .fail_o          (rx_fail),
    .fail_code_o     (rx_fail_code),
    .fail_check_o    (rx_fail_check),
    .fail_src_chip_o (rx_fail_src_chip),
    .fail_src_tile_o (rx_fail_src_tile),
    .discard_o       (rx_discard),
    .progress_o      (rx_progress),
    .wait_ctr_i      (wait_ctr),
    .wait_count_o    (wait_count),
    .host_ctr_i      (host_req_addr_i[6:2]),
    .host_ctr_rdata_o(host_ctr_rdata),
    .stream_ctr_i    (stream_ctr),
    .stream_count_o  (stream_count),
    .stream_next_ctr_i  (stream_next_ctr),
    .stream_next_count_o(stream_next_count)
  );

  // The payload read issued by the send engine while the host has port A cannot happen.
  `ASSERT(DmemPortANoConflict_A, !(h_dmem_rd && send_re))
  `ASSERT(DmemWriteNoConflict_A, !(h_dmem_wr && recv_we))
  `ASSERT_KNOWN(TxValidKnown_A, tx_valid_o)
  `ASSERT_KNOWN(RxReadyKnown_A, rx_ready_o)

endmodule
