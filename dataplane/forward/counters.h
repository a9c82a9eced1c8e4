// Every counter the switch keeps, declared once. Readers (counters.json, the
// console table, rocelbctl, Prometheus, DPDK telemetry) iterate these tables
// for names and help text. Counters live in per-lcore cache-aligned blocks
// with one writer each (common/counter.h), summed on read.
//
// Accounting rule, checked by tests: for the whole switch
//   Σrx_packets + Σgenerated = Σtx_packets + Σconsumed + Σdrops + queued
// Drops found at ingress (no_buffer included) count on the ingress port;
// queue_full counts on the egress port whose queue refused the packet,
// tx_failed on the port whose device did not take it, and link_down on the
// port whose link was down.
#pragma once

#include <array>
#include <cstdint>
#include <string_view>

#include "common/counter.h"
#include "dataplane/wire/parsed_packet.h"
#include "pfc/wred.h"

namespace rocelb {

#define ROCELB_PORT_COUNTERS(X)                                                                \
  X(rx_packets, "frames received")                                                             \
  X(rx_bytes, "bytes received (frame without FCS)")                                            \
  X(tx_packets, "frames transmitted")                                                          \
  X(tx_bytes, "bytes transmitted (frame without FCS)")                                         \
  X(rx_ipv4, "IPv4 packets received")                                                          \
  X(rx_ipv6, "IPv6 packets received")                                                          \
  X(rx_rocev2, "RoCEv2 packets received (UDP 4791)")                                           \
  X(rx_rocev1, "RoCEv1 frames received (Ethertype 0x8915)")                                    \
  X(rx_cnp, "RoCE congestion notification packets received (BTH opcode 0x81)")                 \
  X(rx_vlan_tagged, "frames received with one or more VLAN tags")                              \
  X(rx_pfc_frames, "802.1Qbb PFC frames received")                                             \
  X(rx_pause_frames, "802.3x PAUSE frames received")                                           \
  X(consumed_arp, "ARP packets addressed to the switch, consumed")                             \
  X(consumed_pfc, "PFC frames consumed")                                                       \
  X(consumed_pause, "802.3x PAUSE frames consumed")                                            \
  X(generated_arp_replies, "ARP replies the switch generated (sent on this port)")             \
  X(consumed_icmp,                                                                             \
    "ICMP echo requests and IPv6 neighbor discovery messages addressed to the switch, "        \
    "consumed (answered or not)")                                                              \
  X(generated_icmp_replies,                                                                    \
    "ICMP echo replies and IPv6 neighbor advertisements the switch generated (sent on "        \
    "this port)")                                                                              \
  X(generated_pfc_frames, "PFC frames the switch sent on this port (XOFF, refresh, XON)")      \
  X(consumed_conweave,                                                                         \
    "ConWeave RTT replies, clears and notifies for flows this switch sends, taken by its "     \
    "conweave group (the source ToR)")                                                         \
  X(generated_conweave,                                                                        \
    "ConWeave RTT replies, clears and notifies the switch made for data that came in on this " \
    "port (the destination ToR)")

// Drop reasons beyond the parser's (parsed_packet.h).
#define ROCELB_FORWARD_DROPS(X)                                                                  \
  X(dst_mac_not_accepted,                                                                        \
    "destination MAC is not the port's, broadcast, PFC or (for IPv6 neighbor discovery "         \
    "to the switch) its solicited-node group (and port not promiscuous)")                        \
  X(broadcast_not_routed, "broadcast frame that is not ARP")                                     \
  X(unsupported_ethertype, "Ethertype the switch does not route")                                \
  X(arp_not_for_switch, "ARP request for an address that is not the switch's")                   \
  X(rocev1_not_routable, "RoCEv1 is link-local (Ethertype 0x8915): it cannot be routed")         \
  X(martian_address, "loopback, link-local, multicast or unspecified address: never routed")     \
  X(to_switch_address, "IP packet addressed to the switch itself (no local stack)")              \
  X(ttl_expired, "TTL or hop limit would reach 0")                                               \
  X(no_route, "no route matches the destination")                                                \
  X(no_neighbor, "connected route but no neighbor entry for the destination")                    \
  X(no_member_up, "next-hop group has no usable member")                                         \
  X(oversize_frame,                                                                              \
    "frame longer than the ingress port's MTU (ports[].mtu) plus its Ethernet header and tags")  \
  X(mtu_exceeded, "IP packet larger than the egress port's MTU (ports[].mtu): never fragmented") \
  X(queue_full, "egress queue at its limit (tail drop)")                                         \
  X(no_buffer, "packet buffer pool exhausted")                                                   \
  X(lossless_dropped, "lossless class: the ingress port's headroom was full (a sizing error)")   \
  X(wred_dropped, "dropped by WRED: a Not-ECT packet of a lossy class, or ecn_none")             \
  X(pfc_watchdog_drop, "lossless queue in a PFC storm with action drop: flushed or refused")     \
  X(tx_failed,                                                                                   \
    "the device refused the frame for 100 ms (one it will never take: too big for it, a "        \
    "broken link), or had not taken it when the port stopped")                                   \
  X(link_down,                                                                                   \
    "the egress port's link was down: queued when it went down, or sent to it while down")       \
  X(flushed, "still queued when the switch stopped (freed with its queues)")                     \
  X(pause_inbox_full,                                                                            \
    "PFC or PAUSE frame received by a worker that does not transmit the port, whose message "    \
    "to the port's transmitting worker found its inbox full")                                    \
  X(no_link,                                                                                     \
    "fabric: sent on a port that has no link in the topology (nothing is connected to "          \
    "it)")                                                                                       \
  X(conweave_unmatched,                                                                          \
    "ConWeave reply or notify for a flow no conweave group of this switch sends, or a ConWeave " \
    "header too short to read")

enum class DropReason : uint8_t {
#define ROCELB_X(name, help) parse_##name,
  ROCELB_PARSE_RESULTS(ROCELB_X)
#undef ROCELB_X
#define ROCELB_X(name, help) name,
      ROCELB_FORWARD_DROPS(ROCELB_X)
#undef ROCELB_X
          kCount
};
inline constexpr int kNumDropReasons = static_cast<int>(DropReason::kCount);

inline DropReason drop_from_parse(ParseResult r) {
  return static_cast<DropReason>(static_cast<uint8_t>(r));
}

struct CounterInfo {
  std::string_view name;
  std::string_view help;
};

// Parse drop names are "parse_<result>"; index 0 (parse_ok) is never counted.
inline constexpr CounterInfo kDropInfo[] = {
#define ROCELB_X(name, help) {"parse_" #name, help},
    ROCELB_PARSE_RESULTS(ROCELB_X)
#undef ROCELB_X
#define ROCELB_X(name, help) {#name, help},
        ROCELB_FORWARD_DROPS(ROCELB_X)
#undef ROCELB_X
};
static_assert(std::size(kDropInfo) == kNumDropReasons);

enum class PortCounter : uint8_t {
#define ROCELB_X(name, help) name,
  ROCELB_PORT_COUNTERS(ROCELB_X)
#undef ROCELB_X
      kCount
};
inline constexpr int kNumPortCounters = static_cast<int>(PortCounter::kCount);

inline constexpr CounterInfo kPortCounterInfo[] = {
#define ROCELB_X(name, help) {#name, help},
    ROCELB_PORT_COUNTERS(ROCELB_X)
#undef ROCELB_X
};

// Counters one lcore keeps for one port (that lcore is their one writer;
// readers on other threads sum them: common/counter.h).
struct alignas(64) PortCounters {
  std::array<Counter, kNumPortCounters> c{};
  std::array<Counter, kNumDropReasons> drops{};
  Counter& operator[](PortCounter k) { return c[static_cast<int>(k)]; }
  uint64_t operator[](PortCounter k) const { return c[static_cast<int>(k)]; }
  void drop(DropReason r, uint64_t n = 1) { drops[static_cast<int>(r)] += n; }
  uint64_t total_drops() const {
    uint64_t s = 0;
    for (auto d : drops) s += d;
    return s;
  }
  uint64_t consumed() const {
    return (*this)[PortCounter::consumed_arp] + (*this)[PortCounter::consumed_pfc] +
           (*this)[PortCounter::consumed_pause] + (*this)[PortCounter::consumed_icmp] +
           (*this)[PortCounter::consumed_conweave];
  }
  uint64_t generated() const {
    return (*this)[PortCounter::generated_arp_replies] +
           (*this)[PortCounter::generated_icmp_replies] +
           (*this)[PortCounter::generated_pfc_frames] + (*this)[PortCounter::generated_conweave];
  }
  void add(const PortCounters& o) {
    for (size_t i = 0; i < c.size(); ++i) c[i] += o.c[i];
    for (size_t i = 0; i < drops.size(); ++i) drops[i] += o.drops[i];
  }
};

// Per (port, traffic class) counters: enqueued and dropped kept by the
// lcores that enqueue, dequeued by the port's TX owner (EgressQueue).
#define ROCELB_QUEUE_COUNTERS(X)                                       \
  X(enqueued_packets, "packets accepted into the queue")               \
  X(enqueued_bytes, "bytes accepted into the queue")                   \
  X(dequeued_packets, "packets taken off the queue by the scheduler")  \
  X(dequeued_bytes, "bytes taken off the queue by the scheduler")      \
  X(dropped_packets, "packets refused by the queue (tail drop, full)") \
  X(dropped_bytes, "bytes refused by the queue (tail drop, full)")

// Per (port, traffic class) states, read from the queue and the config.
#define ROCELB_QUEUE_GAUGES(X)                                                        \
  X(depth_packets, "packets on the queue now")                                        \
  X(depth_bytes, "bytes on the queue now")                                            \
  X(watermark_bytes, "largest depth seen, in bytes (SAI_QUEUE_STAT_WATERMARK_BYTES)") \
  X(limit_bytes, "tail-drop limit, in bytes")

struct QueueCounters {
#define ROCELB_X(name, help) Counter name;
  ROCELB_QUEUE_COUNTERS(ROCELB_X)
#undef ROCELB_X
  WredCounters wred;  // ECN marks and WRED drops of this queue (pfc/wred.h)
  void add(const QueueCounters& o) {
#define ROCELB_X(name, help) name += o.name;
    ROCELB_QUEUE_COUNTERS(ROCELB_X)
#undef ROCELB_X
    wred.add(o.wred);
  }
};

struct QueueCounterInfo {
  std::string_view name;
  std::string_view help;
  Counter QueueCounters::*field;
};
inline constexpr QueueCounterInfo kQueueCounters[] = {
#define ROCELB_X(name, help) {#name, help, &QueueCounters::name},
    ROCELB_QUEUE_COUNTERS(ROCELB_X)
#undef ROCELB_X
};

struct QueueGauges {
#define ROCELB_X(name, help) uint64_t name = 0;
  ROCELB_QUEUE_GAUGES(ROCELB_X)
#undef ROCELB_X
};

struct QueueGaugeInfo {
  std::string_view name;
  std::string_view help;
  uint64_t QueueGauges::*field;
};
inline constexpr QueueGaugeInfo kQueueGauges[] = {
#define ROCELB_X(name, help) {#name, help, &QueueGauges::name},
    ROCELB_QUEUE_GAUGES(ROCELB_X)
#undef ROCELB_X
};

// Per group member, kept by the lcores that select.
#define ROCELB_MEMBER_COUNTERS(X)                       \
  X(packets, "packets the group chose this member for") \
  X(bytes, "bytes the group chose this member for")

struct MemberCounters {
#define ROCELB_X(name, help) uint64_t name = 0;
  ROCELB_MEMBER_COUNTERS(ROCELB_X)
#undef ROCELB_X
};

struct MemberCounterInfo {
  std::string_view name;
  std::string_view help;
  uint64_t MemberCounters::*field;
};
inline constexpr MemberCounterInfo kMemberCounters[] = {
#define ROCELB_X(name, help) {#name, help, &MemberCounters::name},
    ROCELB_MEMBER_COUNTERS(ROCELB_X)
#undef ROCELB_X
};

}  // namespace rocelb
