// Replay: pcap files in, pcap files out, in virtual time.
//
// Each input pcap stands for the wire into one port: a frame arrives at its
// pcap timestamp, or when the wire is free if it would overlap the frame
// before it at that port's speed. The switch forwards with no processing
// delay; each egress port sends at its speed, a frame holding the wire for
// (bytes + 20) × 8 / speed. Output pcaps (nanosecond) carry each frame's
// departure time (first bit on the egress wire) on the input clock.
// Events are taken in time order (departures before arrivals at the same
// instant, departures of lower ports first, simultaneous arrivals in the
// order of the inputs), so the same inputs and config give
// byte-identical outputs on any machine. Memory does not grow with the
// inputs: each is read front to back, once, only as far as the next event
// needs (upstream_sender.h bounds what a device holds).
//
// Knobs: the config; mbuf pool size. Counters: all of the Dataplane's, and
// reordering per QP as the receiving NICs would see it (reorder_meter.h).
#pragma once

#include <rte_mempool.h>

#include <array>
#include <cstdint>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "dataplane/forward/dataplane.h"
#include "dataplane/record/counters_json.h"
#include "dataplane/record/reorder_meter.h"
#include "dataplane/record/run_recorder.h"
#include "dataplane/run/growing_mbuf_pool.h"
#include "dataplane/run/link_event.h"

namespace rocelb {

// A user mistake found while replaying (bad pcap, unknown port): exit 2.
class ReplayError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

struct ReplayInput {
  uint16_t port = 0;
  std::string path;  // a file, a pipe or FIFO, or "-" for stdin
};

struct ReplayStats {
  uint64_t first_ns = 0;  // earliest input timestamp
  uint64_t last_ns = 0;   // last departure
  uint64_t events = 0;
  // --max-output reached: the recordings end this long after time zero.
  bool recording_stopped = false;
  uint64_t recording_stopped_ns = 0;
};

// The room a replay sets aside under --max-output for its own outputs: port
// pcaps as large as its regular input files (pipes cannot say; with pcapng,
// half as much again), their headers, counters.json and run.json.
uint64_t replay_own_output_bound(const std::vector<ReplayInput>& inputs, bool pcapng,
                                 const SwitchConfig& cfg);

class ReplayRun {
 public:
  // Needs EAL. `pool_mbufs` bounds the packets the switch can hold at once
  // (the pool takes memory only as it fills).
  ReplayRun(std::unique_ptr<SwitchConfig> config, unsigned pool_mbufs);
  ~ReplayRun();

  // Opens every input once and checks it (readable pcap, Ethernet link type,
  // port in the config, stdin for one input at most) before anything is
  // written; then replays, writing <out_dir>/port<ID>.pcap for every port
  // and <out_dir>/counters.json. Outputs land all together or not at all
  // (output_dir.h): a failed run leaves out_dir as it was, and removes it if
  // the run made it. Inputs may span UpstreamSender::kMaxSpanDays from the
  // earliest first record; a later record is refused, never wrapped. Throws
  // ReplayError, one line naming the input (--in PORT=PATH), the byte offset
  // of a bad record and the rule, on bad input or an output in the way.
  // With `trace`, <out_dir>/trace.jsonl gets one line per load-balancing
  // decision (decision_log.h).
  // With `record`: events.jsonl, timeline.csv and pcapng outputs
  // (run_recorder.h). Every run writes run.json (run_manifest.h).
  ReplayStats run(const std::vector<ReplayInput>& inputs, const std::string& out_dir,
                  bool trace = false, const RecordOptions& record = {});

  // Link faults the next run() applies at their times (sorted by time:
  // link_event.h). Every link starts up.
  void set_link_events(std::vector<LinkEvent> events) { link_events_ = std::move(events); }

  Dataplane& dataplane() { return *dp_; }
  rte_mempool* pool() const { return pool_->get(); }
  Json counters() const;

 private:
  struct Pass;  // one run(): set-up, the loop, the finish (replay_run.cc)

  // Filled a chunk at a time as the run holds more packets (growing_mbuf_pool.h).
  std::unique_ptr<GrowingMbufPool> pool_;
  std::unique_ptr<Dataplane> dp_;
  ReplayStats stats_;
  ReorderMeter reorder_;
  Json upstream_;  // what each upstream sender did: frames held, time paused per priority
  std::vector<LinkEvent> link_events_;
  std::array<uint64_t, kMaxPorts> lost_link_down_{};  // per input port
};

}  // namespace rocelb
