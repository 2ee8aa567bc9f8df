// The collective compiler: topology + collective -> one program image for every chip, one
// index value per chip, and the routing tables (docs/compiler.md, docs/algorithms.md).
//
// Pipeline:
//   1. layout: the user's vector of `bytes` per chip is cut into P blocks (flit balanced) and
//      each block into T tile slices; tile t's data memory holds its slices of every block in
//      block order ("tile plane" t). Tile planes run independently and in parallel.
//   2. schedule: the algorithm emits Transfers per plane: (step, src chip, dst chip, byte range,
//      Write or Reduce). Every element has one fixed reduction order.
//   3. sync: per chip and plane, transfers are ordered by (step, chunk); before each send the
//      compiler inserts waits on the arrival counters of exactly the senders whose earlier
//      transfers overlap the range (dataflow, no global barrier).
//   4. image: one interpreter program per tile position (the same on every chip) plus a
//      parameter memory holding every chip's descriptor list, found through pmem[index].
#pragma once

#include <cstdint>
#include <functional>
#include <stdexcept>
#include <string>
#include <vector>

#include "xf/defs.hpp"
#include "xf/topology.hpp"

namespace xf {

struct CompileError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// kSgdStep is the sharded-update patent's sharded optimizer step (docs/compiler.md section 12):
// reduce-scatter of fp32 gradients, each chip's SGD-with-momentum update of its own shard with the
// ALU's ScaleAdd, then all-gather of the updated parameters.
enum class Collective { kAllReduce, kReduceScatter, kAllGather, kBroadcast, kReduce, kSgdStep };
enum class Algo { kAuto, kRing, kBiring, kLadder, kLine, kTree, kAvg, kButterfly };

const char* to_string(Collective c);
const char* to_string(Algo a);
Collective parse_collective(const std::string& s);  // throws CompileError
Algo parse_algo(const std::string& s);
DType parse_dtype(const std::string& s);
RedOp parse_op(const std::string& s);

struct CollectiveSpec {
  Collective coll = Collective::kAllReduce;
  DType dtype = DType::kFp32;
  RedOp op = RedOp::kSum;
  bool sat = false;    // saturating integer sum
  uint64_t bytes = 0;  // size of the full vector per chip (see docs/compiler.md)
  int root = 0;        // broadcast / reduce
  Algo algo = Algo::kAuto;
  int tiles = 4;             // tiles per chip (1..16)
  uint32_t chunk_bytes = 0;  // pipelining granule of each transfer; 0 = auto (docs/compiler.md)
  uint32_t tile_dmem_bytes = reg::kTileDmemSize;  // data memory per tile (host window)
  // Ring-family collectives get a compact loop program computing its blocks from the ring
  // position (index-relative arithmetic); false forces descriptor lists everywhere.
  bool ring_loops = true;
  // Descriptor lists of the same shape on every chip run as straight-line code (docs/compiler.md
  // section 8.3); false keeps the interpreter everywhere.
  bool unroll_lists = true;
  // A tile that is the only sender on a link of its chip sets the descriptor's hold bit on its
  // sends there, so its XB session stays open while it waits (docs/compiler.md section 8.4);
  // false closes every session when the send queue runs empty.
  bool hold_sessions = true;
  // The ring loop queues each forwarded chunk as a streamed Send (docs/isa.md section 5.2)
  // instead of waiting for the whole chunk: its words leave as they arrive (cut-through through
  // the data memory, docs/compiler.md section 8.5), and so does unrolled code where a send's
  // bytes have one writer (section 8.3); false waits for every chunk.
  bool stream_sends = true;
  // kSgdStep: w <- w - lr * m, m <- momentum * m + (g + weight_decay * w), in fp32 with the
  // ALU's ScaleAdd (two roundings per term, docs/alu.md section 6).
  float lr = 0.01f, momentum = 0.9f, weight_decay = 0.0f;
};

// One data movement of one tile plane.
struct Transfer {
  int step = 0;   // program-order key; dependencies only go to larger steps
  int plane = 0;  // tile plane (source and destination tile)
  int src = 0;    // source chip
  int dst = 0;    // destination chip
  uint32_t src_addr = 0, dst_addr = 0, bytes = 0;  // flit aligned addresses
  Opcode popc = Opcode::kWrite;                    // kWrite or kReduce
  uint8_t avg_shift = 0;
  bool avg_final = false;
  int lane = 0;
  bool scale_add = false;  // a Reduce with op ScaleAdd (fp32): dst += scale * payload
  uint32_t scale = 0;      // fp32 bits, written to the tile's CSR 17 before the send
};

// Where the user's bytes live: slice (block b, tile t) = user bytes [user_off, user_off+len)
// at tile t's data memory address addr.
struct Slice {
  int block = 0, tile = 0;
  uint64_t user_off = 0;
  uint32_t addr = 0, len = 0;
};

// What the host must load before and read after the run, per chip.
struct IoSpec {
  uint64_t in_bytes = 0;   // bytes the chip contributes
  uint64_t out_bytes = 0;  // bytes the chip receives as its result
  // Input bytes [0,in_bytes) and output bytes [0,out_bytes) of chip c map onto slices:
  // for allreduce/broadcast/reduce both are the whole vector; reduce-scatter outputs block c;
  // all-gather inputs block c.
};

// A tile plane that runs a ring reduce-scatter and/or all-gather: steps s0..s1, where at
// step s the chip at ring position i sends the block of chip order[(i - s - 1) mod P] to the
// chip at position i + 1 (reduce for s < P-1, write after). The plan holds the ring in this
// O(P) form; ring_step() generates a step's P transfers when a consumer needs them, so that a
// ring-family plan grows with P, not with the 2P^2 transfers it stands for.
struct RingPlane {
  std::vector<int> order;  // empty: not a ring plane
  int lane = 0, s0 = 0, s1 = 0;
};

struct Plan {
  CollectiveSpec spec;
  Algo algo = Algo::kRing;
  int chips = 0, tiles = 0;
  int flit_bits = kFlitBits;        // the topology's (bound_cycles' W is flit_bits / 8)
  int topo_channels = 1;            // Topology::bound_channels (bound_cycles' C, with the tiles)
  std::vector<Slice> slices;        // layout, identical on every chip
  std::vector<uint64_t> block_off;  // user offset of block b (P+1 entries)
  // The listed transfers: every transfer of the planes that are not ring planes (a ring plane's
  // transfers are generated from ring_planes; for_each_step and plane_transfers give both).
  std::vector<Transfer> transfers;
  uint32_t avg_scale = 1u << kAvgScaleFracBits;  // avg: 2^p / P in Q1.31 (floor)
  int avg_levels = 0;
  std::vector<RingPlane> ring_planes;  // per tile, when every transfer is a ring step
  // The routing tables follow shortest paths (shortest_path_routes) instead of the spanning tree:
  // set for a butterfly whose traffic never fills a buffer on any link (route_load_flits at most
  // XbXoffThresholdFlits; docs/compiler.md section 9).
  bool short_routes = false;
  // kSgdStep: per tile, the optimizer state after the vector's plane: the chip's weight shard at
  // state_base[t] and its momentum shard at state_base[t] + state_len[t] (each state_len[t]
  // bytes, the longest block slice of the plane). Empty for every other collective.
  std::vector<uint32_t> state_base, state_len;
};

// The loadable result. Tiles at the same position run the same program on every chip.
struct Image {
  std::vector<std::vector<uint64_t>> imem;  // [tile] program
  std::vector<std::vector<uint32_t>> pmem;  // [tile] parameter memory (descriptor lists)
  std::vector<uint32_t> index;              // [chip] index value
  // route[node][lane * kMaxChips + dst] = output port (255 = none / local), as the host map
  std::vector<std::vector<uint8_t>> route;
  uint32_t avg_scale = 1u << kAvgScaleFracBits;
  uint64_t descriptors = 0;
  std::vector<bool> ring_loop;  // per tile: compact ring loop (true) or descriptor list
  // per tile: the descriptor lists unrolled into straight-line code (every chip's list has the
  // same kinds; the words that differ between chips are read from the list)
  std::vector<bool> unrolled;
  uint32_t chunk_bytes = 0;  // the pipelining granule used
};

// Descriptor kinds of the interpreter program (docs/compiler.md, docs/isa.md section 10.1).
// kDescScale (only in plans with ScaleAdd transfers): CSR 17 (kCsrAluScale), the ScaleAdd
// factor, = the next word. kDescWaitSend: a Wait and the Send it releases, in one descriptor, so
// that the interpreter loads the Send's words before it waits and queues the Send in the cycle
// after the Wait retires.
enum DescKind : uint32_t {
  kDescEnd = 0,
  kDescSend = 1,
  kDescWait = 2,
  kDescScale = 3,
  kDescWaitSend = 4
};
// PMEM words of a descriptor of each kind, its kind word included (docs/isa.md section 10.1).
constexpr uint32_t desc_words(uint32_t kind) {
  return kind == kDescSend       ? 6
         : kind == kDescWait     ? 3
         : kind == kDescScale    ? 2
         : kind == kDescWaitSend ? 8
                                 : 1;  // End
}

// Builds the schedule; throws CompileError with a clear message for unsupported requests.
Plan plan_collective(const Topology& topo, const CollectiveSpec& spec);
// The transfers of a ring plane's step s (s0 <= s <= s1), in ring-position order, numbered
// step s - s0: P of them, fewer where a block is empty.
std::vector<Transfer> ring_step(const Plan& plan, int plane, int s);
// Calls f once per step of tile plane t, in increasing step order, with the step's transfers:
// the ring plane's generated ones, then the listed ones in the order the plan lists them. Tile
// planes never touch each other's memory, so a plane can be run on its own.
void for_each_step(const Plan& plan, int plane,
                   const std::function<void(const std::vector<Transfer>&)>& f);
// Every transfer of plane t, in step order (for_each_step's groups joined).
std::vector<Transfer> plane_transfers(const Plan& plan, int plane);
// How many transfers the plan stands for, listed and generated (O(P), no list is built).
uint64_t transfer_count(const Plan& plan);
// Turns a plan into the image (sync insertion, counters, routing tables, programs).
Image build_image(const Topology& topo, const Plan& plan);
// Lower bound in cycles (docs/performance.md section 1) with C = the topology's own outgoing
// channels per chip (ring 1, biring 2, ladder 4, line 2, tree 1: the leaf's link; a file topology
// its embedded rings), at most the tile count, whatever algorithm runs: the bound of the machine,
// so that every algorithm on it is judged alike. This is the bound `eff` is measured against.
double bound_cycles(const Plan& plan);
int plan_channels(const Plan& plan);
// nccl-tests bus-bandwidth factor (allreduce 2(P-1)/P, RS/AG (P-1)/P, bcast/reduce 1; 0 for
// a single chip, which moves nothing).
double busbw_factor(Collective c, int p);
// Allreduce sums of at most this many bytes per chip on 4, 8, 16, ... chips run the butterfly
// under Algo::kAuto (measured crossover: compiler.cpp, default_algo).
inline constexpr uint64_t kButterflyMaxBytes = 256;
// Ports a node can route to: a routing-table entry (docs/generated/defs.md, RouteTable) is one
// byte and 0xFF means unreachable. plan_collective refuses a topology with a wider node.
inline constexpr uint32_t kMaxRoutedPorts = 255;
// Picks the algorithm the compiler uses for Algo::kAuto: the tuner's table where it applies
// (auto_pick in xf/tune.hpp), else rule_algo.
Algo default_algo(const Topology& topo, const CollectiveSpec& spec);
// The rule of docs/compiler.md section 10 (each topology's own algorithm; the butterfly for small
// sums on power-of-two machines), for what the table does not cover.
Algo rule_algo(const Topology& topo, const CollectiveSpec& spec);
// Whether the arguments alone allow algorithm a on topo (ports, data memory; O(nodes)); the
// checks of plan_collective that need the plan are not made.
bool algo_fits(const Topology& topo, const CollectiveSpec& spec, Algo a);

// Instruction encoding helpers (shared by the compiler, the model and tests).
namespace isa {
uint64_t enc(Isa opc, unsigned rd, unsigned rs1, unsigned rs2, unsigned rs3, unsigned rs4,
             uint32_t imm);
Isa opc(uint64_t w);
unsigned rd(uint64_t w);
unsigned rs1(uint64_t w);
unsigned rs2(uint64_t w);
unsigned rs3(uint64_t w);
unsigned rs4(uint64_t w);
uint32_t imm(uint64_t w);
std::string disasm(uint64_t w);
}  // namespace isa

// Send descriptor immediate (SendImm fields) packing.
struct SendDesc {
  unsigned tile = 0, lane = 0;
  Opcode popc = Opcode::kWrite;
  DType dtype = DType::kFp32;
  RedOp op = RedOp::kSum;
  bool sat = false;
  unsigned ctr = 0, avg_shift = 0;
  bool avg_final = false;
  // Keep the XB session open while the send queue is empty (docs/tile.md section 4.3): only for
  // a tile that is the only sender on its link for the whole program.
  bool hold = false;
  // Streamed job (docs/isa.md section 5.2): each payload word leaves once the receive engine has
  // written it after the job was queued, or once the counter named by CSR 18 reaches its value.
  bool stream = false;
};
// The most flits that any one link direction (and the XB queue feeding it) carries over the
// whole list when every transfer follows `routes` (next port per node and destination chip) and
// is cut into packets of at most `packet_bytes` payload bytes at `flit_bits` (a header of
// 128 / flit_bits flits each; a token is a header alone). docs/compiler.md section 9.
uint64_t route_load_flits(const Topology& topo, const std::vector<std::vector<int>>& routes,
                          const std::vector<Transfer>& transfers, int flit_bits,
                          uint32_t packet_bytes);

uint32_t pack_send_imm(const SendDesc& d);
SendDesc unpack_send_imm(uint32_t imm);

}  // namespace xf
