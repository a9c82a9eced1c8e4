// In replay, the device upstream of one switch port: it sends the frames of
// its pcap no earlier than their timestamps, never faster than the port's
// speed (a frame holds the wire for (bytes + 20) × 8 / speed), and it honours
// the PFC frames the switch sends it: a frame's pause takes effect once the
// frame has crossed the wire and the device's response delay has passed,
// and holds back only the paused priorities — the others keep flowing, in
// timestamp order. A frame's priority is its traffic class under the
// switch's own DSCP/PCP map.
//
// Memory is bounded whatever the pcap: the device reads ahead only frames
// due by its next send (they could go first), and holds at most
// kMaxQueuedFrames frames and kMaxQueuedBytes bytes read and not yet sent —
// a backlog stamped faster than the wire carries it, or frames of a paused
// priority. At the bound it reads on only as frames leave. Without pauses
// and with timestamps in order that changes nothing (a frame further on
// never goes first); frames of another priority behind a paused backlog
// that large wait with it. Times are picoseconds from the run's time zero
// in 64 bits: a frame stamped more than kMaxSpanNs after it is refused
// (TimeSpanError), never wrapped.
//
// Knobs: port speed; qos.pfc.response_delay and cable_length (the pause's
// travel time). Counters: held_frames (frames that waited for a pause),
// frames_queued and bytes_queued (read, not yet sent).
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <memory>
#include <stdexcept>
#include <vector>

#include "dataplane/forward/shaper.h"
#include "dataplane/forward/switch_config.h"
#include "dataplane/wire/pcap_file.h"
#include "pfc/pause_receiver.h"

namespace rocelb {

// A record stamped more than UpstreamSender::kMaxSpanNs after the run's time
// zero: its time in picoseconds would not fit the replay's clock.
class TimeSpanError : public std::runtime_error {
 public:
  TimeSpanError(uint64_t offset, uint64_t ts_ns)
      : std::runtime_error("record beyond the replay's time span"), offset(offset), ts_ns(ts_ns) {}
  uint64_t offset;  // of the record in its pcap
  uint64_t ts_ns;
};

class UpstreamSender {
 public:
  static constexpr uint64_t kNever = UINT64_MAX;
  // 100 days in picoseconds is 8.64e18, under 2^64 (213 days) with room for
  // the queues to drain after the last arrival.
  static constexpr uint64_t kMaxSpanDays = 100;
  static constexpr uint64_t kMaxSpanNs = kMaxSpanDays * 86'400 * 1'000'000'000ull;
  static constexpr size_t kMaxQueuedFrames = 16384;
  static constexpr size_t kMaxQueuedBytes = size_t{16} << 20;

  struct Frame {
    uint64_t ts_ps = 0;  // pcap time, relative to the run's time zero
    uint64_t seq = 0;    // pcap order, for ties
    std::vector<uint8_t> bytes;
  };

  // t0_ns: the run's time zero (pcap clock). pause_delay_ps: from a PFC
  // frame's last bit at the switch to the pause taking effect here. Reading
  // throws PcapError for a broken file, TimeSpanError for a record too late.
  UpstreamSender(uint16_t port, std::unique_ptr<PcapReader> reader, const SwitchConfig& cfg,
                 uint64_t t0_ns, uint64_t pause_delay_ps);

  uint16_t port() const { return port_; }
  // First bit of the next frame this device can send, or kNever (nothing
  // left, or everything left is paused: see next_wakeup_ps()).
  uint64_t next_send_ps();
  // When a running pause ends, or kNever.
  uint64_t next_wakeup_ps() const;
  // Sends the frame next_send_ps() announced; valid until the next call.
  const Frame& send();
  // The switch transmitted a PFC frame toward this device; its first bit
  // left at start_ps and the frame is `bytes` long.
  void receive_pfc(uint64_t start_ps, uint32_t bytes, uint8_t class_enable,
                   const uint16_t quanta[kPfcPriorities]);
  bool done();
  uint64_t held_frames() const { return held_; }
  size_t frames_queued() const { return queued_frames_; }
  size_t bytes_queued() const { return queued_bytes_; }
  const PauseReceiver& pause() const { return pause_; }

 private:
  struct PendingPfc {
    uint64_t effect_ps;
    uint8_t class_enable;
    std::array<uint16_t, kPfcPriorities> quanta;
  };
  // Reads the next pcap record into peek_; throws PcapError on a broken file.
  void read_peek();
  // Whether peek_ fits in the bound on frames read and not yet sent.
  bool room_for_peek() const;
  // The priority that sends next and when (-1: nothing left).
  int pick(uint64_t& when);
  bool paused_at(int prio, uint64_t t_ps) const;

  uint16_t port_;
  std::unique_ptr<PcapReader> reader_;
  const SwitchConfig& cfg_;
  uint64_t t0_ns_;
  uint64_t pause_delay_ps_;
  Shaper wire_;
  bool has_peek_ = false;
  Frame peek_;
  uint64_t seq_ = 0;
  std::deque<PendingPfc> pending_;
  std::array<std::deque<Frame>, kPfcPriorities> fifo_;
  size_t queued_frames_ = 0;  // in fifo_
  size_t queued_bytes_ = 0;
  PauseReceiver pause_;
  uint64_t speed_bps_;
  Frame sent_;
  // Buffers of frames already sent, for the next frames read (no allocation
  // per frame in the steady state).
  static constexpr size_t kSpareBuffers = 64;
  std::vector<std::vector<uint8_t>> spare_;
  uint64_t held_ = 0;
};

}  // namespace rocelb
