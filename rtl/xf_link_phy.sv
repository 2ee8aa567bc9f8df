// One endpoint of a chip-to-chip link as the chips and switches use it: the retry layer
// (rtl/xf_link.sv) between two CRC-32 register stages on its PHY side (docs/reliability.md
// sections 1-2; docs/exchange.md "RTL: xf_link"):
//
//   xf_link phy_tx_*_o -> [CRC-32 of the word] -> out_q -> phy_tx_*_o ==wire==>
//   ==wire==> phy_rx_*_i -> in_q -> [CRC-32 of the word == its CRC?] -> xf_link phy_rx_*_i
//
// Each stage is a register of the whole link word: the transmit stage adds the CRC-32 that the
// far end checks, the receive stage holds the arriving word and compares its CRC, and xf_link's
// input register takes the word with the result (phy_rx_crc_ok_i). Both stages are part of the
// link's 8-cycle latency (LinkLatencyCycles = 3 register stages of xf_link, 2 here and
// PhyWireDelayCycles = 3 wire cycles, LinkRegCycles = 5), so the model's timing is the same as
// when xf_link computed the CRC before its own output register and checked it after its input
// register: on each path the CRC's XOR trees now end in a register instead of running on into
// the retry layer's sequence checks and the next word's control fields (docs/fpga.md section 9).
//
// Streams and PHY word: those of xf_link (its header); here phy_*_crc carries the CRC-32 of
// {ctl, 6'b0, head, tail, data}, whole bytes at every width (docs/reliability.md section 2).
// Combinational paths: none from an input to an output.
//
// Parameter constraints: those of xf_link with PhyWireDelayCycles + 2 for its wire: FlitBits 32,
// 64 or 128 and RxBufferFlits >= 2 x (LinkRegCycles + PhyWireDelayCycles), both equal on both
// ends; the others as xf_link.
module xf_link_phy #(
  // flit width of the machine: 32, 64 or 128 (docs/packets.md section 2)
  parameter int FlitBits = xf_defs_pkg::FlitBits,
  // depth of the receive buffer in flits; also the initial credits (equal on both ends)
  parameter int RxBufferFlits = xf_defs_pkg::LinkRxBufferFlits,
  // cycles of the PHY wire between a phy_tx_*_o and the far phy_rx_*_i, each direction; >= 0.
  // Used only by the credit-loop check; LinkLatencyCycles - LinkRegCycles = 3 matches the model
  parameter int PhyWireDelayCycles = xf_defs_pkg::LinkLatencyCycles - xf_defs_pkg::LinkRegCycles,
  // flits of the replay buffer; a power of two >= RxBufferFlits
  parameter int ReplayFlits = xf_defs_pkg::LinkReplayFlits,
  // cycles without ack progress before unacknowledged flits are replayed
  parameter int ReplayTimeoutCycles = xf_defs_pkg::LinkReplayTimeoutCycles,
  // replays in a row without progress that set stat_escalated_o
  parameter int EscalateReplays = xf_defs_pkg::LinkEscalateReplays,
  // the link's buffers: 1 read synchronously one cycle ahead (block RAM, iCE40), 0 asynchronously
  // (distributed RAM: ECP5, Xilinx); the same cycles either way (rtl/xf_buf_ram.sv)
  parameter bit SyncBuffers = 1'b0
) (
  input  logic                               clk_i,              // clock
  input  logic                               rst_ni,             // asynchronous reset, active low
  input  logic                               clr_i,              // clear stat_escalated_o
  // transmit stream from the exchange
  input  logic                               tx_valid_i,         // a flit is offered
  output logic                               tx_ready_o,         // credit held, not replaying
  input  logic [FlitBits+1:0]                tx_flit_i,          // {head, tail, data}
  // receive stream to the exchange
  output logic                               rx_valid_o,         // the buffer holds a flit
  input  logic                               rx_ready_i,         // the exchange takes the flit
  output logic [FlitBits+1:0]                rx_flit_o,          // the buffer's front flit
  // PHY, outgoing word
  output logic                               phy_tx_valid_o,     // a word is present
  output logic [FlitBits+1:0]                phy_tx_flit_o,      // the flit, with ctl fv
  output logic [31:0]                        phy_tx_ctl_o,       // seq, ack, credits, naks, fv
  output logic [31:0]                        phy_tx_crc_o,       // CRC-32 of flit and ctl
  // PHY, incoming word (the far link's phy_tx_*_o after the wire)
  input  logic                               phy_rx_valid_i,     // a word is present
  input  logic [FlitBits+1:0]                phy_rx_flit_i,      // the flit, with ctl fv
  input  logic [31:0]                        phy_rx_ctl_i,       // seq, ack, credits, naks, fv
  input  logic [31:0]                        phy_rx_crc_i,       // CRC-32 of flit and ctl
  // statistics: xf_link's (registers; the 16-bit counts saturate at 0xFFFF)
  output logic [15:0]                        stat_crc_errors_o,  // words with a CRC mismatch
  output logic [15:0]                        stat_discards_o,    // good flits out of sequence
  output logic [15:0]                        stat_timeouts_o,    // replay timer expiries
  output logic [15:0]                        stat_replays_o,     // replays started
  output logic [3:0]                         stat_run_o,         // replays in a row now
  output logic                               stat_escalated_o,   // sticky until clr_i
  output logic [31:0]                        stat_tx_packets_o,  // new tail flits sent (wraps)
  output logic [31:0]                        stat_rx_packets_o,  // tail flits accepted (wraps)
  output logic [$clog2(RxBufferFlits+1)-1:0] stat_tx_credits_o,  // credits held now
  output logic [$clog2(RxBufferFlits+1)-1:0] stat_rx_level_o     // flits in the receive buffer
);

  `include "xf_assert.svh"
  `include "xf_types.svh"

  // Register stages of this module on each path (the transmit stage and the receive stage).
  localparam int StageCycles = 2;
  localparam int FlitW = FlitTypeBits;  // {head, tail, data}: flit_t
  // The CRC's input: {ctl, 6'b0, head, tail, data}, whole bytes at every width (168 bits at 128)
  localparam int CrcBits = 32 + 6 + FlitW;
  // Its six pad bits, always 0 (left out of the CRC's XOR trees); on transmit also the ctl's
  // reserved bits 31:29, which xf_link's link_ctl_pack leaves 0 (the receiver checks them: a
  // corrupted word may have them set).
  localparam logic [CrcBits-1:0] CrcPadBits = CrcBits'(6'h3F) << FlitW;
  localparam logic [CrcBits-1:0] CrcTxZeroBits = CrcPadBits | (CrcBits'(3'h7) << (CrcBits - 3));

  `ASSERT_INIT(StagesInBudget_A, StageCycles == xf_defs_pkg::LinkRegCycles - 3)

  // ---- The retry layer -------------------------------------------------------------------------
  logic             core_tx_valid, core_rx_valid, core_rx_crc_ok;
  logic [FlitW-1:0] core_tx_flit, core_rx_flit;
  logic [31:0]      core_tx_ctl, core_rx_ctl;

  xf_link #(
    .FlitBits           (FlitBits),
    .RxBufferFlits      (RxBufferFlits),
    .PhyWireDelayCycles (PhyWireDelayCycles + StageCycles),
    .ReplayFlits        (ReplayFlits),
    .ReplayTimeoutCycles(ReplayTimeoutCycles),
    .EscalateReplays    (EscalateReplays),
    .SyncBuffers        (SyncBuffers)
  ) u_link (
    .clk_i            (clk_i),
    .rst_ni           (rst_ni),
    .clr_i            (clr_i),
    .tx_valid_i       (tx_valid_i),
    .tx_ready_o       (tx_ready_o),
    .tx_flit_i        (tx_flit_i),
    .rx_valid_o       (rx_valid_o),
    .rx_ready_i       (rx_ready_i),
    .rx_flit_o        (rx_flit_o),
    .phy_tx_valid_o   (core_tx_valid),
    .phy_tx_flit_o    (core_tx_flit),
    .phy_tx_ctl_o     (core_tx_ctl),
    .phy_rx_valid_i   (core_rx_valid),
    .phy_rx_flit_i    (core_rx_flit),
    .phy_rx_ctl_i     (core_rx_ctl),
    .phy_rx_crc_ok_i  (core_rx_crc_ok),
    .stat_crc_errors_o(stat_crc_errors_o),
    .stat_discards_o  (stat_discards_o),
    .stat_timeouts_o  (stat_timeouts_o),
    .stat_replays_o   (stat_replays_o),
    .stat_run_o       (stat_run_o),
    .stat_escalated_o (stat_escalated_o),
    .stat_tx_packets_o(stat_tx_packets_o),
    .stat_rx_packets_o(stat_rx_packets_o),
    .stat_tx_credits_o(stat_tx_credits_o),
    .stat_rx_level_o  (stat_rx_level_o)
  );

  // ---- Transmit stage: the word with its CRC -----------------------------------------------------
  logic [CrcBits-1:0] tx_crc_data;  // the CRC's input: {ctl, 6'b0, flit}
  logic [31:0]        tx_crc_raw;
  logic               out_valid_q;
  logic [FlitW-1:0]   out_flit_q;
  logic [31:0]        out_ctl_q, out_crc_q;

  assign tx_crc_data = {core_tx_ctl, 6'd0, core_tx_flit};

  xf_crc32 #(
    .DataBits(CrcBits),
    .InitCrc (32'hFFFF_FFFF),
    .ZeroBits(CrcTxZeroBits)
  ) u_tx_crc (
    .data_i(tx_crc_data),
    .crc_o (tx_crc_raw)
  );
  `ASSERT(TxCrcZeroBits_A, (tx_crc_data & CrcTxZeroBits) == '0)

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      out_valid_q <= 1'b0;
      out_flit_q <= '0;
      out_ctl_q <= '0;
      out_crc_q <= '0;
    end else begin
      out_valid_q <= core_tx_valid;
      out_flit_q <= core_tx_flit;
      out_ctl_q <= core_tx_ctl;
      out_crc_q <= ~tx_crc_raw;
    end
  end

  assign phy_tx_valid_o = out_valid_q;
  assign phy_tx_flit_o = out_flit_q;
  assign phy_tx_ctl_o = out_ctl_q;
  assign phy_tx_crc_o = out_crc_q;

  // ---- Receive stage: the arriving word and its CRC check ----------------------------------------
  // The word is held while no word arrives (xf_link ignores the cycle: valid low).
  logic             in_valid_q;
  logic [FlitW-1:0] in_flit_q;
  logic [31:0]      in_ctl_q, in_crc_q, rx_crc_raw;

  xf_crc32 #(
    .DataBits(CrcBits),
    .InitCrc (32'hFFFF_FFFF),
    .ZeroBits(CrcPadBits)
  ) u_rx_crc (
    .data_i({in_ctl_q, 6'd0, in_flit_q}),
    .crc_o (rx_crc_raw)
  );

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      in_valid_q <= 1'b0;
      in_flit_q <= '0;
      in_ctl_q <= '0;
      in_crc_q <= '0;
    end else begin
      in_valid_q <= phy_rx_valid_i;
      if (phy_rx_valid_i) begin
        in_flit_q <= phy_rx_flit_i;
        in_ctl_q <= phy_rx_ctl_i;
        in_crc_q <= phy_rx_crc_i;
      end
    end
  end

  assign core_rx_valid = in_valid_q;
  assign core_rx_flit = in_flit_q;
  assign core_rx_ctl = in_ctl_q;
  assign core_rx_crc_ok = ~rx_crc_raw == in_crc_q;

endmodule
