// A closed-loop fabric experiment in virtual time: every switch of a
// Topology is a real rocelb Dataplane driven by its own SwitchClock (the same
// pipeline, queues, PFC, ECN and load balancing as `replay`), every host's
// NIC port a RoceNic (one per host, or one per plane: a flow runs on one
// plane, flow_plane.h), every link a wire with a speed and a propagation
// delay, all in one event loop. The Workload's flows start on the hosts' NICs; the NICs'
// congestion control (DCQCN) and loss recovery react to what the switches
// do, and each flow's completion time is what the run measures.
//
// Time: picoseconds from 0. A frame that starts on a wire at t reaches the
// far end (its last bit, store and forward) at
//   t + (bytes + 20) × 8 / speed + delay,
// where a switch runs it through its pipeline at once and a NIC takes it.
// Events of equal time at a node are taken in the order fabric_event.h
// gives them (arrivals by wire, then flows, then looks), so a run is
// deterministic: the same topology, workload, overrides and seed give
// byte-identical outputs, with any number of threads (fabric_shard.h: the
// run goes in windows of virtual time no longer than the fastest wire's
// delay).
//
// The run ends when every flow has finished, at the end of the window it
// finished in, or at `until_ns` (default: one virtual second after the
// last flow starts): unfinished flows are reported, frames still on wires
// and in queues are counted (`flushed` on the switch that held them). A
// phase of all_to_all starts when the one before it finished, or at the
// end of that window if later.
//
// Knobs: the seed (mixed into every switch's hash_seed and the flows' UDP
// source ports; the workload was drawn with it too); FabricRunOptions:
// until_ns, captures ("leaf0:4" = what that
// switch port sends, "h3" = what that host's NIC sends; "h3.1" = what its
// port on plane 1 sends), the links.csv
// window; RecordOptions (events, timeline, pcapng captures). Outputs: see
// fabric_report.h, and run.json (run_manifest.h). Counters: every switch's, every
// NIC's, events processed.
#pragma once

#include <rte_mempool.h>

#include <cstdint>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "dataplane/record/output_budget.h"
#include "dataplane/record/run_recorder.h"
#include "dataplane/sim/nic_params.h"
#include "dataplane/sim/topology.h"
#include "dataplane/sim/workload.h"

namespace rocelb {

// A user mistake found when setting up or writing a fabric run: exit 2.
class FabricError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// The finest links.csv window (1 us).
inline constexpr uint64_t kMinLinkWindowNs = 1000;

struct FabricRunOptions {
  std::string out_dir;
  uint64_t until_ns = 0;  // 0: until every flow finished, at most 1 s after the last start
  std::vector<std::string> captures;
  uint64_t link_window_ns = 100'000;  // at least kMinLinkWindowNs
  std::string command_line;           // recorded in summary.json
  // Threads for the run (fabric_shard.h, fabric_partition.h): the outputs
  // are the same bytes for any number; at most one per switch is used.
  // With more than one, no captures, events or timeline (refused).
  uint32_t threads = 1;
  // Also out_fct.txt, ConWeave's and HPCC's FCT file (fabric_report.h).
  bool fct_txt = false;
  // The slowdown's ideal FCT: rocelb's (ideal_fct.h), or ConWeave's ns-3
  // standalone_fct (--ideal ns3), in flows.csv, out_fct.txt and summary.json.
  bool ns3_ideal = false;
  // events.jsonl, timeline.csv, pcapng captures, and --max-output for all
  // (run_recorder.h)
  RecordOptions record;
};

struct FabricResult {
  uint64_t sim_ns = 0;
  uint64_t events = 0;
  double wall_s = 0;
  uint64_t flows = 0;
  uint64_t flows_finished = 0;
  uint32_t threads = 1;   // used
  bool conserved = true;  // every switch's counters balance
  // --max-output reached: the recordings end at this virtual time.
  bool recording_stopped = false;
  uint64_t recording_stopped_ns = 0;
};

// What a --capture names: a host's NIC (HOST, its plane-0 port; HOST.PLANE
// another plane's), or a switch port a link or host is connected to.
// Checked from the topology alone (before EAL starts); throws FabricError
// naming the option.
struct CaptureTarget {
  bool host = false;
  uint32_t index = 0;  // NIC port (Topology::port()), or switch
  uint16_t port = 0;   // switch port
};
CaptureTarget capture_target(const Topology& topo, const std::string& spec);

// Why a run with these options would be refused before it starts: a
// window or interval under its floor, or outputs estimated beyond
// --max-output (fabric_output_estimate.h); nullopt when it may run. No
// EAL needed: rocelb-dp asks before starting DPDK, run() again.
std::optional<std::string> fabric_output_problem(const Topology& topo, const Workload& wl,
                                                 const FabricRunOptions& opt);

class FabricRun {
 public:
  // Needs EAL. Builds every switch (its config's hash_seed mixed with the
  // run's seed and the switch's index) and NIC. `pool_mbufs`: the most
  // packet buffers each pool may make (0: fabric_pool_mbufs' default; a
  // pool that runs dry drops no_buffer). Throws FabricError.
  FabricRun(Topology topo, NicParams nic, Workload workload, uint64_t seed,
            uint32_t pool_mbufs = 0);
  ~FabricRun();

  FabricResult run(const FabricRunOptions& opt);

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace rocelb
