// In replay, the device upstream of one switch port: it sends the frames of
// its pcap no earlier than their timestamps, never faster than the port's
// speed (a frame holds the wire for (bytes + 20) × 8 / speed), and it honours
// the PFC frames the switch sends it: a frame's pause takes effect once the
// frame has crossed the wire and the device's response delay has passed,
// and holds back only the paused priorities — the others keep flowing, in
// timestamp order. A frame's priority is its traffic class under the
// switch's own DSCP/PCP map.
//
// Knobs: port speed; qos.pfc.response_delay and cable_length (the pause's
// travel time). Counters: held_frames (frames that waited for a pause).
#pragma once

#include <array>
#include <cstdint>
#include <deque>
#include <memory>
#include <vector>

#include "dataplane/forward/shaper.h"
#include "dataplane/forward/switch_config.h"
#include "dataplane/wire/pcap_file.h"
#include "pfc/pause_receiver.h"

namespace rocelb {

class UpstreamSender {
 public:
  static constexpr uint64_t kNever = UINT64_MAX;

  struct Frame {
    uint64_t ts_ps = 0;  // pcap time, relative to the run's time zero
    uint64_t seq = 0;    // pcap order, for ties
    std::vector<uint8_t> bytes;
  };

  // t0_ns: the run's time zero (pcap clock). pause_delay_ps: from a PFC
  // frame's last bit at the switch to the pause taking effect here.
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
  const PauseReceiver& pause() const { return pause_; }

 private:
  struct PendingPfc {
    uint64_t effect_ps;
    uint8_t class_enable;
    std::array<uint16_t, kPfcPriorities> quanta;
  };
  // Reads the next pcap record into peek_; throws PcapError on a broken file.
  void read_peek();
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
