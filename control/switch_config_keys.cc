#include "control/switch_config_keys.h"

#include <cstdint>

#include "common/constants.h"

namespace rocelb {
namespace {

using K = KeyKind;
constexpr Applies kLive = Applies::kLive;
constexpr Applies kRestart = Applies::kRestart;
constexpr Applies kAtStart = Applies::kAtStart;
constexpr bool kRequired = true;

constexpr uint64_t kU64 = UINT64_MAX;
constexpr uint64_t kUs = 1'000;
constexpr uint64_t kMs = 1'000'000;
constexpr uint64_t kSec = 1'000'000'000;
constexpr uint64_t kGB = 1'000'000'000;
constexpr int64_t kLastPort = kMaxPorts - 1;
constexpr int64_t kLastClass = 7;  // kNumTrafficClasses - 1, kPfcPriorities - 1

// Every key, in the order of configs/default.yaml. Ranges are the rules of
// the switch (lb/lb_knobs.h, pfc/pfc_params.h, common/constants.h);
// defaults are what the loader fills in when a key is absent.
constexpr KeySpec kRows[] = {
    {"switch", K::kMap, "the switch as a whole"},
    {"switch.name", K::kName, "the switch's name, in logs, `show` replies and recorded files", 0, 0,
     "", "rocelb"},
    {"switch.hash_seed", K::kUint,
     "seeds the ECMP hash: two switches in a row with different seeds do not polarize", 0, kU64, "",
     "0"},

    {"control", K::kMap,
     "the control socket `rocelb-dp run` serves to rocelbctl and rocelbd "
     "(control/control-protocol.md); only root changes these on a running switch"},
    {"control.socket", K::kString,
     "the socket's path, absolute, at most 107 bytes; taken when the switch starts, a running "
     "switch keeps its socket",
     0, 0, "an absolute path", "/run/rocelb/rocelb.sock", "", kAtStart},
    {"control.group", K::kString,
     "the group whose members may connect (mode 0660); absent: the group of the user running the "
     "switch",
     0, 0, "a group name"},
    {"control.max_clients", K::kUint,
     "connections at once; a lowered limit refuses newcomers and closes nobody", 1, 1024, "", "16"},
    {"control.max_clients_per_uid", K::kUint,
     "connections of one uid at once, at most max_clients; absent: max_clients - 1, so one user's "
     "leaked connections leave a slot for another",
     1, 1024},
    {"control.client_timeout", K::kDuration,
     "a request begun or a reply unread this long: the client is dropped", 1 * kMs, 3600 * kSec, "",
     "10s"},
    {"control.idle_timeout", K::kDuration, "a client with nothing pending this long is closed",
     1 * kMs, 3600 * kSec, "", "30s"},

    {"limits", K::kMap, "what the switch may ask of the machine"},
    {"limits.max_memory", K::kBytes,
     "the most the config's memory estimate may reach (tables, rings, packet pool); over it the "
     "config is refused, naming the key that asks the most",
     1'000'000, 1'000'000 * kGB, "", "4GB"},

    {"ports", K::kList, "the switch's ports; adding or removing one needs a restart", 1, kMaxPorts,
     "ports", "", "", kRestart, kRequired},
    {"ports[]", K::kMap, "one port"},
    {"ports[].id", K::kUint, "the port's number, none twice", 0, kLastPort, "", "", "", kRestart,
     kRequired},
    {"ports[].name", K::kName, "the port's name, none twice", 0, 0, "", "port<id>"},
    {"ports[].speed", K::kSpeed, "the link's speed: 100G, 25Gbps, 2.5G or bits/s", 1'000'000,
     1'600 * kGB, "", "", "", kLive, kRequired},
    {"ports[].mac", K::kOther, "the port's MAC address: unicast, not all-zero, none twice", 0, 0,
     "a MAC address", "", "", kLive, kRequired},
    {"ports[].ipv4", K::kOther,
     "the switch's IPv4 address on this link with its subnet's length (10.0.0.1/24); not the "
     "subnet's network or broadcast address, subnets of two ports do not overlap",
     0, 0, "an IPv4 address/length"},
    {"ports[].ipv6", K::kOther,
     "the switch's IPv6 address on this link with its subnet's length (fd00::1/64)", 0, 0,
     "an IPv6 address/length"},
    {"ports[].device", K::kString,
     "live mode's DPDK device: net_tap0,iface=x, a PCI address, net_af_xdp0,iface=eth1...; two "
     "ports never share a device or an interface",
     0, 0, "a DPDK device", "", "", kRestart},
    {"ports[].promiscuous", K::kBool,
     "take frames to any unicast MAC (to replay captures made elsewhere)", 0, 0, "", "false"},
    {"ports[].admin_status", K::kChoice, "down: the port forwards nothing and no group chooses it",
     0, 0, "", "up", "up|down"},
    {"ports[].mtu", K::kUint,
     "the largest IP packet the port takes in or sends out; at least 1280 with an IPv6 address; "
     "set on the device when it starts",
     68, 9216, "bytes", "1500", "", kRestart},
    {"ports[].scheduler", K::kMap, "this port's egress scheduler, instead of qos.scheduler"},
    {"ports[].scheduler.strict", K::kList, "traffic classes served first, highest class first"},
    {"ports[].scheduler.strict[]", K::kUint, "a strict-priority class, none twice", 0, kLastClass,
     "traffic class"},
    {"ports[].scheduler.weights", K::kMapOf, "DWRR weights of the classes that are not strict", 0,
     kLastClass, "traffic class"},
    {"ports[].scheduler.weights.*", K::kUint, "the class's share of what strict classes leave", 1,
     100, "", "1"},
    {"ports[].xdp_steering", K::kChoice,
     "on an AF_XDP port (device net_af_xdpN,iface=IF), which frames rocelb's XDP program gives "
     "the switch: off: every frame (DPDK's program); roce: RoCE, MAC control, neighbor discovery "
     "and the port's own addresses, the rest to the kernel; all: every frame, counted",
     0, 0, "", "off", "off|roce|all", kRestart},
    {"ports[].link_detect", K::kChoice,
     "whether the device's link state takes the port down and up; auto: yes, except net_tap and "
     "devices without a link (net_null, net_ring, net_pcap)",
     0, 0, "", "auto", "auto|on|off", kRestart},

    {"neighbors", K::kList, "static neighbors: which MAC answers for an IP, on which port"},
    {"neighbors[]", K::kMap, "one neighbor"},
    {"neighbors[].ip", K::kOther,
     "its IP address: inside its port's subnet, not the port's own, none twice", 0, 0,
     "an IP address", "", "", kLive, kRequired},
    {"neighbors[].mac", K::kOther, "its MAC address: unicast, not all-zero", 0, 0, "a MAC address",
     "", "", kLive, kRequired},
    {"neighbors[].port", K::kUint, "the configured port it sits on", 0, kLastPort, "", "", "",
     kLive, kRequired},

    {"groups", K::kMapOf, "next-hop groups a route spreads its traffic over, by name", 0, 0,
     "group name"},
    {"groups.*", K::kMap, "one group", 0, 0, "group"},
    {"groups.*.mode", K::kChoice,
     "how a packet picks its member (docs/reference/engines.md); every knob below is taken in "
     "every mode, each mode reads its own",
     0, 0, "", "fixed",
     "fixed|wcmp|resilient|flowlet_random|flowlet_quality|per_packet_quality|per_packet_random|"
     "drill|bpf|conweave"},
    {"groups.*.members", K::kList,
     "the group's next hops: configured neighbors' IPs, or maps {via, weight}; none twice; mode "
     "bpf takes at most 64 (lb/bpf/rocelb_policy.h)",
     1, 256, "members", "", "", kLive, kRequired},
    {"groups.*.members[]", K::kOther, "a neighbor's IP, or a map {via, weight}", 0, 0,
     "an IP address or {via, weight}"},
    {"groups.*.members[].via", K::kOther, "the neighbor's IP", 0, 0, "an IP address", "", "", kLive,
     kRequired},
    {"groups.*.members[].weight", K::kUint, "the member's weight in weighted modes (wcmp)", 1,
     65535, "", "1"},
    {"groups.*.hash_fields", K::kList, "the header fields the flow hash covers, none twice", 1, 6,
     "fields", "[src_ip, dst_ip, proto, src_port, dst_port]"},
    {"groups.*.hash_fields[]", K::kChoice, "one field", 0, 0, "", "",
     "src_ip|dst_ip|proto|src_port|dst_port|dest_qp"},
    {"groups.*.idle_time", K::kDuration,
     "flowlet modes: a flow idle this long starts a new flowlet", 100, 1 * kSec, "", "256us"},
    {"groups.*.sampling_interval", K::kDuration, "how often each port's transmit load is sampled",
     100, 1 * kSec, "", "16us"},
    {"groups.*.max_flows", K::kUint,
     "flowlet modes: flowlet table entries per forwarding core; conweave: its flow tables", 64,
     1u << 20, "a power of two", "4096"},
    {"groups.*.buckets", K::kUint,
     "wcmp, resilient: bucket table entries, at least one per member; absent: wcmp 4096, "
     "resilient 256 (which takes at most 4096)",
     64, 65536, "a power of two"},
    {"groups.*.quality", K::kMap,
     "how good a path is, for flowlet_quality and per_packet_quality: a level of its load and one "
     "of its queue, each 0..7, weighted"},
    {"groups.*.quality.load_weight", K::kUint,
     "percent of the quality from the load level; absent: 100 - queue_weight", 0, 100, "percent",
     "50"},
    {"groups.*.quality.queue_weight", K::kUint,
     "percent of the quality from the queue level; absent: 100 - load_weight", 0, 100, "percent",
     "50"},
    {"groups.*.quality.load_thresholds", K::kList,
     "the load levels: seven increasing loads, in percent of the link speed", 7, 7,
     "increasing thresholds", "[10, 25, 40, 55, 70, 80, 90]"},
    {"groups.*.quality.load_thresholds[]", K::kUint, "one load threshold", 1, 100, "percent"},
    {"groups.*.quality.queue_thresholds", K::kList,
     "the queue levels: seven increasing queue depths", 7, 7, "increasing thresholds",
     "[16KB, 32KB, 64KB, 128KB, 256KB, 512KB, 1MB]"},
    {"groups.*.quality.queue_thresholds[]", K::kBytes, "one queue threshold", 1, 1 * kGB},
    {"groups.*.quality.depth", K::kChoice,
     "the queue depth of the whole port, or of the packet's class", 0, 0, "", "port", "port|class"},
    {"groups.*.quality.load_alpha", K::kFraction,
     "the weight of a new sample in the transmit-load average", 1, 1000, "", "0.25"},
    {"groups.*.drill", K::kMap, "drill's choice"},
    {"groups.*.drill.d", K::kUint, "random members sampled per packet", 1, 16, "", "2"},
    {"groups.*.drill.m", K::kUint, "best members remembered from the last decision", 0, 16, "",
     "1"},
    {"groups.*.drill.memory", K::kChoice,
     "what the remembered best is kept for: the group (the paper), or each destination IP "
     "(ConWeave's ns-3; max_flows entries, drill.m 1)",
     0, 0, "", "group", "group|destination"},
    {"groups.*.control_by_hash", K::kBool,
     "RoCE ACK/NAK and CNP frames take the flow hash's member (ECMP) whatever the mode, as "
     "ConWeave's ns-3 routes control packets",
     0, 0, "", "false"},
    {"groups.*.conweave", K::kMap,
     "mode conweave: ConWeave's source-ToR rerouting and destination-ToR reordering "
     "(docs/reference/engines.md); defaults are ConWeave's ns-3 module's"},
    {"groups.*.conweave.tx_expiry", K::kDuration,
     "a flow idle this long starts a new epoch and may move at once", 1000, 1 * kSec, "", "1ms"},
    {"groups.*.conweave.reply_timeout_extra", K::kDuration,
     "an epoch's RTT reply is due base_rtt plus this after its request; later, the flow moves", 0,
     1 * kSec, "", "4us"},
    {"groups.*.conweave.base_rtt", K::kDuration,
     "the round trip to the far ToR with empty queues (ConWeave's ns-3: 4 link delays on a "
     "2-tier fabric)",
     0, 1 * kSec, "", "4us"},
    {"groups.*.conweave.path_pause", K::kDuration,
     "a member a notify named (a CE mark on it) is not chosen for this long", 0, 1 * kSec, "",
     "8us"},
    {"groups.*.conweave.voq_flush_extra", K::kDuration,
     "destination ToR: held packets leave this long after the tail's predicted arrival at the "
     "latest",
     0, 1 * kSec, "", "32us"},
    {"groups.*.conweave.voq_default_wait", K::kDuration,
     "destination ToR: the predicted wait for a tail when no packet of the old path was seen", 0,
     1 * kSec, "", "500us"},
    {"groups.*.conweave.reply_dscp", K::kUint,
     "DSCP of the RTT replies, clears and notifies the destination ToR sends (their class: "
     "qos.dscp_map)",
     0, 63, "", "48"},
    {"groups.*.conweave.hold_packets", K::kUint,
     "destination ToR: packets one forwarding core may hold for reordering; past it they pass "
     "out of order (counted)",
     16, 1u << 20, "", "16384"},
    {"groups.*.seed", K::kUint,
     "mixed with switch.hash_seed and the core into the group's random choices", 0, kU64, "", "0"},
    {"groups.*.bpf", K::kMap, "mode bpf: the user's policy (lb/bpf/README.md)"},
    {"groups.*.bpf.program", K::kString,
     "the policy's ELF object (clang -O2 -target bpf -c policy.c), required by mode bpf; read "
     "again whenever it is set",
     0, 0, "a path"},
    {"groups.*.bpf.section", K::kString,
     "the policy's NAME (ELF section rocelb/NAME); absent: the object's only policy"},
    {"groups.*.bpf.jit", K::kBool, "false: rte_bpf's interpreter instead of its JIT", 0, 0, "",
     "true"},
    {"groups.*.bpf.validation_steps", K::kUint,
     "the most instruction evaluations rte_bpf's validator may spend on the policy", 1, 100'000'000,
     "", "10000000"},

    {"routes", K::kList,
     "longest-prefix-match routes; connected subnets and the switch's own addresses are added "
     "and win over a static route for the same prefix",
     0, 1u << 20, "routes"},
    {"routes[]", K::kMap, "one route: a prefix and exactly one of group, via, port"},
    {"routes[].prefix", K::kOther, "the destination prefix: no host bits set, none twice", 0, 0,
     "an IP prefix", "", "", kLive, kRequired},
    {"routes[].group", K::kName, "a group spreads the route's traffic"},
    {"routes[].via", K::kOther, "one configured neighbor takes it", 0, 0, "an IP address"},
    {"routes[].port", K::kUint,
     "the destination is looked up among the neighbors of this configured port", 0, kLastPort},

    {"qos", K::kMap,
     "quality of service: the 8 traffic classes, the egress scheduler, lossless RoCE "
     "(docs/reference/lossless.md)"},
    {"qos.trust", K::kChoice,
     "dscp: IP packets by their DSCP, other frames by PCP; pcp: tagged frames by PCP", 0, 0, "",
     "dscp", "dscp|pcp"},
    {"qos.default_tc", K::kUint, "the class of a DSCP or PCP not listed", 0, kLastClass,
     "traffic class", "0"},
    {"qos.dscp_to_tc", K::kMapOf, "traffic class by DSCP (SONiC DSCP_TO_TC_MAP)", 0, 63, "DSCP"},
    {"qos.dscp_to_tc.*", K::kUint, "the class of packets with this DSCP", 0, kLastClass,
     "traffic class"},
    {"qos.pcp_to_tc", K::kMapOf, "traffic class by VLAN priority (SONiC DOT1P_TO_TC_MAP)", 0, 7,
     "PCP"},
    {"qos.pcp_to_tc.*", K::kUint, "the class of frames with this PCP", 0, kLastClass,
     "traffic class"},
    {"qos.scheduler", K::kMap, "every port's egress scheduler"},
    {"qos.scheduler.strict", K::kList, "traffic classes served first, highest class first"},
    {"qos.scheduler.strict[]", K::kUint, "a strict-priority class, none twice", 0, kLastClass,
     "traffic class"},
    {"qos.scheduler.weights", K::kMapOf, "DWRR weights of the classes that are not strict", 0,
     kLastClass, "traffic class"},
    {"qos.scheduler.weights.*", K::kUint, "the class's share of what strict classes leave", 1, 100,
     "", "1"},
    {"qos.queue_limit", K::kBytes, "the tail-drop limit of every (port, class) queue", 64, 1 * kGB,
     "", "4MB"},
    {"qos.queue_limits", K::kMapOf, "the limit of one class's queues, instead of queue_limit", 0,
     kLastClass, "traffic class"},
    {"qos.queue_limits.*", K::kBytes, "the tail-drop limit of this class's queues", 64, 1 * kGB},
    {"qos.pfc_enable", K::kList,
     "the lossless priorities, which send PFC pause frames (priority p is class p); [] turns PFC "
     "off",
     0, 0, "priorities", "[3]"},
    {"qos.pfc_enable[]", K::kUint, "a lossless priority, none twice", 0, kLastClass, "priority"},
    {"qos.pfc", K::kMap, "PFC pause frames and their thresholds"},
    {"qos.pfc.pause_time", K::kUint,
     "the time each pause frame asks for (65535: 335.5 us at 100 Gb/s)", 1, 65535,
     "quanta of 512 bit times", "65535"},
    {"qos.pfc.refresh", K::kChoice,
     "how an asserted pause is kept: timer, re-sent at half its pause time until XON; "
     "on_arrival, re-sent when a packet arrives over XOFF and else left to lapse, with no XON "
     "after it lapsed (HPCC's and ConWeave's ns-3)",
     0, 0, "", "timer", "timer|on_arrival"},
    {"qos.pfc.admission", K::kChoice,
     "when a lossless packet is refused: headroom, once its ingress PG holds its XOFF threshold "
     "plus its headroom (a switch ASIC); shared_pool, only when the shared buffer less every "
     "port's headroom is full as well, the threshold only sending PFC (HPCC's and ConWeave's "
     "ns-3)",
     0, 0, "", "headroom", "headroom|shared_pool"},
    {"qos.pfc.xoff", K::kBytes,
     "static threshold: pause an ingress port once its packets of a lossless priority hold this "
     "many bytes; not with dynamic_th",
     64, 1 * kGB, "", "1.6MB"},
    {"qos.pfc.xon", K::kBytes, "static threshold: resume it below this; below xoff", 0, 1 * kGB, "",
     "1.2MB"},
    {"qos.pfc.dynamic_th", K::kInt,
     "dynamic thresholds instead of xoff and xon: XOFF at 2^dynamic_th times the free shared "
     "buffer (SONiC)",
     -7, 3},
    {"qos.pfc.xon_offset", K::kBytes, "with dynamic_th: XON this far below XOFF", 64, 1 * kGB, "",
     "64KB"},
    {"qos.pfc.headroom", K::kBytes,
     "room per lossless priority for what still arrives after a pause; auto: from the port's "
     "speed, cable_length and response_delay",
     64, 1 * kGB, "", "auto", "auto"},
    {"qos.pfc.cable_length", K::kLength, "the cable to the peer, for the auto headroom", 1, 100'000,
     "", "100m"},
    {"qos.pfc.response_delay", K::kDuration,
     "how long the peer takes to obey a pause, for the auto headroom", 0, 1 * kMs, "", "1us"},
    {"qos.buffer", K::kMap, "the switch's shared packet memory"},
    {"qos.buffer.shared_size", K::kBytes, "what dynamic thresholds divide (SONiC BUFFER_POOL size)",
     64'000, 1 * kGB, "", "32MB"},
    {"qos.wred", K::kMapOf,
     "WRED/ECN profiles by traffic class (SONiC WRED_PROFILE); none: no WRED", 0, kLastClass,
     "traffic class"},
    {"qos.wred.*", K::kMap, "one class's profile", 0, 0, "WRED profile"},
    {"qos.wred.*.green_min_threshold", K::kBytes, "below this queue depth nothing is marked", 0,
     1 * kGB, "", "", "", kLive, kRequired},
    {"qos.wred.*.green_max_threshold", K::kBytes,
     "above green_min_threshold; from there the chance rises in a line to green_drop_probability, "
     "above it every ECN-capable packet is marked",
     0, 1 * kGB, "", "", "", kLive, kRequired},
    {"qos.wred.*.green_drop_probability", K::kUint, "the chance of a mark at green_max_threshold",
     0, 100, "percent", "100"},
    {"qos.wred.*.ecn", K::kChoice,
     "ecn_all: mark ECN-capable packets CE; ecn_none: drop, never mark (not on a lossless class)",
     0, 0, "", "ecn_all", "ecn_all|ecn_none"},
    {"qos.ecn_mark", K::kChoice,
     "where the mark is decided: when a packet joins its queue, or when it leaves it", 0, 0, "",
     "enqueue", "enqueue|dequeue"},
    {"qos.pfc_watchdog", K::kMap,
     "the PFC watchdog (SONiC PFC_WD): a lossless queue paused too long"},
    {"qos.pfc_watchdog.enabled", K::kBool, "whether the watchdog runs", 0, 0, "", "true"},
    {"qos.pfc_watchdog.detection_time", K::kDuration,
     "a lossless queue that holds packets but stays paused this long is in a PFC storm", 1 * kMs,
     60 * kSec, "", "200ms"},
    {"qos.pfc_watchdog.restoration_time", K::kDuration,
     "this long without pause frames ends the storm", 1 * kMs, 60 * kSec, "", "200ms"},
    {"qos.pfc_watchdog.action", K::kChoice,
     "in a storm: drop the queue's packets and stop pausing for it, forward them ignoring the "
     "pauses, or only count",
     0, 0, "", "drop", "drop|forward|alert"},
    {"qos.pfc_watchdog.poll_interval", K::kDuration,
     "how often the queues are checked; at most detection_time and restoration_time", 100 * kUs,
     1 * kSec, "", "1ms"},
};

constexpr KeySchema kSchema{"switch config", kRows};

}  // namespace

const KeySchema& switch_config_schema() {
  return kSchema;
}

}  // namespace rocelb
