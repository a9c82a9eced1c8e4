#include "dataplane/record/link_meters.h"

#include <algorithm>
#include <cerrno>

namespace rocelb {
namespace {

// A row's numbers at their longest: window start and bytes (20 digits
// each), utilization ("%.4f" of up to 1e6), commas and newline.
constexpr uint64_t kRowNumberBytes = 20 + 20 + 12 + 5;

}  // namespace

uint32_t LinkMeters::add_link(std::string from, std::string to, uint64_t speed_bps) {
  row_bytes_ += from.size() + to.size() + kRowNumberBytes;
  links_.push_back(Link{std::move(from), std::move(to), speed_bps, {}});
  open_.emplace_back();
  return static_cast<uint32_t>(links_.size() - 1);
}

void LinkMeters::start(uint64_t window_ns, OutputBudget* budget) {
  window_ns_ = window_ns;
  budget_ = budget;
  windows_.clear();
  for (Link& l : links_) l.bytes.clear();
  std::fill(open_.begin(), open_.end(), Open{});
}

bool LinkMeters::use_window(uint64_t w, uint64_t now_ns) {
  // Windows come nearly in order: a new one is almost always the last.
  if (!windows_.empty() && windows_.back() == w) return true;
  const auto it = std::lower_bound(windows_.begin(), windows_.end(), w);
  if (it != windows_.end() && *it == w) return true;
  if (budget_ && !budget_->take(row_bytes_, now_ns)) return false;
  windows_.insert(it, w);
  return true;
}

void LinkMeters::add(uint32_t i, uint64_t start_ps, uint64_t wire_bytes) {
  if (budget_ && budget_->stopped()) return;
  const uint64_t w = start_ps / 1000 / window_ns_;
  if (!use_window(w, start_ps / 1000)) return;
  add_window(i, w, wire_bytes);
}

void add_to_window(std::vector<std::pair<uint64_t, uint64_t>>& b, uint64_t w, uint64_t bytes) {
  if (b.empty() || b.back().first < w) {
    b.emplace_back(w, bytes);
    return;
  }
  if (b.back().first == w) {
    b.back().second += bytes;
    return;
  }
  const auto it = std::lower_bound(b.begin(), b.end(), std::make_pair(w, uint64_t{0}));
  if (it != b.end() && it->first == w)
    it->second += bytes;
  else
    b.insert(it, {w, bytes});
}

void LinkMeters::add_window(uint32_t i, uint64_t w, uint64_t wire_bytes) {
  Open& o = open_[i];
  if (o.w != w) {
    if (o.w != Open::kNone) add_to_window(links_[i].bytes, o.w, o.bytes);
    o = Open{w, 0};
  }
  o.bytes += wire_bytes;
}

void LinkMeters::close_open() {
  for (size_t i = 0; i < links_.size(); ++i) {
    Open& o = open_[i];
    if (o.w != Open::kNone) add_to_window(links_[i].bytes, o.w, o.bytes);
    o = Open{};
  }
}

bool LinkMeters::write(std::FILE* f, uint64_t end_ns) {
  close_open();
  // The run's last window, as every run's file has had it.
  if (!budget_ || !budget_->stopped()) use_window(end_ns / window_ns_, end_ns);
  // After a stop, only the windows that had ended: they are whole.
  size_t n = windows_.size();
  if (budget_ && budget_->stopped())
    while (n > 0 && (windows_[n - 1] + 1) * window_ns_ > budget_->stopped_ns()) --n;
  char buf[512];
  for (const Link& l : links_) {
    size_t k = 0;  // l.bytes walked along the windows
    for (size_t i = 0; i < n; ++i) {
      const uint64_t w = windows_[i];
      while (k < l.bytes.size() && l.bytes[k].first < w) ++k;
      const uint64_t b = k < l.bytes.size() && l.bytes[k].first == w ? l.bytes[k].second : 0;
      const double util =
          l.speed_bps ? static_cast<double>(b) * 8.0 * 1e9 /
                            (static_cast<double>(l.speed_bps) * static_cast<double>(window_ns_))
                      : 0.0;
      const int len = std::snprintf(buf, sizeof buf, "%s,%s,%llu,%llu,%.4f\n", l.from.c_str(),
                                    l.to.c_str(), static_cast<unsigned long long>(w * window_ns_),
                                    static_cast<unsigned long long>(b), util);
      if (len < 0 || std::fwrite(buf, 1, static_cast<size_t>(len), f) != static_cast<size_t>(len))
        return false;
    }
  }
  return true;
}

}  // namespace rocelb
