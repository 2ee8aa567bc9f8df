// Model of a node: a chip (rtl/xf_chip.sv: tiles, the exchange, link ports) or a switch node
// (rtl/xf_switch.sv: the same with link ports only). docs/model.md section 1 lists the blocks
// and the cycle order; docs/exchange.md specifies the exchange.
//
// The Node owns its Tiles (SystemC modules with their own clocked process) and its Exchange, and
// is connected to one Link per direction and port (owned by the System). Its clocked process
// keeps only the order of the cycle; the blocks do the work (Node::tick).
#pragma once

#include <memory>
#include <string>
#include <systemc>
#include <vector>

#include "exchange.hpp"
#include "flit.hpp"
#include "link.hpp"
#include "tile.hpp"

namespace xf::model {

// The barrier across all tiles of all chips. The last arrival at cycle t releases every
// member at cycle t + 2, whatever order the tiles are evaluated in within cycle t: the RTL's
// timing (the chip's arrived register, then its release register; docs/chip.md section 4).
struct Barrier {
  int members = 0, arrived = 0;
  uint64_t generation = 0, release_at = 0;
};

// What a tile needs to know about its chip.
struct ChipCtx {
  int chip = 0;        // node id
  uint32_t index = 0;  // index value written by the host
  int num_chips = 0;
  int num_tiles = 0, num_ports = 0;
  uint32_t flit_bytes = kFlitBytes;  // W: the machine's flit width / 8 (Topology::flit_bits)
  const std::vector<uint8_t>* route = nullptr;  // lane * kMaxChips + dst -> port
  Barrier* barrier = nullptr;
  uint64_t start_cycle = 0;  // cycle of the last Control start (Cycles, Geti 3)
  uint64_t now() const;
};

class Node : public sc_core::sc_module {
 public:
  sc_core::sc_in<bool> clk_i;

  Node(sc_core::sc_module_name name, int node, int num_ports, int num_tiles, int num_chips,
       Barrier* barrier);

  // Link port `port`: the direction it sends on and the one it receives.
  void connect(int port, Link* tx, Link* rx);
  // The links of a port (null when the port is not connected).
  Link* tx_link(int port) const { return tx_[port]; }
  Link* rx_link(int port) const { return rx_[port]; }
  int num_ports() const { return ports_; }
  Tile& tile(int t) { return *tiles_[t]; }
  int num_tiles() const { return static_cast<int>(tiles_.size()); }
  Exchange& exchange() { return exchange_; }
  const Exchange& exchange() const { return exchange_; }
  std::vector<uint8_t>& route() { return exchange_.router().table(); }  // RouteTable
  ChipCtx ctx;

 private:
  void tick();

  int ports_;
  std::vector<std::unique_ptr<Tile>> tiles_;
  Exchange exchange_;
  std::vector<Link*> tx_, rx_;
};

}  // namespace xf::model
