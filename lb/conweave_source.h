// `conweave` at the source ToR: ConWeave (Song et al., SIGCOMM 2023), the
// part that decides a flow's path. Each RoCE data packet of a flow that
// leaves through the group is placed and told how to mark itself:
//
//   epoch   a flow idle longer than tx_expiry, or whose last RTT request
//           was answered in time ("stabilized"), starts a new epoch: its
//           packet is an RTT request (INIT), phase 0, and a reply deadline
//           of base_rtt + reply_timeout_extra is set. An expired flow may
//           move at once (nothing of it is in flight).
//   reroute a packet after the deadline passed unanswered is the old
//           path's TAIL (phase 0, it carries its own send time as the tail
//           time); the flow moves to a good path and every later packet of
//           the epoch is phase 1 (REROUTED): the destination ToR holds
//           them until the TAIL has arrived.
//   paths   two members drawn at random; a member a NOTIFY named (a
//           CE-marked packet of ours crossed it) is avoided for path_pause.
//
// The decision is ConWeave's ns-3 model's (conweave-routing.cc:427-620),
// keyed by the group's flow hash in a table of max_flows entries, sets of
// four (a new flow takes an empty entry of its set, else the one idle
// longest, which starts over as a new connection if it comes back). Replies and notifies come back
// as frames the destination ToR sends (dataplane/wire/conweave_shim.h) and are handed to on_reply /
// on_notify.
//
// Knobs: conweave.tx_expiry, reply_timeout_extra, base_rtt, path_pause;
// max_flows. Counters (LbEngineCounters): conweave_epochs, conweave_tails,
// conweave_reroutes, conweave_replies_timely, conweave_clears,
// conweave_notifies, conweave_stale_replies.
#pragma once

#include <cstdint>
#include <vector>

#include "common/conweave_kind.h"
#include "lb/lb_decision.h"
#include "lb/lb_knobs.h"
#include "lb/lb_shared.h"
#include "lb/path_state.h"

namespace rocelb {

class ConWeaveSource {
 public:
  ConWeaveSource(uint32_t max_flows, const ConWeaveKnobs& k, uint32_t members);

  // The member for one data packet of the flow `hash` at now_ns; `mark`
  // gets what the packet carries. kNoMember when every member is down.
  uint32_t select(uint32_t hash, uint64_t now_ns, LbShared& s, ConWeaveMark& mark,
                  LbDecision* trace);
  // An RTT reply (kReplyInit) or a clear (kReplyTail) for the flow `hash`.
  void on_reply(uint32_t hash, ConWeaveKind kind, uint16_t epoch, uint8_t phase, uint64_t now_ns,
                LbEngineCounters& c);
  // A NOTIFY: member `path` carried a CE-marked packet.
  void on_notify(uint32_t path, uint64_t now_ns, LbEngineCounters& c);

  void reset();

  // Inspection (tests).
  struct Entry {
    uint64_t active_ns = 0;
    uint64_t reply_deadline_ns = 0;
    uint64_t tail_ns = 0;
    uint32_t tag = 0;
    uint16_t epoch = 0;
    uint16_t path = 0;
    uint8_t phase = 0;
    uint8_t stabilized = 0;
    uint8_t valid = 0;
  };
  static_assert(sizeof(Entry) == kConWeaveSourceEntryBytes, "lb_knobs.h counts 40 bytes");
  const Entry* find(uint32_t hash) const {
    return const_cast<ConWeaveSource*>(this)->find_mut(hash);
  }
  uint64_t avoided_until(uint32_t member) const { return invalid_until_[member]; }

 private:
  static constexpr uint64_t kNever = UINT64_MAX;
  static constexpr uint32_t kWays = 4;
  Entry* find_mut(uint32_t hash);
  Entry& slot(uint32_t hash);
  // A member that is up and not avoided now; `found` false when neither
  // draw is good (the first draw is returned then, unused).
  uint32_t good_path(LbShared& s, uint64_t now_ns, bool& found);

  std::vector<Entry> table_;
  uint32_t mask_;
  ConWeaveKnobs k_;
  std::vector<uint64_t> invalid_until_;  // per member
};

}  // namespace rocelb
