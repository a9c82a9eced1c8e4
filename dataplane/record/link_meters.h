// links.csv of a fabric run: the bytes each sender (a switch port or a
// host's NIC) put on its wire, per window of virtual time.
//
//   from,to,window_start_ns,tx_bytes,utilization
//
// one row per link direction and window, link by link, windows in time
// order; utilization = wire bits sent in the window / (speed × window); a
// frame counts in the window where its first bit went out. A window in
// which no link of the fabric carried anything has no rows (a flow that
// starts at 100 s does not make 100 s of empty windows); a window in which
// any did, and the window the run ended in, have a row for every link.
//
// Memory and output are bounded: only windows with traffic are kept, per
// link only those it carried bytes in; each window the fabric first uses
// takes its rows' room from the run's OutputBudget (--max-output). When
// recording stops (the budget said no, here or elsewhere), metering stops,
// and the file ends with the last window that ended by then.
//
// Each link's bytes of the window it last carried bytes in wait in a flat
// array of 16 bytes a link (open_) and go into its list when it carries
// bytes in another window, or at write(): a frame's count touches one
// line, not the link's entry and the end of its list (two misses a frame
// once a fabric's links outgrow the cache: 17 % of the loop at 8,192
// hosts).
//
// Knobs: the window. Counters: windows used.
#pragma once

#include <cstdint>
#include <cstdio>
#include <string>
#include <utility>
#include <vector>

#include "dataplane/record/output_budget.h"

namespace rocelb {

// Adds `bytes` to window w of a link's (window, bytes) list, kept by window.
void add_to_window(std::vector<std::pair<uint64_t, uint64_t>>& list, uint64_t w, uint64_t bytes);

class LinkMeters {
 public:
  // A link direction; returns its index.
  uint32_t add_link(std::string from, std::string to, uint64_t speed_bps);
  // A run: nothing metered yet, windows of window_ns (>= 1); `budget` may be
  // null (no bound) and outlives the run.
  void start(uint64_t window_ns, OutputBudget* budget);
  // `wire_bytes` (frame + 20) whose first bit went out at start_ps on link i.
  void add(uint32_t i, uint64_t start_ps, uint64_t wire_bytes);

  // The rows (without the header), appended to `f`: every window with
  // traffic and the one the run ended in (at end_ns), or after a stop, the
  // windows that had ended by then. Returns false on a write error (errno
  // set).
  bool write(std::FILE* f, uint64_t end_ns);
  static const char* header() { return "from,to,window_start_ns,tx_bytes,utilization\n"; }

  size_t windows() const { return windows_.size(); }
  uint64_t window_ns() const { return window_ns_; }

  // Makes window w one the file has, its rows' room taken from the budget
  // at now_ns; false when the budget has no room (recording stops).
  bool use_window(uint64_t w, uint64_t now_ns);
  // Adds wire bytes to link i in window w, which use_window took: what a
  // link_tally.h of a fabric shard counted (no budget asked).
  void add_window(uint32_t i, uint64_t w, uint64_t wire_bytes);

 private:
  struct Link {
    std::string from, to;
    uint64_t speed_bps = 0;
    std::vector<std::pair<uint64_t, uint64_t>> bytes;  // (window, wire bytes), by window
  };
  uint64_t window_ns_ = 100'000;
  OutputBudget* budget_ = nullptr;
  // A link's bytes in the window it last carried bytes in (kNone: none).
  struct Open {
    static constexpr uint64_t kNone = UINT64_MAX;
    uint64_t w = kNone;
    uint64_t bytes = 0;
  };
  void close_open();  // every link's open window into its list

  std::vector<Link> links_;
  std::vector<Open> open_;         // by link
  std::vector<uint64_t> windows_;  // windows with traffic, ascending
  uint64_t row_bytes_ = 0;         // the most one window's rows take
};

}  // namespace rocelb
