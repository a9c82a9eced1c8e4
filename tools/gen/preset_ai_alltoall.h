// Preset `ai-alltoall`: the all-to-all exchange of distributed training
// (e.g. the expert-parallel shuffle of a mixture-of-experts layer) as this
// leaf sees it. `workers` ranks; the first `local` sit on the host ports (one
// per port: 10.0.N.2), the others are remote, behind the spines (10.2.R.2).
// In each of `phases` phases every rank sends one `message` to every other
// rank, all at once: a rank's NIC runs its workers-1 queue pairs side by side
// at (host port speed) / (workers - 1) each, so all messages of a phase end
// together; the next phase starts `gap` later (the collective's barrier).
// What enters this switch: every flow from a local rank (to a remote rank it
// leaves by the uplinks: ECMP decides which), and every flow from a remote
// rank to a local one, which enters on an uplink (round robin over the
// group's members, as the spines would spread it). Remote-to-remote traffic
// never touches this leaf and is left out.
// Knobs [defaults]: workers [8], local [auto: workers/2, at most
// the host ports], message
// [256KiB], phases [4], gap [10us], mtu [1024], group [uplinks].
// Random (--seed): each queue pair's UDP source port (49152..65535), as NICs
// pick them per QP.
#pragma once

#include "tools/gen/preset_common.h"

namespace rocelb {

const PresetDef& ai_alltoall_preset();

}  // namespace rocelb
