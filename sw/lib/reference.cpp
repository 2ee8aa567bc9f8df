// Host-side layout and the plain C++ reference executor (see xf/reference.hpp).
#include "xf/reference.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <random>

#include "xf/alu.hpp"

namespace xf {

namespace {

bool in_is_block(const Plan& p) { return p.spec.coll == Collective::kAllGather; }
bool out_is_block(const Plan& p) { return p.spec.coll == Collective::kReduceScatter; }

uint64_t block_len(const Plan& p, int b) { return p.block_off[b + 1] - p.block_off[b]; }

// One element as a double: exact for every integer type and every float type used here.
double element(DType dt, const uint8_t* p) {
  switch (dt) {
    case DType::kInt8:
      return static_cast<int8_t>(p[0]);
    case DType::kUint8:
      return p[0];
    case DType::kInt16: {
      int16_t v;
      std::memcpy(&v, p, 2);
      return v;
    }
    case DType::kInt32: {
      int32_t v;
      std::memcpy(&v, p, 4);
      return v;
    }
    case DType::kFp16: {
      uint16_t v;
      std::memcpy(&v, p, 2);
      return fp16_to_float(v);
    }
    case DType::kBf16: {
      uint16_t v;
      std::memcpy(&v, p, 2);
      return bf16_to_float(v);
    }
    case DType::kFp32: {
      float v;
      std::memcpy(&v, p, 4);
      return v;
    }
  }
  return 0;
}

// Visits the user-visible part of every slice: f(slice, user offset, valid bytes).
template <class F>
void for_slices(const Plan& plan, int only_block, F f) {
  for (const Slice& s : plan.slices) {
    if (only_block >= 0 && s.block != only_block) continue;
    if (s.user_off >= plan.spec.bytes) continue;
    const uint64_t valid = std::min<uint64_t>(s.len, plan.spec.bytes - s.user_off);
    f(s, s.user_off, valid);
  }
}

}  // namespace

uint64_t io_in_bytes(const Plan& plan, int chip) {
  return in_is_block(plan) ? block_len(plan, chip) : plan.spec.bytes;
}

uint64_t io_out_bytes(const Plan& plan, int chip) {
  if (out_is_block(plan)) return block_len(plan, chip);
  if (plan.spec.coll == Collective::kReduce && chip != plan.spec.root) return 0;
  return plan.spec.bytes;
}

uint32_t tile_footprint(const Plan& plan, int tile) {
  uint32_t n = 0;
  for (const Slice& s : plan.slices)
    if (s.tile == tile) n = std::max(n, s.addr + s.len);
  // A ring plane's generated transfers move whole slices (ring_step), so the listed ones are
  // all that can reach past the slices.
  for (const Transfer& x : plan.transfers)
    if (x.plane == tile) n = std::max({n, x.src_addr + x.bytes, x.dst_addr + x.bytes});
  return std::max<uint32_t>(n, kFlitBytes);
}

uint32_t tile_load_bytes(const Plan& plan, int tile) {
  if (plan.spec.coll == Collective::kSgdStep) return plan.state_base[tile];
  return tile_footprint(plan, tile);
}

uint64_t sgd_shard_bytes(const Plan& plan, int chip) { return block_len(plan, chip); }

std::vector<SgdState> sgd_initial_state(const Plan& plan, const void* params) {
  std::vector<SgdState> st(plan.chips);
  for (int c = 0; c < plan.chips; ++c) {
    const uint8_t* p = static_cast<const uint8_t*>(params) + plan.block_off[c];
    st[c].weights.assign(p, p + sgd_shard_bytes(plan, c));
    st[c].momentum.assign(st[c].weights.size(), 0);
  }
  return st;
}

std::vector<SgdState> make_sgd_state(const Plan& plan, uint64_t seed) {
  std::vector<SgdState> st(plan.chips);
  for (int c = 0; c < plan.chips; ++c) {
    std::mt19937_64 rng(seed * 2000003u + c);
    for (Bytes* b : {&st[c].weights, &st[c].momentum}) {
      b->resize(sgd_shard_bytes(plan, c));
      for (size_t i = 0; i + 4 <= b->size(); i += 4) {
        const float f = static_cast<float>(static_cast<int>(rng() % 129) - 64) / 8.0f;
        std::memcpy(&(*b)[i], &f, 4);
      }
    }
  }
  return st;
}

std::vector<Bytes> load_tiles(const Plan& plan, int chip, const Bytes& input) {
  std::vector<Bytes> tiles(plan.tiles);
  for (int t = 0; t < plan.tiles; ++t) tiles[t].assign(tile_load_bytes(plan, t), 0);
  if (plan.spec.coll == Collective::kBroadcast && chip != plan.spec.root) return tiles;
  const int blk = in_is_block(plan) ? chip : -1;
  const uint64_t base = blk >= 0 ? plan.block_off[blk] : 0;
  for_slices(plan, blk, [&](const Slice& s, uint64_t off, uint64_t valid) {
    std::memcpy(&tiles[s.tile][s.addr], &input[off - base], valid);
  });
  return tiles;
}

Bytes unload_tiles(const Plan& plan, int chip, const std::vector<Bytes>& tiles) {
  Bytes out(io_out_bytes(plan, chip));
  if (out.empty()) return out;
  const int blk = out_is_block(plan) ? chip : -1;
  const uint64_t base = blk >= 0 ? plan.block_off[blk] : 0;
  for_slices(plan, blk, [&](const Slice& s, uint64_t off, uint64_t valid) {
    std::memcpy(&out[off - base], &tiles[s.tile][s.addr], valid);
  });
  return out;
}

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

Bytes exact_reduce(const Plan& plan, const std::vector<Bytes>& inputs) {
  const DType dt = plan.spec.dtype;
  const size_t es = dtype_size(dt);
  const uint64_t n = plan.spec.bytes / es;
  Bytes r(plan.spec.bytes);
  auto get = [&](const Bytes& b, uint64_t i) { return element(dt, &b[i * es]); };
  auto put = [&](uint64_t i, double v) {
    uint8_t* p = &r[i * es];
    switch (dt) {
      case DType::kInt8:
      case DType::kUint8:
        p[0] = static_cast<uint8_t>(static_cast<int64_t>(v));
        break;
      case DType::kInt16: {
        uint16_t x = static_cast<uint16_t>(static_cast<int64_t>(v));
        std::memcpy(p, &x, 2);
        break;
      }
      case DType::kInt32: {
        uint32_t x = static_cast<uint32_t>(static_cast<int64_t>(v));
        std::memcpy(p, &x, 4);
        break;
      }
      case DType::kFp16: {
        uint16_t x = float_to_fp16(static_cast<float>(v));
        std::memcpy(p, &x, 2);
        break;
      }
      case DType::kBf16: {
        uint16_t x = float_to_bf16(static_cast<float>(v));
        std::memcpy(p, &x, 2);
        break;
      }
      case DType::kFp32: {
        float x = static_cast<float>(v);
        std::memcpy(p, &x, 4);
        break;
      }
    }
  };
  for (uint64_t i = 0; i < n; ++i) {
    double acc = get(inputs[0], i);
    for (size_t c = 1; c < inputs.size(); ++c) {
      const double v = get(inputs[c], i);
      switch (plan.spec.op) {
        case RedOp::kMax:
          acc = std::max(acc, v);
          break;
        case RedOp::kMin:
          acc = std::min(acc, v);
          break;
        default:
          acc += v;
          break;
      }
    }
    if (plan.spec.op == RedOp::kAvg) acc = std::floor(acc / static_cast<double>(inputs.size()));
    put(i, acc);
  }
  return r;
}

std::vector<Bytes> exact_result(const Plan& plan, const std::vector<Bytes>& inputs) {
  const int P = plan.chips;
  // Expand block inputs (all-gather) and root-only inputs (broadcast) to full vectors.
  std::vector<Bytes> full(P, Bytes(plan.spec.bytes, 0));
  for (int c = 0; c < P; ++c) {
    if (plan.spec.coll == Collective::kAllGather)
      std::memcpy(&full[c][plan.block_off[c]], inputs[c].data(), inputs[c].size());
    else
      full[c] = inputs[c];
  }
  Bytes all;
  if (plan.spec.coll == Collective::kBroadcast) {
    all = full[plan.spec.root];
  } else if (plan.spec.coll == Collective::kAllGather) {
    all.assign(plan.spec.bytes, 0);
    for (int c = 0; c < P; ++c)
      std::memcpy(&all[plan.block_off[c]], inputs[c].data(), inputs[c].size());
  } else {
    all = exact_reduce(plan, full);
  }
  std::vector<Bytes> out(P);
  for (int c = 0; c < P; ++c) {
    const uint64_t nb = io_out_bytes(plan, c);
    const uint64_t off = plan.spec.coll == Collective::kReduceScatter ? plan.block_off[c] : 0;
    out[c].assign(all.begin() + off, all.begin() + off + nb);
  }
  return out;
}

std::vector<Bytes> make_inputs(const Plan& plan, uint64_t seed, int mode) {
  const size_t es = dtype_size(plan.spec.dtype);
  std::vector<Bytes> in(plan.chips);
  for (int c = 0; c < plan.chips; ++c) {
    std::mt19937_64 rng(seed * 1000003u + c);
    Bytes& b = in[c];
    b.resize(io_in_bytes(plan, c));
    for (size_t i = 0; i + es <= b.size(); i += es) {
      if (mode == 0 && !dtype_is_float(plan.spec.dtype)) {
        const uint64_t v = rng();
        std::memcpy(&b[i], &v, es);
        continue;
      }
      // Small integers: sums over up to 4096 chips stay exact in every float type used.
      const int v = static_cast<int>(rng() % 17) - 8;
      switch (plan.spec.dtype) {
        case DType::kFp16: {
          uint16_t h = float_to_fp16(static_cast<float>(v));
          std::memcpy(&b[i], &h, 2);
          break;
        }
        case DType::kBf16: {
          uint16_t h = float_to_bf16(static_cast<float>(v));
          std::memcpy(&b[i], &h, 2);
          break;
        }
        case DType::kFp32: {
          float f =
              mode == 0
                  ? static_cast<float>(std::ldexp(static_cast<double>(rng() % 2000001) - 1e6, -10))
                  : static_cast<float>(v);
          std::memcpy(&b[i], &f, 4);
          break;
        }
        default: {
          const int64_t x = v;
          std::memcpy(&b[i], &x, es);
          break;
        }
      }
    }
  }
  return in;
}

}  // namespace xf

namespace xf {

Check check_outputs(const Plan& plan, const std::vector<Bytes>& inputs,
                    const std::vector<Bytes>& outputs, bool exact_inputs,
                    const std::vector<SgdState>* state) {
  Check k;
  const int P = plan.chips;
  const DType dt = plan.spec.dtype;
  const size_t es = dtype_size(dt);
  std::vector<SgdState> st;
  if (state) st = *state;
  const std::vector<Bytes> ref = run_reference(plan, inputs, state ? &st : nullptr);
  for (int c = 0; c < P; ++c)
    for (size_t i = 0; i + es <= ref[c].size(); i += es)
      if (outputs[c].size() != ref[c].size() || std::memcmp(&outputs[c][i], &ref[c][i], es))
        ++k.wrong;
  // Replicated results must be bit-identical on every chip.
  const Collective co = plan.spec.coll;
  if (co == Collective::kAllReduce || co == Collective::kAllGather ||
      co == Collective::kBroadcast || co == Collective::kSgdStep)
    for (int c = 1; c < P; ++c)
      for (size_t i = 0; i + es <= outputs[0].size(); i += es)
        if (outputs[c].size() != outputs[0].size() ||
            std::memcmp(&outputs[c][i], &outputs[0][i], es))
          ++k.not_identical;
  if (plan.spec.op == RedOp::kAvg) {
    // Exact mean in double; the averaging schedule's error is measured, not compared.
    std::vector<Bytes> full(P);
    for (int c = 0; c < P; ++c) full[c] = inputs[c];
    for (int c = 0; c < P; ++c) {
      const uint64_t off = co == Collective::kReduceScatter ? plan.block_off[c] : 0;
      for (size_t i = 0; i + es <= outputs[c].size(); i += es) {
        double s = 0;
        for (int q = 0; q < P; ++q) s += element(dt, &full[q][off + i]);
        k.avg_max_err = std::max(k.avg_max_err, std::fabs(element(dt, &outputs[c][i]) - s / P));
      }
    }
  } else if (co != Collective::kSgdStep && !plan.spec.sat &&
             (exact_inputs || !dtype_is_float(dt))) {
    k.exact_checked = true;
    const std::vector<Bytes> ex = exact_result(plan, inputs);
    for (int c = 0; c < P; ++c)
      for (size_t i = 0; i + es <= ex[c].size(); i += es)
        if (std::memcmp(&ex[c][i], &ref[c][i], es)) ++k.inexact;
  }
  return k;
}

}  // namespace xf
