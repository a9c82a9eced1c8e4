// Preset `nvmeof`: NVMe over Fabrics on RDMA (RoCEv2) as the wire shows it.
// Initiators on the host ports (10.0.N.2) reach storage targets behind the
// spines (10.3.T.2; target T's frames enter this leaf on uplink T mod the
// group's size). Each initiator has one RC queue pair with each target and
// issues `ios` I/Os, Poisson arrivals sized so that its data averages `load`
// of its link, each to a random target, of a random power-of-two size in
// io_min..io_max; `mix` says how many are reads. Per NVMe-oF/RDMA:
//   read   host -> target  SEND command capsule (64 B)
//          target -> host  RDMA WRITE of the data into the host's buffer
//          target -> host  SEND response capsule (16 B)
//   write  host -> target  SEND command capsule (64 B)
//          target -> host  RDMA READ Request (RETH: the I/O size)
//          host -> target  RDMA READ Responses carrying the data
//          target -> host  SEND response capsule (16 B)
// A target reacts `latency` after what it waits for has arrived, and so does
// the host's NIC to a READ Request. The messages of one direction of a queue
// pair go out one after the other, with PSNs that run on (READ Responses use
// the target's PSNs, as in InfiniBand).
// Knobs [defaults]: hosts [all host ports], targets [2], mix
// read-heavy|write-heavy [read-heavy: 70% reads; write-heavy: 30%], ios [32
// per host], io_min [4KiB], io_max [128KiB], load [0.5], latency [5us], mtu
// [1024], group [uplinks].
// Limit: ios x hosts x 4 (a write's four messages) at most kMaxScenarioFlows,
// checked before any I/O is drawn.
// Random (--seed): arrival times, targets, sizes, reads or writes, UDP source
// ports.
#pragma once

#include "tools/gen/preset_common.h"

namespace rocelb {

inline constexpr uint64_t kNvmeCommandBytes = 64;   // NVMe-oF command capsule (SQE)
inline constexpr uint64_t kNvmeResponseBytes = 16;  // response capsule (CQE)

const PresetDef& nvmeof_preset();

}  // namespace rocelb
