#include "dataplane/record/run_outputs.h"

#include <cstdlib>
#include <stdexcept>

#include "dataplane/record/run_interrupt.h"
#include "dataplane/record/write_file.h"

namespace rocelb {

RunOutputs::RunOutputs(const RecordOptions& record, Fail fail)
    : record_(record), fail_(fail), budget_(record.max_output) {}

void RunOutputs::raise(const std::string& what) const {
  fail_(what);
  std::abort();  // fail_ throws
}

void RunOutputs::reserve(uint64_t own_bytes, const std::function<std::string()>& refusal) {
  if (!budget_.reserve(own_bytes)) raise(refusal());
}

void RunOutputs::open(const std::string& dir) {
  try {
    dir_.emplace(dir);
  } catch (const OutputDirError& e) {
    raise(e.what());
  }
}

void RunOutputs::check(const std::vector<std::string>& names) {
  try {
    dir_->check(names);
  } catch (const OutputDirError& e) {
    raise(e.what());
  }
}

RunRecorder* RunOutputs::start_recorder(uint64_t base_ns) {
  if (!record_.any()) return nullptr;
  try {
    recorder_.emplace(record_, staged("events.jsonl"), staged("timeline.csv"), base_ns, &budget_);
  } catch (const std::runtime_error& e) {
    raise(e.what());
  }
  return &*recorder_;
}

void RunOutputs::finish_recorder(uint64_t end_ns) {
  if (!recorder_) return;
  try {
    recorder_->finish(end_ns);
  } catch (const std::runtime_error& e) {
    raise(e.what());
  }
}

void RunOutputs::write(const std::string& name, const std::string& text) {
  try {
    write_whole_file(staged(name), text);
  } catch (const std::runtime_error& e) {  // the path and the reason (ENOSPC...)
    raise(e.what());
  }
}

void RunOutputs::commit(RunManifest manifest, const std::vector<std::string>& names) {
  manifest.interval_ns = record_.timeline_ns;
  manifest.outputs = names;
  if (budget_.stopped())  // --max-output: where the recordings end
    manifest.extra["recording_stopped"] = {{"t_ns", manifest.t0_ns + budget_.stopped_ns()},
                                           {"max_output_bytes", budget_.cap()}};
  write("run.json", run_manifest_json(manifest).dump(2) + "\n");
  check_run_interrupt();  // the last moment: once moving, the outputs land
  try {
    dir_->commit(names);
  } catch (const OutputDirError& e) {
    raise(e.what());
  }
}

}  // namespace rocelb
