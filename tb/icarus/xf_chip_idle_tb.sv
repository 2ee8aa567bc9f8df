// The smallest reproduction of the Icarus Verilog 11 stall of docs/simulators.md section 6: one
// idle xf_chip (NumTiles and NumLinks from +define, default 1 and 1), no host access, no link,
// clocked for 20 cycles. Every cycle prints "cycle N" (flushed); a simulator that runs the chip
// prints 20 lines and PASS in well under a second.
//
//   iverilog -g2012 -DSYNTHESIS -I rtl -s xf_chip_idle_tb -o build/xf_chip_idle.vvp \
//     rtl/xf_defs_pkg.sv $(scripts/rtl_files.sh xf_chip) tb/icarus/xf_chip_idle_tb.sv
//   timeout 60 vvp -n build/xf_chip_idle.vvp
//
// Before the fix of docs/simulators.md section 6: no "cycle" line within 120 s (vvp stayed at the
// first clock edge, re-running the always_comb blocks); now 20 cycles and PASS in under a second.
`ifndef XF_IDLE_TILES
`define XF_IDLE_TILES 1
`endif
`ifndef XF_IDLE_LINKS
`define XF_IDLE_LINKS 1
`endif

module xf_chip_idle_tb;

  localparam int T = `XF_IDLE_TILES;
  localparam int L = `XF_IDLE_LINKS;

  logic clk = 1'b0;
  logic rst_n = 1'b0;
  always #5 clk = ~clk;

  logic ready, rsp_valid, rsp_err, bar, done, err;
  logic [31:0] rsp_rdata;
  logic [L-1:0] tx_valid;
  logic [L*130-1:0] tx_flit;
  logic [L*32-1:0] tx_ctl, tx_crc;

  xf_chip #(
    .NumTiles(T),
    .NumLinks(L)
  ) u_chip (
    .clk_i           (clk),
    .rst_ni          (rst_n),
    .cfg_chip_id_i   (12'd0),
    .cfg_num_chips_i (13'd1),
    .cfg_num_tiles_i (5'(T)),
    .cfg_num_ports_i (4'd0),
    .host_req_valid_i(1'b0),
    .host_req_ready_o(ready),
    .host_req_write_i(1'b0),
    .host_req_addr_i (32'd0),
    .host_req_wdata_i(32'd0),
    .host_rsp_valid_o(rsp_valid),
    .host_rsp_rdata_o(rsp_rdata),
    .host_rsp_err_o  (rsp_err),
    .phy_tx_valid_o  (tx_valid),
    .phy_tx_flit_o   (tx_flit),
    .phy_tx_ctl_o    (tx_ctl),
    .phy_tx_crc_o    (tx_crc),
    .phy_rx_valid_i  ({L{1'b0}}),
    .phy_rx_flit_i   ({L * 130{1'b0}}),
    .phy_rx_ctl_i    ({L * 32{1'b0}}),
    .phy_rx_crc_i    ({L * 32{1'b0}}),
    .bar_arrived_o   (bar),
    .bar_all_i       (bar),
    .stat_done_o     (done),
    .stat_err_o      (err)
  );

  initial begin
    for (int c = 0; c < 20; c++) begin
      @(posedge clk);
      if (c == 1) rst_n <= 1'b1;
      $display("cycle %0d", c);
      $fflush();
    end
    $display("PASS: 20 cycles of an idle chip");
    $finish;
  end

endmodule
