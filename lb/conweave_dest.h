// `conweave` at the destination ToR: ConWeave's reordering (Song et al.,
// SIGCOMM 2023). For each marked data packet of a flow this switch
// delivers to its host, on_data() decides, as ConWeave's ns-3 model does
// (conweave-routing.cc:622-960):
//
//   a packet of an older epoch passes at once;
//   a phase-1 (REROUTED) packet that arrives before the old path's TAIL is
//   out of order: it is held in the flow's reorder queue ("VOQ"), whose
//   flush deadline is the predicted arrival of the TAIL (the phase-0
//   packets' arrival time plus the gap the source ToR saw between them and
//   the TAIL) plus voq_flush_extra, or voq_default_wait when nothing of
//   phase 0 was seen;
//   the TAIL (and any phase-0 packet while the queue waits) moves the
//   deadline: the TAIL to 1 ns from now, so the held packets leave right
//   behind it;
//   an RTT request (INIT) or a TAIL is answered (reply / clear), and a
//   CE-marked packet makes a NOTIFY naming its path.
//
// Packets are held as opaque handles (the dataplane's mbufs) with a 16-bit
// note (their ingress port) in a pool of hold_packets, one FIFO per flow;
// flush_due() hands each due queue's packets back in arrival order. Flows
// live in a table of max_flows entries in sets of four, keyed by a hash of
// the 5-tuple; a new flow takes an empty entry of its set, else the one
// idle longest that holds nothing; when all four hold packets it is passed
// without reordering (counted).
//
// Knobs: conweave.voq_flush_extra, voq_default_wait, hold_packets;
// max_flows. Counters: ConWeaveDestCounters below.
#pragma once

#include <cstdint>
#include <vector>

#include "lb/conweave_source.h"
#include "lb/lb_knobs.h"

namespace rocelb {

struct ConWeaveDestCounters {
  uint64_t held = 0;              // packets that waited in a reorder queue
  uint64_t hold_full = 0;         // out of order, but the pool was full: passed
  uint64_t flush_by_tail = 0;     // queues released by their TAIL
  uint64_t flush_by_timeout = 0;  // queues released by the deadline alone
  uint64_t table_collisions = 0;  // passed: another flow's queue held the entry
  uint64_t epoch_while_held = 0;  // a new epoch began while a queue still held packets
};

class ConWeaveDest {
 public:
  static constexpr uint64_t kNever = UINT64_MAX;

  ConWeaveDest(uint32_t max_flows, uint32_t hold_packets);

  // What the packet carries (its header's mark), and of it here.
  struct Packet : ConWeaveMark {
    uint32_t flow = 0;  // hash of the 5-tuple
    bool ce = false;
    uint16_t out_port = 0;
  };
  struct Verdict {
    bool hold = false;                         // call hold() for it
    ConWeaveKind reply = ConWeaveKind::kData;  // kReplyInit / kReplyTail, or kData: none
    uint16_t reply_epoch = 0;
    uint8_t reply_phase = 0;
    bool notify = false;
    bool deadline_moved = false;  // the port's next flush time may have changed
  };
  Verdict on_data(const Packet& p, uint64_t now_ns, const ConWeaveKnobs& k);

  // Holds `pkt` in the queue of the flow on_data() just said to hold.
  // False when the pool is full (the caller sends it on; counted).
  bool hold(uint32_t flow, void* pkt, uint16_t note);

  // The earliest flush deadline of a queue whose packets leave by `port`
  // (kNever: none).
  uint64_t next_deadline(uint16_t port) const;
  uint64_t next_deadline() const;
  // For every queue due at now_ns (those of `port` only, unless port is
  // -1), in deadline order: release(out_port, handle, note) for each of its
  // packets in arrival order; then the flow leaves reordering (phase 1).
  template <class F>
  uint32_t flush_due(uint64_t now_ns, int port, F&& release);

  size_t held_now() const { return held_now_; }
  uint32_t flows() const { return mask_ + 1; }
  uint32_t capacity() const { return static_cast<uint32_t>(nodes_.size()); }
  const ConWeaveDestCounters& counters() const { return c_; }

 private:
  static constexpr uint32_t kNil = UINT32_MAX;
  struct Entry {
    uint64_t active_ns = 0;
    uint64_t phase0_rx_ns = 0;
    uint64_t deadline_ns = kNever;
    uint32_t tag = 0;
    uint32_t phase0_tx = 0;
    uint32_t tail_tx = 0;
    uint32_t head = kNil, last = kNil;
    uint16_t epoch = 1;  // the source's first epoch is 1
    uint16_t out_port = 0;
    uint8_t phase = 0;
    uint8_t phase0_cache = 0;
    uint8_t reordering = 0;
    uint8_t tail_seen = 0;
    uint8_t valid = 0;
  };
  struct Node {
    void* pkt = nullptr;
    uint32_t next = kNil;
    uint16_t note = 0;
  };
  static_assert(sizeof(Entry) == kConWeaveDestEntryBytes, "lb_knobs.h counts 56 bytes");
  static_assert(sizeof(Node) == kConWeaveHoldNodeBytes, "lb_knobs.h counts 16 bytes");
  static constexpr uint32_t kWays = 4;
  uint32_t find(uint32_t flow) const;  // its entry's index, or kNil
  void set_deadline(uint32_t index, uint64_t t);

  std::vector<Entry> table_;
  uint32_t mask_;
  std::vector<Node> nodes_;
  uint32_t free_ = kNil;
  std::vector<uint32_t> active_;  // entries reordering now
  size_t held_now_ = 0;
  ConWeaveDestCounters c_;
};

template <class F>
uint32_t ConWeaveDest::flush_due(uint64_t now_ns, int port, F&& release) {
  uint32_t flushed = 0;
  for (;;) {
    // The earliest due queue first, so packets of two queues leave in
    // deadline order (ties: the one that started reordering first).
    size_t best = active_.size();
    for (size_t i = 0; i < active_.size(); ++i) {
      const Entry& e = table_[active_[i]];
      if (e.deadline_ns > now_ns || (port >= 0 && e.out_port != port)) continue;
      if (best == active_.size() || e.deadline_ns < table_[active_[best]].deadline_ns) best = i;
    }
    if (best == active_.size()) return flushed;
    Entry& e = table_[active_[best]];
    active_.erase(active_.begin() + static_cast<std::ptrdiff_t>(best));
    ++(e.tail_seen ? c_.flush_by_tail : c_.flush_by_timeout);
    uint32_t n = e.head;
    e.head = e.last = kNil;
    e.reordering = 0;
    e.tail_seen = 0;
    e.phase = 1;
    e.deadline_ns = kNever;
    while (n != kNil) {
      Node& node = nodes_[n];
      const uint32_t next = node.next;
      release(e.out_port, node.pkt, node.note);
      node.next = free_;
      node.pkt = nullptr;
      free_ = n;
      --held_now_;
      ++flushed;
      n = next;
    }
  }
}

}  // namespace rocelb
