// The driver library: a communicator over a topology and a backend, with the calls users know
// from NCCL (docs/driver.md). Link the CMake library xfdriver (sw/driver/comm.cpp), which brings
// the backends: `model` (xfmodel), `rtl` (sw/backends/rtl/comm_rtl.cpp with the Verilated chip, in
// fabric) and `serial:DEV[@BAUD]` (a board, or xf_board_sim; xfserial, sw/backends/serial).
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

#include <array>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "xf/alu.hpp"
#include "xf/compiler.hpp"
#include "xf/layout.hpp"
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

const char* to_string(Status s);

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
  bool stopped = false;  // a RunHooks::packet hook stopped the run (a checker's mismatch)
  std::string error;
  uint64_t cycles = 0;
  uint64_t end_clock = 0;  // the backend's own clock when the run ended (PacketSeen::clock)
  double seconds = 0;      // wall time of the run step alone (start to the last End)
  std::vector<Bytes> outputs;
  std::vector<std::string> diagnosis;
};

// A packet as its tail leaves a node: what the packet log and the co-simulation checker see.
struct PacketSeen {
  uint64_t cycle = 0;  // cycles from the collective's start
  uint64_t clock = 0;  // the backend's own clock (rtl: the harness cycle; model: = cycle)
  int node = 0, port = 0;
  std::array<uint64_t, 2> header{};  // the packed header (model::pack_header)
  uint32_t payload_crc = 0;          // CRC-32 (IEEE) of the payload bytes
  bool transit = false;              // forwarded for another node (not from this node's tiles)
};

// What a caller watches during the next runs of a backend (fabric run: --packet-log and the
// checker of --backend both; the waves of --trace are CommConfig::trace).
struct RunHooks {
  // Every packet; returning false stops the run at that cycle (BackendRun::stopped).
  std::function<bool(const PacketSeen&)> packet;
  // The collective's start command, at this clock (the checker's cycle 0 is the next one).
  std::function<void(uint64_t clock)> started;
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
  // The hooks of the next runs. A machine that cannot watch its packets (a board) throws
  // std::runtime_error when a hook is set.
  virtual void watch(const RunHooks& hooks) {
    if (hooks.packet || hooks.started)
      throw std::runtime_error("the " + name() + " backend cannot watch its packets");
  }
  // A cycle limit that catches a hang without cutting a long collective short.
  virtual uint64_t cycle_limit() const { return 50'000'000; }
  // Lines about the last run for the user, "# ..." each: the link faults and what the retry
  // layer did about them (under CommConfig::faults), a board's traffic on its serial line.
  virtual std::vector<std::string> notes() const { return {}; }
};

struct CommConfig {
  int tiles = 4;              // tiles per chip the collectives use
  int flit_bits = kFlitBits;  // the machine's flit width: 32, 64 or 128 (docs/packets.md)
  Algo algo = Algo::kAuto;    // the compiler's choice unless set
  uint32_t chunk_bytes = 0;   // 0 = the compiler's automatic chunk
  bool saturate = false;      // integer sums clamp instead of wrapping
  uint64_t max_cycles = 50'000'000;
  std::string faults;  // link faults under the retry layer (model, rtl), e.g. "wer=1e-3"
  std::string trace;   // rtl: the waves of every node to this FST file ("" none)
  // model: data memory per tile (0: the tile's, reg::kTileDmemSize); a run's plan must fit. A
  // smaller value saves host memory on a large machine (fabric run: the plan's footprint).
  uint32_t model_dmem_bytes = 0;
};

// The sharded optimizer (sharded-update patent, docs/driver.md section 4): SGD with momentum on
// fp32 master weights, m <- momentum * m + (g + weight_decay * w), w <- w - lr * m, each chip
// updating only its own shard with its own shard of the momentum.
struct SgdConfig {
  float lr = 0.01f, momentum = 0.9f, weight_decay = 0.0f;
};

// The backend a name says: "model", "rtl" or "serial:DEV[@BAUD]" (sw/driver/comm.cpp). Throws
// cli::Usage for a malformed name, std::exception with a clear message when the machine cannot
// be built.
std::unique_ptr<Backend> make_backend(const std::string& name, const Topology& topo,
                                      const CommConfig& cfg);
// Why the machine `name` cannot hold `topo` with cfg.tiles tiles per chip, in one line in the
// words of fabric's options ("" when it can), before anything is planned or built.
std::string backend_refuses(const std::string& name, const Topology& topo, const CommConfig& cfg);
// The RTL's limits (sw/backends/rtl/comm_rtl.cpp): the Verilated chip's tiles and ports, the
// switch's ports, the routing tables' chips.
std::string rtl_refuses(const Topology& topo, const CommConfig& cfg);
// Backends compiled elsewhere: the SystemC model (sw/backends/model/comm_backend.cpp, in xfmodel)
// and the Verilated RTL (sw/backends/rtl/comm_rtl.cpp, in xfrtl). Throw std::exception with a clear
// message.
std::unique_ptr<Backend> make_model_backend(const Topology& topo, const CommConfig& cfg);
std::unique_ptr<Backend> make_rtl_backend(const Topology& topo, const CommConfig& cfg);
// The serial backend (a board; sw/include/xf/serial.hpp, defined in
// sw/backends/model/comm_backend.cpp).
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
  b.seconds = r.stats.seconds;
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
  Comm();
  Comm(const Comm&) = delete;
  Comm& operator=(const Comm&) = delete;
  Comm(Comm&& o) noexcept;
  Comm& operator=(Comm&& o) noexcept;
  ~Comm();

  // A communicator over `topology` (the grammar of docs/topology.md) on `backend` ("model",
  // "rtl" or "serial:DEV[@BAUD]"). On failure *out is left uninitialized.
  static Result create(const std::string& topology, const std::string& backend, Comm* out,
                       const CommConfig& cfg = CommConfig{});
  // The same over a machine of the caller's (a Backend of its own: another simulator, a test
  // double, a board behind another bridge).
  static Result create(const std::string& topology, std::unique_ptr<Backend> backend, Comm* out,
                       const CommConfig& cfg = CommConfig{});

  bool initialized() const { return static_cast<bool>(impl_); }
  int size() const;
  const Topology& topology() const;
  std::string backend() const;
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
  Result sgd_init(const float* params, size_t count, const SgdConfig& opt);
  // The plan sgd_step compiles and runs (for a host-side reference: run_reference with the
  // state of sgd_initial_state gives the same bits).
  Result sgd_plan(size_t count, const SgdConfig& opt, Plan* plan) const;
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
                         std::vector<SgdState>* state_out = nullptr);

  // Finishes a started call: its result, and last() becomes its statistics.
  Result wait(Request q);
  // True when a started call has finished (wait() then returns at once).
  bool test(const Request& q) const;

 private:
  struct Impl;  // the worker thread, its queue and the backend (sw/driver/comm.cpp)
  using Maker = std::function<std::unique_ptr<Backend>(const Topology&, const CommConfig&)>;
  static Result create_impl(const std::string& topology, const std::string& backend, Comm* out,
                            const CommConfig& cfg, Maker make);
  Result check_init() const;
  static Request failed(const Result& r);
  static CollectiveSpec sgd_spec(size_t count, const SgdConfig& opt);
  // Every chip's buffers: the right number, not null where needed, and send/recv either in
  // place or apart. In place: recv[c] == send[c] (kSame), == send[c] + c * part bytes
  // (kRecvInSend, reduce_scatter) or send[c] == recv[c] + c * part (kSendInRecv, all_gather).
  enum InPlace { kSame, kRecvInSend, kSendInRecv };
  Result check_buffers(const char* call, const std::vector<const void*>& send,
                       const std::vector<void*>& recv, uint64_t sbytes, uint64_t rbytes,
                       InPlace kind, uint64_t part, int send_only = -1, int recv_only = -1) const;
  Request start_collective(Collective coll, const std::vector<const void*>& send,
                           const std::vector<void*>& recv, size_t count, DType dt, RedOp op,
                           int root);
  void shutdown();

  std::unique_ptr<Impl> impl_;
  OpStats last_;
};

}  // namespace xf
