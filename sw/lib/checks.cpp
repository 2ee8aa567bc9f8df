// Test data and the checks of a run's outputs (see xf/checks.hpp).
#include "xf/checks.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <random>

#include "xf/alu.hpp"
#include "xf/reference.hpp"

namespace xf {

namespace {

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

}  // namespace

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
