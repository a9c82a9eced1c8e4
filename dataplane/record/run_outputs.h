// One path for what a run in virtual time writes (replay, fabric): the
// --max-output budget with the run's own outputs set aside first
// (output_budget.h), the output folder staged and moved into place all or
// nothing (output_dir.h), the recorder when a recording is asked for
// (run_recorder.h: events.jsonl, timeline.csv, pcapng annotations), and
// run.json (run_manifest.h) saying where recording stopped, if it did.
//
// A run driver goes through it in this order: reserve() its own outputs,
// open() the folder, stage what else it writes and check() the names,
// start_recorder(); the run; finish_recorder(), write() its own files,
// commit() with its manifest. Destroyed without a commit (an error, an
// interrupt), it leaves the output folder as it was.
//
// Errors are one line each, raised through the driver's own error type
// (`fail` throws ReplayError or FabricError: exit 2). Knobs: RecordOptions
// (max_output, events, timeline_ns, pcapng). Counters: the budget's.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "dataplane/record/output_budget.h"
#include "dataplane/record/output_dir.h"
#include "dataplane/record/run_manifest.h"
#include "dataplane/record/run_recorder.h"

namespace rocelb {

class RunOutputs {
 public:
  // Throws the driver's error with `what`; must not return.
  using Fail = void (*)(const std::string& what);

  RunOutputs(const RecordOptions& record, Fail fail);
  RunOutputs(const RunOutputs&) = delete;
  RunOutputs& operator=(const RunOutputs&) = delete;

  const RecordOptions& record() const { return record_; }
  OutputBudget& budget() { return budget_; }

  // Sets aside `own_bytes` for the run's own outputs; when --max-output is
  // less, fails with refusal().
  void reserve(uint64_t own_bytes, const std::function<std::string()>& refusal);

  // Makes the output folder (and its private staging folder).
  void open(const std::string& dir);
  OutputDir& dir() { return *dir_; }
  std::string staged(const std::string& name) const { return dir_->staged(name); }
  // A destination in the way is found now, not after the run.
  void check(const std::vector<std::string>& names);

  // With a recording asked for: the recorder, its files staged, its clock
  // starting at base_ns; null otherwise. Kept until the run's end.
  RunRecorder* start_recorder(uint64_t base_ns);
  RunRecorder* recorder() { return recorder_ ? &*recorder_ : nullptr; }
  // The last interval (ending end_ns after base_ns) and the files closed.
  void finish_recorder(uint64_t end_ns);

  // One of the run's own files, written whole into the staging folder.
  void write(const std::string& name, const std::string& text);

  // --max-output reached: recordings end this long after time zero.
  bool recording_stopped() const { return budget_.stopped(); }
  uint64_t recording_stopped_ns() const { return budget_.stopped_ns(); }

  // run.json from `manifest` (its timeline interval, the outputs `names`
  // and, when recording stopped, where), then everything moved into place
  // at once; a SIGINT or SIGTERM before that leaves nothing (run_interrupt.h).
  void commit(RunManifest manifest, const std::vector<std::string>& names);

 private:
  [[noreturn]] void raise(const std::string& what) const;

  RecordOptions record_;
  Fail fail_;
  OutputBudget budget_;
  std::optional<OutputDir> dir_;
  std::optional<RunRecorder> recorder_;  // goes before the folder it writes in
};

}  // namespace rocelb
