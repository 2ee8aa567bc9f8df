// The plain C++ reference executor (see xf/reference.hpp).
#include "xf/reference.hpp"

#include <cstring>

#include "xf/alu.hpp"

namespace xf {

std::vector<Bytes> run_reference(const Plan& plan, const std::vector<Bytes>& inputs,
                                 std::vector<SgdState>* state) {
  const int P = plan.chips;
  const bool sgd = plan.spec.coll == Collective::kSgdStep;
  std::vector<std::vector<Bytes>> mem(P);
  for (int c = 0; c < P; ++c) {
    mem[c] = load_tiles(plan, c, inputs[c]);
    for (int t = 0; t < plan.tiles; ++t) mem[c][t].resize(tile_footprint(plan, t), 0);
    if (sgd && state)
      for_sgd_shard(plan, c, [&](int t, uint32_t addr, uint64_t off, uint64_t n) {
        std::memcpy(&mem[c][t][addr], &(*state)[c].weights[off], n);
        std::memcpy(&mem[c][t][addr + plan.state_len[t]], &(*state)[c].momentum[off], n);
      });
  }
  AluCfg cfg;
  cfg.dtype = plan.spec.dtype;
  cfg.op = plan.spec.op;
  cfg.sat = plan.spec.sat;
  cfg.avg_scale = plan.avg_scale;
  // Plane by plane (planes never touch each other's memory), step by step. Within a step, every
  // payload is read before any is applied (as the hardware's data dependencies guarantee: no
  // transfer reads bytes written in its own step).
  std::vector<Bytes> payload;
  for (int t = 0; t < plan.tiles; ++t)
    for_each_step(plan, t, [&](const std::vector<Transfer>& step) {
      payload.resize(step.size());
      for (size_t k = 0; k < step.size(); ++k) {
        const Transfer& x = step[k];
        const Bytes& m = mem[x.src][x.plane];
        payload[k].assign(m.begin() + x.src_addr, m.begin() + x.src_addr + x.bytes);
      }
      for (size_t k = 0; k < step.size(); ++k) {
        const Transfer& x = step[k];
        if (x.bytes == 0) continue;  // a readiness token carries no data
        uint8_t* d = &mem[x.dst][x.plane][x.dst_addr];
        if (x.popc == Opcode::kWrite) {
          std::memcpy(d, payload[k].data(), x.bytes);
        } else if (x.scale_add) {
          AluCfg sa;
          sa.dtype = DType::kFp32;
          sa.op = RedOp::kScaleAdd;
          sa.scale = x.scale;
          alu_reduce(sa, d, payload[k].data(), x.bytes);
        } else {
          cfg.avg_shift = x.avg_shift;
          cfg.avg_final = x.avg_final;
          alu_reduce(cfg, d, payload[k].data(), x.bytes);
        }
      }
    });
  if (sgd && state)
    for (int c = 0; c < P; ++c)
      for_sgd_shard(plan, c, [&](int t, uint32_t addr, uint64_t off, uint64_t n) {
        std::memcpy(&(*state)[c].weights[off], &mem[c][t][addr], n);
        std::memcpy(&(*state)[c].momentum[off], &mem[c][t][addr + plan.state_len[t]], n);
      });
  std::vector<Bytes> out(P);
  for (int c = 0; c < P; ++c) out[c] = unload_tiles(plan, c, mem[c]);
  return out;
}

}  // namespace xf
