// rewrite_stage: a forwarded packet larger than the egress port's MTU is
// dropped (mtu_exceeded, on the egress port: the switch never fragments);
// the others leave with the next hop's MAC as destination, the egress
// port's MAC as source, their TTL (IPv4, checksum fixed incrementally) or
// hop limit (IPv6) one lower, and the offsets the dequeue-side ECN marker
// needs (l2_len, packet_type).
#include <cstring>

#include "dataplane/forward/stages.h"
#include "dataplane/wire/ipv4.h"

namespace rocelb {

void rewrite_stage(Burst& b) {
  for (uint16_t i = 0; i < b.n; ++i) {
    if (b.step[i] != Step::kForward) continue;
    const ParsedPacket& p = b.pp[i];
    const PortConfig& out = b.cfg.ports[b.out_port[i]];
    if (static_cast<uint32_t>(p.ip_end - p.l3_offset) > out.mtu) {
      b.drop(i, b.ws.port[b.out_port[i]], DropReason::mtu_exceeded);
      continue;
    }
    rte_mbuf* m = b.pkts[i];
    uint8_t* frame = rte_pktmbuf_mtod(m, uint8_t*);
    uint8_t* l3 = frame + p.l3_offset;
    if (p.ip_version == 4) {
      ipv4_decrement_ttl(l3);
    } else {
      l3[7] = static_cast<uint8_t>(p.ttl - 1);
    }
    std::memcpy(frame, b.out_mac[i], 6);
    std::memcpy(frame + 6, out.mac, 6);
    m->l2_len = p.l3_offset;
    m->packet_type = p.ip_version == 4 ? RTE_PTYPE_L3_IPV4 : RTE_PTYPE_L3_IPV6;
  }
}

}  // namespace rocelb
