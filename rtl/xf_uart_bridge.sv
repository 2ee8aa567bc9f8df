// Serial host bridge: carries the host ports' memory-mapped reads and writes over one UART with
// the framed protocol of docs/fpga.md section 3 (requests with a CRC-8, one reply per request,
// clear error statuses, the bridge's own counters and the machine's name at node 0xFF).
//
//   uart_rx_i -> xf_uart_rx -> frame receiver -> [word buffer, 64 x 32] -> executor -> host ports
//   uart_tx_o <- xf_uart_tx <- reply sender   <- [word buffer]          <- executor <- host ports
//
// Request handling (one at a time; bytes that arrive while a request executes or its reply goes
// out are counted as junk and dropped):
//   1. receive: 0xA5, CMD, NODE, COUNT, ADDR (4 bytes), a write's COUNT words into the buffer, CRC.
//      A bad CMD or COUNT is answered at once (the frame's length is unknown); a byte with a low
//      stop bit (Framing) or a silence of IdleBits bit periods (Truncated) ends the frame with
//      that status. Nothing has been issued yet in any of these cases.
//   2. check: CRC, then the NODE/CMD combination, then the address (aligned; inside the bridge's
//      registers for NODE 0xFF).
//   3. execute word by word: wait until the target host port(s) are ready, present the access
//      for one cycle, wait for every target's answer. NODE 0xFE writes every chip (nodes
//      0..NumChips-1) in the same cycle. The first refused word ends the request (AccessError,
//      DONE = its index); a word not answered within TimeoutCycles of its start ends it with
//      Timeout (the late answer is ignored).
//   4. reply: 0x5A, STATUS, DONE, a read's DONE words, CRC.
//
// Host-port protocol (rtl/xf_host_port.sv): an access is taken in a cycle with req_valid and
// req_ready high; its answer is a one-cycle rsp_valid at least one cycle later. The bridge is the
// only master of its ports: it presents host_req_valid_o one cycle after it saw the target ready,
// which that port still is then.
//
// Combinational paths: none from inputs to outputs (host_req_* and uart_tx_o are registers).
//
// Parameter constraints: 1 <= NumNodes <= 254, 1 <= NumChips <= NumNodes, ClkHz / Baud >= 4,
// TimeoutCycles >= 2, IdleBits >= 12.
module xf_uart_bridge #(
  // host ports (nodes 0..NumNodes-1: chips first, then switches)
  parameter int NumNodes = 1,
  // chips among them (the broadcast NODE 0xFE writes these)
  parameter int NumChips = 1,
  // clock frequency (reported in the ClockHz register) and UART bit rate
  parameter int ClkHz = 25_000_000,
  parameter int Baud = 1_000_000,
  // the machine's topology in ASCII, byte i at bits [8*i +: 8], NUL-padded (Machine register)
  parameter logic [511:0] MachineName = '0,
  // cycles a host port may take to take and answer one word
  parameter int TimeoutCycles = 65536,
  // bit periods of silence that end an incomplete frame
  parameter int IdleBits = 64
) (
  input  logic                    clk_i,             // clock
  input  logic                    rst_ni,            // asynchronous reset, active low
  // the UART pins
  input  logic                    uart_rx_i,         // from the host
  output logic                    uart_tx_o,         // to the host
  // host ports, node n at [n] / [n*32 +: 32]
  output logic [NumNodes-1:0]     host_req_valid_o,  // an access is offered
  input  logic [NumNodes-1:0]     host_req_ready_i,  // no access in progress
  output logic [NumNodes-1:0]     host_req_write_o,  // 1 write, 0 read
  output logic [NumNodes*32-1:0]  host_req_addr_o,   // byte address
  output logic [NumNodes*32-1:0]  host_req_wdata_o,  // write data
  input  logic [NumNodes-1:0]     host_rsp_valid_i,  // the access is answered
  input  logic [NumNodes*32-1:0]  host_rsp_rdata_i,  // read data
  input  logic [NumNodes-1:0]     host_rsp_err_i,    // the access was not allowed
  // status
  output logic                    bad_frame_o,       // sticky: some request was not answered Ok
  output logic                    busy_o             // a request is being received or handled
);

  `include "xf_assert.svh"

  localparam int ClksPerBit = (ClkHz + Baud / 2) / Baud;
  localparam int MaxWords = 64;
  localparam int IdleCycles = IdleBits * ClksPerBit;
  localparam int IdleBitsW = $clog2(IdleCycles + 1);
  localparam int TimerBits = $clog2(TimeoutCycles + 1);

  `ASSERT_INIT(NumNodesLegal_A, NumNodes >= 1 && NumNodes <= 254)
  `ASSERT_INIT(NumChipsLegal_A, NumChips >= 1 && NumChips <= NumNodes)
  `ASSERT_INIT(ClksPerBitLegal_A, ClksPerBit >= 4)
  `ASSERT_INIT(TimeoutLegal_A, TimeoutCycles >= 2)
  `ASSERT_INIT(IdleBitsLegal_A, IdleBits >= 12)

  localparam logic [7:0] Sync = 8'hA5;
  localparam logic [7:0] ReplySync = 8'h5A;
  localparam logic [7:0] CmdRead = 8'h01;
  localparam logic [7:0] CmdWrite = 8'h02;
  localparam logic [7:0] NodeAll = 8'hFE;
  localparam logic [7:0] NodeBridge = 8'hFF;

  typedef enum logic [7:0] {
    StatusOk          = 8'h00,
    StatusBadCrc      = 8'h01,
    StatusBadCommand  = 8'h02,
    StatusBadNode     = 8'h03,
    StatusBadLength   = 8'h04,
    StatusBadAddress  = 8'h05,
    StatusAccessError = 8'h06,
    StatusTimeout     = 8'h07,
    StatusTruncated   = 8'h08,
    StatusFraming     = 8'h09
  } status_e;

  typedef enum logic [3:0] {
    StHunt, StCmd, StNode, StCount, StAddr, StData, StCrc,  // receive
    StCheck,                                                // check
    StFetch, StIssue, StWait,                               // execute
    StReply                                                 // reply
  } state_e;

  typedef enum logic [2:0] {
    RpSync, RpStatus, RpDone, RpFetch, RpData, RpCrc
  } reply_e;

  // CRC-8, polynomial x^8 + x^2 + x + 1 (0x07), MSB first, initial value 0.
  function automatic logic [7:0] crc8(input logic [7:0] crc, input logic [7:0] b);
    logic [7:0] c;
    c = crc ^ b;
    for (int i = 0; i < 8; i++) c = c[7] ? {c[6:0], 1'b0} ^ 8'h07 : {c[6:0], 1'b0};
    crc8 = c;
  endfunction

  // ---- UART ----------------------------------------------------------------------------------
  logic       rx_valid, rx_ferr, rx_busy, tx_valid, tx_ready;
  logic [7:0] rx_data, tx_data;

  xf_uart_rx #(.ClksPerBit(ClksPerBit)) u_rx (
    .clk_i,
    .rst_ni,
    .rx_i       (uart_rx_i),
    .valid_o    (rx_valid),
    .data_o     (rx_data),
    .frame_err_o(rx_ferr),
    .busy_o     (rx_busy)
  );

  xf_uart_tx #(.ClksPerBit(ClksPerBit)) u_tx (
    .clk_i,
    .rst_ni,
    .valid_i(tx_valid),
    .data_i (tx_data),
    .ready_o(tx_ready),
    .tx_o   (uart_tx_o)
  );

  // ---- Word buffer: a write's data on the way in, a read's data on the way out ----------------
  logic [31:0] buf_mem [MaxWords];  // coverage: storage
  logic        buf_we;
  logic [5:0]  buf_waddr, buf_raddr;
  logic [31:0] buf_wdata, buf_rdata_q;

  always_ff @(posedge clk_i) begin
    if (buf_we) buf_mem[buf_waddr] <= buf_wdata;
    buf_rdata_q <= buf_mem[buf_raddr];
  end

  // ---- State -----------------------------------------------------------------------------------
  state_e         state_q, state_d;
  reply_e         rp_q, rp_d;
  logic [7:0]     cmd_q, cmd_d, node_q, node_d, count_q, count_d, crc_q, crc_d;
  status_e        status_q, status_d;
  logic [31:0]    addr_q, addr_d, acc_q, acc_d;
  logic [1:0]     byte_q, byte_d;       // byte of the current word (address, data, reply data)
  logic [6:0]     word_q, word_d;       // word index: receive, execute (k) and reply (j)
  logic [6:0]     done_q, done_d;       // words completed
  logic [IdleBitsW-1:0] idle_q, idle_d;
  logic [TimerBits-1:0] timer_q, timer_d;
  logic [NumNodes-1:0]  pend_q, pend_d, req_valid_q, req_valid_d;
  logic           req_write_q, req_write_d, err_q, err_d;
  logic [31:0]    req_addr_q, req_addr_d, req_wdata_q, req_wdata_d;
  logic [31:0]    cnt_frames_q, cnt_crc_q, cnt_frame_err_q, cnt_port_err_q, cnt_junk_q;
  logic           bad_q, junk;
  logic           reply_start;          // entering StReply (status_d is the reply's status)

  // The ports a word goes to: every chip for NODE 0xFE, else the one node.
  logic [NumNodes-1:0] target;
  always_comb begin
    target = '0;
    if (node_q == NodeAll) begin
      for (int n = 0; n < NumChips; n++) target[n] = 1'b1;
    end else begin
      for (int n = 0; n < NumNodes; n++) target[n] = node_q == 8'(n);
    end
  end

  // The bridge's registers (node 0xFF).
  logic [31:0] word_addr, bridge_rdata;
  assign word_addr = addr_q + {23'd0, word_q, 2'd0};
  always_comb begin
    bridge_rdata = '0;
    if (word_addr[6] == 1'b1) begin
      bridge_rdata = MachineName[32 * word_addr[5:2] +: 32];
    end else begin
      unique case (word_addr[4:2])
        3'd0: bridge_rdata = 32'h5846_4231;  // "XFB1"
        3'd1: bridge_rdata = {8'd0, 8'(MaxWords), 8'(NumChips), 8'(NumNodes)};
        3'd2: bridge_rdata = 32'(ClkHz);
        3'd3: bridge_rdata = cnt_frames_q;
        3'd4: bridge_rdata = cnt_crc_q;
        3'd5: bridge_rdata = cnt_frame_err_q;
        3'd6: bridge_rdata = cnt_port_err_q;
        3'd7: bridge_rdata = cnt_junk_q;
        default: bridge_rdata = '0;
      endcase
    end
  end

  // Address check of the whole burst [first, last] (33 bits: no wrap).
  logic [32:0] last_addr;
  logic        addr_ok;
  assign last_addr = {1'b0, addr_q} + {23'd0, count_q, 2'd0} - 33'd4;
  always_comb begin
    if (addr_q[1:0] != 2'd0) addr_ok = 1'b0;
    else if (node_q == NodeBridge)
      addr_ok = last_addr < 33'h20 || (addr_q >= 32'h40 && last_addr < 33'h80);
    else addr_ok = !last_addr[32];
  end

  // The read data of the one node a read goes to.
  logic [31:0] rsp_rdata;
  always_comb begin
    rsp_rdata = '0;
    for (int n = 0; n < NumNodes; n++)
      if (node_q == 8'(n)) rsp_rdata = host_rsp_rdata_i[n*32 +: 32];
  end

  logic in_frame;   // between 0xA5 and the CRC byte
  logic executing;  // checking or executing a request
  logic port_status;  // status_d is AccessError or Timeout
  assign executing = state_q == StCheck || state_q == StFetch || state_q == StIssue ||
                     state_q == StWait;
  assign port_status = status_d == StatusAccessError || status_d == StatusTimeout;
  assign in_frame = state_q == StCmd || state_q == StNode || state_q == StCount ||
                    state_q == StAddr || state_q == StData || state_q == StCrc;

  always_comb begin
    state_d     = state_q;
    rp_d        = rp_q;
    cmd_d       = cmd_q;
    node_d      = node_q;
    count_d     = count_q;
    crc_d       = crc_q;
    status_d    = status_q;
    addr_d      = addr_q;
    acc_d       = acc_q;
    byte_d      = byte_q;
    word_d      = word_q;
    done_d      = done_q;
    idle_d      = in_frame ? idle_q + 1'b1 : '0;
    timer_d     = timer_q;
    pend_d      = pend_q & ~host_rsp_valid_i;
    req_valid_d = '0;
    req_write_d = req_write_q;
    req_addr_d  = req_addr_q;
    req_wdata_d = req_wdata_q;
    err_d       = err_q;
    buf_we      = 1'b0;
    buf_waddr   = word_q[5:0];
    buf_wdata   = '0;
    buf_raddr   = word_q[5:0];
    tx_valid    = 1'b0;
    tx_data     = ReplySync;
    junk        = 1'b0;
    reply_start = 1'b0;

    if (in_frame) begin
      if (rx_valid) begin
        idle_d = '0;
        crc_d  = crc8(crc_q, rx_data);
      end
    end

    unique case (state_q)
      StHunt: begin
        if (rx_valid) begin
          if (rx_data == Sync) begin
            state_d = StCmd;
            crc_d   = '0;
          end else begin
            junk = 1'b1;
          end
        end else if (rx_ferr) begin
          junk = 1'b1;
        end
      end
      StCmd: if (rx_valid) begin
        cmd_d   = rx_data;
        state_d = StNode;
        if (rx_data != CmdRead && rx_data != CmdWrite) begin
          status_d = StatusBadCommand;
          state_d  = StReply;
        end
      end
      StNode: if (rx_valid) begin
        node_d  = rx_data;
        state_d = StCount;
      end
      StCount: if (rx_valid) begin
        count_d = rx_data;
        byte_d  = 2'd0;
        state_d = StAddr;
        if (rx_data == 8'd0 || rx_data > 8'(MaxWords)) begin
          status_d = StatusBadLength;
          state_d  = StReply;
        end
      end
      StAddr: if (rx_valid) begin
        addr_d[8 * byte_q +: 8] = rx_data;
        byte_d = byte_q + 2'd1;
        word_d = '0;
        if (byte_q == 2'd3) begin
          if (cmd_q == CmdWrite) state_d = StData;
          else state_d = StCrc;
        end
      end
      StData: if (rx_valid) begin
        acc_d[8 * byte_q +: 8] = rx_data;
        byte_d = byte_q + 2'd1;
        if (byte_q == 2'd3) begin
          buf_we    = 1'b1;
          buf_wdata = acc_d;
          word_d    = word_q + 7'd1;
          if (word_q + 7'd1 == {1'b0, count_q[6:0]}) state_d = StCrc;
        end
      end
      StCrc: if (rx_valid) begin
        state_d = StCheck;
        if (rx_data != crc_q) begin
          status_d = StatusBadCrc;
          state_d  = StReply;
        end
      end
      StCheck: begin
        word_d  = '0;
        done_d  = '0;
        err_d   = 1'b0;
        timer_d = '0;
        state_d = StFetch;
        if ((node_q == NodeBridge && cmd_q != CmdRead) || (node_q == NodeAll && cmd_q != CmdWrite))
        begin
          status_d = StatusBadCommand;
          state_d  = StReply;
        end else if (node_q != NodeBridge && node_q != NodeAll && node_q >= 8'(NumNodes)) begin
          status_d = StatusBadNode;
          state_d  = StReply;
        end else if (!addr_ok) begin
          status_d = StatusBadAddress;
          state_d  = StReply;
        end
      end
      StFetch: begin  // buf_raddr = k: the word to write is in buf_rdata_q next cycle
        state_d = StIssue;
      end
      StIssue: begin
        timer_d = timer_q + 1'b1;
        if (node_q == NodeBridge) begin
          buf_we    = 1'b1;
          buf_wdata = bridge_rdata;
          word_d    = word_q + 7'd1;
          done_d    = done_q + 7'd1;
          if (word_q + 7'd1 == {1'b0, count_q[6:0]}) begin
            status_d = StatusOk;
            state_d  = StReply;
          end
        end else if ((host_req_ready_i & target) == target) begin
          req_valid_d = target;
          req_write_d = cmd_q == CmdWrite;
          req_addr_d  = word_addr;
          req_wdata_d = buf_rdata_q;
          pend_d      = target;
          state_d     = StWait;
        end else if (timer_q == TimerBits'(TimeoutCycles - 1)) begin
          status_d = StatusTimeout;
          state_d  = StReply;
        end
      end
      StWait: begin
        timer_d = timer_q + 1'b1;
        err_d   = err_q | |(host_rsp_valid_i & host_rsp_err_i & pend_q);
        if (|(host_rsp_valid_i & pend_q) && cmd_q == CmdRead) begin
          buf_we    = 1'b1;
          buf_wdata = rsp_rdata;
        end
        if (pend_d == '0) begin
          if (err_d) begin
            status_d = StatusAccessError;
            state_d  = StReply;
          end else begin
            word_d  = word_q + 7'd1;
            done_d  = done_q + 7'd1;
            timer_d = '0;
            state_d = StFetch;
            if (word_q + 7'd1 == {1'b0, count_q[6:0]}) begin
              status_d = StatusOk;
              state_d  = StReply;
            end
          end
        end else if (timer_q == TimerBits'(TimeoutCycles - 1)) begin
          pend_d   = '0;  // the late answer is ignored
          status_d = StatusTimeout;
          state_d  = StReply;
        end
      end
      StReply: begin
        buf_raddr = word_q[5:0];
        unique case (rp_q)
          RpSync: begin
            tx_valid = 1'b1;
            tx_data  = ReplySync;
            if (tx_ready) begin
              rp_d  = RpStatus;
              crc_d = '0;
            end
          end
          RpStatus: begin
            tx_valid = 1'b1;
            tx_data  = status_q;
            if (tx_ready) begin
              rp_d  = RpDone;
              crc_d = crc8(crc_q, tx_data);
            end
          end
          RpDone: begin
            tx_valid = 1'b1;
            tx_data  = {1'b0, done_q};
            if (tx_ready) begin
              if (cmd_q == CmdRead && done_q != '0) rp_d = RpFetch;
              else rp_d = RpCrc;
              crc_d  = crc8(crc_q, tx_data);
              word_d = '0;
              byte_d = 2'd0;
            end
          end
          RpFetch: rp_d = RpData;  // buf_rdata_q holds word j from the next cycle
          RpData: begin
            tx_valid = 1'b1;
            tx_data  = buf_rdata_q[8 * byte_q +: 8];
            if (tx_ready) begin
              crc_d  = crc8(crc_q, tx_data);
              byte_d = byte_q + 2'd1;
              if (byte_q == 2'd3) begin
                word_d = word_q + 7'd1;
                if (word_q + 7'd1 == done_q) rp_d = RpCrc;
                else rp_d = RpFetch;
              end
            end
          end
          RpCrc: begin
            tx_valid = 1'b1;
            tx_data  = crc_q;
            if (tx_ready) state_d = StHunt;
          end
          default: rp_d = RpSync;
        endcase
        if (rx_valid || rx_ferr) junk = 1'b1;
      end
      default: state_d = StHunt;
    endcase

    // A frame ends early on a framing error or a silence (nothing has been issued yet).
    if (in_frame && state_d != StReply) begin
      if (rx_ferr) begin
        status_d = StatusFraming;
        state_d  = StReply;
      end else if (idle_q == IdleBitsW'(IdleCycles)) begin
        status_d = StatusTruncated;
        state_d  = StReply;
      end
    end
    if (executing && (rx_valid || rx_ferr)) junk = 1'b1;

    if (state_d == StReply && state_q != StReply) begin
      reply_start = 1'b1;
      rp_d        = RpSync;
      if (!(state_q == StIssue || state_q == StWait)) done_d = '0;
    end
  end

  function automatic logic [31:0] sat_inc(input logic [31:0] v, input logic inc);
    sat_inc = (inc && v != '1) ? v + 32'd1 : v;
  endfunction

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      state_q         <= StHunt;
      rp_q            <= RpSync;
      cmd_q           <= '0;
      node_q          <= '0;
      count_q         <= '0;
      crc_q           <= '0;
      status_q        <= StatusOk;
      addr_q          <= '0;
      acc_q           <= '0;
      byte_q          <= '0;
      word_q          <= '0;
      done_q          <= '0;
      idle_q          <= '0;
      timer_q         <= '0;
      pend_q          <= '0;
      req_valid_q     <= '0;
      req_write_q     <= 1'b0;
      req_addr_q      <= '0;
      req_wdata_q     <= '0;
      err_q           <= 1'b0;
      cnt_frames_q    <= '0;
      cnt_crc_q       <= '0;
      cnt_frame_err_q <= '0;
      cnt_port_err_q  <= '0;
      cnt_junk_q      <= '0;
      bad_q           <= 1'b0;
    end else begin
      state_q         <= state_d;
      rp_q            <= rp_d;
      cmd_q           <= cmd_d;
      node_q          <= node_d;
      count_q         <= count_d;
      crc_q           <= crc_d;
      status_q        <= status_d;
      addr_q          <= addr_d;
      acc_q           <= acc_d;
      byte_q          <= byte_d;
      word_q          <= word_d;
      done_q          <= done_d;
      idle_q          <= idle_d;
      timer_q         <= timer_d;
      pend_q          <= pend_d;
      req_valid_q     <= req_valid_d;
      req_write_q     <= req_write_d;
      req_addr_q      <= req_addr_d;
      req_wdata_q     <= req_wdata_d;
      err_q           <= err_d;
      cnt_frames_q    <= sat_inc(cnt_frames_q, reply_start && status_d == StatusOk);
      cnt_crc_q       <= sat_inc(cnt_crc_q, reply_start && status_d == StatusBadCrc);
      cnt_frame_err_q <= sat_inc(cnt_frame_err_q, reply_start && status_d != StatusOk &&
                                 status_d != StatusBadCrc && !port_status);
      cnt_port_err_q  <= sat_inc(cnt_port_err_q, reply_start && port_status);
      cnt_junk_q      <= sat_inc(cnt_junk_q, junk);
      bad_q           <= bad_q | (reply_start && status_d != StatusOk);
    end
  end

  // Answers only come for accesses the bridge is waiting for (a timed-out one is forgotten, so
  // its late answer is the one exception: allowed while pend_q is clear).
  `ASSERT(RspOnlyPending_A, (host_rsp_valid_i & ~pend_q) == '0 || pend_q == '0)
  `ASSERT(ReqOnlyWhenReady_A, (req_valid_q & ~host_req_ready_i) == '0)

  assign host_req_valid_o = req_valid_q;
  assign host_req_write_o = {NumNodes{req_write_q}};
  assign host_req_addr_o  = {NumNodes{req_addr_q}};
  assign host_req_wdata_o = {NumNodes{req_wdata_q}};
  assign bad_frame_o      = bad_q;
  // rx_valid: the cycle a byte is handed over, when the receiver is idle again and the state
  // is still StHunt for a request's first byte.
  assign busy_o           = state_q != StHunt || rx_busy || rx_valid;

  logic unused;
  assign unused = ^{cmd_q[7:2], word_addr[31:7], count_q[7]};

endmodule
