// The fields of a packet that load balancing decides on: the 5-tuple (IPv4 or
// IPv6), and for RoCE the BTH destination QP. Filled from the parser's output
// by dataplane/wire/flow_key_of.h (the switch, and the generator predicting
// its choices); read by every engine in lb/. In common/ so that neither wire
// nor lb includes the other. Pure C++, no knobs, no counters.
#pragma once

#include <cstdint>

namespace rocelb {

struct FlowKey {
  uint8_t src_ip[16] = {};  // IPv4 in the first 4 bytes, network order
  uint8_t dst_ip[16] = {};
  uint8_t family = 0;  // 4 or 6
  uint8_t proto = 0;
  uint16_t sport = 0;  // RoCEv2 NICs put per-QP entropy here
  uint16_t dport = 0;
  uint32_t dest_qp = 0;  // 24-bit BTH destination QP, 0 if not RoCE
};

}  // namespace rocelb
