// Testbench-only top for tests/test_rtl_link.cpp: two xf_link endpoints, A and B, joined by two
// PHY wires (one per direction), each a delay line of WireDelayCycles register stages carrying
// the whole PHY word {valid, flit, crc, credit}. With WireDelayCycles = LinkLatencyCycles - 3
// the link pair has the model's `Channel` timing: flits and credits take LinkLatencyCycles = 8
// cycles each way (rtl/xf_link.sv, latency budget).
//
// Fault injection: ab_flip_data_i / ab_flip_crc_i (and ba_*) are XORed into the data bits and the
// CRC sideband of the word entering the A->B (B->A) wire in the current cycle; zero for a clean
// wire. The taps ab_wire_valid_o / ab_wire_crc_o show that word before the flip, so the test can
// tell which flit it corrupts and check the transmitted CRC. Head, tail, valid and credit bits are
// never flipped (the CRC does not cover them; rtl/xf_link.sv).
//
// Combinational paths: the taps from link A's (B's) PHY output registers; nothing else.
//
// Parameter constraints: WireDelayCycles >= 1 (xf_delay), RxBufferFlits as xf_link requires.
module xf_link_pair_tb #(
  // cycles of each wire; LinkLatencyCycles - 3 gives the model's link latency
  parameter int WireDelayCycles = xf_defs_pkg::LinkLatencyCycles - 3,
  // receive buffer depth of both links (must agree on both ends)
  parameter int RxBufferFlits = xf_defs_pkg::LinkRxBufferFlits
) (
  input  logic                               clk_i,                // clock
  input  logic                               rst_ni,               // asynchronous reset, low
  // link A, exchange side
  input  logic                               a_tx_valid_i,         // A transmit stream
  output logic                               a_tx_ready_o,
  input  logic [129:0]                       a_tx_flit_i,
  output logic                               a_rx_valid_o,         // A receive stream
  input  logic                               a_rx_ready_i,
  output logic [129:0]                       a_rx_flit_o,
  output logic                               a_stat_crc_err_o,     // A statistics
  output logic [15:0]                        a_stat_crc_errors_o,
  output logic [31:0]                        a_stat_tx_packets_o,
  output logic [31:0]                        a_stat_rx_packets_o,
  output logic [$clog2(RxBufferFlits+1)-1:0] a_stat_tx_credits_o,
  output logic [$clog2(RxBufferFlits+1)-1:0] a_stat_rx_level_o,
  // link B, exchange side
  input  logic                               b_tx_valid_i,         // B transmit stream
  output logic                               b_tx_ready_o,
  input  logic [129:0]                       b_tx_flit_i,
  output logic                               b_rx_valid_o,         // B receive stream
  input  logic                               b_rx_ready_i,
  output logic [129:0]                       b_rx_flit_o,
  output logic                               b_stat_crc_err_o,     // B statistics
  output logic [15:0]                        b_stat_crc_errors_o,
  output logic [31:0]                        b_stat_tx_packets_o,
  output logic [31:0]                        b_stat_rx_packets_o,
  output logic [$clog2(RxBufferFlits+1)-1:0] b_stat_tx_credits_o,
  output logic [$clog2(RxBufferFlits+1)-1:0] b_stat_rx_level_o,
  // wires: fault injection and taps
  input  logic [127:0]                       ab_flip_data_i,       // XOR into A->B data bits
  input  logic [31:0]                        ab_flip_crc_i,        // XOR into A->B CRC sideband
  output logic                               ab_wire_valid_o,      // A->B word valid (tap)
  output logic [31:0]                        ab_wire_crc_o,        // A->B CRC before the flip
  input  logic [127:0]                       ba_flip_data_i,       // XOR into B->A data bits
  input  logic [31:0]                        ba_flip_crc_i,        // XOR into B->A CRC sideband
  output logic                               ba_wire_valid_o,      // B->A word valid (tap)
  output logic [31:0]                        ba_wire_crc_o         // B->A CRC before the flip
);

  // PHY word on a wire: {valid, head, tail, data[127:0], crc[31:0], credit}.
  localparam int WordBits = 1 + 130 + 32 + 1;

  logic         a_phy_tx_valid, b_phy_tx_valid, a_phy_tx_credit, b_phy_tx_credit;
  logic [129:0] a_phy_tx_flit, b_phy_tx_flit;
  logic [31:0]  a_phy_tx_crc, b_phy_tx_crc;
  logic         a_phy_rx_valid, b_phy_rx_valid, a_phy_rx_credit, b_phy_rx_credit;
  logic [129:0] a_phy_rx_flit, b_phy_rx_flit;
  logic [31:0]  a_phy_rx_crc, b_phy_rx_crc;
  logic [WordBits-1:0] ab_word_in, ab_word_out, ba_word_in, ba_word_out;

  xf_link #(
    .RxBufferFlits     (RxBufferFlits),
    .PhyWireDelayCycles(WireDelayCycles)
  ) u_link_a (
    .clk_i            (clk_i),
    .rst_ni           (rst_ni),
    .tx_valid_i       (a_tx_valid_i),
    .tx_ready_o       (a_tx_ready_o),
    .tx_flit_i        (a_tx_flit_i),
    .rx_valid_o       (a_rx_valid_o),
    .rx_ready_i       (a_rx_ready_i),
    .rx_flit_o        (a_rx_flit_o),
    .phy_tx_valid_o   (a_phy_tx_valid),
    .phy_tx_flit_o    (a_phy_tx_flit),
    .phy_tx_crc_o     (a_phy_tx_crc),
    .phy_tx_credit_o  (a_phy_tx_credit),
    .phy_rx_valid_i   (a_phy_rx_valid),
    .phy_rx_flit_i    (a_phy_rx_flit),
    .phy_rx_crc_i     (a_phy_rx_crc),
    .phy_rx_credit_i  (a_phy_rx_credit),
    .stat_crc_err_o   (a_stat_crc_err_o),
    .stat_crc_errors_o(a_stat_crc_errors_o),
    .stat_tx_packets_o(a_stat_tx_packets_o),
    .stat_rx_packets_o(a_stat_rx_packets_o),
    .stat_tx_credits_o(a_stat_tx_credits_o),
    .stat_rx_level_o  (a_stat_rx_level_o)
  );

  xf_link #(
    .RxBufferFlits     (RxBufferFlits),
    .PhyWireDelayCycles(WireDelayCycles)
  ) u_link_b (
    .clk_i            (clk_i),
    .rst_ni           (rst_ni),
    .tx_valid_i       (b_tx_valid_i),
    .tx_ready_o       (b_tx_ready_o),
    .tx_flit_i        (b_tx_flit_i),
    .rx_valid_o       (b_rx_valid_o),
    .rx_ready_i       (b_rx_ready_i),
    .rx_flit_o        (b_rx_flit_o),
    .phy_tx_valid_o   (b_phy_tx_valid),
    .phy_tx_flit_o    (b_phy_tx_flit),
    .phy_tx_crc_o     (b_phy_tx_crc),
    .phy_tx_credit_o  (b_phy_tx_credit),
    .phy_rx_valid_i   (b_phy_rx_valid),
    .phy_rx_flit_i    (b_phy_rx_flit),
    .phy_rx_crc_i     (b_phy_rx_crc),
    .phy_rx_credit_i  (b_phy_rx_credit),
    .stat_crc_err_o   (b_stat_crc_err_o),
    .stat_crc_errors_o(b_stat_crc_errors_o),
    .stat_tx_packets_o(b_stat_tx_packets_o),
    .stat_rx_packets_o(b_stat_rx_packets_o),
    .stat_tx_credits_o(b_stat_tx_credits_o),
    .stat_rx_level_o  (b_stat_rx_level_o)
  );

  assign ab_word_in = {a_phy_tx_valid, a_phy_tx_flit[129:128],
                       a_phy_tx_flit[127:0] ^ ab_flip_data_i, a_phy_tx_crc ^ ab_flip_crc_i,
                       a_phy_tx_credit};
  assign ba_word_in = {b_phy_tx_valid, b_phy_tx_flit[129:128],
                       b_phy_tx_flit[127:0] ^ ba_flip_data_i, b_phy_tx_crc ^ ba_flip_crc_i,
                       b_phy_tx_credit};

  xf_delay #(
    .WidthBits(WordBits),
    .Depth    (WireDelayCycles)
  ) u_wire_ab (
    .clk_i (clk_i),
    .rst_ni(rst_ni),
    .d_i   (ab_word_in),
    .q_o   (ab_word_out)
  );

  xf_delay #(
    .WidthBits(WordBits),
    .Depth    (WireDelayCycles)
  ) u_wire_ba (
    .clk_i (clk_i),
    .rst_ni(rst_ni),
    .d_i   (ba_word_in),
    .q_o   (ba_word_out)
  );

  assign {b_phy_rx_valid, b_phy_rx_flit, b_phy_rx_crc, b_phy_rx_credit} = ab_word_out;
  assign {a_phy_rx_valid, a_phy_rx_flit, a_phy_rx_crc, a_phy_rx_credit} = ba_word_out;

  assign ab_wire_valid_o = a_phy_tx_valid;
  assign ab_wire_crc_o = a_phy_tx_crc;
  assign ba_wire_valid_o = b_phy_tx_valid;
  assign ba_wire_crc_o = b_phy_tx_crc;

endmodule
