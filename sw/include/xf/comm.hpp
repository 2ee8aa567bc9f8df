// The driver library: a communicator over a topology and a backend, with the calls users know
// from NCCL (docs/driver.md). Header-only API; the backends are compiled libraries: `model`
// (CMake target xfmodel), `rtl` (tb/comm_rtl.cpp with the Verilated chip, in fabric) and
// `serial:DEV[@BAUD]` (a board, or xf_board_sim; target xfserial, sw/backends/serial).
//
//   xf::Comm comm;
//   xf::Result r = xf::Comm::create("ring:8", "model", &comm);
//   if (!r) { std::fprintf(stderr, "%s\n", r.message.c_str()); return 1; }
//   r = comm.allreduce(send, recv, count, xf::DType::kFp32, xf::RedOp::kSum);
//
// One host process drives every chip, so a call takes one buffer per chip (`send[c]`, `recv[c]`
// for chip c = 0..size()-1), like NCCL's single-process multi-device use. In place: send[c] ==
// recv[c] (for reduce_scatter: recv[c] == send[c] + c * recvcount elements; for all_gather:
// send[c] == recv[c] + c * sendcount elements). Buffers must stay valid until the call returns,
// or until wait() for a started call.
//
// Every call returns a Result: a Status and a message that names the argument or the chip and
// says what to do. Operations run one at a time, in the order they were started, on the
// communicator's own thread; start_*() returns at once and wait() finishes the call, so the host
// can compute while the fabric runs.
#pragma once

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <cstring>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <tuple>
#include <vector>

#include "xf/alu.hpp"
#include "xf/compiler.hpp"
#include "xf/layout.hpp"
#include "xf/reference.hpp"
#include "xf/serial.hpp"
#include "xf/topology.hpp"

namespace xf {

enum class Status {
  kOk = 0,
  kInvalidArgument,  // a count, pointer, root, buffer or option is wrong
  kUnsupported,      // a valid request this machine cannot do (type/op pair, size, algorithm)
  kUnknownBackend,   // the backend name is not model, rtl or serial:DEV
  kChipError,        // a chip reported an error during the run (the message names it)
  kTimeout,          // the run did not finish within the cycle limit
  kBackendError,     // the backend failed (a device that cannot be opened, a lost board, ...)
  kNotInitialized,   // the communicator was not created (or was moved from)
};

inline const char* to_string(Status s) {
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

struct Result {
  Status status = Status::kOk;
  std::string message;  // empty when ok; warnings of a successful run are in OpStats
  bool ok() const { return status == Status::kOk; }
  explicit operator bool() const { return ok(); }
};

// What one completed operation did on the machine.
struct OpStats {
  std::string collective, algorithm;
  uint64_t bytes = 0;     // per chip, as compiled (the padded size for reduce_scatter/all_gather)
  uint64_t cycles = 0;    // fabric cycles from start to the last chip's End
  double efficiency = 0;  // the compiler's bound over cycles (docs/compiler.md section 10)
  double seconds = 0;     // wall time of the whole call (compile, load, run, read back)
  std::vector<std::string> warnings;  // links that recovered errors or escalated
};

// One backend run: what every backend returns to the communicator.
struct BackendRun {
  bool ok = false;
  bool timeout = false;
  std::string error;
  uint64_t cycles = 0;
  std::vector<Bytes> outputs;
  std::vector<std::string> diagnosis;
};

// A machine the communicator drives: a model, Verilated RTL, a board. Used only from the
// communicator's thread.
class Backend {
 public:
  virtual ~Backend() = default;
  virtual std::string name() const = 0;
  // Data memory per tile the machine has; the compiler refuses plans that need more.
  virtual uint32_t tile_dmem_bytes() const = 0;
  virtual int max_tiles() const = 0;
  // Loads the image and inputs, runs, reads back (xf::run_collective).
  virtual BackendRun run(const Plan& plan, const Image& img, const std::vector<Bytes>& inputs,
                         uint64_t max_cycles, std::vector<SgdState>* state_in,
                         std::vector<SgdState>* state_out) = 0;
};

struct CommConfig {
  int tiles = 4;             // tiles per chip the collectives use
  Algo algo = Algo::kAuto;   // the compiler's choice unless set
  uint32_t chunk_bytes = 0;  // 0 = the compiler's automatic chunk
  bool saturate = false;     // integer sums clamp instead of wrapping
  uint64_t max_cycles = 50'000'000;
  std::string faults;  // link faults under the retry layer (model, rtl), e.g. "wer=1e-3"
};

// The sharded optimizer (sharded-update patent, docs/driver.md section 4): SGD with momentum on
// fp32 master weights, m <- momentum * m + (g + weight_decay * w), w <- w - lr * m, each chip
// updating only its own shard with its own shard of the momentum.
struct SgdConfig {
  float lr = 0.01f, momentum = 0.9f, weight_decay = 0.0f;
};

// Backends compiled elsewhere: the SystemC model (model/comm_backend.cpp, in xfmodel) and the
// Verilated RTL (tb/comm_rtl.cpp, in xfrtl). Throw std::exception with a clear message.
std::unique_ptr<Backend> make_model_backend(const Topology& topo, const CommConfig& cfg);
std::unique_ptr<Backend> make_rtl_backend(const Topology& topo, const CommConfig& cfg);
// The serial backend (a board; sw/include/xf/serial.hpp, defined in model/comm_backend.cpp).
std::unique_ptr<Backend> make_serial_backend(const Topology& topo, const CommConfig& cfg,
                                             const std::string& device, int baud);

// BackendRun from a backend's run of xf::run_collective (HostRun or model::CollectiveRun: stats
// with ok, error and cycles; outputs; diagnosis).
template <class Run>
BackendRun backend_run(Run&& r, bool timeout) {
  BackendRun b;
  b.ok = r.stats.ok;
  b.timeout = !r.stats.ok && timeout;
  b.error = std::move(r.stats.error);
  b.cycles = r.stats.cycles;
  b.outputs = std::move(r.outputs);
  b.diagnosis = std::move(r.diagnosis);
  return b;
}

class Comm;

// A started operation; wait() on its communicator finishes it.
class Request {
 public:
  bool valid() const { return static_cast<bool>(st_); }

 private:
  friend class Comm;
  struct State {
    bool done = false;
    Result result;
    OpStats stats;
  };
  std::shared_ptr<State> st_;
};

class Comm {
 public:
  Comm() = default;
  Comm(const Comm&) = delete;
  Comm& operator=(const Comm&) = delete;
  Comm(Comm&& o) noexcept { *this = std::move(o); }
  Comm& operator=(Comm&& o) noexcept {
    if (this != &o) {
      shutdown();
      impl_ = std::move(o.impl_);
    }
    return *this;
  }
  ~Comm() { shutdown(); }

  // A communicator over `topology` (the grammar of docs/topology.md) on `backend` ("model",
  // "rtl" or "serial:DEV[@BAUD]"). On failure *out is left uninitialized.
  static Result create(const std::string& topology, const std::string& backend, Comm* out,
                       const CommConfig& cfg = CommConfig{}) {
    const bool serial = backend.rfind("serial:", 0) == 0;
    std::string dev;
    int baud = 0;
    if (serial) {
      try {
        std::tie(dev, baud) = serial::parse_backend(backend);
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
      if (serial) return make_serial_backend(t, c, dev, baud);
      if (backend == "model") return make_model_backend(t, c);
      return make_rtl_backend(t, c);
    });
  }
  // The same over a machine of the caller's (a Backend of its own: another simulator, a test
  // double, a board behind another bridge).
  static Result create(const std::string& topology, std::unique_ptr<Backend> backend, Comm* out,
                       const CommConfig& cfg = CommConfig{}) {
    if (!backend) return {Status::kInvalidArgument, "Comm::create: the backend is null"};
    const std::string name = backend->name();
    auto holder = std::make_shared<std::unique_ptr<Backend>>(std::move(backend));
    return create_impl(topology, name, out, cfg,
                       [holder](const Topology&, const CommConfig&) { return std::move(*holder); });
  }

  bool initialized() const { return static_cast<bool>(impl_); }
  int size() const { return impl_ ? impl_->topo.num_chips : 0; }
  const Topology& topology() const { return impl_->topo; }
  std::string backend() const { return impl_ ? impl_->backend_name : ""; }
  // The statistics of the last operation wait() finished.
  const OpStats& last() const { return last_; }

  // ---- blocking calls -------------------------------------------------------------------------
  Result allreduce(const std::vector<const void*>& send, const std::vector<void*>& recv,
                   size_t count, DType dt, RedOp op) {
    return wait(start_allreduce(send, recv, count, dt, op));
  }
  // send[c] holds size() * recvcount elements; chip c receives the reduced block c.
  Result reduce_scatter(const std::vector<const void*>& send, const std::vector<void*>& recv,
                        size_t recvcount, DType dt, RedOp op) {
    return wait(start_reduce_scatter(send, recv, recvcount, dt, op));
  }
  // recv[c] gets size() * sendcount elements: block q from chip q.
  Result all_gather(const std::vector<const void*>& send, const std::vector<void*>& recv,
                    size_t sendcount, DType dt) {
    return wait(start_all_gather(send, recv, sendcount, dt));
  }
  // send[root] is read; send of other chips may be null.
  Result broadcast(const std::vector<const void*>& send, const std::vector<void*>& recv,
                   size_t count, DType dt, int root) {
    return wait(start_broadcast(send, recv, count, dt, root));
  }
  // Only recv[root] is written; recv of other chips may be null.
  Result reduce(const std::vector<const void*>& send, const std::vector<void*>& recv, size_t count,
                DType dt, RedOp op, int root) {
    return wait(start_reduce(send, recv, count, dt, op, root));
  }

  // ---- the sharded optimizer (sharded-update patent) ------------------------------------------
  // Puts chip c's shard of `params` (count fp32 values, identical on every chip) and a zero
  // momentum on chip c. Nothing runs; the first sgd_step loads it.
  Result sgd_init(const float* params, size_t count, const SgdConfig& opt) {
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
  // The plan sgd_step compiles and runs (for a host-side reference: run_reference with the
  // state of sgd_initial_state gives the same bits).
  Result sgd_plan(size_t count, const SgdConfig& opt, Plan* plan) const {
    Result r = check_init();
    if (!r) return r;
    return impl_->compile(sgd_spec(count, opt), plan, nullptr);
  }
  // One step: reduce-scatter of the gradients (grads[c], count fp32 on chip c), the update of
  // every shard on its chip, all-gather of the new parameters into params[c]. The optimizer
  // state stays on the chips; `state_out`, when given, receives every chip's shard after it.
  Result sgd_step(const std::vector<const float*>& grads, const std::vector<float*>& params,
                  size_t count, const SgdConfig& opt, std::vector<SgdState>* state_out = nullptr) {
    return wait(start_sgd_step(grads, params, count, opt, state_out));
  }

  // ---- non-blocking -------------------------------------------------------------------------
  Request start_allreduce(const std::vector<const void*>& send, const std::vector<void*>& recv,
                          size_t count, DType dt, RedOp op) {
    return start_collective(Collective::kAllReduce, send, recv, count, dt, op, 0);
  }
  Request start_reduce_scatter(const std::vector<const void*>& send, const std::vector<void*>& recv,
                               size_t recvcount, DType dt, RedOp op) {
    return start_collective(Collective::kReduceScatter, send, recv, recvcount, dt, op, 0);
  }
  Request start_all_gather(const std::vector<const void*>& send, const std::vector<void*>& recv,
                           size_t sendcount, DType dt) {
    return start_collective(Collective::kAllGather, send, recv, sendcount, dt, RedOp::kSum, 0);
  }
  Request start_broadcast(const std::vector<const void*>& send, const std::vector<void*>& recv,
                          size_t count, DType dt, int root) {
    return start_collective(Collective::kBroadcast, send, recv, count, dt, RedOp::kSum, root);
  }
  Request start_reduce(const std::vector<const void*>& send, const std::vector<void*>& recv,
                       size_t count, DType dt, RedOp op, int root) {
    return start_collective(Collective::kReduce, send, recv, count, dt, op, root);
  }
  Request start_sgd_step(const std::vector<const float*>& grads, const std::vector<float*>& params,
                         size_t count, const SgdConfig& opt,
                         std::vector<SgdState>* state_out = nullptr) {
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

  // Finishes a started call: its result, and last() becomes its statistics.
  Result wait(Request q) {
    if (!q.valid()) return {Status::kInvalidArgument, "wait: the request is empty"};
    if (!impl_) {  // only requests refused at the start exist without a communicator
      if (q.st_->done) return q.st_->result;
      return {Status::kNotInitialized, "wait: the communicator is not created"};
    }
    Result r = impl_->wait(q);
    last_ = q.st_->stats;
    return r;
  }
  // True when a started call has finished (wait() then returns at once).
  bool test(const Request& q) const {
    if (!q.valid()) return true;
    if (!impl_) return true;
    std::lock_guard<std::mutex> g(impl_->mu);
    return q.st_->done;
  }

 private:
  struct Impl {
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
      if (backend)
        spec.tile_dmem_bytes = std::min(spec.tile_dmem_bytes, backend->tile_dmem_bytes());
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

  using Maker = std::function<std::unique_ptr<Backend>(const Topology&, const CommConfig&)>;
  static Result create_impl(const std::string& topology, const std::string& backend, Comm* out,
                            const CommConfig& cfg, Maker make) {
    if (!out) return {Status::kInvalidArgument, "Comm::create: out is null; pass &comm"};
    Topology topo;
    try {
      topo = parse_topology(topology);
    } catch (const std::exception& e) {
      return {Status::kInvalidArgument, std::string("topology: ") + e.what()};
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
                                          std::to_string(m.backend->max_tiles()) +
                                          " tiles per chip"};
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

  Result check_init() const {
    if (!impl_)
      return {Status::kNotInitialized,
              "the communicator is not created: call xf::Comm::create(topology, backend, &comm)"};
    return {};
  }
  static Request failed(const Result& r) {
    Request q;
    q.st_ = std::make_shared<Request::State>();
    q.st_->done = true;
    q.st_->result = r;
    return q;
  }
  static CollectiveSpec sgd_spec(size_t count, const SgdConfig& opt) {
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

  // Every chip's buffers: the right number, not null where needed, and send/recv either in
  // place or apart. In place: recv[c] == send[c] (kSame), == send[c] + c * part bytes
  // (kRecvInSend, reduce_scatter) or send[c] == recv[c] + c * part (kSendInRecv, all_gather).
  enum InPlace { kSame, kRecvInSend, kSendInRecv };
  Result check_buffers(const char* call, const std::vector<const void*>& send,
                       const std::vector<void*>& recv, uint64_t sbytes, uint64_t rbytes,
                       InPlace kind, uint64_t part, int send_only = -1, int recv_only = -1) const {
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

  Request start_collective(Collective coll, const std::vector<const void*>& send,
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
      return failed({Status::kInvalidArgument,
                     std::string(call) + ": op " + std::to_string(static_cast<int>(op)) +
                         " is not a reduction; use sum, max, min or avg"});
    if (count == 0)
      return failed({Status::kInvalidArgument,
                     std::string(call) + ": count is 0; give at least one element"});
    const bool reduces = coll == Collective::kAllReduce || coll == Collective::kReduceScatter ||
                         coll == Collective::kReduce;
    if (reduces && !valid_pair(dt, op))
      return failed(
          {Status::kUnsupported,
           std::string(call) + ": op " + to_string(op) + " is not defined for " + to_string(dt) +
               (op == RedOp::kAvg ? " (avg is for integer types; use sum on floats)" : "")});
    if ((coll == Collective::kBroadcast || coll == Collective::kReduce) && (root < 0 || root >= P))
      return failed({Status::kInvalidArgument, std::string(call) + ": root " +
                                                   std::to_string(root) + " is not a chip (0.." +
                                                   std::to_string(P - 1) + ")"});
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

  void shutdown() {
    if (impl_) impl_->stop();
    impl_.reset();
  }

  std::unique_ptr<Impl> impl_;
  OpStats last_;
};

}  // namespace xf
