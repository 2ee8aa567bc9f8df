// Send engine of a tile (docs/tile.md section 4, model/tile.cpp Tile::send_engine and
// Tile::close_session): the job queue (4 entries), packetisation, the XB session protocol
// (XREQ, GRANT, XOFF/XON, XDONE), the credits of the tile's path into the exchange and the
// "no route" check. Cycle-exact with the model: in a cycle t the engine
//   1. applies the XB messages presented in t, link 0 first (model: Tile::tick before
//      send_engine), to the session state,
//   2. adds tx_credit_i to its credits, and, with at least one credit, decides at most one
//      emission exactly as Tile::send_engine: XDONE when the queue is empty and a session is
//      open, unless it is held (the last job it sent had the descriptor's hold bit) and the tile
//      ran at the start of the cycle (running_i); BadPacket and drop the job on no route; XDONE
//      when the front job leaves elsewhere (pkt_left == 0, hdr_left == 0 and job_off == 0);
//      XREQ for a link-bound job without a session; nothing while waiting for the grant or
//      stopped by XOFF; otherwise the next flit of the front job (a header flit, or a payload
//      flit whose DMEM read dmem_re_o/dmem_raddr_o is issued in t),
//   3. pops the front job after its last flit (or a token's header, or on no route) and
//      appends the job the sequencer pushes in t (push_i): a job pushed in t is first
//      decided on in t+1 (model: a job queued by Send in t is started in t+1).
// The decision of cycle t is on tx_valid_o .. tx_ctrl_o in t+1 from registers; a payload
// flit's data is the DMEM read register (dmem_rdata_i, loaded at the end of t), selected by a
// registered mux. So the flit is the first stage of the path into the exchange (the exchange
// adds ExchangeLatencyCycles - 1 = 1 more stage, docs/tile.md "Interfaces").
//
// Width (docs/packets.md section 3): a packet is HeaderFlits = 128 / FlitBits header flits
// (flit i = bits [i*FlitBits +: FlitBits] of header_pack, head on flit 0, tail on the last iff
// len == 0), each decided like a payload flit (credits, XON), then len / W payload flits of
// W = FlitBits / 8 bytes, one DMEM word each. Jobs arrive in 16-byte grains (push_*); DMEM
// addresses, the packet's flit counts and the hazard ranges are in DMEM words of W bytes.
//
//   cycle          t-1    t      t+1    t+2    t+3
//   Send retires   <S>                              (sequencer, push_i)
//   route lookup   <addr> <data>                    (route_raddr_o by the sequencer in t-1)
//   decision              <H>    <D0>   <D1>        header (H flits), then payload flits
//   dmem_re_o                    <D0>   <D1>
//   tx_valid_o                   <H>    <D0>   <D1>
//
// Route: the sequencer presents route_raddr_o while it executes Send (cycle t-1 above); the
// entry arrives on route_rdata_i in t and is used directly when the job is at the front in t,
// and stored in the job otherwise (fill_*).
//
// Streamed jobs (descriptor bit stream, docs/tile.md section 4.5): a job takes CSR 18 (push_stream_i:
// counter 31:27, value 26:0) and counts in ann_q the words the receive engine announces
// (rx_notice_we_i/rx_notice_waddr_i: written in the cycle after next) or writes (rx_we_i/
// rx_waddr_i: a word announced before the job was queued) in order from the job's first word
// while it is queued; avail_q is ann_q a cycle later, the words written by this cycle.
// The front job starts (header or XREQ) once its first word is announced, and its payload word
// leaves only below avail or once its counter's register (without this cycle's increment)
// reaches the value: sreach_q, compared a cycle ahead on stream_next_count_i (the receive
// engine's early copy) and checked against stream_count_i; a word written in the decision's own
// cycle reaches dmem_rdata_i through the tile's forward (rtl/xf_tile.sv). Until it may start the
// engine acts as with an empty queue (XDONE unless held). Streamed jobs have no hazard range.
//
// Host port: stall_i (the host reads DMEM through this engine's read port in this cycle)
// withholds a payload flit for that cycle (any other decision goes ahead).
//
// Combinational paths: fail_o, emit_o, dmem_re_o and dmem_raddr_o from xb_msg_*, tx_credit_i,
// route_rdata_i, stall_i, cfg_*; jobs_o, session_o and the hazard ranges are registers (the
// sequencer sees the queue as it was at the start of the cycle, so no path runs from the
// exchange's inputs through this decision into the sequencer). tx_* are registers (plus the
// DMEM read register) and never depend on an exchange input in the same cycle.
//
// Credits: ExchangeLatencyCycles + 1 = 3 at reset and clear (one flit decided in t is taken
// at the exchange's front in t+2 at the earliest, the credit pulse arrives in t+3 and is
// usable in t+3: 3 credits sustain one flit per cycle). At most 3 are ever held (asserted).
//
// Parameter constraints: FlitBits 32, 64 or 128; NumLinks 1..8; GrainBits holds the DMEM size in
// grains and WordBits in DMEM words (WordBits = GrainBits + log2(16 / W) is enough).
module xf_tile_send #(
  // flit width of the machine: 32, 64 or 128 (docs/packets.md section 2)
  parameter int FlitBits = xf_defs_pkg::FlitBits,
  // links (width of xb_msg_*)
  parameter int NumLinks = 4,
  // bits of a DMEM word index or word count (holds DmemBytes / W, W = FlitBits / 8)
  parameter int WordBits = 16,
  // bits of a job's source address and length in 16-byte grains (holds DmemBytes / 16)
  parameter int GrainBits = WordBits - $clog2(128 / FlitBits)
) (
  input  logic                  clk_i,            // clock
  input  logic                  rst_ni,           // asynchronous reset, active low
  input  logic                  clear_i,          // start/clear: empty the queue, reset state
  // configuration
  input  logic [11:0]           cfg_chip_id_i,    // header src_chip
  input  logic [3:0]            cfg_tile_id_i,    // header src_tile
  input  logic [4:0]            cfg_num_tiles_i,  // local job to a tile >= this: no route
  input  logic [3:0]            cfg_num_ports_i,  // route entry >= this: no route
  // job push from the sequencer (Send retiring)
  input  logic                  push_i,           // append a job
  input  logic [GrainBits-1:0]  push_addr_i,      // source address in 16-byte grains
  input  logic [GrainBits-1:0]  push_words_i,     // payload length in 16-byte grains
  input  logic [11:0]           push_dst_chip_i,  // destination chip
  input  logic [23:0]           push_dst_addr_i,  // destination byte address (24 bits)
  input  logic                  push_local_i,     // destination chip == this chip
  input  logic [28:0]           push_desc_i,      // send_imm_t (popc checked: Write or Reduce)
  input  logic [31:0]           push_stream_i,    // CSR 18: a streamed job's counter and value
  input  logic                  running_i,        // the tile ran at the start of this cycle
  output logic [2:0]            jobs_o,           // jobs queued at the start of this cycle
  output logic                  session_o,        // a session was open at the start of it
  output logic                  held_o,           // ... and held (its last job had hold)
  // route lookup result (the address is driven by the sequencer)
  input  logic [7:0]            route_rdata_i,    // RouteTable entry of the job pushed last cycle
  // XB messages
  input  logic [NumLinks-1:0]   xb_msg_valid_i,   // message from link l
  input  logic [2*NumLinks-1:0] xb_msg_kind_i,    // per link: 0 GRANT, 1 XON, 2 XOFF
  // path into the exchange
  output logic                  tx_valid_o,       // a flit/control enters the path
  output logic [FlitBits+1:0]   tx_flit_o,        // {head, tail, data}
  output logic                  tx_link_o,        // link-bound (data, XREQ, XDONE)
  output logic [3:0]            tx_port_o,        // link port (tile-bound: the dst tile)
  output logic [1:0]            tx_ctrl_o,        // 0 data, 1 XREQ, 2 XDONE
  input  logic                  tx_credit_i,      // one credit back
  // DMEM read port (payload)
  output logic                  dmem_re_o,        // read a payload word in this cycle
  output logic [WordBits-1:0]   dmem_raddr_o,     // word index
  input  logic [FlitBits-1:0]   dmem_rdata_i,     // read register (word read last cycle)
  input  logic                  stall_i,          // the host has the read port this cycle
  // streamed jobs: the receive engine's DMEM writes and the front job's counter
  input  logic                  rx_notice_we_i,   // the receive engine writes a word in t+2
  input  logic [WordBits-1:0]   rx_notice_waddr_i,  // its word index
  input  logic                  rx_we_i,          // the receive engine writes a word in t
  input  logic [WordBits-1:0]   rx_waddr_i,       // its word index
  output logic [4:0]            stream_ctr_o,     // the front job's counter (CSR 18's 31:27)
  input  logic [31:0]           stream_count_i,   // its value at the start of this cycle
                                                  // (assertions only)
  output logic [14:0]           stream_next_ctr_o,    // the counters of the jobs that can be at
                                                      // the front next cycle: entry 0, entry 1,
                                                      // CSR 18 (a push)
  input  logic [95:0]           stream_next_count_i,  // their values at the start of next cycle
  // hazard ranges (unread words of each queued job), entry i at [i*WordBits +: WordBits]
  output logic [3:0]            hz_valid_o,       // entry i holds a job
  output logic [4*WordBits-1:0] hz_lo_o,          // first unread word
  output logic [4*WordBits-1:0] hz_hi_o,          // one past the last word
  // errors and progress
  output logic                  fail_o,           // BadPacket: no route, job dropped
  output logic                  emit_o            // a flit or XREQ/XDONE decided in this cycle
);

  `include "xf_assert.svh"
  `include "xf_types.svh"

  localparam int QueueJobs = 4;
  localparam logic [2:0] InitCredits = 3'(xf_defs_pkg::ExchangeLatencyCycles + 1);
  // Payload bytes per flit (W), DMEM words per grain, header flits per packet.
  localparam int FlitBytes = FlitBits / 8;
  localparam int GrainShift = $clog2(xf_defs_pkg::GrainBytes / FlitBytes);
  localparam int ByteShift = $clog2(FlitBytes);
  localparam int HeaderFlits = xf_defs_pkg::HeaderBits / FlitBits;
  // Payload flits of a maximal packet (128, 256 or 512) and the bits of a packet's flit count.
  localparam int MaxPacketFlits = xf_defs_pkg::MaxPacketPayloadBytes / FlitBytes;
  localparam int PktBits = $clog2(MaxPacketFlits + 1);
  localparam logic [PktBits-1:0] MaxPacketWords = PktBits'(MaxPacketFlits);

  `ASSERT_INIT(FlitBitsLegal_A, FlitBits == 32 || FlitBits == 64 || FlitBits == 128)
  `ASSERT_INIT(NumLinksLegal_A, NumLinks >= 1 && NumLinks <= 8)
  `ASSERT_INIT(WordBitsLegal_A, WordBits >= GrainBits + GrainShift && WordBits <= 20)
  `ASSERT_INIT(GrainBitsLegal_A, GrainBits >= 1)
  `ASSERT_INIT(PushDescBits_A, $bits(push_desc_i) == SendImmTypeBits)

  // ---- Job queue (entry 0 is the front) ------------------------------------------------------
  // A job: what the sequencer pushes, and the route entry that arrives a cycle later (fill_*).
  typedef struct packed {
    logic [GrainBits-1:0] addr;     // source address in grains
    logic [GrainBits-1:0] words;    // payload length in grains
    logic [11:0]         dst_chip;  // destination chip
    logic [23:0]         dst_addr;  // destination byte address
    logic                to_local;  // destination chip == this chip
    send_imm_t           desc;      // the send descriptor
    logic [4:0]          sctr;      // streamed: the counter that completes the data
    logic [26:0]         sval;      // ... and its value (CSR 18 when the job was pushed)
    logic [7:0]          route;     // RouteTable entry (used for a link-bound job)
  } job_t;
  localparam int JobBits = 2 * GrainBits + 12 + 24 + 1 + SendImmTypeBits + 5 + 27 + 8;
  // Entries are vectors, read and written whole through job_t variables (Yosys 0.23 infers a
  // latch for an array of structs written field by field).
  logic [JobBits-1:0] jobs_q [QueueJobs], jobs_d [QueueJobs];
  logic [2:0]         cnt_d, cnt_q;
  // Streamed jobs: the words the receive engine writes in order from the job's first word,
  // announced since the cycle after the job was pushed (docs/tile.md section 4.5): written by
  // the next cycle (ann) and by this one (avail, ann a cycle later).
  logic [WordBits-1:0] ann_q [QueueJobs], ann_d [QueueJobs];
  logic [WordBits-1:0] avail_q [QueueJobs], avail_d [QueueJobs];
  logic               fill_d, fill_q;          // the job pushed last cycle awaits its route
  logic [1:0]         fill_idx_d, fill_idx_q;  // its index now

  `ASSERT_INIT(JobBitsLegal_A, JobBits == $bits(job_t))

  // ---- Engine state -----------------------------------------------------------------------------
  logic                in_session_d, in_session_q;
  logic                requested_d, requested_q;
  logic                xon_d, xon_q;
  logic                held_d, held_q;          // the session's last job had the hold bit
  logic [3:0]          link_d, link_q;
  logic [WordBits-1:0] off_d, off_q;            // words of the front job already emitted
  logic [PktBits-1:0]  pkt_left_d, pkt_left_q;  // payload flits left in the current packet
  logic [1:0]          hdr_left_d, hdr_left_q;  // header flits left after the one emitted
  logic [15:0]         seq_d, seq_q;
  logic [2:0]          credits_d, credits_q;

  // ---- Output registers -------------------------------------------------------------------------
  typedef struct packed {
    logic       valid;    // a flit/control enters the path
    logic       head;
    logic       tail;
    logic       payload;  // 1: data is the DMEM read register; 0: hdr_part
    logic [FlitBits-1:0] hdr_part;  // header flit: its part of the packed header; else 0
    logic       link;
    logic [3:0] port;
    logic [1:0] ctrl;     // 0 data, 1 XREQ, 2 XDONE
  } tx_t;
  tx_t tx_d, tx_q;

  // The front job (its counter through s_job, below). Waiver: front's sctr and s_job's other
  // fields are not read.
  /* verilator lint_off UNUSEDSIGNAL */
  job_t        front;
  job_t        s_job;
  /* verilator lint_on UNUSEDSIGNAL */
  send_imm_t   f_desc;
  header_t     hdr;  // the header of the front job's next (or current) packet
  logic [xf_defs_pkg::HeaderBits-1:0] hdr_word;  // header_pack(hdr)
  logic [1:0]  hdr_idx;  // the header flit decided now
  logic [7:0]  f_route;
  logic        f_link, f_noroute;
  logic [3:0]  f_port;
  logic [2:0]  credits_avail;
  logic        pop;
  logic [WordBits-1:0] f_addr, f_words;  // the front job in DMEM words
  logic [WordBits-1:0] rem_words;
  logic [PktBits-1:0]  len_words;
  logic [2:0]  cnt_after_pop;
  logic        f_fresh;     // the front job has not started: no flit of it decided yet
  logic        f_ready;     // the front job's next payload word may leave
  logic        f_start;     // ... and its first word is due by the next cycle
  logic        f_whole;     // ... it is not streamed, or its counter says its data are complete
  // The front job's counter has reached its value (stream_count_i >= sval), a register: it is
  // compared in the cycle before for each job that can be at the front then (entry 0 if none
  // pops, entry 1 if one does, the job pushed into an empty queue) against that counter's value
  // at the start of the next cycle (the receive engine's early copy), and the pop and the push
  // choose among the three last. So the payload decision starts at a flip-flop, not behind a
  // counter array's read and a 32-bit compare (StreamReachRegister_A).
  logic        sreach_d, sreach_q;
  logic [2:0]  sreach_cand;  // entry 0, entry 1, the pushed job
  // Written only in the block below; at module scope because Yosys does not resolve the
  // members of a struct declared inside an always_comb (it declares them as implicit wires).
  tx_t         tx_d_c;

  always_comb begin
    logic in_session_d_c;
    logic pop_c;
    logic fail_o_c;
    logic dmem_re_o_c;
    front = jobs_q[0];
    f_desc = front.desc;
    f_route = (fill_q && fill_idx_q == 2'd0) ? route_rdata_i : front.route;
    f_link = !front.to_local;
    if (front.to_local) begin
      f_port = f_desc.tile;
      f_noroute = {1'b0, f_desc.tile} >= cfg_num_tiles_i;
    end else begin
      f_port = 4'(f_route);
      f_noroute = f_route >= {4'b0, cfg_num_ports_i};
    end
    f_addr = WordBits'(front.addr) << GrainShift;
    f_words = WordBits'(front.words) << GrainShift;
    rem_words = f_words - off_q;
    // A streamed job's word leaves once written (below avail) or once its counter reached the
    // value; it starts only once its first word is due, so that it holds no session before its
    // data have begun to arrive (the deadlock argument of docs/tile.md section 4.5).
    f_fresh = pkt_left_q == '0 && hdr_left_q == 2'd0 && off_q == '0;
    f_whole = !f_desc.stream || sreach_q;
    f_ready = f_whole || off_q < avail_q[0];
    f_start = f_whole || ann_q[0] != '0;
    len_words = (32'(rem_words) >= 32'(MaxPacketWords)) ? MaxPacketWords : PktBits'(rem_words);
    hdr = '0;
    hdr.opcode = f_desc.popc;  // Write or Reduce (FrontPopcLegal_A)
    hdr.dst_chip = front.dst_chip;
    hdr.dst_tile = f_desc.tile;
    hdr.dst_addr = front.dst_addr + (24'(off_q) << ByteShift);
    hdr.len = 12'(len_words) << ByteShift;
    hdr.dtype = f_desc.dtype;
    hdr.op = f_desc.op;
    hdr.sat = f_desc.sat;
    hdr.avg_final = f_desc.avg_final;
    hdr.avg_shift = f_desc.avg_shift;
    hdr.ctr = f_desc.ctr;
    hdr.lane = f_desc.lane;
    hdr.src_chip = cfg_chip_id_i;
    hdr.src_tile = cfg_tile_id_i;
    // The header flits after the first rebuild the header: only seq has moved on since.
    hdr.seq = (HeaderFlits > 1 && hdr_left_q != 2'd0) ? seq_q - 16'd1 : seq_q;
    hdr_word = header_pack(hdr);
    // Header flit 0 when none is under way, else flit HeaderFlits - hdr_left_q.
    hdr_idx = (HeaderFlits == 1 || hdr_left_q == 2'd0) ? 2'd0 : 2'(HeaderFlits) - hdr_left_q;

    // 1. XB messages, link order (model: Tile::tick).
    requested_d = requested_q;
    xon_d = xon_q;
    for (int l = 0; l < NumLinks; l++) begin
      if (xb_msg_valid_i[l] && in_session_q && link_q == 4'(l)) begin
        if (requested_d) begin
          if (xb_msg_kind_i[2*l +: 2] == xf_defs_pkg::XB_MSG_GRANT) begin
            requested_d = 1'b0;
            xon_d = 1'b1;
          end
        end else if (xb_msg_kind_i[2*l +: 2] != xf_defs_pkg::XB_MSG_GRANT) begin
          xon_d = xb_msg_kind_i[2*l +: 2] == xf_defs_pkg::XB_MSG_XON;
        end
      end
    end

    // 2. Decision (model: Tile::send_engine).
    in_session_d_c = in_session_q;
    held_d = held_q;
    link_d = link_q;
    off_d = off_q;
    pkt_left_d = pkt_left_q;
    hdr_left_d = hdr_left_q;
    seq_d = seq_q;
    credits_avail = credits_q + {2'b0, tx_credit_i};
    pop_c = 1'b0;
    fail_o_c = 1'b0;
    dmem_re_o_c = 1'b0;
    dmem_raddr_o = f_addr + off_q;
    tx_d_c = '0;
    tx_d_c.head = 1'b1;
    tx_d_c.tail = 1'b1;
    tx_d_c.link = 1'b1;
    tx_d_c.port = link_q;
    if (credits_avail != 3'd0) begin
      // Nothing to send: the queue is empty, or a streamed front job waits for its first word.
      if (cnt_q == 3'd0 || (!f_noroute && f_fresh && !f_start)) begin
        if (in_session_q && !(held_q && running_i)) begin  // not held: XDONE
          tx_d_c.valid = 1'b1;
          tx_d_c.ctrl = 2'd2;
          in_session_d_c = 1'b0;
          xon_d = 1'b0;
          held_d = 1'b0;
        end
      end else if (f_noroute) begin
        fail_o_c = 1'b1;
        pop_c = 1'b1;
      end else if (in_session_q && (!f_link || link_q != f_port) && pkt_left_q == '0 &&
                   hdr_left_q == 2'd0 && off_q == '0) begin  // the next job leaves elsewhere: XDONE
        tx_d_c.valid = 1'b1;
        tx_d_c.ctrl = 2'd2;
        in_session_d_c = 1'b0;
        xon_d = 1'b0;
        held_d = 1'b0;
      end else if (f_link && !in_session_q) begin  // XREQ
        tx_d_c.valid = 1'b1;
        tx_d_c.ctrl = 2'd1;
        tx_d_c.port = f_port;
        in_session_d_c = 1'b1;
        requested_d = 1'b1;
        xon_d = 1'b0;
        link_d = f_port;
      end else if (!f_link || xon_d) begin
        tx_d_c.link = f_link;
        tx_d_c.port = f_port;
        if (pkt_left_q == '0 && (HeaderFlits == 1 || hdr_left_q == 2'd0)) begin  // flit 0: head
          tx_d_c.valid = 1'b1;
          tx_d_c.hdr_part = hdr_word[hdr_idx*FlitBits +: FlitBits];
          seq_d = seq_q + 16'd1;
          pkt_left_d = len_words;
          hdr_left_d = 2'(HeaderFlits - 1);
          tx_d_c.tail = HeaderFlits == 1 && len_words == '0;
          if (tx_d_c.tail && front.words == '0) begin  // token: header only
            pop_c = 1'b1;
            held_d = f_link && f_desc.hold;
          end
        end else if (HeaderFlits > 1 && hdr_left_q != 2'd0) begin  // header flit hdr_idx
          tx_d_c.valid = 1'b1;
          tx_d_c.head = 1'b0;
          tx_d_c.hdr_part = hdr_word[hdr_idx*FlitBits +: FlitBits];
          hdr_left_d = hdr_left_q - 2'd1;
          tx_d_c.tail = hdr_left_d == 2'd0 && pkt_left_q == '0;
          if (tx_d_c.tail && front.words == '0) begin  // token: header only
            pop_c = 1'b1;
            held_d = f_link && f_desc.hold;
          end
        end else if (!stall_i && f_ready) begin  // payload flit: DMEM read now, data next cycle
          tx_d_c.valid = 1'b1;
          tx_d_c.head = 1'b0;
          tx_d_c.payload = 1'b1;
          dmem_re_o_c = 1'b1;
          off_d = off_q + 1'b1;
          pkt_left_d = pkt_left_q - 1'b1;
          tx_d_c.tail = pkt_left_d == '0;
          if (pkt_left_d == '0 && off_d == f_words) begin
            pop_c = 1'b1;
            off_d = '0;
            held_d = f_link && f_desc.hold;
          end
        end
      end
    end
    credits_d = credits_avail - {2'b0, tx_d_c.valid};
    if (credits_d > InitCredits) credits_d = InitCredits;  // only after a clear with flits out

    if (clear_i) begin
      in_session_d_c = 1'b0;
      held_d = 1'b0;
      requested_d = 1'b0;
      xon_d = 1'b0;
      link_d = '0;
      off_d = '0;
      pkt_left_d = '0;
      hdr_left_d = '0;
      seq_d = '0;
      credits_d = InitCredits;
      tx_d_c.valid = 1'b0;
    end
    in_session_d = in_session_d_c;
    pop = pop_c;
    fail_o = fail_o_c;
    dmem_re_o = dmem_re_o_c;
    tx_d = tx_d_c;
  end

  assign emit_o = tx_d.valid;
  // The front job's counter, from the queue register directly (not through `front`, which the
  // decision that reads stream_count_i also writes).
  assign s_job = jobs_q[0];
  assign stream_ctr_o = s_job.sctr;
  // Waiver: only the counter and value fields of entry 1.
  /* verilator lint_off UNUSEDSIGNAL */
  job_t s_job1;
  /* verilator lint_on UNUSEDSIGNAL */
  assign s_job1 = jobs_q[1];
  assign stream_next_ctr_o = {push_stream_i[31:27], s_job1.sctr, s_job.sctr};
  assign sreach_cand[0] = stream_next_count_i[0 +: 32] >= {5'b0, s_job.sval};
  assign sreach_cand[1] = stream_next_count_i[32 +: 32] >= {5'b0, s_job1.sval};
  assign sreach_cand[2] = stream_next_count_i[64 +: 32] >= {5'b0, push_stream_i[26:0]};
  // The job at the front next cycle: entry 1 after a pop of two or more, entry 0 without a pop,
  // else the job pushed now (none: the queue is empty and sreach_q is not read).
  always_comb begin
    if (pop) sreach_d = cnt_q >= 3'd2 ? sreach_cand[1] : sreach_cand[2];
    else sreach_d = cnt_q >= 3'd1 ? sreach_cand[0] : sreach_cand[2];
  end
  assign cnt_after_pop = cnt_q - {2'b0, pop};
  assign jobs_o = cnt_q;
  assign session_o = in_session_q;
  assign held_o = held_q;

  // 3. Queue: pop, route fill, push.
  job_t fill_job, push_job;
  // Waiver: the streamed words need a job's addr, words and stream bit only.
  /* verilator lint_off UNUSEDSIGNAL */
  job_t av_job;  // entry i of the queue, for its streamed words
  /* verilator lint_on UNUSEDSIGNAL */
  logic [WordBits-1:0] ann_n [QueueJobs];
  logic [WordBits-1:0] ann_word;  // the word that extends entry i's ann
  // Entry i is rewritten field by field with a constant index, so that only the fields a step
  // changes get a multiplexer (the route on a fill, the rest on a push).
  always_comb begin
    for (int i = 0; i < QueueJobs; i++) jobs_d[i] = jobs_q[i];
    fill_job = jobs_d[0];
    for (int i = 0; i < QueueJobs; i++) begin
      if (fill_q && fill_idx_q == 2'(i)) begin
        fill_job = jobs_d[i];
        fill_job.route = route_rdata_i;
        jobs_d[i] = fill_job;
      end
    end
    for (int i = 0; i < QueueJobs; i++) begin
      av_job = jobs_q[i];
      ann_n[i] = ann_q[i];
      ann_word = (WordBits'(av_job.addr) << GrainShift) + ann_q[i];
      if (3'(i) < cnt_q && av_job.desc.stream &&
          ann_q[i] < (WordBits'(av_job.words) << GrainShift) &&
          ((rx_notice_we_i && rx_notice_waddr_i == ann_word) ||
           (rx_we_i && rx_waddr_i == ann_word)))
        ann_n[i] = ann_q[i] + 1'b1;
      ann_d[i] = ann_n[i];
      avail_d[i] = ann_q[i];
    end
    if (pop) begin
      for (int i = 0; i < QueueJobs - 1; i++) begin
        jobs_d[i] = jobs_d[i+1];
        ann_d[i] = ann_n[i+1];
        avail_d[i] = ann_q[i+1];
      end
    end
    fill_d = 1'b0;
    fill_idx_d = cnt_after_pop[1:0];
    cnt_d = cnt_after_pop;
    push_job = jobs_d[0];
    for (int i = 0; i < QueueJobs; i++) begin
      if (push_i && cnt_after_pop[1:0] == 2'(i)) begin
        push_job = jobs_d[i];
        push_job.addr = push_addr_i;
        push_job.words = push_words_i;
        push_job.dst_chip = push_dst_chip_i;
        push_job.dst_addr = push_dst_addr_i;
        push_job.to_local = push_local_i;
        push_job.desc = push_desc_i;
        push_job.sctr = push_stream_i[31:27];
        push_job.sval = push_stream_i[26:0];
        jobs_d[i] = push_job;
        ann_d[i] = '0;
        avail_d[i] = '0;
      end
    end
    if (push_i) begin
      fill_d = 1'b1;
      cnt_d = cnt_after_pop + 3'd1;
    end

    if (clear_i) begin
      cnt_d = '0;
      fill_d = 1'b0;
    end
  end

  // Hazard ranges: [addr + off, addr + words) for the front job, [addr, addr + words) else.
  // Waiver: a job's addr and words bound its range; its other fields do not.
  /* verilator lint_off UNUSEDSIGNAL */
  job_t hz_job;
  /* verilator lint_on UNUSEDSIGNAL */
  always_comb begin
    logic [3:0] hz_valid_o_c;
    logic [4*WordBits-1:0] hz_lo_o_c;
    logic [4*WordBits-1:0] hz_hi_o_c;
    for (int i = 0; i < QueueJobs; i++) begin
      hz_job = jobs_q[i];
      hz_valid_o_c[i] = 3'(i) < cnt_q && !hz_job.desc.stream;  // a streamed job awaits writes
      hz_lo_o_c[i*WordBits +: WordBits] = (WordBits'(hz_job.addr) << GrainShift) +
                                        (i == 0 ? off_q : '0);
      hz_hi_o_c[i*WordBits +: WordBits] = (WordBits'(hz_job.addr) + WordBits'(hz_job.words)) <<
                                        GrainShift;
    end
    hz_valid_o = hz_valid_o_c;
    hz_lo_o = hz_lo_o_c;
    hz_hi_o = hz_hi_o_c;
  end

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      cnt_q <= '0;
      fill_q <= 1'b0;
      fill_idx_q <= '0;
      in_session_q <= 1'b0;
      requested_q <= 1'b0;
      xon_q <= 1'b0;
      held_q <= 1'b0;
      link_q <= '0;
      off_q <= '0;
      pkt_left_q <= '0;
      hdr_left_q <= '0;
      seq_q <= '0;
      credits_q <= InitCredits;
      tx_q <= '0;
      sreach_q <= 1'b0;
    end else begin
      cnt_q <= cnt_d;
      fill_q <= fill_d;
      fill_idx_q <= fill_idx_d;
      in_session_q <= in_session_d;
      requested_q <= requested_d;
      xon_q <= xon_d;
      held_q <= held_d;
      link_q <= link_d;
      off_q <= off_d;
      pkt_left_q <= pkt_left_d;
      hdr_left_q <= hdr_left_d;
      seq_q <= seq_d;
      credits_q <= credits_d;
      tx_q <= tx_d;
      sreach_q <= sreach_d;
    end
  end

  // Job entries: no reset needed (meaningful only below cnt_q), registers all the same.
  always_ff @(posedge clk_i) begin
    for (int i = 0; i < QueueJobs; i++) begin
      jobs_q[i] <= jobs_d[i];
      ann_q[i] <= ann_d[i];
      avail_q[i] <= avail_d[i];
    end
  end

  flit_t tx_flit;
  // Written only in the block below; at module scope because Yosys does not resolve the
  // members of a struct declared inside an always_comb (it declares them as implicit wires).
  flit_t tx_flit_c;
  always_comb begin
    tx_flit_c.head = tx_q.head;
    tx_flit_c.tail = tx_q.tail;
    tx_flit_c.data = tx_q.payload ? dmem_rdata_i : tx_q.hdr_part;
    tx_flit = tx_flit_c;
  end
  assign tx_valid_o = tx_q.valid;
  assign tx_flit_o = tx_flit;
  assign tx_link_o = tx_q.link;
  assign tx_port_o = tx_q.port;
  assign tx_ctrl_o = tx_q.ctrl;

  `ASSERT(CreditsInRange_A, credits_q <= InitCredits)
  `ASSERT(QueueInRange_A, int'(cnt_q) <= QueueJobs)
  `ASSERT(StreamReachRegister_A, cnt_q == 3'd0 || sreach_q == (stream_count_i >= {5'b0, s_job.sval}))
  `ASSERT(NoPushWhenFull_A, !(push_i && cnt_after_pop == 3'(QueueJobs)))
  `ASSERT(PktLeftInRange_A, pkt_left_q <= MaxPacketWords)
  `ASSERT(HdrLeftInRange_A, int'(hdr_left_q) < HeaderFlits)
  `ASSERT(NoEmitWithoutCredit_A, !(tx_d.valid && credits_avail == 3'd0))
  // Send accepts Write and Reduce only (the sequencer's check): popc is the header's opcode.
  `ASSERT(FrontPopcLegal_A, cnt_q == 3'd0 || f_desc.popc == xf_defs_pkg::OPCODE_WRITE ||
                            f_desc.popc == xf_defs_pkg::OPCODE_REDUCE)

endmodule
