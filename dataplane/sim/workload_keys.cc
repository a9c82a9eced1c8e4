// The keys of a workload file (workload.h), one table per form: a `flows`
// list, or `type` poisson, incast or all_to_all with that form's keys. Read
// by load_workload_text and rendered into docs/reference/config-keys.md.
#include "control/key_schema.h"
#include "dataplane/sim/workload.h"

namespace rocelb {
namespace {

// A workload is read once, when a fabric run starts.
constexpr KeySpec at_start(KeySpec k) {
  k.applies = Applies::kAtStart;
  return k;
}

constexpr uint64_t kMaxRounds = 10'000;  // incast repeat, all_to_all phases

constexpr KeySpec kTypeRow =
    at_start({.path = "type",
              .kind = KeyKind::kChoice,
              .help = "the form of the workload (a file without type is a flows list)",
              .choices = "poisson|incast|all_to_all",
              .required = true});
constexpr KeySpec kMaxFlowsRow =
    at_start({.path = "max_flows",
              .kind = KeyKind::kUint,
              .help = "the most flows the file may make, checked before any is made",
              .lo = 1,
              .hi = kMaxGeneratedFlows,
              .def = "2000000"});

// A size, per pair or sender, of one RDMA message at most.
constexpr KeySpec size_row(std::string_view path, std::string_view help) {
  return at_start({.path = path,
                   .kind = KeyKind::kBytes,
                   .help = help,
                   .lo = 1,
                   .hi = kMaxFlowBytes,
                   .required = true});
}
// A time in the run, 0 .. 3600 s.
constexpr KeySpec time_row(std::string_view path, std::string_view help, int64_t lo = 0,
                           std::string_view def = "0") {
  return at_start({.path = path,
                   .kind = KeyKind::kDuration,
                   .help = help,
                   .lo = lo,
                   .hi = kMaxWorkloadTimeNs,
                   .def = def});
}

constexpr KeySpec kFlowsKeys[] = {
    at_start({.path = "flows",
              .kind = KeyKind::kList,
              .help = "the flows, one RDMA message each",
              .lo = 1,
              .hi = kMaxExplicitFlows,
              .unit = "flows",
              .required = true}),
    at_start({.path = "flows[]", .kind = KeyKind::kMap, .help = "one flow"}),
    at_start({.path = "flows[].src",
              .kind = KeyKind::kOther,
              .help = "the sending host",
              .unit = "a host of the topology",
              .required = true}),
    at_start({.path = "flows[].dst",
              .kind = KeyKind::kOther,
              .help = "the receiving host, not src",
              .unit = "a host of the topology",
              .required = true}),
    size_row("flows[].size", "message size: at most one RDMA message (2^31 bytes)"),
    time_row("flows[].start", "when the flow starts"),
    at_start({.path = "flows[].qp",
              .kind = KeyKind::kUint,
              .help = "source QPN, one flow per QP of a host (default: 0x100 + the flow's place "
                      "in start order)",
              .lo = 0,
              .hi = 0xFFFFFF}),
    at_start({.path = "flows[].sport",
              .kind = KeyKind::kUint,
              .help = "UDP source port (default: drawn from the seed, 49152..65535)",
              .lo = 1,
              .hi = 65535}),
    at_start({.path = "flows[].dscp",
              .kind = KeyKind::kUint,
              .help = "DSCP of its packets (default: nic.data_dscp)",
              .lo = 0,
              .hi = 63}),
};

constexpr KeySpec kPoissonKeys[] = {
    kTypeRow,
    at_start({.path = "cdf",
              .kind = KeyKind::kOther,
              .help = "flow sizes: AliStorage2019, WebSearch, FbHdp2015, GoogleRPC2008 "
                      "(embedded), or a CDF file relative to the workload file",
              .unit = "a distribution name or a CDF file",
              .required = true}),
    at_start({.path = "load",
              .kind = KeyKind::kOther,
              .help = "each host's offered load, a fraction of its link speed",
              .unit = "a fraction 0 < load <= 1, or a percentage (0.5, 50%)",
              .required = true}),
    at_start({.path = "load_of",
              .kind = KeyKind::kChoice,
              .help = "network: load is of the leaf-spine core (ConWeave's run.py), each host "
                      "offering load / oversubscription",
              .def = "hosts",
              .choices = "hosts|network"}),
    at_start({.path = "duration",
              .kind = KeyKind::kDuration,
              .help = "arrivals in [0, duration)",
              .lo = 1,
              .hi = kMaxWorkloadTimeNs,
              .required = true}),
    at_start({.path = "pairs",
              .kind = KeyKind::kChoice,
              .help = "destinations: hosts on other leaves, or every other host",
              .def = "inter_leaf",
              .choices = "inter_leaf|any"}),
    kMaxFlowsRow,
};

constexpr KeySpec kIncastKeys[] = {
    kTypeRow,
    at_start({.path = "receiver",
              .kind = KeyKind::kOther,
              .help = "the host every sender writes to",
              .unit = "a host of the topology",
              .required = true}),
    at_start({.path = "senders",
              .kind = KeyKind::kOther,
              .help = "a list of hosts, or a count: the first N hosts other than the receiver, "
                      "those on other leaves first",
              .unit = "a list of hosts or a count",
              .required = true}),
    size_row("size", "per sender and round"),
    time_row("start", "when the first round starts"),
    at_start({.path = "repeat",
              .kind = KeyKind::kUint,
              .help = "rounds; round r starts at start + r x interval, the last by 3600s",
              .lo = 1,
              .hi = kMaxRounds,
              .def = "1"}),
    time_row("interval", "time between rounds (required if repeat > 1)", 1, ""),
    kMaxFlowsRow,
};

constexpr KeySpec kAllToAllKeys[] = {
    kTypeRow,
    at_start({.path = "hosts",
              .kind = KeyKind::kOther,
              .help = "the hosts, at least two, none twice: every ordered pair of them is a flow",
              .unit = "all, or a list of hosts",
              .required = true}),
    size_row("size", "per pair and phase"),
    at_start({.path = "phases",
              .kind = KeyKind::kUint,
              .help = "phase k+1 starts gap after every phase-k flow finished",
              .lo = 1,
              .hi = kMaxRounds,
              .def = "1"}),
    time_row("gap", "between phases; start + (phases - 1) x gap is at most 3600s"),
    time_row("start", "when phase 0 starts"),
    kMaxFlowsRow,
};

constexpr KeySchema kFlowsSchema{"workload", kFlowsKeys};
constexpr KeySchema kPoissonSchema{"workload (type: poisson)", kPoissonKeys};
constexpr KeySchema kIncastSchema{"workload (type: incast)", kIncastKeys};
constexpr KeySchema kAllToAllSchema{"workload (type: all_to_all)", kAllToAllKeys};

}  // namespace

const KeySchema& workload_flows_schema() {
  return kFlowsSchema;
}
const KeySchema& workload_poisson_schema() {
  return kPoissonSchema;
}
const KeySchema& workload_incast_schema() {
  return kIncastSchema;
}
const KeySchema& workload_all_to_all_schema() {
  return kAllToAllSchema;
}

}  // namespace rocelb
