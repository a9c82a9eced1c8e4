// What a run in virtual time records besides its outputs, when asked:
// events.jsonl (`--events`, filtered by `--events-filter`), timeline.csv
// (`--timeline INTERVAL`) and the annotations of `--pcapng` outputs. One
// SwitchRecorder per switch (replay: one; fabric: every switch), one file of
// each kind for the whole run, and run.json describing the run for
// rocelb-analyze (run_manifest.h).
//
// The run driver calls advance(now) before each event at `now` (the timeline
// rows of every interval that ended by then are written, so a row at T
// holds every event before T), and finish(end) once: the last, possibly
// shorter, interval and the files closed.
//
// Bounds: a timeline interval is at least kMinTimelineNs (finer is rows of
// nothing; events.jsonl has every packet), and with an OutputBudget
// (--max-output, output_budget.h) every event line and every row group
// asks it for room first: once it says no, recording stops (the timeline
// at its last whole interval, events.jsonl at its last line, no shorter
// last interval) and the run goes on.
//
// Knobs: RecordOptions. Counters: event lines and timeline rows written.
#pragma once

#include <cstdint>
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "dataplane/record/output_budget.h"
#include "dataplane/record/switch_recorder.h"
#include "dataplane/record/timeline_sampler.h"

namespace rocelb {

// The finest --timeline interval (1 us).
inline constexpr uint64_t kMinTimelineNs = 1000;

struct RecordOptions {
  uint64_t timeline_ns = 0;  // 0: no timeline
  bool events = false;
  EventFilter filter;
  bool pcapng = false;  // outputs as pcapng with per-packet annotations
  // --max-output: what the run may write, all files together (output_budget.h).
  uint64_t max_output = kDefaultMaxOutputBytes;
  bool any() const { return timeline_ns || events || pcapng; }
};

class RunRecorder {
 public:
  // Paths are the staged output files (empty when that output is off).
  // Throws std::runtime_error naming a file it cannot create. `budget`
  // (may be null: no bound) outlives the recorder.
  RunRecorder(const RecordOptions& opt, const std::string& events_path,
              const std::string& timeline_path, uint64_t base_ns, OutputBudget* budget = nullptr);
  ~RunRecorder();
  RunRecorder(const RunRecorder&) = delete;
  RunRecorder& operator=(const RunRecorder&) = delete;

  SwitchRecorder& add(std::string name, Dataplane& dp);
  // A fabric host's NIC, for the timeline's nic.* rows (no-op without one).
  void add_host(std::string name, const NicCounters& counters) {
    if (sampler_) sampler_->add_host(std::move(name), counters);
  }

  void advance(uint64_t now_ns) {
    if (sampler_ && now_ns >= next_ns_ && !timeline_stopped_) advance_to(now_ns);
  }
  // The last interval (ending at end_ns) and the files flushed and closed;
  // throws std::runtime_error if anything could not be written.
  void finish(uint64_t end_ns);

  uint64_t event_lines() const;
  uint64_t timeline_rows() const { return sampler_ ? sampler_->rows() : 0; }

 private:
  void advance_to(uint64_t now_ns);
  bool sample(uint64_t t_ns, uint64_t interval_ns);
  // A stream with `buf` (1 MiB, made here) as its buffer.
  static std::FILE* open(const std::string& path, std::unique_ptr<char[]>& buf);
  static void close(std::FILE*& f, const std::string& path);

  RecordOptions opt_;
  uint64_t base_ns_;
  std::string events_path_, timeline_path_;
  std::unique_ptr<char[]> events_buf_, timeline_buf_;  // outlive the streams
  std::FILE* events_ = nullptr;
  std::FILE* timeline_ = nullptr;
  std::unique_ptr<TimelineSampler> sampler_;
  OutputBudget* budget_ = nullptr;
  std::vector<std::unique_ptr<SwitchRecorder>> switches_;
  uint64_t next_ns_ = 0;  // end of the current timeline interval
  uint64_t last_ns_ = 0;  // end of the last interval written
  bool finished_ = false;
  bool timeline_stopped_ = false;  // the budget had no room for a row group
};

}  // namespace rocelb
