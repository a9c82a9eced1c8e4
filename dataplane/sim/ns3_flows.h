// HPCC's and ConWeave's ns-3 flow files read directly (`rocelb-dp fabric
// --workload flow.txt`), as their simulators' ReadFlowInput reads them:
//   N                               the number of flows
//   src dst pg size start           ConWeave (traffic_gen/traffic_gen.py), or
//   src dst pg dport size start     HPCC (its traffic_gen.py): one per flow
// src, dst: ns-3 node ids of hosts (rocelb's host h<id>: the ns-3 topology
// reader's names, and the generated leaf-spine's); pg: the priority group,
// which must be the NIC's data priority (nic.data_priority, 3 by default,
// what both generators write); dport: read and unused (RoCEv2's destination
// port is 4791; a flow is its own QP); size: bytes, 0 read as 1 (as
// ConWeave's ScheduleFlowInputs does), at most 2 GiB; start: seconds,
// decimal, rounded to the nanosecond. The generators start flows at 2 s
// (their base_t), after ns-3's set-up time; rocelb needs none, so every
// start is moved back by the earliest start's whole seconds (2 s for theirs:
// a flow at 2.000001234 starts at 1.234 us) — Workload::description says by
// how much. Each line holds one flow; every flow has the form of the first;
// after the N-th flow only blank lines; N at most 5,000,000 (the generated
// forms' limit), the file at most 256 MiB. A file is one when its first
// line is one whole number (is_ns3_flows), whatever its name. Errors are
// "FILE:LINE: rule". Flow ids follow the file (ns-3's StatFlowID) when it
// is in start order, as the generators write it. Knobs, counters: none.
#pragma once

#include <string>
#include <string_view>

#include "dataplane/sim/workload.h"

namespace rocelb {

// The largest ns-3 flow file read.
inline constexpr size_t kMaxNs3FlowFileBytes = size_t{256} << 20;

// Whether `text` is an ns-3 flow file: its first line with a token holds
// exactly one, a whole number.
bool is_ns3_flows(std::string_view text);

Workload load_ns3_flows(const std::string& text, const std::string& source, const Topology& topo);

}  // namespace rocelb
