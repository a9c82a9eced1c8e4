// HPCC's and ConWeave's ns-3 topology files read directly (`rocelb-dp
// fabric --topology leaf_spine_128_100G_OS2.txt`), as their simulators read
// them (ConWeave's scratch/network-load-balance.cc, HPCC's third.cc):
//   N S L                       nodes, switches, links
//   id id ..                    the S switch node ids; the other nodes are hosts
//   src dst rate delay error    L links: node ids, an ns-3 DataRate
//   ..                          ("100Gbps"), an ns-3 Time ("1000ns"), the
//                               link's packet error rate
// Tokens may be split over lines as ns-3's `>>` allows; what follows the
// L-th link is ignored, as ns-3 ignores it (ConWeave's files end with notes). A file is one when
// its first line is three whole numbers (is_ns3_topology), whatever its name. What rocelb makes of
// it: hosts h<id>, switches sw<id>, ports in link order, generated addressing and shortest-path
// ECMP routes as ns-3's global routing computes them (topology_graph.h); every switch starts from
// the embedded default config and every NIC from its defaults (`--set` changes both, `nic.*` the
// NICs). Limits and rules, each refused as "FILE:LINE: rule": N at most 1,000,000, L at most
// 4,000,000; a switch id below N and none twice; a link between two nodes, one of them a switch, a
// host on one link only (one NIC port); rates 1 Mb/s .. 1.6 Tb/s; delays whole nanoseconds up to 1
// s; error rate 0 (rocelb's links lose no packet at random: use a scenario's loss instead); a
// switch at most 64 ports. Knobs, counters: none.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "dataplane/sim/topology.h"

namespace rocelb {

// Whether `text` is in the ns-3 topology format: its first line with a
// token has exactly three, each a whole number.
bool is_ns3_topology(std::string_view text);

Topology load_ns3_topology(const std::string& text, const std::string& source,
                           const std::vector<std::string>& overrides);

}  // namespace rocelb
