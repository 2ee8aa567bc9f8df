// The configuration inputs of the RTL reduction ALU (rtl/xf_reduce_alu.sv) driven from an AluCfg
// (sw/include/xf/alu.hpp), shared by the block test's benches (tests/test_rtl_alu.cpp) and the
// oracle's DUT (tests/alu_oracle_dut.cpp), so both present a configuration the same way.
#pragma once

#include <cstdint>

#include "xf/alu.hpp"

namespace xf {

// Sets dtype, op, sat, the Avg fields and the ScaleAdd factor; Dut is a Verilated
// xf_reduce_alu (any FlitBits). Takes effect at the next evaluation.
template <class Dut>
void drive_cfg(Dut& d, const AluCfg& cfg) {
  d.in_dtype_i = static_cast<uint8_t>(cfg.dtype);
  d.in_op_i = static_cast<uint8_t>(cfg.op);
  d.in_sat_i = cfg.sat;
  d.in_avg_shift_i = cfg.avg_shift;
  d.in_avg_final_i = cfg.avg_final;
  d.in_avg_scale_i = cfg.avg_scale;
  d.in_scale_i = cfg.scale;
}

}  // namespace xf
