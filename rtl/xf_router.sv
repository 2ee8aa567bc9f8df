// Wormhole crossbar of a node's exchange (docs/exchange.md sections 6 and 7; model: Router in
// model/router.hpp, Router::route_of and Router::step). Routes every packet by its header,
// gives each free output to the requesting inputs in round-robin order, and keeps an output with
// one packet from its head to its tail. A switch node (tree parent) is this router with link
// ports only (cfg_is_chip_i = 0).
//
// Streams: NumIn inputs and NumOut outputs, valid/ready, flit = {head, tail, data[127:0]}
// (bit 129 head, bit 128 tail); a head flit's data is the header of xf_defs_pkg (HEADER_*).
// Arrays are flattened: stream k uses bit k of *_valid/*_ready and bits [k*130 +: 130] of
// *_flit.
//
// Output numbering (as the model): outputs 0 .. cfg_num_ports_i-1 are link ports, outputs
// cfg_num_ports_i .. cfg_num_ports_i+cfg_num_tiles_i-1 are the tile inputs (with TileOutBase >= 0,
// below: tile t is output TileOutBase + t).
//
// Routing of a head flit (decoded when the flit enters the input stage):
//   cfg_is_chip_i && dst_chip == cfg_chip_id_i  ->  output cfg_num_ports_i + dst_tile
//                                                    (TileOutBase + dst_tile if >= 0)
//                                                    (misroute if dst_tile >= cfg_num_tiles_i)
//   otherwise                                    ->  output RouteTable[lane*4096 + dst_chip]
//                                                    (misroute if 0xFF, >= cfg_num_ports_i,
//                                                    lane >= TableLanes or
//                                                    dst_chip >= TableChips)
//   a routed output >= NumOut (a configuration error) is a misroute as well.
// A misrouted packet is dropped whole, one flit per cycle from head to tail, and counted once
// in stat_misroutes_o; it never blocks an output, so it can never hang the router. dst_chip is
// 12 bits, so "dst_chip >= 4096" cannot occur. The model's "dst_chip >= num_chips" check has no
// counterpart here: the host loads all TableLanes*TableChips entries and writes 0xFF for chips
// that do not exist (the compiler's image does; the model starts its table at 0xFF). A router
// built with TableChips < 4096 (a smaller fabric, or the synthesis check of a reduced
// configuration) treats every chip >= TableChips as having no entry, i.e. a misroute. The model's
// "unconnected port" check is the caller's: cfg_num_ports_i counts the connected ports.
// Every input decodes from its header. In the model only link inputs do: a tile's path into the
// exchange carries a target decided by the sending tile (Flit::target/port) and an XB queue
// always feeds its own link. Both decisions come from the same rule and the same table, so they
// agree as long as the table does not change during a run.
//
// Arbitration (per output, every cycle; outputs do not interact because an input's packet wants
// exactly one output):
//   - an output owned by an input presents that input's stage flit whenever there is one;
//   - a free output presents the first input, in round-robin order starting at rr_q (the input
//     after the last one whose head it moved: the model's rr = pick + 1), whose stage holds a
//     head flit routed to it; it becomes owned by that input at once, so valid and flit hold
//     until ready (STYLE.md rule 6);
//   - a flit moves on out_valid_o && out_ready_i; ownership ends when the tail moves.
// One flit per input and per output per cycle. Each input has a one-flit stage register that
// refills in the cycle it empties, and an owned or newly picked output moves a flit in every
// cycle its input has one: one flit per cycle per output with back-to-back packets, also
// between packets of different inputs.
//
// Timing: a flit taken on in_* in cycle t is in the input stage in t+1 and can leave on out_*
// in t+1 (latency 1 cycle; the model moves a flit in the cycle it reaches the front of its
// input, so the RTL is one cycle later). The stage register is needed because the routing
// table is a synchronous-read RAM: its read in cycle t returns in t+1, together with the flit.
//
//   cycle          0    1    2    3    4    5    6
//   in 0 (taken)   HA   DA   TA                         packet A, 3 flits, on input 0
//   in 1 (taken)   HB   .    .    .    DB   TB          packet B to the same output waits
//   in_ready_o[1]  1    0    0    0    1    1           (HB sits in its stage)
//   out (moved)    .    HA   DA   TA   HB   DB   TB     no bubble between A and B
//
// Combinational paths: out_valid_o and out_flit_o come from registers, from the static
// cfg_num_ports_i and from out_credit_i only (never from out_ready_i or any in_*). in_ready_o and in_done_o are
// combinational from out_ready_i (a stage refills in the cycle its flit moves). The RAM read
// address is combinational from in_flit_i.
//
// in_done_o[k] pulses when input k's flit leaves the router (moved or dropped): the moment the
// model pops the flit from its input (plus the one cycle of latency). The stage takes a flit
// from upstream as soon as it is free, also while the flit's output is busy, where the model
// would leave it at the front of its input; an upstream buffer that must free its slot (return
// a link credit, a tile-path credit) exactly when the model does uses in_done_o, not its own
// pop, and counts the stage as one of its entries.
//
// Equivalence with the model: an output picks exactly as Router::step does (same request set,
// same rr), one cycle later. The model does not arbitrate for a link output without credits: a
// free credit output (o < CreditOutputs) therefore presents a new packet only in a cycle it
// holds a credit (out_credit_i, the link's credit register, which is also its out_ready_i).
// Its valid then depends on that register, never on a function of valid: no loop, and valid
// still holds until the flit moves once presented (a credit is only spent by this output). Without the gate, a packet that waits through a credit stall would own
// the output before a higher-priority packet arriving during the stall, and the two would leave
// in the opposite order to the model's (seen on chips forwarding other chips' packets in the
// averaging butterfly). Other outputs (tile inputs) present regardless of ready.
//
// Buffering budget: each input holds one flit (the stage); it refills only in a cycle in which
// it is empty or its flit leaves, so it can never overflow (asserted). No other storage: the
// router adds no flow-control loop, the upstream buffers (link receive buffer, tile path, XB
// queue) are sized by their own budgets (docs/exchange.md sections 4 and 8); their
// budgets are unchanged when they free a slot on in_done_o (the stage then counts as one of
// their entries; a link credit loop becomes the 17 cycles of docs/exchange.md section 8,
// within the 32 credits), or when the stage takes the flit (the stage is then one flit of
// storage outside their count).
//
// Routing table: TableLanes*TableChips bytes, one synchronous read port per input (enabled when
// the input stage can load), a synchronous host read port (cfg_route_rdata_o one cycle after
// cfg_route_raddr_i) and a host write port. Host addresses keep the register map's layout
// lane*4096 + dst_chip whatever TableChips is: a write to an entry outside the table (lane >=
// TableLanes or dst_chip >= TableChips) is ignored and a read of one returns 0xFF (no route),
// which is what such a lookup does. No reset: the host writes every entry before
// traffic flows. A lookup in the same cycle as a write to the same entry sees the old value;
// the table must not change while packets flow. Synthesis maps the array to a memory; a
// technology with one or two ports per RAM macro replicates it per read port (the usual
// per-input copy of a forwarding table).
//
// Lookup ports (NumLookups of them; xf_exchange gives one to each tile's send engine, which needs
// RouteTable[lane][dst_chip] to pick the XB of an off-chip job): lookup_addr_i[k*14 +: 14] is an
// entry index lane*4096 + dst_chip in the host's layout, lookup_data_o[k*8 +: 8] the entry one
// cycle later (a synchronous read port with no enable, like the host read port: 0xFF for an
// entry outside TableLanes/TableChips). They read the same array the routing uses, so a tile and
// the router always agree while the table is unchanged. With NumLookups = 0 (the default) the
// ports are one entry wide, unused, and lookup_data_o reads 0xFF.
//
// Tile output base: with TileOutBase = -1 (the default) the tile outputs follow the link ports,
// tile t at output cfg_num_ports_i + t (the model's numbering). A chip built with NumLinks link
// slots of which only cfg_num_ports_i are connected sets TileOutBase = NumLinks: tile t is then
// output NumLinks + t whatever cfg_num_ports_i is, so the outputs are wired statically; routing
// is otherwise unchanged (a table entry at or above cfg_num_ports_i is still a misroute).
//
// Parameter constraints: 1 <= NumIn <= 32, 1 <= NumOut <= 32, 1 <= TableLanes <= NumLanes (4),
// TableChips a power of two, 1 <= TableChips <= MaxChips (4096), 0 <= NumLookups <= 32,
// TileOutBase = -1 or 0 <= TileOutBase <= NumOut.
// Configuration (cfg_*) is static while packets flow; cfg_num_ports_i + cfg_num_tiles_i <=
// NumOut (with TileOutBase >= 0: cfg_num_ports_i <= TileOutBase and TileOutBase +
// cfg_num_tiles_i <= NumOut) and cfg_num_tiles_i <= MaxTiles for a chip.
module xf_router #(
  // input streams (link receive buffers, tile paths, XB queues); 1..32
  parameter int NumIn = 8,
  // output streams (link transmitters, then tile inputs); 1..32
  parameter int NumOut = 8,
  // routing-table lanes held; a packet on lane >= TableLanes is a misroute; 1..NumLanes
  parameter int TableLanes = xf_defs_pkg::NumLanes,
  // routing-table chips held per lane; a packet to dst_chip >= TableChips is a misroute;
  // a power of two, 1..MaxChips (4096)
  parameter int TableChips = xf_defs_pkg::MaxChips,
  // extra synchronous read ports into the table (tiles' route lookups); 0..32
  parameter int NumLookups = 0,
  // first tile output: -1 = cfg_num_ports_i (the model's numbering); >= 0 a fixed index
  parameter int TileOutBase = -1,
  // outputs 0..CreditOutputs-1 are link transmitters whose out_ready_i is a register (a credit
  // is held) independent of out_valid_o: a free one picks a new packet only while ready, as
  // the model arbitrates a link output only with credits; 0..NumOut
  parameter int CreditOutputs = 0,
  // lookup ports actually built, at least 1 so that no port is zero wide (derived; do not
  // override)
  parameter int LookupPorts = (NumLookups > 0) ? NumLookups : 1
) (
  input  logic                  clk_i,              // clock
  input  logic                  rst_ni,             // asynchronous reset, active low
  // configuration (host registers; static while packets flow)
  input  logic                  cfg_route_we_i,     // write one routing-table entry
  input  logic [13:0]           cfg_route_addr_i,   // entry lane*4096 + dst_chip (RouteTable)
  input  logic [7:0]            cfg_route_wdata_i,  // output port, 0xFF = no route
  input  logic [13:0]           cfg_route_raddr_i,  // host read address
  output logic [7:0]            cfg_route_rdata_o,  // entry at cfg_route_raddr_i, 1 cycle later
  input  logic [11:0]           cfg_chip_id_i,      // this node's chip id
  input  logic                  cfg_is_chip_i,      // 1: a chip with tiles; 0: a switch node
  input  logic [5:0]            cfg_num_tiles_i,    // tiles of this chip (0..16)
  input  logic [5:0]            cfg_num_ports_i,    // connected link ports (0..NumOut)
  // input streams
  input  logic [NumIn-1:0]      in_valid_i,         // input k presents a flit
  output logic [NumIn-1:0]      in_ready_o,         // input k's flit is taken (into its stage)
  output logic [NumIn-1:0]      in_done_o,          // input k's stage flit leaves (moved/dropped)
  input  logic [NumIn*130-1:0]  in_flit_i,          // {head, tail, data} of input k
  // output streams
  output logic [NumOut-1:0]     out_valid_o,        // output k presents a flit
  input  logic [NumOut-1:0]     out_ready_i,        // output k's consumer takes it
  // output k (< CreditOutputs) holds a credit: a register of the link, equal to its
  // out_ready_i bit; a separate port so that no loop runs through the tile outputs' ready
  input  logic [NumOut-1:0]     out_credit_i,
  output logic [NumOut*130-1:0] out_flit_o,         // {head, tail, data} of output k
  // table lookups (NumLookups ports; unused when NumLookups = 0)
  input  logic [LookupPorts*14-1:0] lookup_addr_i,  // entry lane*4096 + dst_chip of port k
  output logic [LookupPorts*8-1:0]  lookup_data_o,  // that entry, 1 cycle later (0xFF outside)
  // status
  output logic [31:0]           stat_misroutes_o    // misrouted packets dropped (saturates)
);

  `include "xf_assert.svh"

  localparam int FlitW = 130;
  localparam int HeadBit = 129;
  localparam int TailBit = 128;
  localparam int MaxChips = xf_defs_pkg::MaxChips;
  localparam int TableEntries = TableLanes * TableChips;
  localparam int TblAddrBits = (TableEntries > 1) ? $clog2(TableEntries) : 1;  // table index
  localparam int InIdxBits = (NumIn > 1) ? $clog2(NumIn) : 1;
  localparam int ChipLsb = xf_defs_pkg::HEADER_DST_CHIP_LSB;
  localparam int TileLsb = xf_defs_pkg::HEADER_DST_TILE_LSB;
  localparam int LaneLsb = xf_defs_pkg::HEADER_LANE_LSB;

  `ASSERT_INIT(NumInLegal_A, NumIn >= 1 && NumIn <= 32)
  `ASSERT_INIT(NumOutLegal_A, NumOut >= 1 && NumOut <= 32)
  `ASSERT_INIT(TableLanesLegal_A, TableLanes >= 1 && TableLanes <= xf_defs_pkg::NumLanes)
  `ASSERT_INIT(TableChipsLegal_A, TableChips >= 1 && TableChips <= MaxChips &&
                                  (TableChips & (TableChips - 1)) == 0)
  `ASSERT_INIT(HeaderLegal_A, xf_defs_pkg::HEADER_DST_CHIP_BITS == 12 && MaxChips == 4096 &&
                              xf_defs_pkg::HEADER_DST_TILE_BITS == 4 &&
                              xf_defs_pkg::HEADER_LANE_BITS == 2)
  `ASSERT_INIT(FlitBitsLegal_A, xf_defs_pkg::FlitBits + 2 == FlitW)
  `ASSERT_INIT(NumLookupsLegal_A, NumLookups >= 0 && NumLookups <= 32 &&
                                  LookupPorts == ((NumLookups > 0) ? NumLookups : 1))
  `ASSERT_INIT(TileOutBaseLegal_A, TileOutBase >= -1 && TileOutBase <= NumOut)
  `ASSERT_INIT(CreditOutputsLegal_A, CreditOutputs >= 0 && CreditOutputs <= NumOut)

  // ---- Routing table --------------------------------------------------------------------------
  // A RAM: no reset, so its processes are the memory idiom rather than q <= d. Arrays of
  // streams are flattened (element k at [k*W +: W]) because Yosys 0.23 and Icarus 11 do not
  // accept packed arrays of vectors indexed by a variable.
  // Storage, not logic: left out of toggle coverage (make coverage counts every bit of it).
  /* verilator coverage_off */
  logic [7:0]         route_mem [TableEntries];
  /* verilator coverage_on */
  logic [7:0]         route_rdata_q;
  logic [NumIn*TblAddrBits-1:0] lookup_addr;  // lane*TableChips + dst_chip of the arriving flit
  logic [NumIn-1:0]   lookup_en;
  logic [NumIn*8-1:0] lookup_q;      // entry read when the flit entered the stage
  // Host addresses lane*4096 + dst_chip, mapped to the table's index and range-checked.
  logic                   host_w_in, host_r_in;    // the entry exists in the table
  logic [TblAddrBits-1:0] host_w_idx, host_r_idx;

  assign host_w_in = (32'(cfg_route_addr_i[13:12]) < TableLanes) &&
                     (32'(cfg_route_addr_i[11:0]) < TableChips);
  assign host_r_in = (32'(cfg_route_raddr_i[13:12]) < TableLanes) &&
                     (32'(cfg_route_raddr_i[11:0]) < TableChips);
  assign host_w_idx = TblAddrBits'(32'(cfg_route_addr_i[13:12]) * TableChips +
                                   32'(cfg_route_addr_i[11:0]));
  assign host_r_idx = TblAddrBits'(32'(cfg_route_raddr_i[13:12]) * TableChips +
                                   32'(cfg_route_raddr_i[11:0]));

  // Writes outside the table are ignored.
  always_ff @(posedge clk_i) begin
    if (cfg_route_we_i && host_w_in) begin
      route_mem[host_w_idx] <= cfg_route_wdata_i;
    end
  end

  // Reads outside the table (TableLanes < 4 or TableChips < 4096) return 0xFF.
  always_ff @(posedge clk_i) begin
    if (host_r_in) route_rdata_q <= route_mem[host_r_idx];
    else route_rdata_q <= 8'hFF;
  end
  assign cfg_route_rdata_o = route_rdata_q;

  // Lookup ports: the same synchronous read as the host port, one per tile.
  if (NumLookups > 0) begin : gen_lookups
    for (genvar k = 0; k < NumLookups; k++) begin : gen_port
      logic [13:0]            addr;
      logic                   in_table;
      logic [TblAddrBits-1:0] idx;
      logic [7:0]             data_q;
      assign addr = lookup_addr_i[k*14 +: 14];
      assign in_table = (32'(addr[13:12]) < TableLanes) && (32'(addr[11:0]) < TableChips);
      assign idx = TblAddrBits'(32'(addr[13:12]) * TableChips + 32'(addr[11:0]));
      always_ff @(posedge clk_i) begin
        if (in_table) data_q <= route_mem[idx];
        else data_q <= 8'hFF;
      end
      assign lookup_data_o[k*8 +: 8] = data_q;
    end
  end else begin : gen_no_lookups
    logic unused_lookup_addr;
    assign unused_lookup_addr = ^lookup_addr_i;
    assign lookup_data_o = 8'hFF;
  end

  for (genvar i = 0; i < NumIn; i++) begin : gen_lookup
    logic [7:0] rdata_q;
    always_ff @(posedge clk_i) begin
      if (lookup_en[i]) rdata_q <= route_mem[lookup_addr[i*TblAddrBits +: TblAddrBits]];
    end
    assign lookup_q[i*8 +: 8] = rdata_q;
  end

  // ---- Input stages ---------------------------------------------------------------------------
  logic [NumIn-1:0]       stg_valid_d, stg_valid_q;          // stage holds a flit
  logic [NumIn*FlitW-1:0] stg_flit_d, stg_flit_q;            // the flit
  logic [NumIn-1:0]       stg_local_d, stg_local_q;          // for a tile of this chip
  logic [NumIn*7-1:0]     stg_local_out_d, stg_local_out_q;  // cfg_num_ports_i + dst_tile
  logic [NumIn-1:0]       stg_local_bad_d, stg_local_bad_q;  // dst_tile >= cfg_num_tiles_i
  logic [NumIn-1:0]       stg_lane_bad_d, stg_lane_bad_q;    // no entry: lane >= TableLanes
                                                             // or dst_chip >= TableChips
  logic [NumIn-1:0]       dropping_d, dropping_q;            // inside a dropped packet

  logic [NumIn-1:0]   stg_head, stg_tail;
  logic [NumIn*8-1:0] route_port;  // output the stage's head flit wants
  logic [NumIn-1:0]   route_bad;   // the stage's head flit is a misroute
  logic [NumIn-1:0]   locked;      // input owned by some output
  logic [NumIn-1:0]   drop;        // the stage's flit is dropped this cycle
  logic [NumIn-1:0]   drop_head;   // a misrouted head is dropped this cycle (counted)
  logic [NumIn-1:0]   moved;       // the stage's flit leaves on an output this cycle
  logic [NumIn-1:0]   pop;         // the stage empties (moved or dropped)
  logic [NumIn-1:0]   accept;      // in_valid_i && in_ready_o

  always_comb begin
    logic [7:0] rd;
    rd = '0;
    for (int i = 0; i < NumIn; i++) begin
      stg_head[i] = stg_flit_q[i*FlitW + HeadBit];
      stg_tail[i] = stg_flit_q[i*FlitW + TailBit];
      rd = lookup_q[i*8 +: 8];
      if (stg_local_q[i]) begin
        route_port[i*8 +: 8] = {1'b0, stg_local_out_q[i*7 +: 7]};
        route_bad[i] = stg_local_bad_q[i];
      end else begin
        route_port[i*8 +: 8] = rd;
        route_bad[i] = stg_lane_bad_q[i] || (rd == 8'hFF) || (rd >= {2'b00, cfg_num_ports_i});
      end
      if (32'(route_port[i*8 +: 8]) >= NumOut) route_bad[i] = 1'b1;
      // Dropped: the rest of a misrouted packet, a misrouted head, or a body flit that belongs
      // to no packet (an upstream framing error, asserted below; dropped so nothing hangs).
      drop_head[i] = stg_valid_q[i] && !dropping_q[i] && !locked[i] && stg_head[i] &&
                     route_bad[i];
      drop[i] = stg_valid_q[i] && (dropping_q[i] || drop_head[i] ||
                                   (!stg_head[i] && !locked[i]));
    end
  end

  // A stage refills in the cycle it empties (combinational from out_ready_i through moved).
  assign pop = drop | moved;
  assign in_ready_o = ~stg_valid_q | pop;
  assign in_done_o = pop;
  assign accept = in_valid_i & in_ready_o;

  // First tile output (TileOutBase, or after the connected link ports).
  logic [5:0] tile_base;
  assign tile_base = (TileOutBase >= 0) ? 6'(TileOutBase) : cfg_num_ports_i;

  // Decode of the arriving flit and the table read, in the cycle it enters the stage.
  always_comb begin
    logic [FlitW-1:0] f;
    logic [11:0]      dst_chip;
    logic [3:0]       dst_tile;
    logic [1:0]       lane;
    stg_valid_d = stg_valid_q & ~pop;
    stg_flit_d = stg_flit_q;
    stg_local_d = stg_local_q;
    stg_local_out_d = stg_local_out_q;
    stg_local_bad_d = stg_local_bad_q;
    stg_lane_bad_d = stg_lane_bad_q;
    for (int i = 0; i < NumIn; i++) begin
      f = in_flit_i[i*FlitW +: FlitW];
      dst_chip = f[ChipLsb +: 12];
      dst_tile = f[TileLsb +: 4];
      lane = f[LaneLsb +: 2];
      if (accept[i]) begin
        stg_valid_d[i] = 1'b1;
        stg_flit_d[i*FlitW +: FlitW] = f;
        stg_local_d[i] = cfg_is_chip_i && (dst_chip == cfg_chip_id_i);
        stg_local_out_d[i*7 +: 7] = 7'(tile_base) + 7'(dst_tile);
        stg_local_bad_d[i] = {2'b00, dst_tile} >= cfg_num_tiles_i;
        stg_lane_bad_d[i] = (32'(lane) >= TableLanes) || (32'(dst_chip) >= TableChips);
      end
      lookup_en[i] = in_ready_o[i];  // the stage loads or empties: its old entry is done
      lookup_addr[i*TblAddrBits +: TblAddrBits] =
          ((32'(lane) >= TableLanes) || (32'(dst_chip) >= TableChips)) ? '0 :
          TblAddrBits'(32'(lane) * TableChips + 32'(dst_chip));
    end
  end

  always_comb begin
    dropping_d = dropping_q;
    for (int i = 0; i < NumIn; i++) begin
      if (drop[i]) dropping_d[i] = !stg_tail[i];
    end
  end

  // ---- Outputs --------------------------------------------------------------------------------
  logic [NumOut-1:0]           own_valid_d, own_valid_q;  // output owned by input own_idx
  logic [NumOut*InIdxBits-1:0] own_idx_d, own_idx_q;
  logic [NumOut*InIdxBits-1:0] rr_d, rr_q;   // first input of the round-robin search
  logic [NumOut-1:0]           mid_d, mid_q;  // a head has moved, its tail not yet
  logic [NumOut-1:0]           xfer;          // a flit moves on the output
  logic [NumIn*NumOut-1:0]     grant;         // bit i*NumOut+o: output o presents input i

  always_comb begin
    for (int i = 0; i < NumIn; i++) begin
      locked[i] = 1'b0;
      for (int o = 0; o < NumOut; o++) begin
        if (own_valid_q[o] && (32'(own_idx_q[o*InIdxBits +: InIdxBits]) == i)) locked[i] = 1'b1;
      end
    end
  end

  // Arbitration: out_valid_o and out_flit_o from registers only. A separate process from the
  // next state below, which depends on out_ready_i: in one process Verilator sees a loop through
  // a consumer whose ready depends on its valid (a tile's rx_ready_o), which the protocol allows.
  logic [NumOut*InIdxBits-1:0] pick_idx;  // input output o presents (when out_valid_o)

  always_comb begin
    logic                 found;
    logic [InIdxBits-1:0] cand, pick, own;
    logic [31:0]          next;
    found = 1'b0;
    cand = '0;
    pick = '0;
    own = '0;
    next = '0;
    grant = '0;
    out_valid_o = '0;
    out_flit_o = '0;
    pick_idx = '0;
    for (int o = 0; o < NumOut; o++) begin
      own = own_idx_q[o*InIdxBits +: InIdxBits];
      pick = own;
      found = 1'b0;
      if (own_valid_q[o]) begin
        found = stg_valid_q[own];
      end else begin
        for (int k = 0; k < NumIn; k++) begin
          // cand = (rr_q + k) mod NumIn
          next = 32'(rr_q[o*InIdxBits +: InIdxBits]) + k;
          cand = (next >= NumIn) ? InIdxBits'(next - NumIn) : InIdxBits'(next);
          if (!found && stg_valid_q[cand] && stg_head[cand] && !route_bad[cand] &&
              !locked[cand] && !dropping_q[cand] && (32'(route_port[cand*8 +: 8]) == o) &&
              (o >= CreditOutputs || out_credit_i[o])) begin
            found = 1'b1;
            pick = cand;
          end
        end
      end
      out_valid_o[o] = found;
      out_flit_o[o*FlitW +: FlitW] = stg_flit_q[pick*FlitW +: FlitW];
      pick_idx[o*InIdxBits +: InIdxBits] = pick;
      grant[pick*NumOut + o] = found;
    end
  end

  // Next state of the outputs: owned from the first presentation to the tail's move.
  always_comb begin
    logic [InIdxBits-1:0] pick;
    logic [31:0]          next;
    pick = '0;
    next = '0;
    xfer = out_valid_o & out_ready_i;
    own_valid_d = own_valid_q;
    own_idx_d = own_idx_q;
    rr_d = rr_q;
    mid_d = mid_q;
    for (int o = 0; o < NumOut; o++) begin
      pick = pick_idx[o*InIdxBits +: InIdxBits];
      if (out_valid_o[o]) begin
        own_valid_d[o] = !(xfer[o] && stg_tail[pick]);
        own_idx_d[o*InIdxBits +: InIdxBits] = pick;
      end
      if (xfer[o]) begin
        mid_d[o] = !stg_tail[pick];
        next = 32'(pick) + 1;
        if (stg_head[pick]) begin  // the model's rr = pick + 1
          rr_d[o*InIdxBits +: InIdxBits] = (next >= NumIn) ? '0 : InIdxBits'(next);
        end
      end
    end
  end

  always_comb begin
    for (int i = 0; i < NumIn; i++) begin
      moved[i] = |(grant[i*NumOut +: NumOut] & out_ready_i);
    end
  end

  // ---- Misroute counter -----------------------------------------------------------------------
  logic [31:0] misroutes_d, misroutes_q;

  always_comb begin
    logic [32:0] sum;
    sum = {1'b0, misroutes_q};
    for (int i = 0; i < NumIn; i++) sum = sum + 33'(drop_head[i]);
    misroutes_d = sum[32] ? 32'hFFFF_FFFF : sum[31:0];
  end

  assign stat_misroutes_o = misroutes_q;

  // ---- Registers ------------------------------------------------------------------------------
  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      stg_valid_q <= '0;
      stg_flit_q <= '0;
      stg_local_q <= '0;
      stg_local_out_q <= '0;
      stg_local_bad_q <= '0;
      stg_lane_bad_q <= '0;
      dropping_q <= '0;
      own_valid_q <= '0;
      own_idx_q <= '0;
      rr_q <= '0;
      mid_q <= '0;
      misroutes_q <= '0;
    end else begin
      stg_valid_q <= stg_valid_d;
      stg_flit_q <= stg_flit_d;
      stg_local_q <= stg_local_d;
      stg_local_out_q <= stg_local_out_d;
      stg_local_bad_q <= stg_local_bad_d;
      stg_lane_bad_q <= stg_lane_bad_d;
      dropping_q <= dropping_d;
      own_valid_q <= own_valid_d;
      own_idx_q <= own_idx_d;
      rr_q <= rr_d;
      mid_q <= mid_d;
      misroutes_q <= misroutes_d;
    end
  end

  // ---- Assertions -----------------------------------------------------------------------------
  `ASSERT_KNOWN(InValidKnown_A, in_valid_i)
  `ASSERT_KNOWN(OutReadyKnown_A, out_ready_i)
  `ASSERT_KNOWN(OutValidKnown_A, out_valid_o)
  // The $stable checks sample one stream's flit each (not a slice of the flattened bus): for the
  // sampled copy of a wide bus (49 words with 12 inputs) Verilator 5.006 emits C++ that does not
  // compile (an undeclared loop variable).
  for (genvar i = 0; i < NumIn; i++) begin : gen_in_asserts
    logic [FlitW-1:0] in_flit;
    assign in_flit = in_flit_i[i*FlitW +: FlitW];
    // The one-flit stage never overflows: it loads only when empty or emptied in that cycle.
    `ASSERT(StageNoOverflow_A, !(accept[i] && stg_valid_q[i] && !pop[i]))
    // At most one output presents an input, so a flit leaves once.
    `ASSERT(OneGrantPerInput_A, $onehot0(grant[i*NumOut +: NumOut]))
    // Valid/ready on every input: valid and flit hold until ready.
    `ASSERT(InValidHeld_A, !$past(in_valid_i[i] && !in_ready_o[i]) || in_valid_i[i])
    `ASSERT_STABLE(InFlitStable_A, in_flit, in_valid_i[i] && !in_ready_o[i])
    // Framing: a body flit arrives only inside a packet (it is dropped otherwise).
    `ASSERT(NoStrayBody_A, !(stg_valid_q[i] && !stg_head[i] && !locked[i] && !dropping_q[i]))
    // A head flit never follows a head before the previous tail.
    `ASSERT(NoHeadWhileDropping_A, !(stg_valid_q[i] && stg_head[i] && dropping_q[i]))
  end
  for (genvar o = 0; o < NumOut; o++) begin : gen_out_asserts
    logic [FlitW-1:0] out_flit;
    assign out_flit = out_flit_o[o*FlitW +: FlitW];
    // Valid/ready on every output.
    `ASSERT(OutValidHeld_A, !$past(out_valid_o[o] && !out_ready_i[o]) || out_valid_o[o])
    `ASSERT_STABLE(OutFlitStable_A, out_flit, out_valid_o[o] && !out_ready_i[o])
    // Wormhole: inside a packet only its own body flits; outside, only heads.
    `ASSERT(NoHeadInsidePacket_A, !(out_valid_o[o] && mid_q[o] && out_flit_o[o*FlitW+HeadBit]))
    `ASSERT(NoBodyOutsidePacket_A, !(out_valid_o[o] && !mid_q[o] &&
                                     !out_flit_o[o*FlitW+HeadBit]))
    `ASSERT(MidOnlyWhenOwned_A, !mid_q[o] || own_valid_q[o])
  end

endmodule
