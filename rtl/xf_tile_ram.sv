// Synchronous RAM of a tile (IMEM, PMEM, DMEM of rtl/xf_tile.sv): one write port with per-lane
// write enables and NumReadPorts synchronous read ports, in the style Yosys and FPGA/ASIC
// memory compilers infer (a registered read address path, no reset on the array). With two
// read ports synthesis replicates the array (one copy per read port, both written alike).
//
// Protocol: a write of lane l (we_i[l]) stores wdata_i's lane l at waddr_i at the rising edge.
// A read port p with re_i[p] high in cycle t loads rdata_o[p] with mem[raddr_i[p]] at the edge
// that ends t (visible in t+1); with re_i[p] low rdata_o[p] holds. A read and a write of the
// same word in the same cycle return the old word (read-first). Addresses >= Words are not
// allowed (asserted); such a write is ignored.
//
// Combinational paths: none; rdata_o is a register.
//
// Parameter constraints: Words >= 2, DataBits a multiple of LaneBits, NumReadPorts 1 or 2.
module xf_tile_ram #(
  // words of the array
  parameter int Words = 64,
  // bits per word
  parameter int DataBits = 32,
  // bits per write-enable lane (DataBits / LaneBits enables)
  parameter int LaneBits = 32,
  // synchronous read ports
  parameter int NumReadPorts = 1,
  // address width (derived; do not override)
  parameter int AddrBits = $clog2(Words)
) (
  input  logic                             clk_i,    // clock
  input  logic                             rst_ni,   // asynchronous reset (assertions only)
  // read ports, port p at bits [p*W +: W]
  input  logic [NumReadPorts-1:0]          re_i,     // read enable per port
  input  logic [NumReadPorts*AddrBits-1:0] raddr_i,  // word address per port
  output logic [NumReadPorts*DataBits-1:0] rdata_o,  // word read in the previous enabled cycle
  // write port
  input  logic [DataBits/LaneBits-1:0]     we_i,     // write enable per lane
  input  logic [AddrBits-1:0]              waddr_i,  // word address
  input  logic [DataBits-1:0]              wdata_i   // data (lane l at [l*LaneBits +: LaneBits])
);

  `include "xf_assert.svh"

  localparam int Lanes = DataBits / LaneBits;

  `ASSERT_INIT(WordsLegal_A, Words >= 2)
  `ASSERT_INIT(LanesLegal_A, Lanes * LaneBits == DataBits && Lanes >= 1)
  `ASSERT_INIT(PortsLegal_A, NumReadPorts == 1 || NumReadPorts == 2)

  // Storage, not logic: left out of toggle coverage (make coverage counts every bit of it).
  logic [DataBits-1:0] mem_q [Words];  // coverage: storage
  logic                waddr_ok;

  assign waddr_ok = {1'b0, waddr_i} < (AddrBits + 1)'(Words);

  // Storage: written per lane, no reset (a RAM).
  always_ff @(posedge clk_i) begin
    for (int l = 0; l < Lanes; l++) begin
      if (we_i[l] && waddr_ok) begin
        mem_q[waddr_i][l*LaneBits +: LaneBits] <= wdata_i[l*LaneBits +: LaneBits];
      end
    end
  end

  for (genvar p = 0; p < NumReadPorts; p++) begin : gen_read
    logic [DataBits-1:0] rdata_q;
    always_ff @(posedge clk_i) begin
      if (re_i[p]) begin
        rdata_q <= mem_q[raddr_i[p*AddrBits +: AddrBits]];
      end
    end
    assign rdata_o[p*DataBits +: DataBits] = rdata_q;
    `ASSERT(ReadAddrInRange_A, !re_i[p] || int'(raddr_i[p*AddrBits +: AddrBits]) < Words)
  end

  `ASSERT(WriteAddrInRange_A, we_i == '0 || waddr_ok)

endmodule
