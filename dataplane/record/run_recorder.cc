#include "dataplane/record/run_recorder.h"

#include <cerrno>
#include <cstring>
#include <stdexcept>

#include "dataplane/record/run_interrupt.h"
#include "dataplane/record/write_file.h"

namespace rocelb {

std::FILE* RunRecorder::open(const std::string& path, std::unique_ptr<char[]>& buf) {
  std::FILE* f = std::fopen(path.c_str(), "w");
  if (!f) throw std::runtime_error("cannot create " + path + ": " + std::strerror(errno));
  // glibc keeps a 4 KiB buffer when setvbuf is given a size and no buffer.
  constexpr size_t kBuffer = 1 << 20;
  buf = std::make_unique<char[]>(kBuffer);
  std::setvbuf(f, buf.get(), _IOFBF, kBuffer);
  return f;
}

void RunRecorder::close(std::FILE*& f, const std::string& path) {
  if (!f) return;
  // A write that failed earlier left the error flag; flushing what is left
  // fails again, with the reason (ENOSPC) in errno.
  errno = 0;
  int err = 0;
  if (std::fflush(f) != 0 || std::ferror(f)) err = errno ? errno : -1;
  if (std::fclose(f) != 0 && !err) err = errno ? errno : -1;
  f = nullptr;
  if (err) throw std::runtime_error(write_error(path, err));
}

RunRecorder::RunRecorder(const RecordOptions& opt, const std::string& events_path,
                         const std::string& timeline_path, uint64_t base_ns, OutputBudget* budget)
    : opt_(opt),
      base_ns_(base_ns),
      events_path_(events_path),
      timeline_path_(timeline_path),
      budget_(budget) {
  if (opt_.events) events_ = open(events_path_, events_buf_);
  if (opt_.timeline_ns) {
    timeline_ = open(timeline_path_, timeline_buf_);
    sampler_ = std::make_unique<TimelineSampler>(timeline_, base_ns_);
    next_ns_ = opt_.timeline_ns;
  }
}

RunRecorder::~RunRecorder() {
  switches_.clear();  // detached from their Dataplanes first
  if (events_) std::fclose(events_);
  if (timeline_) std::fclose(timeline_);
}

SwitchRecorder& RunRecorder::add(std::string name, Dataplane& dp) {
  switches_.push_back(
      std::make_unique<SwitchRecorder>(std::move(name), dp, base_ns_, events_, opt_.filter));
  switches_.back()->set_budget(budget_);
  if (sampler_) sampler_->add(*switches_.back());
  return *switches_.back();
}

// One row group ending at t_ns, if the budget has room for it; false (and
// no more timeline) when it has not.
bool RunRecorder::sample(uint64_t t_ns, uint64_t interval_ns) {
  if (budget_ && !budget_->room(sampler_->max_sample_bytes(), t_ns)) {
    timeline_stopped_ = true;
    return false;
  }
  const long before = budget_ ? std::ftell(timeline_) : 0;
  sampler_->sample(t_ns, interval_ns);
  if (budget_) budget_->add_span(before, std::ftell(timeline_));
  return true;
}

void RunRecorder::advance_to(uint64_t now_ns) {
  while (next_ns_ <= now_ns && !timeline_stopped_) {
    check_run_interrupt();  // a long idle stretch is many intervals in one call
    if (!sample(next_ns_, opt_.timeline_ns)) return;
    last_ns_ = next_ns_;
    next_ns_ += opt_.timeline_ns;
  }
}

void RunRecorder::finish(uint64_t end_ns) {
  if (finished_) return;
  finished_ = true;
  if (sampler_ && !timeline_stopped_) {
    advance(end_ns);
    // The rest of the run, up to its end, as one shorter interval.
    if (!timeline_stopped_ && (end_ns > last_ns_ || sampler_->rows() == 0))
      sample(end_ns, end_ns - last_ns_);
  }
  close(events_, events_path_);
  close(timeline_, timeline_path_);
}

uint64_t RunRecorder::event_lines() const {
  uint64_t n = 0;
  for (const auto& s : switches_) n += s->lines();
  return n;
}

}  // namespace rocelb
