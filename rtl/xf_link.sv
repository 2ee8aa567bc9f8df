// One endpoint of a chip-to-chip link, both directions of one port (docs/exchange.md section 8,
// docs/packets.md section 9; model: `Channel`, `Node::credits_`, `Node::pop` in model/chip.*).
// The transmitter sends one flit per cycle onto the PHY while it holds a credit; the receiver
// buffers arriving flits in a RxBufferFlits-deep first-in first-out buffer and returns one credit
// to the far end for every flit the exchange takes from it (credit on pop, as the model does).
// Every packet carries a CRC-32 in a sideband of its tail word; the receiver checks it.
//
//              this link                                       far link
//   tx_flit_i -> [credit?] -> phy_tx_q ==wire (5)==> rx_in_q -> buffer -> rx_flit_o
//                 ^ credits_q                                     |
//                 +-- credit_in_q <==wire (5)== phy_tx_credit_q <-+- pop (rx_ready_i)
//
// Streams (valid/ready, STYLE.md rule 6), flits packed {head, tail, data[127:0]}:
//   tx_*  exchange -> link: a flit is accepted in a cycle with tx_valid_i && tx_ready_o.
//         tx_ready_o = (credits_q != 0), a register: it does not depend on tx_valid_i.
//   rx_*  link -> exchange: rx_valid_o = buffer not empty, rx_flit_o = buffer front, both from
//         registers; the exchange takes the flit in a cycle with rx_valid_o && rx_ready_i.
// Combinational paths: none. Every output is a register or a mux of registers (rx_flit_o: the
// buffer entry selected by the read pointer).
//
// PHY word (between two xf_link instances; both directions are the same):
//   phy_*_valid    a flit is on the wire this cycle
//   phy_*_flit     the flit {head, tail, data}; meaningful only with valid
//   phy_*_crc      with valid: ~(running CRC) of the packet's data up to and including this
//                  flit; the receiver checks it only on the tail flit, where it is the packet's
//                  CRC-32 (a sideband: a packet costs no extra cycle, the link keeps one flit per
//                  cycle, as the model's timing needs)
//   phy_*_credit   one credit returned to the far transmitter; independent of valid (a word may
//                  carry only a credit), so credits take no flit slot (docs/packets.md section 9)
//
// Framing and CRC: head and tail bits frame packets (a header-only packet has both). The CRC is
// CRC-32 as zlib's crc32() computes it (IEEE 802.3 polynomial 0x04C11DB7, reflected, initial and
// final value all ones; the CRC Ethernet's FCS and PCI Express's LCRC use; rtl/xf_crc32.sv) over
// the 128-bit data of the packet's flits in order, header included, each flit byte 0 first. The
// receiver restarts its CRC at every head flit and compares at every tail flit. On a mismatch it
// sets the sticky stat_crc_err_o, counts stat_crc_errors_o (saturating) and still delivers the
// packet: detection only. The link reliability layer (sequence numbers, acknowledgements, replay;
// docs/packets.md sections 4 and 9) is planned and will act on the error. Not covered by the CRC:
// the head, tail and valid bits and the credit bit; a flip there breaks framing or the credit
// count, which that layer must also protect.
//
// Latency, cycle by cycle (RegCycles = 3 register stages of this module on each path, plus the
// PHY wire of PhyWireDelayCycles; with PhyWireDelayCycles = LinkLatencyCycles - 3 = 5 the total
// is LinkLatencyCycles = 8 on both paths, the model's `Channel` latencies):
//
//   flit path, accepted in cycle t            credit path, flit popped in cycle s
//   t    tx_valid_i && tx_ready_o; credit     s    far rx_valid_o && rx_ready_i
//        spent, CRC updated
//   t+1  phy_tx_*_o (output register)   [1]   s+1  far phy_tx_credit_o (output register) [1]
//   t+6  far phy_rx_*_i (after 5 wire cycles) s+6  phy_rx_credit_i (after 5 wire cycles)
//   t+7  far rx_in_q (input register),    [2] s+7  credit_in_q (input register)         [2]
//        CRC checked on a tail
//   t+8  far buffer: rx_valid_o, rx_flit_o [3] s+8  credits_q incremented: the credit pays [3]
//        (the exchange may take it in t+8),             for a flit accepted in s+8
//        stat_rx_packets_o and the CRC stats
//        count a tail
//
//   clk            _/~\_/~\_/~\_/~\_/~\_/~\_/~\_/~\_/~\_/~\_
//   cycle            t    t+1  ...  t+6  t+7  t+8  t+9
//   tx_valid_i     _/~~~~\_______________________________    (tx_ready_o high)
//   phy_tx_valid_o ______/~~~~\__________________________
//   far phy_rx_*   _____________________/~~~~\___________
//   far rx_valid_o _______________________________/~~~~\_    (taken in t+8: credit back in t+16)
//
// Credit loop, why RxBufferFlits = 32 sustains one flit per cycle: a credit spent in cycle t is
// back in credits_q at the earliest in t + 16 = 2 x (RegCycles + PhyWireDelayCycles) = 2 x
// LinkLatencyCycles (flit path 8, the far exchange takes the flit in its arrival cycle, credit
// path 8). A transmitter sending every cycle therefore has at most CreditLoopCycles = 16 credits
// outstanding; the credit of the flit sent in t pays for the flit sent in t + 16, and the count
// after each cycle's send settles at 32 - 16 = 16 (the model's trace in docs/exchange.md section
// 8); credits_q (stat_tx_credits_o), read before the cycle's send, settles at 17.
// Margin: 32 - 16 = 16 credits, so an exchange that registers its pop (17-cycle loop) or a PHY
// up to 8 cycles longer each way still runs at one flit per cycle. ASSERT_INIT below requires
// RxBufferFlits >= CreditLoopCycles.
//
// Receive buffer never overflows: every credit is always in exactly one of these places:
// credits_q; a flit on the way (this phy_tx register, the wire, the far rx_in_q); a flit in the
// far buffer; a credit on the way back (the far phy_tx_credit register, the wire, credit_in_q).
// Each event moves one credit to the next place, so their sum stays at the reset value
// RxBufferFlits. Hence the buffer holds at most RxBufferFlits flits, and when it is full no flit
// can be on the way, so a write into a full buffer cannot happen (RxBufferNoOverflow_A). This
// needs: RxBufferFlits equal on both ends (this end's credits start at the far buffer's depth;
// a parameter that must agree on both ends), both ends leaving reset in the same cycle (or at
// least before the first word arrives), and a wire that neither drops nor invents valid or
// credit bits.
//
// Reset (asynchronous, active low): credits_q = RxBufferFlits, buffer empty, statistics zero,
// PHY outputs idle. The buffer's storage is not reset (its entries are read only when written).
//
// Parameter constraints: RxBufferFlits >= 2 x (3 + PhyWireDelayCycles) (the credit loop above;
// 16 with the default wire), equal on both ends; PhyWireDelayCycles >= 0 and equal to the
// actual wire delay (it only sizes the check; the model's timing needs LinkLatencyCycles - 3).
module xf_link #(
  // depth of the receive buffer in flits; also the initial credits, so the far end's buffer
  // must have the same depth. >= 2 x (3 + PhyWireDelayCycles) for one flit per cycle
  parameter int RxBufferFlits = xf_defs_pkg::LinkRxBufferFlits,
  // cycles of the PHY wire between a phy_tx_*_o and the far phy_rx_*_i, each direction; >= 0.
  // Used only by the credit-loop check; LinkLatencyCycles - 3 = 5 matches the model
  parameter int PhyWireDelayCycles = xf_defs_pkg::LinkLatencyCycles - 3
) (
  input  logic                               clk_i,              // clock
  input  logic                               rst_ni,             // asynchronous reset, active low
  // transmit stream from the exchange
  input  logic                               tx_valid_i,         // a flit is offered
  output logic                               tx_ready_o,         // a credit is held (register)
  input  logic [129:0]                       tx_flit_i,          // {head, tail, data}
  // receive stream to the exchange
  output logic                               rx_valid_o,         // the buffer holds a flit
  input  logic                               rx_ready_i,         // the exchange takes the flit
  output logic [129:0]                       rx_flit_o,          // the buffer's front flit
  // PHY, outgoing word
  output logic                               phy_tx_valid_o,     // a flit is on the wire
  output logic [129:0]                       phy_tx_flit_o,      // the flit, with valid
  output logic [31:0]                        phy_tx_crc_o,       // the packet's CRC, with a tail
  output logic                               phy_tx_credit_o,    // one credit to the far end
  // PHY, incoming word (the far link's phy_tx_*_o after the wire)
  input  logic                               phy_rx_valid_i,     // a flit is on the wire
  input  logic [129:0]                       phy_rx_flit_i,      // the flit, with valid
  input  logic [31:0]                        phy_rx_crc_i,       // the packet's CRC, with a tail
  input  logic                               phy_rx_credit_i,    // one credit from the far end
  // statistics (registers)
  output logic                               stat_crc_err_o,     // sticky: a CRC mismatch seen
  output logic [15:0]                        stat_crc_errors_o,  // packets with a CRC mismatch,
                                                                 // saturating at 0xFFFF
  output logic [31:0]                        stat_tx_packets_o,  // tail flits sent (wraps)
  output logic [31:0]                        stat_rx_packets_o,  // tail flits received (wraps)
  output logic [$clog2(RxBufferFlits+1)-1:0] stat_tx_credits_o,  // credits held now
  output logic [$clog2(RxBufferFlits+1)-1:0] stat_rx_level_o     // flits in the receive buffer
);

  `include "xf_assert.svh"

  // Register stages of this module on the flit path and on the credit path (see the budget).
  localparam int RegCycles = 3;
  // Cycles a credit is away: flit path plus credit path.
  localparam int CreditLoopCycles = 2 * (RegCycles + PhyWireDelayCycles);
  localparam int CountBits = $clog2(RxBufferFlits + 1);
  localparam int PtrBits = (RxBufferFlits > 1) ? $clog2(RxBufferFlits) : 1;
  localparam logic [CountBits-1:0] RxBufferCount = CountBits'(RxBufferFlits);
  localparam logic [CountBits-1:0] CountOne = CountBits'(1);
  localparam logic [PtrBits-1:0] PtrOne = PtrBits'(1);
  localparam logic [PtrBits-1:0] PtrLast = PtrBits'(RxBufferFlits - 1);
  localparam logic [31:0] CrcInit = 32'hFFFF_FFFF;
  localparam int Head = 129;  // flit bit: first flit of a packet
  localparam int Tail = 128;  // flit bit: last flit of a packet

  `ASSERT_INIT(PhyWireDelayLegal_A, PhyWireDelayCycles >= 0)
  `ASSERT_INIT(RxBufferSustainsRate_A, RxBufferFlits >= CreditLoopCycles)
  `ASSERT_INIT(FlitBitsLegal_A, xf_defs_pkg::FlitBits == 128)

  // ---- Transmitter ---------------------------------------------------------------------------
  logic [CountBits-1:0] credits_d, credits_q;
  logic                 credit_in_d, credit_in_q;
  logic [31:0]          tx_crc_d, tx_crc_q;     // running CRC register of the packet being sent
  logic [31:0]          tx_crc_seed, tx_crc_next;
  logic                 tx_in_pkt_d, tx_in_pkt_q;  // inside a packet (head sent, tail not yet)
  logic                 phy_tx_valid_d, phy_tx_valid_q;
  logic [129:0]         phy_tx_flit_d, phy_tx_flit_q;
  logic [31:0]          phy_tx_crc_d, phy_tx_crc_q;
  logic [31:0]          tx_packets_d, tx_packets_q;
  logic                 tx_fire;
  logic                 tx_head, tx_tail;

  assign tx_ready_o = (credits_q != '0);
  assign tx_fire = tx_valid_i && tx_ready_o;
  assign tx_head = tx_flit_i[Head];
  assign tx_tail = tx_flit_i[Tail];

  xf_crc32 #(
    .DataBits(128)
  ) u_tx_crc (
    .crc_i (tx_crc_seed),
    .data_i(tx_flit_i[127:0]),
    .crc_o (tx_crc_next)
  );

  always_comb begin
    tx_crc_seed = tx_head ? CrcInit : tx_crc_q;
    tx_crc_d = tx_crc_q;
    tx_in_pkt_d = tx_in_pkt_q;
    phy_tx_valid_d = tx_fire;
    phy_tx_flit_d = phy_tx_flit_q;
    phy_tx_crc_d = phy_tx_crc_q;
    tx_packets_d = tx_packets_q;
    if (tx_fire) begin
      tx_crc_d = tx_crc_next;
      tx_in_pkt_d = !tx_tail;
      phy_tx_flit_d = tx_flit_i;
      phy_tx_crc_d = ~tx_crc_next;
      if (tx_tail) tx_packets_d = tx_packets_q + 32'd1;
    end
    // A returning credit is collected in the cycle after it arrives; spending and collecting in
    // the same cycle cancel.
    credit_in_d = phy_rx_credit_i;
    credits_d = credits_q;
    if (tx_fire && !credit_in_q) begin
      credits_d = credits_q - CountOne;
    end else if (!tx_fire && credit_in_q) begin
      credits_d = credits_q + CountOne;
    end
  end

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      credits_q <= RxBufferCount;
      credit_in_q <= 1'b0;
      tx_crc_q <= CrcInit;
      tx_in_pkt_q <= 1'b0;
      phy_tx_valid_q <= 1'b0;
      phy_tx_flit_q <= '0;
      phy_tx_crc_q <= '0;
      tx_packets_q <= '0;
    end else begin
      credits_q <= credits_d;
      credit_in_q <= credit_in_d;
      tx_crc_q <= tx_crc_d;
      tx_in_pkt_q <= tx_in_pkt_d;
      phy_tx_valid_q <= phy_tx_valid_d;
      phy_tx_flit_q <= phy_tx_flit_d;
      phy_tx_crc_q <= phy_tx_crc_d;
      tx_packets_q <= tx_packets_d;
    end
  end

  assign phy_tx_valid_o = phy_tx_valid_q;
  assign phy_tx_flit_o = phy_tx_flit_q;
  assign phy_tx_crc_o = phy_tx_crc_q;
  assign stat_tx_packets_o = tx_packets_q;
  assign stat_tx_credits_o = credits_q;

  // ---- Receiver: input register and CRC check ------------------------------------------------
  logic         rx_in_valid_d, rx_in_valid_q;
  logic [129:0] rx_in_flit_d, rx_in_flit_q;
  logic [31:0]  rx_in_crc_d, rx_in_crc_q;
  logic [31:0]  rx_crc_d, rx_crc_q;  // running CRC register of the packet being received
  logic [31:0]  rx_crc_seed, rx_crc_next;
  logic         rx_crc_bad;
  logic         rx_in_head, rx_in_tail;
  logic         crc_err_d, crc_err_q;
  logic [15:0]  crc_errors_d, crc_errors_q;
  logic [31:0]  rx_packets_d, rx_packets_q;

  xf_crc32 #(
    .DataBits(128)
  ) u_rx_crc (
    .crc_i (rx_crc_seed),
    .data_i(rx_in_flit_q[127:0]),
    .crc_o (rx_crc_next)
  );

  assign rx_in_head = rx_in_flit_q[Head];
  assign rx_in_tail = rx_in_flit_q[Tail];

  always_comb begin
    rx_in_valid_d = phy_rx_valid_i;
    rx_in_flit_d = phy_rx_valid_i ? phy_rx_flit_i : rx_in_flit_q;
    rx_in_crc_d = phy_rx_valid_i ? phy_rx_crc_i : rx_in_crc_q;
    rx_crc_seed = rx_in_head ? CrcInit : rx_crc_q;
    rx_crc_d = rx_in_valid_q ? rx_crc_next : rx_crc_q;
    rx_crc_bad = rx_in_valid_q && rx_in_tail && (~rx_crc_next != rx_in_crc_q);
    crc_err_d = crc_err_q || rx_crc_bad;
    crc_errors_d = crc_errors_q;
    if (rx_crc_bad && crc_errors_q != 16'hFFFF) crc_errors_d = crc_errors_q + 16'd1;
    rx_packets_d = rx_packets_q;
    if (rx_in_valid_q && rx_in_tail) rx_packets_d = rx_packets_q + 32'd1;
  end

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      rx_in_valid_q <= 1'b0;
      rx_in_flit_q <= '0;
      rx_in_crc_q <= '0;
      rx_crc_q <= CrcInit;
      crc_err_q <= 1'b0;
      crc_errors_q <= '0;
      rx_packets_q <= '0;
    end else begin
      rx_in_valid_q <= rx_in_valid_d;
      rx_in_flit_q <= rx_in_flit_d;
      rx_in_crc_q <= rx_in_crc_d;
      rx_crc_q <= rx_crc_d;
      crc_err_q <= crc_err_d;
      crc_errors_q <= crc_errors_d;
      rx_packets_q <= rx_packets_d;
    end
  end

  assign stat_crc_err_o = crc_err_q;
  assign stat_crc_errors_o = crc_errors_q;
  assign stat_rx_packets_o = rx_packets_q;

  // ---- Receiver: buffer and credit return ----------------------------------------------------
  // Storage, entry i at bits [i*130 +: 130] (flat: Yosys 0.23 rejects packed 2-D arrays); not
  // reset, an entry is read only after it is written.
  logic [RxBufferFlits*130-1:0] buf_d, buf_q;
  logic [129:0]                 buf_front;
  logic [PtrBits-1:0]           wr_ptr_d, wr_ptr_q, rd_ptr_d, rd_ptr_q;
  logic [CountBits-1:0]         count_d, count_q;
  logic                         rx_push, rx_pop;
  logic                         phy_tx_credit_d, phy_tx_credit_q;

  assign rx_push = rx_in_valid_q;
  assign rx_pop = rx_valid_o && rx_ready_i;

  always_comb begin
    buf_d = buf_q;
    wr_ptr_d = wr_ptr_q;
    rd_ptr_d = rd_ptr_q;
    count_d = count_q;
    buf_front = '0;
    for (int i = 0; i < RxBufferFlits; i++) begin
      if (rx_push && wr_ptr_q == PtrBits'(i)) buf_d[i*130 +: 130] = rx_in_flit_q;
      if (rd_ptr_q == PtrBits'(i)) buf_front = buf_q[i*130 +: 130];
    end
    if (rx_push) begin
      wr_ptr_d = (wr_ptr_q == PtrLast) ? '0 : wr_ptr_q + PtrOne;
    end
    if (rx_pop) begin
      rd_ptr_d = (rd_ptr_q == PtrLast) ? '0 : rd_ptr_q + PtrOne;
    end
    if (rx_push && !rx_pop) begin
      count_d = count_q + CountOne;
    end else if (!rx_push && rx_pop) begin
      count_d = count_q - CountOne;
    end
    // Credit on pop: one credit per flit the exchange takes.
    phy_tx_credit_d = rx_pop;
  end

  always_ff @(posedge clk_i) begin
    buf_q <= buf_d;
  end

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      wr_ptr_q <= '0;
      rd_ptr_q <= '0;
      count_q <= '0;
      phy_tx_credit_q <= 1'b0;
    end else begin
      wr_ptr_q <= wr_ptr_d;
      rd_ptr_q <= rd_ptr_d;
      count_q <= count_d;
      phy_tx_credit_q <= phy_tx_credit_d;
    end
  end

  assign rx_valid_o = (count_q != '0);
  assign rx_flit_o = buf_front;
  assign phy_tx_credit_o = phy_tx_credit_q;
  assign stat_rx_level_o = count_q;

  // ---- Assertions ----------------------------------------------------------------------------
  // The receive buffer never overflows (the credit conservation argument in the header).
  `ASSERT(RxBufferNoOverflow_A, !(rx_push && count_q == RxBufferCount))
  `ASSERT(RxBufferLevelInRange_A, count_q <= RxBufferCount)
  // Credits stay in 0..RxBufferFlits: never spent below zero, never returned above the start.
  `ASSERT(CreditsInRange_A, credits_q <= RxBufferCount)
  `ASSERT(CreditNoUnderflow_A, !(tx_valid_i && tx_ready_o && credits_q == '0))
  `ASSERT(CreditNoOverflow_A, !(credit_in_q && !tx_fire && credits_q == RxBufferCount))
  // Valid/ready rules on the transmit input (the exchange's obligations) and the receive output.
  `ASSERT_KNOWN(TxValidKnown_A, tx_valid_i)
  `ASSERT_KNOWN(RxReadyKnown_A, rx_ready_i)
  `ASSERT_KNOWN(PhyRxValidKnown_A, phy_rx_valid_i)
  `ASSERT_KNOWN(PhyRxCreditKnown_A, phy_rx_credit_i)
  `ASSERT(TxValidHolds_A, !$past(tx_valid_i && !tx_ready_o) || tx_valid_i)
  `ASSERT_STABLE(TxFlitStable_A, tx_flit_i, tx_valid_i && !tx_ready_o)
  `ASSERT(RxValidHolds_A, !$past(rx_valid_o && !rx_ready_i) || rx_valid_o)
  `ASSERT_STABLE(RxFlitStable_A, rx_flit_o, rx_valid_o && !rx_ready_i)
  // The exchange hands over whole packets (wormhole): a head exactly when no packet is open.
  `ASSERT(TxFraming_A, !tx_fire || (tx_head == !tx_in_pkt_q))

endmodule
