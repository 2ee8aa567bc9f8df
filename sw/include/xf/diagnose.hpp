// Diagnosis for the driver: reads every error register of a machine through its host port and
// says, one English line per finding, what went wrong and where (docs/errors.md has every
// register, field and message with a worked example).
//
//   std::vector<std::string> lines = xf::diagnose(host, nodes, chips, tiles);
//
// Host is any backend with the read of the Host concept of host_driver.hpp:
//   uint32_t read32(int node, uint32_t addr);   // one register, now
// Nodes 0..chips-1 are chips with `tiles` tiles each; nodes chips..nodes-1 are switch nodes,
// which have no tiles. Per node it reads Config (the link ports, bits 11:8), Status, Misroutes,
// XbErrors and, per link port, LinkCrcErrors, LinkStatus and LinkDiscards; per tile TileStatus
// and, for a tile with an error, TileErrInfo, TileErrCount and TileWatchdog (and the counter a
// watchdog's Wait waited on). An empty result means no register reports anything.
//
// Lines start with "chip C", "chip C tile T", "chip C link L", "switch N" or "switch N link L".
// Tile and node lines are errors; link lines are warnings (the retry layer recovers CRC errors
// and lost words; an escalated link is down or too noisy) and say "warning".
#pragma once

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

#include "xf/defs.hpp"

namespace xf {

namespace diag {

inline std::string hex(uint32_t v) {
  char b[16];
  std::snprintf(b, sizeof b, "0x%x", v);
  return b;
}

// "1 packet" / "4 packets"; a counter at its saturation value reads "65535 or more packets".
inline std::string count(uint32_t v, const std::string& one, uint32_t sat = 0xFFFFFFFFu,
                         const std::string& many = "") {
  std::string s = std::to_string(v);
  if (v == sat) s += " or more";
  return s + " " + (v == 1 ? one : many.empty() ? one + "s" : many);
}

// What a failed receive check means (ErrCheck, docs/errors.md section 4). `err` tells an
// unaligned dst_addr (BadPacket) from one beyond the data memory (DmemRange), both Window.
inline std::string check_text(ErrCheck c, TileErr err) {
  switch (c) {
    case ErrCheck::kOpcode:
      return "the opcode is not write or reduce";
    case ErrCheck::kLength:
      return "len is not a multiple of 16 or is above 2048";
    case ErrCheck::kPair:
      return "a reduce with a (dtype, op) pair the ALU does not have";
    case ErrCheck::kWindow:
      return err == TileErr::kDmemRange ? "dst_addr + len beyond the tile's data memory"
                                        : "dst_addr is not a multiple of 16";
    case ErrCheck::kShort:
      return "it ended before len bytes of payload (a tail too early, or no tail before the "
             "next header); its counter was not incremented";
    case ErrCheck::kLong:
      return "more payload flits than len says; the extra flits were not written";
    case ErrCheck::kHeadless:
      return "a payload flit with no open packet (its header was lost)";
    case ErrCheck::kNone:
      break;
  }
  return "no packet check";
}

// What a watchdog's tile waited for (WaitKind, docs/errors.md section 5).
inline std::string wait_text(WaitKind k, uint32_t ctr, uint32_t pc) {
  const std::string at = " (pc " + hex(pc) + ")";
  switch (k) {
    case WaitKind::kCounter:
      return "Wait on counter " + std::to_string(ctr) + at;
    case WaitKind::kSends:
      return "Waits or End for its own sends to drain" + at +
             ": an XB grant or link credits never came";
    case WaitKind::kSendQueue:
      return "Send with the send queue full" + at + ": the queued sends do not drain";
    case WaitKind::kBarrier:
      return "Bar" + at + ": other tiles have not arrived";
    case WaitKind::kRunning:
      break;
  }
  return "not at a wait" + at;
}

// The line for a tile with error code `err` (TileStatus bits 3:0), without the "chip C tile T: "
// prefix. `counter_value` is the counter a Counter watchdog waited on, read by the caller.
inline std::string tile_error_text(TileErr err, uint32_t pc, uint32_t info, uint32_t dropped,
                                   uint32_t period, uint32_t counter_value) {
  const ErrCheck check = static_cast<ErrCheck>(info & 0xFu);
  const uint32_t src_chip = (info >> 12) & 0xFFFu, src_tile = (info >> 24) & 0xFu;
  const std::string src = "chip " + std::to_string(src_chip) + " tile " + std::to_string(src_tile);
  const std::string at = " (pc " + hex(pc) + ")";
  std::string s;
  switch (err) {
    case TileErr::kIllegalInstr:
      s = "illegal instruction" + at +
          ": an undefined opcode, Geti above 3, Csrw to a CSR but 16 and 17, or a Send whose "
          "packet opcode is not write/reduce or whose reduce has no ALU pair";
      break;
    case TileErr::kPcRange:
      s = "pc " + hex(pc) +
          " outside the instruction memory: a jump or a fall-through past the "
          "program's end";
      break;
    case TileErr::kPmemRange:
      s = "Lw" + at + " outside the parameter memory";
      break;
    case TileErr::kDmemRange:
    case TileErr::kBadPacket:
      if (check == ErrCheck::kHeadless) {
        s = "bad packet dropped: " + check_text(check, err) + " (check Headless); source unknown";
      } else if (check != ErrCheck::kNone) {
        s = "bad packet from " + src + " dropped: " + check_text(check, err) + " (check " +
            (check == ErrCheck::kOpcode   ? "Opcode"
             : check == ErrCheck::kLength ? "Length"
             : check == ErrCheck::kPair   ? "Pair"
             : check == ErrCheck::kWindow ? "Window"
             : check == ErrCheck::kShort  ? "Short"
                                          : "Long") +
            ")";
      } else if (err == TileErr::kDmemRange) {
        s = "Send" + at +
            " refused: an address or length not a multiple of 16, a source range beyond the data "
            "memory, or a destination beyond 2^24";
      } else {
        s = "Send" + at +
            " refused or its job dropped: a destination chip that does not exist, or no route "
            "for its lane and chip (check the routing table)";
      }
      break;
    case TileErr::kHazard:
      s = "a packet from " + src + " wrote bytes that a queued send had not read yet" + at +
          ": the program lets data in before its send of those bytes has finished";
      break;
    case TileErr::kWatchdog: {
      const WaitKind k = static_cast<WaitKind>(info & 0xFu);
      s = period ? "watchdog after " + std::to_string(period) + " cycles: "
                 : std::string("watchdog (the simulator saw nothing move): ");
      s += wait_text(k, (info >> 4) & 31u, pc);
      if (k == WaitKind::kCounter)
        s += ": the counter is at " + std::to_string(counter_value) +
             "; a packet it counts never arrived";
      break;
    }
    case TileErr::kNone:
      s = "no error";
      break;
    default:
      s = "unknown error code " + std::to_string(static_cast<unsigned>(err)) + at;
      break;
  }
  if (dropped) s += "; " + count(dropped, "packet") + " dropped in all";
  return s;
}

// One link port's warning, or "" when the link registers are all zero.
inline std::string link_text(uint32_t crc, uint32_t status, uint32_t discards) {
  const uint32_t in_a_row = (status >> 4) & 0xFu, replays = status >> 16;
  const uint32_t out_of_seq = discards & 0xFFFFu, timeouts = discards >> 16;
  if (!crc && !status && !discards) return "";
  std::string s = "warning: ";
  if (status & 1u)
    s += "escalated: " + std::to_string(kLinkEscalateReplays) +
         " replays in a row without an acknowledgement (the link is down or too noisy); ";
  else if (in_a_row)
    s += "replaying now (" + std::to_string(in_a_row) + " replays in a row); ";
  else
    s += "errors recovered by the retry layer, no data lost; ";
  s += count(replays, "replay", 0xFFFFu) + ", " + count(crc, "CRC error", 0xFFFFu);
  if (timeouts)
    s += ", " + count(timeouts, "replay timer expiry", 0xFFFFu, "replay timer expiries");
  if (out_of_seq) s += ", " + count(out_of_seq, "flit", 0xFFFFu) + " discarded out of sequence";
  return s;
}

}  // namespace diag

template <class Host>
std::vector<std::string> diagnose(Host& h, int nodes, int chips, int tiles) {
  std::vector<std::string> out;
  for (int n = 0; n < nodes; ++n) {
    const bool chip = n < chips;
    const std::string node = (chip ? "chip " : "switch ") + std::to_string(n);
    const uint32_t config = h.read32(n, reg::kConfig);
    const uint32_t ports = std::min<uint32_t>((config >> 8) & 0xFu, reg::kLinkCrcErrorsSize / 4);
    const uint32_t status = h.read32(n, reg::kStatus);
    const uint32_t misroutes = h.read32(n, reg::kMisroutes);
    const uint32_t xb = h.read32(n, reg::kXbErrors);
    bool explained = false;
    if (misroutes) {
      out.push_back(node + ": " + diag::count(misroutes, "packet") +
                    " dropped by the exchange for want of a route (Misroutes): no routing-table "
                    "entry, a missing tile or an unconnected port (check the routing table)");
      explained = true;
    }
    for (uint32_t l = 0; l < 16; ++l) {
      if ((xb >> l) & 1u)
        out.push_back(node + " link " + std::to_string(l) +
                      ": the XB queue overflowed (XbErrors bit " + std::to_string(l) +
                      "): more flits arrived after XOFF than the budget allows");
      if ((xb >> (16 + l)) & 1u)
        out.push_back(node + " link " + std::to_string(l) + ": a tile broke the XB protocol (" +
                      "XbErrors bit " + std::to_string(16 + l) +
                      "): data without a grant or a second XREQ");
      if ((xb >> l) & 0x10001u) explained = true;
    }
    for (int t = 0; chip && t < tiles; ++t) {
      const uint32_t base = reg::kTileBase + static_cast<uint32_t>(t) * reg::kTileStride;
      const uint32_t ts = h.read32(n, base + reg::kTileStatus);
      const TileErr err = static_cast<TileErr>(ts & 0xFu);
      const uint32_t pc = ts >> 16;
      const std::string tile = node + " tile " + std::to_string(t) + ": ";
      if (err != TileErr::kNone) {
        const uint32_t info = h.read32(n, base + reg::kTileErrInfo);
        const uint32_t dropped = h.read32(n, base + reg::kTileErrCount);
        const uint32_t period = h.read32(n, base + reg::kTileWatchdog);
        uint32_t ctr_value = 0;
        if (err == TileErr::kWatchdog && static_cast<WaitKind>(info & 0xFu) == WaitKind::kCounter)
          ctr_value = h.read32(n, base + reg::kTileCounters + 4 * ((info >> 4) & 31u));
        out.push_back(tile + diag::tile_error_text(err, pc, info, dropped, period, ctr_value));
        explained = true;
      } else if (!((ts >> 4) & 1u) && pc != 0) {  // started (pc moved) but neither done nor failed
        out.push_back(tile + "not done and no error, at pc " + diag::hex(pc) +
                      ": still running or waiting (a non-zero TileWatchdog turns a stuck wait "
                      "into an error that names it)");
      }
    }
    if ((status >> 31) && !explained)
      out.push_back(node +
                    ": Status bit 31 (error) is set, but no tile, Misroutes or XbErrors "
                    "register says why");
    for (uint32_t l = 0; l < ports; ++l) {
      const std::string s = diag::link_text(h.read32(n, reg::kLinkCrcErrors + 4 * l),
                                            h.read32(n, reg::kLinkStatus + 4 * l),
                                            h.read32(n, reg::kLinkDiscards + 4 * l));
      if (!s.empty()) out.push_back(node + " link " + std::to_string(l) + ": " + s);
    }
  }
  return out;
}

}  // namespace xf
