// What the switch did to each packet, told as it happens, for the engines
// that run in virtual time (replay, fabric) when a run asks for events, a
// timeline or annotated captures. The Dataplane holds one observer pointer
// (null by default: each hook site costs one predictable branch, as the
// decision log does). Hooks are called on the thread that runs the
// pipeline, before the packet is freed or handed on:
//
//   on_balance  a group chose a member (with why: LbDecision)
//   on_enqueue  the packet is in its egress queue; depth after it
//   on_mark     the packet was ECN-marked (CE), at enqueue or at dequeue
//   on_drop     the packet was dropped, with the reason and the port whose
//               counters took the drop (class 0xff when not yet known)
//
// Arrivals and departures are told by the engine itself (it sees them).
//
// PacketNote: what a packet carries through the switch for its
// departure's annotation, in the mbuf's private area when the pool has
// room for it (packet_note() is null otherwise). Knobs: none. Counters: none.
#pragma once

#include <rte_mbuf.h>

#include <cstdint>

#include "dataplane/forward/counters.h"
#include "lb/lb_decision.h"

namespace rocelb {

struct GroupConfig;

enum class MarkWhere : uint8_t { kEnqueue, kDequeue };
inline constexpr uint8_t kClassUnknown = 0xff;

struct PacketNote {
  uint64_t arrive_ns = 0;    // first bit at the switch
  uint64_t enqueue_ns = 0;   // into its egress queue
  uint32_t depth_bytes = 0;  // the queue's depth after it was added (saturating)
  uint16_t in_port = 0;
  uint8_t tc = 0;
  uint8_t flags = 0;  // kNote*
  uint8_t member = 0;
  uint8_t members = 0;   // up to 255 shown
  uint8_t compared = 0;  // LbCompared
  uint8_t pad = 0;
  uint64_t chosen_value = 0;  // band or queue bytes of the chosen member
  uint64_t other_value = 0;   // the best value among the others (when compared)
};
inline constexpr uint8_t kNoteArrived = 1;
inline constexpr uint8_t kNoteBalanced = 2;
inline constexpr uint8_t kNoteNewFlowlet = 4;
inline constexpr uint8_t kNoteMarked = 8;
inline constexpr uint8_t kNoteOthers = 16;  // other_value holds something
inline constexpr uint8_t kNoteQueued = 32;
inline constexpr uint8_t kNoteFlowletMode = 64;  // the group's mode keeps flowlets

// Private-area size a pool needs for notes (a multiple of RTE_MBUF_PRIV_ALIGN).
inline constexpr uint16_t kPacketNotePrivSize = static_cast<uint16_t>(
    (sizeof(PacketNote) + RTE_MBUF_PRIV_ALIGN - 1) & ~(RTE_MBUF_PRIV_ALIGN - 1));

inline PacketNote* packet_note(rte_mbuf* m) {
  if (rte_pktmbuf_priv_size(m->pool) < sizeof(PacketNote)) return nullptr;
  return static_cast<PacketNote*>(rte_mbuf_to_priv(m));
}
inline const PacketNote* packet_note(const rte_mbuf* m) {
  return packet_note(const_cast<rte_mbuf*>(m));
}

class PacketObserver {
 public:
  static constexpr uint32_t kScratch = 32;
  virtual ~PacketObserver() = default;

  virtual void on_balance(rte_mbuf* m, const GroupConfig& g, const LbDecision& d, uint16_t port,
                          uint64_t now_ns) = 0;
  virtual void on_enqueue(rte_mbuf* m, uint16_t in_port, uint16_t port, uint8_t tc,
                          uint64_t depth_bytes, uint64_t depth_packets, uint64_t now_ns) = 0;
  virtual void on_mark(rte_mbuf* m, uint16_t port, uint8_t tc, MarkWhere where,
                       uint64_t now_ns) = 0;
  virtual void on_drop(const rte_mbuf* m, uint16_t port, uint8_t tc, DropReason r,
                       uint64_t now_ns) = 0;

  // Scratch for one engine call's decisions when no decision log is set.
  LbDecision* decisions() { return decisions_; }

 private:
  LbDecision decisions_[kScratch];
};

}  // namespace rocelb
