// Header packing for the model (field positions from the generated xf/defs.hpp).
#include "flit.hpp"

namespace xf::model {
namespace {

void put(std::array<uint64_t, 2>& w, unsigned lsb, unsigned bits, uint64_t v) {
  v &= (bits >= 64) ? ~0ull : ((1ull << bits) - 1);
  for (unsigned i = 0; i < bits; ++i)
    if ((v >> i) & 1) w[(lsb + i) / 64] |= 1ull << ((lsb + i) % 64);
}

uint64_t get(const std::array<uint64_t, 2>& w, unsigned lsb, unsigned bits) {
  uint64_t v = 0;
  for (unsigned i = 0; i < bits; ++i) v |= ((w[(lsb + i) / 64] >> ((lsb + i) % 64)) & 1) << i;
  return v;
}

}  // namespace

std::array<uint64_t, 2> pack_header(const Header& h) {
  using namespace header;
  std::array<uint64_t, 2> w{0, 0};
  put(w, kOpcodeLsb, header::kOpcodeBits, static_cast<uint64_t>(h.opcode));
  put(w, kDstChipLsb, kDstChipBits, h.dst_chip);
  put(w, kDstTileLsb, kDstTileBits, h.dst_tile);
  put(w, kDstAddrLsb, kDstAddrBits, h.dst_addr);
  put(w, kLenLsb, kLenBits, h.len);
  put(w, kDtypeLsb, kDtypeBits, static_cast<uint64_t>(h.dtype));
  put(w, kOpLsb, kOpBits, static_cast<uint64_t>(h.op));
  put(w, kSatLsb, kSatBits, h.sat);
  put(w, kAvgFinalLsb, kAvgFinalBits, h.avg_final);
  put(w, kAvgShiftLsb, kAvgShiftBits, h.avg_shift);
  put(w, kCtrLsb, kCtrBits, h.ctr);
  put(w, kLaneLsb, kLaneBits, h.lane);
  put(w, kSrcChipLsb, kSrcChipBits, h.src_chip);
  put(w, kSrcTileLsb, kSrcTileBits, h.src_tile);
  put(w, kSeqLsb, kSeqBits, h.seq);
  return w;
}

Header unpack_header(const std::array<uint64_t, 2>& w) {
  using namespace header;
  Header h;
  h.opcode = static_cast<Opcode>(get(w, kOpcodeLsb, header::kOpcodeBits));
  h.dst_chip = static_cast<uint16_t>(get(w, kDstChipLsb, kDstChipBits));
  h.dst_tile = static_cast<uint8_t>(get(w, kDstTileLsb, kDstTileBits));
  h.dst_addr = static_cast<uint32_t>(get(w, kDstAddrLsb, kDstAddrBits));
  h.len = static_cast<uint16_t>(get(w, kLenLsb, kLenBits));
  h.dtype = static_cast<DType>(get(w, kDtypeLsb, kDtypeBits));
  h.op = static_cast<RedOp>(get(w, kOpLsb, kOpBits));
  h.sat = get(w, kSatLsb, kSatBits);
  h.avg_final = get(w, kAvgFinalLsb, kAvgFinalBits);
  h.avg_shift = static_cast<uint8_t>(get(w, kAvgShiftLsb, kAvgShiftBits));
  h.ctr = static_cast<uint8_t>(get(w, kCtrLsb, kCtrBits));
  h.lane = static_cast<uint8_t>(get(w, kLaneLsb, kLaneBits));
  h.src_chip = static_cast<uint16_t>(get(w, kSrcChipLsb, kSrcChipBits));
  h.src_tile = static_cast<uint8_t>(get(w, kSrcTileLsb, kSrcTileBits));
  h.seq = static_cast<uint16_t>(get(w, kSeqLsb, kSeqBits));
  return h;
}

}  // namespace xf::model
