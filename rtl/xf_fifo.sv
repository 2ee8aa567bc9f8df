// Generic synchronous FIFO with push/pop strobes, an occupancy count and an optional
// fall-through path (an entry pushed into an empty FIFO is visible on pop_data_o in the same
// cycle and may be popped in that cycle).
//
// Protocol: push_i writes push_data_i at the rising edge; pop_i removes the entry shown on
// pop_data_o at the rising edge. The user must not push when full_o is high unless it pops in
// the same cycle (a full FIFO that pops frees the slot the push fills), and must not pop when
// empty_o is high unless FallThrough = 1 and it pushes in the same cycle (the pushed entry then
// passes straight through and the count is unchanged). Both are asserted (Overflow_A,
// Underflow_A); an illegal push is ignored (the entry is lost) and an illegal pop is ignored.
//
// Combinational paths: with FallThrough = 1, empty_o and pop_data_o depend on push_i and
// push_data_i while the FIFO holds no entry. full_o and count_o are registers. No output
// depends on pop_i.
//
// Storage: DepthEntries words of DataBits in an array written with an enable and not reset
// (only the pointers and the count are reset), as usual for a register file or RAM: an
// xf_buf_ram, read asynchronously at rd_ptr_q or, with SyncRead = 1, synchronously one cycle
// ahead at rd_ptr_d so that block RAM can hold it; the FIFO's behaviour is the same cycle for
// cycle (docs/fpga.md section 10).
//
// Parameter constraints: DataBits >= 1, DepthEntries >= 1.
module xf_fifo #(
  // bits per entry
  parameter int DataBits = 8,
  // entries the FIFO can hold
  parameter int DepthEntries = 4,
  // 1: a push into an empty FIFO can be popped in the same cycle; 0: entries appear next cycle
  parameter bit FallThrough = 1'b0,
  // 1: the storage is read synchronously one cycle ahead (block RAM); 0: read asynchronously
  parameter bit SyncRead = 1'b0,
  // count width (derived; do not override)
  parameter int CountBits = $clog2(DepthEntries + 1)
) (
  input  logic                clk_i,        // clock
  input  logic                rst_ni,       // asynchronous reset, active low: empties the FIFO
  // write side
  input  logic                push_i,       // write push_data_i at this edge
  input  logic [DataBits-1:0] push_data_i,  // entry to write
  output logic                full_o,       // DepthEntries entries held (registered)
  // read side
  input  logic                pop_i,        // remove the entry on pop_data_o at this edge
  output logic [DataBits-1:0] pop_data_o,   // oldest entry (or push_data_i, see FallThrough)
  output logic                empty_o,      // nothing to pop (see FallThrough)
  // status
  output logic [CountBits-1:0] count_o      // entries held (registered)
);

  `include "xf_assert.svh"

  `ASSERT_INIT(DataBitsLegal_A, DataBits >= 1)
  `ASSERT_INIT(DepthEntriesLegal_A, DepthEntries >= 1)
  `ASSERT_INIT(CountBitsLegal_A, CountBits == $clog2(DepthEntries + 1))

  localparam int PtrBits = DepthEntries > 1 ? $clog2(DepthEntries) : 1;
  localparam logic [PtrBits-1:0] LastPtr = PtrBits'(DepthEntries - 1);
  localparam logic [CountBits-1:0] DepthCount = CountBits'(DepthEntries);

  logic [DataBits-1:0]  front;          // the stored entry at rd_ptr_q
  logic [PtrBits-1:0]   rd_ptr_d, rd_ptr_q, wr_ptr_d, wr_ptr_q;
  logic [CountBits-1:0] count_d, count_q;
  logic                 stored_empty;  // no entry in the storage
  logic                 bypass;        // fall-through: a push into an empty FIFO is popped now
  logic                 do_push, do_pop;

  assign stored_empty = count_q == '0;
  assign full_o = count_q == DepthCount;
  assign count_o = count_q;
  assign bypass = FallThrough && stored_empty && push_i && pop_i;

  if (FallThrough) begin : gen_fall_through
    assign empty_o = stored_empty && !push_i;
    assign pop_data_o = stored_empty ? push_data_i : front;
  end else begin : gen_registered
    assign empty_o = stored_empty;
    assign pop_data_o = front;
  end

  always_comb begin
    // Legal operations only: an illegal push or pop is dropped (and asserted below).
    do_pop = pop_i && !stored_empty;
    do_push = push_i && !bypass && (!full_o || do_pop);
    rd_ptr_d = rd_ptr_q;
    wr_ptr_d = wr_ptr_q;
    count_d = count_q;
    if (do_pop) begin
      rd_ptr_d = rd_ptr_q == LastPtr ? '0 : rd_ptr_q + 1'b1;
    end
    if (do_push) begin
      wr_ptr_d = wr_ptr_q == LastPtr ? '0 : wr_ptr_q + 1'b1;
    end
    if (do_push && !do_pop) begin
      count_d = count_q + 1'b1;
    end else if (do_pop && !do_push) begin
      count_d = count_q - 1'b1;
    end
  end

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      rd_ptr_q <= '0;
      wr_ptr_q <= '0;
      count_q <= '0;
    end else begin
      rd_ptr_q <= rd_ptr_d;
      wr_ptr_q <= wr_ptr_d;
      count_q <= count_d;
    end
  end

  // Storage: written with an enable, no reset (see the header).
  xf_buf_ram #(
    .Words   (DepthEntries),
    .DataBits(DataBits),
    .SyncRead(SyncRead),
    .AddrBits(PtrBits)
  ) u_mem (
    .clk_i       (clk_i),
    .rst_ni      (rst_ni),
    .we_i        (do_push),
    .waddr_i     (wr_ptr_q),
    .wdata_i     (push_data_i),
    .raddr_next_i(rd_ptr_d),
    .raddr_i     (rd_ptr_q),
    .rdata_o     (front)
  );

  `ASSERT(Overflow_A, !(push_i && full_o && !pop_i))
  `ASSERT(Underflow_A, !(pop_i && stored_empty && !(FallThrough && push_i)))
  `ASSERT(CountInRange_A, int'(count_q) <= DepthEntries)

endmodule
