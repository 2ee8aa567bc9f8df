// The tuner's table: what Algo::kAuto picks from (docs/compiler.md section 10), as NCCL's tuner.
//
// `fabric tune` (make tune) runs an allreduce fp32 sum of every size of the make bench sweep with
// every algorithm the compiler accepts on each tuned topology, on the model (= the RTL to the
// cycle), and writes the cycles into sw/lib/tune_table.cpp, a committed generated file that
// make check-tune measures again and compares. The compiler (auto_pick in compiler.cpp) reads
// the table for allreduce: on a tuned topology the pick is the fastest measured algorithm at
// that size; on another topology of the same kind it is the fastest on the tuned one with the
// nearest chip count (among the algorithms valid on this one); the sizes are scaled to the
// 128-bit flits of the table (a machine with W-byte flits at M bytes behaves as one with 16-byte
// flits at 16 M / W bytes).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "xf/compiler.hpp"

namespace xf {

// The conditions of the table: 4 tiles per chip, 128-bit flits, fp32 sum, seed 1.
inline constexpr int kTuneTiles = 4;
inline constexpr int kTuneFlitBits = 128;

// One measured point: `algo` with chunk `chunk_bytes` (0: the compiler's automatic chunk) takes
// `cycles` for an allreduce of `bytes` per chip on `topology`.
struct TunePoint {
  const char* topology;
  Algo algo;
  uint32_t chunk_bytes;
  uint64_t bytes;
  uint64_t cycles;
};

// The committed table (sw/lib/tune_table.cpp), ordered by topology, algorithm, size.
const std::vector<TunePoint>& tune_table();
// The command that wrote it (its arguments are the ones make check-tune repeats).
const char* tune_command();

// What Algo::kAuto runs: the algorithm, the chunk (0: automatic), and the tuned topology whose
// measurements decided it (empty: no table entry applies and the rule of docs/compiler.md
// section 10 decided).
struct AutoPick {
  Algo algo = Algo::kRing;
  uint32_t chunk_bytes = 0;
  std::string tuned;
  double predicted_cycles = 0;  // the table's cycles (interpolated) at this size; 0 without
};
AutoPick auto_pick(const Topology& topo, const CollectiveSpec& spec);
// The pick from a given table (tests use their own tables).
AutoPick auto_pick(const Topology& topo, const CollectiveSpec& spec,
                   const std::vector<TunePoint>& table);
// The algorithms plan_collective accepts for this topology and collective (op avg: avg alone),
// in the order the tuner measures them; `automatic` drops those auto never picks (the butterfly
// for max and min, whose +0/-0 results depend on the operand order, and on 2 chips).
std::vector<Algo> valid_algos(const Topology& topo, const CollectiveSpec& spec,
                              bool automatic = false);

}  // namespace xf
