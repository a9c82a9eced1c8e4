// The TX side of one port, driven only by its transmitting lcore (the TX
// owner, Dataplane::set_tx_owner): eight egress queues, the scheduler
// (strict, then DWRR), the shaper, the transmit-load meter, received-pause
// state and its inbox, dequeue-side WRED/ECN, a PFC frame to send ahead of
// all data, and the PFC watchdog.
//
// Every loop of the owner: poll() applies pause frames other workers
// forwarded through the inbox (an MPSC ring) and asks the PFC generator
// whether a PFC frame is due; dequeue() then takes what the scheduler and
// shaper allow now; next_tx_ps() says when to look again (virtual time).
// drain() is the one loop that empties a queue without sending it: a link
// that went down (link_down), a PFC storm under action drop
// (pfc_watchdog_drop), a stopped switch (flushed).
//
// Its state is public for the readers: Dataplane::snapshot(), the views and
// the exporters read the counters and gauges; only the owner writes, except
// the inbox (any worker) and storm_drop, load_bps (read by RX workers).
//
// Knobs (from the config, in configure()): the port's speed and shaper
// burst, strict classes and DWRR quanta, load meter interval and weight,
// dequeue-side WRED profiles, watchdog parameters.
// Counters: tx_packets/bytes, pfc_frames_sent, wred_dequeue_drops,
// watchdog_drops, tx_failed, link_down_drops; gauge awaiting_device.
#pragma once

#include <rte_mempool.h>
#include <rte_ring.h>

#include <array>
#include <atomic>
#include <cstdint>

#include "common/constants.h"
#include "common/counter.h"
#include "common/port_set.h"
#include "dataplane/forward/counters.h"
#include "dataplane/forward/egress_queue.h"
#include "dataplane/forward/packet_observer.h"
#include "dataplane/forward/port_scheduler.h"
#include "dataplane/forward/shaper.h"
#include "dataplane/forward/switch_config.h"
#include "lb/load_meter.h"
#include "pfc/pause_receiver.h"
#include "pfc/pfc_generator.h"
#include "pfc/pfc_watchdog.h"
#include "pfc/wred.h"

namespace rocelb {

// A PFC or 802.3x PAUSE frame received on a port, on its way to the port's
// TX owner (the one writer of its pause state).
struct PauseEvent {
  uint64_t now_ns = 0;
  std::array<uint16_t, kPfcPriorities> quanta{};  // PAUSE: quanta[0]
  uint8_t class_enable = 0;                       // PFC: priorities the frame sets
  uint8_t is_pause = 0;                           // 1: 802.3x PAUSE (every priority)
  uint8_t pad[6] = {};
};
static_assert(sizeof(PauseEvent) == 32);

class PortTx {
 public:
  // `pfc` is the switch's generator: dequeues release the bytes their
  // frames held on the ingress port, and PFC frames come from it.
  PortTx(uint16_t port, PfcGenerator& pfc) : port_(port), pfc_(&pfc) {}
  PortTx(const PortTx&) = delete;
  PortTx& operator=(const PortTx&) = delete;

  uint16_t port() const { return port_; }

  // The owner, when it adopts a config: scheduler, shaper, load meter,
  // dequeue-side WRED (retiring the old markers' counts) and watchdog knobs.
  void configure(const SwitchConfig& cfg, uint64_t shaper_burst_ps);

  // Where dropped frames are told (null: nowhere) and where PFC frames are
  // allocated (null: none sent); the Dataplane passes on its own.
  void set_observer(PacketObserver* obs) { obs_ = obs; }
  void set_control_pool(rte_mempool* pool) { control_pool_ = pool; }

  // A received PFC or PAUSE frame, applied by the owner.
  void apply_pause(const SwitchConfig& cfg, const PauseEvent& ev);

  // Before dequeue(): applies what the inbox holds (when other workers may
  // have written it) and asks the PFC generator whether a PFC frame must
  // go out now (dequeue() then sends it before any data). True when one
  // became due.
  bool poll(const SwitchConfig& cfg, bool read_inbox, uint64_t now_ns);

  // Up to `max` frames that may start by `now_ps`, in the scheduler's
  // order, charging the shaper; start_ps[i] gets each frame's first-bit
  // time. A port whose link is down sends nothing and drains its queues.
  // The caller owns the mbufs and counts what it really transmits
  // (count_tx / count_tx_burst).
  uint16_t dequeue(const SwitchConfig& cfg, bool link_up, uint64_t now_ps, rte_mbuf** out,
                   uint64_t* start_ps, uint16_t max);

  // When to look at the port again after dequeue() at now_ps: the wire is
  // free, a received pause ends, a PFC frame or the watchdog is due
  // (UINT64_MAX: nothing to do).
  uint64_t next_tx_ps(const SwitchConfig& cfg, bool link_up, uint64_t now_ps) const;

  // Empties class c's queue without sending: each frame's PFC held bytes
  // are released on its ingress port, the observer (when `obs`) is told
  // the drop with `reason`, and the mbuf freed. Returns how many; the
  // caller counts them.
  uint64_t drain(uint8_t c, PacketObserver* obs, DropReason reason, uint64_t now_ns);

  // Every queue drained (nobody told) and the inbox emptied, when the
  // switch stops; returns how many frames (the caller counts them flushed).
  uint64_t flush();

  // Counting order. A frame leaves one place before it is counted in the
  // next (queue depth, then awaiting_device, then tx or a TX-side drop), and
  // a release fence sits between the two; Dataplane::snapshot() reads in the
  // opposite order, so a read under traffic never counts a frame twice.
  void set_awaiting(uint16_t n) {
    std::atomic_thread_fence(std::memory_order_release);
    awaiting_device = n;
  }
  void count_tx_failed() {
    std::atomic_thread_fence(std::memory_order_release);
    ++tx_failed;
  }
  // The run driver calls these once frames are really on the wire (or in the pcap).
  void count_tx(uint32_t bytes) {
    std::atomic_thread_fence(std::memory_order_release);
    ++tx_packets;
    tx_bytes += bytes;
    load.on_tx(shaper.wire_bytes(bytes));  // wire bytes: a full link reads as its speed
  }
  void count_tx_burst(uint32_t packets, uint64_t bytes) {
    std::atomic_thread_fence(std::memory_order_release);
    tx_packets += packets;
    tx_bytes += bytes;
    load.on_tx(bytes + uint64_t{packets} * kWireOverheadBytes);  // Ethernet: live ports only
  }
  // Closes a load sampling interval if one has passed (the owner calls it).
  void sample_load(uint64_t now_ns) {
    if (load.sample(now_ns)) load_bps.store(load.load_bps(), std::memory_order_relaxed);
  }
  uint64_t depth_bytes() const {
    uint64_t d = 0;
    for (const auto& q : queues) d += q.depth_bytes();
    return d;
  }
  bool empty() const { return nonempty.load(std::memory_order_relaxed) == 0; }

  std::array<EgressQueue, kNumTrafficClasses> queues;
  std::array<EgressQueue*, kNumTrafficClasses> queue_ptrs{};
  // Bit c set while queues[c] holds packets (EgressQueue::attach_mask).
  std::atomic<uint8_t> nonempty{0};
  PortScheduler scheduler;
  Shaper shaper;
  LoadMeter load{16'000, 16384};
  std::atomic<uint64_t> load_bps{0};  // the meter's EWMA, published for other lcores
  PauseReceiver pause;              // PFC received on this port: which of its classes may not send
  rte_ring* pause_inbox = nullptr;  // PauseEvents from workers that are not the owner
  std::array<WredMarker, kNumTrafficClasses> wred_dequeue{};  // qos.ecn_mark: dequeue
  std::array<WredCounters, kNumTrafficClasses> wred_dequeue_retired{};
  uint8_t blocked = 0;       // classes paused by received PFC (as of the last dequeue)
  bool pfc_pending = false;  // a PFC frame to send ahead of all data
  PfcFrameRequest pfc_request;
  // PFC watchdog of each lossless class (the TX owner polls it).
  std::array<PfcWatchdog, kNumTrafficClasses> watchdog;
  uint64_t watchdog_next_ns = 0;
  std::atomic<uint8_t> storm_drop{0};  // classes whose arrivals are dropped (action drop)
  uint8_t storm_counted = 0;           // priorities this port counts in PfcGenerator storms
  // Ingress ports whose PFC held bytes this port's dequeues released since
  // the switch clock last looked (it re-polls only those ports' PFC state).
  PortSet released_ports;
  alignas(64) Counter tx_packets;
  Counter tx_bytes;
  Counter pfc_frames_sent;
  Counter wred_dequeue_drops;
  Counter watchdog_drops;
  Counter tx_failed;        // frames the device refused for tx_stall_ns (live), or held at stop
  Counter link_down_drops;  // queued when the link went down (flushed by the owner)
  // Gauge: frames dequeued and handed to the device that it has not taken
  // yet (live: the TX owner's pending list; 0 in replay).
  Counter awaiting_device;

 private:
  bool send_pfc_frame(const SwitchConfig& cfg, uint64_t now_ps, rte_mbuf** out, uint64_t* start_ps);
  void flush_link_down(uint64_t now_ns);
  void watchdog_poll(const SwitchConfig& cfg, uint64_t now_ns);

  uint16_t port_;
  PfcGenerator* pfc_;
  // Classes whose watchdog is in a storm (only watchdog_poll polls them):
  // next_tx_ps reads this, not the eight watchdogs.
  uint8_t storms_ = 0;
  PacketObserver* obs_ = nullptr;
  rte_mempool* control_pool_ = nullptr;
};

}  // namespace rocelb
