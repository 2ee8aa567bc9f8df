// The RTL test kit's flit (tests/rtl_kit.hpp) to and from the model's (model/flit.hpp), for RTL
// tests that link the model (xfmodel) and compare a block against the model's class of it.
//
// A head flit's header goes through the model's pack_header/unpack_header (the generated field
// positions); the reserved header bits (the kit's scoreboard tags) have no place in the model's
// Header and come back zero. A payload flit's data is the model's 16 bytes, byte j at bits
// 8j+7 .. 8j. The model's exchange routing (target, port) is not on an RTL stream: to_model
// leaves it at its default, from_model drops it.
//
// Blocks that never read a header (model::Xb, model::Link) take any flit raw: to_model_raw puts
// all 128 bits in Flit::data, head flits included, so a test's reserved header bits survive the
// trip through the model (from_model_raw gives them back).
#pragma once

#include <cstring>

#include "flit.hpp"
#include "rtl_kit.hpp"

namespace xf::kit {

inline model::Flit to_model_raw(const Flit& f) {
  model::Flit m;
  m.head = f.head;
  m.tail = f.tail;
  static_assert(sizeof m.data == sizeof f.w, "a flit's data is kFlitBytes");
  std::memcpy(m.data.data(), f.w.data(), sizeof m.data);
  return m;
}

inline Flit from_model_raw(const model::Flit& m) {
  Flit f;
  f.head = m.head;
  f.tail = m.tail;
  std::memcpy(f.w.data(), m.data.data(), sizeof f.w);
  return f;
}

inline model::Flit to_model(const Flit& f) {
  model::Flit m = to_model_raw(f);
  if (f.head) {
    m.hdr = model::unpack_header({f.lo(), f.hi()});
    m.data = {};
  }
  return m;
}

inline Flit from_model(const model::Flit& m) {
  Flit f = from_model_raw(m);
  if (m.head) {
    const std::array<uint64_t, 2> w = model::pack_header(m.hdr);
    f.set_bits(0, 64, w[0]).set_bits(64, 64, w[1]);
  }
  return f;
}

}  // namespace xf::kit
