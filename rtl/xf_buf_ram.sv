// Buffer RAM: one write port and one read port with the cycle behaviour of an asynchronous read
// at a registered address, in one of two forms (SyncRead) that behave the same cycle for cycle
// (docs/fpga.md section 10). The links' receive and replay buffers and the FIFOs (the XBs'
// queues) keep their storage in it (rtl/xf_link.sv, rtl/xf_fifo.sv).
//
// Protocol: we_i writes wdata_i at waddr_i at the rising edge. In every cycle rdata_o is
// mem[raddr_i] as it stands in that cycle (after the writes of the edges before it), where
// raddr_i is a register and raddr_next_i is the value it takes at the next edge (its D input).
// - SyncRead = 0: an asynchronous read at raddr_i (raddr_next_i unused), which FPGA flows map
//   to distributed RAM (ECP5 TRELLIS_DPR16X4, Xilinx RAM32M) with no extra cell.
// - SyncRead = 1: a synchronous read one cycle ahead, at raddr_next_i (read-first), and a write
//   to that word at the same edge forwarded from a register (wdata_q) instead, so that block RAM
//   can hold the array (iCE40 SB_RAM40_4K, which reads only synchronously and is the only RAM
//   iCE40 has). It costs DataBits + 1 flip-flops and a DataBits-wide 2:1 multiplexer; on iCE40
//   it saves Words x DataBits flip-flops and a Words:1 read multiplexer. The contract (raddr_i
//   is raddr_next_i one cycle late) is asserted from the second cycle after reset on
//   (LookaheadAddr_A).
//
// Combinational paths: SyncRead = 0: raddr_i -> rdata_o. SyncRead = 1: none into rdata_o (the
// RAM's read register or the forward register, selected by a register).
//
// Parameter constraints: Words >= 1, DataBits >= 1.
module xf_buf_ram #(
  // words of the array
  parameter int Words = 32,
  // bits per word
  parameter int DataBits = 34,
  // 1: read synchronously one cycle ahead (block RAM); 0: read asynchronously
  parameter bit SyncRead = 1'b0,
  // address width (derived; do not override)
  parameter int AddrBits = Words > 1 ? $clog2(Words) : 1
) (
  input  logic                clk_i,         // clock
  input  logic                rst_ni,        // asynchronous reset, active low (forward select)
  // write port
  input  logic                we_i,          // write wdata_i at waddr_i at this edge
  input  logic [AddrBits-1:0] waddr_i,       // word address
  input  logic [DataBits-1:0] wdata_i,       // data
  // read port
  input  logic [AddrBits-1:0] raddr_next_i,  // the read address of the next cycle (SyncRead)
  input  logic [AddrBits-1:0] raddr_i,       // the read address of this cycle
  output logic [DataBits-1:0] rdata_o        // mem[raddr_i] now
);

  `include "xf_assert.svh"

  `ASSERT_INIT(WordsLegal_A, Words >= 1)
  `ASSERT_INIT(DataBitsLegal_A, DataBits >= 1)

  // Storage, not logic: left out of toggle coverage (make coverage counts every bit of it).
  logic [DataBits-1:0] mem_q [Words];  // coverage: storage

  if (SyncRead) begin : gen_sync
    logic [DataBits-1:0] ram_q;    // the RAM's read register: mem[raddr_next_i], read-first
    logic [DataBits-1:0] wdata_q;  // the word written at the last edge
    logic                fwd_q;    // ... to the word read at it: rdata_o is wdata_q

    // The array and its read register in one process, so that the read sees the word before
    // the write of the same edge (read-first), as every block RAM can.
    always_ff @(posedge clk_i) begin
      if (we_i) mem_q[waddr_i] <= wdata_i;
      ram_q <= mem_q[raddr_next_i];
    end

    always_ff @(posedge clk_i) begin
      wdata_q <= wdata_i;
    end

    always_ff @(posedge clk_i or negedge rst_ni) begin
      if (!rst_ni) begin
        fwd_q <= 1'b0;
      end else begin
        fwd_q <= we_i && waddr_i == raddr_next_i;
      end
    end

    assign rdata_o = fwd_q ? wdata_q : ram_q;

`ifndef SYNTHESIS
    // The contract: raddr_i is the register whose D input is raddr_next_i.
    logic [AddrBits-1:0] raddr_past_q;
    logic                past_ok_q;

    always_ff @(posedge clk_i or negedge rst_ni) begin
      if (!rst_ni) begin
        raddr_past_q <= '0;
        past_ok_q <= 1'b0;
      end else begin
        raddr_past_q <= raddr_next_i;
        past_ok_q <= 1'b1;
      end
    end

    `ASSERT(LookaheadAddr_A, !past_ok_q || raddr_i == raddr_past_q)
`endif
  end else begin : gen_async
    always_ff @(posedge clk_i) begin
      if (we_i) mem_q[waddr_i] <= wdata_i;
    end

    assign rdata_o = mem_q[raddr_i];

    logic unused_raddr_next;
    assign unused_raddr_next = ^raddr_next_i;
  end

  `ASSERT(WriteAddrInRange_A, !we_i || int'(waddr_i) < Words)

endmodule
