// Preset `multitenant`: tenants sharing the leaf's uplinks, told apart by an
// 802.1Q tag (by=vlan: tenant k has VID 100 (k + 1), PCP 3, DSCP 26) or by
// DSCP (by=dscp: untagged, tenant k has DSCP kTenantDscp[k]; 26, the RoCE
// lossless class of the default config, is tenant 0's). Tenant 0 runs
// `elephants` long transfers (RDMA WRITEs of `elephant` bytes, `elephant_messages`
// of them back to back at the host port's speed); every other tenant runs
// `mice` short ones (one WRITE of mouse_min..mouse_max bytes each, uniform),
// arriving at random (Poisson) in [0, duration). Both from the host ports
// (round robin) to remote hosts behind the spines (10.2.X.Y), so they meet
// on the uplinks: the classic "my mice are stuck behind your elephants".
// Knobs [defaults]: by vlan|dscp [vlan], tenants [2], elephants [4],
// elephant [1MiB], elephant_messages [8], mice [200 per mouse tenant],
// mouse_min [1KiB], mouse_max [64KiB], duration [1ms], mtu [1024].
// Limit: elephants + (tenants - 1) x mice at most kMaxScenarioFlows,
// checked before any flow is made.
// Random (--seed): the mice's start times, sizes and sources, every flow's
// UDP source port.
#pragma once

#include <cstdint>

#include "tools/gen/preset_common.h"

namespace rocelb {

inline constexpr uint8_t kTenantDscp[8] = {26, 10, 18, 34, 12, 20, 28, 36};
inline constexpr uint16_t tenant_vid(uint32_t tenant) {
  return static_cast<uint16_t>(100 * (tenant + 1));
}

const PresetDef& multitenant_preset();

}  // namespace rocelb
