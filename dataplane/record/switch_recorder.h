// What one switch did to each packet, as a run in virtual time goes
// (replay, fabric): the PacketObserver the run driver installs on a Dataplane
// when the run asks for `--events`, `--timeline` or `--pcapng`.
//
//   events   one JSON line per packet event into events.jsonl: arrive,
//            enqueue (depth after), mark, drop (reason), dequeue (sojourn),
//            pfc_tx / pfc_rx, and lb (the load-balancing decision, in the
//            --trace format with "ev":"lb"), kept or not by an EventFilter
//   counts   per interval of the timeline: each queue's peak depth, ECN
//            marks and drops per (port, class), drops per port, PFC frames
//            sent and received per (port, priority) (timeline_sampler.h
//            reads and resets them)
//   notes    each packet's PacketNote (ingress, queue depth, enqueue time,
//            the member and why), turned into a one-line annotation when it
//            leaves: "in port 0 → out port 6 class 3, queue 48.0 KB, sojourn
//            3.8 us, flowlet new, member 2 of 4 by band 0<3" (control/human_units.h)
//
// The run driver tells arrivals and departures (arrive(), depart()); the
// pipeline tells the rest through the PacketObserver hooks. Times passed in
// are the run's (from 0); lines carry base_ns + time, the clock of the
// output pcaps. Each line asks the run's OutputBudget for room first; once
// it says no, no more lines are written. Knobs: the filter; events on or
// off. Counters: events written (lines()).
#pragma once

#include <rte_mbuf.h>

#include <array>
#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

#include "dataplane/forward/dataplane.h"
#include "dataplane/forward/packet_observer.h"
#include "dataplane/record/event_filter.h"
#include "dataplane/record/output_budget.h"
#include "dataplane/wire/parsed_packet.h"

namespace rocelb {

// Indexed by port id (Dataplane::port_slots of them).
struct IntervalCounts {
  using PerClass = std::array<uint64_t, kNumTrafficClasses>;
  explicit IntervalCounts(size_t slots)
      : peak_bytes(slots),
        marks(slots),
        class_drops(slots),
        port_drops(slots),
        pfc_tx(slots),
        pfc_rx(slots) {}
  std::vector<PerClass> peak_bytes;
  std::vector<PerClass> marks;
  std::vector<PerClass> class_drops;
  std::vector<uint64_t> port_drops;
  std::vector<PerClass> pfc_tx;  // per priority (kPfcPriorities == kNumTrafficClasses)
  std::vector<PerClass> pfc_rx;
};

class SwitchRecorder final : public PacketObserver {
 public:
  // `events` null: no event lines (counts and notes still kept).
  SwitchRecorder(std::string name, Dataplane& dp, uint64_t base_ns, std::FILE* events,
                 EventFilter filter);
  ~SwitchRecorder() override;
  SwitchRecorder(const SwitchRecorder&) = delete;
  SwitchRecorder& operator=(const SwitchRecorder&) = delete;

  // A frame's first bit reaches `port` at now_ns (m null: no buffer for it).
  void arrive(uint16_t port, rte_mbuf* m, uint32_t len, uint64_t now_ns);
  // `m` starts on `port`'s wire at start_ns. With `comment`, it gets the
  // frame's annotation. The note is cleared: the mbuf may come back as
  // something else.
  void depart(uint16_t port, rte_mbuf* m, uint64_t start_ns, std::string* comment);

  void on_balance(rte_mbuf* m, const GroupConfig& g, const LbDecision& d, uint16_t port,
                  uint64_t now_ns) override;
  void on_enqueue(rte_mbuf* m, uint16_t in_port, uint16_t port, uint8_t tc, uint64_t depth_bytes,
                  uint64_t depth_packets, uint64_t now_ns) override;
  void on_mark(rte_mbuf* m, uint16_t port, uint8_t tc, MarkWhere where, uint64_t now_ns) override;
  void on_drop(const rte_mbuf* m, uint16_t port, uint8_t tc, DropReason r,
               uint64_t now_ns) override;

  // --max-output: each event line asks it for room first (output_budget.h).
  void set_budget(OutputBudget* budget) { budget_ = budget; }
  // An upper bound of one event line's bytes.
  static constexpr uint64_t kMaxLineBytes = 4096;

  const std::string& name() const { return name_; }
  Dataplane& dataplane() { return dp_; }
  IntervalCounts& counts() { return counts_; }
  uint64_t lines() const { return lines_; }

 private:
  // Parses m into parsed_ (false: not parseable, parsed_ unusable).
  bool parse(const rte_mbuf* m);
  // The line's start up to the event's own fields, if the filter keeps it.
  bool begin(const char* ev, uint64_t now_ns, uint16_t port, int in_port, int tc, bool parsed);
  void packet_fields(bool parsed, uint32_t len);
  void end();

  std::string name_;
  Dataplane& dp_;
  uint64_t base_ns_;
  std::FILE* f_;
  EventFilter filter_;
  IntervalCounts counts_;
  ParsedPacket parsed_;
  std::vector<uint8_t> scratch_;
  uint64_t lines_ = 0;
  OutputBudget* budget_ = nullptr;
  long line_start_ = 0;  // where the line being written began in f_
};

// The annotation of a frame leaving `port` at start_ns (the note's times on
// the same clock); `p` null when it did not parse.
std::string annotate_departure(const PacketNote* note, uint16_t port, uint64_t start_ns,
                               const ParsedPacket* p);

}  // namespace rocelb
