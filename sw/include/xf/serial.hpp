// The host side of the serial host bridge (rtl/xf_uart_bridge.sv, docs/fpga.md section 3):
// the frame format, a client that sends requests and checks replies over any byte link, a POSIX
// serial port (a board's USB UART, or the pseudo-terminal of tb/board_sim.cpp), and SerialHost,
// the host_driver Host (sw/include/xf/host_driver.hpp) behind `fabric run --backend serial:DEV`.
// The bodies are in sw/backends/serial/serial.cpp (library xfserial).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "xf/compiler.hpp"
#include "xf/topology.hpp"

namespace xf::serial {

inline constexpr uint8_t kSync = 0xA5;
inline constexpr uint8_t kReplySync = 0x5A;
inline constexpr uint8_t kCmdRead = 0x01;
inline constexpr uint8_t kCmdWrite = 0x02;
inline constexpr uint8_t kNodeAll = 0xFE;          // write every chip in the same cycle
inline constexpr uint8_t kNodeBridge = 0xFF;       // the bridge's own registers (read only)
inline constexpr int kMaxWords = 64;               // words per request
inline constexpr uint32_t kBridgeId = 0x58464231;  // "XFB1"
inline constexpr int kDefaultBaud = 1'000'000;

// The bridge's registers (NODE 0xFF).
namespace breg {
inline constexpr uint32_t kId = 0x00;
inline constexpr uint32_t kInfo = 0x04;  // bits 7:0 nodes, 15:8 chips, 23:16 words per frame
inline constexpr uint32_t kClockHz = 0x08;
inline constexpr uint32_t kFrames = 0x0C;
inline constexpr uint32_t kCrcErrors = 0x10;
inline constexpr uint32_t kFrameErrors = 0x14;
inline constexpr uint32_t kPortErrors = 0x18;
inline constexpr uint32_t kJunk = 0x1C;
inline constexpr uint32_t kMachine = 0x40;  // 64 bytes of ASCII, NUL-padded
}  // namespace breg

enum class Status : uint8_t {
  kOk = 0x00,
  kBadCrc = 0x01,
  kBadCommand = 0x02,
  kBadNode = 0x03,
  kBadLength = 0x04,
  kBadAddress = 0x05,
  kAccessError = 0x06,
  kTimeout = 0x07,
  kTruncated = 0x08,
  kFraming = 0x09,
};

const char* to_string(Status s);

// A status the bridge answers without having done anything, caused by the line rather than by
// the request: the client sends the request again.
bool line_error(Status s);

// CRC-8, polynomial 0x07, MSB first, initial value 0 (the bridge's).
uint8_t crc8(const uint8_t* p, size_t n, uint8_t crc = 0);

// One request frame. `words` holds `count` words for a write and is ignored for a read.
std::vector<uint8_t> encode_request(uint8_t cmd, uint8_t node, uint32_t addr, const uint32_t* words,
                                    int count);

struct Reply {
  Status status = Status::kOk;
  int done = 0;                // words completed
  std::vector<uint32_t> data;  // a read's words (done of them)
};

// A byte link to the bridge: a serial port, or a test's simulated UART.
class ByteLink {
 public:
  virtual ~ByteLink() = default;
  virtual void send(const uint8_t* p, size_t n) = 0;
  // Up to n bytes; waits at most timeout_ms for the first; 0 when none came.
  virtual size_t recv(uint8_t* p, size_t n, int timeout_ms) = 0;
};

// A POSIX serial device in raw 8N1 mode at `baud` (a pseudo-terminal ignores the rate). Throws
// std::runtime_error saying what to check when the device cannot be opened or set up.
class SerialPort : public ByteLink {
 public:
  SerialPort(const std::string& path, int baud);
  ~SerialPort() override;
  SerialPort(const SerialPort&) = delete;
  SerialPort& operator=(const SerialPort&) = delete;
  void send(const uint8_t* p, size_t n) override;
  size_t recv(uint8_t* p, size_t n, int timeout_ms) override;

 private:
  std::string path_;
  int fd_ = -1;
};

// Requests and replies over a ByteLink: checks every reply, sends a request again when the line
// damaged it (line_error statuses) or, for reads, when the reply was lost or damaged.
class Client {
 public:
  explicit Client(ByteLink& link, int reply_timeout_ms = 10000, int retries = 3)
      : link_(link), timeout_ms_(reply_timeout_ms), retries_(retries) {}

  // One request (count 1..kMaxWords); throws on a reply that never comes or cannot be trusted.
  Reply transact(uint8_t cmd, uint8_t node, uint32_t addr, const uint32_t* words, int count);
  // Words from node's address space; throws with the bridge's status unless every word came.
  std::vector<uint32_t> read(uint8_t node, uint32_t addr, int count);
  void write(uint8_t node, uint32_t addr, const uint32_t* words, int count);
  uint64_t requests() const { return requests_; }
  uint64_t retried() const { return retried_; }

  static std::string hex(uint32_t v);

 private:
  void check(const Reply& r, const char* what, uint8_t node, uint32_t addr, int n);
  // Reads one reply. Returns "" with *r filled, or why no trustworthy reply came.
  std::string receive(bool is_read, int count, Reply* r);
  // After a damaged exchange: wait for the line to fall silent (docs/fpga.md section 3).
  void drain();

  ByteLink& link_;
  int timeout_ms_;
  int retries_;
  uint64_t requests_ = 0, retried_ = 0;
};

// What a board is (the bridge's registers).
struct BoardInfo {
  int nodes = 0, chips = 0, words_per_frame = 0;
  uint32_t clock_hz = 0;
  std::string machine;  // the topology it was generated for, e.g. "ring:4"
};

BoardInfo read_board_info(Client& c);

struct RunStats {
  bool ok = false;
  bool stopped = false;  // never set here (no checker stops a board)
  uint64_t cycles = 0;   // the collective's cycles (DoneCycles), as the model counts them
  std::string error;
  double seconds = 0;  // wall time of the run (start to every chip done), polling included
};

// The board's host ports as a host_driver Host: accesses are queued and sent at flush() in
// bursts of up to 64 words; run() starts every chip with one broadcast write, so that all start
// in the same cycle, then polls Status until every chip is done or one reports an error.
class SerialHost {
 public:
  SerialHost(Client& c, int chips, uint32_t clock_hz, int tiles_in_use)
      : c_(c), chips_(chips), hz_(clock_hz), tiles_(tiles_in_use) {}

  uint32_t read32(int node, uint32_t addr);
  // Whether node's host port has a word at addr: a one-word read that the chip answers (true)
  // or refuses with AccessError (false). Throws on a line that fails, as read32.
  bool holds(int node, uint32_t addr);
  void write(int node, uint32_t addr, const void* p, size_t n) { queue(true, node, addr, p, n); }
  void read(int node, uint32_t addr, void* p, size_t n) { queue(false, node, addr, p, n); }
  void flush();
  RunStats run(uint64_t max_cycles);
  bool direct(int, int, uint32_t, void*, size_t, bool) { return false; }  // the host port only

  // DoneCycles - kDoneCyclesOffset = the collective's cycles as the model and RtlSystem count.
  static constexpr uint64_t kDoneCyclesOffset = 2;  // docs/chip.md section 3

 private:
  struct Access {
    bool write;
    int node;
    uint32_t addr;
    void* p;
    size_t n;
  };
  static uint8_t node8(int node);
  void queue(bool write, int node, uint32_t addr, const void* p, size_t n);
  Client& c_;
  int chips_;
  uint32_t hz_;
  int tiles_;
  std::vector<Access> q_;
};

// "serial:DEV[@BAUD]" (fabric's --backend, xf::Comm's backend): the device and the rate
// (kDefaultBaud unless given). Throws cli::Usage naming what is wrong.
std::pair<std::string, int> parse_backend(const std::string& backend);

// Refuses a topology other than the board's machine, naming the machine.
void check_machine(const BoardInfo& bi, const Topology& topo);
// Refuses a collective the board's machine cannot run, saying what the board holds.
void check_board(const BoardInfo& bi, SerialHost& h, const Topology& topo, const Plan& plan,
                 const CollectiveSpec& spec);
// Refuses a program or descriptor list longer than the board's tiles hold, before anything is
// loaded, naming both sizes: Config does not give IMEM and PMEM, so the chip is asked.
void check_memories(SerialHost& h, const Image& img);

}  // namespace xf::serial
