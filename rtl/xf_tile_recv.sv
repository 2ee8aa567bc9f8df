// Receive engine of a tile (docs/tile.md sections 5-7 and "RTL: xf_tile", Receive engine; model:
// Tile::receive): header checks, Write and Reduce of payload flits into DMEM through
// xf_reduce_alu, readiness tokens, the hazard check against the send queue's unread ranges, and
// the 32 arrival counters.
//
// Pipeline (one flit per cycle, no bubbles; Write flits take the same path as Reduce flits, as
// operand a with the invalid dtype 7 that the ALU passes through, so DMEM writes and counter
// increments stay in arrival order):
//   t          accept rx_flit_i: header, length and hazard checks, errors reported in t (fail_*
//              with TileErr, ErrCheck and the bad packet's source; discard_o = packets dropped
//              in t, 0..2); a Reduce payload flit issues its DMEM read (port B)
//   t+1        the DMEM read register holds the local word; flit and configuration enter the ALU
//   t+2 .. t+5 xf_reduce_alu (LatencyCycles = 4); its tag carries the word address and the
//              counter increment (tail: len / 16; token: 1)
//   t+5        DMEM write (dmem_we_o) and the counter increment; wait_count_o includes it (an
//              early copy of the counters, written in t+4), so a Wait sees the counter in t+5
//              (model: t) and a host read of TileCounters from t+6
//
//   cycle        t      t+1    t+2    t+3    t+4    t+5    t+6
//   rx (tail)    <T>
//   DMEM read    <rd>   <a>
//   ALU                 <in>   ....   ....   ....   <out>
//   DMEM write                                      <wr>
//   Wait sees                                       <+n>
//
// Width (docs/packets.md sections 3 and 6): a packet's HeaderFlits = 128 / FlitBits header flits
// are collected into hbuf (flit i at bits [i*FlitBits +: FlitBits]); the checks run in the cycle
// the last one is taken (the head flit at 128 bits), in the model's order. A head flit while a
// header is being collected, or a tail before it is complete, drops that packet as Short (source
// unknown: 0). Each payload flit then writes or reduces one DMEM word of W = FlitBits / 8 bytes;
// the word addresses, the RAW hold and the hazard ranges are in DMEM words, the counter
// increment in 16-byte grains.
//
// Read after write between packets: a Reduce payload flit whose word is still in the pipeline
// (accepted in t-5 .. t-1) is held with rx_ready_o = 0 until that write is done; inside a packet
// the words increase, so this never happens there. Write flits are never held.
//
// Checks: the model's order and outcomes (Opcode, Length, Window, Pair -> BadPacket; Window ->
// DmemRange; Short, Long, Headless; Hazard), listed in docs/tile.md "RTL: xf_tile", Receive
// engine. A payload flit is written only at a word below the open packet's end (asserted).
// progress_o (for the watchdog): a flit taken or a counter incremented in this cycle.
//
// Start/clear (clear_i): closes the open packet, clears the counters, squashes the flit accepted
// in that cycle and the counter increments of the flits still in the ALU (their DMEM writes still
// happen; the chip starts only an idle exchange).
//
// Combinational paths: rx_ready_o from rx_valid_i and rx_flit_i (and registers); fail_*,
// discard_o, progress_o, dmem_re_o, dmem_raddr_o from rx_valid_i, rx_flit_i and hz_*;
// wait_count_o from wait_ctr_i; host_ctr_rdata_o from host_ctr_i; stream_next_count_o from
// stream_next_ctr_i. dmem_we_o/waddr/wdata are
// the ALU's registers; notice_we_o/waddr_o (the write of the cycle after next, for the send
// engine's streamed jobs) the stage shadow's.
//
// Parameter constraints: FlitBits 32, 64 or 128; DmemBytes a multiple of 16, >= 32; WordBits
// holds DmemBytes / W; AluDtypes[7] (ScaleAdd) only with AluDtypes[6] (fp32).
module xf_tile_recv #(
  // flit width of the machine: 32, 64 or 128 (docs/packets.md section 2)
  parameter int FlitBits = xf_defs_pkg::FlitBits,
  // data memory size in bytes
  parameter int DmemBytes = 786432,
  // units the ALU is built with (xf_reduce_alu): bit d = dtype d, bit 7 = fp32 ScaleAdd; a Reduce
  // of another is a Pair
  parameter logic [7:0] AluDtypes = 8'hFF,
  // bits of a DMEM word index, words of FlitBits (derived; do not override)
  parameter int WordBits = $clog2(DmemBytes / (FlitBits / 8) + 1)
) (
  input  logic                  clk_i,             // clock
  input  logic                  rst_ni,            // asynchronous reset, active low
  input  logic                  clear_i,           // start/clear (see the header)
  // from the exchange
  input  logic                  rx_valid_i,        // a flit is offered
  output logic                  rx_ready_o,        // taken (low only for read after write)
  input  logic [FlitBits+1:0]   rx_flit_i,         // {head, tail, data}
  // send queue's unread ranges (hazard check), entry i at [i*WordBits +: WordBits]
  input  logic [3:0]            hz_valid_i,        // entry i holds a job
  input  logic [4*WordBits-1:0] hz_lo_i,           // first unread word
  input  logic [4*WordBits-1:0] hz_hi_i,           // one past the last word
  // CSRs (sampled with each flit)
  input  logic [31:0]           avg_scale_i,       // CSR 16, Avg final scale, Q1.31
  input  logic [31:0]           scale_i,           // CSR 17, ScaleAdd factor, fp32 bits
  // DMEM: read port B and the write port
  output logic                  dmem_re_o,         // Reduce: read the local word in this cycle
  output logic [WordBits-1:0]   dmem_raddr_o,      // its word index
  input  logic [FlitBits-1:0]   dmem_rdata_i,      // read register (the word read last cycle)
  output logic                  dmem_we_o,         // write a result word in this cycle
  output logic [WordBits-1:0]   dmem_waddr_o,      // its word index
  output logic [FlitBits-1:0]   dmem_wdata_o,      // the result
  output logic                  notice_we_o,       // a result word is written 2 cycles later
  output logic [WordBits-1:0]   notice_waddr_o,    // ... at this word index (registers)
  // errors in this cycle
  output logic                  fail_o,            // an error (fail_code_o)
  output logic [3:0]            fail_code_o,       // BadPacket, DmemRange or Hazard
  output logic [3:0]            fail_check_o,      // its ErrCheck (None for Hazard)
  output logic [11:0]           fail_src_chip_o,   // the bad packet's src_chip (0: Headless)
  output logic [3:0]            fail_src_tile_o,   // its src_tile (0: Headless)
  output logic [1:0]            discard_o,         // packets dropped in this cycle (0..2)
  output logic                  progress_o,        // a flit taken or a counter incremented
  // counters
  input  logic [4:0]            wait_ctr_i,        // counter a Wait looks at
  output logic [31:0]           wait_count_o,      // its value including this cycle's increment
  input  logic [4:0]            host_ctr_i,        // counter the host reads
  output logic [31:0]           host_ctr_rdata_o,  // its registered value
  input  logic [4:0]            stream_ctr_i,      // counter of the send engine's front job
  output logic [31:0]           stream_count_o,    // its registered value (assertions only)
  input  logic [14:0]           stream_next_ctr_i,   // three counters (5 bits each) the send
                                                     // engine's next front job may wait on
  output logic [95:0]           stream_next_count_o  // their values at the start of the next
                                                     // cycle (the early copy)
);

  `include "xf_assert.svh"
  `include "xf_types.svh"

  localparam int FlitBytes = FlitBits / 8;  // W
  localparam int ByteShift = $clog2(FlitBytes);
  localparam int HeaderBits = xf_defs_pkg::HeaderBits;
  localparam int HeaderFlits = HeaderBits / FlitBits;
  localparam int DmemWords = DmemBytes / FlitBytes;
  localparam int AluLatencyCycles = 4;

  `ASSERT_INIT(FlitBitsLegal_A, FlitBits == 32 || FlitBits == 64 || FlitBits == 128)
  `ASSERT_INIT(DmemBytesLegal_A, DmemBytes % 16 == 0 && DmemBytes >= 32)
  `ASSERT_INIT(WordBitsLegal_A, (1 << WordBits) > DmemWords && WordBits <= 20)
  `ASSERT_INIT(AluDtypesLegal_A, !AluDtypes[7] || AluDtypes[6])

  // The reduction a packet asks for (its header's fields), carried with each flit to the ALU.
  typedef struct packed {
    logic [2:0] dtype;
    logic [2:0] op;
    logic       sat;
    logic       avg_final;
    logic [3:0] avg_shift;
  } red_cfg_t;

  // ---- Open packet --------------------------------------------------------------------------
  typedef struct packed {
    logic              active;    // a packet is open
    logic              drop;      // ... and is being dropped
    logic              reduce;
    logic [WordBits:0] addr;      // DMEM word of the next payload flit
    logic [WordBits:0] limit;     // one past the packet's last payload word
    logic [11:0]       src_chip;
    logic [3:0]        src_tile;
    logic [7:0]        len_w;     // len / 16
    red_cfg_t          cfg;
    logic [4:0]        ctr;
  } pkt_t;
  pkt_t pkt_d, pkt_q;

  // ---- Stage 1 -------------------------------------------------------------------------------
  typedef struct packed {
    logic                valid;      // something enters the ALU
    logic                we;         // ... which writes DMEM
    logic                reduce;
    logic [WordBits-1:0] waddr;
    logic [FlitBits-1:0] data;
    red_cfg_t            cfg;
    logic [31:0]         avg_scale;  // CSR 16
    logic [31:0]         scale;      // CSR 17, the ScaleAdd factor
    logic                inc;
    logic [4:0]          ctr;
    logic [7:0]          amt;
  } s1_t;
  s1_t s1_d, s1_q;

  // The ALU's tag: what the write and the counter increment need when the result leaves.
  typedef struct packed {
    logic                we;
    logic [WordBits-1:0] waddr;
    logic                inc;   // increment counter ctr by amt
    logic [4:0]          ctr;
    logic [7:0]          amt;
  } tag_t;
  localparam int TagBits = WordBits + 1 + 1 + 5 + 8;
  `ASSERT_INIT(TagBitsLegal_A, TagBits == $bits(tag_t))

  // Words being written by the ALU stages (entry k: accepted k+2 cycles ago), for the RAW hold.
  logic [AluLatencyCycles-1:0] fl_we_d, fl_we_q;
  logic [WordBits-1:0]         fl_addr_d [AluLatencyCycles], fl_addr_q [AluLatencyCycles];

  // The 32 arrival counters: one increment per cycle (the ALU's output), read at four addresses
  // (the increment's, the Wait's, the host's and the send engine's streamed front job's). Without a reset, FPGA flows map them to
  // distributed RAM (ECP5 DPR16X4, Xilinx RAM32M; one copy per read port) instead of 1,024
  // flip-flops with an adder each; ctr_valid_q says which were incremented since the last reset
  // or clear, and one that was not reads as 0.
  logic [31:0] ctr_mem [32];
  logic [31:0] ctr_valid_d, ctr_valid_q;
  logic [31:0] ctr_now;    // counter out.ctr before this cycle's increment
  logic [31:0] ctr_wait;   // counter wait_ctr_i before it
  logic        ctr_we;
  logic [2:0]  kill_d, kill_q;  // cycles left in which increments are squashed after a clear
  // The counters a cycle early, for the Wait (wait_count_o): ctr_e_mem[x] holds counter x with
  // the increment of the cycle it is read in, written one cycle ahead from the shadow of the
  // ALU stages (fl_inc_q, fl_ctr_q, fl_amt_q: the tag the ALU emits in the next cycle), so that
  // the Wait's compare reads a RAM and adds nothing. Distributed RAM like ctr_mem.
  logic [31:0] ctr_e_mem [32];
  logic [31:0] ctr_e_valid_d, ctr_e_valid_q;
  logic [31:0] ctr_e_next;  // counter fl_ctr_q[CtrShadowStages-1] before its next increment
  logic        ctr_e_we;
  // Stages 0..AluLatencyCycles-2 only: the early copy is written from the last of them.
  localparam int CtrShadowStages = AluLatencyCycles - 1;
  logic [CtrShadowStages-1:0] fl_inc_d, fl_inc_q;
  logic [4:0]  fl_ctr_d [CtrShadowStages], fl_ctr_q [CtrShadowStages];
  logic [7:0]  fl_amt_d [CtrShadowStages], fl_amt_q [CtrShadowStages];

  // ---- Header collection ---------------------------------------------------------------------
  // Header flits taken so far of a header being collected (0: none), and their data. The last
  // header flit is never stored: the checks read it from rx_flit_i.
  logic [1:0]            hdr_cnt_d, hdr_cnt_q;
  logic [HeaderBits-1:0] hdr_buf_d, hdr_buf_q;
  logic [HeaderBits-1:0] hdr_word;  // the whole header, valid with the last header flit
  logic [1:0]            hdr_idx;   // which header flit rx_flit_i is (when it is one)
  logic                  hdr_flit;  // rx_flit_i is a header flit
  logic                  hdr_last;  // ... the last one: the checks run

  // ---- Header decode ---------------------------------------------------------------------------
  flit_t       rx_flit;
  header_t     hdr;
  logic [23:0] h_dst;
  logic [11:0] h_len;
  logic [11:0] h_len_words;  // len / W: the payload flits
  logic        h_pair_ok, h_range_bad;
  logic [3:0]  h_check;  // ErrCheck of the header, None if it passes
  logic [3:0]  h_code;   // its TileErr
  logic        take, raw;
  logic        pay_ok;   // a payload flit of an open, kept packet, inside len
  logic        short_tail;
  logic [1:0]  discard;
  logic        hazard;
  logic [WordBits-1:0] a_w;

  // ALU
  logic                alu_out_valid, unused_alu_err;
  logic [FlitBits-1:0] alu_out_data;
  logic [TagBits-1:0]  alu_out_tag;
  tag_t                out;
  logic                inc_now;

  // Written only in the block below; at module scope because Yosys does not resolve the
  // members of a struct declared inside an always_comb (it declares them as implicit wires).
  s1_t s1_d_c;
  always_comb begin
    logic fail_o_c;
    logic [3:0] fail_code_o_c;
    logic [3:0] fail_check_o_c;
    logic [11:0] fail_src_chip_o_c;
    logic [3:0] fail_src_tile_o_c;
    logic dmem_re_o_c;
    rx_flit = rx_flit_i;
    // (At 128 bits every header flit is a head and the last: the width folds the rest away.)
    hdr_flit = rx_flit.head || (HeaderFlits > 1 && hdr_cnt_q != 2'd0);
    hdr_idx = rx_flit.head ? 2'd0 : hdr_cnt_q;
    hdr_last = HeaderFlits == 1 || 32'(hdr_idx) == HeaderFlits - 1;
    hdr_word = hdr_buf_q;
    hdr_word[(HeaderFlits - 1)*FlitBits +: FlitBits] = rx_flit.data;
    hdr = header_unpack(hdr_word);
    h_dst = hdr.dst_addr;
    h_len = hdr.len;
    h_len_words = h_len >> ByteShift;
    h_pair_ok = AluDtypes != 8'h00 && built_pair(AluDtypes, hdr.dtype, hdr.op);
    h_range_bad = ({1'b0, h_dst} + {13'b0, h_len}) > 25'(DmemBytes);
    // The header checks in the model's order; an unaligned dst_addr is a Window BadPacket.
    h_code = xf_defs_pkg::TILE_ERR_BAD_PACKET;
    h_check = xf_defs_pkg::ERR_CHECK_NONE;
    if (hdr.opcode != xf_defs_pkg::OPCODE_WRITE && hdr.opcode != xf_defs_pkg::OPCODE_REDUCE) begin
      h_check = xf_defs_pkg::ERR_CHECK_OPCODE;
    end else if (h_len[3:0] != 4'd0) begin
      h_check = xf_defs_pkg::ERR_CHECK_LENGTH;
    end else if (h_dst[3:0] != 4'd0) begin
      h_check = xf_defs_pkg::ERR_CHECK_WINDOW;
    end else if (h_len > 12'(xf_defs_pkg::MaxPacketPayloadBytes)) begin
      h_check = xf_defs_pkg::ERR_CHECK_LENGTH;
    end else if (hdr.opcode == xf_defs_pkg::OPCODE_REDUCE && !h_pair_ok) begin
      h_check = xf_defs_pkg::ERR_CHECK_PAIR;
    end else if (h_range_bad) begin
      h_check = xf_defs_pkg::ERR_CHECK_WINDOW;
      h_code = xf_defs_pkg::TILE_ERR_DMEM_RANGE;
    end

    pay_ok = !hdr_flit && pkt_q.active && !pkt_q.drop && pkt_q.addr < pkt_q.limit;
    a_w = WordBits'(pkt_q.addr);
    // Read after write: the word is still in stage 1 or in the ALU.
    raw = s1_q.we && s1_q.waddr == a_w;
    for (int k = 0; k < AluLatencyCycles; k++) begin
      if (fl_we_q[k] && fl_addr_q[k] == a_w) raw = 1'b1;
    end
    raw = raw && pay_ok && pkt_q.reduce;
    rx_ready_o = !(rx_valid_i && raw);
    take = rx_valid_i && rx_ready_o;

    hazard = 1'b0;
    for (int i = 0; i < 4; i++) begin
      if (hz_valid_i[i] && {1'b0, hz_lo_i[i*WordBits +: WordBits]} <= pkt_q.addr &&
          pkt_q.addr < {1'b0, hz_hi_i[i*WordBits +: WordBits]}) begin
        hazard = 1'b1;
      end
    end

    // Defaults: hold the open packet, stage 1 idle.
    pkt_d = pkt_q;
    fail_o_c = 1'b0;
    fail_code_o_c = xf_defs_pkg::TILE_ERR_NONE;
    fail_check_o_c = xf_defs_pkg::ERR_CHECK_NONE;
    fail_src_chip_o_c = pkt_q.src_chip;
    fail_src_tile_o_c = pkt_q.src_tile;
    discard = 2'd0;
    short_tail = 1'b0;
    hdr_cnt_d = hdr_cnt_q;
    hdr_buf_d = hdr_buf_q;
    dmem_re_o_c = 1'b0;
    dmem_raddr_o = a_w;
    s1_d_c.valid = 1'b0;
    s1_d_c.we = 1'b0;
    s1_d_c.reduce = pkt_q.reduce;
    s1_d_c.waddr = a_w;
    s1_d_c.data = rx_flit.data;
    s1_d_c.cfg = pkt_q.cfg;
    s1_d_c.avg_scale = avg_scale_i;
    s1_d_c.scale = scale_i;
    s1_d_c.inc = 1'b0;
    s1_d_c.ctr = pkt_q.ctr;
    s1_d_c.amt = pkt_q.len_w;

    if (take && rx_flit.head) begin
      if (hdr_cnt_q != 2'd0) begin
        // The header being collected never came whole: dropped (Short), source unknown.
        fail_o_c = 1'b1;
        fail_code_o_c = xf_defs_pkg::TILE_ERR_BAD_PACKET;
        fail_check_o_c = xf_defs_pkg::ERR_CHECK_SHORT;
        fail_src_chip_o_c = '0;
        fail_src_tile_o_c = '0;
        discard = 2'd1;
      end else if (pkt_q.active && !pkt_q.drop) begin
        // The open kept packet never saw its tail: dropped (Short); the first error is its own.
        fail_o_c = 1'b1;
        fail_code_o_c = xf_defs_pkg::TILE_ERR_BAD_PACKET;
        fail_check_o_c = xf_defs_pkg::ERR_CHECK_SHORT;
        discard = 2'd1;
      end
      pkt_d.active = 1'b0;
      pkt_d.drop = 1'b0;
      hdr_cnt_d = 2'd0;
    end
    if (take && hdr_flit && !hdr_last) begin  // a header flit before the last: collected
      hdr_buf_d[hdr_idx*FlitBits +: FlitBits] = rx_flit.data;
      hdr_cnt_d = hdr_idx + 2'd1;
      if (rx_flit.tail) begin  // the tail before the header is whole: Short, source unknown
        fail_o_c = 1'b1;
        fail_code_o_c = xf_defs_pkg::TILE_ERR_BAD_PACKET;
        fail_check_o_c = xf_defs_pkg::ERR_CHECK_SHORT;
        fail_src_chip_o_c = '0;
        fail_src_tile_o_c = '0;
        discard = discard + 2'd1;
        hdr_cnt_d = 2'd0;
      end
    end else if (take && hdr_flit) begin  // the last header flit: the checks
      hdr_cnt_d = 2'd0;
      pkt_d.active = 1'b1;
      pkt_d.drop = 1'b0;
      pkt_d.reduce = hdr.opcode == xf_defs_pkg::OPCODE_REDUCE;
      pkt_d.addr = (WordBits + 1)'(h_dst >> ByteShift);
      pkt_d.limit = (WordBits + 1)'(h_dst >> ByteShift) + (WordBits + 1)'(h_len_words);
      pkt_d.src_chip = hdr.src_chip;
      pkt_d.src_tile = hdr.src_tile;
      pkt_d.len_w = h_len[11:4];
      pkt_d.cfg.dtype = hdr.dtype;
      pkt_d.cfg.op = hdr.op;
      pkt_d.cfg.sat = hdr.sat;
      pkt_d.cfg.avg_final = hdr.avg_final;
      pkt_d.cfg.avg_shift = hdr.avg_shift;
      pkt_d.ctr = hdr.ctr;
      if (h_check != xf_defs_pkg::ERR_CHECK_NONE) begin
        if (!fail_o_c) begin
          fail_o_c = 1'b1;
          fail_code_o_c = h_code;
          fail_check_o_c = h_check;
          fail_src_chip_o_c = hdr.src_chip;
          fail_src_tile_o_c = hdr.src_tile;
        end
        discard = discard + 2'd1;
        pkt_d.drop = 1'b1;
      end
      if (h_len == 12'd0) begin  // readiness token: +1 through the pipeline, packet closed
        pkt_d.active = 1'b0;
        s1_d_c.valid = !pkt_d.drop;
        s1_d_c.inc = !pkt_d.drop;
        s1_d_c.ctr = pkt_d.ctr;
        s1_d_c.amt = 8'd1;
      end else if (rx_flit.tail) begin  // a header flit that is also the tail: none of len
        pkt_d.active = 1'b0;
        if (!pkt_d.drop) begin
          if (!fail_o_c) begin
            fail_o_c = 1'b1;
            fail_code_o_c = xf_defs_pkg::TILE_ERR_BAD_PACKET;
            fail_check_o_c = xf_defs_pkg::ERR_CHECK_SHORT;
            fail_src_chip_o_c = hdr.src_chip;
            fail_src_tile_o_c = hdr.src_tile;
          end
          discard = discard + 2'd1;
        end
      end
    end else if (take) begin
      if (!pkt_q.active) begin  // Headless: dropped with the flits up to its tail
        fail_o_c = 1'b1;
        fail_code_o_c = xf_defs_pkg::TILE_ERR_BAD_PACKET;
        fail_check_o_c = xf_defs_pkg::ERR_CHECK_HEADLESS;
        fail_src_chip_o_c = '0;
        fail_src_tile_o_c = '0;
        discard = 2'd1;
        pkt_d.active = !rx_flit.tail;
        pkt_d.drop = !rx_flit.tail;
      end else if (pkt_q.drop) begin
        if (rx_flit.tail) pkt_d.active = 1'b0;
      end else if (!pay_ok) begin  // Long: flit len / 16 or later, dropped with the rest
        fail_o_c = 1'b1;
        fail_code_o_c = xf_defs_pkg::TILE_ERR_BAD_PACKET;
        fail_check_o_c = xf_defs_pkg::ERR_CHECK_LONG;
        discard = 2'd1;
        pkt_d.drop = 1'b1;
        if (rx_flit.tail) pkt_d.active = 1'b0;
      end else begin
        if (hazard) begin
          fail_o_c = 1'b1;
          fail_code_o_c = xf_defs_pkg::TILE_ERR_HAZARD;
        end
        // Short: the tail before the last payload word; written, but no counter increment.
        short_tail = rx_flit.tail && pkt_q.addr + 1'b1 != pkt_q.limit;
        if (short_tail) begin
          if (!fail_o_c) begin
            fail_o_c = 1'b1;
            fail_code_o_c = xf_defs_pkg::TILE_ERR_BAD_PACKET;
            fail_check_o_c = xf_defs_pkg::ERR_CHECK_SHORT;
          end
          discard = 2'd1;
        end
        s1_d_c.valid = 1'b1;
        s1_d_c.we = 1'b1;
        s1_d_c.inc = rx_flit.tail && !short_tail;
        dmem_re_o_c = pkt_q.reduce;
        pkt_d.addr = pkt_q.addr + 1'b1;
        if (rx_flit.tail) pkt_d.active = 1'b0;
      end
    end

    if (clear_i) begin
      pkt_d.active = 1'b0;
      pkt_d.drop = 1'b0;
      hdr_cnt_d = 2'd0;
      s1_d_c.valid = 1'b0;
      s1_d_c.we = 1'b0;
      s1_d_c.inc = 1'b0;
    end
    discard_o = discard;
    fail_o = fail_o_c;
    fail_code_o = fail_code_o_c;
    fail_check_o = fail_check_o_c;
    fail_src_chip_o = fail_src_chip_o_c;
    fail_src_tile_o = fail_src_tile_o_c;
    dmem_re_o = dmem_re_o_c;
    s1_d = s1_d_c;
  end

  // The header fields the receive engine does not read (the exchange routed by them), and the
  // buffer's slot of the last header flit (never stored: all of it at 128 bits).
  logic unused_hdr;
  assign unused_hdr = ^{hdr.dst_chip, hdr.dst_tile, hdr.lane, hdr.seq,
                        hdr_buf_q[(HeaderFlits - 1)*FlitBits +: FlitBits]};

  // Shadow of the ALU stages' write addresses (the ALU does not expose its tags in flight).
  always_comb begin
    fl_we_d = {fl_we_q[AluLatencyCycles-2:0], s1_q.valid && s1_q.we};
    fl_addr_d[0] = s1_q.waddr;
    for (int k = 1; k < AluLatencyCycles; k++) fl_addr_d[k] = fl_addr_q[k-1];
    fl_inc_d = {fl_inc_q[CtrShadowStages-2:0], s1_q.valid && s1_q.inc};
    fl_ctr_d[0] = s1_q.ctr;
    fl_amt_d[0] = s1_q.amt;
    for (int k = 1; k < CtrShadowStages; k++) begin
      fl_ctr_d[k] = fl_ctr_q[k-1];
      fl_amt_d[k] = fl_amt_q[k-1];
    end
  end

  // The write two cycles ahead, for the send engine's streamed jobs (docs/tile.md section 4.5):
  // the entry accepted AluLatencyCycles - 1 cycles ago writes in the cycle after next.
  assign notice_we_o = fl_we_q[AluLatencyCycles-3];
  assign notice_waddr_o = fl_addr_q[AluLatencyCycles-3];
  `ASSERT_INIT(NoticeStage_A, AluLatencyCycles >= 3)

  red_cfg_t s1_cfg;
  tag_t     s1_tag;
  logic [2:0] alu_dtype;
  // Written only in the block below; at module scope because Yosys does not resolve the
  // members of a struct declared inside an always_comb (it declares them as implicit wires).
  tag_t s1_tag_c;
  always_comb begin
    s1_cfg = s1_q.cfg;
    s1_tag_c.we = s1_q.we;
    s1_tag_c.waddr = s1_q.waddr;
    s1_tag_c.inc = s1_q.inc;
    s1_tag_c.ctr = s1_q.ctr;
    s1_tag_c.amt = s1_q.amt;
    alu_dtype = s1_q.reduce ? s1_cfg.dtype : 3'd7;  // Write: invalid dtype, a passes through
    s1_tag = s1_tag_c;
  end

  xf_reduce_alu #(
    .FlitBits (FlitBits),
    .TagBits  (TagBits),
    .AluDtypes(AluDtypes)
  ) u_alu (
    .clk_i         (clk_i),
    .rst_ni        (rst_ni),
    .in_valid_i    (s1_q.valid),
    .in_a_i        (s1_q.reduce ? dmem_rdata_i : s1_q.data),
    .in_b_i        (s1_q.data),
    .in_dtype_i    (alu_dtype),
    .in_op_i       (s1_cfg.op),
    .in_sat_i      (s1_cfg.sat),
    .in_avg_shift_i(s1_cfg.avg_shift),
    .in_avg_final_i(s1_cfg.avg_final),
    .in_avg_scale_i(s1_q.avg_scale),
    .in_scale_i    (s1_q.scale),
    .in_tag_i      (s1_tag),
    .out_valid_o   (alu_out_valid),
    .out_data_o    (alu_out_data),
    .out_tag_o     (alu_out_tag),
    .err_o         (unused_alu_err)  // pairs are checked at the header; Write flits use dtype 7
  );

  always_comb begin
    out = alu_out_tag;
    dmem_we_o = alu_out_valid && out.we;
    dmem_waddr_o = out.waddr;
    dmem_wdata_o = alu_out_data;
    inc_now = alu_out_valid && out.inc && kill_q == 3'd0;
  end

  assign progress_o = take || inc_now;

  always_comb begin
    ctr_now = ctr_valid_q[out.ctr] ? ctr_mem[out.ctr] : 32'd0;
    ctr_wait = ctr_valid_q[wait_ctr_i] ? ctr_mem[wait_ctr_i] : 32'd0;
    ctr_we = inc_now && !clear_i;
    ctr_valid_d = ctr_valid_q;
    if (ctr_we) ctr_valid_d[out.ctr] = 1'b1;
    if (clear_i) ctr_valid_d = '0;
    kill_d = kill_q == 3'd0 ? 3'd0 : kill_q - 3'd1;
    if (clear_i) kill_d = 3'(AluLatencyCycles);
  end

  // The counters' write port (no reset: see ctr_mem).
  always_ff @(posedge clk_i) begin
    if (ctr_we) ctr_mem[out.ctr] <= ctr_now + {24'b0, out.amt};
  end

  // The early copy: the increment of the next cycle (not squashed then) written now; a clear
  // empties it as it empties ctr_mem (the next cycle's increment is squashed by kill_d).
  always_comb begin
    ctr_e_next = ctr_e_valid_q[fl_ctr_q[CtrShadowStages-1]] ?
                 ctr_e_mem[fl_ctr_q[CtrShadowStages-1]] : 32'd0;
    ctr_e_we = fl_inc_q[CtrShadowStages-1] && kill_d == 3'd0 && !clear_i;
    ctr_e_valid_d = ctr_e_valid_q;
    if (ctr_e_we) ctr_e_valid_d[fl_ctr_q[CtrShadowStages-1]] = 1'b1;
    if (clear_i) ctr_e_valid_d = '0;
  end

  always_ff @(posedge clk_i) begin
    if (ctr_e_we) begin
      ctr_e_mem[fl_ctr_q[CtrShadowStages-1]] <=
          ctr_e_next + {24'b0, fl_amt_q[CtrShadowStages-1]};
    end
  end

  // ctr_wait plus this cycle's increment if it is the Wait's counter, read from the early copy.
  assign wait_count_o = ctr_e_valid_q[wait_ctr_i] ? ctr_e_mem[wait_ctr_i] : 32'd0;
  logic unused_ctr_wait;  // read only by the assertion below
  assign unused_ctr_wait = ^ctr_wait;
  `ASSERT(EarlyCounter_A, wait_count_o == ctr_wait +
                          ((inc_now && out.ctr == wait_ctr_i) ? {24'b0, out.amt} : 32'd0))
  assign host_ctr_rdata_o = ctr_valid_q[host_ctr_i] ? ctr_mem[host_ctr_i] : 32'd0;
  // Read only by the send engine's StreamReachRegister_A: no read port in synthesis (the blocks
  // are synthesised with their hierarchy kept, so an output would keep its port).
`ifndef SYNTHESIS
  assign stream_count_o = ctr_valid_q[stream_ctr_i] ? ctr_mem[stream_ctr_i] : 32'd0;
`else
  assign stream_count_o = '0;
  logic unused_stream_ctr;
  assign unused_stream_ctr = ^stream_ctr_i;
`endif
  // The send engine's streamed jobs compare in the cycle before (rtl/xf_tile_send.sv): the early
  // copy read now is each counter at the start of the next cycle, except after a clear (which
  // also empties the send queue).
  for (genvar k = 0; k < 3; k++) begin : gen_stream_next
    logic [4:0] x;
    assign x = stream_next_ctr_i[5*k +: 5];
    assign stream_next_count_o[32*k +: 32] = ctr_e_valid_q[x] ? ctr_e_mem[x] : 32'd0;
  end

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      pkt_q <= '0;
      hdr_cnt_q <= '0;
      hdr_buf_q <= '0;
      s1_q <= '0;
      fl_we_q <= '0;
      for (int k = 0; k < AluLatencyCycles; k++) fl_addr_q[k] <= '0;
      fl_inc_q <= '0;
      for (int k = 0; k < CtrShadowStages; k++) fl_ctr_q[k] <= '0;
      for (int k = 0; k < CtrShadowStages; k++) fl_amt_q[k] <= '0;
      ctr_valid_q <= '0;
      ctr_e_valid_q <= '0;
      kill_q <= '0;
    end else begin
      pkt_q <= pkt_d;
      hdr_cnt_q <= hdr_cnt_d;
      hdr_buf_q <= hdr_buf_d;
      s1_q <= s1_d;
      fl_we_q <= fl_we_d;
      for (int k = 0; k < AluLatencyCycles; k++) fl_addr_q[k] <= fl_addr_d[k];
      fl_inc_q <= fl_inc_d;
      for (int k = 0; k < CtrShadowStages; k++) fl_ctr_q[k] <= fl_ctr_d[k];
      for (int k = 0; k < CtrShadowStages; k++) fl_amt_q[k] <= fl_amt_d[k];
      ctr_valid_q <= ctr_valid_d;
      ctr_e_valid_q <= ctr_e_valid_d;
      kill_q <= kill_d;
    end
  end

  `ASSERT(NoRawWithinPacket_A, !(rx_valid_i && !rx_ready_o && !pay_ok))
  `ASSERT(HdrCntInRange_A, int'(hdr_cnt_q) < HeaderFlits)
  // A payload flit is written only inside its packet's window, which lies inside DMEM.
  `ASSERT(WriteInsideWindow_A, !(s1_d.we && !clear_i) ||
                               (pkt_q.addr < pkt_q.limit &&
                                pkt_q.limit <= (WordBits + 1)'(DmemWords)))
  // The shadow of the in-flight writes agrees with the ALU's tags.
  `ASSERT(ShadowMatchesAlu_A, !dmem_we_o || (fl_we_q[AluLatencyCycles-1] &&
                                             fl_addr_q[AluLatencyCycles-1] == dmem_waddr_o))

endmodule
