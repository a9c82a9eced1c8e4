#include "lb/conweave_source.h"

#include <algorithm>

namespace rocelb {

ConWeaveSource::ConWeaveSource(uint32_t max_flows, const ConWeaveKnobs& k, uint32_t members)
    : table_(max_flows), mask_(max_flows - 1), k_(k), invalid_until_(members, 0) {}

void ConWeaveSource::reset() {
  std::fill(table_.begin(), table_.end(), Entry{});
  std::fill(invalid_until_.begin(), invalid_until_.end(), 0);
}

uint32_t ConWeaveSource::good_path(LbShared& s, uint64_t now_ns, bool& found) {
  const uint32_t a = s.random_up();
  const uint32_t b = s.random_up();
  found = true;
  if (invalid_until_[a] <= now_ns) return a;
  if (invalid_until_[b] <= now_ns) return b;
  found = false;
  return a;
}

uint32_t ConWeaveSource::select(uint32_t hash, uint64_t now_ns, LbShared& s, ConWeaveMark& mark,
                                LbDecision* trace) {
  if (s.up.count() == 0) return kNoMember;
  LbEngineCounters& c = s.counters;
  Entry& e = slot(hash);
  const bool fresh = !e.valid || e.tag != hash;
  if (fresh) {
    e = Entry{};
    e.valid = 1;
    e.tag = hash;
    e.stabilized = 1;
    e.path = UINT16_MAX;
  }
  bool expired = false, stabilized = false, timeout = false;
  if (fresh || e.active_ns + k_.tx_expiry_ns < now_ns) {
    expired = true;
    e.stabilized = 0;
  } else if (e.stabilized) {
    stabilized = true;
    e.stabilized = 0;
  }
  e.active_ns = now_ns;
  if (expired || stabilized) {
    e.reply_deadline_ns = now_ns + k_.base_rtt_ns + k_.reply_timeout_extra_ns;
  } else if (e.reply_deadline_ns < now_ns) {
    e.reply_deadline_ns = kNever;
    timeout = true;
  }
  if (expired || stabilized) {
    ++e.epoch;
    e.phase = 0;
    mark.phase = 0;
  } else if (timeout) {
    e.phase = 1;
    mark.phase = 0;  // the TAIL still belongs to the old path
  } else {
    mark.phase = e.phase;
  }
  mark.epoch = e.epoch;

  bool found = false;
  const uint32_t good = good_path(s, now_ns, found);
  if (e.path == UINT16_MAX) e.path = static_cast<uint16_t>(good);
  uint32_t cur = e.path;
  if (expired) {
    if (found) {
      if (!fresh && good != e.path) ++c.conweave_reroutes;
      e.path = static_cast<uint16_t>(good);
    }
    cur = e.path;
  } else if (timeout && found) {
    if (good != e.path) ++c.conweave_reroutes;
    e.path = static_cast<uint16_t>(good);  // from the next packet on
  }
  if (!s.up.is_up(cur)) {  // its member went down: move now, order is lost anyway
    cur = good;
    e.path = static_cast<uint16_t>(good);
  }

  if (expired || stabilized)
    e.tail_ns = 0;
  else if (timeout)
    e.tail_ns = now_ns;
  mark.tx_ns = static_cast<uint32_t>(now_ns);
  // 0 means "no tail yet": a tail time whose low bits are 0 is sent as 1.
  mark.tail_ns = e.tail_ns ? std::max<uint32_t>(1, static_cast<uint32_t>(e.tail_ns)) : 0;
  if (expired || stabilized) {
    mark.kind = ConWeaveKind::kInit;
    ++c.conweave_epochs;
  } else if (timeout) {
    mark.kind = ConWeaveKind::kTail;
    ++c.conweave_tails;
  } else {
    mark.kind = ConWeaveKind::kData;
  }
  if (trace) {
    trace->new_flowlet = expired || stabilized;
    trace->flowlet_age_ns = 0;
  }
  return cur;
}

ConWeaveSource::Entry* ConWeaveSource::find_mut(uint32_t hash) {
  Entry* set = &table_[hash & mask_ & ~(kWays - 1)];
  for (uint32_t w = 0; w < kWays; ++w)
    if (set[w].valid && set[w].tag == hash) return &set[w];
  return nullptr;
}

// The flow's entry in its set of kWays, or the one it takes over: an
// empty one, else the one idle longest.
ConWeaveSource::Entry& ConWeaveSource::slot(uint32_t hash) {
  if (Entry* e = find_mut(hash)) return *e;
  Entry* set = &table_[hash & mask_ & ~(kWays - 1)];
  Entry* victim = &set[0];
  for (uint32_t w = 0; w < kWays; ++w) {
    if (!set[w].valid) return set[w];
    if (set[w].active_ns < victim->active_ns) victim = &set[w];
  }
  return *victim;
}

void ConWeaveSource::on_reply(uint32_t hash, ConWeaveKind kind, uint16_t epoch, uint8_t phase,
                              uint64_t now_ns, LbEngineCounters& c) {
  Entry* found = find_mut(hash);
  if (!found || found->epoch != epoch || found->phase != phase) {
    ++c.conweave_stale_replies;
    return;
  }
  Entry& e = *found;
  if (kind == ConWeaveKind::kReplyInit) {
    if (now_ns < e.reply_deadline_ns && e.reply_deadline_ns != kNever) {
      e.stabilized = 1;
      e.reply_deadline_ns = kNever;
      ++c.conweave_replies_timely;
    } else {
      ++c.conweave_stale_replies;  // late: the deadline already passed
    }
  } else if (kind == ConWeaveKind::kReplyTail) {
    e.stabilized = 1;
    e.reply_deadline_ns = kNever;
    ++c.conweave_clears;
  }
}

void ConWeaveSource::on_notify(uint32_t path, uint64_t now_ns, LbEngineCounters& c) {
  ++c.conweave_notifies;
  if (path < invalid_until_.size()) invalid_until_[path] = now_ns + k_.path_pause_ns;
}

}  // namespace rocelb
