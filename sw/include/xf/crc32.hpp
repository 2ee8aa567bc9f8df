// CRC-32 as zlib's crc32() computes it (IEEE 802.3 polynomial, reflected, initial and final
// value all ones): the payload CRC of the model's packet observer and of the RTL harness's, the
// same function rtl/xf_crc32.sv computes per link packet.
#pragma once

#include <cstddef>
#include <cstdint>

namespace xf {

// Continues `crc` (0 to start) over n bytes.
inline uint32_t crc32_update(uint32_t crc, const uint8_t* p, size_t n) {
  crc = ~crc;
  for (size_t i = 0; i < n; ++i) {
    crc ^= p[i];
    for (int k = 0; k < 8; ++k) crc = (crc >> 1) ^ (0xEDB88320u & (0u - (crc & 1u)));
  }
  return ~crc;
}

}  // namespace xf
