// The two ALUs under test for the independent floating-point oracle (scripts/alu_oracle.py,
// docs/alu.md section 10): reads operand pairs of one (dtype, op) configuration from a binary
// file, computes every pair with the C++ ALU (xf::alu_reduce, sw/lib/alu.cpp) and with the
// Verilated RTL ALU (rtl/xf_reduce_alu.sv, FlitBits = 128, one flit per cycle, no idle cycles),
// and writes both results. It judges nothing itself: the oracle compares.
//
//   alu_oracle_dut --dtype fp16 --op sum --in pairs.bin --out results.bin
//
// Files (little-endian, e = the dtype's element bytes, n records):
//  - in: n records {a, b} of e bytes each (a = local, the first operand); for ScaleAdd (fp32
//    only) n records {a, b, s} of 4 bytes each, where s (the ScaleAdd factor, CSR 17) must be the
//    same for the 4 records of a flit (records 4k .. 4k+3).
//  - out: n results of the C++ ALU, then n results of the RTL ALU (2 n e bytes).
// The records fill the lanes of consecutive flits (16 / e lanes each, the last flit padded with
// zeros, whose results are not written). Exit status 1 when the RTL raises err_o, drops a valid
// or returns a wrong tag (the pair is valid, so that is a failure of the RTL, not of the data).
#include <verilated.h>

#include <array>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <iterator>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "Vxf_reduce_alu.h"
#include "alu_drive_cfg.hpp"
#include "options.hpp"
#include "xf/alu.hpp"
#include "xf/compiler.hpp"

namespace xf {
namespace {

constexpr int kLatencyCycles = 4;  // rtl/xf_reduce_alu.sv LatencyCycles
constexpr size_t kFlitBytes = 16;  // FlitBits = 128

struct Args {
  std::string dtype = "fp32", op = "sum", in, out;
  bool sat = false, avg_final = false;
  int avg_shift = 0;
  long long avg_scale = 1ll << kAvgScaleFracBits;
};

std::vector<uint8_t> read_file(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  if (!f) throw std::runtime_error("cannot read " + path);
  return std::vector<uint8_t>(std::istreambuf_iterator<char>(f), {});
}

// The Verilated ALU, clocked as the block tests clock it (tests/rtl_kit.hpp): inputs change
// with the clock low, the rising edge takes them.
class RtlAlu {
 public:
  RtlAlu() : ctx_(std::make_unique<VerilatedContext>()) {
    ctx_->fatalOnError(true);
    dut_ = std::make_unique<Vxf_reduce_alu>(ctx_.get(), "dut");
    dut_->clk_i = 0;
    dut_->rst_ni = 1;
    dut_->in_valid_i = 0;
    dut_->eval();
    dut_->rst_ni = 0;
    dut_->eval();
    for (int i = 0; i < 3; ++i) tick();
    dut_->rst_ni = 1;
    dut_->eval();
  }
  ~RtlAlu() { dut_->final(); }
  RtlAlu(const RtlAlu&) = delete;
  RtlAlu& operator=(const RtlAlu&) = delete;

  // Presents one flit (or an idle cycle), clocks, and returns true with the flit that left.
  bool step(bool valid, const AluCfg& cfg, const uint8_t* a, const uint8_t* b, uint32_t tag,
            std::array<uint8_t, kFlitBytes>& out, uint32_t& out_tag) {
    for (uint32_t w = 0; w < kFlitBytes / 4; ++w) {
      uint32_t wa = 0, wb = 0;
      if (valid) {
        std::memcpy(&wa, a + 4 * w, 4);
        std::memcpy(&wb, b + 4 * w, 4);
      }
      dut_->in_a_i[w] = wa;
      dut_->in_b_i[w] = wb;
    }
    dut_->in_valid_i = valid;
    drive_cfg(*dut_, cfg);
    dut_->in_tag_i = tag;
    tick();
    if (!dut_->out_valid_o) return false;
    if (dut_->err_o) throw std::runtime_error("the RTL ALU raised err_o for a valid pair");
    for (uint32_t w = 0; w < kFlitBytes / 4; ++w) {
      const uint32_t v = dut_->out_data_o[w];
      std::memcpy(out.data() + 4 * w, &v, 4);
    }
    out_tag = dut_->out_tag_o;
    return true;
  }

 private:
  void tick() {
    ctx_->timeInc(1);
    dut_->clk_i = 1;
    dut_->eval();
    ctx_->timeInc(1);
    dut_->clk_i = 0;
    dut_->eval();
  }

  std::unique_ptr<VerilatedContext> ctx_;
  std::unique_ptr<Vxf_reduce_alu> dut_;
};

int run(const Args& args) {
  AluCfg cfg;
  cfg.dtype = parse_dtype(args.dtype);
  // ScaleAdd is no collective's op, so parse_op does not know it.
  cfg.op = args.op == "scaleadd" ? RedOp::kScaleAdd : parse_op(args.op);
  cfg.sat = args.sat;
  cfg.avg_shift = static_cast<uint8_t>(args.avg_shift);
  cfg.avg_final = args.avg_final;
  cfg.avg_scale = static_cast<uint32_t>(args.avg_scale);
  if (!valid_pair(cfg.dtype, cfg.op)) {
    throw std::runtime_error(std::string("(") + to_string(cfg.dtype) + ", " + to_string(cfg.op) +
                             ") is not a valid pair (docs/alu.md section 2)");
  }
  const bool scale_add = cfg.op == RedOp::kScaleAdd;
  const size_t e = dtype_size(cfg.dtype), lanes = kFlitBytes / e;
  const size_t rec = scale_add ? 12 : 2 * e;
  const std::vector<uint8_t> in = read_file(args.in);
  if (in.size() % rec != 0) {
    throw std::runtime_error(args.in + ": " + std::to_string(in.size()) +
                             " bytes is not a whole number of " + std::to_string(rec) +
                             "-byte records");
  }
  const size_t n = in.size() / rec, flits = (n + lanes - 1) / lanes;
  std::vector<uint8_t> cpp(flits * kFlitBytes), rtl(flits * kFlitBytes);
  RtlAlu alu;
  size_t next_out = 0;
  std::array<uint8_t, kFlitBytes> a{}, b{}, out{};
  for (size_t f = 0; f < flits + kLatencyCycles; ++f) {
    const bool valid = f < flits;
    AluCfg c = cfg;
    if (valid) {
      a.fill(0);
      b.fill(0);
      for (size_t l = 0; l < lanes && f * lanes + l < n; ++l) {
        const uint8_t* r = in.data() + (f * lanes + l) * rec;
        std::memcpy(a.data() + l * e, r, e);
        std::memcpy(b.data() + l * e, r + e, e);
        if (scale_add) {
          uint32_t s;
          std::memcpy(&s, r + 8, 4);
          if (l == 0) c.scale = s;
          if (s != c.scale) {
            throw std::runtime_error("record " + std::to_string(f * lanes + l) +
                                     ": ScaleAdd's s differs inside a flit (records 4k..4k+3)");
          }
        }
      }
      std::memcpy(cpp.data() + f * kFlitBytes, a.data(), kFlitBytes);
      alu_reduce(c, cpp.data() + f * kFlitBytes, b.data(), kFlitBytes);
    }
    uint32_t tag = 0;
    if (alu.step(valid, c, a.data(), b.data(), static_cast<uint32_t>(f), out, tag)) {
      if (tag != next_out) {
        throw std::runtime_error("the RTL ALU returned flit " + std::to_string(tag) +
                                 ", expected flit " + std::to_string(next_out));
      }
      std::memcpy(rtl.data() + next_out * kFlitBytes, out.data(), kFlitBytes);
      ++next_out;
    }
  }
  if (next_out != flits) {
    throw std::runtime_error("the RTL ALU returned " + std::to_string(next_out) + " of " +
                             std::to_string(flits) + " flits");
  }
  std::ofstream o(args.out, std::ios::binary);
  o.write(reinterpret_cast<const char*>(cpp.data()), static_cast<std::streamsize>(n * e));
  o.write(reinterpret_cast<const char*>(rtl.data()), static_cast<std::streamsize>(n * e));
  if (!o) throw std::runtime_error("cannot write " + args.out);
  return 0;
}

}  // namespace
}  // namespace xf

int main(int argc, char** argv) {
  using namespace xf;
  auto app = tool::make_app("alu_oracle_dut",
                            "Computes operand pairs with the C++ ALU and the Verilated RTL ALU "
                            "for scripts/alu_oracle.py (docs/alu.md section 10).");
  Args a;
  tool::add_text(*app, "--dtype", a.dtype, "T", "int8, uint8, int16, int32, fp16, bf16, fp32");
  tool::add_text(*app, "--op", a.op, "OP", "sum, max, min, avg, scaleadd");
  tool::add_flag(*app, "--sat", a.sat, "integer Sum saturates");
  tool::add_int(*app, "--avg-shift", a.avg_shift, 0, 15, "Avg: b >>> avg_shift first");
  tool::add_flag(*app, "--avg-final", a.avg_final, "Avg: apply the final scale");
  tool::add_int(*app, "--avg-scale", a.avg_scale, 0, 0xFFFFFFFFll, "Avg final scale, Q1.31");
  tool::add_file(*app, "--in", a.in, "the operand records (required)")->required();
  tool::add_file(*app, "--out", a.out, "the results to write (required)")->required();
  return tool::run_tool("alu_oracle_dut", *app, std::vector<std::string>(argv + 1, argv + argc),
                        [&] { return run(a); });
}
