// CRC-32 as zlib's crc32() computes it (IEEE 802.3 polynomial, reflected, initial and final
// value all ones): the payload CRC of the model's packet observer and of the RTL harness's, the
// same function rtl/xf_crc32.sv computes per link packet.
#pragma once

#include <zlib.h>

#include <cstddef>
#include <cstdint>

namespace xf {

// Continues `crc` (0 to start) over n bytes: zlib's crc32 (zlib1g-dev; the RTL has its own).
inline uint32_t crc32_update(uint32_t crc, const uint8_t* p, size_t n) {
  uLong c = crc;
  while (n) {  // zlib takes at most uInt bytes per call
    const uInt k = n > 0x40000000u ? 0x40000000u : static_cast<uInt>(n);
    c = ::crc32(c, p, k);
    p += k;
    n -= k;
  }
  return static_cast<uint32_t>(c);
}

}  // namespace xf
