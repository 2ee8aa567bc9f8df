// The communicator (xf/comm.hpp): the worker thread that owns the backend, the argument checks,
// and the collectives' host-side layout. Backends come from the factories comm.hpp declares;
// none is included here.
#include "xf/comm.hpp"

#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <cstring>
#include <deque>
#include <mutex>
#include <thread>
#include <tuple>

#include "xf/cli.hpp"
#include "xf/layout.hpp"
#include "xf/serial.hpp"

namespace xf {

const char* to_string(Status s) {
  switch (s) {
    case Status::kOk:
      return "ok";
    case Status::kInvalidArgument:
      return "invalid argument";
    case Status::kUnsupported:
      return "unsupported";
    case Status::kUnknownBackend:
      return "unknown backend";
    case Status::kChipError:
      return "chip error";
    case Status::kTimeout:
      return "timeout";
    case Status::kBackendError:
      return "backend error";
    case Status::kNotInitialized:
      return "not initialized";
  }
  return "?";
}

struct Comm::Impl {
  Topology topo;
  CommConfig cfg;
  std::string backend_name;
  std::unique_ptr<Backend> backend;  // owned by the worker thread
  std::thread worker;
  std::mutex mu;
  std::condition_variable cv;
  using Job = std::function<Result(Impl&, OpStats&)>;
  struct Item {
    std::string name;
    Job job;
    std::shared_ptr<Request::State> st;
  };
  std::deque<Item> queue;
  bool quit = false;
  // sgd: the state sgd_init set, loaded by the next step (then it stays on the chips)
  size_t sgd_count = 0;
  std::vector<SgdState> sgd_pending;
  bool sgd_loaded = false;

  Request post(const std::string& name, Job job) {
    Request q;
    q.st_ = std::make_shared<Request::State>();
    {
      std::lock_guard<std::mutex> g(mu);
      queue.push_back({name, std::move(job), q.st_});
    }
    cv.notify_all();
    return q;
  }
  Result wait(const Request& q) {
    std::unique_lock<std::mutex> g(mu);
    cv.wait(g, [&] { return q.st_->done; });
    return q.st_->result;
  }
  void loop() {
    for (;;) {
      Item it;
      {
        std::unique_lock<std::mutex> g(mu);
        cv.wait(g, [&] { return quit || !queue.empty(); });
        if (queue.empty()) break;
        it = std::move(queue.front());
        queue.pop_front();
      }
      OpStats st;
      st.collective = it.name;
      const auto t0 = std::chrono::steady_clock::now();
      Result r;
      try {
        r = it.job(*this, st);
      } catch (const std::exception& e) {
        r = {Status::kBackendError, it.name + ": " + e.what()};
      }
      st.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
      {
        std::lock_guard<std::mutex> g(mu);
        it.st->result = r;
        it.st->stats = st;
        it.st->done = true;
      }
      cv.notify_all();
    }
    backend.reset();  // destroyed on the thread that built it
  }
  void stop() {
    {
      std::lock_guard<std::mutex> g(mu);
      quit = true;
    }
    cv.notify_all();
    if (worker.joinable()) worker.join();
  }

  Result compile(CollectiveSpec spec, Plan* plan, Image* img) {
    spec.tiles = cfg.tiles;
    spec.sat = spec.sat || cfg.saturate;
    spec.chunk_bytes = cfg.chunk_bytes;
    if (spec.algo == Algo::kAuto) spec.algo = cfg.algo;
    if (backend) spec.tile_dmem_bytes = std::min(spec.tile_dmem_bytes, backend->tile_dmem_bytes());
    try {
      *plan = plan_collective(topo, spec);
      if (img) *img = build_image(topo, *plan);
    } catch (const CompileError& e) {
      const bool pair = std::string(e.what()).find("is not defined for") != std::string::npos;
      return {pair ? Status::kUnsupported : Status::kInvalidArgument, e.what()};
    }
    return {};
  }

  Result run(const Plan& plan, const Image& img, const std::vector<Bytes>& in,
             std::vector<Bytes>* out, OpStats& st, std::vector<SgdState>* state_in,
             std::vector<SgdState>* state_out) {
    BackendRun br = backend->run(plan, img, in, cfg.max_cycles, state_in, state_out);
    st.algorithm = to_string(plan.algo);
    st.bytes = plan.spec.bytes;
    st.cycles = br.cycles;
    st.efficiency = br.cycles ? bound_cycles(plan) / static_cast<double>(br.cycles) : 0;
    if (!br.ok) {
      Status s = br.timeout ? Status::kTimeout : Status::kChipError;
      std::string msg = std::string(to_string(plan.spec.coll)) + " on the " + backend->name() +
                        " backend failed after " + std::to_string(br.cycles) +
                        " cycles: " + br.error;
      if (br.timeout) msg += " (raise CommConfig::max_cycles if the machine is just slow)";
      return {s, msg};
    }
    for (const std::string& w : br.diagnosis) st.warnings.push_back(w);
    *out = std::move(br.outputs);
    return {};
  }
};

Comm::Comm() = default;
Comm::~Comm() { shutdown(); }
Comm::Comm(Comm&& o) noexcept { *this = std::move(o); }
Comm& Comm::operator=(Comm&& o) noexcept {
  if (this != &o) {
    shutdown();
    impl_ = std::move(o.impl_);
  }
  return *this;
}

int Comm::size() const { return impl_ ? impl_->topo.num_chips : 0; }
const Topology& Comm::topology() const { return impl_->topo; }
std::string Comm::backend() const { return impl_ ? impl_->backend_name : ""; }

std::unique_ptr<Backend> make_backend(const std::string& name, const Topology& topo,
                                      const CommConfig& cfg) {
  if (name.rfind("serial:", 0) == 0) {
    const auto [dev, baud] = serial::parse_backend(name);
    return make_serial_backend(topo, cfg, dev, baud);
  }
  if (name == "model") return make_model_backend(topo, cfg);
  if (name == "rtl") return make_rtl_backend(topo, cfg);
  throw cli::Usage("backend '" + name + "' is not known: use model, rtl or serial:DEV[@BAUD]");
}

std::string backend_refuses(const std::string& name, const Topology& topo, const CommConfig& cfg) {
  return name == "rtl" ? rtl_refuses(topo, cfg) : "";
}

Result Comm::create(const std::string& topology, const std::string& backend, Comm* out,
                    const CommConfig& cfg) {
  const bool serial = backend.rfind("serial:", 0) == 0;
  if (serial) {
    try {
      serial::parse_backend(backend);
    } catch (const std::exception& e) {
      return {Status::kInvalidArgument, "backend " + backend + ": " + e.what()};
    }
  }
  if (!serial && backend != "model" && backend != "rtl")
    return {Status::kUnknownBackend,
            "backend '" + backend + "' is not known: use model, rtl or serial:DEV[@BAUD]"};
  if (serial && !cfg.faults.empty())
    return {Status::kInvalidArgument,
            "CommConfig::faults needs a simulated machine (model or rtl), not a board"};
  return create_impl(topology, backend, out, cfg, [=](const Topology& t, const CommConfig& c) {
    return make_backend(backend, t, c);
  });
}

Result Comm::create(const std::string& topology, std::unique_ptr<Backend> backend, Comm* out,
                    const CommConfig& cfg) {
  if (!backend) return {Status::kInvalidArgument, "Comm::create: the backend is null"};
  const std::string name = backend->name();
  auto holder = std::make_shared<std::unique_ptr<Backend>>(std::move(backend));
  return create_impl(topology, name, out, cfg,
                     [holder](const Topology&, const CommConfig&) { return std::move(*holder); });
}

Result Comm::sgd_init(const float* params, size_t count, const SgdConfig& opt) {
  Result r = check_init();
  if (!r) return r;
  if (!params) return {Status::kInvalidArgument, "sgd_init: params is null"};
  if (count == 0) return {Status::kInvalidArgument, "sgd_init: count is 0; give the parameters"};
  Plan plan;
  r = sgd_plan(count, opt, &plan);
  if (!r) return r;
  std::lock_guard<std::mutex> g(impl_->mu);
  impl_->sgd_count = count;
  impl_->sgd_pending = sgd_initial_state(plan, params);
  impl_->sgd_loaded = false;
  return {};
}

Result Comm::sgd_plan(size_t count, const SgdConfig& opt, Plan* plan) const {
  Result r = check_init();
  if (!r) return r;
  return impl_->compile(sgd_spec(count, opt), plan, nullptr);
}

Request Comm::start_sgd_step(const std::vector<const float*>& grads,
                             const std::vector<float*>& params, size_t count, const SgdConfig& opt,
                             std::vector<SgdState>* state_out) {
  Result r = check_init();
  if (!r) return failed(r);
  std::vector<const void*> s(grads.begin(), grads.end());
  std::vector<void*> d(params.begin(), params.end());
  r = check_buffers("sgd_step", s, d, count * 4, count * 4, kSame, 0);
  if (!r) return failed(r);
  {
    std::lock_guard<std::mutex> g(impl_->mu);
    if (impl_->sgd_count == 0)
      return failed({Status::kInvalidArgument,
                     "sgd_step before sgd_init: call sgd_init(params, count, opt) first"});
    if (count != impl_->sgd_count)
      return failed({Status::kInvalidArgument,
                     "sgd_step: count " + std::to_string(count) + " differs from sgd_init's " +
                         std::to_string(impl_->sgd_count) + "; the state is sharded for that"});
  }
  return impl_->post("sgd", [=](Impl& m, OpStats& st) -> Result {
    Plan plan;
    Image img;
    Result r = m.compile(sgd_spec(count, opt), &plan, &img);
    if (!r) return r;
    std::vector<Bytes> in(plan.chips);
    for (int c = 0; c < plan.chips; ++c) {
      const uint8_t* p = reinterpret_cast<const uint8_t*>(s[c]);
      in[c].assign(p, p + count * 4);
    }
    std::vector<SgdState> pending;
    {
      std::lock_guard<std::mutex> g(m.mu);
      if (!m.sgd_loaded) pending = m.sgd_pending;
    }
    std::vector<Bytes> out;
    r = m.run(plan, img, in, &out, st, pending.empty() ? nullptr : &pending, state_out);
    if (!r) return r;
    {
      std::lock_guard<std::mutex> g(m.mu);
      m.sgd_loaded = true;
    }
    for (int c = 0; c < plan.chips; ++c) std::memcpy(d[c], out[c].data(), count * 4);
    return r;
  });
}

Result Comm::wait(Request q) {
  if (!q.valid()) return {Status::kInvalidArgument, "wait: the request is empty"};
  if (!impl_) {  // only requests refused at the start exist without a communicator
    if (q.st_->done) return q.st_->result;
    return {Status::kNotInitialized, "wait: the communicator is not created"};
  }
  Result r = impl_->wait(q);
  last_ = q.st_->stats;
  return r;
}

bool Comm::test(const Request& q) const {
  if (!q.valid()) return true;
  if (!impl_) return true;
  std::lock_guard<std::mutex> g(impl_->mu);
  return q.st_->done;
}

Result Comm::create_impl(const std::string& topology, const std::string& backend, Comm* out,
                         const CommConfig& cfg, Maker make) {
  if (!out) return {Status::kInvalidArgument, "Comm::create: out is null; pass &comm"};
  Topology topo;
  try {
    topo = parse_topology(topology);
  } catch (const std::exception& e) {
    return {Status::kInvalidArgument, std::string("topology: ") + e.what()};
  }
  try {
    set_flit_bits(topo, cfg.flit_bits);
  } catch (const std::exception& e) {
    return {Status::kInvalidArgument, std::string("CommConfig::flit_bits: ") + e.what()};
  }
  if (cfg.tiles < 1 || cfg.tiles > static_cast<int>(kMaxTiles))
    return {Status::kInvalidArgument, "CommConfig::tiles = " + std::to_string(cfg.tiles) +
                                          ": use 1.." + std::to_string(kMaxTiles)};
  auto impl = std::make_unique<Impl>();
  impl->topo = topo;
  impl->cfg = cfg;
  impl->backend_name = backend;
  impl->worker = std::thread([p = impl.get()] { p->loop(); });
  // The backend is built on the communicator's thread, which then owns it.
  Request q = impl->post("create", [=](Impl& m, OpStats&) -> Result {
    try {
      m.backend = make(m.topo, m.cfg);
    } catch (const std::exception& e) {
      return {Status::kBackendError, "backend " + backend + ": " + e.what()};
    }
    if (m.cfg.tiles > m.backend->max_tiles())
      return {Status::kUnsupported, "CommConfig::tiles = " + std::to_string(m.cfg.tiles) +
                                        ", but the " + m.backend->name() + " backend has " +
                                        std::to_string(m.backend->max_tiles()) + " tiles per chip"};
    return {};
  });
  const Result r = impl->wait(q);
  if (!r) {
    impl->stop();
    return r;
  }
  out->shutdown();
  out->impl_ = std::move(impl);
  return r;
}

Result Comm::check_init() const {
  if (!impl_)
    return {Status::kNotInitialized,
            "the communicator is not created: call xf::Comm::create(topology, backend, &comm)"};
  return {};
}

Request Comm::failed(const Result& r) {
  Request q;
  q.st_ = std::make_shared<Request::State>();
  q.st_->done = true;
  q.st_->result = r;
  return q;
}

CollectiveSpec Comm::sgd_spec(size_t count, const SgdConfig& opt) {
  CollectiveSpec s;
  s.coll = Collective::kSgdStep;
  s.dtype = DType::kFp32;
  s.op = RedOp::kSum;
  s.bytes = count * 4;
  s.lr = opt.lr;
  s.momentum = opt.momentum;
  s.weight_decay = opt.weight_decay;
  return s;
}

Result Comm::check_buffers(const char* call, const std::vector<const void*>& send,
                           const std::vector<void*>& recv, uint64_t sbytes, uint64_t rbytes,
                           InPlace kind, uint64_t part, int send_only, int recv_only) const {
  const int P = size();
  auto bad = [&](const std::string& m) {
    return Result{Status::kInvalidArgument, std::string(call) + ": " + m};
  };
  if (static_cast<int>(send.size()) != P)
    return bad("send has " + std::to_string(send.size()) + " buffers; give one per chip (" +
               std::to_string(P) + ")");
  if (static_cast<int>(recv.size()) != P)
    return bad("recv has " + std::to_string(recv.size()) + " buffers; give one per chip (" +
               std::to_string(P) + ")");
  for (int c = 0; c < P; ++c) {
    const bool need_s = send_only < 0 || c == send_only;
    const bool need_r = recv_only < 0 || c == recv_only;
    if (need_s && !send[c]) return bad("send[" + std::to_string(c) + "] is null");
    if (need_r && !recv[c]) return bad("recv[" + std::to_string(c) + "] is null");
    if (!need_s || !need_r) continue;
    const uint8_t* s = static_cast<const uint8_t*>(send[c]);
    const uint8_t* r = static_cast<const uint8_t*>(recv[c]);
    const bool in_place = kind == kSame         ? s == r
                          : kind == kRecvInSend ? r == s + c * part
                                                : s == r + c * part;
    if (in_place) continue;
    if (s < r + rbytes && r < s + sbytes)
      return bad("send[" + std::to_string(c) + "] and recv[" + std::to_string(c) +
                 "] overlap without being in place; use separate buffers or the in-place "
                 "layout (docs/driver.md section 2)");
  }
  for (int a = 0; a < P; ++a)
    for (int b = a + 1; b < P; ++b) {
      if (!recv[a] || !recv[b]) continue;
      const uint8_t* x = static_cast<const uint8_t*>(recv[a]);
      const uint8_t* y = static_cast<const uint8_t*>(recv[b]);
      if (x < y + rbytes && y < x + rbytes)
        return bad("recv[" + std::to_string(a) + "] and recv[" + std::to_string(b) +
                   "] overlap; every chip needs its own output buffer");
    }
  return {};
}

Request Comm::start_collective(Collective coll, const std::vector<const void*>& send,
                               const std::vector<void*>& recv, size_t count, DType dt, RedOp op,
                               int root) {
  Result r = check_init();
  if (!r) return failed(r);
  const char* call = to_string(coll);
  const int P = size();
  if (static_cast<unsigned>(dt) >= kDTypeCount)
    return failed({Status::kInvalidArgument, std::string(call) + ": dtype " +
                                                 std::to_string(static_cast<int>(dt)) +
                                                 " is not a type; use xf::DType"});
  if (static_cast<unsigned>(op) >= kRedOpCount || op == RedOp::kScaleAdd)
    return failed({Status::kInvalidArgument, std::string(call) + ": op " +
                                                 std::to_string(static_cast<int>(op)) +
                                                 " is not a reduction; use sum, max, min or avg"});
  if (count == 0)
    return failed(
        {Status::kInvalidArgument, std::string(call) + ": count is 0; give at least one element"});
  const bool reduces = coll == Collective::kAllReduce || coll == Collective::kReduceScatter ||
                       coll == Collective::kReduce;
  if (reduces && !valid_pair(dt, op))
    return failed(
        {Status::kUnsupported,
         std::string(call) + ": op " + to_string(op) + " is not defined for " + to_string(dt) +
             (op == RedOp::kAvg ? " (avg is for integer types; use sum on floats)" : "")});
  if ((coll == Collective::kBroadcast || coll == Collective::kReduce) && (root < 0 || root >= P))
    return failed({Status::kInvalidArgument, std::string(call) + ": root " + std::to_string(root) +
                                                 " is not a chip (0.." + std::to_string(P - 1) +
                                                 ")"});
  const size_t es = dtype_size(dt);
  const uint64_t n = static_cast<uint64_t>(count) * es;  // bytes of one chip's part
  // reduce_scatter and all_gather: the compiler's blocks are whole flits, so every chip's
  // block is padded to a flit multiple in the machine's layout ("stride").
  const uint64_t stride = (n + kFlitBytes - 1) / kFlitBytes * kFlitBytes;
  switch (coll) {
    case Collective::kReduceScatter:
      r = check_buffers(call, send, recv, n * P, n, kRecvInSend, n);
      break;
    case Collective::kAllGather:
      r = check_buffers(call, send, recv, n, n * P, kSendInRecv, n);
      break;
    case Collective::kBroadcast:
      r = check_buffers(call, send, recv, n, n, kSame, 0, root);
      break;
    case Collective::kReduce:
      r = check_buffers(call, send, recv, n, n, kSame, 0, -1, root);
      break;
    default:
      r = check_buffers(call, send, recv, n, n, kSame, 0);
      break;
  }
  if (!r) return failed(r);
  CollectiveSpec spec;
  spec.coll = coll;
  spec.dtype = dt;
  spec.op = op;
  spec.root = root;
  const bool blocked = coll == Collective::kReduceScatter || coll == Collective::kAllGather;
  spec.bytes = blocked ? stride * P : n;
  return impl_->post(call, [=](Impl& m, OpStats& st) -> Result {
    Plan plan;
    Image img;
    Result r = m.compile(spec, &plan, &img);
    if (!r) return r;
    // Inputs, copied before anything is written (in place is then safe).
    std::vector<Bytes> in(P);
    for (int c = 0; c < P; ++c) {
      const uint8_t* p = static_cast<const uint8_t*>(send[c]);
      if (coll == Collective::kBroadcast && c != root) continue;
      if (coll == Collective::kReduceScatter) {
        in[c].assign(stride * P, 0);
        for (int b = 0; b < P; ++b) std::memcpy(&in[c][b * stride], p + b * n, n);
      } else if (coll == Collective::kAllGather) {
        in[c].assign(stride, 0);
        std::memcpy(in[c].data(), p, n);
      } else {
        in[c].assign(p, p + n);
      }
    }
    std::vector<Bytes> out;
    r = m.run(plan, img, in, &out, st, nullptr, nullptr);
    if (!r) return r;
    for (int c = 0; c < P; ++c) {
      uint8_t* d = static_cast<uint8_t*>(recv[c]);
      if (coll == Collective::kReduce && c != root) continue;
      if (coll == Collective::kAllGather) {
        for (int b = 0; b < P; ++b) std::memcpy(d + b * n, &out[c][b * stride], n);
      } else {
        std::memcpy(d, out[c].data(), n);
      }
    }
    return r;
  });
}

void Comm::shutdown() {
  if (impl_) impl_->stop();
  impl_.reset();
}

}  // namespace xf
