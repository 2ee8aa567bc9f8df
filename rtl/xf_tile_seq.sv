// Sequencer of a tile (docs/isa.md, model/tile.cpp Tile::sequencer): 32 registers (r0 = 0),
// pc, the avg scale CSR (16) and the ScaleAdd factor CSR (17), one instruction per cycle in a
// three-stage pipeline: fetch, decode, execute (docs/tile.md "RTL: xf_tile", Sequencer).
//
// Fetch: imem_raddr_o is the fetch pc, so the IMEM read register holds that word in the next cycle
// (decode), whose pc (fpc) is pc_q + 1 with an instruction in the execute stage, else pc_q; the
// fetch pc is fpc + 1 (fpc after a host read, a taken branch's target), and while the execute
// stage stalls imem_re_o is low and the read register keeps the decode word. Decode: that
// word becomes the execute stage's instruction register (ins_q) when the execute stage advances (it
// retires its instruction or holds none), and the register file is read at its register fields
// (SyncRegs = 1: a synchronous read in this cycle; 0: an asynchronous read in the next, from
// ins_q). Execute: the instruction in ins_q with its operands, exactly as the model; a stalled
// instruction stays there (and the decode word in the read register). A taken branch or jump
// fetches its target at once and leaves the execute stage empty for one cycle (a bubble: a taken
// branch costs 2 cycles), and so does a start or clear (the first instruction executes in the
// second running cycle); the model counts both bubbles (Tile::sequencer). A register written in a
// cycle is read by the next instruction in the next (xf_buf_ram forwards it). If the host took
// the IMEM port in the previous cycle (imem_valid_i = 0) the decode word is lost: an advancing
// execute stage takes a bubble instead and the word is fetched again (the model does not see
// host IMEM reads).
//
// Execution in a cycle with running_i (the register: an error of the receive or send engine in a
// cycle stops the sequencer from the next one) and an instruction in ins_q: pc >= ImemWords ->
// PcRange; otherwise the instruction, exactly as the model, except Lw, which takes 2 cycles (the
// model matches): in its first cycle it checks PmemRange and issues the PMEM read (pmem_re_o;
// if the host has the PMEM port, pmem_busy_i, it waits), in its second it writes rd and
// retires. Every other instruction retires in the cycle it executes unless it stalls: End
// (jobs_i != 0, or session_i and not held_i: a held session closes when the tile halts), Send
// (jobs_i == 4), Wait (wait_count_i < r[rs1]), Waits (jobs_i != 0), Bar (until bar_release_i).
// jobs_i, session_i and held_i are the send engine's registers: its queue and session at the
// start of the cycle, before its step (model: Tile::tick takes them before send_engine), so a
// job the engine pops in a cycle makes room for a Send from the next one.
//
// Bar: bar_wait_o is high from the first cycle the tile executes Bar (from registers: the
// instruction register, running_i and at_bar_q) until it retires; bar_release_i retires it in
// a cycle in which the tile had already been waiting (at_bar_q). Last arrival in t -> chip
// releases in t+1 (model).
//
// Watchdog (the cycle-exact rule of docs/errors.md section 5, shared with the model): wd_idle_q
// counts the consecutive cycles of a stalled wait in which the engines did not progress in the
// cycle before (progress_i, the tile's register of a flit taken, a counter incremented or an
// emission: so no path runs from the exchange through the engines into this compare); at
// wd_period_i (!= 0) the tile fails with Watchdog, fail_kind_o and fail_ctr_o saying on what. It
// never stalls anything, so correct programs keep their timing. A bubble is not a wait.
//
// Combinational paths: imem_re_o, imem_raddr_o, pmem_*, push_*, fail_o, halt_o from running_i,
// imem_valid_i, instr_i, jobs_i, session_i, held_i, wait_count_i, bar_release_i, pmem_busy_i,
// progress_i, wd_period_i; route_raddr_o and wait_ctr_o from the registers only; bar_wait_o
// from running_i and registers. instr_i (the IMEM's read register) reaches only ins_q, opv_q
// and, with SyncRegs, the register file's read address.
//
// Send's pair check (IllegalInstr) accepts a Reduce only with a pair the tile's ALU reduces
// (built_pair of rtl/xf_types.svh with AluDtypes: the units it is built with; all by default).
//
// Parameter constraints: ImemWords 2..4096, PmemWords 2..16384, both powers of two, DmemBytes a
// multiple of 16; WordBits holds DmemBytes / 16; AluDtypes[7] (ScaleAdd) only with
// AluDtypes[6] (fp32).
module xf_tile_seq #(
  // flit width of the machine: 32, 64 or 128 (docs/packets.md section 2)
  parameter int FlitBits = xf_defs_pkg::FlitBits,
  // instruction memory words
  parameter int ImemWords = 4096,
  // parameter memory words
  parameter int PmemWords = 16384,
  // data memory bytes
  parameter int DmemBytes = 786432,
  // units the tile's ALU is built with (bit d = dtype d, bit 7 = ScaleAdd); Send refuses a Reduce
  // of another
  parameter logic [7:0] AluDtypes = 8'hFF,
  // 1: the register file in block RAM, read synchronously in the decode stage (iCE40); 0: in
  // distributed RAM, read asynchronously in the execute stage (ECP5, Xilinx). Same cycles.
  parameter bit SyncRegs = 1'b0,
  // bits of a DMEM word index (derived; do not override)
  parameter int WordBits = $clog2(DmemBytes / 16 + 1),
  // IMEM / PMEM address widths (derived; do not override)
  parameter int ImemAddrBits = $clog2(ImemWords),
  parameter int PmemAddrBits = $clog2(PmemWords)
) (
  input  logic                    clk_i,            // clock
  input  logic                    rst_ni,           // asynchronous reset, active low
  input  logic                    clear_i,          // start/clear: regs, pc, CSR, Bar, Lw
  input  logic                    running_i,        // the tile is running (register)
  // configuration and CSRs
  input  logic [31:0]             cfg_index_i,      // Geti 0
  input  logic [3:0]              cfg_tile_id_i,    // Geti 1
  input  logic [12:0]             cfg_num_chips_i,  // Geti 2; Send dst_chip check
  input  logic [11:0]             cfg_chip_id_i,    // local job: dst_chip == this chip
  input  logic [31:0]             cycles_i,         // Geti 3
  output logic [31:0]             avg_scale_o,      // CSR 16
  output logic [31:0]             scale_o,          // CSR 17 (ScaleAdd factor, fp32 bits)
  // IMEM
  output logic                    imem_re_o,        // read: 0 keeps the decode word in instr_i
  output logic [ImemAddrBits-1:0] imem_raddr_o,     // fetch pc
  input  logic                    imem_valid_i,     // instr_i holds the decode word (IMEM[fpc])
  input  logic [63:0]             instr_i,          // IMEM read register
  // PMEM
  output logic                    pmem_re_o,        // Lw first cycle: read
  output logic [PmemAddrBits-1:0] pmem_raddr_o,     // r[rs1] + imm
  input  logic [31:0]             pmem_rdata_i,     // read register
  input  logic                    pmem_busy_i,      // the host has the PMEM port this cycle
  // send queue
  input  logic [2:0]              jobs_i,           // jobs queued at the start of the cycle
  input  logic                    session_i,        // XB session open at the start of it
  input  logic                    held_i,           // ... and held (End does not wait for it)
  output logic                    push_o,           // Send retires: queue the job
  output logic [WordBits-1:0]     push_addr_o,      // source address in 16-byte grains
  output logic [WordBits-1:0]     push_words_o,     // length in 16-byte grains
  output logic [11:0]             push_dst_chip_o,  // destination chip
  output logic [23:0]             push_dst_addr_o,  // destination address (24 bits)
  output logic                    push_local_o,     // destination chip == this chip
  output logic [28:0]             push_desc_o,      // imm | r[rd] as a send_imm_t
  output logic [31:0]             push_stream_o,    // CSR 18: a streamed job's counter, value
  output logic [13:0]             route_raddr_o,    // route_addr_t {lane, dst_chip} of this Send
  // counters
  output logic [4:0]              wait_ctr_o,       // (imm + r[rs2]) % 32
  input  logic [31:0]             wait_count_i,     // that counter now
  // barrier
  output logic                    bar_wait_o,       // executing Bar, waiting
  input  logic                    bar_release_i,    // release pulse
  // watchdog
  input  logic [31:0]             wd_period_i,      // TileWatchdog: cycles, 0 = off
  input  logic                    progress_i,       // an engine progressed in the last cycle
  // results
  output logic                    halt_o,           // End retires: done, not running
  output logic                    fail_o,           // an error in this cycle
  output logic [3:0]              fail_code_o,      // its TileErr code
  output logic [3:0]              fail_kind_o,      // Watchdog: its WaitKind; else 0
  output logic [4:0]              fail_ctr_o,       // Watchdog on a counter: it; else 0
  output logic [31:0]             pc_o              // pc
);

  `include "xf_assert.svh"
  `include "xf_types.svh"

  `ASSERT_INIT(ImemWordsLegal_A, ImemWords >= 2 && ImemWords <= 4096 &&
                                 (ImemWords & (ImemWords - 1)) == 0)
  `ASSERT_INIT(PmemWordsLegal_A, PmemWords >= 2 && PmemWords <= 16384 &&
                                 (PmemWords & (PmemWords - 1)) == 0)
  `ASSERT_INIT(DmemBytesLegal_A, DmemBytes % 16 == 0 && DmemBytes >= 32)
  `ASSERT_INIT(AluDtypesLegal_A, !AluDtypes[7] || AluDtypes[6])

  // The register file: 32 x 32 bits written once per cycle and read at five addresses (rs1..rs4
  // and rd of the execute stage's instruction), one xf_buf_ram per read port (one copy of the
  // array each: ECP5 DPR16X4 or Xilinx RAM32M with SyncRegs = 0, iCE40 block RAM with 1). It has
  // no reset; reg_valid_q says which registers were written since the last reset or clear, and
  // a register not written reads as 0 (r0 is never written, so it is always 0).
  logic [31:0] reg_valid_d, reg_valid_q;
  // reg_valid_q at the execute stage's five read fields (port order: rs1, rs2, rs3, rs4, rd),
  // kept with ins_q so that an operand's 32:1 select of reg_valid_q runs in the cycle before,
  // beside the execute stage, instead of in front of its decisions (OperandValid_A).
  logic [4:0]  opv_d, opv_q;
  logic        ins_load;  // ins_d is the decode word (instr_i)
  logic        reg_we;
  logic [31:0] pc_d, pc_q;             // pc of the execute stage's instruction (or the next one)
  logic [31:0] fpc;                    // fetch pc of last cycle (the decode word's pc)
  logic [63:0] ins_d, ins_q;           // execute stage's instruction register
  logic        ex_valid_d, ex_valid_q;  // ... holds an instruction (0: a bubble)
  logic        lw_phase_d, lw_phase_q;  // Lw: the PMEM read was issued last cycle
  logic        at_bar_d, at_bar_q;      // waiting at Bar since an earlier cycle
  logic [31:0] avg_d, avg_q;           // CSR 16, Avg final scale (Q1.31)
  logic [31:0] scale_d, scale_q;       // CSR 17, ScaleAdd factor (fp32 bits)
  logic [31:0] stream_d, stream_q;     // CSR 18, a streamed Send's counter and value
  logic [31:0] wd_idle_d, wd_idle_q;    // stalled cycles without progress (watchdog)
  logic [3:0]  wait_kind;               // WaitKind of a stall in this cycle
  logic        wd_stalled;              // a stall without progress: the watchdog counts it
  logic [31:0] wd_idle_inc;             // wd_idle_q + 1, saturating
  logic        wd_due;                  // ... reaches the period (!= 0)
  assign wd_idle_inc = wd_idle_q + {31'b0, wd_idle_q != '1};
  assign wd_due = wd_period_i != '0 && wd_idle_inc >= wd_period_i;

  instr_t      ins;   // the instruction
  instr_t      ins_next;  // the instruction of the next cycle (register file read address)
  send_imm_t   desc;  // Send/Fwd: imm | r[rd], the send descriptor
  route_addr_t route;
  logic [31:0] a, b, c3, c4, d;  // r[rs1], r[rs2], r[rs3], r[rs4], r[rd]
  logic [31:0] rf_rdata [5];     // the read ports, in that order
  logic [24:0] rf_raddr, rf_raddr_next;  // [5p +: 5]: read port p's address
  instr_t      ins_dec;       // the decode word
  logic [24:0] rf_raddr_dec;  // ... its read fields, as rf_raddr
  logic        exec, pc_oob, is_bar;
  logic        wr_en;
  logic [31:0] wr_val;
  logic        retire, taken;
  logic [31:0] fetch_pc;          // IMEM address of this cycle (its low ImemAddrBits)
  logic        unused_fetch_pc;
  assign unused_fetch_pc = ^fetch_pc[31:ImemAddrBits];
  logic [32:0] lw_idx, src_end, dst_end;
  logic        cmp_lt;

  // The read ports' addresses, port p in bits 5p +: 5: rs1, rs2, rs3, rs4, rd. Two assignments:
  // rf_raddr (from the register ins_q) must not share a process with rf_raddr_next, which
  // follows this cycle's execution (Verilator orders whole processes).
  assign ins = instr_unpack(ins_q);
  assign fpc = pc_q + {31'b0, ex_valid_q};  // the instruction after pc_q's, or pc_q's own
  assign ins_next = instr_unpack(ins_d);
  logic unused_ins_next;  // only its register fields address the register file
  assign unused_ins_next = ^{ins_next.opc, ins_next.imm};
  assign rf_raddr = {ins.rd, {1'b0, ins.rs4}, ins.rs3, ins.rs2, ins.rs1};
  assign ins_dec = instr_unpack(instr_i);
  assign rf_raddr_dec = {ins_dec.rd, {1'b0, ins_dec.rs4}, ins_dec.rs3, ins_dec.rs2, ins_dec.rs1};
  logic unused_ins_dec;  // only its register fields
  assign unused_ins_dec = ^{ins_dec.opc, ins_dec.imm};
  assign rf_raddr_next = {ins_next.rd, {1'b0, ins_next.rs4}, ins_next.rs3, ins_next.rs2,
                          ins_next.rs1};

  for (genvar p = 0; p < 5; p++) begin : gen_rf
    xf_buf_ram #(
      .Words   (32),
      .DataBits(32),
      .SyncRead(SyncRegs)
    ) u_rf (
      .clk_i       (clk_i),
      .rst_ni      (rst_ni),
      .we_i        (reg_we),
      .waddr_i     (ins.rd),
      .wdata_i     (wr_val),
      .raddr_next_i(rf_raddr_next[5*p +: 5]),
      .raddr_i     (rf_raddr[5*p +: 5]),
      .rdata_o     (rf_rdata[p])
    );
  end

  // Written only in the block below; at module scope because Yosys does not resolve the
  // members of a struct declared inside an always_comb (it declares them as implicit wires).
  route_addr_t route_c;
  always_comb begin
    a = opv_q[0] ? rf_rdata[0] : 32'd0;
    b = opv_q[1] ? rf_rdata[1] : 32'd0;
    c3 = opv_q[2] ? rf_rdata[2] : 32'd0;
    c4 = opv_q[3] ? rf_rdata[3] : 32'd0;
    d = opv_q[4] ? rf_rdata[4] : 32'd0;
    desc = send_imm_unpack(ins.imm | d);
    route_c.lane = desc.lane;
    route_c.chip = c3[11:0];
    pc_oob = pc_q >= 32'(ImemWords);
    exec = running_i && ex_valid_q;
    is_bar = ex_valid_q && !pc_oob && ins.opc == xf_defs_pkg::ISA_BAR;
    lw_idx = {1'b0, a} + {1'b0, ins.imm};
    src_end = {1'b0, a} + {1'b0, b};
    dst_end = {1'b0, c4} + {1'b0, b};
    cmp_lt = $signed(a) < $signed(b);
    route = route_c;
  end

  // The Wait's counter index, (imm + r[rs2]) % 32 of the execute stage's instruction. With
  // SyncRegs = 0 it is a register (wait_ctr_q), computed in the cycle before from the instruction
  // that enters the execute stage (or stays there) and its r[rs2] after this cycle's write: the
  // decode word's through a copy of the register file's low 5 bits read asynchronously at its rs2
  // field (4 TRELLIS_DPR16X4 on ECP5), the staying instruction's from its read port; a register
  // written in this cycle is forwarded from wr_val. So the Wait's counter read, compare and
  // stall start from a register instead of behind the register file's read and the index adder.
  // With SyncRegs = 1 the register file reads in the decode stage's edge and the index is
  // computed from b here. Both are the same index in every cycle that holds an instruction
  // (WaitCtr_A).
  logic [4:0] wait_ctr;
  if (SyncRegs) begin : gen_wait_ctr_late
    assign wait_ctr = 5'(ins.imm + b);  // modulo NumCounters
  end else begin : gen_wait_ctr_reg
    logic [4:0] rs2_low_dec;   // r[rs2] of the decode word, low 5 bits, before this cycle's write
    logic [4:0] wctr_load_nw, wctr_load_w, wctr_hold_nw, wctr_hold_w;
    logic [4:0] wait_ctr_d, wait_ctr_q;

    xf_buf_ram #(
      .Words   (32),
      .DataBits(5),
      .SyncRead(1'b0)
    ) u_rf_rs2_low (
      .clk_i       (clk_i),
      .rst_ni      (rst_ni),
      .we_i        (reg_we),
      .waddr_i     (ins.rd),
      .wdata_i     (wr_val[4:0]),
      .raddr_next_i(ins_dec.rs2),
      .raddr_i     (ins_dec.rs2),
      .rdata_o     (rs2_low_dec)
    );

    // The four candidates (decode word or staying instruction, register written this cycle or
    // not) are summed before the late choice between them (retire, through ins_load and reg_we).
    always_comb begin
      logic valid_dec;
      valid_dec = reg_valid_q[ins_dec.rs2];
      wctr_load_nw = 5'(ins_dec.imm) + (valid_dec ? rs2_low_dec : 5'd0);
      wctr_load_w = 5'(ins_dec.imm) + wr_val[4:0];
      wctr_hold_nw = 5'(ins.imm) + b[4:0];
      wctr_hold_w = 5'(ins.imm) + wr_val[4:0];
      if (clear_i) begin
        wait_ctr_d = 5'(ins_next.imm);  // no register is valid after a clear: imm + 0
      end else if (ins_load) begin
        wait_ctr_d = reg_we && ins.rd == ins_dec.rs2 ? wctr_load_w : wctr_load_nw;
      end else begin
        wait_ctr_d = reg_we && ins.rd == ins.rs2 ? wctr_hold_w : wctr_hold_nw;
      end
    end

    always_ff @(posedge clk_i or negedge rst_ni) begin
      if (!rst_ni) begin
        wait_ctr_q <= '0;
      end else begin
        wait_ctr_q <= wait_ctr_d;
      end
    end

    assign wait_ctr = wait_ctr_q;
  end
  `ASSERT(WaitCtr_A, !ex_valid_q || wait_ctr == 5'(ins.imm + b))

  // Outputs from the instruction and the registers only.
  assign wait_ctr_o = wait_ctr;
  assign route_raddr_o = route_addr_pack(route);
  assign bar_wait_o = running_i && (is_bar || at_bar_q);
  assign push_addr_o = a[4 +: WordBits];
  assign push_words_o = b[4 +: WordBits];
  assign push_dst_chip_o = c3[11:0];
  assign push_dst_addr_o = c4[23:0];
  assign push_local_o = c3 == {20'b0, cfg_chip_id_i};
  assign push_desc_o = desc;
  assign push_stream_o = stream_q;

  always_comb begin
    logic pmem_re_o_c;
    logic push_o_c;
    logic halt_o_c;
    logic fail_o_c;
    logic [3:0] fail_code_o_c;
    logic [3:0] fail_kind_o_c;
    logic [4:0] fail_ctr_o_c;
    logic imem_re_c;

    pmem_re_o_c = 1'b0;
    pmem_raddr_o = lw_idx[PmemAddrBits-1:0];
    push_o_c = 1'b0;
    halt_o_c = 1'b0;
    fail_o_c = 1'b0;
    fail_code_o_c = xf_defs_pkg::TILE_ERR_NONE;
    fail_kind_o_c = xf_defs_pkg::WAIT_KIND_RUNNING;
    fail_ctr_o_c = '0;
    wait_kind = xf_defs_pkg::WAIT_KIND_RUNNING;
    wr_en = 1'b0;
    wr_val = '0;
    retire = 1'b0;
    taken = 1'b0;
    lw_phase_d = 1'b0;
    at_bar_d = 1'b0;
    avg_d = avg_q;
    scale_d = scale_q;
    stream_d = stream_q;

    if (exec) begin
      if (pc_oob) begin
        fail_o_c = 1'b1;
        fail_code_o_c = xf_defs_pkg::TILE_ERR_PC_RANGE;
      end else begin
        case (ins.opc)
          xf_defs_pkg::ISA_NOP: retire = 1'b1;
          xf_defs_pkg::ISA_END: begin
            if (jobs_i == 3'd0 && (!session_i || held_i)) begin  // a held session closes at halt
              halt_o_c = 1'b1;
              retire = 1'b1;
            end else begin
              wait_kind = xf_defs_pkg::WAIT_KIND_SENDS;
            end
          end
          xf_defs_pkg::ISA_LI: begin
            wr_en = 1'b1;
            wr_val = ins.imm;
            retire = 1'b1;
          end
          xf_defs_pkg::ISA_ADD: begin
            wr_en = 1'b1;
            wr_val = a + b;
            retire = 1'b1;
          end
          xf_defs_pkg::ISA_SUB: begin
            wr_en = 1'b1;
            wr_val = a - b;
            retire = 1'b1;
          end
          xf_defs_pkg::ISA_MUL: begin
            wr_en = 1'b1;
            wr_val = a * b;
            retire = 1'b1;
          end
          xf_defs_pkg::ISA_ADDI: begin
            wr_en = 1'b1;
            wr_val = a + ins.imm;
            retire = 1'b1;
          end
          xf_defs_pkg::ISA_LW: begin
            if (lw_idx >= 33'(PmemWords)) begin
              fail_o_c = 1'b1;
              fail_code_o_c = xf_defs_pkg::TILE_ERR_PMEM_RANGE;
            end else if (!lw_phase_q) begin
              if (!pmem_busy_i) begin
                pmem_re_o_c = 1'b1;
                lw_phase_d = 1'b1;
              end
            end else begin
              wr_en = 1'b1;
              wr_val = pmem_rdata_i;
              retire = 1'b1;
            end
          end
          xf_defs_pkg::ISA_GETI: begin
            if (ins.imm > 32'd3) begin
              fail_o_c = 1'b1;
              fail_code_o_c = xf_defs_pkg::TILE_ERR_ILLEGAL_INSTR;
            end else begin
              wr_en = 1'b1;
              case (2'(ins.imm))
                2'd0: wr_val = cfg_index_i;
                2'd1: wr_val = {28'b0, cfg_tile_id_i};
                2'd2: wr_val = {19'b0, cfg_num_chips_i};
                default: wr_val = cycles_i;
              endcase
              retire = 1'b1;
            end
          end
          xf_defs_pkg::ISA_BEQ: begin
            retire = 1'b1;
            taken = a == b;
          end
          xf_defs_pkg::ISA_BNE: begin
            retire = 1'b1;
            taken = a != b;
          end
          xf_defs_pkg::ISA_BLT: begin
            retire = 1'b1;
            taken = cmp_lt;
          end
          xf_defs_pkg::ISA_BGE: begin
            retire = 1'b1;
            taken = !cmp_lt;
          end
          xf_defs_pkg::ISA_JMP: begin
            retire = 1'b1;
            taken = 1'b1;
          end
          xf_defs_pkg::ISA_SEND: begin
            if (jobs_i < 3'd4) begin
              // Checks in the model's order.
              if (a[3:0] != 4'd0 || b[3:0] != 4'd0 || c4[3:0] != 4'd0 ||
                  src_end > 33'(DmemBytes) || dst_end > 33'h1000000) begin
                fail_o_c = 1'b1;
                fail_code_o_c = xf_defs_pkg::TILE_ERR_DMEM_RANGE;
              end else if ((desc.popc != xf_defs_pkg::OPCODE_WRITE &&
                            desc.popc != xf_defs_pkg::OPCODE_REDUCE) ||
                           (desc.popc == xf_defs_pkg::OPCODE_REDUCE &&
                            !(AluDtypes != 8'h00 &&
                              built_pair(AluDtypes, desc.dtype, desc.op)))) begin
                fail_o_c = 1'b1;
                fail_code_o_c = xf_defs_pkg::TILE_ERR_ILLEGAL_INSTR;
              end else if (c3 >= {19'b0, cfg_num_chips_i}) begin
                fail_o_c = 1'b1;
                fail_code_o_c = xf_defs_pkg::TILE_ERR_BAD_PACKET;
              end else begin
                push_o_c = 1'b1;
                retire = 1'b1;
              end
            end else begin
              wait_kind = xf_defs_pkg::WAIT_KIND_SEND_QUEUE;
            end
          end
          xf_defs_pkg::ISA_WAIT: begin
            if (wait_count_i >= a) retire = 1'b1;
            else wait_kind = xf_defs_pkg::WAIT_KIND_COUNTER;
          end
          xf_defs_pkg::ISA_WAITS: begin
            if (jobs_i == 3'd0) retire = 1'b1;
            else wait_kind = xf_defs_pkg::WAIT_KIND_SENDS;
          end
          xf_defs_pkg::ISA_BAR: begin
            if (at_bar_q && bar_release_i) begin
              retire = 1'b1;
            end else begin
              at_bar_d = 1'b1;
              wait_kind = xf_defs_pkg::WAIT_KIND_BARRIER;
            end
          end
          xf_defs_pkg::ISA_CSRW: begin
            if (ins.imm == 32'(xf_defs_pkg::CsrAvgScale)) begin
              avg_d = a;
              retire = 1'b1;
            end else if (ins.imm == 32'(xf_defs_pkg::CsrAluScale)) begin
              scale_d = a;
              retire = 1'b1;
            end else if (ins.imm == 32'(xf_defs_pkg::CsrStream)) begin
              stream_d = a;
              retire = 1'b1;
            end else begin
              fail_o_c = 1'b1;
              fail_code_o_c = xf_defs_pkg::TILE_ERR_ILLEGAL_INSTR;
            end
          end
          default: begin
            fail_o_c = 1'b1;
            fail_code_o_c = xf_defs_pkg::TILE_ERR_ILLEGAL_INSTR;
          end
        endcase
      end
    end

    // Watchdog: count a stalled cycle without progress; fire when the count reaches the period.
    // The count's increment and its compare with the period come from registers only (wd_due),
    // so that the stall decision meets them in one AND instead of running through a 32-bit
    // adder and comparator.
    wd_stalled = wait_kind != xf_defs_pkg::WAIT_KIND_RUNNING && !progress_i;
    wd_idle_d = wd_stalled ? wd_idle_inc : '0;
    if (wd_stalled && wd_due) begin
      fail_o_c = 1'b1;
      fail_code_o_c = xf_defs_pkg::TILE_ERR_WATCHDOG;
      fail_kind_o_c = wait_kind;
      fail_ctr_o_c = wait_kind == xf_defs_pkg::WAIT_KIND_COUNTER ? wait_ctr_o : 5'd0;
    end

    // The pipeline. A taken branch fetches its target now and leaves a bubble; an execute stage
    // that retires (or holds nothing) takes the decode word, unless the host took the IMEM port
    // last cycle (a bubble, and the word is fetched again); a stalled one keeps its instruction.
    // The fetch pc of the next cycle is the IMEM address.
    // The fetch address does not wait for the execute stage's decision (only a taken branch
    // changes it): the word after the decode word, or the decode word again after a host read;
    // a stalled execute stage instead keeps the decode word in the IMEM's read register
    // (imem_re_o low), so that retire reaches only that enable.
    pc_d = pc_q;
    ins_load = 1'b0;
    fetch_pc = running_i && imem_valid_i ? fpc + 32'd1 : fpc;
    imem_re_c = 1'b1;
    ins_d = ins_q;
    ex_valid_d = ex_valid_q;
    if (running_i) begin
      // taken is set only by the branches and Jmp, which always retire (TakenRetires_A): the
      // fetch address does not wait for the retire decision of a Wait, Send or End.
      if (taken) begin
        pc_d = ins.imm;
        fetch_pc = ins.imm;
        ex_valid_d = 1'b0;
      end else if (retire || !ex_valid_q) begin
        pc_d = fpc;
        ex_valid_d = imem_valid_i;
        if (imem_valid_i) begin
          ins_d = instr_i;
          ins_load = 1'b1;
        end
      end else begin
        imem_re_c = !imem_valid_i;  // stalled: hold a good decode word, re-read a lost one
      end
    end
    reg_we = wr_en && retire && ins.rd != 5'd0 && !clear_i;
    reg_valid_d = reg_valid_q;
    if (reg_we) reg_valid_d[ins.rd] = 1'b1;
    // reg_valid_d at the next instruction's fields: the decode word's or this one's, each
    // computed from the registers and this cycle's write and chosen last.
    for (int p = 0; p < 5; p++) begin
      opv_d[p] = ins_load ?
          reg_valid_q[rf_raddr_dec[5*p +: 5]] || (reg_we && ins.rd == rf_raddr_dec[5*p +: 5]) :
          opv_q[p] || (reg_we && ins.rd == rf_raddr[5*p +: 5]);
    end
    if (clear_i) begin
      pc_d = '0;
      fetch_pc = '0;
      ex_valid_d = 1'b0;
      reg_valid_d = '0;
      opv_d = '0;
      lw_phase_d = 1'b0;
      at_bar_d = 1'b0;
      avg_d = 32'h1 << xf_defs_pkg::AvgScaleFracBits;
      scale_d = 32'(xf_defs_pkg::ScaleAddResetBits);
      stream_d = '0;
      push_o_c = 1'b0;
      wd_idle_d = '0;
    end
    if (clear_i) imem_re_c = 1'b1;
    imem_raddr_o = fetch_pc[ImemAddrBits-1:0];
    imem_re_o = imem_re_c;
    pmem_re_o = pmem_re_o_c;
    push_o = push_o_c;
    halt_o = halt_o_c;
    fail_o = fail_o_c;
    fail_code_o = fail_code_o_c;
    fail_kind_o = fail_kind_o_c;
    fail_ctr_o = fail_ctr_o_c;
  end

  // The instruction register has no reset: ex_valid_q says whether it holds one.
  always_ff @(posedge clk_i) begin
    ins_q <= ins_d;
  end

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      reg_valid_q <= '0;
      opv_q <= '0;
      pc_q <= '0;
      ex_valid_q <= 1'b0;
      lw_phase_q <= 1'b0;
      at_bar_q <= 1'b0;
      avg_q <= 32'h1 << xf_defs_pkg::AvgScaleFracBits;
      scale_q <= 32'(xf_defs_pkg::ScaleAddResetBits);
      stream_q <= '0;
      wd_idle_q <= '0;
    end else begin
      reg_valid_q <= reg_valid_d;
      opv_q <= opv_d;
      pc_q <= pc_d;
      ex_valid_q <= ex_valid_d;
      lw_phase_q <= lw_phase_d;
      at_bar_q <= at_bar_d;
      avg_q <= avg_d;
      scale_q <= scale_d;
      stream_q <= stream_d;
      wd_idle_q <= wd_idle_d;
    end
  end

  assign avg_scale_o = avg_q;
  assign scale_o = scale_q;
  assign pc_o = pc_q;

  `ASSERT(RegZeroIsZero_A, !reg_valid_q[0])
  `ASSERT(OperandValid_A, opv_q == {reg_valid_q[rf_raddr[20 +: 5]], reg_valid_q[rf_raddr[15 +: 5]],
                                    reg_valid_q[rf_raddr[10 +: 5]], reg_valid_q[rf_raddr[5 +: 5]],
                                    reg_valid_q[rf_raddr[0 +: 5]]})
  `ASSERT(PushOnlyWithRoom_A, !push_o || jobs_i < 3'd4)
  `ASSERT(TakenRetires_A, !taken || retire)

endmodule
