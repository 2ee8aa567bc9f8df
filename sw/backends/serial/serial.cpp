// The serial host bridge's host side (xf/serial.hpp): frames, the POSIX serial port, the client
// and the board's Host. The only file that includes the POSIX terminal headers.
#include "xf/serial.hpp"

#include <fcntl.h>
#include <poll.h>
#include <termios.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <stdexcept>

#include "xf/alu.hpp"
#include "xf/cli.hpp"
#include "xf/defs.hpp"
#include "xf/layout.hpp"

namespace xf::serial {

namespace {

speed_t speed(int baud) {
  switch (baud) {
    case 9600:
      return B9600;
    case 19200:
      return B19200;
    case 38400:
      return B38400;
    case 57600:
      return B57600;
    case 115200:
      return B115200;
    case 230400:
      return B230400;
    case 460800:
      return B460800;
    case 500000:
      return B500000;
    case 921600:
      return B921600;
    case 1000000:
      return B1000000;
    case 1500000:
      return B1500000;
    case 2000000:
      return B2000000;
    case 3000000:
      return B3000000;
    default:
      throw std::runtime_error("serial: " + std::to_string(baud) +
                               " baud is not a rate this driver can set; use 115200, 1000000, "
                               "2000000 or 3000000 (and build the board top with the same Baud)");
  }
}

}  // namespace

const char* to_string(Status s) {
  switch (s) {
    case Status::kOk:
      return "Ok";
    case Status::kBadCrc:
      return "BadCrc";
    case Status::kBadCommand:
      return "BadCommand";
    case Status::kBadNode:
      return "BadNode";
    case Status::kBadLength:
      return "BadLength";
    case Status::kBadAddress:
      return "BadAddress";
    case Status::kAccessError:
      return "AccessError";
    case Status::kTimeout:
      return "Timeout";
    case Status::kTruncated:
      return "Truncated";
    case Status::kFraming:
      return "Framing";
  }
  return "unknown status";
}

bool line_error(Status s) {
  return s == Status::kBadCrc || s == Status::kTruncated || s == Status::kFraming;
}

uint8_t crc8(const uint8_t* p, size_t n, uint8_t crc) {
  for (size_t i = 0; i < n; ++i) {
    crc ^= p[i];
    for (int b = 0; b < 8; ++b)
      crc = static_cast<uint8_t>(crc & 0x80 ? (crc << 1) ^ 0x07 : crc << 1);
  }
  return crc;
}

std::vector<uint8_t> encode_request(uint8_t cmd, uint8_t node, uint32_t addr, const uint32_t* words,
                                    int count) {
  std::vector<uint8_t> f = {kSync, cmd, node, static_cast<uint8_t>(count)};
  for (int i = 0; i < 4; ++i) f.push_back(static_cast<uint8_t>(addr >> (8 * i)));
  if (cmd == kCmdWrite)
    for (int w = 0; w < count; ++w)
      for (int i = 0; i < 4; ++i) f.push_back(static_cast<uint8_t>(words[w] >> (8 * i)));
  f.push_back(crc8(f.data() + 1, f.size() - 1));
  return f;
}

SerialPort::SerialPort(const std::string& path, int baud) : path_(path) {
  fd_ = ::open(path.c_str(), O_RDWR | O_NOCTTY | O_NONBLOCK);
  if (fd_ < 0)
    throw std::runtime_error("serial: cannot open " + path + ": " + std::strerror(errno) +
                             " (is the board plugged in, or the simulator running? check the "
                             "device name and your permission to use it, e.g. group dialout)");
  termios t{};
  if (tcgetattr(fd_, &t) != 0) {
    const std::string why = std::strerror(errno);
    ::close(fd_);
    throw std::runtime_error("serial: " + path + " is not a serial port: " + why);
  }
  cfmakeraw(&t);
  t.c_cflag |= CLOCAL | CREAD;
  t.c_cflag &= ~(CSTOPB | PARENB | CRTSCTS);
  t.c_cc[VMIN] = 0;
  t.c_cc[VTIME] = 0;
  const speed_t sp = speed(baud);
  cfsetispeed(&t, sp);
  cfsetospeed(&t, sp);
  if (tcsetattr(fd_, TCSANOW, &t) != 0) {
    const std::string why = std::strerror(errno);
    ::close(fd_);
    throw std::runtime_error("serial: cannot set " + path + " to " + std::to_string(baud) +
                             " baud 8N1: " + why);
  }
  tcflush(fd_, TCIOFLUSH);
}
SerialPort::~SerialPort() {
  if (fd_ >= 0) ::close(fd_);
}

void SerialPort::send(const uint8_t* p, size_t n) {
  while (n > 0) {
    const ssize_t w = ::write(fd_, p, n);
    if (w < 0 && (errno == EAGAIN || errno == EINTR)) {
      pollfd pf{fd_, POLLOUT, 0};
      ::poll(&pf, 1, 100);
      continue;
    }
    if (w < 0) throw std::runtime_error("serial: write to " + path_ + ": " + std::strerror(errno));
    p += w;
    n -= static_cast<size_t>(w);
  }
}
size_t SerialPort::recv(uint8_t* p, size_t n, int timeout_ms) {
  pollfd pf{fd_, POLLIN, 0};
  const int r = ::poll(&pf, 1, timeout_ms);
  if (r < 0 && errno != EINTR)
    throw std::runtime_error("serial: poll on " + path_ + ": " + std::strerror(errno));
  if (r <= 0) return 0;
  const ssize_t got = ::read(fd_, p, n);
  if (got < 0 && (errno == EAGAIN || errno == EINTR)) return 0;
  if (got < 0) throw std::runtime_error("serial: read from " + path_ + ": " + std::strerror(errno));
  if (got == 0 && (pf.revents & POLLHUP))
    throw std::runtime_error("serial: " + path_ + " hung up (the board or simulator went away)");
  return static_cast<size_t>(got);
}

Reply Client::transact(uint8_t cmd, uint8_t node, uint32_t addr, const uint32_t* words, int count) {
  if (count < 1 || count > kMaxWords)
    throw std::invalid_argument("serial: a request carries 1 to 64 words, not " +
                                std::to_string(count));
  const std::vector<uint8_t> frame = encode_request(cmd, node, addr, words, count);
  std::string last;
  for (int attempt = 0; attempt <= retries_; ++attempt) {
    link_.send(frame.data(), frame.size());
    ++requests_;
    Reply r;
    last = receive(cmd == kCmdRead, count, &r);
    if (last.empty() && !line_error(r.status)) return r;
    // A line error: the bridge did nothing, sending again is safe. A lost or damaged reply:
    // a read may be sent again; so may a write of memory or a register (the same values
    // again), but not a Control write, which would start or clear the chips a second time.
    const bool not_done = last.empty();
    if (not_done) last = std::string("the bridge answered ") + to_string(r.status);
    if (!not_done && cmd == kCmdWrite && addr == reg::kControl) break;
    ++retried_;
    drain();
  }
  throw std::runtime_error("serial: no good reply to a " +
                           std::string(cmd == kCmdRead ? "read" : "write") + " of node " +
                           std::to_string(node) + " at 0x" + hex(addr) + " after " +
                           std::to_string(retries_ + 1) + " tries: " + last +
                           " (check the baud rate, the cable and that the board runs the "
                           "fabric's bitstream)");
}

std::vector<uint32_t> Client::read(uint8_t node, uint32_t addr, int count) {
  std::vector<uint32_t> out;
  while (count > 0) {
    const int n = count < kMaxWords ? count : kMaxWords;
    Reply r = transact(kCmdRead, node, addr, nullptr, n);
    check(r, "read", node, addr, n);
    out.insert(out.end(), r.data.begin(), r.data.end());
    addr += 4 * n;
    count -= n;
  }
  return out;
}
void Client::write(uint8_t node, uint32_t addr, const uint32_t* words, int count) {
  while (count > 0) {
    const int n = count < kMaxWords ? count : kMaxWords;
    check(transact(kCmdWrite, node, addr, words, n), "write", node, addr, n);
    addr += 4 * n;
    words += n;
    count -= n;
  }
}
std::string Client::hex(uint32_t v) {
  char b[16];
  std::snprintf(b, sizeof b, "%x", v);
  return b;
}

void Client::check(const Reply& r, const char* what, uint8_t node, uint32_t addr, int n) {
  if (r.status == Status::kOk && r.done == n) return;
  std::string who = node == kNodeAll      ? std::string("every chip")
                    : node == kNodeBridge ? std::string("the bridge")
                                          : "node " + std::to_string(node);
  std::string msg = std::string("serial: ") + what + " of " + who + " at 0x" +
                    hex(addr + 4 * r.done) + ": the bridge answered " + to_string(r.status);
  switch (r.status) {
    case Status::kAccessError:
      msg +=
          " (the chip refused the address: outside its map, read-only, or beyond what this "
          "build holds; see docs/chip.md)";
      break;
    case Status::kTimeout:
      msg += " (the host port did not answer in 65536 cycles)";
      break;
    case Status::kBadNode:
      msg += " (the board has fewer nodes; read its Info register)";
      break;
    default:
      break;
  }
  throw std::runtime_error(msg);
}

std::string Client::receive(bool is_read, int count, Reply* r) {
  std::vector<uint8_t> b;
  size_t need = 3;  // 0x5A, STATUS, DONE
  bool sized = false;
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(timeout_ms_);
  while (b.size() < need) {
    const auto now = std::chrono::steady_clock::now();
    if (now >= deadline)
      return b.empty() ? "no reply in " + std::to_string(timeout_ms_) + " ms"
                       : "the reply stopped after " + std::to_string(b.size()) + " bytes";
    const int left = static_cast<int>(
        std::chrono::duration_cast<std::chrono::milliseconds>(deadline - now).count());
    uint8_t buf[512];
    const size_t got = link_.recv(buf, std::min(sizeof buf, need - b.size()), left + 1);
    for (size_t i = 0; i < got; ++i) {
      if (b.empty() && buf[i] != kReplySync) continue;  // junk before the reply
      b.push_back(buf[i]);
    }
    if (!sized && b.size() >= 3) {
      sized = true;
      const int done = b[2];
      if (done > count)
        return "the reply says " + std::to_string(done) + " words of " + std::to_string(count);
      need = 3 + (is_read ? 4u * done : 0u) + 1;
    }
  }
  if (crc8(b.data() + 1, b.size() - 2) != b.back()) return "the reply's CRC is wrong";
  r->status = static_cast<Status>(b[1]);
  r->done = b[2];
  if (b[1] > static_cast<uint8_t>(Status::kFraming))
    return "the reply has an unknown status " + std::to_string(b[1]);
  r->data.clear();
  if (is_read)
    for (int w = 0; w < r->done; ++w) {
      uint32_t v = 0;
      for (int i = 0; i < 4; ++i) v |= static_cast<uint32_t>(b[3 + 4 * w + i]) << (8 * i);
      r->data.push_back(v);
    }
  return "";
}
void Client::drain() {
  uint8_t buf[256];
  while (link_.recv(buf, sizeof buf, 50) > 0) {
  }
}

BoardInfo read_board_info(Client& c) {
  const std::vector<uint32_t> r = c.read(kNodeBridge, breg::kId, 3);
  if (r[0] != kBridgeId)
    throw std::runtime_error("serial: the device answered, but not as the fabric's bridge (Id " +
                             Client::hex(r[0]) + ", expected " + Client::hex(kBridgeId) + ")");
  BoardInfo bi;
  bi.nodes = r[1] & 0xFF;
  bi.chips = (r[1] >> 8) & 0xFF;
  bi.words_per_frame = (r[1] >> 16) & 0xFF;
  bi.clock_hz = r[2];
  const std::vector<uint32_t> m = c.read(kNodeBridge, breg::kMachine, 16);
  for (uint32_t w : m)
    for (int i = 0; i < 4; ++i) {
      const char ch = static_cast<char>(w >> (8 * i));
      if (ch == 0) return bi;
      bi.machine += ch;
    }
  return bi;
}

uint32_t SerialHost::read32(int node, uint32_t addr) { return c_.read(node8(node), addr, 1)[0]; }
bool SerialHost::holds(int node, uint32_t addr) {
  const Reply r = c_.transact(kCmdRead, node8(node), addr, nullptr, 1);
  if (r.status == Status::kAccessError) return false;
  if (r.status == Status::kOk && r.done == 1) return true;
  throw std::runtime_error("serial: a read of node " + std::to_string(node) + " at 0x" +
                           Client::hex(addr) + " was answered " + to_string(r.status));
}

void SerialHost::flush() {
  for (Access& a : q_) {
    const int words = static_cast<int>(a.n / 4);
    if (a.write) {
      std::vector<uint32_t> w(words);
      std::memcpy(w.data(), a.p, a.n);
      c_.write(node8(a.node), a.addr, w.data(), words);
    } else {
      const std::vector<uint32_t> w = c_.read(node8(a.node), a.addr, words);
      std::memcpy(a.p, w.data(), a.n);
    }
  }
  q_.clear();
}
RunStats SerialHost::run(uint64_t max_cycles) {
  flush();
  RunStats st;
  const uint32_t start = 1;
  const auto t0 = std::chrono::steady_clock::now();
  c_.write(kNodeAll, reg::kControl, &start, 1);
  // A board runs max_cycles in max_cycles / f seconds; polling over the line is the slower
  // part, so allow that plus a margin for a simulated board.
  const double limit_s = static_cast<double>(max_cycles) / (hz_ ? hz_ : 1) + 60.0;
  const uint32_t done_mask = (1u << tiles_) - 1;  // Status bit t: tile t done
  for (;;) {
    bool all_done = true, err = false;
    for (int ch = 0; ch < chips_; ++ch) {
      const uint32_t s = read32(ch, reg::kStatus);
      err = err || (s >> 31);
      all_done = all_done && (s & done_mask) == done_mask;
    }
    const double el = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    if (all_done || err) {
      st.ok = all_done && !err;
      st.seconds = el;
      uint64_t cyc = 0;
      for (int ch = 0; ch < chips_; ++ch) {
        const uint32_t d = read32(ch, reg::kDoneCycles);
        cyc = std::max<uint64_t>(cyc, d);
      }
      st.cycles = cyc >= kDoneCyclesOffset ? cyc - kDoneCyclesOffset : 0;
      if (err) st.error = "a node reports an error (Status bit 31)";
      return st;
    }
    if (el > limit_s) {
      st.seconds = el;
      st.error = "the chips were not done after " + std::to_string(static_cast<int>(el)) + " s (" +
                 std::to_string(max_cycles) + " cycles at " + std::to_string(hz_) +
                 " Hz, plus a minute)";
      return st;
    }
  }
}
uint8_t SerialHost::node8(int node) {
  if (node < 0 || node >= kNodeAll)
    throw std::out_of_range("serial: no node " + std::to_string(node));
  return static_cast<uint8_t>(node);
}
void SerialHost::queue(bool write, int node, uint32_t addr, const void* p, size_t n) {
  if (n % 4 || addr % 4)
    throw std::invalid_argument("serial: host accesses are whole 32-bit words (address 0x" +
                                Client::hex(addr) + ", " + std::to_string(n) + " bytes)");
  if (n) q_.push_back({write, node, addr, const_cast<void*>(p), n});
}
std::pair<std::string, int> parse_backend(const std::string& backend) {
  std::string dev = backend.substr(7);
  int baud = kDefaultBaud;
  const size_t at = dev.rfind('@');
  if (at != std::string::npos) {
    baud = static_cast<int>(cli::parse_int("baud", dev.substr(at + 1), 1200, 12'000'000));
    dev = dev.substr(0, at);
  }
  if (dev.empty())
    throw cli::Usage(
        "--backend serial:DEV[@BAUD]: no device; name the board's serial device, e.g. "
        "serial:/dev/ttyUSB1 or serial:/dev/ttyUSB1@1000000");
  return {dev, baud};
}

void check_machine(const BoardInfo& bi, const Topology& topo) {
  if (bi.machine.empty() || parse_topology(bi.machine).spec != topo.spec)
    throw std::runtime_error("serial: the board's machine is " +
                             (bi.machine.empty() ? std::string("unnamed") : bi.machine) + " (" +
                             std::to_string(bi.chips) + " chips), not " + topo.spec +
                             "; run with --topology " + bi.machine);
}

void check_board(const BoardInfo& bi, SerialHost& h, const Topology& topo, const Plan& plan,
                 const CollectiveSpec& spec) {
  check_machine(bi, topo);
  const uint32_t config = h.read32(0, reg::kConfig);
  const int tiles = static_cast<int>(config & 0x1F);
  if (spec.tiles != tiles)
    throw std::runtime_error("serial: the board's chips have " + std::to_string(tiles) +
                             " tiles; run with --tiles " + std::to_string(tiles));
  // The plan's cycles and the packets' header flits depend on the flit width, so the run must
  // be planned for the board's.
  const int flit_bits = config_flit_bits(config);
  if (topo.flit_bits != flit_bits)
    throw std::runtime_error("serial: the board's chips have " + std::to_string(flit_bits) +
                             "-bit flits, not " + std::to_string(topo.flit_bits) +
                             "; run with --flit-bits " + std::to_string(flit_bits));
  const uint64_t dmem = static_cast<uint64_t>(config >> 16) * 1024;
  for (int t = 0; t < plan.tiles; ++t)
    if (tile_footprint(plan, t) > dmem)
      throw std::runtime_error("serial: the collective needs " +
                               std::to_string(tile_footprint(plan, t)) +
                               " bytes of data memory per tile; the board's tiles have " +
                               std::to_string(dmem) + "; use fewer --bytes");
  const bool reduces = spec.coll == Collective::kAllReduce ||
                       spec.coll == Collective::kReduceScatter ||
                       spec.coll == Collective::kReduce || spec.coll == Collective::kSgdStep;
  const auto alu = static_cast<uint8_t>(h.read32(0, reg::kAluConfig));
  if (reduces && !built_pair(alu, spec.dtype, spec.op)) {
    std::string built;
    for (int d = 0; d < 7; ++d)
      if ((alu >> d) & 1) built += std::string(built.empty() ? "" : ", ") + to_string(DType(d));
    throw std::runtime_error(std::string("serial: the board's ALUs were built without ") +
                             to_string(spec.dtype) + "; they reduce " +
                             (built.empty() ? std::string("nothing") : built) +
                             " (choose one of those with --dtype)");
  }
  if (spec.coll == Collective::kSgdStep && !built_pair(alu, DType::kFp32, RedOp::kScaleAdd))
    throw std::runtime_error(
        "serial: the board's ALUs were built without ScaleAdd (AluConfig bit 7), which the sgd "
        "step needs; build the board's machine with --alu-dtypes fp32,scaleadd "
        "(scripts/fpga_machines.sh) or run the sgd step on the model");
}

void check_memories(SerialHost& h, const Image& img) {
  // A tile's IMEM and PMEM hold 2^k words (rtl/xf_tile.sv), the same in every tile, and the host
  // port refuses a word beyond them; the words are 8 (IMEM) and 4 (PMEM) bytes apart.
  struct Mem {
    const char* name;
    uint32_t region, step, window;
    size_t need;
    const char* remedy;
  };
  size_t imem = 0, pmem = 0;
  for (const auto& v : img.imem) imem = std::max(imem, v.size());
  for (const auto& v : img.pmem) pmem = std::max(pmem, v.size());
  const Mem mems[] = {
      {"instruction memory (IMEM)", reg::kTileImem, 8, reg::kTileImemSize, imem,
       "another --algo, or a larger --chunk or fewer --bytes, makes a shorter program"},
      {"parameter memory (PMEM)", reg::kTilePmem, 4, reg::kTilePmemSize, pmem,
       "a larger --chunk or fewer --bytes makes a shorter descriptor list"},
  };
  for (const Mem& m : mems) {
    if (m.need == 0) continue;
    const uint32_t base = reg::kTileBase + m.region;
    auto has = [&](size_t words) {
      return words * m.step <= m.window && h.holds(0, base + (words - 1) * m.step);
    };
    if (has(m.need)) continue;
    size_t held = 0;  // the largest power of two that the chip holds, found by asking
    for (size_t w = size_t{1} << 20; w >= 1 && !held; w >>= 1)
      if (w < m.need && has(w)) held = w;
    throw std::runtime_error("serial: the collective needs " + std::to_string(m.need) +
                             " words of " + m.name + " per tile; the board's tiles hold " +
                             std::to_string(held) + "; " + m.remedy);
  }
}

}  // namespace xf::serial
