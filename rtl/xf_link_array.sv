// The link ports of a node: NumLinks xf_link_phy endpoints with their streams and PHY words
// flattened (link l at bits [l*W +: W]), shared by the chip top and the switch node
// (docs/chip.md). The retry statistics leave the array as the host-visible registers
// LinkCrcErrors, LinkStatus and LinkDiscards (docs/errors.md); the other link statistics are
// visible in simulation inside each xf_link_phy.
//
// Combinational paths: those of xf_link_phy (none from inputs to outputs).
//
// Parameter constraints: FlitBits 32, 64 or 128; NumLinks >= 1; RxBufferFlits and
// PhyWireDelayCycles as rtl/xf_link_phy.sv requires; FlitBits and RxBufferFlits equal on both
// ends of every link.
module xf_link_array #(
  // flit width of the machine: 32, 64 or 128 (docs/packets.md section 2)
  parameter int FlitBits = xf_defs_pkg::FlitBits,
  // link endpoints; >= 1
  parameter int NumLinks = 4,
  // receive buffer (and initial credits) of every link
  parameter int RxBufferFlits = xf_defs_pkg::LinkRxBufferFlits,
  // PHY wire delay each way, cycles (sizes the credit-loop check only)
  parameter int PhyWireDelayCycles = xf_defs_pkg::LinkLatencyCycles - xf_defs_pkg::LinkRegCycles,
  // the links' buffers: 1 read synchronously one cycle ahead (block RAM, iCE40), 0 asynchronously
  // (distributed RAM: ECP5, Xilinx); the same cycles either way (rtl/xf_buf_ram.sv)
  parameter bit SyncBuffers = 1'b0
) (
  input  logic                    clk_i,              // clock
  input  logic                    rst_ni,             // asynchronous reset, active low
  input  logic                    clr_i,              // clear the sticky escalation bits
  // transmit streams from the exchange (router outputs)
  input  logic [NumLinks-1:0]     tx_valid_i,         // link l: a flit is offered
  output logic [NumLinks-1:0]     tx_ready_o,         // link l holds a credit, not replaying
  input  logic [NumLinks*(FlitBits+2)-1:0] tx_flit_i,  // {head, tail, data}
  // receive streams to the exchange (router inputs)
  output logic [NumLinks-1:0]     rx_valid_o,         // link l's buffer holds a flit
  input  logic [NumLinks-1:0]     rx_ready_i,         // the exchange takes it
  output logic [NumLinks*(FlitBits+2)-1:0] rx_flit_o,  // the buffer's front flit
  // PHY words (docs/reliability.md section 1)
  output logic [NumLinks-1:0]     phy_tx_valid_o,     // a word is present
  output logic [NumLinks*(FlitBits+2)-1:0] phy_tx_flit_o,  // {head, tail, data}
  output logic [NumLinks*32-1:0]  phy_tx_ctl_o,       // seq, ack, credits, naks, fv
  output logic [NumLinks*32-1:0]  phy_tx_crc_o,       // CRC-32 of the word
  input  logic [NumLinks-1:0]     phy_rx_valid_i,     // a word arrives
  input  logic [NumLinks*(FlitBits+2)-1:0] phy_rx_flit_i,  // {head, tail, data}
  input  logic [NumLinks*32-1:0]  phy_rx_ctl_i,       // seq, ack, credits, naks, fv
  input  logic [NumLinks*32-1:0]  phy_rx_crc_i,       // CRC-32 of the word
  // statistics (host registers, link l at [l*W +: W])
  output logic [NumLinks*16-1:0]  stat_crc_errors_o,  // LinkCrcErrors: words with a bad CRC
  output logic [NumLinks*32-1:0]  stat_status_o,      // LinkStatus: escalated, run, replays
  output logic [NumLinks*32-1:0]  stat_discards_o     // LinkDiscards: discards, timeouts
);

  `include "xf_assert.svh"
  `include "xf_types.svh"

  localparam int FlitW = FlitTypeBits;  // {head, tail, data}: flit_t

  `ASSERT_INIT(FlitBitsLegal_A, (FlitBits == 32 || FlitBits == 64 || FlitBits == 128) &&
                                FlitW == FlitBits + 2)
  `ASSERT_INIT(NumLinksLegal_A, NumLinks >= 1)

  // Link l's LinkStatus and LinkDiscards (struct-typed signals stay at module scope: Yosys 0.23
  // does not resolve their fields in generate blocks).
  logic [NumLinks-1:0]    escalated;
  logic [NumLinks*4-1:0]  run;
  logic [NumLinks*16-1:0] discards, timeouts, replays;
  reg_link_status_t       status;     // link l's, in the loop below
  reg_link_discards_t     discarded;  // link l's, in the loop below
  always_comb begin
    logic [NumLinks*32-1:0] stat_status_o_c;
    logic [NumLinks*32-1:0] stat_discards_o_c;
    for (int l = 0; l < NumLinks; l++) begin
      status = '0;
      status.escalated = escalated[l];
      status.run = run[l*4 +: 4];
      status.replays = replays[l*16 +: 16];
      stat_status_o_c[l*32 +: 32] = reg_link_status_pack(status);
      discarded.discards = discards[l*16 +: 16];
      discarded.timeouts = timeouts[l*16 +: 16];
      stat_discards_o_c[l*32 +: 32] = reg_link_discards_pack(discarded);
    end
    stat_status_o = stat_status_o_c;
    stat_discards_o = stat_discards_o_c;
  end

  for (genvar l = 0; l < NumLinks; l++) begin : gen_link
    logic [31:0] tx_packets, rx_packets;
    logic [$clog2(RxBufferFlits+1)-1:0] tx_credits, rx_level;
    logic unused_link;
    xf_link_phy #(
      .FlitBits          (FlitBits),
      .RxBufferFlits     (RxBufferFlits),
      .PhyWireDelayCycles(PhyWireDelayCycles),
      .SyncBuffers       (SyncBuffers)
    ) u_link (
      .clk_i            (clk_i),
      .rst_ni           (rst_ni),
      .clr_i            (clr_i),
      .tx_valid_i       (tx_valid_i[l]),
      .tx_ready_o       (tx_ready_o[l]),
      .tx_flit_i        (tx_flit_i[l*FlitW +: FlitW]),
      .rx_valid_o       (rx_valid_o[l]),
      .rx_ready_i       (rx_ready_i[l]),
      .rx_flit_o        (rx_flit_o[l*FlitW +: FlitW]),
      .phy_tx_valid_o   (phy_tx_valid_o[l]),
      .phy_tx_flit_o    (phy_tx_flit_o[l*FlitW +: FlitW]),
      .phy_tx_ctl_o     (phy_tx_ctl_o[l*32 +: 32]),
      .phy_tx_crc_o     (phy_tx_crc_o[l*32 +: 32]),
      .phy_rx_valid_i   (phy_rx_valid_i[l]),
      .phy_rx_flit_i    (phy_rx_flit_i[l*FlitW +: FlitW]),
      .phy_rx_ctl_i     (phy_rx_ctl_i[l*32 +: 32]),
      .phy_rx_crc_i     (phy_rx_crc_i[l*32 +: 32]),
      .stat_crc_errors_o(stat_crc_errors_o[l*16 +: 16]),
      .stat_discards_o  (discards[l*16 +: 16]),
      .stat_timeouts_o  (timeouts[l*16 +: 16]),
      .stat_replays_o   (replays[l*16 +: 16]),
      .stat_run_o       (run[l*4 +: 4]),
      .stat_escalated_o (escalated[l]),
      .stat_tx_packets_o(tx_packets),
      .stat_rx_packets_o(rx_packets),
      .stat_tx_credits_o(tx_credits),
      .stat_rx_level_o  (rx_level)
    );
    assign unused_link = ^{tx_packets, rx_packets, tx_credits, rx_level};
  end

endmodule
