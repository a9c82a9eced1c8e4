// summary.json of a fabric run: what ran (topology, workload, seed,
// command), what it cost (simulated and wall time, events per wall second,
// peak memory, memory per switch, per host and the packet pool's), FCT slowdown by flow size
// (fabric_report.h), and the totals of every switch (drops by reason, ECN marks, PFC frames and
// paused time) and every NIC (CNPs, retransmissions, out-of-order arrivals, timeouts). Switch
// figures are summed from each switch's counters.json document, so the two can never disagree.
// Everything but the `cost` object is the same on every rerun with the same inputs and seed.
#pragma once

#include <nlohmann/json.hpp>

#include <cstdint>
#include <string>
#include <vector>

#include "dataplane/sim/fabric_report.h"
#include "dataplane/sim/roce_nic.h"

namespace rocelb {

// What the run's parts take in memory (summary.json cost.memory), each
// with how it was counted.
struct MemoryFacts {
  // Per switch: its route, group and neighbor tables, egress rings and pause
  // inboxes as allocated (sized by dataplane/run/fabric_memory.h, which
  // mirrors the allocations); in topology order.
  std::vector<std::pair<std::string, uint64_t>> switch_bytes;
  // The one packet pool: buffers made by the end of the run (it grows with
  // the packets in flight), its most, and the bytes one takes.
  uint64_t pool_mbufs = 0, pool_max_mbufs = 0, pool_mbuf_bytes = 0;
  // Per host: its NIC model's state at the end of the run (RoceNic::state_bytes).
  std::vector<uint64_t> host_bytes;
};

struct RunFacts {
  std::string topology, workload, command_line;
  uint64_t seed = 0;
  uint64_t sim_ns = 0;
  double wall_s = 0;
  uint64_t events = 0;
  uint64_t peak_rss_kb = 0;
  uint64_t frames_on_wires_at_end = 0;
  MemoryFacts memory;
  // How the run was split (fabric_shard.h): threads, windows of virtual
  // time, the lookahead that bounds them, frames that crossed threads.
  uint32_t threads = 1;
  uint64_t windows = 0;
  uint64_t lookahead_ps = 0;
  uint64_t frames_between_threads = 0;
  std::string ideal_fct = "rocelb";  // the slowdowns' ideal: rocelb, or ns3
};

// cost.memory of summary.json (fabric_summary below).
nlohmann::ordered_json memory_cost(const MemoryFacts& m);

// Sums of the switches' counters.json documents (rocelb.counters.v1).
nlohmann::ordered_json switch_totals(const std::vector<nlohmann::ordered_json>& counters);

// Sums of every NIC's counters (kNicCounters), paused time per priority in us.
nlohmann::ordered_json nic_totals(const std::vector<const NicCounters*>& nics);

nlohmann::ordered_json fabric_summary(const RunFacts& facts, const std::vector<FlowRecord>& flows,
                                      const std::vector<nlohmann::ordered_json>& counters,
                                      const std::vector<const NicCounters*>& nics);

}  // namespace rocelb
