// The knobs of the hosts' RoCE NIC model (roce_nic.h) and their loading from
// the `nic:` map of a fabric topology file. Every key is optional; each is a
// row of nic_schema() (nic_keys.cc: kind, range, default, help) and is read
// by the rules of every rocelb file (control/key_reader.h: booleans true or
// false, integers decimal or 0x hex, UTF-8, no key twice, an unknown key
// refused with the nearest known one). Errors (NicParamsError) name where
// the value came from, the key path and the rule:
//   "fabric.yaml: nic.dcqcn.rpg_ai_rate: \"x\": must be an integer
//    0..1600000 (Mb/s)"
//   "--set nic.mtu=1000: nic.mtu: 1000: must be 256, 512, 1024, 2048 or 4096
//    (framing ethernet: the IB path MTUs)"
//
//   nic:
//     mtu: 1024                 payload bytes per packet: 256, 512, 1024,
//                               2048 or 4096 (the IB path MTUs); any of
//                               256..4096 with framing ns3 (ConWeave: 1000)
//     framing: ethernet         how every wire of the fabric counts a frame:
//                               ethernet, its bytes + 20 (preamble, gap);
//                               ns3, as ConWeave's/HPCC's ns-3 count their
//                               packets, max(bytes - 22, 48)
//                               (common/constants.h WireFraming), for
//                               like-for-like comparisons with them
//     data_dscp: 26             DSCP of data packets when a flow names none
//     data_priority: 3          the NIC's priority for data (PFC pauses it)
//     ack_dscp: 26              DSCP of ACK/NAK (default: the flow's DSCP)
//     ack_priority: 3           priority of ACK/NAK (default: data_priority)
//     ack_interval: 1           the receiver ACKs every this many in-order
//                               packets, and always for AckReq
//     local_ack_timeout: 14     IB Local ACK Timeout: the retransmission timer
//                               is 4.096 us × 2^value (14: 67.1 ms); 0: none
//     loss_recovery: go_back_n  or selective_repeat
//     sr_nak_delay: 50us        selective_repeat: a hole is NAKed once it has
//                               lasted this long (the reorder tolerance)
//     sr_window: 1024           selective_repeat: packets past the expected
//                               PSN the receiver can hold (multiple of 64)
//     nak_interval: 0           go_back_n: the same expected PSN is NAKed
//                               again when an out-of-order packet comes
//                               this long after the last NAK (ConWeave's
//                               ns-3: 4us, rdma-hw.cc:652); 0: once
//     max_inflight: 0           a QP starts a new packet only while fewer
//                               payload bytes than this are in flight (sent
//                               past the oldest unacknowledged packet); 0:
//                               no cap. IRN's BDP cap (Mittal et al.,
//                               SIGCOMM 2018; ConWeave's ns-3 IrnBdp,
//                               rdma-queue-pair.h:180-186), in any recovery
//                               mode
//     dcqcn: {enabled: true, rpg_time_reset: 300, ...}   see dcqcn.h
//
// Defaults and why:
//   mtu 1024: the RoCE default path MTU of ConnectX NICs with a 1500-byte
//     Ethernet MTU (the largest IB MTU that fits), and rocelb's generator's.
//   data_dscp 26 / data_priority 3, cnp_dscp 48 / cnp_802p_prio 6: NVIDIA's
//     lossless RoCE profile and rocelb's default switch config
//     (configs/default.yaml: DSCP 26 → class 3, DSCP 48 → class 6).
//   ack_interval 1: NVIDIA documents no ACK coalescing knob or rule for
//     ConnectX; the HPCC and ConWeave ns-3 simulators ACK every packet
//     (L2_ACK_INTERVAL 1), so FCTs stay comparable with theirs.
//   local_ack_timeout 14: the value perftest (ib_write_bw and friends) and
//     many rdma-core examples set (timeout = 14, about 67 ms).
//   sr_nak_delay 50 us: the reorder a receiver must tolerate is the queueing
//     difference between paths; DCQCN holds queues near the switch's ECN
//     range (150 KB .. 1.5 MB marking in configs/default.yaml, i.e. 12 ..
//     120 us at 100 Gb/s), and 50 us covers 625 KB of difference at
//     100 Gb/s, while staying far below local_ack_timeout so a real loss is
//     still repaired in about one RTT plus 50 us. IRN (Mittal et al.,
//     SIGCOMM 2018) reacts to the first out-of-order packet instead; this
//     model waits so that pure reordering costs no retransmission.
//   sr_window 1024: 1 MB of 1 KB packets, above the 100 Gb/s × 50 us of
//     reordering the NAK delay tolerates.
#pragma once

#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>

#include <yaml-cpp/yaml.h>

#include "common/constants.h"
#include "control/key_reader.h"
#include "control/key_schema.h"
#include "dataplane/sim/dcqcn.h"

namespace rocelb {

class NicParamsError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

enum class LossRecovery : uint8_t { kGoBackN, kSelectiveRepeat };

struct NicParams {
  uint32_t mtu = 1024;
  WireFraming framing;  // framing: ethernet, or WireFraming::ns3()
  uint8_t data_dscp = 26;
  uint8_t data_priority = 3;
  std::optional<uint8_t> ack_dscp;      // unset: the flow's DSCP
  std::optional<uint8_t> ack_priority;  // unset: data_priority
  uint32_t ack_interval = 1;
  uint8_t local_ack_timeout = 14;
  LossRecovery loss_recovery = LossRecovery::kGoBackN;
  uint64_t sr_nak_delay_ns = 50'000;
  uint64_t nak_interval_ns = 0;  // go_back_n: 0, one NAK per expected PSN
  uint32_t sr_window = 1024;
  uint64_t max_inflight_bytes = 0;  // 0: no cap
  DcqcnParams dcqcn;

  uint8_t ack_prio() const { return ack_priority.value_or(data_priority); }
  // The retransmission timeout in ps (0: no timer).
  uint64_t retransmit_timeout_ps() const {
    return local_ack_timeout == 0 ? 0 : uint64_t{4'096'000} << local_ack_timeout;
  }
};

const char* loss_recovery_name(LossRecovery r);

// The rows of the `nic` map: "nic", "nic.mtu", ..., "nic.dcqcn.enabled", ...
const KeySchema& nic_schema();

// Loads the `nic:` map (null or undefined: every default). `origin` names
// the file ("fabric.yaml") and the overrides that set nic.* keys, so an
// error blames the one that made the value; key paths start with "nic.".
NicParams load_nic_params(const YAML::Node& nic, const KeyOrigin& origin);
NicParams load_nic_params(const YAML::Node& nic, const std::string& where);

}  // namespace rocelb
