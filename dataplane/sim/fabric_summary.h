// summary.json of a fabric run: what ran (topology, workload, seed,
// command), what it cost (simulated and wall time, events per wall second,
// peak memory), FCT slowdown by flow size (fabric_report.h), and the totals
// of every switch (drops by reason, ECN marks, PFC frames and paused time)
// and every NIC (CNPs, retransmissions, out-of-order arrivals, timeouts).
// Switch figures are summed from each switch's counters.json document, so
// the two can never disagree. Everything but the `cost` object is the same
// on every rerun with the same inputs and seed.
#pragma once

#include <nlohmann/json.hpp>

#include <cstdint>
#include <string>
#include <vector>

#include "dataplane/sim/fabric_report.h"
#include "dataplane/sim/roce_nic.h"

namespace rocelb {

struct RunFacts {
  std::string topology, workload, command_line;
  uint64_t seed = 0;
  uint64_t sim_ns = 0;
  double wall_s = 0;
  uint64_t events = 0;
  uint64_t peak_rss_kb = 0;
  uint64_t frames_on_wires_at_end = 0;
};

// Sums of the switches' counters.json documents (rocelb.counters.v1).
nlohmann::ordered_json switch_totals(const std::vector<nlohmann::ordered_json>& counters);

// Sums of every NIC's counters (kNicCounters), paused time per priority in us.
nlohmann::ordered_json nic_totals(const std::vector<const NicCounters*>& nics);

nlohmann::ordered_json fabric_summary(const RunFacts& facts, const std::vector<FlowRecord>& flows,
                                      const std::vector<nlohmann::ordered_json>& counters,
                                      const std::vector<const NicCounters*>& nics);

}  // namespace rocelb
