// Adversarial PHY wire for the link proof (formal/xf_link_formal.sv; docs/formal.md part 2): one
// direction of a link, from a transmitter's phy_tx_*_o to the far receiver's phy_rx_*_i. Formal
// only: read with `read_verilog -formal`; in no RTL file list.
//
// Model: a lossy first-in first-out queue of up to WireSlots words, every choice an $anyseq
// signal (no assumptions here). Each cycle:
//   - the word the transmitter offers is kept or lost (take_i low, or no room): a drop;
//   - the oldest word (a queued one, or with an empty queue the word offered in this same cycle)
//     is delivered or held (pop): any latency from 0 to WireSlots cycles between words, stalls,
//     slips and a link held down, in order, never duplicated;
//   - a delivered word is passed as sent, or corrupted (corrupt): replaced by an arbitrary word
//     (flit, ctl and crc all free). Whether a corrupted word passes the receiver's CRC check is
//     decided by the harness (it assumes it does not: the 2^-32 escape is out of scope);
//   - in a cycle with nothing delivered, valid is low and flit, ctl and crc are arbitrary.
// So the receiver sees any in-order subsequence of the sent words, each intact or corrupted,
// with any timing that keeps at most WireSlots words waiting. A fixed delay of up to WireSlots
// cycles with drops (the PHY of docs/reliability.md section 7) is one of its behaviours.
//
// Every word carries GhostBits of harness bookkeeping beside it (ghost_i, never seen by a link);
// the queue's contents are outputs so that the harness can state invariants over them.
//
// Parameter constraints: WireSlots >= 1; GhostBits >= 1.
module xf_link_formal_wire #(
  // words the wire can hold (in flight, waiting to be delivered)
  parameter int WireSlots = 2,
  // harness bits carried with each word
  parameter int GhostBits = 1
) (
  input  logic                           clk_i,          // clock
  input  logic                           rst_ni,         // asynchronous reset, active low
  // from the transmitter
  input  logic                           in_valid_i,     // a word is offered
  input  logic [129:0]                   in_flit_i,      // its flit
  input  logic [31:0]                    in_ctl_i,       // its ctl field
  input  logic [31:0]                    in_crc_i,       // its CRC field
  input  logic [GhostBits-1:0]           in_ghost_i,     // harness bits for it
  // to the receiver
  output logic                           out_valid_o,    // a word is delivered
  output logic [129:0]                   out_flit_o,     // its flit (arbitrary if corrupted)
  output logic [31:0]                    out_ctl_o,      // its ctl field (ditto)
  output logic [31:0]                    out_crc_o,      // its CRC field (ditto)
  output logic                           out_corrupt_o,  // the delivered word is corrupted
  output logic [GhostBits-1:0]           out_ghost_o,    // harness bits of the word as sent
  output logic [31:0]                    out_sent_ctl_o, // ctl of the word as sent
  output logic                           lost_o,         // an offered word is lost this cycle
  output logic                           lost_flit_o,    // ... and it carried a flit (ctl fv)
  // the queue, oldest first, for the harness's invariants
  output logic [$clog2(WireSlots+1)-1:0] count_o,        // words waiting
  output logic [WireSlots*194-1:0]       slot_word_o,    // slot i: {crc, ctl, flit} at i*194
  output logic [WireSlots*GhostBits-1:0] slot_ghost_o    // slot i: ghost at i*GhostBits
);

  localparam int WordBits = 194;  // {crc, ctl, flit}
  localparam int CountBits = $clog2(WireSlots + 1);
  localparam int Fv = 28;         // ctl bit: the word carries a flit

  // ---- Free choices -------------------------------------------------------------------------
  logic                take, pop, corrupt;
  logic [WordBits-1:0] garbage;
  assign take = $anyseq;
  assign pop = $anyseq;
  assign corrupt = $anyseq;
  assign garbage = $anyseq;

  // ---- The queue ----------------------------------------------------------------------------
  logic [WireSlots*WordBits-1:0]  words_d, words_q;
  logic [WireSlots*GhostBits-1:0] ghosts_d, ghosts_q;
  logic [CountBits-1:0]           count_d, count_q;
  logic [WordBits-1:0]            in_word, head_word;
  logic [GhostBits-1:0]           head_ghost;
  logic                           keep, deliver;

  assign in_word = {in_crc_i, in_ctl_i, in_flit_i};

  always_comb begin
    // The offered word joins the queue if the wire takes it and there is room (with the oldest
    // word leaving in this cycle, or a free slot).
    deliver = pop && (count_q != '0 || (in_valid_i && take));
    keep = in_valid_i && take && (count_q != CountBits'(WireSlots) || deliver);
    head_word = count_q != '0 ? words_q[WordBits-1:0] : in_word;
    head_ghost = count_q != '0 ? ghosts_q[GhostBits-1:0] : in_ghost_i;
    // Queue after this cycle: drop the head if delivered, append the offered word if kept.
    words_d = words_q;
    ghosts_d = ghosts_q;
    count_d = count_q;
    if (deliver && count_q != '0) begin
      words_d = WireSlots > 1 ? words_q >> WordBits : '0;
      ghosts_d = WireSlots > 1 ? ghosts_q >> GhostBits : '0;
      count_d = count_q - CountBits'(1);
    end
    if (keep && !(deliver && count_q == '0)) begin
      for (int i = 0; i < WireSlots; i++) begin
        if (count_d == CountBits'(i)) begin
          words_d[i*WordBits +: WordBits] = in_word;
          ghosts_d[i*GhostBits +: GhostBits] = in_ghost_i;
        end
      end
      count_d = count_d + CountBits'(1);
    end
  end

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      count_q <= '0;
      words_q <= '0;
      ghosts_q <= '0;
    end else begin
      count_q <= count_d;
      words_q <= words_d;
      ghosts_q <= ghosts_d;
    end
  end

  assign out_valid_o = deliver;
  assign {out_crc_o, out_ctl_o, out_flit_o} = (deliver && !corrupt) ? head_word : garbage;
  assign out_corrupt_o = deliver && corrupt;
  assign out_ghost_o = head_ghost;
  assign out_sent_ctl_o = head_word[161:130];
  assign lost_o = in_valid_i && !keep;
  assign lost_flit_o = lost_o && in_ctl_i[Fv];
  assign count_o = count_q;
  assign slot_word_o = words_q;
  assign slot_ghost_o = ghosts_q;

endmodule
