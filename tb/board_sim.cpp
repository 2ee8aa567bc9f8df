// xf_board_sim: the Verilated ULX3S board top (fpga/ulx3s/fpga.sv: the board's machine of chips
// behind the serial host bridge) with its UART pins on a pseudo-terminal, so that the driver's
// serial backend runs against it exactly as against a board (docs/fpga.md section 5):
//
//   xf_board_sim --link build/board.pty &
//   fabric run --topology ring:4 --tiles 1 --dtype int32 --bytes 1K --backend
//   serial:build/board.pty
//
// The bytes the driver writes to the terminal are shifted into the top's `ftdi_txd` pin bit by
// bit, ClksPerBit = round(25 MHz / Baud) cycles per bit (the top is Verilated with a high Baud
// so that a byte takes 40 cycles), and the bits the bridge drives on `ftdi_rxd` are sampled back
// into bytes by a receiver in the middle of each bit. Nothing else reaches the RTL.
//
// Options: --link PATH     a symbolic link to the terminal (replaced if it exists)
//          --seconds S     exit after S seconds of wall time (0: run until killed; default 0)
// Prints the terminal's name, then one line per minute of what went through it. Exit status: 0
// killed or timed out, 1 an error, 2 bad arguments.
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <termios.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <memory>
#include <string>

#include "Vfpga.h"
#include "uart_host.hpp"
#include "verilated.h"

#ifndef XF_BOARD_CLK_HZ
#define XF_BOARD_CLK_HZ 25000000
#endif
#ifndef XF_BOARD_BAUD
#error "XF_BOARD_BAUD must be the Baud the top was Verilated with"
#endif

namespace {

constexpr int kClksPerBit = (XF_BOARD_CLK_HZ + XF_BOARD_BAUD / 2) / XF_BOARD_BAUD;

volatile sig_atomic_t g_stop = 0;
void on_signal(int) { g_stop = 1; }

int usage(const char* why) {
  if (why) std::fprintf(stderr, "xf_board_sim: %s\n", why);
  std::fprintf(stderr, "usage: xf_board_sim [--link PATH] [--seconds S]\n");
  return 2;
}

}  // namespace

int main(int argc, char** argv) {
  std::string link;
  double seconds = 0;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "-h" || a == "--help") {
      usage(nullptr);
      return 0;
    }
    if (i + 1 >= argc) return usage(("'" + a + "' needs a value or is unknown").c_str());
    if (a == "--link") {
      link = argv[++i];
    } else if (a == "--seconds") {
      char* end = nullptr;
      seconds = std::strtod(argv[++i], &end);
      if (*end || seconds < 0) return usage("--seconds needs a number of seconds, 0 or more");
    } else {
      return usage(("unknown option '" + a + "'").c_str());
    }
  }

  const int master = posix_openpt(O_RDWR | O_NOCTTY);
  if (master < 0 || grantpt(master) != 0 || unlockpt(master) != 0) {
    std::fprintf(stderr, "xf_board_sim: cannot create a pseudo-terminal: %s\n",
                 std::strerror(errno));
    return 1;
  }
  const std::string pts = ptsname(master);
  // Hold the terminal's other side open in raw mode: the line discipline must not echo or edit
  // the driver's bytes, and the terminal must outlive each driver that opens and closes it.
  const int slave = open(pts.c_str(), O_RDWR | O_NOCTTY);
  termios t{};
  if (slave < 0 || tcgetattr(slave, &t) != 0) {
    std::fprintf(stderr, "xf_board_sim: cannot open %s: %s\n", pts.c_str(), std::strerror(errno));
    return 1;
  }
  cfmakeraw(&t);
  tcsetattr(slave, TCSANOW, &t);
  fcntl(master, F_SETFL, fcntl(master, F_GETFL) | O_NONBLOCK);
  if (!link.empty()) {
    unlink(link.c_str());
    if (symlink(pts.c_str(), link.c_str()) != 0) {
      std::fprintf(stderr, "xf_board_sim: cannot make the link %s: %s\n", link.c_str(),
                   std::strerror(errno));
      return 1;
    }
  }
  signal(SIGINT, on_signal);
  signal(SIGTERM, on_signal);
  std::printf("xf_board_sim: ULX3S top, %d clock cycles per bit; serial port %s%s%s\n", kClksPerBit,
              pts.c_str(), link.empty() ? "" : " (link ", link.empty() ? "" : (link + ")").c_str());
  std::fflush(stdout);

  auto ctx = std::make_unique<VerilatedContext>();
  ctx->commandArgs(argc, argv);
  auto top = std::make_unique<Vfpga>(ctx.get());
  xf::tb::UartHost uart(kClksPerBit);
  uint64_t cycle = 0, idle_cycles = 0, bytes_in = 0, bytes_out = 0;
  top->clk_25mhz = 0;
  top->btn = 0;  // btn[0] (PWR, active low) pressed: reset
  top->ftdi_txd = 1;
  auto step = [&] {
    top->clk_25mhz = 0;
    top->eval();
    top->clk_25mhz = 1;
    top->eval();
    ++cycle;
  };
  for (int i = 0; i < 8; ++i) step();
  top->btn = 1;  // released
  const auto t0 = std::chrono::steady_clock::now();
  auto last_report = t0;
  int rc = 0;
  while (!g_stop) {
    // Bytes from the driver: read when the transmitter has nothing left to send.
    if (uart.out.empty()) {
      uint8_t buf[4096];
      const ssize_t got = read(master, buf, sizeof buf);
      if (got > 0) {
        uart.out.insert(uart.out.end(), buf, buf + got);
        bytes_in += static_cast<uint64_t>(got);
      }
    }
    // Clock in batches between terminal checks.
    for (int i = 0; i < 64; ++i) {
      uart.tick_tx();
      top->ftdi_txd = uart.pin;
      step();
      uart.tick_rx(top->ftdi_rxd);
    }
    if (!uart.in.empty()) {
      const ssize_t w = write(master, uart.in.data(), uart.in.size());
      if (w > 0) {
        bytes_out += static_cast<uint64_t>(w);
        uart.in.erase(0, static_cast<size_t>(w));
      }
    }
    // Nothing on the line: the machine may still be running a collective, so keep clocking,
    // but let the driver's next bytes wake us rather than spin at full speed for ever.
    idle_cycles = uart.idle() && uart.in.empty() ? idle_cycles + 64 : 0;
    if (idle_cycles > 4'000'000) {
      pollfd pf{master, POLLIN, 0};
      poll(&pf, 1, 20);
    }
    const auto now = std::chrono::steady_clock::now();
    if (seconds > 0 && std::chrono::duration<double>(now - t0).count() > seconds) {
      std::fprintf(stderr, "xf_board_sim: --seconds %g reached, stopping\n", seconds);
      break;
    }
    if (now - last_report > std::chrono::seconds(60)) {
      last_report = now;
      std::printf("xf_board_sim: %llu cycles, %llu bytes in, %llu out, %llu framing errors\n",
                  static_cast<unsigned long long>(cycle), static_cast<unsigned long long>(bytes_in),
                  static_cast<unsigned long long>(bytes_out),
                  static_cast<unsigned long long>(uart.framing_errors));
      std::fflush(stdout);
    }
  }
  std::printf("xf_board_sim: stopped after %llu cycles (%llu bytes in, %llu out)\n",
              static_cast<unsigned long long>(cycle), static_cast<unsigned long long>(bytes_in),
              static_cast<unsigned long long>(bytes_out));
  top->final();
  if (!link.empty()) unlink(link.c_str());
  close(slave);
  close(master);
  return rc;
}
