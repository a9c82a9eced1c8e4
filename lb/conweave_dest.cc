#include "lb/conweave_dest.h"

#include <algorithm>

namespace rocelb {

ConWeaveDest::ConWeaveDest(uint32_t max_flows, uint32_t hold_packets)
    : table_(max_flows), mask_(max_flows - 1), nodes_(hold_packets) {
  for (uint32_t i = hold_packets; i-- > 0;) {
    nodes_[i].next = free_;
    free_ = i;
  }
}

void ConWeaveDest::set_deadline(uint32_t index, uint64_t t) {
  Entry& e = table_[index];
  if (!e.reordering) {
    e.reordering = 1;
    active_.push_back(index);
  }
  e.deadline_ns = t;
}

ConWeaveDest::Verdict ConWeaveDest::on_data(const Packet& p, uint64_t now_ns,
                                            const ConWeaveKnobs& k) {
  Verdict v;
  // The reply and the notify need no state.
  if (p.kind == ConWeaveKind::kInit) {
    v.reply = ConWeaveKind::kReplyInit;
    v.reply_epoch = p.epoch;
    v.reply_phase = 0;
  } else if (p.kind == ConWeaveKind::kTail) {
    v.reply = ConWeaveKind::kReplyTail;
    v.reply_epoch = p.epoch;
    v.reply_phase = 1;
  }
  v.notify = p.ce;

  uint32_t index = find(p.flow);
  if (index == kNil) {
    // A new flow: an empty entry of its set, else the one idle longest
    // that holds nothing.
    const uint32_t set = p.flow & mask_ & ~(kWays - 1);
    for (uint32_t w = set; w < set + kWays; ++w) {
      const Entry& c = table_[w];
      if (c.reordering) continue;
      if (index == kNil || !c.valid ||
          (table_[index].valid && c.active_ns < table_[index].active_ns))
        index = w;
      if (!c.valid) break;
    }
    if (index == kNil) {  // every entry of the set holds packets
      ++c_.table_collisions;
      return v;
    }
    table_[index] = Entry{};
    table_[index].valid = 1;
    table_[index].tag = p.flow;
  }
  Entry& e = table_[index];
  e.active_ns = now_ns;
  // Epochs compare as serial numbers (16 bits wrap).
  const auto ahead = static_cast<int16_t>(static_cast<uint16_t>(p.epoch - e.epoch));
  if (ahead < 0) {  // an older epoch: on at once, and no reply (ns-3 returns first)
    v.reply = ConWeaveKind::kData;
    v.notify = false;
    return v;
  }
  const bool new_epoch = ahead > 0;
  if (new_epoch) e.epoch = p.epoch;

  if (p.phase == 0) {
    e.phase0_tx = p.tx_ns;
    e.phase0_rx_ns = now_ns;
  }
  bool ooo = false;
  if (new_epoch) {
    if (e.reordering) ++c_.epoch_while_held;
    e.phase = p.kind == ConWeaveKind::kTail ? 1 : 0;
    ooo = p.phase > e.phase;
    e.phase0_cache = p.phase == 0;
  } else {
    if (p.kind == ConWeaveKind::kTail) {
      if (!e.reordering) e.phase = 1;  // else once the queue is flushed
    } else if (e.phase < p.phase) {
      ooo = true;
    }
    if (p.phase == 0) e.phase0_cache = 1;
  }
  if (p.kind == ConWeaveKind::kTail || p.phase == 1) e.tail_tx = p.tail_ns;

  // The TAIL's predicted arrival: the gap the source saw between phase 0
  // and its TAIL, after phase 0's arrival here.
  uint64_t gap = k.voq_default_wait_ns;
  if (e.phase0_cache) {
    const auto d = static_cast<int32_t>(e.tail_tx - e.phase0_tx);
    gap = e.tail_tx != 0 && d > 0 ? static_cast<uint64_t>(d) : 0;
  }
  uint64_t flush_at = 0;
  if (p.phase == 1) {
    if (ooo) flush_at = (e.phase0_cache ? e.phase0_rx_ns : now_ns) + gap + k.voq_flush_extra_ns;
  } else {
    flush_at = p.kind == ConWeaveKind::kTail ? now_ns + 1 : now_ns + gap + k.voq_flush_extra_ns;
  }

  if (p.phase == 0) {
    if (e.reordering) {
      if (p.kind == ConWeaveKind::kTail) e.tail_seen = 1;
      set_deadline(index, std::max(flush_at, now_ns));
      v.deadline_moved = true;
    }
  } else if (ooo) {
    v.hold = true;
    if (!e.reordering) {
      e.out_port = p.out_port;
      set_deadline(index, std::max(flush_at, now_ns));
      v.deadline_moved = true;
    }
  }
  return v;
}

uint32_t ConWeaveDest::find(uint32_t flow) const {
  const uint32_t set = flow & mask_ & ~(kWays - 1);
  for (uint32_t w = set; w < set + kWays; ++w)
    if (table_[w].valid && table_[w].tag == flow) return w;
  return kNil;
}

bool ConWeaveDest::hold(uint32_t flow, void* pkt, uint16_t note) {
  const uint32_t index = find(flow);
  if (free_ == kNil || index == kNil) {
    ++c_.hold_full;
    return false;
  }
  Entry& e = table_[index];
  const uint32_t n = free_;
  free_ = nodes_[n].next;
  nodes_[n] = Node{pkt, kNil, note};
  if (e.last == kNil)
    e.head = n;
  else
    nodes_[e.last].next = n;
  e.last = n;
  ++held_now_;
  ++c_.held;
  return true;
}

uint64_t ConWeaveDest::next_deadline(uint16_t port) const {
  uint64_t t = kNever;
  for (uint32_t i : active_)
    if (table_[i].out_port == port) t = std::min(t, table_[i].deadline_ns);
  return t;
}

uint64_t ConWeaveDest::next_deadline() const {
  uint64_t t = kNever;
  for (uint32_t i : active_) t = std::min(t, table_[i].deadline_ns);
  return t;
}

}  // namespace rocelb
