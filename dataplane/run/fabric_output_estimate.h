// What a fabric run will write, estimated from the topology, the workload
// and the options before anything starts, and the refusal when that is more
// than --max-output (output_budget.h): exit 2, the estimate, and the option
// that asks the most.
//
// The run lasts at least until its last first-phase flow could finish on an
// idle fabric (its start plus its ideal FCT), or --until if earlier; the
// estimate counts that time only, so what it refuses would certainly pass
// the cap (a longer run is bounded by the cap while it runs):
//   timeline.csv  every interval, every group member; from the first flow's
//                 start, every connected port with two classes and its
//                 lossless priorities, and every NIC: rows of about 31
//                 bytes (measured: 31 on the 2x2 fabric at 10 us), 48 for
//                 members;
//   events.jsonl  (without --events-filter) per data packet and its ACK,
//                 on each switch of the path: arrive, enqueue and dequeue,
//                 and the load-balancing decision at the first leaf; lines
//                 of about 220 bytes (measured: 217);
//   links.csv     every link direction in the windows the flows would
//                 fill alone (windows in which the fabric is idle are left
//                 out of the file);
//   captures      a host's: the packets of the flows it sends, and ACKs.
//
// Knobs: none (the run's). Counters: none.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "dataplane/record/run_recorder.h"
#include "dataplane/sim/topology.h"
#include "dataplane/sim/workload.h"

namespace rocelb {

struct OutputPart {
  std::string file;    // "timeline.csv"
  std::string option;  // the option that sizes it: "--timeline 1us"
  std::string detail;  // "1,820 rows every 1us"
  uint64_t bytes = 0;
};

struct FabricOutputEstimate {
  uint64_t span_ns = 0;  // the virtual time the run surely covers
  std::vector<OutputPart> parts;
  uint64_t total = 0;
};

struct FabricOutputPlan {
  uint64_t until_ns = 0;  // 0: none
  uint64_t link_window_ns = 100'000;
  std::string link_window_text = "100us";  // as the user wrote it
  std::string timeline_text;               // as the user wrote it
  RecordOptions record;
  std::vector<std::string> host_captures;  // host names captured
};

FabricOutputEstimate estimate_fabric_output(const Topology& topo, const Workload& wl,
                                            const FabricOutputPlan& plan);

// "--timeline 1us: the run would write about 8.12 GB (timeline.csv about 8.09 GB:
// 1,820 rows every 1us over at least 1.31 ms of virtual time; ...), more than
// --max-output 4.00 GB: ..." or nullopt when it fits.
std::optional<std::string> fabric_output_refusal(const FabricOutputEstimate& e, uint64_t cap);

}  // namespace rocelb
