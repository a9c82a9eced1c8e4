// Sets ECN to CE (binary 11) in a packet's IP header, in place: IPv4 with
// its header checksum fixed incrementally, IPv6 in the traffic class. The
// ICRC of RoCEv2 does not cover these bits, so nothing else changes. Used
// by WRED at enqueue (pipeline) and at dequeue (DCQCN-style marking).
#pragma once

#include <cstdint>

#include "dataplane/wire/ipv4.h"

namespace rocelb {

inline void mark_ce(uint8_t* l3, uint8_t ip_version) {
  if (ip_version == 4)
    ipv4_set_ecn(l3, kEcnCe);
  else if (ip_version == 6)
    l3[1] = static_cast<uint8_t>((l3[1] & 0xcf) | (kEcnCe << 4));
}

// The ECN bits of an IPv4 or IPv6 header.
inline uint8_t ecn_of(const uint8_t* l3, uint8_t ip_version) {
  return ip_version == 4 ? (l3[1] & 3) : ((l3[1] >> 4) & 3);
}

}  // namespace rocelb
