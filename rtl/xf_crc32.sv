// CRC-32 update over DataBits bits in one cycle (combinational): the CRC of zlib's crc32(), IEEE
// 802.3 polynomial 0x04C11DB7 in reflected form (0xEDB88320), the CRC that Ethernet's frame
// check sequence and PCI Express's LCRC use. Used by xf_link to protect each packet on the wire.
//
// Bit order: data_i bit 0 first, then bit 1, ...: for a flit this is byte 0 least significant bit
// first, then byte 1 ..., exactly the order in which zlib's crc32() consumes a byte string (the
// flit's bytes are little-endian, docs/packets.md section 1).
//
// Use: the register starts at InitCrc, a parameter (all ones, 0xFFFFFFFF, for a message that
// starts with data_i); crc_o is the register after data_i. The CRC of the message so far is
// ~crc_o (zlib inverts at the end). Example: the 9 bytes "123456789" give ~crc_o = 0xCBF43926,
// zlib's check value.
//
// Protocol: none; purely combinational, crc_o from data_i. The update is linear over GF(2): each
// output bit is a constant (the start value's part) XOR a fixed subset of the DataBits data bits.
// The subsets (Rows) are computed at elaboration by running the bit-serial register on each input
// bit alone, and each output bit is written as one XOR reduction of its subset, so every tool
// builds a balanced XOR tree per bit. (Written as the bit-serial loop itself, the same function
// came out of YoWASP's Yosys 0.70 for ECP5 as 2,931 LUT4 at DataBits = 168, the link's width at
// 128-bit flits; as the reductions, 1,000 LUT4: docs/boards.md section 8.) The start value and the
// data bits that are always zero (ZeroBits: the link's six pad bits) are parameters, not ports,
// so that they fold into the trees even when a flow keeps the hierarchy (-noflatten), where a
// constant on a port reaches nothing inside: a fifth of the link's CRC LUT4 (docs/fpga.md
// section 8). The link uses DataBits = FlitBits + 40 (its word without the CRC: 168, 104 or 72
// bits).
//
// Parameter constraints: DataBits >= 1; the user drives every ZeroBits bit of data_i with 0.
module xf_crc32 #(
  // bits folded into the CRC per update
  parameter int DataBits = 128,
  // the register before data_i (all ones: data_i starts the message)
  parameter logic [31:0] InitCrc = 32'hFFFF_FFFF,
  // bits of data_i that are always 0: left out of the XOR trees
  parameter logic [DataBits-1:0] ZeroBits = '0
) (
  input  logic [DataBits-1:0] data_i,  // data, bit 0 first
  output logic [31:0]         crc_o    // the register after data_i (CRC value: ~crc_o)
);

  `include "xf_assert.svh"

  `ASSERT_INIT(DataBitsLegal_A, DataBits >= 1)

  // The IEEE 802.3 polynomial 0x04C11DB7, bit-reversed for the LSB-first (reflected) shift.
  localparam logic [31:0] PolyReflected = 32'hEDB8_8320;

  localparam int InBits = 32 + DataBits;  // {register, data}

  // Row j, at [j*InBits +: InBits]: the bits of {register, data_i} whose XOR is crc_o[j]. Column
  // k is the register after DataBits steps of the reflected shift (zlib's loop, one bit per step)
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

  for (genvar j = 0; j < 32; j++) begin : gen_out
    // The start value's part of bit j, a constant; the data's, one XOR tree over the data bits
    // of row j that are not always zero.
    localparam logic InitPart = ^(InitCrc & Rows[j*InBits+DataBits +: 32]);
    localparam logic [DataBits-1:0] DataRow = Rows[j*InBits +: DataBits] & ~ZeroBits;
    assign crc_o[j] = InitPart ^ (^(data_i & DataRow));
  end

endmodule
