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
// Protocol: none; purely combinational, crc_o from crc_i and data_i. The update is linear over
// GF(2): each output bit is the XOR of a fixed subset of the 32 + DataBits input bits. The
// subsets (Rows) are computed at elaboration by running the bit-serial register on each input
// bit alone, and each output bit is written as one XOR reduction of its subset, so every tool
// builds a balanced XOR tree per bit. (Written as the bit-serial loop itself, the same function
// came out of YoWASP's Yosys 0.70 for ECP5 as 2,931 LUT4 at DataBits = 168, the link's width at
// 128-bit flits; as the reductions, 1,000 LUT4: docs/boards.md section 8.) The link uses
// DataBits = FlitBits + 40 (its word without the CRC: 168, 104 or 72 bits).
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

  localparam int InBits = 32 + DataBits;  // {crc_i, data_i}

  // Row j, at [j*InBits +: InBits]: the bits of {crc_i, data_i} whose XOR is crc_o[j]. Column k
  // is the register after DataBits steps of the reflected shift (zlib's loop, one bit per step)
  // when input bit k is the only one set; by linearity crc_o is the XOR of the columns of the
  // bits that are set.
  function automatic logic [32*InBits-1:0] rows_of();
    logic [32*InBits-1:0] r;
    logic [31:0] c;
    r = '0;
    for (int k = 0; k < InBits; k++) begin
      c = (k >= DataBits) ? (32'd1 << (k - DataBits)) : 32'd0;
      for (int i = 0; i < DataBits; i++) begin
        c = (c >> 1) ^ (PolyReflected & {32{c[0] ^ (i == k)}});
      end
      for (int j = 0; j < 32; j++) begin
        r[j*InBits+k] = c[j];
      end
    end
    rows_of = r;  // (Yosys 0.23 has no `return`)
  endfunction

  localparam logic [32*InBits-1:0] Rows = rows_of();

  logic [InBits-1:0] in_bits;
  assign in_bits = {crc_i, data_i};

  for (genvar j = 0; j < 32; j++) begin : gen_out
    assign crc_o[j] = ^(in_bits & Rows[j*InBits +: InBits]);
  end

endmodule
