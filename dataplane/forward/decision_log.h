// `rocelb-dp replay --trace FILE`: one JSON line per load-balancing decision
// — when, which flow, which group and mode, the member and port chosen, and
// why: the bands or queue depths compared, whether the packet started a
// flowlet and how long its flow had been idle. Written by the replay thread
// only (no lock); absent (null) in live mode, where it costs one branch.
//
// Line format (keys in this order):
//   {"t_ns":…,"group":"uplinks","mode":"flowlet_quality",
//    "flow":{"src":"10.0.0.2","dst":"10.2.0.2","proto":17,"sport":49152,"dport":4791,"qp":256},
//    "hash":"0x1234abcd","member":2,"port":6,"bucket":…,"new_flowlet":true,
//    "flowlet_age_ns":…,"collision":false,"compared":"bands",
//    "candidates":[{"member":0,"value":3},…]}
// "bucket" only for bucket modes; "compared"/"candidates" only when the
// engine compared something.
#pragma once

#include <cstdint>
#include <cstdio>
#include <string>
#include <string_view>

#include "common/flow_key.h"
#include "lb/lb_decision.h"
#include "lb/lb_mode.h"

namespace rocelb {

// One decision as a JSON line (the format above) on `f`; `head` (e.g.
// "\"ev\":\"lb\",") goes right after t_ns. events.jsonl uses it too.
void write_decision_json(std::FILE* f, uint64_t t_ns, std::string_view head,
                         const std::string& group, LbMode mode, const FlowKey& key, uint32_t hash,
                         const LbDecision& d, uint16_t port);

class DecisionLog {
 public:
  // Throws std::runtime_error naming the file if it cannot be created.
  explicit DecisionLog(const std::string& path);
  ~DecisionLog();
  DecisionLog(const DecisionLog&) = delete;
  DecisionLog& operator=(const DecisionLog&) = delete;

  // Added to every t_ns (replay passes the pcap clock's time zero).
  void set_time_base(uint64_t base_ns) { base_ns_ = base_ns; }

  void write(uint64_t now_ns, const std::string& group, LbMode mode, const FlowKey& key,
             uint32_t hash, const LbDecision& d, uint16_t port);
  // Flushes and closes; throws if anything could not be written.
  void close();
  uint64_t lines() const { return lines_; }

  // Scratch for the load-balancing stage while it traces one group's share
  // of a burst: one decision and one flow key per packet.
  static constexpr uint32_t kScratch = 32;
  LbDecision* decisions() { return decisions_; }
  FlowKey* keys() { return keys_; }

 private:
  std::string path_;
  std::FILE* f_ = nullptr;
  uint64_t base_ns_ = 0;
  uint64_t lines_ = 0;
  LbDecision decisions_[kScratch];
  FlowKey keys_[kScratch];
};

}  // namespace rocelb
