// `--max-output SIZE`: the most a run in virtual time (replay, fabric) may
// write into its output folder, all files together (default 4 GiB).
//
// Two kinds of output share it:
//   the run's own   replay's port<ID>.pcap(ng), counters and run.json;
//                   fabric's flows.csv, summary.json, counters, run.json.
//                   Never cut short: their room is set aside before the
//                   run (reserve()), and a replay whose port pcaps would
//                   pass the cap fails (own() returns false) with nothing
//                   written.
//   recordings      timeline.csv, events.jsonl, trace.jsonl, --capture
//                   files, links.csv. Each writer asks room() before a
//                   piece (a line, a row group, a frame, a window) and
//                   counts what it wrote with add(); the first piece that
//                   would pass the cap stops recording for good, at that
//                   virtual time: every recording ends at its last whole
//                   piece, the run goes on to its end, and says where
//                   recording stopped (run.json "recording_stopped").
//
// Knobs: the cap. Counters: bytes used (own and recordings), where
// recording stopped.
#pragma once

#include <cstdint>

namespace rocelb {

inline constexpr uint64_t kDefaultMaxOutputBytes = uint64_t{4} << 30;  // 4 GiB

class OutputBudget {
 public:
  explicit OutputBudget(uint64_t cap = kDefaultMaxOutputBytes) : cap_(cap) {}

  uint64_t cap() const { return cap_; }
  // Room set aside for the run's own outputs (written at its end, or
  // streamed through own(), which uses it first); false when even that does
  // not fit.
  bool reserve(uint64_t bytes) {
    if (bytes > cap_ - used()) return false;
    reserved_ += bytes;
    return true;
  }
  // A recording's next piece of at most `bytes`: whether it fits. The first
  // that does not stops recording, at now_ns, for good.
  bool room(uint64_t bytes, uint64_t now_ns) {
    if (stopped_) return false;
    if (bytes <= cap_ - used()) return true;
    stop(now_ns);
    return false;
  }
  // What a recording wrote (after room() said yes).
  void add(uint64_t bytes) { recorded_ += bytes; }
  // The same from a stream's positions (ftell) before and after the piece.
  void add_span(long from, long to) {
    if (to > from) recorded_ += static_cast<uint64_t>(to - from);
  }
  // room() and add() in one, for a piece whose size is known.
  bool take(uint64_t bytes, uint64_t now_ns) {
    if (!room(bytes, now_ns)) return false;
    add(bytes);
    return true;
  }
  // The run's own streamed output (replay's port pcaps): counted, in the
  // reserve first; false when the outputs now pass the cap (the run must
  // fail).
  bool own(uint64_t bytes) {
    own_ += bytes;
    return (own_ > reserved_ ? own_ : reserved_) + recorded_ <= cap_;
  }
  void stop(uint64_t now_ns) {
    if (stopped_) return;
    stopped_ = true;
    stopped_ns_ = now_ns;
  }

  bool stopped() const { return stopped_; }
  uint64_t stopped_ns() const { return stopped_ns_; }
  uint64_t recorded() const { return recorded_; }
  uint64_t own_bytes() const { return own_; }
  uint64_t used() const {
    const uint64_t u = (own_ > reserved_ ? own_ : reserved_) + recorded_;
    return u > cap_ ? cap_ : u;
  }

 private:
  uint64_t cap_;
  uint64_t reserved_ = 0;
  uint64_t recorded_ = 0;
  uint64_t own_ = 0;
  bool stopped_ = false;
  uint64_t stopped_ns_ = 0;
};

}  // namespace rocelb
