// configs/profiles/*.yaml load and carry the vendor RoCE settings their
// comments name: the same 8-port leaf as configs/default.yaml, with each
// vendor family's PFC, DSCP map, ECN/WRED and scheduler settings.
#include <gtest/gtest.h>

#include <set>
#include <string>

#include "control/config_loader.h"

namespace rocelb {
namespace {

std::string profile(const std::string& name) {
  return std::string(ROCELB_SOURCE_DIR) + "/configs/profiles/" + name + ".yaml";
}

// What all three profiles share: the default leaf topology, trust DSCP, PFC
// on priority 3 only, CNPs (class 6) strict, classes 0 and 3 at 50/50, ECN
// (marking, never dropping) on class 3 only, ECN below XOFF, watchdog on.
void check_common(const ConfigParams& c) {
  EXPECT_EQ(c.sw.name, "leaf1");
  EXPECT_EQ(c.ports.size(), 8u);
  EXPECT_EQ(c.neighbors.size(), 16u);
  ASSERT_EQ(c.groups.size(), 1u);
  EXPECT_EQ(c.groups[0].name, "uplinks");
  EXPECT_EQ(c.groups[0].members.size(), 4u);
  EXPECT_EQ(c.routes.size(), 2u);

  const QosParams& q = c.qos;
  EXPECT_EQ(q.trust, Trust::kDscp);
  EXPECT_EQ(q.default_tc, 0);
  for (int p = 0; p < 8; ++p) EXPECT_EQ(q.pcp_to_tc[p], p == 3 ? 3 : p == 6 ? 6 : 0) << p;
  for (int tc = 0; tc < kNumTrafficClasses; ++tc) {
    EXPECT_EQ(q.scheduler.strict[tc], tc == 6) << tc;
    EXPECT_EQ(q.scheduler.weight[tc], tc == 0 || tc == 3 ? 50u : 1u) << tc;
  }
  const LosslessParams& l = q.lossless;
  EXPECT_EQ(l.pfc.enable_mask, 1u << 3);
  for (int tc = 0; tc < kNumTrafficClasses; ++tc) {
    if (tc != 3) {
      EXPECT_FALSE(l.wred[tc].enabled) << tc;
    }
  }
  EXPECT_TRUE(l.wred[3].enabled);
  EXPECT_EQ(l.wred[3].ecn, EcnMode::kEcnAll);
  EXPECT_TRUE(l.watchdog.enabled);
  EXPECT_EQ(l.watchdog.action, WatchdogAction::kDrop);
}

void check_dscp(const QosParams& q, const std::set<int>& roce) {
  for (int d = 0; d < 64; ++d) EXPECT_EQ(q.dscp_to_tc[d], roce.count(d) ? 3 : d == 48 ? 6 : 0) << d;
}

TEST(Profiles, NvidiaSpectrumRoceLossless) {
  ConfigParams c = load_config_file(profile("nvidia-spectrum-roce-lossless"));
  check_common(c);
  check_dscp(c.qos, {26});
  const WredProfile& w = c.qos.lossless.wred[3];
  EXPECT_EQ(w.min_bytes, 150'000u);
  EXPECT_EQ(w.max_bytes, 1'500'000u);
  EXPECT_EQ(w.probability_pct, 100u);
  EXPECT_GT(c.qos.lossless.pfc.xoff_bytes, w.max_bytes) << "ECN must act before PFC";
}

TEST(Profiles, NvidiaMatchesTheDefaultConfig) {
  // configs/default.yaml is the NVIDIA-style profile; the two must agree.
  ConfigParams n = load_config_file(profile("nvidia-spectrum-roce-lossless"));
  ConfigParams d = load_config_file(std::string(ROCELB_SOURCE_DIR) + "/configs/default.yaml");
  EXPECT_EQ(n.qos.lossless, d.qos.lossless);
  EXPECT_EQ(n.qos.scheduler, d.qos.scheduler);
  EXPECT_EQ(n.qos.dscp_to_tc, d.qos.dscp_to_tc);
  EXPECT_EQ(n.qos.pcp_to_tc, d.qos.pcp_to_tc);
  EXPECT_EQ(n.qos.queue_limit_bytes, d.qos.queue_limit_bytes);
}

TEST(Profiles, CiscoNexusRoce) {
  ConfigParams c = load_config_file(profile("cisco-nexus-roce"));
  check_common(c);
  check_dscp(c.qos, {24, 25, 26, 27, 28, 29, 30, 31});
  const WredProfile& w = c.qos.lossless.wred[3];
  EXPECT_EQ(w.min_bytes, 150'000u);
  EXPECT_EQ(w.max_bytes, 3'000'000u);
  EXPECT_EQ(w.probability_pct, 7u);
}

TEST(Profiles, AristaRoce) {
  ConfigParams c = load_config_file(profile("arista-roce"));
  check_common(c);
  check_dscp(c.qos, {26});
  const WredProfile& w = c.qos.lossless.wred[3];
  EXPECT_EQ(w.min_bytes, 500'000u);
  EXPECT_EQ(w.max_bytes, 1'500'000u);
  EXPECT_EQ(w.probability_pct, 100u);
  EXPECT_GT(c.qos.lossless.pfc.xoff_bytes, w.max_bytes) << "ECN must act before PFC";
}

}  // namespace
}  // namespace rocelb
