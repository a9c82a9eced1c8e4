// One shard of a fabric run: the switches and hosts one thread owns, their
// event queue and packet pool, taken a window of virtual time at a time.
//
// A window [start, end) is never longer than the lookahead: the least time
// a frame needs to cross any wire (its delay plus the wire time of an empty
// frame), so nothing one shard does in a window can reach another shard
// before the window ends. A frame for a node of another shard goes into an
// outbox (its bytes copied: packet pools never cross threads) that the
// receiving shard takes at the start of the next window, into the wire's
// lane of its queue. Events of equal time are ordered by fabric_event.h,
// never by when they were pushed, so every node takes its events in the
// same order whatever the number of shards, and the outputs are identical.
//
// What crosses shards besides frames goes through the run (fabric_run.cc)
// at the window's end: finished flows (a phase of all_to_all ends there,
// and the next one starts at the next window at the earliest), the
// earliest next event, errors.
//
// Knobs: the shard's index and count (from the run). Counters: events
// taken, frames sent to other shards.
#pragma once

#include <array>
#include <cstdint>
#include <exception>
#include <memory>
#include <utility>
#include <vector>

#include "dataplane/record/link_tally.h"
#include "dataplane/run/event_queue.h"
#include "dataplane/run/fabric_event.h"
#include "dataplane/run/fabric_nodes.h"
#include "dataplane/run/growing_mbuf_pool.h"

namespace rocelb {

// A frame's last bit reaches the far end of a wire of `bps` this long after
// its first went out: its wire bytes (WireFraming::bytes) × 8 / speed,
// rounded up.
uint64_t wire_ps(uint64_t wire_bytes, uint64_t bps);

// A flow that finished (its sender saw the last ACK) at an event at now_ps.
struct FlowDone {
  uint32_t flow = 0;
  uint64_t now_ps = 0;
};

class FabricShard {
 public:
  FabricShard(FabricWorld& world, uint32_t index, uint32_t shards, GrowingMbufPool& pool,
              uint64_t link_window_ns);

  uint32_t index() const { return index_; }
  rte_mempool* pool() const { return pool_.get(); }

  // The phase-0 flows its hosts send or receive, in start order, and the
  // first of each pushed.
  void start();
  // Before a window: frames other shards sent it in the window before
  // (their outboxes of `parity`), its own outbox of the other parity
  // emptied, the finished flows of the last window forgotten, and the
  // flows of a phase that starts (time, flow) pushed where its hosts send
  // or receive them.
  void begin_window(const std::vector<std::unique_ptr<FabricShard>>& all, unsigned parity,
                    const std::vector<std::pair<uint64_t, uint32_t>>& phase_starts);
  // Takes every event before end_ps; sends to other shards into the outbox
  // of `parity`. An exception is kept (error()), and the shard stops.
  void run_window(uint64_t end_ps, unsigned parity);

  // The earliest event queued, or frame in the outbox of `parity` (kNeverPs).
  uint64_t next_ps(unsigned parity) const;
  const std::vector<FlowDone>& done() const { return done_; }
  std::exception_ptr error() const { return error_; }
  uint64_t events() const { return events_; }
  uint64_t last_ps() const { return last_ps_; }
  uint64_t frames_to_other_shards() const { return sent_out_; }
  const LinkTally& tally() const { return tally_; }

  // At the end: frees what is queued and in the outbox of `parity`;
  // returns the frames that were on wires.
  uint64_t drop_in_flight(unsigned parity);

 private:
  struct WireMsg {
    uint64_t t = 0;
    uint32_t wire = 0;
    uint32_t to = 0;
    uint16_t port = 0;
    bool to_host = false;
    bool has_frame = false;  // else the sender had no buffer: only the length
    uint32_t len = 0;
    uint64_t off = 0;  // in bytes
  };
  struct Outbox {
    std::vector<WireMsg> msgs;
    std::vector<uint8_t> bytes;
    uint64_t min_t = kNeverPs;
    void clear() {
      msgs.clear();
      bytes.clear();
      min_t = kNeverPs;
    }
  };

  void push(uint64_t t, uint64_t order, Ev kind, uint32_t a, uint32_t b) {
    q_.push(t, order, Event{t, kind, false, a, b, 0, nullptr});
  }
  void push_flow(uint64_t t, Ev kind, uint32_t flow, bool timetable);
  void push_next_start();
  void push_next_accept();
  // Mbufs made (frames once in flight) past which run_window prefetches
  // the next event's frame: about 50 MB, more than the last-level cache.
  static constexpr unsigned kPrefetchFromMbufs = 32768;
  void prefetch_frame(const Event& next) const;
  void meter(uint32_t wire, uint64_t now_ps, uint64_t start_ps, uint64_t bytes);
  void send_frame(const Peer& to, uint32_t wire, rte_mbuf* m, uint32_t len, uint64_t start_ps,
                  const uint8_t* bytes);
  void schedule_switch(uint32_t s);
  void schedule_host(uint32_t h, uint64_t now_ps);
  void host_send(uint32_t h, uint64_t now_ps);
  void start_flow(uint32_t f, uint64_t now_ps);
  void accept_flow(uint32_t f, uint64_t now_ps);
  void collect(uint32_t h, uint64_t now_ps);
  // A look's or a wake-up's key popped (its node's WakeKeys, the order it
  // was pushed with): true when the node is due now; a stale key that
  // stands for a later one pushes it.
  bool due(WakeKeys& keys, const Event& e, uint64_t order);
  void on_port(const Event& e);
  void on_to_switch(const Event& e);
  void on_to_host(const Event& e);

  FabricWorld& w_;
  uint32_t index_;
  uint32_t shards_;
  GrowingMbufPool& pool_;
  uint32_t frame_offset_;  // a pool mbuf's first frame byte, from its address
  EventQueue<Event> q_;    // lanes: one per wire
  std::vector<uint8_t> buf_, scratch_;
  std::string comment_;                     // a departure's pcapng annotation
  std::vector<uint32_t> starts_, accepts_;  // phase-0 flows it sends, receives
  size_t next_start_ = 0, next_accept_ = 0;
  std::array<std::vector<Outbox>, 2> out_;  // [parity][shard]
  std::vector<FlowDone> done_;
  LinkTally tally_;  // with more than one shard
  std::exception_ptr error_;
  uint64_t events_ = 0;
  uint64_t last_ps_ = 0;
  uint64_t sent_out_ = 0;
  uint32_t parity_ = 0;  // of the window being run
};

}  // namespace rocelb
