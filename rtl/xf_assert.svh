// Assertion macros for the whole RTL tree (docs/conventions.md section 1, rule 8).
//
// Usage: `include "xf_assert.svh" inside a module (after the port list), then
//   `ASSERT_INIT(NameA, <parameter condition>)        legality of parameters, checked at time 0
//   `ASSERT(NameA, <condition>[, clk][, rst_n])       checked at each rising clock edge out of reset
//   `ASSERT_KNOWN(NameA, <signal>[, clk][, rst_n])    no X/Z bit at a clock edge out of reset
//   `ASSERT_STABLE(NameA, <signal>, <cond>[, clk][, rst_n])
//                                                    <signal> unchanged in any cycle after one
//                                                    where <cond> held (e.g. valid && !ready)
// clk defaults to clk_i and rst_n to rst_ni (asynchronous, active low): the checks are off while
// the reset is asserted (rst_n is in the sensitivity list so that tools see it used as the
// asynchronous reset it is everywhere else).
//
// Dialect (docs/conventions.md section 1, rule 9): only immediate assertions inside clocked `always`
// blocks, because Verilator 5.006 rejects `##N` sequences and Yosys 0.23 rejects clocked
// `assert property`. Icarus 11 rejects labels on assertion statements, so the name labels the
// enclosing block instead (it then appears in the hierarchy and in every message).
//
// Active in simulation: Verilator with --assert, Icarus always. Compiled out when SYNTHESIS is
// defined (Yosys `read_verilog` defines it by default; pass -DSYNTHESIS to other tools).
`ifndef XF_ASSERT_SVH
`define XF_ASSERT_SVH

`ifdef SYNTHESIS

`define ASSERT(name, prop, clk = clk_i, rst_n = rst_ni)
`define ASSERT_INIT(name, prop)
`define ASSERT_KNOWN(name, sig, clk = clk_i, rst_n = rst_ni)
`define ASSERT_STABLE(name, sig, cond, clk = clk_i, rst_n = rst_ni)

`else  // SYNTHESIS

`define ASSERT(name, prop, clk = clk_i, rst_n = rst_ni) \
  always @(posedge clk or negedge rst_n) begin : name \
    if (rst_n) begin \
      assert (prop) else $error("assertion %s failed: %s", `"name`", `"prop`"); \
    end \
  end

`define ASSERT_INIT(name, prop) \
  initial begin : name \
    assert (prop) else $fatal(1, "parameter check %s failed: %s", `"name`", `"prop`"); \
  end

`define ASSERT_KNOWN(name, sig, clk = clk_i, rst_n = rst_ni) \
  `ASSERT(name, !$isunknown(sig), clk, rst_n)

`define ASSERT_STABLE(name, sig, cond, clk = clk_i, rst_n = rst_ni) \
  `ASSERT(name, !$past(cond) || $stable(sig), clk, rst_n)

`endif  // SYNTHESIS

`endif  // XF_ASSERT_SVH
