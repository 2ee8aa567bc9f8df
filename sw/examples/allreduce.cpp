// A program to copy: an allreduce of fp32 gradients over 8 chips through the driver library
// (docs/driver.md). The model backend is SystemC, which owns main(): the entry point is sc_main.
// Build: link the CMake target xfmodel (see example_allreduce in CMakeLists.txt).
#include <cstdio>
#include <vector>

#include "xf/comm.hpp"

// SystemC calls sc_main with C linkage (as <systemc> declares it).
extern "C" int sc_main(int, char**);

int sc_main(int, char**) {
  xf::Comm comm;
  xf::CommConfig cfg;  // 4 tiles per chip, the compiler's algorithm, 50 M cycle limit
  xf::Result r = xf::Comm::create("ladder:8", "model", &comm, cfg);
  if (!r) {
    std::fprintf(stderr, "create: %s\n", r.message.c_str());
    return 1;
  }
  const size_t count = 4096;
  std::vector<std::vector<float>> grad(comm.size(), std::vector<float>(count));
  std::vector<const void*> send;
  std::vector<void*> recv;
  for (int c = 0; c < comm.size(); ++c) {
    for (size_t i = 0; i < count; ++i) grad[c][i] = static_cast<float>(c + 1);
    send.push_back(grad[c].data());
    recv.push_back(grad[c].data());  // in place
  }
  // Non-blocking: start, do host work, wait.
  xf::Request q = comm.start_allreduce(send, recv, count, xf::DType::kFp32, xf::RedOp::kSum);
  r = comm.wait(q);
  if (!r) {
    std::fprintf(stderr, "allreduce: %s: %s\n", xf::to_string(r.status), r.message.c_str());
    return 1;
  }
  const float want = comm.size() * (comm.size() + 1) / 2.0f;  // 1 + 2 + ... + P
  for (int c = 0; c < comm.size(); ++c)
    for (size_t i = 0; i < count; ++i)
      if (grad[c][i] != want) {
        std::fprintf(stderr, "chip %d element %zu: %g, expected %g\n", c, i, grad[c][i], want);
        return 1;
      }
  std::printf(
      "allreduce of %zu fp32 on %s: every chip holds %g; %llu cycles, %s, efficiency %.2f\n", count,
      comm.topology().spec.c_str(), want, static_cast<unsigned long long>(comm.last().cycles),
      comm.last().algorithm.c_str(), comm.last().efficiency);
  // A refused call: the message says what was wrong.
  r = comm.allreduce(send, recv, count, xf::DType::kFp32, xf::RedOp::kAvg);
  std::printf("an fp32 avg is refused: %s: %s\n", xf::to_string(r.status), r.message.c_str());
  return r.status == xf::Status::kUnsupported ? 0 : 1;
}
