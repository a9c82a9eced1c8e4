// Preset `pfc-storm`: the host on `port` (a broken NIC) keeps sending PFC
// XOFF frames (802.1Qbb, built by the switch's own pfc_frame_spec()) for
// `priority`, pause time `quanta`, one every `interval` from `start` for
// `duration`, while `senders` other hosts RDMA WRITE toward it on that
// priority (the lowest DSCP the config's dscp_to_tc maps to it; 26 in
// default.yaml), one `message` every `every`, from t=0 until the storm has
// ended and the watchdog's restoration_time has passed. The paused queue
// keeps packets, so once it stays paused for qos.pfc_watchdog.detection_time
// the switch's PFC watchdog fires (and after the storm, restores).
// Knobs [defaults]: port [the last host port: 3], priority [3], quanta
// [65535], interval [100us: well inside 65535 quanta at 100G, 335us],
// start [100us], duration [auto: 2 x detection_time], senders [1], message
// [64KiB], every [1ms], mtu [1024].
// Limit: duration / interval at most kMaxPfcFrames storm frames.
// Nothing random: --seed only changes the seed written in the YAML.
#pragma once

#include "tools/gen/preset_common.h"

namespace rocelb {

const PresetDef& pfc_storm_preset();

}  // namespace rocelb
