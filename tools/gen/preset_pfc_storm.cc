#include "tools/gen/preset_pfc_storm.h"

#include <algorithm>

#include "pfc/pfc_frame.h"

namespace rocelb {
namespace {

constexpr PresetParamSpec kParams[] = {
    {"port", "auto", "the storming host's port (auto: the last host port)"},
    {"priority", "3", "the priority paused, 0..7"},
    {"quanta", "65535", "pause time of each frame in 512-bit quanta, 1..65535"},
    {"interval", "100us", "time between XOFF frames"},
    {"start", "100us", "when the storm begins"},
    {"duration", "auto", "how long it lasts (auto: twice the watchdog's detection_time)"},
    {"senders", "1", "other host ports writing toward the storming port"},
    {"message", "64KiB", "bytes per RDMA WRITE of a sender"},
    {"every", "1ms", "one message per sender this often"},
    {"mtu", "1024", "RoCE path MTU: 256, 512, 1024, 2048 or 4096"},
};

ScenarioParams build(const PresetArgs& a, PresetContext& ctx) {
  const auto hosts = host_ports(ctx.config);
  if (hosts.size() < 2) a.fail("port", "the switch config needs at least two host ports");
  const WatchdogParams& wd = ctx.config.qos.lossless.watchdog;
  size_t victim = hosts.size() - 1;
  if (!a.is("port", "auto")) {
    const auto port = a.uint("port", 0, kMaxPorts - 1);
    auto it =
        std::find_if(hosts.begin(), hosts.end(), [&](const HostPort& h) { return h.port == port; });
    if (it == hosts.end()) a.fail("port", "not a host port (a port with a host neighbor)");
    victim = static_cast<size_t>(it - hosts.begin());
  }
  const auto priority = static_cast<uint8_t>(a.uint("priority", 0, 7));
  const auto quanta = static_cast<uint16_t>(a.uint("quanta", 1, kMaxPauseQuanta));
  const uint64_t interval = a.duration("interval", 1, 1'000'000'000);
  const uint64_t start = a.duration("start", 0, 60'000'000'000ull);
  const uint64_t duration = a.is("duration", "auto")
                                ? 2 * wd.detection_ns
                                : a.duration("duration", 1, 3'600'000'000'000ull);
  const auto senders = a.uint("senders", 1, hosts.size() - 1);
  const uint64_t message = a.bytes("message", 1, 1ull << 31);
  const uint64_t every = a.duration("every", 1, 60'000'000'000ull);
  const auto mtu = static_cast<uint32_t>(a.uint("mtu", 256, 4096));
  if (mtu & (mtu - 1)) a.fail("mtu", "mtu must be one of 256, 512, 1024, 2048, 4096");

  ScenarioParams sc;
  const HostPort& v = hosts[victim];
  PfcSourceParams p;
  p.name = "storm";
  p.in_port = v.port;
  p.class_enable = static_cast<uint8_t>(1u << priority);
  p.quanta = quanta;
  p.start_ns = start;
  p.interval_ns = interval;
  p.count = std::max<uint64_t>(1, duration / interval);
  if (p.count > kMaxPfcFrames)
    a.fail("interval", "duration / interval is " + std::to_string(p.count) +
                           " PFC frames: a PFC source sends at most " +
                           std::to_string(kMaxPfcFrames));
  sc.pfc.push_back(p);

  std::optional<uint8_t> dscp;
  for (uint8_t d = 0; d < 64 && !dscp; ++d)
    if (ctx.config.qos.dscp_to_tc[d] == priority) dscp = d;
  const uint64_t end = start + duration + wd.restoration_ns;
  const uint64_t rate = v.speed_bps;
  const uint64_t wire = message_wire_ns(message, mtu, rate);
  if (wire > every) a.fail("every", "every must be longer than one message takes on the wire");
  size_t s = 0;
  for (size_t i = 0; i < hosts.size() && s < senders; ++i) {
    if (i == victim) continue;
    FlowParams f = preset_flow("to-storm" + std::to_string(s), hosts[i].port, hosts[i].ip, v.ip,
                               hosts[i].speed_bps);
    f.sport = static_cast<uint16_t>(49152 + s);
    f.dest_qp = 0x500 + static_cast<uint32_t>(s);
    f.dscp = dscp.value_or(26);
    f.message_bytes = message;
    f.messages = static_cast<uint32_t>(std::min<uint64_t>(1'000'000, end / every + 1));
    f.gap_ns = every - message_wire_ns(message, mtu, f.rate_bps);
    f.mtu = mtu;
    sc.flows.push_back(std::move(f));
    ++s;
  }
  ctx.notes.push_back("port " + std::to_string(v.port) + " sends " + std::to_string(p.count) +
                      " PFC XOFF frames for priority " + std::to_string(priority) + " from " +
                      std::to_string(start / 1000) + "us; the PFC watchdog (" +
                      (wd.enabled ? "enabled" : "disabled") + ", detection_time " +
                      std::to_string(wd.detection_ns / 1000) +
                      "us) should fire about detection_time after the storm begins");
  if (!dscp)
    ctx.notes.push_back("no DSCP maps to traffic class " + std::to_string(priority) +
                        ": the senders use DSCP 26");
  return sc;
}

}  // namespace

const PresetDef& pfc_storm_preset() {
  static const PresetDef def{"pfc-storm",
                             "a host that keeps sending PFC XOFF beside RoCE traffic toward it, "
                             "long enough for the switch's PFC watchdog to fire",
                             kParams, build};
  return def;
}

}  // namespace rocelb
