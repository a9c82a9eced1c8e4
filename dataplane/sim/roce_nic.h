// The RoCE NIC of a host in closed-loop fabric experiments: reliable
// connected (RC) queue pairs as the InfiniBand spec's transport runs them,
// DCQCN congestion control (dcqcn.h) and PFC, on one Ethernet wire, in
// virtual time (picoseconds, like the switch's wire times). Frames in and
// out are real RoCEv2 (IPv4/UDP 4791) built with rocelb's wire builder and
// read with its parser. Deterministic: no randomness, no wall clock, no
// statics. The event loop (run/fabric_run) calls receive() for every
// frame whose last bit reaches the NIC, and poll() at next_wakeup_ps().
//
// Sender (requester). start_flow() opens a QP that sends one message of S
// bytes as SEND_FIRST / SEND_MIDDLE / SEND_LAST packets (SEND_ONLY for one
// packet) of `mtu` payload bytes: SEND carries no extension header (an RDMA
// WRITE adds a 16-byte RETH to its first packet), so every packet is
// 58 + payload + pad bytes, as engines' ideal-FCT arithmetic (ideal_fct.h)
// assumes. PSNs are consecutive from roce_initial_psn(); the last packet
// has AckReq. Data frames: DSCP as given (data_dscp by default), ECN ECT(0),
// the host's MAC to its gateway's MAC, untagged (the switch trusts DSCP),
// UDP source port as given, or if 0 as Linux derives it from the two QPNs
// (roce_default_sport). Every data frame uses data_priority inside the NIC
// whatever its DSCP. Data frames of other sizes come from build_frame; a
// full-MTU data frame, an ACK/NAK and a CNP are each a copy of one frame
// build_frame made at construction, with its header fields rewritten and
// its ICRC updated by CRC linearity (byte-identical, 7x cheaper: the ICRC
// dominates the builder's cost). The flow finishes when its last PSN is acknowledged
// (where HPCC's and ConWeave's ns-3 record FCT); take_completed() hands it
// over and the QP is freed.
//
// Receiver (responder). accept_flow() opens the QP that receives it (set up
// out of band, as the CM does). In-order packets (PSN = ePSN) are accepted;
// one ACK (BTH ACKNOWLEDGE 0x11 + AETH syndrome 0x1F, "no credit count":
// end-to-end credits are not modelled) per `ack_interval` of them, and
// always for AckReq or a packet that fills a hole, carries the last
// in-order PSN; an ACK still queued is updated instead of a new one queued.
// A duplicate (PSN < ePSN) is re-ACKed. Out of order (PSN > ePSN):
//   go_back_n          dropped; a NAK (AETH 0x60, PSN sequence error)
//                      carrying ePSN, once per ePSN; the sender resends
//                      from there.
//   selective_repeat   kept (bitmap of sr_window packets; beyond it
//                      dropped); a hole is NAKed only once it has lasted
//                      sr_nak_delay, one NAK per missing PSN (PSN = the
//                      missing one), so pure reordering costs nothing; the
//                      sender resends just those packets. ACKs stay
//                      cumulative.
// A packet the receiver already had (behind ePSN, or held) is a spurious
// retransmission. Once all packets are in, the QP shrinks to a small record
// that re-ACKs late duplicates and is dropped after max(4 × the
// retransmission timeout, 1 ms) without them.
//
// Retransmission timer (IB local ACK timeout, 4.096 us × 2^local_ack_timeout,
// restarted whenever the oldest unacked PSN advances): go_back_n resends
// from the oldest unacked PSN, selective_repeat resends that one packet
// and then, until it is past what was sent before the timeout, the one
// each partial ACK names (NewReno-style), so a burst lost at a flow's tail
// costs one timeout, not one per packet.
// Retries are unlimited (IB retry_cnt, which ends a QP in error, is not
// modelled).
//
// DCQCN (params.dcqcn, dcqcn.h): each sending QP has a reaction point: CNPs
// cut its rate, timers and its byte counter raise it; a QP starts its next
// packet no earlier than its last start + wire bytes × 8 / rate. Each
// receiving QP has a notification point: a CE-marked data packet sends a CNP
// (BTH 0x81, dest QP = the sender's QPN, 16 zero bytes, ICRC; DSCP cnp_dscp,
// not ECT) at most once per min_time_between_cnps. With cnp_mode ack no CNP
// frame goes: the QP's next ACK or NAK carries BECN (the BTH's Resv8a bit
// 0x40, InfiniBand's backward notification, masked by the ICRC), as HPCC's
// and ConWeave's ns-3 flag their ACKs, and the sender reacts to each such
// ACK as to a CNP. Off: line rate, no CNPs.
//
// One wire at speed_bps: a frame holds it (len + 20) × 8 / speed (preamble,
// start delimiter and inter-frame gap, kWireOverheadBytes). Control frames
// (ACK/NAK/CNP) go first, oldest first; then the QPs with data take turns
// (round robin) among those their rate allows. PFC: PFC and 802.3x PAUSE
// frames from the leaf pause the NIC's own priorities (pfc/pause_receiver.h,
// quanta of 512 bit times at speed_bps): data on data_priority, ACK/NAK on
// ack_priority, CNPs on cnp_802p_prio. A paused priority starts nothing; the
// others may. Frames are untagged: the priority is the NIC's own mapping.
//
// Knobs: NicParams (nic_params.h). Counters: NicCounters (kNicCounters names
// each with its help) and per flow NicFlowStats.
//
// Cost: flat hash maps keyed by QPN (qp_map.h), a timer heap with one live entry per QP
// timer, fixed-size rings; no allocation per packet after warm-up (per flow:
// the QP slot, its map entries, a bitmap under selective_repeat). Not
// thread-safe: one thread drives a NIC.
#pragma once

#include <array>
#include <cstdint>
#include <memory>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "dataplane/sim/dcqcn.h"
#include "dataplane/sim/nic_params.h"
#include "dataplane/sim/qp_map.h"
#include "dataplane/wire/ethernet.h"
#include "dataplane/wire/packet_builder.h"
#include "dataplane/wire/parsed_packet.h"

namespace rocelb {

class PauseReceiver;

struct NicAddress {
  MacBytes mac{};
  MacBytes gateway_mac{};
  uint32_t ipv4 = 0;  // host order
  uint64_t speed_bps = 0;
};

// Sender-side statistics of one flow.
struct NicFlowStats {
  uint64_t flow_id = 0;
  uint64_t start_ps = 0;
  uint64_t finish_ps = 0;  // 0: not finished
  uint64_t size = 0;
  uint64_t packets = 0;  // data packets sent, retransmissions included
  uint64_t retransmitted_packets = 0;
  uint64_t cnps_received = 0;
  bool finished = false;
};

#define ROCELB_NIC_COUNTERS(X)                                                                  \
  X(tx_frames, "frames sent: data, ACK/NAK, CNP")                                               \
  X(tx_bytes, "bytes of the frames sent (no FCS, preamble or gap)")                             \
  X(data_packets_sent, "data packets sent, retransmissions included")                           \
  X(data_bytes_sent, "payload bytes of the data packets sent, retransmissions included")        \
  X(retransmitted_packets, "data packets sent again (go-back-N, selective repeat, timeout)")    \
  X(timeouts, "retransmission timer expiries (local ACK timeout)")                              \
  X(acks_sent, "ACK frames sent")                                                               \
  X(naks_sent, "NAK frames sent (PSN sequence error)")                                          \
  X(cnps_sent, "CNP frames sent")                                                               \
  X(cnps_suppressed, "CE marks (and cnp_on_nak NAKs) that sent no CNP (min_time_between_cnps)") \
  X(acks_received, "ACK frames received")                                                       \
  X(naks_received, "NAK frames received")                                                       \
  X(cnps_received, "CNP frames received")                                                       \
  X(becn_acks_sent, "ACKs and NAKs sent with BECN set (cnp_mode ack: CE marks told)")           \
  X(becn_acks_received, "ACKs and NAKs received with BECN set (each reacted to as a CNP)")      \
  X(naks_telling_congestion, "out-of-order NAKs that also told congestion (cnp_on_nak)")        \
  X(rate_cuts, "DCQCN rate cuts")                                                               \
  X(rx_frames, "frames received")                                                               \
  X(rx_bytes, "bytes of the frames received")                                                   \
  X(data_packets_received, "data packets received for a known QP")                              \
  X(data_bytes_accepted, "payload bytes accepted in order")                                     \
  X(out_of_order_received, "data packets received with PSN > the expected PSN")                 \
  X(out_of_order_dropped, "of those, dropped (go-back-N, or past the selective-repeat window)") \
  X(duplicates_received, "data packets received with PSN < the expected PSN")                   \
  X(spurious_retransmissions, "data packets received again although already held")              \
  X(ce_received, "frames received with ECN CE")                                                 \
  X(pfc_frames_received, "PFC frames received")                                                 \
  X(pause_frames_received, "802.3x PAUSE frames received")                                      \
  X(rx_unknown_qp, "RoCE frames for a QP this NIC does not have (late, or never opened)")       \
  X(rx_ignored, "frames neither data, ACK/NAK, CNP nor PFC for this NIC")                       \
  X(rx_malformed, "frames the parser refused")                                                  \
  X(tx_buffer_too_small, "poll() calls whose buffer was below max_frame_len()")                 \
  X(flows_started, "flows started (sender)")                                                    \
  X(flows_completed, "flows whose last PSN was acknowledged (sender)")                          \
  X(flows_received, "flows received completely (receiver)")

struct NicCounters {
#define ROCELB_X(name, help) uint64_t name = 0;
  ROCELB_NIC_COUNTERS(ROCELB_X)
#undef ROCELB_X
  // Time each priority was held paused by PFC/PAUSE, up to the NIC's latest
  // receive()/poll() (ns resolution).
  std::array<uint64_t, 8> paused_ps{};
};

struct NicCounterInfo {
  std::string_view name;
  std::string_view help;
  uint64_t NicCounters::*field;
};

inline constexpr NicCounterInfo kNicCounters[] = {
#define ROCELB_X(name, help) {#name, help, &NicCounters::name},
    ROCELB_NIC_COUNTERS(ROCELB_X)
#undef ROCELB_X
};

// The first PSN of the QP pair (requester QPN, responder QPN): a fixed mix
// of the two, so both ends agree and a reused QPN starts elsewhere.
uint32_t roce_initial_psn(uint32_t requester_qpn, uint32_t responder_qpn);
// The UDP source port Linux gives a RoCEv2 RC QP without a flow label:
// flow label = v ^ v>>20 ^ v>>40 (low 20 bits) of v = lqpn × rqpn, then
// port = 0xC000 | (label[13:0] ^ label[19:14]) (rdma_calc_flow_label,
// rdma_flow_label_to_udp_sport). Symmetric in the two QPNs.
uint16_t roce_default_sport(uint32_t qpn_a, uint32_t qpn_b);

class RoceNic {
 public:
  // start_flow's dscp: use params.data_dscp.
  static constexpr uint8_t kDefaultDscp = 0xff;

  RoceNic(const NicParams& p, const NicAddress& self);
  ~RoceNic();
  RoceNic(const RoceNic&) = delete;
  RoceNic& operator=(const RoceNic&) = delete;

  // Sender side: a message of `size` bytes (0 .. 2^31) from local QP `qpn`
  // to (dst_ipv4, dst_qpn), started at now_ps. sport 0: roce_default_sport.
  // Throws std::invalid_argument if qpn already sends a flow or flow_id is
  // in use, or a QPN is above 24 bits.
  void start_flow(uint64_t flow_id, uint32_t qpn, uint32_t dst_ipv4, uint32_t dst_qpn,
                  uint16_t sport, uint8_t dscp, uint64_t size, uint64_t now_ps);
  // Receiver side: local QP `qpn` receives `size` bytes from (src_ipv4,
  // src_qpn). sport: of its ACK/NAK/CNP frames (0: roce_default_sport; the
  // sender's, as Linux's is symmetric); dscp: the flow's (ACK/NAK use it
  // unless ack_dscp is set). Throws std::invalid_argument if qpn already
  // receives a flow.
  void accept_flow(uint32_t qpn, uint32_t src_ipv4, uint32_t src_qpn, uint16_t sport, uint8_t dscp,
                   uint64_t size);
  // A frame whose last bit reached the NIC at now_ps: data, ACK/NAK, CNP,
  // PFC or PAUSE; anything else is counted and ignored.
  void receive(const uint8_t* frame, uint32_t len, uint64_t now_ps);
  // The earliest time poll() has work (a frame may start, or a timer fires);
  // UINT64_MAX: idle. May change after receive(), poll() or start_flow().
  uint64_t next_wakeup_ps() const;
  // Runs the timers due at now_ps, then if the wire is free and a frame may
  // start, builds it into buf and returns its length (0: none), with
  // *start_ps its first bit's time (now_ps). cap must be >= max_frame_len().
  uint32_t poll(uint64_t now_ps, uint8_t* buf, uint32_t cap, uint64_t* start_ps);
  // Flows whose last PSN was acknowledged since the last call, in order.
  std::vector<NicFlowStats> take_completed();
  // A flow started here: running, or finished and not yet taken (nullptr
  // otherwise). Valid until the next call that changes the NIC.
  const NicFlowStats* flow(uint64_t flow_id) const;

  // What this NIC model holds in memory now: itself, its QP tables and
  // their per-QP buffers, its maps (an entry and a bucket each), queues and
  // frame templates (summary.json's cost.memory.hosts).
  uint64_t state_bytes() const;
  const NicCounters& counters() const;
  // The DCQCN current rate of sending QP qpn (line rate when DCQCN is off);
  // 0 if it sends nothing.
  uint32_t current_rate_mbps(uint32_t qpn) const;

  uint32_t max_frame_len() const { return max_frame_len_; }
  const NicParams& params() const { return p_; }
  const NicAddress& address() const { return self_; }
  // Open QPs (for tests and reports).
  size_t sending_qps() const { return senders_.size(); }
  size_t receiving_qps() const { return receivers_.size(); }
  size_t finished_receive_records() const { return rx_done_.size(); }

 private:
  // A FIFO on a power-of-two vector; elements keep their absolute index
  // (push order) while queued, and growth keeps it.
  template <typename T>
  class Ring {
   public:
    bool empty() const { return head_ == tail_; }
    uint64_t size() const { return tail_ - head_; }
    uint64_t head() const { return head_; }
    bool holds(uint64_t abs) const { return abs >= head_ && abs < tail_; }
    size_t capacity() const { return buf_.size(); }
    T& at(uint64_t abs) { return buf_[abs & mask_]; }
    const T& front() const { return buf_[head_ & mask_]; }
    T& front() { return buf_[head_ & mask_]; }
    void pop_front() { ++head_; }
    uint64_t push_back(const T& v) {
      if (size() == buf_.size()) grow();
      buf_[tail_ & mask_] = v;
      return tail_++;
    }

   private:
    void grow() {
      const size_t n = buf_.empty() ? 16 : buf_.size() * 2;
      std::vector<T> nb(n);
      for (uint64_t a = head_; a < tail_; ++a) nb[a & (n - 1)] = buf_[a & mask_];
      buf_.swap(nb);
      mask_ = n - 1;
    }
    std::vector<T> buf_;
    uint64_t mask_ = 0, head_ = 0, tail_ = 0;
  };

  // One timer of a QP: `due` is when it should fire (UINT64_MAX: off);
  // `sched` the time of its one live heap entry (UINT64_MAX: none).
  struct Timer {
    uint64_t due = UINT64_MAX;
    uint64_t sched = UINT64_MAX;
  };
  enum TimerKind : uint8_t { kTxRate, kTxRto, kTxCc, kRxNak };
  struct TimerEntry {
    uint64_t t;
    uint64_t seq;
    uint32_t slot;
    uint32_t gen;
    uint8_t kind;
  };

  enum class CtrlKind : uint8_t { kAck, kNak, kCnp };
  struct Ctrl {
    uint64_t seq = 0;
    uint32_t dst_ip = 0;
    uint32_t dst_qpn = 0;
    uint32_t psn = 0;
    uint32_t msn = 0;
    uint16_t sport = 0;
    uint8_t dscp = 0;
    uint8_t syndrome = 0;
    bool becn = false;  // cnp_mode ack: a CE mark told in this ACK/NAK
    CtrlKind kind = CtrlKind::kAck;
  };

  struct SendQp {
    uint32_t gen = 0;
    bool live = false;
    bool in_ready = false;
    bool waiting_rate = false;
    uint8_t dscp = 0;
    uint16_t sport = 0;
    uint32_t qpn = 0, dst_ip = 0, dst_qpn = 0;
    uint32_t ipsn = 0;
    uint32_t last_wire_bytes = 0;
    uint64_t size = 0, npkts = 0;
    uint64_t una = 0, nxt = 0, max = 0;  // packet indices: oldest unacked, next new, sent
    uint64_t recover = 0;                // selective repeat: `max` at the last timeout
    uint64_t last_start_ps = 0;
    uint64_t next_allowed_ps = 0;
    Timer timers[3];  // kTxRate, kTxRto, kTxCc
    DcqcnRp rp;
    NicFlowStats stats;
    std::vector<uint64_t> retx;  // selective repeat: packets to resend
    size_t retx_head = 0;
  };

  struct RecvQp {
    uint32_t gen = 0;
    bool live = false;
    uint8_t ack_dscp = 0;
    uint16_t sport = 0;
    uint32_t qpn = 0, src_ip = 0, src_qpn = 0;
    uint32_t ipsn = 0;
    uint32_t since_ack = 0;
    uint64_t npkts = 0;
    uint64_t e = 0;                 // expected packet index
    uint64_t nak_e = UINT64_MAX;    // go-back-N: e when the last NAK went
    uint64_t nak_ps = 0;            // go-back-N: when it went (nak_interval)
    uint64_t ack_abs = UINT64_MAX;  // its ACK still queued (Ring index), if any
    bool becn = false;              // cnp_mode ack: a CE mark the next ACK/NAK tells
    DcqcnNp np;
    // Selective repeat.
    std::vector<uint64_t> bitmap;       // bit (i % sr_window): packet i held
    uint64_t high = 0;                  // one past the highest packet held
    uint64_t naked_below = 0;           // holes below were NAKed
    uint64_t nak_boundary = 0;          // holes below are NAKed when the timer fires
    uint64_t next_gap_ps = UINT64_MAX;  // first arrival past nak_boundary
    Timer nak_timer;
  };

  struct RxDone {
    uint32_t src_ip = 0, src_qpn = 0;
    uint32_t last_psn = 0;
    uint16_t sport = 0;
    uint8_t ack_dscp = 0;
    uint64_t expiry_ps = 0;
  };

  // Timers.
  void push_timer(uint64_t t, uint32_t slot, uint32_t gen, uint8_t kind);
  void arm(Timer& tm, uint64_t t, uint32_t slot, uint32_t gen, uint8_t kind);
  void run_timers(uint64_t now_ps);
  void fire_tx(SendQp& q, uint32_t slot, uint8_t kind, uint64_t now_ps);
  void fire_rx_nak(RecvQp& r, uint32_t slot, uint64_t now_ps);

  // Sender.
  // Something to send: a packet to resend, or a new one the in-flight cap
  // allows (a go-back-N resend below `max` is never held back).
  bool sendable(const SendQp& q) const {
    return q.retx_head < q.retx.size() || (q.nxt < q.npkts && window_open(q));
  }
  bool window_open(const SendQp& q) const {
    return p_.max_inflight_bytes == 0 || q.nxt < q.max ||
           (q.max - q.una) * p_.mtu < p_.max_inflight_bytes;
  }
  uint64_t qp_rate_bps(const SendQp& q) const;
  void make_sendable(SendQp& q, uint32_t slot, uint64_t now_ps);
  void rate_changed(SendQp& q, uint32_t slot, uint64_t now_ps);
  void rearm_cc(SendQp& q, uint32_t slot);
  void rearm_rto(SendQp& q, uint32_t slot, uint64_t now_ps);
  uint32_t send_data(SendQp& q, uint32_t slot, uint64_t now_ps, uint8_t* buf);
  void on_ack(const ParsedPacket& pp, const uint8_t* frame, uint64_t now_ps);
  void congestion_seen(RecvQp& r, uint64_t now_ps);
  void congestion_notified(SendQp& q, uint32_t slot, uint64_t now_ps);
  void on_cnp(const ParsedPacket& pp, uint64_t now_ps);
  void complete(SendQp& q, uint32_t slot, uint64_t now_ps);
  void forget_stale_timers();

  // Receiver.
  void on_data(const ParsedPacket& pp, uint64_t now_ps);
  void queue_ack(RecvQp& r);
  void queue_nak(RecvQp& r, uint64_t idx);
  void queue_cnp(uint32_t dst_ip, uint32_t dst_qpn, uint16_t sport);
  void finish_receive(RecvQp& r, uint32_t slot, uint64_t now_ps);
  void purge_done(uint64_t now_ps);
  bool sr_held(const RecvQp& r, uint64_t idx) const;
  void sr_set(RecvQp& r, uint64_t idx, bool on);

  // Wire.
  uint64_t wire_ps(uint32_t bytes) const;
  uint64_t tx_ps(uint32_t wire_bytes, uint64_t rate_bps) const;
  // A frame build_frame made once; a copy gets its header fields rewritten
  // and then its ICRC fixed (fix_icrc): ICRC' = ICRC ^ A(crc0(δ)), δ the
  // copy XOR the template over [kVaryFrom, vary_end) (the fields the ICRC
  // covers unmasked that may differ: IPv4 destination, UDP, BTH, AETH), A
  // the raw CRC register carried over the bytes between vary_end and the
  // ICRC, as eight nibble tables: 512 bytes that stay in cache where four
  // byte tables (4 KB a template and NIC) missed (none when there are no
  // such bytes).
  struct FrameTemplate {
    std::vector<uint8_t> bytes;
    uint32_t vary_end = 0;
    std::vector<std::array<uint32_t, 16>> advance;
  };
  static void make_template(const FrameSpec& spec, uint32_t vary_end, FrameTemplate& t);
  static void fix_icrc(const FrameTemplate& t, uint8_t* buf);
  // A template's copy in buf given its IPv4 TOS, destination and checksum
  // and its UDP source port (what differs per QP in every frame kind).
  static void patch_ip_udp(uint8_t* buf, uint8_t tos, uint32_t dst_ip, uint16_t sport);
  uint32_t build_ctrl(const Ctrl& c, uint8_t* buf);
  void build_templates();
  uint32_t patch_template(const SendQp& q, uint8_t opcode, bool ack_req, uint32_t psn,
                          uint8_t* buf) const;
  uint64_t resume_ps(uint8_t prio) const;

  NicParams p_;
  NicAddress self_;
  uint64_t rto_ps_ = 0;
  uint64_t done_keep_ps_ = 0;
  uint64_t ps_per_byte_ = 0;  // 8e12 / speed when exact
  uint32_t max_frame_len_ = 0;
  uint64_t wire_free_ps_ = 0;
  uint64_t last_now_ps_ = 0;
  uint64_t seq_ = 0;  // timer and control ordering

  std::unique_ptr<PauseReceiver> pause_;
  std::vector<SendQp> sq_;
  std::vector<uint32_t> sq_free_;
  std::vector<RecvQp> rq_;
  std::vector<uint32_t> rq_free_;
  QpMap senders_;                                     // QPN -> sq_ slot
  QpMap receivers_;                                   // QPN -> rq_ slot
  std::unordered_map<uint32_t, RxDone> rx_done_;      // QPN -> finished receive
  Ring<std::pair<uint64_t, uint32_t>> done_fifo_;     // (expiry, QPN)
  std::unordered_map<uint64_t, int64_t> flow_index_;  // >= 0: sq_ slot; < 0: -1 - completed_ index
  std::vector<NicFlowStats> completed_;
  std::vector<TimerEntry> heap_;
  std::array<Ring<Ctrl>, 8> ctrl_;  // per priority
  uint8_t ctrl_mask_ = 0;           // bit p: ctrl_[p] holds frames
  uint64_t push_ctrl(uint8_t prio, const Ctrl& c) {
    ctrl_mask_ |= static_cast<uint8_t>(1u << prio);
    return ctrl_[prio].push_back(c);
  }
  Ring<std::pair<uint32_t, uint32_t>> ready_;  // (slot, gen) of sendable QPs
  FrameSpec spec_;
  std::vector<uint8_t> scratch_;
  FrameTemplate data_tmpl_;  // a full-MTU data frame (SEND_MIDDLE)
  FrameTemplate ack_tmpl_;   // an ACK (NAKs differ in the AETH syndrome)
  FrameTemplate cnp_tmpl_;
  mutable NicCounters counters_;
};

}  // namespace rocelb
