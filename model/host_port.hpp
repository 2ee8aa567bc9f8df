// Model of a node's host port: the decode of rtl/xf_host_port.sv, as one table of regions
// (docs/model.md section 7 lists them; docs/generated/defs.md "Register and memory map" is the
// map). Each region has its base, the span of addresses it owns, the alignment and length an
// access needs, and a read and a write handler, as a SystemC register library describes a block:
// decoding is a table lookup, not a chain of conditions.
//
// An access is byte-addressed within one node's map and is served at once (the model has no
// access latency). One that hits no region, or that its region refuses (a length beyond the
// memory, a read-only register written), throws std::out_of_range naming the address: "host
// port: no register at A" for a 4-byte read in the register space, "host port: read (write) of N
// bytes at A on node K hits no register or memory" otherwise. The tools and tests match these
// messages.
//
// The port also holds DoneCycles, the register the RTL's host port captures itself.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "node.hpp"

namespace xf::model {

class HostPort {
 public:
  HostPort(Node& node, int id) : node_(node), id_(id) {}

  void read(uint32_t addr, void* data, size_t n);
  void write(uint32_t addr, const void* data, size_t n);

  // One region of the map. A tile region is in every tile's window, at kTileBase + t *
  // kTileStride + base. An access [a, a + n) belongs to the region whose span [base, base +
  // span) holds a (a register spans its 4 bytes, a memory the addresses up to the next region);
  // it must start `align`-aligned within it, have a multiple of `align` bytes and, with `access`
  // != 0, exactly `access` bytes. A handler gets the offset within the region and the tile (null
  // for a node region) and returns false when the access reaches beyond what is there. A null
  // handler: not readable (not writable).
  struct Region {
    const char* name;
    bool tile;
    uint32_t base, span, align, access;
    bool (*read)(HostPort& hp, Tile* t, uint32_t off, uint8_t* p, size_t n);
    bool (*write)(HostPort& hp, Tile* t, uint32_t off, const uint8_t* p, size_t n);
  };
  static const std::vector<Region>& regions();

  Node& node() { return node_; }
  // DoneCycles (docs/chip.md section 3): captured once every tile of a started chip is done.
  uint32_t done_cycles();
  // Control bit 0 on a chip: DoneCycles restarts.
  void control(uint32_t v);

 private:
  // The region an access belongs to and the tile it is in (null: none).
  const Region* find(uint32_t addr, size_t n, Tile** tile, uint32_t* off);
  void settle_done_cycles();

  Node& node_;
  int id_;
  uint32_t done_cycles_ = 0;  // DoneCycles, and whether a start has come whose value is not
  bool done_armed_ = false;   // captured yet
};

}  // namespace xf::model
