// CRC-32 update over DataBits bits in one cycle (combinational): the CRC of zlib's crc32(), IEEE
// 802.3 polynomial 0x04C11DB7 in reflected form (0xEDB88320), the CRC that Ethernet's frame
// check sequence and PCI Express's LCRC use. Used by xf_link to protect each packet on the wire.
//
// Bit order: data_i bit 0 first, then bit 1, ...: for a flit this is byte 0 least significant bit
// first, then byte 1 ..., exactly the order in which zlib's crc32() consumes a byte string (the
// flit's bytes are little-endian, docs/packets.md section 1).
//
// Use: crc_i is the running register, all ones (0xFFFFFFFF) before the first data of a message;
// crc_o is the register after data_i. The CRC of the message so far is ~crc_o (zlib inverts at
// the end). Example: the 9 bytes "123456789" give ~crc_o = 0xCBF43926, zlib's check value.
//
// Protocol: none; purely combinational, crc_o from crc_i and data_i. A 128-bit update is an XOR
// tree of depth about 7 two-input gates per output bit (each output bit is the XOR of a fixed
// subset of the 160 input bits); the loop below is unrolled by every tool.
//
// Parameter constraints: DataBits >= 1.
module xf_crc32 #(
  // bits folded into the CRC per update
  parameter int DataBits = 128
) (
  input  logic [31:0]         crc_i,   // running CRC register before data_i (all ones to start)
  input  logic [DataBits-1:0] data_i,  // data, bit 0 first
  output logic [31:0]         crc_o    // running CRC register after data_i (CRC value: ~crc_o)
);

  `include "xf_assert.svh"

  `ASSERT_INIT(DataBitsLegal_A, DataBits >= 1)

  // The IEEE 802.3 polynomial 0x04C11DB7, bit-reversed for the LSB-first (reflected) shift.
  localparam logic [31:0] PolyReflected = 32'hEDB8_8320;

  // The running value lives in a variable local to the block, so the block is sensitive to
  // crc_i and data_i only (IEEE 1800 9.2.2.2.1; Icarus 11 would otherwise retrigger it forever).
  always_comb begin : crc_update
    logic [31:0] crc;
    crc = crc_i;
    for (int i = 0; i < DataBits; i++) begin
      crc = (crc >> 1) ^ (PolyReflected & {32{crc[0] ^ data_i[i]}});
    end
    crc_o = crc;
  end

endmodule
