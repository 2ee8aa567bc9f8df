// The board-independent FPGA core (docs/fpga.md section 1): the machine of chips a board holds
// (xf_system_top, generated per board by gen_system --top) behind the serial host bridge
// (rtl/xf_uart_bridge.sv), plus status LEDs. A board top (fpga/<board>/fpga.sv) adds only its
// clock, its reset synchroniser and its pin names, as Forencich's fpga.v wraps fpga_core.v.
//
// LEDs: 0 heartbeat (about 1 Hz), 1 every chip done, 2 some node reports an error (Status bit
// 31), 3 some request was not answered Ok since reset, 4 the bridge is busy; 7:5 off.
//
// Combinational paths: none (the bridge and the nodes register their outputs).
//
// Parameter constraints: ClkHz / Baud >= 4 (xf_uart_bridge).
module xf_fpga_core #(
  // the clock the core runs at
  parameter int ClkHz = 25_000_000,
  // UART bit rate
  parameter int Baud = 1_000_000
) (
  input  logic       clk_i,      // clock
  input  logic       rst_ni,     // reset, active low, released synchronously (xf_reset_sync)
  input  logic       uart_rx_i,  // from the host
  output logic       uart_tx_o,  // to the host
  output logic [7:0] led_o       // status, see above
);

  localparam int N = xf_system_pkg::NumNodes;
  localparam int P = xf_system_pkg::NumChips;
  localparam int BeatBits = $clog2(ClkHz) - 1;  // the heartbeat's period is about a second

  logic [N-1:0]    req_valid, req_ready, req_write, rsp_valid, rsp_err, stat_err;
  logic [N*32-1:0] req_addr, req_wdata, rsp_rdata;
  logic [P-1:0]    stat_done;
  logic            bad_frame, busy;
  logic [BeatBits:0] beat_q;

  xf_system_top u_system (
    .clk_i,
    .rst_ni,
    .host_req_valid_i(req_valid),
    .host_req_ready_o(req_ready),
    .host_req_write_i(req_write),
    .host_req_addr_i (req_addr),
    .host_req_wdata_i(req_wdata),
    .host_rsp_valid_o(rsp_valid),
    .host_rsp_rdata_o(rsp_rdata),
    .host_rsp_err_o  (rsp_err),
    .stat_done_o     (stat_done),
    .stat_err_o      (stat_err)
  );

  xf_uart_bridge #(
    .NumNodes   (N),
    .NumChips   (P),
    .ClkHz      (ClkHz),
    .Baud       (Baud),
    .MachineName(xf_system_pkg::MachineName)
  ) u_bridge (
    .clk_i,
    .rst_ni,
    .uart_rx_i,
    .uart_tx_o,
    .host_req_valid_o(req_valid),
    .host_req_ready_i(req_ready),
    .host_req_write_o(req_write),
    .host_req_addr_o (req_addr),
    .host_req_wdata_o(req_wdata),
    .host_rsp_valid_i(rsp_valid),
    .host_rsp_rdata_i(rsp_rdata),
    .host_rsp_err_i  (rsp_err),
    .bad_frame_o     (bad_frame),
    .busy_o          (busy)
  );

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) beat_q <= '0;
    else beat_q <= beat_q + 1'b1;
  end

  assign led_o = {3'b000, busy, bad_frame, |stat_err, &stat_done, beat_q[BeatBits]};

endmodule
