// gen_system: a Verilog system top and its host-port stimulus for one collective
// (docs/simulators.md).
//
//   gen_system --topology T --collective C --dtype D --op O --bytes N [--tiles N] [--seed S]
//              [--algo A] [--flit-bits 128] --out DIR      (gen_system --help: every option)
//
// Writes into DIR:
//   xf_system_top.sv       module xf_system_top: one xf_chip per chip and one xf_switch per switch
//                          node with the parameters and straps of sw/backends/rtl/rtl_system.hpp,
//                          the links through PhyWireDelayCycles register stages each way
//                          (rtl/xf_delay.sv), the barrier AND, and one host port per node
//                          (flattened vectors, node n at [n] / [n*32 +: 32]);
//   xf_system_tb_gen.svh   what tb/icarus/xf_system_tb.sv needs to know about this machine: node
//                          and chip counts, the stimulus size, the backdoor load and check tasks
//                          (hierarchical paths into every tile's DMEM);
//   stim_pins.hex          every host-port access of xf::run_collective, per node, with the read
//                          data the SystemC model returned (and a mask of the bits to compare);
//   stim_backdoor.hex      the same without the DMEM accesses, which the backdoor files replace:
//   dmem_c<C>_t<T>.hex     tile T of chip C's DMEM before the run ($readmemh), and
//   dmem_exp_c<C>_t<T>.hex {mask, expected} per DMEM word after the run (the output bytes);
//   expected.txt           the model's collective cycles and the run's parameters.
//
// The stimulus is recorded by running xf::run_collective (the driver sequence every backend
// shares) on the SystemC model through a recording host adapter. Config reads answer what the
// RTL chip and switch report (so the driver writes exactly the routing-table entries they hold).
// Exit status: 0 done, 1 the model run failed or disagrees with the reference, 2 bad input.
#include <sys/stat.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <map>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "options.hpp"
#include "system.hpp"
#include "xf/alu.hpp"
#include "xf/checks.hpp"
#include "xf/cli.hpp"
#include "xf/compiler.hpp"
#include "xf/host_driver.hpp"
#include "xf/layout.hpp"
#include "xf/topology.hpp"

using namespace xf;
using cli::parse_int;
using cli::Usage;

namespace {

// The RTL nodes of sw/backends/rtl/rtl_system.hpp: xf_chip and xf_switch with their defaults.
constexpr int kRtlLinks = 4;
constexpr int kRtlTiles = 4;
constexpr uint32_t kRtlTableChips = 64;
constexpr uint32_t kRtlDmemBytes = 786432;
constexpr int kPhyWireDelayCycles = static_cast<int>(kLinkLatencyCycles - kLinkRegCycles);
// {valid, flit, ctl, crc} of one PHY direction at flit width f (docs/reliability.md section 1).
constexpr int word_bits(int f) { return 1 + (f + 2) + 32 + 32; }

// The Config register of the RTL nodes (rtl/xf_chip.sv, rtl/xf_switch.sv config_i).
uint32_t rtl_config(bool chip, int flit_bits) {
  uint32_t log2_table = 0;
  while ((1u << log2_table) < kRtlTableChips) ++log2_table;
  return (chip ? (kRtlDmemBytes / 1024) << 16 : 0u) | log2_table << 12 | kRtlLinks << 8 |
         config_flit_field(flit_bits) | (chip ? static_cast<uint32_t>(kRtlTiles) : 0u);
}

// One recorded host-port access.
enum Kind : uint32_t { kEnd = 0, kWrite = 1, kRead = 2, kHeader = 3 };
struct Access {
  Kind kind;
  uint32_t addr, data, mask;
  int dmem_tile;  // >= 0: a DMEM access of this tile (replaced by the backdoor files)
};

// The model's host port (as model/driver.cpp's ModelHost: accesses take effect at once) with
// every access recorded per node, before and after the run.
struct RecordingHost {
  model::System& sys;
  int chips;
  int flit_bits;
  bool after_run = false;
  model::RunStats stats;
  std::vector<std::vector<Access>> load, post;  // [node]

  RecordingHost(model::System& s, int nodes, int p, int flit_bits)
      : sys(s), chips(p), flit_bits(flit_bits) {
    load.resize(nodes);
    post.resize(nodes);
  }
  int dmem_tile(int node, uint32_t addr) const {
    if (node >= chips || addr < reg::kTileBase) return -1;
    const uint32_t off = (addr - reg::kTileBase) % reg::kTileStride;
    return off >= reg::kTileDmem ? static_cast<int>((addr - reg::kTileBase) / reg::kTileStride)
                                 : -1;
  }
  void record(int node, Kind k, uint32_t addr, uint32_t data, uint32_t mask) {
    (after_run ? post : load)[node].push_back({k, addr, data, mask, dmem_tile(node, addr)});
  }
  // The bits of a register read the RTL must match: Config whole, the error registers of the
  // driver's diagnosis (Status bit 31, Misroutes, XbErrors, a tile's error code and done bit).
  uint32_t read_mask(int node, uint32_t addr) const {
    if (addr == reg::kConfig) return ~0u;
    if (addr == reg::kStatus) return 1u << 31;
    if (addr == reg::kMisroutes || addr == reg::kXbErrors) return ~0u;
    if (node < chips && addr >= reg::kTileBase &&
        (addr - reg::kTileBase) % reg::kTileStride == reg::kTileStatus)
      return 0x1Fu;
    return 0;
  }
  uint32_t read32(int node, uint32_t addr) {
    const uint32_t v =
        addr == reg::kConfig ? rtl_config(node < chips, flit_bits) : sys.host_read32(node, addr);
    record(node, kRead, addr, v, read_mask(node, addr));
    return v;
  }
  void write(int node, uint32_t addr, const void* p, size_t n) {
    sys.host_write(node, addr, p, n);
    const uint8_t* b = static_cast<const uint8_t*>(p);
    for (size_t i = 0; i < n; i += 4) {
      uint32_t v;
      std::memcpy(&v, b + i, 4);
      record(node, kWrite, addr + static_cast<uint32_t>(i), v, 0);
    }
  }
  // DMEM reads get their mask later (the output bytes, output_masks()).
  void read(int node, uint32_t addr, void* p, size_t n) {
    sys.host_read(node, addr, p, n);
    const uint8_t* b = static_cast<const uint8_t*>(p);
    for (size_t i = 0; i < n; i += 4) {
      uint32_t v;
      std::memcpy(&v, b + i, 4);
      const uint32_t a = addr + static_cast<uint32_t>(i);
      record(node, kRead, a, v, dmem_tile(node, a) >= 0 ? 0 : read_mask(node, a));
    }
  }
  void flush() {}
  model::RunStats run(uint64_t max_cycles) {
    after_run = true;
    const auto t0 = std::chrono::steady_clock::now();
    stats = sys.run(max_cycles);
    stats.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    return stats;
  }
  bool direct(int, int, uint32_t, void*, size_t, bool) { return false; }  // as the RTL: pins
};

// masks[t][b] = 0xFF where byte b of tile t's DMEM is an output byte of `chip`. unload_tiles only
// copies bytes, so four probes with the bytes of (t << 20 | b) find every output byte's source.
std::vector<Bytes> output_masks(const Plan& plan, int chip) {
  std::vector<Bytes> masks(plan.tiles);
  std::vector<Bytes> probe(plan.tiles);
  for (int t = 0; t < plan.tiles; ++t) masks[t].assign(tile_footprint(plan, t), 0);
  std::vector<uint32_t> src(io_out_bytes(plan, chip), 0);
  for (int k = 0; k < 4; ++k) {
    for (int t = 0; t < plan.tiles; ++t) {
      probe[t].resize(masks[t].size());
      for (size_t b = 0; b < probe[t].size(); ++b)
        probe[t][b] = static_cast<uint8_t>((static_cast<uint32_t>(t) << 20 | b) >> (8 * k));
    }
    const Bytes out = unload_tiles(plan, chip, probe);
    for (size_t i = 0; i < out.size(); ++i) src[i] |= static_cast<uint32_t>(out[i]) << (8 * k);
  }
  for (uint32_t s : src) masks[s >> 20].at(s & 0xFFFFFu) = 0xFF;
  return masks;
}

std::string hex32(uint32_t v) {
  char b[12];
  std::snprintf(b, sizeof b, "%08x", v);
  return b;
}

// One DMEM word of n bytes (the flit width's) as $readmemh reads it: byte n-1 first.
std::string hex_word(const uint8_t* w, int n) {
  std::string s;
  char b[4];
  for (int i = n - 1; i >= 0; --i) {
    std::snprintf(b, sizeof b, "%02x", w[i]);
    s += b;
  }
  return s;
}

class Writer {
 public:
  explicit Writer(const std::string& dir) : dir_(dir) {}
  std::ofstream open(const std::string& name) const {
    std::ofstream f(dir_ + "/" + name);
    if (!f) throw Usage("--out: cannot write " + dir_ + "/" + name);
    return f;
  }

 private:
  std::string dir_;
};

// The stimulus file: NumNodes header entries {kHeader, load list, post list, 0}, then per node
// its load list and its post-run list, each ended by kEnd. One entry per line, 128 bits:
// {kind, addr, data, mask}.
void write_stimulus(const Writer& w, const std::string& name, const RecordingHost& h, bool backdoor,
                    size_t* words) {
  const int N = static_cast<int>(h.load.size());
  std::vector<Access> body;
  std::vector<uint32_t> load_at(N), post_at(N);
  for (int n = 0; n < N; ++n) {
    for (int phase = 0; phase < 2; ++phase) {
      (phase ? post_at : load_at)[n] = static_cast<uint32_t>(N + body.size());
      for (const Access& a : (phase ? h.post : h.load)[n])
        if (!backdoor || a.dmem_tile < 0) body.push_back(a);
      body.push_back({kEnd, 0, 0, 0, -1});
    }
  }
  std::ofstream f = w.open(name);
  for (int n = 0; n < N; ++n)
    f << hex32(kHeader) << hex32(load_at[n]) << hex32(post_at[n]) << hex32(0) << "\n";
  for (const Access& a : body)
    f << hex32(a.kind) << hex32(a.addr) << hex32(a.data) << hex32(a.mask) << "\n";
  *words = N + body.size();
}

// The generated system top.
// How the nodes of a generated top are built: sw/backends/rtl/rtl_system.hpp's chips by default; an
// FPGA build (--top-only) chooses smaller ones. A negative value leaves the module's default.
struct NodeBuild {
  int tiles = kRtlTiles;      // NumTiles of every chip
  int tiles_in_use = 0;       // cfg_num_tiles_i
  int links = kRtlLinks;      // NumLinks of every node
  int imem_words = -1;        // ImemWords
  int pmem_words = -1;        // PmemWords
  int dmem_bytes = -1;        // DmemBytes
  int table_chips = -1;       // TableChips (chips and switches)
  int alu_dtypes = -1;        // AluDtypes (bit d = dtype d)
  bool sync_buffers = false;  // SyncBuffers = 1 (chips and switches): buffers in block RAM
  bool package = false;       // also write package xf_system_pkg (for fpga/common/xf_fpga_core.sv)
};

std::string system_top(const Topology& topo, const NodeBuild& nb) {
  const int N = topo.num_nodes, P = topo.num_chips, L = nb.links;
  const int F = topo.flit_bits, FW = F + 2;  // flit width and its {head, tail, data} word
  std::ostringstream o;
  o << "// Generated by gen_system (sw/tools/gen_system.cpp) for --topology " << topo.spec
    << ": do not edit.\n"
       "// The machine of sw/backends/rtl/rtl_system.hpp as one Verilog top (docs/simulators.md): "
    << P << " xf_chip and\n// " << N - P
    << " xf_switch; every link through PhyWireDelayCycles = " << kPhyWireDelayCycles
    << " register stages each way\n"
       "// (rtl/xf_delay.sv, reset to zero like the C++ wire of sw/backends/rtl/phy_wire.hpp); "
       "unconnected "
       "PHY\n"
       "// inputs at zero; the barrier: the AND of every chip's bar_arrived_o, back to every "
       "chip in\n"
       "// the same cycle; one host port per node: node n's signals at [n] or [n*32 +: 32] of "
       "the\n"
       "// flattened ports. Chips are nodes 0.."
    << P - 1 << ", switches follow. Tiles in use per chip: " << nb.tiles_in_use
    << ".\n"
       "//\n"
       "// Combinational paths: none from inputs to outputs (the nodes register their outputs).\n";
  if (nb.package) {
    // The machine's name for the serial bridge's Machine register: byte i at [8*i +: 8].
    std::string hex;
    for (int i = 63; i >= 0; --i) {
      char h[4];
      const unsigned char ch = i < static_cast<int>(topo.spec.size()) ? topo.spec[i] : 0;
      std::snprintf(h, sizeof h, "%02x", ch);
      hex += h;
    }
    o << "package xf_system_pkg;\n"
      << "  localparam int NumNodes = " << N << ";  // host ports: chips, then switches\n"
      << "  localparam int NumChips = " << P << ";\n"
      << "  localparam int TilesPerChip = " << nb.tiles_in_use << ";\n"
      << "  // \"" << topo.spec << "\" in ASCII, byte i at [8*i +: 8] (xf_uart_bridge's Machine)\n"
      << "  localparam logic [511:0] MachineName = 512'h" << hex << ";\nendpackage\n\n";
  }
  o << "module xf_system_top (\n"
       "  input  logic              clk_i,             // clock\n"
       "  input  logic              rst_ni,            // asynchronous reset, active low\n"
       "  // host ports, node n at [n] / [n*32 +: 32]\n"
       "  input  logic ["
    << N - 1
    << ":0]        host_req_valid_i,  // an access is offered\n"
       "  output logic ["
    << N - 1
    << ":0]        host_req_ready_o,  // no access in progress\n"
       "  input  logic ["
    << N - 1
    << ":0]        host_req_write_i,  // 1 write, 0 read\n"
       "  input  logic ["
    << N * 32 - 1
    << ":0]       host_req_addr_i,   // byte address in the node's map\n"
       "  input  logic ["
    << N * 32 - 1
    << ":0]       host_req_wdata_i,  // write data\n"
       "  output logic ["
    << N - 1
    << ":0]        host_rsp_valid_o,  // the access is answered\n"
       "  output logic ["
    << N * 32 - 1
    << ":0]       host_rsp_rdata_o,  // read data\n"
       "  output logic ["
    << N - 1
    << ":0]        host_rsp_err_o,    // the access was not allowed\n"
       "  // status\n"
       "  output logic ["
    << P - 1
    << ":0]        stat_done_o,       // chip c: every tile in use has ended\n"
       "  output logic ["
    << N - 1 << ":0]        stat_err_o         // node n: Status bit 31\n);\n\n";
  o << "  localparam int PhyWireDelayCycles = " << kPhyWireDelayCycles << ";\n";
  o << "  localparam int WordBits = " << word_bits(F) << ";  // {valid, flit, ctl, crc}\n\n";
  // Per node and port: the word leaving (tx) and the word arriving (rx).
  for (int n = 0; n < N; ++n) {
    o << "  // node " << n << (n < P ? " (chip)" : " (switch)") << "\n";
    o << "  logic [" << L - 1 << ":0] n" << n << "_tx_valid;\n";
    o << "  logic [" << L * FW - 1 << ":0] n" << n << "_tx_flit;\n";
    o << "  logic [" << L * 32 - 1 << ":0] n" << n << "_tx_ctl, n" << n << "_tx_crc;\n";
    for (int p = 0; p < L; ++p)
      o << "  logic [WordBits-1:0] n" << n << "_p" << p << "_tx, n" << n << "_p" << p << "_rx;\n";
  }
  o << "  logic [" << P - 1 << ":0] bar_arrived;\n  logic bar_all;\n\n";
  o << "  // ---- Wires: PhyWireDelayCycles register stages each way --------------------------\n";
  std::vector<std::vector<bool>> connected(N, std::vector<bool>(L, false));
  for (const Link& l : topo.links) {
    connected[l.a][l.pa] = connected[l.b][l.pb] = true;
    for (int dir = 0; dir < 2; ++dir) {
      const int a = dir ? l.b : l.a, pa = dir ? l.pb : l.pa;
      const int b = dir ? l.a : l.b, pb = dir ? l.pa : l.pb;
      o << "  xf_delay #(\n    .WidthBits(WordBits),\n    .Depth    (PhyWireDelayCycles)\n  ) "
        << "u_wire_n" << a << "p" << pa << "_n" << b << "p" << pb
        << " (\n    .clk_i (clk_i),\n    .rst_ni(rst_ni),\n    .d_i   (n" << a << "_p" << pa
        << "_tx),\n    .q_o   (n" << b << "_p" << pb << "_rx)\n  );\n";
    }
  }
  o << "\n  // Unconnected ports receive nothing (phy_rx_* at zero).\n";
  std::ostringstream unused;
  for (int n = 0; n < N; ++n)
    for (int p = 0; p < L; ++p) {
      o << "  assign n" << n << "_p" << p << "_tx = {n" << n << "_tx_valid[" << p << "], n" << n
        << "_tx_flit[" << p * FW << " +: " << FW << "], n" << n << "_tx_ctl[" << p * 32
        << " +: 32], n" << n << "_tx_crc[" << p * 32 << " +: 32]};\n";
      if (!connected[n][p]) {
        o << "  assign n" << n << "_p" << p << "_rx = '0;\n";
        unused << (unused.tellp() > 0 ? ", " : "") << "n" << n << "_p" << p << "_tx";
      }
    }
  if (unused.tellp() > 0) {
    o << "  logic unused_tx;\n  assign unused_tx = ^{" << unused.str() << "};\n";
  }
  o << "\n  // ---- Barrier: the AND over all chips, in the same cycle "
       "----------------------------\n"
    << "  assign bar_all = &bar_arrived;\n\n";
  auto rx = [&](int n, int lsb, int width) {
    // {port L-1, ..., port 0} of one field of the rx words
    std::ostringstream s;
    s << "{";
    for (int p = L - 1; p >= 0; --p) {
      s << "n" << n << "_p" << p << "_rx[" << lsb + width - 1;
      if (width > 1) s << ":" << lsb;
      s << "]" << (p ? ", " : "}");
    }
    return s.str();
  };
  for (int n = 0; n < N; ++n) {
    const bool chip = n < P;
    o << "  // ---- Node " << n << (chip ? ": chip " : ": switch ") << n << " ("
      << topo.num_ports[n] << " ports) " << std::string(chip ? 55 : 53, '-') << "\n";
    std::vector<std::pair<const char*, std::string>> params;
    if (F != static_cast<int>(kFlitBits)) params.push_back({"FlitBits", std::to_string(F)});
    if (chip) params.push_back({"NumTiles", std::to_string(nb.tiles)});
    params.push_back({"NumLinks", std::to_string(L)});
    if (chip) {
      if (nb.imem_words >= 0) params.push_back({"ImemWords", std::to_string(nb.imem_words)});
      if (nb.pmem_words >= 0) params.push_back({"PmemWords", std::to_string(nb.pmem_words)});
      if (nb.dmem_bytes >= 0) params.push_back({"DmemBytes", std::to_string(nb.dmem_bytes)});
    }
    if (nb.table_chips >= 0) params.push_back({"TableChips", std::to_string(nb.table_chips)});
    if (chip && nb.alu_dtypes >= 0) {
      char h[16];
      std::snprintf(h, sizeof h, "8'h%02X", nb.alu_dtypes);
      params.push_back({"AluDtypes", h});
    }
    if (nb.sync_buffers) params.push_back({"SyncBuffers", "1'b1"});
    size_t width = 0;
    for (const auto& p : params) width = std::max(width, std::strlen(p.first));
    o << "  " << (chip ? "xf_chip" : "xf_switch") << " #(\n";
    for (size_t i = 0; i < params.size(); ++i)
      o << "    ." << params[i].first << std::string(width - std::strlen(params[i].first), ' ')
        << "(" << params[i].second << ")" << (i + 1 < params.size() ? ",\n" : "\n");
    o << "  ) " << (chip ? "u_chip" : "u_switch") << n << " (\n";
    o << "    .clk_i           (clk_i),\n    .rst_ni          (rst_ni),\n";
    if (chip) {
      o << "    .cfg_chip_id_i   (12'd" << n << "),\n";
      o << "    .cfg_num_chips_i (13'd" << P << "),\n";
      o << "    .cfg_num_tiles_i (5'd" << nb.tiles_in_use << "),\n";
    } else {
      o << "    .cfg_node_id_i   (12'd" << n << "),\n";
    }
    o << "    .cfg_num_ports_i (" << (chip ? "4'd" : "5'd") << topo.num_ports[n] << "),\n";
    o << "    .host_req_valid_i(host_req_valid_i[" << n << "]),\n";
    o << "    .host_req_ready_o(host_req_ready_o[" << n << "]),\n";
    o << "    .host_req_write_i(host_req_write_i[" << n << "]),\n";
    o << "    .host_req_addr_i (host_req_addr_i[" << n * 32 << " +: 32]),\n";
    o << "    .host_req_wdata_i(host_req_wdata_i[" << n * 32 << " +: 32]),\n";
    o << "    .host_rsp_valid_o(host_rsp_valid_o[" << n << "]),\n";
    o << "    .host_rsp_rdata_o(host_rsp_rdata_o[" << n * 32 << " +: 32]),\n";
    o << "    .host_rsp_err_o  (host_rsp_err_o[" << n << "]),\n";
    o << "    .phy_tx_valid_o  (n" << n << "_tx_valid),\n";
    o << "    .phy_tx_flit_o   (n" << n << "_tx_flit),\n";
    o << "    .phy_tx_ctl_o    (n" << n << "_tx_ctl),\n";
    o << "    .phy_tx_crc_o    (n" << n << "_tx_crc),\n";
    // Word bits: valid [64 + FW], flit [63 + FW:64], ctl [63:32], crc [31:0].
    o << "    .phy_rx_valid_i  (" << rx(n, 64 + FW, 1) << "),\n";
    o << "    .phy_rx_flit_i   (" << rx(n, 64, FW) << "),\n";
    o << "    .phy_rx_ctl_i    (" << rx(n, 32, 32) << "),\n";
    o << "    .phy_rx_crc_i    (" << rx(n, 0, 32) << "),\n";
    if (chip) {
      o << "    .bar_arrived_o   (bar_arrived[" << n << "]),\n";
      o << "    .bar_all_i       (bar_all),\n";
      o << "    .stat_done_o     (stat_done_o[" << n << "]),\n";
    }
    o << "    .stat_err_o      (stat_err_o[" << n << "])\n  );\n\n";
  }
  o << "endmodule\n";
  return o.str();
}

// What the testbench needs to know about this machine (included inside xf_system_tb).
std::string tb_include(const Topology& topo, const Plan& plan, size_t pins_words,
                       size_t backdoor_words, uint64_t model_cycles,
                       const std::vector<std::vector<uint32_t>>& exp_words) {
  const int P = topo.num_chips;
  std::ostringstream o;
  size_t max_words = 1;
  for (const auto& c : exp_words)
    for (uint32_t w : c) max_words = std::max<size_t>(max_words, w);
  o << "// Generated by gen_system for --topology " << topo.spec << " (" << plan.tiles
    << " tiles per chip): do not edit.\n"
    << "localparam int NumNodes = " << topo.num_nodes << ";\n"
    << "localparam int NumChips = " << P << ";\n"
    << "localparam int TilesInUse = " << plan.tiles << ";\n"
    << "localparam int StimWordsPins = " << pins_words << ";\n"
    << "localparam int StimWordsBackdoor = " << backdoor_words << ";\n"
    << "localparam int BdMaxWords = " << max_words << ";\n"
    << "localparam longint ModelCycles = " << model_cycles << ";\n"
    << "localparam int DmemWordBits = " << topo.flit_bits << ";  // the flit width\n"
    << "logic [2 * DmemWordBits - 1:0] bd_exp [BdMaxWords];  // {mask, expected} per DMEM word\n\n";
  o << "// Every tile's DMEM before the run, from dmem_c<C>_t<T>.hex.\n"
       "task automatic backdoor_load(input string dir);\n";
  for (int c = 0; c < P; ++c)
    for (int t = 0; t < plan.tiles; ++t)
      o << "  $readmemh($sformatf(\"%0s/dmem_c" << c << "_t" << t << ".hex\", dir), u_dut.u_chip"
        << c << ".gen_tile[" << t << "].u_tile.u_dmem.mem_q, 0, " << exp_words[c][t] - 1 << ");\n";
  o << "endtask\n\n";
  o << "// Every output byte of every tile's DMEM after the run against dmem_exp_c<C>_t<T>.hex\n"
       "// ({mask, expected} per word); returns the number of words that differ.\n"
       "task automatic backdoor_check(input string dir, output int bad);\n"
       "  bad = 0;\n";
  for (int c = 0; c < P; ++c)
    for (int t = 0; t < plan.tiles; ++t) {
      const std::string mem = "u_dut.u_chip" + std::to_string(c) + ".gen_tile[" +
                              std::to_string(t) + "].u_tile." + "u_dmem.mem_q";
      o << "  $readmemh($sformatf(\"%0s/dmem_exp_c" << c << "_t" << t << ".hex\", dir), bd_exp, 0, "
        << exp_words[c][t] - 1 << ");\n"
        << "  for (int i = 0; i < " << exp_words[c][t] << "; i++) begin\n"
        << "    if (((" << mem << "[i] ^ bd_exp[i][DmemWordBits-1:0]) &\n"
        << "         bd_exp[i][2*DmemWordBits-1:DmemWordBits]) != '0) begin\n"
        << "      if (bad < 10) $display(\"xf_system_tb: chip " << c << " tile " << t
        << " DMEM word %0d: %h, expected %h (mask %h)\", i, " << mem
        << "[i], bd_exp[i][DmemWordBits-1:0], bd_exp[i][2*DmemWordBits-1:DmemWordBits]);\n"
        << "      bad++;\n    end\n  end\n";
    }
  o << "endtask\n";
  return o.str();
}

void make_dirs(const std::string& dir) {
  for (size_t i = 1; i <= dir.size(); ++i)
    if (i == dir.size() || dir[i] == '/') {
      const std::string d = dir.substr(0, i);
      if (mkdir(d.c_str(), 0777) != 0 && errno != EEXIST)
        throw Usage("--out: cannot create " + d + ": " + std::strerror(errno));
    }
}

// gen_system's options (one declaration each in add_options).
struct Args {
  std::string topology, out, top, alu_dtypes;
  int flit_bits = kFlitBits;
  CollectiveSpec spec;
  std::string tiles = "";  // checked per mode: 1..kRtlTiles for a collective, 1..16 for --top
  uint64_t seed = 1;
  NodeBuild nb;  // --top: the nodes' sizes (-1: the module's default)
  uint64_t dmem_bytes = 0;
};

// --top FILE: only the system top, with package xf_system_pkg, for an FPGA build
// (fpga/<board>/xf_system_top.sv; docs/fpga.md): chips as small as the options say.
int top_only(const CLI::App& app, Args& a) {
  for (const char* o : {"--collective", "--dtype", "--op", "--bytes", "--seed", "--algo", "--out"})
    if (tool::given(app, o)) throw Usage(std::string(o) + " is not used with --top");
  if (a.topology.empty()) throw Usage("--topology is required");
  Topology topo = parse_topology(a.topology);
  set_flit_bits(topo, a.flit_bits);
  NodeBuild& nb = a.nb;
  nb.package = true;
  nb.tiles = static_cast<int>(parse_int("tiles", a.tiles.empty() ? "1" : a.tiles, 1, 16));
  nb.tiles_in_use = nb.tiles;
  int ports = 1;
  for (int n = 0; n < topo.num_nodes; ++n) ports = std::max(ports, topo.num_ports[n]);
  if (nb.links < 0) nb.links = ports;
  if (nb.links < ports)
    throw Usage("--links " + std::to_string(nb.links) + ": --topology " + topo.spec +
                " has a node with " + std::to_string(ports) + " ports");
  if (tool::given(app, "--dmem-bytes")) {
    const uint64_t b = a.dmem_bytes;
    if (b < 32 || b > kRtlDmemBytes || b % 16)
      throw Usage("--dmem-bytes " + app.get_option("--dmem-bytes")->as<std::string>() +
                  ": a multiple of 16 from 32 to 768K (the tile's limits)");
    nb.dmem_bytes = static_cast<int>(b);
  }
  if (nb.table_chips >= 0 &&
      ((nb.table_chips & (nb.table_chips - 1)) != 0 || nb.table_chips < topo.num_nodes))
    throw Usage("--table-chips " + std::to_string(nb.table_chips) +
                ": a power of two of at least " + std::to_string(topo.num_nodes) +
                " (the nodes of " + topo.spec + ")");
  if (!a.alu_dtypes.empty()) {
    nb.alu_dtypes = 0;
    std::stringstream ss(a.alu_dtypes);
    for (std::string d; std::getline(ss, d, ',');)
      nb.alu_dtypes |=
          d == "scaleadd" ? 1 << kAluScaleAddBit : 1 << static_cast<int>(parse_dtype(d));
    if (((nb.alu_dtypes >> kAluScaleAddBit) & 1) &&
        !((nb.alu_dtypes >> static_cast<int>(DType::kFp32)) & 1))
      throw Usage("--alu-dtypes " + a.alu_dtypes + ": scaleadd is an fp32 unit; list fp32 too");
  }
  const std::string& path = a.top;
  std::ofstream f(path);
  if (!f) throw Usage("--top: cannot write " + path);
  f << system_top(topo, nb);
  if (!f) throw Usage("--top: cannot write " + path);
  std::printf("gen_system: %s, %d chips of %d tiles and %d links; wrote %s; flit %d bits\n",
              topo.spec.c_str(), topo.num_chips, nb.tiles, nb.links, path.c_str(), topo.flit_bits);
  return 0;
}

void add_options(CLI::App& app, Args& a) {
  tool::add_text(app, "--topology", a.topology, "T",
                 "ring:P biring:P line:P ladder:P tree:SPEC file:PATH (docs/topology.md)");
  tool::add_flit_bits(app, a.flit_bits);
  tool::add_collective(app, a.spec);
  tool::add_dtype(app, a.spec);
  tool::add_op(app, a.spec);
  tool::add_bytes(app, "--bytes", a.spec.bytes, "size of the vector per chip (required)");
  tool::add_text(app, "--tiles", a.tiles, "N",
                 "tiles per chip: 1..4 (the RTL chip's), with --top 1..16")
      ->default_str("4, with --top 1");
  tool::add_seed(app, a.seed);
  tool::add_algo(app, a.spec);
  tool::add_file(app, "--out", a.out, "the directory to write (required)", "DIR");
  auto fpga = [](CLI::Option* o) { return o->group("FPGA build (--top)"); };
  fpga(tool::add_file(app, "--top", a.top,
                      "write only the system top (and package xf_system_pkg) for an FPGA build "
                      "(docs/fpga.md)"));
  fpga(tool::add_int(app, "--links", a.nb.links, 1, 8,
                     "links per node (default: the most any "
                     "node of the topology has)"));
  fpga(tool::add_int(app, "--imem-words", a.nb.imem_words, 1, 4096, "ImemWords of every tile"));
  fpga(tool::add_int(app, "--pmem-words", a.nb.pmem_words, 1, 16384, "PmemWords of every tile"));
  fpga(tool::add_bytes(app, "--dmem-bytes", a.dmem_bytes, "DmemBytes of every tile"));
  fpga(tool::add_int(app, "--table-chips", a.nb.table_chips, 1, 4096,
                     "TableChips: routing-table entries (a power of two)"));
  fpga(tool::add_text(app, "--alu-dtypes", a.alu_dtypes, "LIST",
                      "the types the ALUs reduce: int8,uint8,...,fp32,scaleadd"));
  fpga(tool::add_flag(app, "--sync-buffers", a.nb.sync_buffers,
                      "read the links' buffers and the XB queues one cycle ahead, so that block "
                      "RAM holds them (SyncBuffers = 1, for iCE40; the same cycles; docs/fpga.md "
                      "section 10)"));
}

int collective(const CLI::App& app, Args& a);

}  // namespace

int sc_main(int argc, char** argv) {
  auto app = tool::make_app(
      "gen_system",
      "Writes DIR/xf_system_top.sv, the host-port stimulus and the expected results of the "
      "SystemC model for tb/icarus/xf_system_tb.sv (docs/simulators.md); with --top FILE only "
      "the system top for an FPGA build (docs/fpga.md).");
  Args a;
  a.nb.links = -1;  // --top: the topology's widest node unless given
  add_options(*app, a);
  return tool::run_tool("gen_system", *app, std::vector<std::string>(argv + 1, argv + argc),
                        [&] { return a.top.empty() ? collective(*app, a) : top_only(*app, a); });
}

namespace {

// The system top, its stimulus and the expected results of one collective.
int collective(const CLI::App& app, Args& a) {
  for (const char* o : {"--links", "--imem-words", "--pmem-words", "--dmem-bytes", "--table-chips",
                        "--alu-dtypes", "--sync-buffers"})
    if (tool::given(app, o)) throw Usage(std::string(o) + " is for --top (an FPGA build)");
  for (const char* req : {"--topology", "--bytes", "--out"})
    if (!tool::given(app, req)) throw Usage(std::string(req) + " is required");
  Topology topo = parse_topology(a.topology);
  set_flit_bits(topo, a.flit_bits);
  for (int n = 0; n < topo.num_nodes; ++n)
    if (topo.num_ports[n] > kRtlLinks)
      throw Usage("--topology " + topo.spec + ": node " + std::to_string(n) + " has " +
                  std::to_string(topo.num_ports[n]) + " ports; the RTL chip and switch have " +
                  std::to_string(kRtlLinks));
  if (static_cast<uint32_t>(topo.num_chips) > kRtlTableChips)
    throw Usage("--topology " + topo.spec + ": " + std::to_string(topo.num_chips) +
                " chips; the RTL routing table holds " + std::to_string(kRtlTableChips));
  CollectiveSpec spec = a.spec;
  if (!a.tiles.empty()) spec.tiles = static_cast<int>(parse_int("tiles", a.tiles, 1, kRtlTiles));
  const uint64_t seed = a.seed;
  const std::string dir = a.out;
  make_dirs(dir);
  const Writer w(dir);
  std::ofstream probe = w.open("expected.txt");  // fails early on an unwritable DIR

  const Plan plan = plan_collective(topo, spec);
  const Image img = build_image(topo, plan);
  const std::vector<Bytes> inputs =
      make_inputs(plan, seed, dtype_is_float(spec.dtype) ? 1 : 0);  // as `fabric run`

  // Record the driver's sequence on the model.
  uint32_t dmem = 0;
  for (int t = 0; t < plan.tiles; ++t) dmem = std::max(dmem, tile_footprint(plan, t));
  model::System sys(topo, plan.tiles, dmem);
  RecordingHost host(sys, topo.num_nodes, topo.num_chips, topo.flit_bits);
  const HostRun<model::RunStats> run = run_collective(host, plan, img, inputs, 2'000'000'000);
  if (!run.stats.ok) {
    std::fprintf(stderr, "gen_system: the model run failed: %s\n", run.stats.error.c_str());
    return 1;
  }
  const Check chk = check_outputs(plan, inputs, run.outputs);
  if (!chk.ok()) {
    std::fprintf(stderr, "gen_system: the model's outputs disagree with the reference\n");
    return 1;
  }

  // DMEM reads: the output bytes of each word are compared; the backdoor files likewise.
  const int P = topo.num_chips;
  const int W = topo.flit_bytes();  // bytes of a DMEM word
  std::vector<std::vector<Bytes>> masks(P), before(P), after(P);
  std::vector<std::vector<uint32_t>> words(P);
  for (int c = 0; c < P; ++c) {
    masks[c] = output_masks(plan, c);
    for (int t = 0; t < plan.tiles; ++t) {
      const uint32_t n = (tile_footprint(plan, t) + 15) / 16 * 16;
      before[c].emplace_back(n, 0);
      after[c].emplace_back(n, 0);
      masks[c][t].resize(n, 0);
      words[c].push_back(n / W);
    }
  }
  uint64_t compared_bytes = 0;
  for (int c = 0; c < P; ++c) {
    for (int phase = 0; phase < 2; ++phase)
      for (Access& a : (phase ? host.post : host.load)[c]) {
        if (a.dmem_tile < 0) continue;
        const int t = a.dmem_tile;
        const uint32_t off = a.addr - reg::kTileBase - t * reg::kTileStride - reg::kTileDmem;
        Bytes& img_bytes = phase ? after[c][t] : before[c][t];
        std::memcpy(&img_bytes.at(off), &a.data, 4);
        if (phase && a.kind == kRead) {
          std::memcpy(&a.mask, &masks[c][t].at(off), 4);
          for (int i = 0; i < 4; ++i) compared_bytes += masks[c][t][off + i] != 0;
        }
      }
  }
  uint64_t out_bytes = 0;
  for (int c = 0; c < P; ++c) out_bytes += io_out_bytes(plan, c);
  if (compared_bytes != out_bytes)
    throw std::runtime_error("gen_system: the read-back covers " + std::to_string(compared_bytes) +
                             " output bytes, expected " + std::to_string(out_bytes));

  size_t pins_words = 0, bd_words = 0;
  write_stimulus(w, "stim_pins.hex", host, false, &pins_words);
  write_stimulus(w, "stim_backdoor.hex", host, true, &bd_words);
  for (int c = 0; c < P; ++c)
    for (int t = 0; t < plan.tiles; ++t) {
      std::ofstream fb = w.open("dmem_c" + std::to_string(c) + "_t" + std::to_string(t) + ".hex");
      std::ofstream fe =
          w.open("dmem_exp_c" + std::to_string(c) + "_t" + std::to_string(t) + ".hex");
      for (uint32_t i = 0; i < words[c][t]; ++i) {
        fb << hex_word(&before[c][t][W * i], W) << "\n";
        fe << hex_word(&masks[c][t][W * i], W) << hex_word(&after[c][t][W * i], W) << "\n";
      }
    }
  NodeBuild nb;
  nb.tiles_in_use = spec.tiles;
  w.open("xf_system_top.sv") << system_top(topo, nb);
  w.open("xf_system_tb_gen.svh") << tb_include(topo, plan, pins_words, bd_words, run.stats.cycles,
                                               words);
  probe << "model_cycles " << run.stats.cycles << "\n"
        << "model_run_seconds " << run.stats.seconds << "\n"
        << "topology " << topo.spec << "\nchips " << P << "\nnodes " << topo.num_nodes << "\ntiles "
        << plan.tiles << "\nbytes " << spec.bytes << "\noutput_bytes " << out_bytes
        << "\nstim_pins_words " << pins_words << "\nstim_backdoor_words " << bd_words
        << "\nflit_bits " << topo.flit_bits << "\n";
  if (!probe) throw Usage("--out: cannot write " + dir + "/expected.txt");
  std::printf(
      "gen_system: %s, %d chips, %d nodes, %d tiles: model %llu cycles; wrote %s; flit %d bits\n",
      topo.spec.c_str(), P, topo.num_nodes, plan.tiles,
      static_cast<unsigned long long>(run.stats.cycles), dir.c_str(), topo.flit_bits);
  return 0;
}

}  // namespace
