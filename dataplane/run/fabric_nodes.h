// What a fabric run is made of, shared by its shards (fabric_shard.h): the
// switches and hosts with their wires, the flows' records, and which shard
// owns each node. During a window a node is touched by its own shard only;
// what every shard reads (the topology, the workload, the peers) does not
// change while the run runs.
// Knobs: none. Counters: none (the nodes' own).
#pragma once

#include <array>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "dataplane/forward/dataplane.h"
#include "dataplane/record/frame_sink.h"
#include "dataplane/record/link_meters.h"
#include "dataplane/record/run_recorder.h"
#include "dataplane/run/switch_clock.h"
#include "dataplane/run/wake_keys.h"
#include "dataplane/sim/fabric_report.h"
#include "dataplane/sim/nic_params.h"
#include "dataplane/sim/roce_nic.h"
#include "dataplane/sim/topology.h"
#include "dataplane/sim/workload.h"
#include "lb/lb_rng.h"

namespace rocelb {

inline constexpr uint64_t kNeverPs = UINT64_MAX;

// The far end of a wire, as seen from the end that sends.
struct Peer {
  bool to_host = false;
  uint32_t index = 0;  // switch or host
  uint16_t port = 0;   // switch port
  uint64_t speed_bps = 0;
  uint64_t delay_ps = 0;
  bool connected = false;
  // 8 Tb / speed_bps when it divides exactly (100G: 80 ps a byte), else 0.
  uint64_t ps_per_byte = 0;

  static Peer wire(bool to_host, uint32_t index, uint16_t port, uint64_t speed_bps,
                   uint64_t delay_ps) {
    return Peer{to_host, index, port, speed_bps, delay_ps, true, exact_ps_per_byte(speed_bps)};
  }
};

struct SwitchNode {
  std::string name;
  std::unique_ptr<Dataplane> dp;
  std::unique_ptr<SwitchClock> clock;
  // Per port id (Dataplane::port_slots of them):
  std::vector<WakeKeys> wake;  // its kPort events
  std::vector<Peer> peer;
  std::vector<uint32_t> meter;  // its wire: its link direction in links.csv
  std::vector<FrameSink> capture;
  SwitchRecorder* rec = nullptr;  // with RecordOptions: what the switch did, told as it goes
  uint32_t shard = 0;
};

// A host's NIC port (one per host, or one per plane: Topology::port()).
struct HostNode {
  std::unique_ptr<RoceNic> nic;
  WakeKeys wake;  // its kHostWake events
  Peer peer;
  uint32_t meter = 0;
  FrameSink capture;
  uint32_t shard = 0;
};

// The UDP source port of flow f's QPs: the workload's, else the one a NIC
// would pick for a new QP, seeded (another seed is another draw of ECMP
// collisions).
inline uint16_t flow_sport(const FabricFlow& f, uint64_t seed) {
  return f.sport.value_or(static_cast<uint16_t>(0xC000 | (mix_seed(seed, f.id) & 0x3FFF)));
}

struct FabricWorld {
  Topology topo;
  NicParams nic_params;
  Workload workload;
  uint64_t seed = 1;
  uint32_t pool_mbufs = 0;  // each pool's most (0: fabric_pool_mbufs' default)
  std::vector<SwitchNode> sw;
  std::vector<HostNode> hosts;  // by NIC port (Topology::port())
  // Per flow: the NIC ports it runs between, on its plane (flow_plane.h).
  std::vector<uint32_t> flow_src, flow_dst;
  uint32_t wires = 0;  // wire directions: links.csv meters, the event queues' lanes
  std::vector<FlowRecord> records;
  // Phases (all_to_all): flows of phase k wait for every flow of phase k-1.
  std::vector<std::vector<uint32_t>> phase_flows;
  // With one shard only: links.csv as it goes, --max-output, the recorder.
  LinkMeters links;
  OutputBudget* budget = nullptr;
  RunRecorder* recorder = nullptr;
};

}  // namespace rocelb
