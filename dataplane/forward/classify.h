// The traffic class of a parsed frame (= its PFC priority: classes and
// priorities map one to one in rocelb). qos.trust: dscp — IP packets by
// DSCP, others by their tag's PCP; pcp — tagged frames by PCP, untagged IP by
// DSCP. Anything else: qos.default_tc. Used by the pipeline and by the
// replay's upstream senders, which classify their frames the same way.
#pragma once

#include <cstdint>

#include "dataplane/forward/switch_config.h"
#include "dataplane/wire/parsed_packet.h"

namespace rocelb {

inline uint8_t classify(const SwitchConfig& cfg, const ParsedPacket& p) {
  const bool ip = p.ip_version != 0;
  if (cfg.trust == Trust::kPcp && p.num_vlans) return cfg.pcp_to_tc[p.pcp];
  if (ip) return cfg.dscp_to_tc[p.dscp];
  if (p.num_vlans) return cfg.pcp_to_tc[p.pcp];
  return cfg.default_tc;
}

}  // namespace rocelb
