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
//   t+5        DMEM write (dmem_we_o) and the counter increment; wait_count_o bypasses it, so a
//              Wait sees the counter in t+5 (model: t) and a host read of TileCounters from t+6
//
//   cycle        t      t+1    t+2    t+3    t+4    t+5    t+6
//   rx (tail)    <T>
//   DMEM read    <rd>   <a>
//   ALU                 <in>   ....   ....   ....   <out>
//   DMEM write                                      <wr>
//   Wait sees                                       <+n>
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
// wait_count_o from wait_ctr_i; host_ctr_rdata_o from host_ctr_i. dmem_we_o/waddr/wdata are
// the ALU's registers.
//
// Parameter constraints: DmemBytes a multiple of 16, >= 32; WordBits holds DmemBytes / 16;
// AluDtypes[7] (ScaleAdd) only with AluDtypes[6] (fp32).
module xf_tile_recv #(
  // data memory size in bytes
  parameter int DmemBytes = 786432,
  // units the ALU is built with (xf_reduce_alu): bit d = dtype d, bit 7 = fp32 ScaleAdd; a Reduce
  // of another is a Pair
  parameter logic [7:0] AluDtypes = 8'hFF,
  // bits of a DMEM word index (derived; do not override)
  parameter int WordBits = $clog2(DmemBytes / 16 + 1)
) (
  input  logic                  clk_i,             // clock
  input  logic                  rst_ni,            // asynchronous reset, active low
  input  logic                  clear_i,           // start/clear (see the header)
  // from the exchange
  input  logic                  rx_valid_i,        // a flit is offered
  output logic                  rx_ready_o,        // taken (low only for read after write)
  input  logic [129:0]          rx_flit_i,         // {head, tail, data}
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
  input  logic [127:0]          dmem_rdata_i,      // read register (the word read last cycle)
  output logic                  dmem_we_o,         // write a result word in this cycle
  output logic [WordBits-1:0]   dmem_waddr_o,      // its word index
  output logic [127:0]          dmem_wdata_o,      // the result
  // errors in this cycle
  output logic                  fail_o,            // an error (fail_code_o)
  output logic [3:0]            fail_code_o,       // BadPacket, DmemRange or Hazard
  output logic [3:0]            fail_check_o,      // its ErrCheck (None for Hazard)
  output logic [15:0]           fail_src_o,        // {src_tile, src_chip} (0 for Headless)
  output logic [1:0]            discard_o,         // packets dropped in this cycle (0..2)
  output logic                  progress_o,        // a flit taken or a counter incremented
  // counters
  input  logic [4:0]            wait_ctr_i,        // counter a Wait looks at
  output logic [31:0]           wait_count_o,      // its value including this cycle's increment
  input  logic [4:0]            host_ctr_i,        // counter the host reads
  output logic [31:0]           host_ctr_rdata_o   // its registered value
);

  `include "xf_assert.svh"

  localparam int DmemWords = DmemBytes / 16;
  localparam int AluLatencyCycles = 4;
  localparam int TagBits = WordBits + 1 + 1 + 5 + 8;

  `ASSERT_INIT(DmemBytesLegal_A, DmemBytes % 16 == 0 && DmemBytes >= 32)
  `ASSERT_INIT(WordBitsLegal_A, (1 << WordBits) > DmemWords && WordBits <= 20)
  `ASSERT_INIT(AluDtypesLegal_A, !AluDtypes[7] || AluDtypes[6])

  // ---- Open packet --------------------------------------------------------------------------
  logic                active_d, active_q;  // a packet is open
  logic                drop_d, drop_q;      // ... and is being dropped
  logic                reduce_d, reduce_q;
  logic [WordBits:0]   addr_d, addr_q;      // word of the next payload flit
  logic [WordBits:0]   end_d, end_q;        // one past the packet's last payload word
  logic [15:0]         src_d, src_q;        // {src_tile, src_chip}
  logic [7:0]          len_w_d, len_w_q;    // len / 16
  logic [2:0]          dtype_d, dtype_q, op_d, op_q;
  logic                sat_d, sat_q, fin_d, fin_q;
  logic [3:0]          shift_d, shift_q;
  logic [4:0]          ctr_d, ctr_q;

  // ---- Stage 1 -------------------------------------------------------------------------------
  logic                s1_valid_d, s1_valid_q;  // something enters the ALU
  logic                s1_we_d, s1_we_q;        // ... which writes DMEM
  logic                s1_reduce_d, s1_reduce_q;
  logic [WordBits-1:0] s1_waddr_d, s1_waddr_q;
  logic [127:0]        s1_data_d, s1_data_q;
  logic [2:0]          s1_dtype_d, s1_dtype_q, s1_op_d, s1_op_q;
  logic                s1_sat_d, s1_sat_q, s1_fin_d, s1_fin_q;
  logic [3:0]          s1_shift_d, s1_shift_q;
  logic [31:0]         s1_scale_d, s1_scale_q;
  logic [31:0]         s1_fscale_d, s1_fscale_q;  // ScaleAdd factor
  logic                s1_inc_d, s1_inc_q;
  logic [4:0]          s1_ctr_d, s1_ctr_q;
  logic [7:0]          s1_amt_d, s1_amt_q;

  // Words being written by the ALU stages (entry k: accepted k+2 cycles ago), for the RAW hold.
  logic [AluLatencyCycles-1:0] fl_we_d, fl_we_q;
  logic [WordBits-1:0]         fl_addr_d [AluLatencyCycles], fl_addr_q [AluLatencyCycles];

  logic [31:0] counters_d [32], counters_q [32];
  logic [2:0]  kill_d, kill_q;  // cycles left in which increments are squashed after a clear

  // ---- Header decode ---------------------------------------------------------------------------
  logic        head, tail;
  logic [3:0]  h_opc;
  logic [23:0] h_dst;
  logic [11:0] h_len;
  logic [2:0]  h_dtype, h_op;
  logic [15:0] h_src;
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
  logic [127:0]        alu_out_data;
  logic [TagBits-1:0]  alu_out_tag;
  logic                out_we, out_inc;
  logic [WordBits-1:0] out_waddr;
  logic [4:0]          out_ctr;
  logic [7:0]          out_amt;
  logic                inc_now;

  always_comb begin
    head = rx_flit_i[129];
    tail = rx_flit_i[128];
    h_opc = rx_flit_i[xf_defs_pkg::HEADER_OPCODE_LSB +: 4];
    h_dst = rx_flit_i[xf_defs_pkg::HEADER_DST_ADDR_LSB +: 24];
    h_len = rx_flit_i[xf_defs_pkg::HEADER_LEN_LSB +: 12];
    h_dtype = rx_flit_i[xf_defs_pkg::HEADER_DTYPE_LSB +: 3];
    h_op = rx_flit_i[xf_defs_pkg::HEADER_OP_LSB +: 3];
    h_src = {rx_flit_i[xf_defs_pkg::HEADER_SRC_TILE_LSB +: 4],
             rx_flit_i[xf_defs_pkg::HEADER_SRC_CHIP_LSB +: 12]};
    // xf::valid_pair: Sum/Max/Min on dtypes 0..6, Avg on the integer dtypes 0..3, ScaleAdd (4)
    // on fp32 (6) only; and only on the dtypes the ALU is built with, ScaleAdd only with its
    // multipliers (AluDtypes[7]).
    h_pair_ok = (h_dtype <= 3'd6) && AluDtypes[h_dtype] &&
                (h_op <= 3'd2 || (h_op == 3'd3 && h_dtype <= 3'd3) ||
                 (h_op == 3'd4 && h_dtype == 3'd6 && AluDtypes[7]));
    h_range_bad = ({1'b0, h_dst} + {13'b0, h_len}) > 25'(DmemBytes);
    // The header checks in the model's order; an unaligned dst_addr is a Window BadPacket.
    h_code = xf_defs_pkg::TILE_ERR_BAD_PACKET;
    h_check = xf_defs_pkg::ERR_CHECK_NONE;
    if (h_opc > 4'd1) begin
      h_check = xf_defs_pkg::ERR_CHECK_OPCODE;
    end else if (h_len[3:0] != 4'd0) begin
      h_check = xf_defs_pkg::ERR_CHECK_LENGTH;
    end else if (h_dst[3:0] != 4'd0) begin
      h_check = xf_defs_pkg::ERR_CHECK_WINDOW;
    end else if (h_len > 12'(xf_defs_pkg::MaxPacketPayloadBytes)) begin
      h_check = xf_defs_pkg::ERR_CHECK_LENGTH;
    end else if (h_opc == 4'd1 && !h_pair_ok) begin
      h_check = xf_defs_pkg::ERR_CHECK_PAIR;
    end else if (h_range_bad) begin
      h_check = xf_defs_pkg::ERR_CHECK_WINDOW;
      h_code = xf_defs_pkg::TILE_ERR_DMEM_RANGE;
    end

    pay_ok = !head && active_q && !drop_q && addr_q < end_q;
    a_w = addr_q[WordBits-1:0];
    // Read after write: the word is still in stage 1 or in the ALU.
    raw = s1_we_q && s1_waddr_q == a_w;
    for (int k = 0; k < AluLatencyCycles; k++) begin
      if (fl_we_q[k] && fl_addr_q[k] == a_w) raw = 1'b1;
    end
    raw = raw && pay_ok && reduce_q;
    rx_ready_o = !(rx_valid_i && raw);
    take = rx_valid_i && rx_ready_o;

    hazard = 1'b0;
    for (int i = 0; i < 4; i++) begin
      if (hz_valid_i[i] && {1'b0, hz_lo_i[i*WordBits +: WordBits]} <= addr_q &&
          addr_q < {1'b0, hz_hi_i[i*WordBits +: WordBits]}) begin
        hazard = 1'b1;
      end
    end

    // Defaults: hold the open packet, stage 1 idle.
    active_d = active_q;
    drop_d = drop_q;
    reduce_d = reduce_q;
    addr_d = addr_q;
    end_d = end_q;
    src_d = src_q;
    len_w_d = len_w_q;
    dtype_d = dtype_q;
    op_d = op_q;
    sat_d = sat_q;
    fin_d = fin_q;
    shift_d = shift_q;
    ctr_d = ctr_q;
    fail_o = 1'b0;
    fail_code_o = xf_defs_pkg::TILE_ERR_NONE;
    fail_check_o = xf_defs_pkg::ERR_CHECK_NONE;
    fail_src_o = src_q;
    discard = 2'd0;
    short_tail = 1'b0;
    dmem_re_o = 1'b0;
    dmem_raddr_o = a_w;
    s1_valid_d = 1'b0;
    s1_we_d = 1'b0;
    s1_reduce_d = reduce_q;
    s1_waddr_d = a_w;
    s1_data_d = rx_flit_i[127:0];
    s1_dtype_d = dtype_q;
    s1_op_d = op_q;
    s1_sat_d = sat_q;
    s1_fin_d = fin_q;
    s1_shift_d = shift_q;
    s1_scale_d = avg_scale_i;
    s1_fscale_d = scale_i;
    s1_inc_d = 1'b0;
    s1_ctr_d = ctr_q;
    s1_amt_d = len_w_q;

    if (take && head) begin
      // The open kept packet never saw its tail: dropped (Short); the first error is its own.
      if (active_q && !drop_q) begin
        fail_o = 1'b1;
        fail_code_o = xf_defs_pkg::TILE_ERR_BAD_PACKET;
        fail_check_o = xf_defs_pkg::ERR_CHECK_SHORT;
        discard = 2'd1;
      end
      active_d = 1'b1;
      drop_d = 1'b0;
      reduce_d = h_opc == 4'd1;
      addr_d = (WordBits + 1)'(h_dst[23:4]);
      end_d = (WordBits + 1)'(h_dst[23:4]) + (WordBits + 1)'(h_len[11:4]);
      src_d = h_src;
      len_w_d = h_len[11:4];
      dtype_d = h_dtype;
      op_d = h_op;
      sat_d = rx_flit_i[xf_defs_pkg::HEADER_SAT_LSB];
      fin_d = rx_flit_i[xf_defs_pkg::HEADER_AVG_FINAL_LSB];
      shift_d = rx_flit_i[xf_defs_pkg::HEADER_AVG_SHIFT_LSB +: 4];
      ctr_d = rx_flit_i[xf_defs_pkg::HEADER_CTR_LSB +: 5];
      if (h_check != xf_defs_pkg::ERR_CHECK_NONE) begin
        if (!fail_o) begin
          fail_o = 1'b1;
          fail_code_o = h_code;
          fail_check_o = h_check;
          fail_src_o = h_src;
        end
        discard = discard + 2'd1;
        drop_d = 1'b1;
      end
      if (h_len == 12'd0) begin  // readiness token: +1 through the pipeline, packet closed
        active_d = 1'b0;
        s1_valid_d = !drop_d;
        s1_inc_d = !drop_d;
        s1_ctr_d = ctr_d;
        s1_amt_d = 8'd1;
      end else if (tail) begin  // a head that is also the tail carries none of its len bytes
        active_d = 1'b0;
        if (!drop_d) begin
          if (!fail_o) begin
            fail_o = 1'b1;
            fail_code_o = xf_defs_pkg::TILE_ERR_BAD_PACKET;
            fail_check_o = xf_defs_pkg::ERR_CHECK_SHORT;
            fail_src_o = h_src;
          end
          discard = discard + 2'd1;
        end
      end
    end else if (take) begin
      if (!active_q) begin  // Headless: dropped with the flits up to its tail
        fail_o = 1'b1;
        fail_code_o = xf_defs_pkg::TILE_ERR_BAD_PACKET;
        fail_check_o = xf_defs_pkg::ERR_CHECK_HEADLESS;
        fail_src_o = '0;
        discard = 2'd1;
        active_d = !tail;
        drop_d = !tail;
      end else if (drop_q) begin
        if (tail) active_d = 1'b0;
      end else if (!pay_ok) begin  // Long: flit len / 16 or later, dropped with the rest
        fail_o = 1'b1;
        fail_code_o = xf_defs_pkg::TILE_ERR_BAD_PACKET;
        fail_check_o = xf_defs_pkg::ERR_CHECK_LONG;
        discard = 2'd1;
        drop_d = 1'b1;
        if (tail) active_d = 1'b0;
      end else begin
        if (hazard) begin
          fail_o = 1'b1;
          fail_code_o = xf_defs_pkg::TILE_ERR_HAZARD;
        end
        // Short: the tail before the last payload word; written, but no counter increment.
        short_tail = tail && addr_q + 1'b1 != end_q;
        if (short_tail) begin
          if (!fail_o) begin
            fail_o = 1'b1;
            fail_code_o = xf_defs_pkg::TILE_ERR_BAD_PACKET;
            fail_check_o = xf_defs_pkg::ERR_CHECK_SHORT;
          end
          discard = 2'd1;
        end
        s1_valid_d = 1'b1;
        s1_we_d = 1'b1;
        s1_inc_d = tail && !short_tail;
        dmem_re_o = reduce_q;
        addr_d = addr_q + 1'b1;
        if (tail) active_d = 1'b0;
      end
    end

    if (clear_i) begin
      active_d = 1'b0;
      drop_d = 1'b0;
      s1_valid_d = 1'b0;
      s1_we_d = 1'b0;
      s1_inc_d = 1'b0;
    end
    discard_o = discard;
  end

  // Shadow of the ALU stages' write addresses (the ALU does not expose its tags in flight).
  always_comb begin
    fl_we_d = {fl_we_q[AluLatencyCycles-2:0], s1_valid_q && s1_we_q};
    fl_addr_d[0] = s1_waddr_q;
    for (int k = 1; k < AluLatencyCycles; k++) fl_addr_d[k] = fl_addr_q[k-1];
  end

  logic [2:0] alu_dtype;
  assign alu_dtype = s1_reduce_q ? s1_dtype_q : 3'd7;  // Write: invalid dtype, a passes through

  xf_reduce_alu #(
    .TagBits  (TagBits),
    .AluDtypes(AluDtypes)
  ) u_alu (
    .clk_i         (clk_i),
    .rst_ni        (rst_ni),
    .in_valid_i    (s1_valid_q),
    .in_a_i        (s1_reduce_q ? dmem_rdata_i : s1_data_q),
    .in_b_i        (s1_data_q),
    .in_dtype_i    (alu_dtype),
    .in_op_i       (s1_op_q),
    .in_sat_i      (s1_sat_q),
    .in_avg_shift_i(s1_shift_q),
    .in_avg_final_i(s1_fin_q),
    .in_avg_scale_i(s1_scale_q),
    .in_scale_i    (s1_fscale_q),
    .in_tag_i      ({s1_we_q, s1_waddr_q, s1_inc_q, s1_ctr_q, s1_amt_q}),
    .out_valid_o   (alu_out_valid),
    .out_data_o    (alu_out_data),
    .out_tag_o     (alu_out_tag),
    .err_o         (unused_alu_err)  // pairs are checked at the header; Write flits use dtype 7
  );

  always_comb begin
    {out_we, out_waddr, out_inc, out_ctr, out_amt} = alu_out_tag;
    dmem_we_o = alu_out_valid && out_we;
    dmem_waddr_o = out_waddr;
    dmem_wdata_o = alu_out_data;
    inc_now = alu_out_valid && out_inc && kill_q == 3'd0;
  end

  assign progress_o = take || inc_now;

  always_comb begin
    for (int c = 0; c < 32; c++) begin
      counters_d[c] = counters_q[c];
      if (inc_now && out_ctr == 5'(c)) counters_d[c] = counters_q[c] + {24'b0, out_amt};
      if (clear_i) counters_d[c] = '0;
    end
    kill_d = kill_q == 3'd0 ? 3'd0 : kill_q - 3'd1;
    if (clear_i) kill_d = 3'(AluLatencyCycles);
  end

  assign wait_count_o = counters_q[wait_ctr_i] +
                        ((inc_now && out_ctr == wait_ctr_i) ? {24'b0, out_amt} : 32'd0);
  assign host_ctr_rdata_o = counters_q[host_ctr_i];

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      active_q <= 1'b0;
      drop_q <= 1'b0;
      reduce_q <= 1'b0;
      addr_q <= '0;
      end_q <= '0;
      src_q <= '0;
      len_w_q <= '0;
      dtype_q <= '0;
      op_q <= '0;
      sat_q <= 1'b0;
      fin_q <= 1'b0;
      shift_q <= '0;
      ctr_q <= '0;
      s1_valid_q <= 1'b0;
      s1_we_q <= 1'b0;
      s1_reduce_q <= 1'b0;
      s1_waddr_q <= '0;
      s1_data_q <= '0;
      s1_dtype_q <= '0;
      s1_op_q <= '0;
      s1_sat_q <= 1'b0;
      s1_fin_q <= 1'b0;
      s1_shift_q <= '0;
      s1_scale_q <= '0;
      s1_fscale_q <= '0;
      s1_inc_q <= 1'b0;
      s1_ctr_q <= '0;
      s1_amt_q <= '0;
      fl_we_q <= '0;
      for (int k = 0; k < AluLatencyCycles; k++) fl_addr_q[k] <= '0;
      for (int c = 0; c < 32; c++) counters_q[c] <= '0;
      kill_q <= '0;
    end else begin
      active_q <= active_d;
      drop_q <= drop_d;
      reduce_q <= reduce_d;
      addr_q <= addr_d;
      end_q <= end_d;
      src_q <= src_d;
      len_w_q <= len_w_d;
      dtype_q <= dtype_d;
      op_q <= op_d;
      sat_q <= sat_d;
      fin_q <= fin_d;
      shift_q <= shift_d;
      ctr_q <= ctr_d;
      s1_valid_q <= s1_valid_d;
      s1_we_q <= s1_we_d;
      s1_reduce_q <= s1_reduce_d;
      s1_waddr_q <= s1_waddr_d;
      s1_data_q <= s1_data_d;
      s1_dtype_q <= s1_dtype_d;
      s1_op_q <= s1_op_d;
      s1_sat_q <= s1_sat_d;
      s1_fin_q <= s1_fin_d;
      s1_shift_q <= s1_shift_d;
      s1_scale_q <= s1_scale_d;
      s1_fscale_q <= s1_fscale_d;
      s1_inc_q <= s1_inc_d;
      s1_ctr_q <= s1_ctr_d;
      s1_amt_q <= s1_amt_d;
      fl_we_q <= fl_we_d;
      for (int k = 0; k < AluLatencyCycles; k++) fl_addr_q[k] <= fl_addr_d[k];
      for (int c = 0; c < 32; c++) counters_q[c] <= counters_d[c];
      kill_q <= kill_d;
    end
  end

  `ASSERT(NoRawWithinPacket_A, !(rx_valid_i && !rx_ready_o && !pay_ok))
  // A payload flit is written only inside its packet's window, which lies inside DMEM.
  `ASSERT(WriteInsideWindow_A, !(s1_we_d && !clear_i) ||
                               (addr_q < end_q && end_q <= (WordBits + 1)'(DmemWords)))
  // The shadow of the in-flight writes agrees with the ALU's tags.
  `ASSERT(ShadowMatchesAlu_A, !dmem_we_o || (fl_we_q[AluLatencyCycles-1] &&
                                             fl_addr_q[AluLatencyCycles-1] == dmem_waddr_o))

endmodule
