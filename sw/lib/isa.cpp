// Instruction and send-descriptor encoding (docs/isa.md). Field positions come from the
// generated xf/defs.hpp so the RTL decoder and this encoder cannot drift apart.
#include <cstdio>
#include <string>

#include "xf/compiler.hpp"

namespace xf {
namespace {

uint64_t field(uint64_t w, unsigned lsb, unsigned bits) {
  return (w >> lsb) & ((bits >= 64) ? ~0ull : ((1ull << bits) - 1));
}
uint64_t put(uint64_t v, unsigned lsb, unsigned bits) { return (v & ((1ull << bits) - 1)) << lsb; }

}  // namespace

namespace isa {

uint64_t enc(Isa o, unsigned rd_, unsigned rs1_, unsigned rs2_, unsigned rs3_, unsigned rs4_,
             uint32_t imm_) {
  using namespace instr;
  return put(static_cast<uint64_t>(o), kOpcLsb, kOpcBits) | put(rd_, kRdLsb, kRdBits) |
         put(rs1_, kRs1Lsb, kRs1Bits) | put(rs2_, kRs2Lsb, kRs2Bits) |
         put(rs3_, kRs3Lsb, kRs3Bits) | put(rs4_, kRs4Lsb, kRs4Bits) | put(imm_, kImmLsb, kImmBits);
}
Isa opc(uint64_t w) { return static_cast<Isa>(field(w, instr::kOpcLsb, instr::kOpcBits)); }
unsigned rd(uint64_t w) { return field(w, instr::kRdLsb, instr::kRdBits); }
unsigned rs1(uint64_t w) { return field(w, instr::kRs1Lsb, instr::kRs1Bits); }
unsigned rs2(uint64_t w) { return field(w, instr::kRs2Lsb, instr::kRs2Bits); }
unsigned rs3(uint64_t w) { return field(w, instr::kRs3Lsb, instr::kRs3Bits); }
unsigned rs4(uint64_t w) { return field(w, instr::kRs4Lsb, instr::kRs4Bits); }
uint32_t imm(uint64_t w) { return field(w, instr::kImmLsb, instr::kImmBits); }

std::string disasm(uint64_t w) {
  char buf[128];
  const unsigned o = static_cast<unsigned>(opc(w));
  const unsigned d = rd(w), a = rs1(w), b = rs2(w);
  const uint32_t i = imm(w);
  const int32_t si = static_cast<int32_t>(i);
  switch (opc(w)) {
    case Isa::kNop:
    case Isa::kEnd:
    case Isa::kWaits:
    case Isa::kBar:
      std::snprintf(buf, sizeof buf, "%s", to_string(opc(w)));
      break;
    case Isa::kLi:
      std::snprintf(buf, sizeof buf, si < 0 ? "li    r%u, 0x%x" : "li    r%u, %u", d, i);
      break;
    case Isa::kAdd:
    case Isa::kSub:
    case Isa::kMul:
      std::snprintf(buf, sizeof buf, "%-5s r%u, r%u, r%u", to_string(opc(w)), d, a, b);
      break;
    case Isa::kAddi:
      std::snprintf(buf, sizeof buf, "addi  r%u, r%u, %d", d, a, si);
      break;
    case Isa::kLw:
      std::snprintf(buf, sizeof buf, "lw    r%u, pmem[r%u + %u]", d, a, i);
      break;
    case Isa::kGeti:
      std::snprintf(buf, sizeof buf, "geti  r%u, csr%u", d, i);
      break;
    case Isa::kBeq:
    case Isa::kBne:
    case Isa::kBlt:
    case Isa::kBge:
      std::snprintf(buf, sizeof buf, "%-5s r%u, r%u, %u", to_string(opc(w)), a, b, i);
      break;
    case Isa::kJmp:
      std::snprintf(buf, sizeof buf, "jmp   %u", i);
      break;
    case Isa::kSend:
    case Isa::kFwd:
      std::snprintf(buf, sizeof buf, "%-5s [r%u], r%u bytes -> chip r%u @ r%u, desc 0x%x|r%u",
                    to_string(opc(w)), a, b, rs3(w), rs4(w), i, d);
      break;
    case Isa::kWait:
      std::snprintf(buf, sizeof buf, "wait  counter[%u + r%u] >= r%u", i, b, a);
      break;
    case Isa::kCsrw:
      std::snprintf(buf, sizeof buf, "csrw  csr%u, r%u", i, a);
      break;
    default:
      std::snprintf(buf, sizeof buf, ".word 0x%016llx  (opcode %u)",
                    static_cast<unsigned long long>(w), o);
  }
  return buf;
}

}  // namespace isa

uint32_t pack_send_imm(const SendDesc& d) {
  using namespace sendimm;
  return static_cast<uint32_t>(
      put(d.tile, kTileLsb, kTileBits) | put(d.lane, kLaneLsb, kLaneBits) |
      put(static_cast<unsigned>(d.popc), kPopcLsb, kPopcBits) |
      put(static_cast<unsigned>(d.dtype), kDtypeLsb, kDtypeBits) |
      put(static_cast<unsigned>(d.op), kOpLsb, kOpBits) | put(d.sat, kSatLsb, kSatBits) |
      put(d.ctr, kCtrLsb, kCtrBits) | put(d.avg_shift, kAvgShiftLsb, kAvgShiftBits) |
      put(d.avg_final, kAvgFinalLsb, kAvgFinalBits) | put(d.hold, kHoldLsb, kHoldBits) |
      put(d.stream, kStreamLsb, kStreamBits));
}

SendDesc unpack_send_imm(uint32_t v) {
  using namespace sendimm;
  SendDesc d;
  d.tile = field(v, kTileLsb, kTileBits);
  d.lane = field(v, kLaneLsb, kLaneBits);
  d.popc = static_cast<Opcode>(field(v, kPopcLsb, kPopcBits));
  d.dtype = static_cast<DType>(field(v, kDtypeLsb, kDtypeBits));
  d.op = static_cast<RedOp>(field(v, kOpLsb, kOpBits));
  d.sat = field(v, kSatLsb, kSatBits);
  d.ctr = field(v, kCtrLsb, kCtrBits);
  d.avg_shift = field(v, kAvgShiftLsb, kAvgShiftBits);
  d.avg_final = field(v, kAvgFinalLsb, kAvgFinalBits);
  d.hold = field(v, kHoldLsb, kHoldBits);
  d.stream = field(v, kStreamLsb, kStreamBits);
  return d;
}

}  // namespace xf
