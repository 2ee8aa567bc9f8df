// Testbench of a generated system top (gen_system, docs/simulators.md) for Icarus Verilog and for
// the Verilator --binary --timing build: replays the host-port stimulus that xf::run_collective
// performs on the SystemC model, starts every chip in the same cycle, counts the collective's
// cycles as sw/backends/rtl/rtl_system.hpp counts them, reads back and compares with the model.
//
// Plusargs:
//   +stim=DIR          the directory gen_system wrote (also on the include path at compile time:
//                      xf_system_tb_gen.svh gives the node counts and the backdoor tasks)
//   +backdoor          preload every tile's DMEM with $readmemh and compare the output bytes in the
//                      memories after the run (stim_backdoor.hex); without it every DMEM word is
//                      written and read through the host-port pins (stim_pins.hex)
//   +max_cycles=N      collective cycle limit (default 10 x the model's + 10000)
//   +load_cycles=N     limit of each host phase (default 50000000)
//   +heartbeat=N       print "XF_BEAT <phase> <cycle>" every N cycles (default 0: never), so that
//                      a script can tell a slow simulator from a stuck one
//
// Phases: load (every node replays its list of writes and reads concurrently, pipelined, one
// access per cycle when the port is ready; every response is checked in order: no error flag, and
// read data equal to the model's under the entry's mask), start (the Control write presented to
// every chip in the same cycle, when every host port is idle: taken at the same edge, as
// RtlSystem::run does), run (until every chip's stat_done_o; any stat_err_o fails), post (the
// driver's diagnosis reads and the DMEM read-back, checked against the model), then the backdoor
// compare with +backdoor.
//
// Cycle count: with the start taken at edge E, stat_done_o sampled high first at edge E + j means
// every chip was done in cycle j after the start cycle; as rtl_system.hpp, the collective took
// j - 3 cycles (the host port's start register, the tiles' start, the chip's done register).
//
// Output: "XF_MARK start" and "XF_MARK done" lines (flushed) around the collective, for wall-clock
// timing by scripts/sim_speed.py; "collective cycles N (model M)"; "PASS" or "FAIL: why". A
// failure ends with $fatal (non-zero exit status).
//
// Stimulus format (one 128-bit entry per line, $readmemh): {kind, addr, data, mask}; kind 1 write,
// 2 read (compare (rdata ^ data) & mask), 0 end of a list, 3 a node's header {3, load list, post
// list, 0} (entries 0..NumNodes-1).
`timescale 1ns / 1ps

module xf_system_tb;

  `include "xf_system_tb_gen.svh"

  localparam logic [31:0] KindEnd = 32'd0;
  localparam logic [31:0] KindWrite = 32'd1;
  localparam logic [31:0] KindRead = 32'd2;
  localparam logic [31:0] ControlAddr = 32'h8;  // docs/generated/defs.md: Control, bit 0 start

  typedef enum logic [2:0] {
    PhReset,
    PhLoad,
    PhStart,
    PhRun,
    PhPost,
    PhEnd
  } phase_e;

  logic clk = 1'b0;
  logic rst_n = 1'b0;
  always #5 clk = ~clk;

  // ---- Plusargs and stimulus ------------------------------------------------------------------
  string dir;
  bit backdoor;
  longint max_cycles, load_cycles, heartbeat;
  logic [127:0] stim [StimWordsPins];

  initial begin
    if (!$value$plusargs("stim=%s", dir)) begin
      $display("xf_system_tb: FAIL: give the stimulus directory with +stim=DIR");
      $fatal(1);
    end
    backdoor = $test$plusargs("backdoor");
    if (!$value$plusargs("max_cycles=%d", max_cycles)) max_cycles = 10 * ModelCycles + 10000;
    if (!$value$plusargs("load_cycles=%d", load_cycles)) load_cycles = 50000000;
    if (!$value$plusargs("heartbeat=%d", heartbeat)) heartbeat = 0;
    if (backdoor) begin
      $readmemh($sformatf("%0s/stim_backdoor.hex", dir), stim, 0, StimWordsBackdoor - 1);
      backdoor_load(dir);
    end else begin
      $readmemh($sformatf("%0s/stim_pins.hex", dir), stim, 0, StimWordsPins - 1);
    end
    $display("xf_system_tb: %0d chips, %0d nodes, %0d tiles in use, DMEM through %0s", NumChips,
             NumNodes, TilesInUse, backdoor ? "the backdoor" : "the host-port pins");
    $fflush();
  end

  // ---- The machine ----------------------------------------------------------------------------
  wire [NumNodes-1:0] req_valid, req_ready, req_write, rsp_valid, rsp_err, stat_err;
  wire [NumNodes*32-1:0] req_addr, req_wdata, rsp_rdata;
  wire [NumChips-1:0] stat_done;

  xf_system_top u_dut (
    .clk_i           (clk),
    .rst_ni          (rst_n),
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

  // ---- Host drivers, one per node -------------------------------------------------------------
  phase_e phase_q = PhReset;
  logic enter_load, enter_post;  // the phase changes at this edge (pointers to the node's lists)
  wire [NumNodes-1:0] node_idle, node_bad;

  for (genvar n = 0; n < NumNodes; n++) begin : gen_host
    int unsigned req_q = 0, rsp_q = 0;  // entries: next to present, next to be answered
    int unsigned bad_q = 0;
    logic [127:0] req_e, rsp_e;
    logic lists, starting;
    assign req_e = stim[req_q];
    assign rsp_e = stim[rsp_q];
    assign lists = phase_q == PhLoad || phase_q == PhPost;
    assign starting = phase_q == PhStart && n < NumChips;
    assign req_valid[n] = starting ||
                          (lists && (req_e[127:96] == KindWrite || req_e[127:96] == KindRead));
    assign req_write[n] = starting || req_e[127:96] == KindWrite;
    assign req_addr[n*32 +: 32] = starting ? ControlAddr : req_e[95:64];
    assign req_wdata[n*32 +: 32] = starting ? 32'd1 : req_e[63:32];
    assign node_idle[n] = req_e[127:96] == KindEnd && rsp_q == req_q;
    assign node_bad[n] = bad_q != 0;

    always @(posedge clk) begin
      if (enter_load || enter_post) begin
        req_q <= enter_load ? stim[n][95:64] : stim[n][63:32];
        rsp_q <= enter_load ? stim[n][95:64] : stim[n][63:32];
      end else begin
        if (lists && req_valid[n] && req_ready[n]) req_q <= req_q + 1;
        if (rsp_valid[n] && rsp_err[n]) begin
          $display("xf_system_tb: node %0d refused the host access at 0x%h", n,
                   lists ? rsp_e[95:64] : ControlAddr);
          bad_q <= bad_q + 1;
        end
        if (rsp_valid[n] && lists) begin
          if (rsp_e[127:96] == KindRead &&
              ((rsp_rdata[n*32 +: 32] ^ rsp_e[63:32]) & rsp_e[31:0]) != 32'd0) begin
            if (bad_q < 10)
              $display("xf_system_tb: node %0d read 0x%h: 0x%h, expected 0x%h (mask 0x%h)", n,
                       rsp_e[95:64], rsp_rdata[n*32 +: 32], rsp_e[63:32], rsp_e[31:0]);
            bad_q <= bad_q + 1;
          end
          rsp_q <= rsp_q + 1;
        end
      end
    end
  end

  // ---- Phases ---------------------------------------------------------------------------------
  longint cycle_q = 0;  // edges since the phase began
  longint collective_cycles = 0;
  int reset_edges = 0;
  int bd_bad = 0;

  assign enter_load = phase_q == PhReset && reset_edges == 3;
  assign enter_post = phase_q == PhRun && (&stat_done) && !(|stat_err);

  task automatic fail(input string why);
    $display("xf_system_tb: FAIL: %0s", why);
    $fflush();
    $fatal(1);
  endtask

  function automatic string not_done_list();
    string s = "";
    for (int c = 0; c < NumChips; c++)
      if (!stat_done[c]) s = {s, $sformatf(" chip%0d", c)};
    return s;
  endfunction

  function automatic string busy_list();
    string s = "";
    for (int n = 0; n < NumNodes; n++)
      if (!node_idle[n]) s = {s, $sformatf(" node%0d", n)};
    return s;
  endfunction

  always @(posedge clk) begin
    cycle_q <= cycle_q + 1;
    if (heartbeat > 0 && cycle_q % heartbeat == 0) begin
      $display("XF_BEAT %0d %0d", phase_q, cycle_q);
      $fflush();
    end
    case (phase_q)
      PhReset: begin
        // Reset for two edges, then one more edge (as RtlSystem's constructor), then load.
        reset_edges <= reset_edges + 1;
        if (reset_edges == 1) rst_n <= 1'b1;
        if (enter_load) begin
          phase_q <= PhLoad;
          cycle_q <= 0;
        end
      end
      PhLoad: begin
        if (&node_idle) begin
          $display("xf_system_tb: load done in %0d cycles", cycle_q);
          phase_q <= PhStart;
        end else if (cycle_q >= load_cycles) begin
          fail($sformatf("load: host accesses not done after %0d cycles on%0s", cycle_q,
                         busy_list()));
        end
      end
      PhStart: begin
        // The Control write was presented to every chip in this cycle: taken at this edge.
        for (int c = 0; c < NumChips; c++)
          if (!req_ready[c]) fail($sformatf("chip %0d did not take the start", c));
        $display("XF_MARK start");
        $fflush();
        phase_q <= PhRun;
        cycle_q <= 0;
      end
      PhRun: begin
        if (|stat_err) begin
          fail($sformatf("a node reports an error (Status bit 31) in cycle %0d: %b", cycle_q,
                         stat_err));
        end else if (&stat_done) begin
          $display("XF_MARK done");
          $fflush();
          collective_cycles = cycle_q - 2;
          $display("collective cycles %0d (model %0d)", collective_cycles, ModelCycles);
          phase_q <= PhPost;
          cycle_q <= 0;
        end else if (cycle_q >= max_cycles) begin
          fail($sformatf("timeout: after %0d cycles not done:%0s", cycle_q, not_done_list()));
        end
      end
      PhPost: begin
        if (&node_idle) begin
          $display("xf_system_tb: read-back done in %0d cycles", cycle_q);
          phase_q <= PhEnd;
        end else if (cycle_q >= load_cycles) begin
          fail($sformatf("read-back: host accesses not done after %0d cycles on%0s", cycle_q,
                         busy_list()));
        end
      end
      PhEnd: begin
        if (backdoor) begin
          backdoor_check(dir, bd_bad);
          $display("xf_system_tb: backdoor compare of every output byte: %0d words differ",
                   bd_bad);
        end
        if (|node_bad) fail($sformatf("host-port responses differ from the model on nodes %b",
                                      node_bad));
        if (bd_bad != 0) fail("DMEM differs from the model's outputs");
        if (collective_cycles != ModelCycles)
          fail($sformatf("collective cycles %0d, the model's %0d", collective_cycles,
                         ModelCycles));
        $display("PASS: bit-exact against the model, %0d cycles as the model", collective_cycles);
        $fflush();
        $finish;
      end
      default: fail("bad phase");
    endcase
  end

endmodule
