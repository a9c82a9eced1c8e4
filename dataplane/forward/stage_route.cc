// route_stage: longest-prefix match for every packet to route, IPv4 and
// IPv6 each in one bulk lookup, then the next hop: a neighbor (connected
// route or static next hop), a group (balance_stage decides the member),
// the switch itself (local_reply) or nothing (no_route). TTL is checked
// before any group state is touched; the traffic class is set here.
#include <cstring>

#include "dataplane/forward/classify.h"
#include "dataplane/forward/stages.h"
#include "dataplane/wire/byte_order.h"

namespace rocelb {

void route_stage(Burst& b) {
  uint32_t v4_ips[kMaxBurst];
  uint8_t v6_ips[kMaxBurst][16];
  uint64_t v4_nh[kMaxBurst], v6_nh[kMaxBurst];
  uint16_t v4_of[kMaxBurst], v6_of[kMaxBurst];
  uint16_t nv4 = 0, nv6 = 0;
  for (uint16_t i = 0; i < b.n; ++i) {
    if (b.step[i] != Step::kRoute) continue;
    const ParsedPacket& p = b.pp[i];
    if (p.ip_version == 4) {
      v4_of[nv4] = i;
      v4_ips[nv4++] = load_be32(p.dst_ip);
    } else {
      v6_of[nv6] = i;
      std::memcpy(v6_ips[nv6++], p.dst_ip, 16);
    }
  }
  if (nv4 + nv6 == 0) return;
  const SwitchConfig& cfg = b.cfg;
  if (nv4) cfg.routes->lookup_v4(v4_ips, v4_nh, nv4);
  if (nv6) cfg.routes->lookup_v6(v6_ips, v6_nh, nv6);
  for (uint16_t j = 0; j < nv4; ++j) b.nh[v4_of[j]] = static_cast<uint32_t>(v4_nh[j]);
  for (uint16_t j = 0; j < nv6; ++j) b.nh[v6_of[j]] = static_cast<uint32_t>(v6_nh[j]);

  for (uint16_t i = 0; i < b.n; ++i) {
    if (b.step[i] != Step::kRoute) continue;
    const ParsedPacket& p = b.pp[i];
    const NextHop& nh = cfg.nexthops[b.nh[i]];
    switch (nh.kind) {
      case NextHopKind::kNone:
        b.drop(i, DropReason::no_route);
        continue;
      case NextHopKind::kLocal:
        local_reply(b, i);
        continue;
      default:
        break;
    }
    if (p.ttl <= 1) {
      b.drop(i, DropReason::ttl_expired);
      continue;
    }
    b.tc[i] = classify(cfg, p);
    switch (nh.kind) {
      case NextHopKind::kConnected: {
        const NeighborEntry* e = cfg.neighbors.find(p.ip_version, p.dst_ip);
        if (!e || e->port != nh.port) {
          b.drop(i, DropReason::no_neighbor);
          continue;
        }
        b.out_port[i] = e->port;
        b.out_mac[i] = e->mac;
        b.step[i] = Step::kForward;
        break;
      }
      case NextHopKind::kNeighbor:
        b.out_port[i] = nh.port;
        b.out_mac[i] = nh.mac;
        b.step[i] = Step::kForward;
        break;
      case NextHopKind::kGroup:
        b.step[i] = Step::kBalance;
        break;
      case NextHopKind::kNone:
      case NextHopKind::kLocal:
        break;  // handled above
    }
  }
}

}  // namespace rocelb
