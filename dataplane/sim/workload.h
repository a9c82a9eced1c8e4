// The workload of a closed-loop fabric experiment (`rocelb-dp fabric
// --workload FILE`): a YAML file turned into a flat, deterministic list of
// flows (messages) between the hosts of a Topology. The same file, topology
// and seed give the same list on any machine (workload_random.h).
//
// Four forms; a file is a YAML map, unknown keys are errors.
//
// 1. Explicit flows: the file's only key is `flows`, a list of at most
//    kMaxExplicitFlows
//      {src: h0, dst: h4, size: 1MB, start: 10us, qp: 0x11, sport: 49152, dscp: 26}
//    src, dst: host names of the topology, different; size: bytes, 1 ..
//    2GiB (2147483648, the largest RDMA message: "4MB", "512KiB"); start:
//    optional, 0 .. 3600s, default 0 ("0", "10us"); qp: optional source
//    QPN 0..16777215, one flow per QP of a host (a QP carries one message
//    at a time; a flow without qp takes default_qpn(its id)); sport:
//    optional UDP source port 1..65535; dscp: optional 0..63.
// 2. type: poisson   open-loop arrivals, the HPCC/ConWeave generator's model
//      cdf: AliStorage2019   a named distribution (AliStorage2019, WebSearch,
//                            FbHdp2015, GoogleRPC2008, embedded) or a CDF
//                            file relative to this file (flow_size_cdf.h)
//      load: 0.5             fraction of each host's link speed, 0 < load <= 1
//                            (or "50%"); of its links' together on a fabric
//                            of several planes (Topology::host_bps)
//      load_of: hosts        hosts (default), or network: the load of the
//                            leaf-spine core as ConWeave's run.py means it,
//                            each host offering load / oversubscription
//                            (hosts_per_leaf × host_speed / (spines ×
//                            uplink_speed), when above 1)
//      duration: 10ms        arrivals in [0, duration), 1ns .. 3600s
//      pairs: inter_leaf     destinations: inter_leaf (hosts on other leaves;
//                            default) or any (every other host)
//      max_flows: 2000000    optional cap, 1 .. kMaxGeneratedFlows; more
//                            flows is an error
//    Each host is an independent Poisson source with rate
//    host_bps * load / (8 * mean_bytes) flows/s; per flow it draws, from its
//    own random stream (seed, host index), the gap to the next arrival, the
//    destination (uniform over the allowed hosts), then the size.
// 3. type: incast    many senders, one receiver, at once
//      receiver: h0
//      senders: [h1, h2] | 7     a list of hosts, or a count: the first N
//                                hosts other than the receiver, those on
//                                other leaves first (in host order), then the
//                                receiver's leaf mates
//      size: 256KB               per sender
//      start: 0                  optional, default 0
//      repeat: 1                 optional: rounds (1..10000), round r starts
//      interval: 100us           at start + r * interval (required if repeat > 1);
//                                the last round starts by 3600s
// 4. type: all_to_all  every ordered pair of distinct hosts, in phases
//      hosts: all | [h0, h1, ...]  at least 2, no repeats
//      size: 64KB                  per pair per phase
//      phases: 4                   optional, default 1 (1..10000)
//      gap: 2us                    optional, default 0: phase k+1 starts `gap`
//                                  after every phase-k flow finished
//      start: 0                    optional: when phase 0 starts; start +
//                                  (phases - 1) * gap is at most 3600s
// incast and all_to_all also take max_flows (default 2000000, at most
// kMaxGeneratedFlows), checked before any flow is made. A file is one YAML
// document, read through control/bounded_file.h (a regular file of at most
// 16 MiB) and control/yaml_document.h (at most 2 M YAML nodes, no key
// twice). Every limit the NIC model (roce_nic.h) holds a flow to is checked
// here, at load, so a run never stops on a flow it cannot start.
//
// Every key is a row of its form's table (workload_keys.cc: kind, range,
// default, help) and is read by the rules of every rocelb file
// (control/key_reader.h: integers decimal or 0x hex, units, UTF-8, no key
// twice, an unknown key refused with the nearest known one of its form).
//
// Outputs: Workload::flows sorted by (phase, start_ns) with ties in
// generation order, ids 0.. in that order. For phase 0, start_ns is absolute;
// for phase k > 0 it is an offset from the moment phase k-1's last flow
// finished plus phase_gap_ns (0 for all_to_all: the whole phase starts then).
// Errors (WorkloadError) are one line "FILE: key.path: rule", e.g.
// "wl.yaml: flows[3].dst: "h99" is not a host of the topology (h0..h7)".
#pragma once

#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "control/key_schema.h"
#include "dataplane/sim/topology.h"

namespace rocelb {

struct FabricFlow {
  uint64_t id = 0;            // 0.. in start order (ties: generation order)
  uint32_t src = 0, dst = 0;  // host indices into Topology::hosts
  uint64_t size_bytes = 0;    // message size (>= 1)
  uint64_t start_ns = 0;      // for phase > 0: offset after the previous phase completes
  uint32_t phase = 0;  // all_to_all: phase k+1 starts when every phase-k flow finished (+ gap)
  std::optional<uint32_t> qp;     // source QPN if given (24 bits)
  std::optional<uint16_t> sport;  // UDP source port if given
  std::optional<uint8_t> dscp;    // if given (0..63)
};

struct Workload {
  std::string source;  // the file
  std::string kind;    // "poisson", "incast", "all_to_all", "flows"
  std::vector<FabricFlow> flows;
  uint64_t phase_gap_ns = 0;  // all_to_all
  uint64_t duration_ns = 0;   // poisson: arrivals in [0, duration)
  uint32_t phases = 1;        // 1 + the largest FabricFlow::phase
  std::string cdf;            // poisson: the distribution's name or path
  double cdf_mean_bytes = 0;  // poisson: its analytic mean
  double load = 0;            // poisson: the requested load (0..1]
  // One line for logs and summaries, e.g.
  // "poisson AliStorage2019 load 0.5 over 10ms, inter_leaf, 1234 flows".
  std::string description;
};

class WorkloadError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// The default of max_flows (poisson, incast, all_to_all).
inline constexpr uint64_t kDefaultMaxFlows = 2'000'000;
// The most max_flows may be: the flows of an 8K-host study (a run keeps
// about 300 bytes per flow: 1.5 GB here).
inline constexpr uint64_t kMaxGeneratedFlows = 5'000'000;
// The most flows a `flows:` list may hold: yaml-cpp keeps a flow of every
// key in about 7 KB, so 100 000 of them take 700 MB while loading.
inline constexpr uint64_t kMaxExplicitFlows = 100'000;
// A flow's largest size: one RDMA message (IB: at most 2^31 bytes).
inline constexpr uint64_t kMaxFlowBytes = uint64_t{1} << 31;
// The latest time a workload names (a start, the end of the arrivals).
inline constexpr uint64_t kMaxWorkloadTimeNs = 3600ull * 1'000'000'000;
// The QPN a flow without `qp` sends from (and every flow's receiving QPN):
// 0x100 + its id, as the fabric run numbers them (24 bits, never 0 or 1).
inline constexpr uint32_t default_qpn(uint64_t flow_id) {
  return static_cast<uint32_t>(0x100 + flow_id % 0xFFFE00);
}

// The keys of each form: a `flows` list, type poisson, incast, all_to_all.
const KeySchema& workload_flows_schema();
const KeySchema& workload_poisson_schema();
const KeySchema& workload_incast_schema();
const KeySchema& workload_all_to_all_schema();

Workload load_workload_file(const std::string& path, const Topology& topo, uint64_t seed);
// `source_name` names the text in errors; `base_dir` is where CDF paths are
// relative to.
Workload load_workload_text(const std::string& text, const std::string& source_name,
                            const std::string& base_dir, const Topology& topo, uint64_t seed);

}  // namespace rocelb
