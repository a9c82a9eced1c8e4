// configs/default.yaml and configs/live-vdev.yaml load and describe the leaf
// switch the docs promise: 8 ports at 100 Gb/s, hosts on 0-3, spines on 4-7,
// lossless RoCE on priority 3 with ECN below the PFC threshold.
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

#include "control/config_loader.h"
#include "control/default_config.h"

namespace rocelb {
namespace {

const std::string kDefault = std::string(ROCELB_SOURCE_DIR) + "/configs/default.yaml";
const std::string kLive = std::string(ROCELB_SOURCE_DIR) + "/configs/live-vdev.yaml";

IpAddr ip(const std::string& s) {
  IpAddr a;
  EXPECT_TRUE(parse_ip(s, a)) << s;
  return a;
}

void check_leaf(const ConfigParams& c) {
  EXPECT_EQ(c.sw.name, "leaf1");
  EXPECT_EQ(c.sw.hash_seed, 0x5eedu);

  ASSERT_EQ(c.ports.size(), 8u);
  for (int n = 0; n < 8; ++n) {
    SCOPED_TRACE("port " + std::to_string(n));
    const PortParams& p = c.ports[n];
    EXPECT_EQ(p.id, n);
    EXPECT_EQ(p.speed_bps, 100'000'000'000u);
    EXPECT_EQ(to_string(p.mac), "02:00:00:00:00:0" + std::to_string(n));
    EXPECT_FALSE(p.promiscuous);
    EXPECT_FALSE(p.scheduler);
    ASSERT_TRUE(p.ipv4);
    ASSERT_TRUE(p.ipv6);
    bool host = n < 4;
    EXPECT_EQ(p.name, host ? "host" + std::to_string(n) : "spine" + std::to_string(n - 4));
    EXPECT_EQ(to_string(*p.ipv4), (host ? "10.0." : "10.1.") + std::to_string(n) + ".1/24");
    IpPrefix want_v6;
    ASSERT_TRUE(parse_prefix((host ? "fd00:0:" : "fd00:1:") + std::to_string(n) + "::1/64", want_v6,
                             nullptr));
    EXPECT_EQ(*p.ipv6, want_v6);

    // One IPv4 and one IPv6 neighbor on each port, with the same MAC.
    std::string mac = (host ? "02:00:00:00:01:0" : "02:00:00:00:02:0") + std::to_string(n);
    const NeighborParams* v4 =
        c.find_neighbor(ip((host ? "10.0." : "10.1.") + std::to_string(n) + ".2"));
    const NeighborParams* v6 =
        c.find_neighbor(ip((host ? "fd00:0:" : "fd00:1:") + std::to_string(n) + "::2"));
    ASSERT_NE(v4, nullptr);
    ASSERT_NE(v6, nullptr);
    EXPECT_EQ(v4->port, n);
    EXPECT_EQ(v6->port, n);
    EXPECT_EQ(to_string(v4->mac), mac);
    EXPECT_EQ(to_string(v6->mac), mac);
  }
  EXPECT_EQ(c.neighbors.size(), 16u);

  ASSERT_EQ(c.groups.size(), 1u);
  const GroupParams& g = c.groups[0];
  EXPECT_EQ(g.name, "uplinks");
  EXPECT_EQ(g.mode, LbMode::kFixed);
  EXPECT_EQ(g.hash_fields, kHashFiveTuple);
  ASSERT_EQ(g.members.size(), 4u);
  for (int k = 0; k < 4; ++k) {
    EXPECT_EQ(to_string(g.members[k].via), "10.1." + std::to_string(k + 4) + ".2");
    EXPECT_EQ(g.members[k].weight, 1u);
  }

  ASSERT_EQ(c.routes.size(), 2u);
  EXPECT_EQ(to_string(c.routes[0].prefix), "0.0.0.0/0");
  EXPECT_EQ(c.routes[0].target, RouteTarget::kGroup);
  EXPECT_EQ(c.routes[0].group, "uplinks");
  EXPECT_EQ(to_string(c.routes[1].prefix), "::/0");
  EXPECT_EQ(c.routes[1].target, RouteTarget::kGroup);
  EXPECT_EQ(c.routes[1].group, "uplinks");

  const QosParams& q = c.qos;
  EXPECT_EQ(q.trust, Trust::kDscp);
  EXPECT_EQ(q.default_tc, 0);
  for (int d = 0; d < 64; ++d) EXPECT_EQ(q.dscp_to_tc[d], d == 26 ? 3 : d == 48 ? 6 : 0) << d;
  for (int p = 0; p < 8; ++p) EXPECT_EQ(q.pcp_to_tc[p], p == 3 ? 3 : p == 6 ? 6 : 0) << p;
  for (int tc = 0; tc < kNumTrafficClasses; ++tc) {
    EXPECT_EQ(q.scheduler.strict[tc], tc == 6) << tc;
    EXPECT_EQ(q.scheduler.weight[tc], tc == 0 || tc == 3 ? 50u : 1u) << tc;
    EXPECT_EQ(q.queue_limit_bytes[tc], 4'000'000u) << tc;
  }

  // A lossless RoCE leaf: PFC on priority 3, ECN on class 3 below XOFF.
  const LosslessParams& l = q.lossless;
  EXPECT_EQ(l.pfc.enable_mask, 1u << 3);
  EXPECT_EQ(l.pfc.pause_quanta, 65535u);
  EXPECT_FALSE(l.pfc.dynamic);
  EXPECT_EQ(l.pfc.xoff_bytes, 1'600'000u);
  EXPECT_EQ(l.pfc.xon_bytes, 1'200'000u);
  EXPECT_EQ(l.pfc.headroom_bytes, 0u);  // auto
  EXPECT_EQ(l.pfc.cable_length_m, 100u);
  EXPECT_EQ(l.pfc.response_delay_ns, 1000u);
  EXPECT_EQ(l.pfc.shared_buffer_bytes, 32'000'000u);
  for (int tc = 0; tc < kNumTrafficClasses; ++tc) {
    if (tc == 3) continue;
    EXPECT_FALSE(l.wred[tc].enabled) << tc;
  }
  const WredProfile& w = l.wred[3];
  EXPECT_TRUE(w.enabled);
  EXPECT_EQ(w.min_bytes, 150'000u);
  EXPECT_EQ(w.max_bytes, 1'500'000u);
  EXPECT_EQ(w.probability_pct, 100u);
  EXPECT_EQ(w.ecn, EcnMode::kEcnAll);
  EXPECT_GT(l.pfc.xoff_bytes, w.max_bytes) << "ECN must act before PFC";
  EXPECT_EQ(l.ecn_mark, EcnMarkPoint::kEnqueue);
  EXPECT_TRUE(l.watchdog.enabled);
  EXPECT_EQ(l.watchdog.detection_ns, 200'000'000u);
  EXPECT_EQ(l.watchdog.restoration_ns, 200'000'000u);
  EXPECT_EQ(l.watchdog.action, WatchdogAction::kDrop);
  EXPECT_EQ(l.watchdog.poll_interval_ns, 1'000'000u);
}

TEST(DefaultConfig, LoadsTheLeafSwitch) {
  ConfigParams c = load_config_file(kDefault);
  EXPECT_EQ(c.source, kDefault);
  check_leaf(c);
  for (const auto& p : c.ports) EXPECT_EQ(p.device, "") << p.id;
}

TEST(DefaultConfig, EmbeddedCopyMatchesTheFile) {
  std::ifstream in(kDefault);
  std::stringstream text;
  text << in.rdbuf();
  EXPECT_EQ(embedded_default_config(), text.str());
  check_leaf(
      load_config_text(std::string(embedded_default_config()), std::string(kEmbeddedDefaultName)));
}

TEST(DefaultConfig, PfcOffAndOtherPriorities) {
  EXPECT_EQ(load_config_file(kDefault, {"qos.pfc_enable=[]"}).qos.lossless.pfc.enable_mask, 0u);
  EXPECT_EQ(load_config_file(kDefault, {"qos.pfc_enable=[3,4]"}).qos.lossless.pfc.enable_mask,
            0x18u);
  const LosslessParams l =
      load_config_file(kDefault, {"qos.pfc={dynamic_th: -2}", "qos.ecn_mark=dequeue"}).qos.lossless;
  EXPECT_TRUE(l.pfc.dynamic);
  EXPECT_EQ(l.pfc.dynamic_th, -2);
  EXPECT_EQ(l.pfc.xon_offset_bytes, 64'000u);
  EXPECT_EQ(l.ecn_mark, EcnMarkPoint::kDequeue);
}

TEST(DefaultConfig, LiveVdevQosIsTheSame) {
  // YAML has no include: live-vdev.yaml repeats the qos section.
  ConfigParams d = load_config_file(kDefault);
  ConfigParams v = load_config_file(kLive);
  EXPECT_EQ(d.qos.lossless, v.qos.lossless);
  EXPECT_EQ(d.qos.scheduler, v.qos.scheduler);
  EXPECT_EQ(d.qos.dscp_to_tc, v.qos.dscp_to_tc);
  EXPECT_EQ(d.qos.queue_limit_bytes, v.qos.queue_limit_bytes);
}

TEST(LiveVdevConfig, SameSwitchOnTapPorts) {
  ConfigParams c = load_config_file(kLive);
  check_leaf(c);
  for (const auto& p : c.ports) {
    std::string n = std::to_string(p.id);
    EXPECT_EQ(p.device, "net_tap" + n + ",iface=rl" + n);
  }
}

TEST(LiveVdevConfig, DeviceOverride) {
  ConfigParams c = load_config_file(kLive, {"ports[0].device=net_null0"});
  EXPECT_EQ(c.ports[0].device, "net_null0");
  EXPECT_EQ(c.ports[1].device, "net_tap1,iface=rl1");
}

}  // namespace
}  // namespace rocelb
