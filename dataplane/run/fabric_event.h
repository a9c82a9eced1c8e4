// The events of a fabric run and the order of events of equal time.
//
// An event happens at one node (a switch or a host) at a time in
// picoseconds. Events of equal time at one node are taken in an order made
// from what they are and where they come from, never from when they were
// pushed, so that a fabric split over threads (fabric_shard.h) takes every
// node's events in the same order as one thread does:
//   1. frames arriving, by the wire they come on (a wire's id: its
//      links.csv meter);
//   2. flows accepted by their receiver, by flow;
//   3. flows started by their sender, by flow;
//   4. a switch port's look (by switch, then port), then a host's wake-up
//      (by host).
// Events of equal time at different nodes touch nothing in common; they
// are still ordered by what they are and where (arrivals by wire, flows by
// flow, looks and wake-ups by node), so that no two events a run can hold
// at once have the same (time, order): the order of every pop, and of the
// lines of one time-ordered file across switches (--events), is the same
// whatever the queue's inner structure.
// Knobs: none. Counters: none.
#pragma once

#include <rte_mbuf.h>

#include <cstdint>

namespace rocelb {

enum class Ev : uint8_t {
  kPort,        // a switch port's scheduled look (a = switch, b = port)
  kToSwitch,    // a frame's last bit reaches switch a's port b
  kToHost,      // a frame's last bit reaches host a's NIC
  kHostWake,    // host a's NIC asked to be polled
  kFlowAccept,  // flow a's receiver (its dst host) takes the flow
  kFlowStart,   // flow a starts at its src host
};

struct Event {
  uint64_t t = 0;
  Ev kind = Ev::kPort;
  // kFlowAccept, kFlowStart: from the shard's timetable of phase-0 flows
  // (taking it pushes the timetable's next); a later phase's flow is pushed
  // when the phase before it ends.
  bool timetable = false;
  uint32_t a = 0;
  uint32_t b = 0;
  uint32_t len = 0;  // kToSwitch without an mbuf: the frame's length
  rte_mbuf* m = nullptr;
};

// The ranks of event_order (the queue's order: 2 bits of class, 34 of
// detail).
inline constexpr int kEventDetailBits = 34;
inline constexpr uint64_t order_arrival(uint32_t wire) {
  return wire;
}
inline constexpr uint64_t order_accept(uint32_t flow) {
  return uint64_t{1} << kEventDetailBits | flow;
}
inline constexpr uint64_t order_start(uint32_t flow) {
  return uint64_t{2} << kEventDetailBits | flow;
}
// Looks and wake-ups: one bit for hosts (after switches), 25 for the node,
// 8 for the port.
inline constexpr uint64_t order_look(uint32_t sw, uint16_t port) {
  return uint64_t{3} << kEventDetailBits | uint64_t{sw} << 8 | (port & 0xFFu);
}
inline constexpr uint64_t order_wake(uint32_t host) {
  return uint64_t{3} << kEventDetailBits | uint64_t{1} << 33 | uint64_t{host} << 8;
}
// Nodes of one kind the orders tell apart.
inline constexpr uint32_t kMaxOrderedNodes = uint32_t{1} << 25;

}  // namespace rocelb
