// links.csv's bytes as one shard of a fabric run counts them (fabric_shard.h):
// the bytes each wire it sends on carried per window, and when each window
// was first used, with no output budget asked while threads run. After the
// run, merge_link_tallies() gives them to the run's LinkMeters in the order
// one thread would have: windows by their first use (the event's time, then
// the window), each taking its rows' room from the budget, so links.csv and
// where --max-output stops it are the same for any number of shards.
// Knobs: the window (LinkMeters'). Counters: none.
#pragma once

#include <cstdint>
#include <utility>
#include <vector>

#include "dataplane/record/link_meters.h"

namespace rocelb {

class LinkTally {
 public:
  // `wires` link directions (LinkMeters' indices), windows of window_ns.
  void start(uint32_t wires, uint64_t window_ns);
  // `wire_bytes` (frame + 20) whose first bit went out at start_ps on wire
  // i, sent by an event at now_ps.
  void add(uint32_t i, uint64_t now_ps, uint64_t start_ps, uint64_t wire_bytes);

 private:
  friend void merge_link_tallies(const std::vector<const LinkTally*>& tallies, LinkMeters& into);
  struct FirstUse {
    uint64_t window, now_ps, start_ps;
  };
  uint64_t window_ns_ = 100'000;
  std::vector<std::vector<std::pair<uint64_t, uint64_t>>> bytes_;  // per wire: (window, bytes)
  std::vector<FirstUse> first_;  // per window this shard used, by window
};

// Every tally's windows into `into` (started, with its budget), in first-use
// order, then their bytes; windows after the budget said no are left out.
void merge_link_tallies(const std::vector<const LinkTally*>& tallies, LinkMeters& into);

}  // namespace rocelb
