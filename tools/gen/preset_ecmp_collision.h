// Preset `ecmp-collision`: `flows` long RDMA WRITE flows from the host ports
// (round robin) to remote hosts behind the spines (10.2.I.2) whose UDP source
// ports are chosen so that the switch's own ECMP hash sends every one of them
// to the same uplink. The uplink is computed as the switch computes it: the
// flow's first frame parsed by the switch's parser, its flow key
// (flow_key_of), flow_hash() with switch.hash_seed and the group's
// hash_fields, ecmp_pick() over the group's members (all up). So the
// collision holds for whatever seed the config (or --set switch.hash_seed=)
// gives; the YAML written for one seed collides under that seed only.
// rocelb-gen prints which uplink each flow hashes to.
// Knobs [defaults]: flows [4], uplink [auto: where flow 0's first sport
// lands; else a member's port id], message [256KiB], messages [8], gap [0],
// mtu [1024], group [uplinks].
// Random (--seed): the source port each flow's search starts from.
#pragma once

#include <string>

#include "tools/gen/preset_common.h"

namespace rocelb {

// The port of the member of `group` the switch's ECMP (mode fixed, all
// members up) picks for the frames of flow f.
uint16_t ecmp_uplink_of(const FlowParams& f, const ConfigParams& config, const std::string& group);

const PresetDef& ecmp_collision_preset();

}  // namespace rocelb
