// Model of a node's host port (see host_port.hpp; rtl/xf_host_port.sv).
#include "host_port.hpp"

#include <algorithm>
#include <cstring>
#include <sstream>
#include <stdexcept>
#include <string>

#include "xf/topology.hpp"

namespace xf::model {

namespace {

std::string hex(uint32_t a) {
  std::ostringstream o;
  o << "0x" << std::hex << a;
  return o.str();
}

// A 4-byte read-only register: its value.
template <uint32_t (*Value)(HostPort&)>
bool reg_read(HostPort& hp, Tile*, uint32_t, uint8_t* p, size_t) {
  const uint32_t v = Value(hp);
  std::memcpy(p, &v, 4);
  return true;
}

uint32_t chip_id(HostPort& hp) { return hp.node().ctx.index; }

uint32_t status(HostPort& hp) {
  Node& nd = hp.node();
  uint32_t v = 0;
  for (int t = 0; t < nd.num_tiles(); ++t) {
    if (nd.tile(t).done) v |= 1u << t;
    if (nd.tile(t).err != TileErr::kNone) v |= 1u << 31;
  }
  if (nd.exchange().xb_overflows() || nd.exchange().misroutes()) v |= 1u << 31;
  return v;
}

uint32_t cycles(HostPort& hp) {
  return static_cast<uint32_t>(hp.node().ctx.now() - hp.node().ctx.start_cycle);
}

uint32_t misroutes(HostPort& hp) {
  return static_cast<uint32_t>(std::min<uint64_t>(hp.node().exchange().misroutes(), 0xFFFFFFFFu));
}

uint32_t xb_errors(HostPort& hp) {
  return hp.node().exchange().xb_overflow_ports();  // the model's tiles never break the protocol
}

uint32_t config(HostPort& hp) {
  Node& nd = hp.node();
  const uint32_t dmem_kib =
      nd.num_tiles() ? static_cast<uint32_t>(nd.tile(0).dmem.size() / 1024) : 0;
  // Bits 11:8 saturate at 15: a switch of the model may have more ports (Ports has them).
  const uint32_t ports = std::min<uint32_t>(static_cast<uint32_t>(nd.ctx.num_ports), 15);
  return static_cast<uint32_t>(nd.num_tiles()) |
         config_flit_field(static_cast<int>(nd.ctx.flit_bytes * 8)) | ports << 8 | 12u << 12 |
         std::min<uint32_t>(dmem_kib, 0xFFFF) << 16;  // the full 4096-chip table
}

uint32_t ports(HostPort& hp) { return static_cast<uint32_t>(hp.node().ctx.num_ports); }

uint32_t alu_config(HostPort& hp) {
  return hp.node().num_tiles() ? kAluAllUnits : 0u;  // the model's ALU has every unit
}

uint32_t done_cycles_value(HostPort& hp) { return hp.done_cycles(); }

// LinkCrcErrors, LinkStatus and LinkDiscards of one link port (docs/generated/defs.md), `off`
// from LinkCrcErrors: the node's receiver on that port counts CRC errors and discards, its
// transmitter replays, timer expiries and the escalation. Zero for a port that does not exist
// and for links without the retry layer (no faults: nothing is ever lost).
static_assert(reg::kLinkStatus == reg::kLinkCrcErrors + reg::kLinkCrcErrorsSize &&
                  reg::kLinkDiscards == reg::kLinkStatus + reg::kLinkStatusSize,
              "the link registers are read as one block");
bool link_read(HostPort& hp, Tile*, uint32_t off, uint8_t* p, size_t) {
  auto sat16 = [](uint64_t v) { return static_cast<uint32_t>(std::min<uint64_t>(v, 0xFFFF)); };
  const Node& nd = hp.node();
  const uint32_t which = off / reg::kLinkCrcErrorsSize;  // 0 CrcErrors, 1 Status, 2 Discards
  const int l = static_cast<int>(off % reg::kLinkCrcErrorsSize / 4);
  uint32_t v = 0;
  if (l < nd.num_ports() && nd.rx_link(l) && nd.rx_link(l)->retry()) {
    const LinkRetry& rx = *nd.rx_link(l)->retry();
    const LinkRetry& tx = *nd.tx_link(l)->retry();
    if (which == 0)
      v = sat16(rx.stats().corrupted);
    else if (which == 1)
      v = (tx.escalated() ? 1u : 0u) | std::min<uint32_t>(tx.replays_in_a_row(), 15) << 4 |
          sat16(tx.stats().replays) << 16;
    else
      v = sat16(rx.stats().discards) | sat16(tx.stats().timeouts) << 16;
  }
  std::memcpy(p, &v, 4);
  return true;
}

// Bytes of a memory held in `mem` (elements of `unit` bytes): an access within its current size.
template <class V>
bool mem_read(const V& mem, uint32_t off, uint8_t* p, size_t n) {
  constexpr size_t unit = sizeof(typename V::value_type);
  if (off / unit + n / unit > mem.size()) return false;
  std::memcpy(p, reinterpret_cast<const uint8_t*>(mem.data()) + off, n);
  return true;
}
// A write within `window` bytes; the memory grows to the end of the write.
template <class V>
bool mem_grow(V& mem, uint32_t window, uint32_t off, const uint8_t* p, size_t n) {
  constexpr size_t unit = sizeof(typename V::value_type);
  if (off + n > window) return false;
  if (mem.size() < off / unit + n / unit) mem.resize(off / unit + n / unit);
  std::memcpy(reinterpret_cast<uint8_t*>(mem.data()) + off, p, n);
  return true;
}

// A 4-byte tile register.
template <uint32_t Tile::*Field>
bool tile_reg_read(HostPort&, Tile* t, uint32_t, uint8_t* p, size_t) {
  std::memcpy(p, &(t->*Field), 4);
  return true;
}

constexpr uint32_t kLinkRegsSpan =
    reg::kLinkDiscards + reg::kLinkDiscardsSize - reg::kLinkCrcErrors;

}  // namespace

const std::vector<HostPort::Region>& HostPort::regions() {
  using R = Region;
  static const std::vector<Region> table = {
      // Node registers: 4 bytes each.
      R{"ChipId", false, reg::kChipId, 4, 4, 4, reg_read<chip_id>, nullptr},
      R{"IndexWr", false, reg::kIndexWr, 4, 4, 4, reg_read<chip_id>,
        [](HostPort& hp, Tile*, uint32_t, const uint8_t* p, size_t) {
          std::memcpy(&hp.node().ctx.index, p, 4);
          return true;
        }},
      R{"Control", false, reg::kControl, 4, 4, 4, nullptr,
        [](HostPort& hp, Tile*, uint32_t, const uint8_t* p, size_t) {
          uint32_t v;
          std::memcpy(&v, p, 4);
          hp.control(v);
          return true;
        }},
      R{"Status", false, reg::kStatus, 4, 4, 4, reg_read<status>, nullptr},
      R{"Cycles", false, reg::kCycles, 4, 4, 4, reg_read<cycles>, nullptr},
      R{"Misroutes", false, reg::kMisroutes, 4, 4, 4, reg_read<misroutes>, nullptr},
      R{"XbErrors", false, reg::kXbErrors, 4, 4, 4, reg_read<xb_errors>, nullptr},
      R{"Config", false, reg::kConfig, 4, 4, 4, reg_read<config>, nullptr},
      R{"AluConfig", false, reg::kAluConfig, 4, 4, 4, reg_read<alu_config>, nullptr},
      R{"DoneCycles", false, reg::kDoneCycles, 4, 4, 4, reg_read<done_cycles_value>, nullptr},
      R{"Ports", false, reg::kPorts, 4, 4, 4, reg_read<ports>, nullptr},
      R{"LinkCrcErrors/LinkStatus/LinkDiscards", false, reg::kLinkCrcErrors, kLinkRegsSpan, 4, 4,
        link_read, nullptr},
      // The routing table: any bytes. A memory region spans the addresses up to the next region;
      // its handlers check the access's end against what is there.
      R{"RouteTable", false, reg::kRouteTable, reg::kTileBase - reg::kRouteTable, 1, 0,
        [](HostPort& hp, Tile*, uint32_t off, uint8_t* p, size_t n) {
          return mem_read(hp.node().route(), off, p, n);
        },
        [](HostPort& hp, Tile*, uint32_t off, const uint8_t* p, size_t n) {
          std::vector<uint8_t>& r = hp.node().route();
          if (off + n > r.size()) return false;
          std::memcpy(&r[off], p, n);
          return true;
        }},
      // Tile windows.
      R{"TileStatus", true, reg::kTileStatus, 4, 4, 4,
        [](HostPort&, Tile* t, uint32_t, uint8_t* p, size_t) {
          const uint32_t v =
              static_cast<uint32_t>(t->err) | (t->done ? 16u : 0u) | ((t->pc & 0xFFFF) << 16);
          std::memcpy(p, &v, 4);
          return true;
        },
        nullptr},
      R{"TileErrInfo", true, reg::kTileErrInfo, 4, 4, 4, tile_reg_read<&Tile::err_info>, nullptr},
      R{"TileErrCount", true, reg::kTileErrCount, 4, 4, 4, tile_reg_read<&Tile::err_count>,
        nullptr},
      R{"TileWatchdog", true, reg::kTileWatchdog, 4, 4, 4, tile_reg_read<&Tile::watchdog>,
        [](HostPort&, Tile* t, uint32_t, const uint8_t* p, size_t) {  // the only writable one
          std::memcpy(&t->watchdog, p, 4);
          return true;
        }},
      R{"TileCounters", true, reg::kTileCounters, reg::kTileImem - reg::kTileCounters, 1, 0,
        [](HostPort&, Tile* t, uint32_t off, uint8_t* p, size_t n) {
          if (off + n > 4 * kNumCounters) return false;
          std::memcpy(p, reinterpret_cast<const uint8_t*>(t->counters) + off, n);
          return true;
        },
        nullptr},
      // Memories: IMEM and PMEM grow to the end of a write within their windows and read back
      // what they hold; DMEM has its size.
      R{"TileImem", true, reg::kTileImem, reg::kTilePmem - reg::kTileImem, 8, 0,
        [](HostPort&, Tile* t, uint32_t off, uint8_t* p, size_t n) {
          return mem_read(t->imem, off, p, n);
        },
        [](HostPort&, Tile* t, uint32_t off, const uint8_t* p, size_t n) {
          return mem_grow(t->imem, reg::kTileImemSize, off, p, n);
        }},
      R{"TilePmem", true, reg::kTilePmem, reg::kTileDmem - reg::kTilePmem, 4, 0,
        [](HostPort&, Tile* t, uint32_t off, uint8_t* p, size_t n) {
          return mem_read(t->pmem, off, p, n);
        },
        [](HostPort&, Tile* t, uint32_t off, const uint8_t* p, size_t n) {
          return mem_grow(t->pmem, reg::kTilePmemSize, off, p, n);
        }},
      R{"TileDmem", true, reg::kTileDmem, reg::kTileStride - reg::kTileDmem, 1, 0,
        [](HostPort&, Tile* t, uint32_t off, uint8_t* p, size_t n) {
          return mem_read(t->dmem, off, p, n);
        },
        [](HostPort&, Tile* t, uint32_t off, const uint8_t* p, size_t n) {
          if (off + n > t->dmem.size()) return false;
          std::memcpy(&t->dmem[off], p, n);
          return true;
        }},
  };
  return table;
}

const HostPort::Region* HostPort::find(uint32_t addr, size_t n, Tile** tile, uint32_t* off) {
  *tile = nullptr;
  uint32_t a = addr;
  if (addr >= reg::kTileBase) {
    const uint32_t t = (addr - reg::kTileBase) / reg::kTileStride;
    if (t >= static_cast<uint32_t>(node_.num_tiles())) return nullptr;
    *tile = &node_.tile(static_cast<int>(t));
    a = (addr - reg::kTileBase) % reg::kTileStride;
  }
  for (const Region& r : regions()) {
    if (r.tile != (*tile != nullptr) || a < r.base || a - r.base >= r.span) continue;
    *off = a - r.base;
    if (*off % r.align != 0 || n % r.align != 0 || (r.access != 0 && n != r.access)) return nullptr;
    return &r;
  }
  return nullptr;
}

void HostPort::read(uint32_t addr, void* data, size_t n) {
  Tile* t;
  uint32_t off;
  const Region* r = find(addr, n, &t, &off);
  if (r && r->read && r->read(*this, t, off, static_cast<uint8_t*>(data), n)) return;
  if (n == 4 && addr < reg::kRouteTable)
    throw std::out_of_range("host port: no register at " + hex(addr));
  throw std::out_of_range("host port: read of " + std::to_string(n) + " bytes at " + hex(addr) +
                          " on node " + std::to_string(id_) + " hits no register or memory");
}

void HostPort::write(uint32_t addr, const void* data, size_t n) {
  Tile* t;
  uint32_t off;
  const Region* r = find(addr, n, &t, &off);
  if (r && r->write && r->write(*this, t, off, static_cast<const uint8_t*>(data), n)) return;
  throw std::out_of_range("host port: write of " + std::to_string(n) + " bytes at " + hex(addr) +
                          " on node " + std::to_string(id_) + " hits no register or memory");
}

// The RTL host port (rtl/xf_host_port.sv) captures Cycles in the first cycle, two or more after
// the start reached the tiles, in which the chip's registered done is high. The model's tiles
// run from the start's cycle (collective cycle 0 = ctx.start_cycle) and an End retired in
// collective cycle e sets the RTL tile's done one cycle and the chip's done two cycles later,
// with Cycles = e + 3 there: DoneCycles = last End + 3 - start = RunStats::cycles + 2 on the chip
// that finishes last. Evaluated when read (and before a Control write that could clear the
// tiles); the tiles' done flags only rise between starts, so the value is the same.
void HostPort::settle_done_cycles() {
  if (!done_armed_ || node_.num_tiles() == 0) return;
  uint64_t last = 0;
  for (int t = 0; t < node_.num_tiles(); ++t) {
    if (!node_.tile(t).done) return;
    last = std::max(last, node_.tile(t).done_cycle);
  }
  done_cycles_ = static_cast<uint32_t>(last + 3 - node_.ctx.start_cycle);
  done_armed_ = false;
}

uint32_t HostPort::done_cycles() {
  settle_done_cycles();
  return done_cycles_;
}

void HostPort::control(uint32_t v) {
  Node& nd = node_;
  settle_done_cycles();  // a clear keeps DoneCycles; a start restarts it
  if ((v & 1) && nd.num_tiles() > 0) {
    done_cycles_ = 0;
    done_armed_ = true;
  }
  if (v & 1) nd.ctx.start_cycle = nd.ctx.now();
  for (int l = 0; l < nd.num_ports() && (v & 2); ++l)  // LinkStatus bit 0: sticky till now
    if (nd.tx_link(l) && nd.tx_link(l)->retry()) nd.tx_link(l)->retry()->clear_escalation();
  for (int t = 0; t < nd.num_tiles(); ++t) {
    if (v & 2) nd.tile(t).reset_state();
    if (v & 1) {
      nd.tile(t).reset_state();
      nd.tile(t).running = true;
    }
  }
}

}  // namespace xf::model
