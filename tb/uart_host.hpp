// The host's end of a UART in a Verilated testbench, bit by bit, 8N1 (docs/fpga.md section 2):
// queued bytes go out on the pin the RTL receives (`pin`), and the pin the RTL drives is sampled
// in the middle of each bit into bytes (`in`). Call tick_tx() before and tick_rx() after each
// clock edge. Used by tb/board_sim.cpp and tests/test_rtl_uart.cpp.
#pragma once

#include <cstdint>
#include <deque>
#include <string>

namespace xf::tb {

struct UartHost {
  explicit UartHost(int clks_per_bit) : clks(clks_per_bit) {}

  int clks;  // clock cycles per bit
  // transmit (host -> RTL)
  std::deque<uint8_t> out;
  bool pin = true;
  bool bad_stop_next = false;  // send the next byte with a low stop bit (a framing error)
  // receive (RTL -> host)
  std::string in;
  uint64_t framing_errors = 0;

  void tick_tx() {
    if (tx_bit_ < 0) {
      if (out.empty()) {
        pin = true;
        return;
      }
      tx_byte_ = out.front();
      out.pop_front();
      tx_bad_stop_ = bad_stop_next;
      bad_stop_next = false;
      tx_bit_ = 0;
      tx_cnt_ = clks;
    }
    pin = tx_bit_ == 0   ? false
          : tx_bit_ == 9 ? !tx_bad_stop_
                         : ((tx_byte_ >> (tx_bit_ - 1)) & 1) != 0;
    if (--tx_cnt_ == 0) {
      tx_cnt_ = clks;
      if (++tx_bit_ == 10) tx_bit_ = -1;
    }
  }
  void tick_rx(bool line) {
    if (rx_state_ == 0) {
      if (!line) {
        rx_state_ = 1;
        rx_cnt_ = clks / 2;  // to the middle of the start bit
      }
      return;
    }
    if (--rx_cnt_ > 0) return;
    rx_cnt_ = clks;
    if (rx_state_ == 1) {
      rx_state_ = line ? 0 : 2;  // high again: a glitch
    } else if (rx_state_ <= 9) {
      rx_byte_ = static_cast<uint8_t>((rx_byte_ >> 1) | (line ? 0x80 : 0));
      ++rx_state_;
    } else {
      if (line)
        in.push_back(static_cast<char>(rx_byte_));
      else
        ++framing_errors;
      rx_state_ = 0;
    }
  }
  bool idle() const { return out.empty() && tx_bit_ < 0 && rx_state_ == 0; }

 private:
  int tx_bit_ = -1;  // -1 idle, 0 start, 1..8 data, 9 stop
  int tx_cnt_ = 0;
  uint8_t tx_byte_ = 0;
  bool tx_bad_stop_ = false;
  int rx_state_ = 0;  // 0 idle, 1 start, 2..9 data, 10 stop
  int rx_cnt_ = 0;
  uint8_t rx_byte_ = 0;
};

}  // namespace xf::tb
