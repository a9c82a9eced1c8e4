// `--events-filter`: which packet events reach events.jsonl, so a long run
// stays small. Comma-separated KEY=VALUE, every key given must match:
//   port=N    the event's port or the packet's ingress port
//   class=N   the traffic class (events that have one)
//   qp=N      BTH destination QP (decimal or 0x hex)
//   src=IP, dst=IP, sport=N, dport=N   the packet's addresses and UDP ports
// e.g. "port=6,class=3" or "qp=0x100". A bad filter throws
// std::invalid_argument naming the part and the rule.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "control/net_types.h"
#include "dataplane/wire/parsed_packet.h"

namespace rocelb {

struct EventFilter {
  std::optional<uint16_t> port;
  std::optional<uint8_t> cls;
  std::optional<uint32_t> qp;
  std::optional<IpAddr> src, dst;
  std::optional<uint16_t> sport, dport;

  static EventFilter parse(const std::string& text);
  bool empty() const { return !port && !cls && !qp && !src && !dst && !sport && !dport; }

  // `p` null: the frame did not parse (only port/class can match it).
  bool matches(uint16_t event_port, int in_port, int tc, const ParsedPacket* p) const;
};

}  // namespace rocelb
