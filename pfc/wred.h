// WRED / ECN marking of one egress queue (port, traffic class), as SONiC's
// WRED_PROFILE with the green thresholds: on the queue depth the caller
// passes (instantaneous, in bytes), with a seeded random generator.
//
//   q <  min                 pass
//   min <= q < max           hit with probability pct/100 × (q − min) / (max − min)
//   q >= max                 hit always
// A hit on an ECT(0), ECT(1) or CE packet marks it CE (ecn_all; the caller
// rewrites the ECN bits and fixes the IPv4 checksum). A hit on a Not-ECT
// packet, or on any packet with ecn_none, drops it on a lossy class and
// leaves it alone on a lossless one (lossless classes never drop).
// A disabled profile passes everything and counts nothing.
//
// Knobs (WredProfile): enabled, min_bytes (green_min_threshold), max_bytes
//   (green_max_threshold), probability_pct (green_drop_probability), ecn
//   (ecn_all / ecn_none); the seed (seed_for: config seed, port, class, lcore).
// Counters (kWredCounters), per queue:
//   wred_ecn_marked_packets / _bytes  packets WRED marked CE
//                                     (SAI_QUEUE_STAT_WRED_ECN_MARKED_PACKETS / _BYTES)
//   wred_dropped_packets / _bytes     packets WRED dropped
//                                     (SAI_QUEUE_STAT_WRED_DROPPED_PACKETS / _BYTES)
//
// Threads: one writer. One WredMarker per (lcore, port, class), each with
// its own seed; its counters (common/counter.h) are read by other threads
// and summed (WredCounters::add).
// decide() draws a random number only between the thresholds, so a given
// seed and sequence of depths gives the same verdicts. No allocation, lock or
// exception.
#pragma once

#include <cstdint>
#include <string_view>
#include "common/constants.h"
#include "common/counter.h"

#include "pfc/pfc_params.h"

namespace rocelb {

#define ROCELB_WRED_COUNTERS(X)                                                                 \
  X(wred_ecn_marked_packets, "packets WRED marked CE (SAI_QUEUE_STAT_WRED_ECN_MARKED_PACKETS)") \
  X(wred_ecn_marked_bytes,                                                                      \
    "bytes of packets WRED marked CE (SAI_QUEUE_STAT_WRED_ECN_MARKED_BYTES)")                   \
  X(wred_dropped_packets, "packets WRED dropped (SAI_QUEUE_STAT_WRED_DROPPED_PACKETS)")         \
  X(wred_dropped_bytes, "bytes of packets WRED dropped (SAI_QUEUE_STAT_WRED_DROPPED_BYTES)")

struct WredCounters {
#define ROCELB_X(name, help) Counter name;
  ROCELB_WRED_COUNTERS(ROCELB_X)
#undef ROCELB_X
  void add(const WredCounters& o) {
#define ROCELB_X(name, help) name += o.name;
    ROCELB_WRED_COUNTERS(ROCELB_X)
#undef ROCELB_X
  }
  bool operator==(const WredCounters&) const = default;
};

struct WredCounterInfo {
  std::string_view name;
  std::string_view help;
  Counter WredCounters::*field;
};

inline constexpr WredCounterInfo kWredCounters[] = {
#define ROCELB_X(name, help) {#name, help, &WredCounters::name},
    ROCELB_WRED_COUNTERS(ROCELB_X)
#undef ROCELB_X
};

enum class WredVerdict : uint8_t {
  kPass,  // enqueue unchanged
  kMark,  // set ECN to CE, then enqueue
  kDrop,  // drop (count it as a WRED drop of this queue)
};

class WredMarker {
 public:
  WredMarker() = default;  // disabled
  WredMarker(const WredProfile& profile, uint64_t seed);

  // The seed of one marker: the config seed mixed with its port, class and lcore.
  static uint64_t seed_for(uint64_t config_seed, uint16_t port, uint8_t tc, uint32_t lcore);

  // queue_bytes: the queue's depth as the marker sees it (at enqueue, before
  // this packet; at dequeue, without it). ecn: the packet's two ECN bits.
  WredVerdict decide(uint64_t queue_bytes, uint32_t pkt_bytes, uint8_t ecn, bool lossless);

  // The probability of a hit at that depth, in [0, 1] (tests, tools).
  double hit_probability(uint64_t queue_bytes) const;

  const WredProfile& profile() const { return profile_; }
  const WredCounters& counters() const { return counters_; }

 private:
  uint64_t next_random();  // splitmix64

  WredProfile profile_;
  uint64_t state_ = 0;
  WredCounters counters_;
};

}  // namespace rocelb
