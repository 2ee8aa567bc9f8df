// The extension module xfabric._xfabric: the driver's communicator (xf/comm.hpp) for Python, and
// the host helpers that let a NumPy program repeat a C++ tool's run bit for bit (docs/python.md).
//
// This layer is thin on purpose: the Python package (python/xfabric/comm.py) checks shapes and
// dtypes, allocates the results and carries the docstrings and type hints; here every call takes
// C-contiguous 2-D NumPy arrays, one row per chip, hands the rows to the driver with the GIL
// released, and turns a Result that is not ok into the exception class of its Status
// (xfabric.errors), carrying the driver's message unchanged.
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "xf/comm.hpp"
#include "xf/layout.hpp"
#include "xf/reference.hpp"

namespace py = pybind11;

// libsystemc's main() calls sc_main, so the library needs the symbol to load; in this module
// SystemC never owns main (Python does) and the model runs through sc_start alone. Exported
// (pybind11 hides the rest) so that the dynamic linker finds it for libsystemc.
extern "C" __attribute__((visibility("default"))) int sc_main(int, char**) { return 1; }

namespace {

// Raises xfabric.errors.<class of status> with the driver's message.
[[noreturn]] void raise_status(xf::Status status, const std::string& message) {
  py::object cls = py::module_::import("xfabric.errors").attr("error_class")(xf::to_string(status));
  PyErr_SetObject(cls.ptr(), py::str(message).ptr());
  throw py::error_already_set();
}

[[noreturn]] void raise_invalid(const std::string& message) {
  raise_status(xf::Status::kInvalidArgument, message);
}

void check(const xf::Result& r) {
  if (!r) raise_status(r.status, r.message);
}

// Row c of a C-contiguous (rows, n) array: the buffer of chip c.
class Rows {
 public:
  Rows(const py::array& a, int rows, const char* what) : a_(a) {
    if (!(a.flags() & py::array::c_style) || a.ndim() != 2 || a.shape(0) != rows)
      raise_invalid(std::string(what) + ": expected a C-contiguous array of " +
                    std::to_string(rows) + " rows (one per chip)");
    stride_ = static_cast<size_t>(a.strides(0));
  }
  const void* in(int c) const { return static_cast<const uint8_t*>(a_.data()) + c * stride_; }
  void* out(int c) { return static_cast<uint8_t*>(a_.mutable_data()) + c * stride_; }
  size_t row_bytes() const { return stride_; }

 private:
  py::array a_;
  size_t stride_ = 0;
};

size_t dtype_bytes(xf::DType dt) {
  switch (dt) {
    case xf::DType::kInt8:
    case xf::DType::kUint8:
      return 1;
    case xf::DType::kInt16:
    case xf::DType::kFp16:
    case xf::DType::kBf16:
      return 2;
    default:
      return 4;
  }
}

xf::SgdConfig sgd_config(float lr, float momentum, float weight_decay) {
  xf::SgdConfig s;
  s.lr = lr;
  s.momentum = momentum;
  s.weight_decay = weight_decay;
  return s;
}

py::array_t<float> float_array(const xf::Bytes& b) {
  py::array_t<float> a(static_cast<py::ssize_t>(b.size() / sizeof(float)));
  if (!b.empty()) std::memcpy(a.mutable_data(), b.data(), b.size());
  return a;
}

// The communicator and the configuration it was made with.
class PyComm {
 public:
  PyComm(const std::string& topology, const std::string& backend, int tiles, int flit_bits,
         const std::string& algo, uint32_t chunk_bytes, bool saturate, uint64_t max_cycles,
         const std::string& faults, const std::string& trace, uint32_t model_dmem_bytes) {
    cfg_.tiles = tiles;
    cfg_.flit_bits = flit_bits;
    try {
      cfg_.algo = xf::parse_algo(algo);
    } catch (const std::exception& e) {
      raise_invalid(std::string("algo: ") + e.what());
    }
    cfg_.chunk_bytes = chunk_bytes;
    cfg_.saturate = saturate;
    cfg_.max_cycles = max_cycles;
    cfg_.faults = faults;
    cfg_.trace = trace;
    cfg_.model_dmem_bytes = model_dmem_bytes;
    xf::Result r;
    {
      py::gil_scoped_release nogil;
      r = xf::Comm::create(topology, backend, &comm_, cfg_);
    }
    check(r);
  }

  int size() const { return comm_.size(); }
  std::string spec() const { return comm_.topology().spec; }
  int flit_bits() const { return comm_.topology().flit_bits; }
  int tiles() const { return cfg_.tiles; }
  bool saturate() const { return cfg_.saturate; }
  std::string backend() const { return comm_.backend(); }

  // One collective: send and recv are (size, n) arrays; count is the driver's count argument.
  void collective(const std::string& coll, const py::array& send, py::array& recv, size_t count,
                  const std::string& dtype, const std::string& op, int root) {
    xf::DType dt;
    xf::RedOp rop;
    try {
      dt = xf::parse_dtype(dtype);
      rop = xf::parse_op(op);
    } catch (const std::exception& e) {
      raise_invalid(e.what());
    }
    const int p = comm_.size();
    Rows s(send, p, "send"), d(recv, p, "recv");
    // Elements per row each side needs (comm.hpp): the driver reads and writes whole rows.
    const size_t es = dtype_bytes(dt);
    const size_t in_n = coll == "reduce_scatter" ? count * p : count;
    const size_t out_n = coll == "all_gather" ? count * p : count;
    if (s.row_bytes() < in_n * es || d.row_bytes() < out_n * es)
      raise_invalid(coll + ": send needs " + std::to_string(in_n) + " and recv " +
                    std::to_string(out_n) + " elements of " + xf::to_string(dt) + " per chip");
    std::vector<const void*> sp(p);
    std::vector<void*> rp(p);
    for (int c = 0; c < p; ++c) {
      sp[c] = s.in(c);
      rp[c] = d.out(c);
    }
    xf::Result r;
    {
      py::gil_scoped_release nogil;
      if (coll == "allreduce")
        r = comm_.allreduce(sp, rp, count, dt, rop);
      else if (coll == "reduce_scatter")
        r = comm_.reduce_scatter(sp, rp, count, dt, rop);
      else if (coll == "all_gather")
        r = comm_.all_gather(sp, rp, count, dt);
      else if (coll == "broadcast")
        r = comm_.broadcast(sp, rp, count, dt, root);
      else if (coll == "reduce")
        r = comm_.reduce(sp, rp, count, dt, rop, root);
      else
        r = {xf::Status::kInvalidArgument, "unknown collective '" + coll + "'"};
    }
    check(r);
  }

  void sgd_init(const py::array_t<float, py::array::c_style>& params, float lr, float momentum,
                float weight_decay) {
    const xf::SgdConfig opt = sgd_config(lr, momentum, weight_decay);
    xf::Result r;
    {
      py::gil_scoped_release nogil;
      r = comm_.sgd_init(params.data(), static_cast<size_t>(params.size()), opt);
    }
    check(r);
  }

  // One step; returns every chip's optimizer shard (weights, momentum) when `state` is set.
  py::object sgd_step(const py::array& grads, py::array& params, size_t count, float lr,
                      float momentum, float weight_decay, bool state) {
    const int p = comm_.size();
    Rows g(grads, p, "grads"), w(params, p, "params");
    std::vector<const float*> gp(p);
    std::vector<float*> wp(p);
    for (int c = 0; c < p; ++c) {
      gp[c] = static_cast<const float*>(g.in(c));
      wp[c] = static_cast<float*>(w.out(c));
    }
    const xf::SgdConfig opt = sgd_config(lr, momentum, weight_decay);
    std::vector<xf::SgdState> st;
    xf::Result r;
    {
      py::gil_scoped_release nogil;
      r = comm_.sgd_step(gp, wp, count, opt, state ? &st : nullptr);
    }
    check(r);
    if (!state) return py::none();
    py::list out;
    for (const xf::SgdState& s : st)
      out.append(py::make_tuple(float_array(s.weights), float_array(s.momentum)));
    return std::move(out);
  }

  py::dict last() const {
    const xf::OpStats& s = comm_.last();
    py::dict d;
    d["collective"] = s.collective;
    d["algorithm"] = s.algorithm;
    d["bytes"] = s.bytes;
    d["cycles"] = s.cycles;
    d["efficiency"] = s.efficiency;
    d["seconds"] = s.seconds;
    d["warnings"] = s.warnings;
    return d;
  }

  const xf::Comm& comm() const { return comm_; }

 private:
  xf::CommConfig cfg_;
  xf::Comm comm_;
};

// The single-process reference of sgd_step: the plan the communicator compiles, run by the plain
// C++ executor (xf/reference.hpp) with its own optimizer state; the same bits as the fabric.
class SgdReference {
 public:
  SgdReference(const PyComm& comm, const py::array_t<float, py::array::c_style>& params, float lr,
               float momentum, float weight_decay)
      : count_(static_cast<size_t>(params.size())), chips_(comm.size()) {
    check(comm.comm().sgd_plan(count_, sgd_config(lr, momentum, weight_decay), &plan_));
    state_ = xf::sgd_initial_state(plan_, params.data());
  }

  void step(const py::array& grads, py::array& params) {
    Rows g(grads, chips_, "grads"), w(params, chips_, "params");
    if (g.row_bytes() < count_ * 4 || w.row_bytes() < count_ * 4)
      raise_invalid("grads and params need " + std::to_string(count_) + " fp32 per chip");
    std::vector<xf::Bytes> in(chips_);
    for (int c = 0; c < chips_; ++c) {
      const auto* b = static_cast<const uint8_t*>(g.in(c));
      in[c].assign(b, b + count_ * 4);
    }
    std::vector<xf::Bytes> out;
    {
      py::gil_scoped_release nogil;
      out = xf::run_reference(plan_, in, &state_);
    }
    for (int c = 0; c < chips_; ++c) std::memcpy(w.out(c), out[c].data(), count_ * 4);
  }

 private:
  size_t count_;
  int chips_;
  xf::Plan plan_;
  std::vector<xf::SgdState> state_;
};

// The C++ standard library's std::mt19937_64 and the distributions the tools draw from, so that
// a Python program makes the same draws as fabric train for the same seed.
class HostRng {
 public:
  explicit HostRng(uint64_t seed) : rng_(seed) {}
  void shuffle(py::array_t<int32_t, py::array::c_style>& a) {
    int32_t* p = a.mutable_data();
    std::shuffle(p, p + a.size(), rng_);
  }
  py::array_t<float> normal(size_t n, float mean, float stddev) {
    std::normal_distribution<float> nd(mean, stddev);
    py::array_t<float> a(static_cast<py::ssize_t>(n));
    float* p = a.mutable_data();
    for (size_t i = 0; i < n; ++i) p[i] = nd(rng_);
    return a;
  }
  uint64_t next() { return rng_(); }

 private:
  std::mt19937_64 rng_;
};

// The host C library's float functions, element by element (NumPy's SIMD versions may differ
// from them in the last bit).
template <float (*F)(float)>
py::array_t<float> map_float(
    const py::array_t<float, py::array::c_style | py::array::forcecast>& a) {
  py::array_t<float> out(std::vector<py::ssize_t>(a.shape(), a.shape() + a.ndim()));
  const float* in = a.data();
  float* o = out.mutable_data();
  for (py::ssize_t i = 0; i < a.size(); ++i) o[i] = F(in[i]);
  return out;
}
float host_expf(float x) { return std::exp(x); }
float host_logf(float x) { return std::log(x); }

}  // namespace

PYBIND11_MODULE(_xfabric, m) {
  m.doc() = "The exchange fabric's driver (xf::Comm); use the package xfabric, not this module.";
#ifdef XF_RTL_WIDTHS
  m.attr("rtl_flit_widths") = XF_RTL_WIDTHS;
#else
  m.attr("rtl_flit_widths") = "";
#endif
  py::class_<PyComm>(m, "Comm")
      .def(py::init<const std::string&, const std::string&, int, int, const std::string&, uint32_t,
                    bool, uint64_t, const std::string&, const std::string&, uint32_t>(),
           py::arg("topology"), py::arg("backend"), py::arg("tiles"), py::arg("flit_bits"),
           py::arg("algo"), py::arg("chunk_bytes"), py::arg("saturate"), py::arg("max_cycles"),
           py::arg("faults"), py::arg("trace"), py::arg("model_dmem_bytes"))
      .def_property_readonly("size", &PyComm::size)
      .def_property_readonly("spec", &PyComm::spec)
      .def_property_readonly("flit_bits", &PyComm::flit_bits)
      .def_property_readonly("tiles", &PyComm::tiles)
      .def_property_readonly("saturate", &PyComm::saturate)
      .def_property_readonly("backend", &PyComm::backend)
      .def("collective", &PyComm::collective)
      .def("sgd_init", &PyComm::sgd_init)
      .def("sgd_step", &PyComm::sgd_step)
      .def("last", &PyComm::last);
  py::class_<SgdReference>(m, "SgdReference")
      .def(py::init<const PyComm&, const py::array_t<float, py::array::c_style>&, float, float,
                    float>())
      .def("step", &SgdReference::step);
  py::class_<HostRng>(m, "HostRng")
      .def(py::init<uint64_t>())
      .def("shuffle", &HostRng::shuffle)
      .def("normal", &HostRng::normal)
      .def("next", &HostRng::next);
  m.def("busbw_factor", [](const std::string& collective, int chips) {
    try {
      return xf::busbw_factor(xf::parse_collective(collective), chips);
    } catch (const std::exception& e) {
      raise_invalid(e.what());
    }
  });
  m.def("expf", &map_float<host_expf>);
  m.def("logf", &map_float<host_logf>);
}
