// The state a port keeps across configs and at the end: the transmit-load
// meter takes new knobs from a live config change (sampling_interval,
// load_alpha) and keeps its load; Dataplane::flush() (a live switch
// stopping) releases the PFC bytes its queued frames held and counts them
// as `flushed` on the egress port, so the counters still add up.
#include <gtest/gtest.h>

#include "dataplane/forward/pipeline.h"
#include "dataplane/record/counters_json.h"
#include "dataplane/wire/packet_builder.h"
#include "test_support.h"

namespace rocelb {
namespace {

class PortStateLifecycle : public test::DpdkTest {
 protected:
  // A 994-byte frame from host 0 to host 3, DSCP `dscp`.
  rte_mbuf* frame(uint8_t dscp) {
    FrameSpec s;
    s.dst_mac = {0x02, 0, 0, 0, 0, 0};
    s.src_ip = ipv4_bytes(10, 0, 0, 2);
    s.dst_ip = ipv4_bytes(10, 0, 3, 2);
    s.dscp = dscp;
    s.payload_len = 936;
    return mbuf(build_frame(s));
  }
  void apply(const std::vector<std::string>& sets) {
    dp_->apply(SwitchConfig::build(test::default_params(sets), &dp_->config()));
    dp_->adopt(0);
  }
};

TEST_F(PortStateLifecycle, LoadMeterTakesNewKnobsLive) {
  make_dataplane(test::default_params({"groups.uplinks.sampling_interval=10us"}));
  const uint16_t uplink = dp_->config().groups[0].members[0].port;
  EXPECT_EQ(dp_->tx(uplink).load.interval_ns(), 10'000u);
  dp_->tx(uplink).load.on_tx(125'000);  // 100 Gb/s over 10 us
  ASSERT_TRUE(dp_->tx(uplink).load.sample(10'000));
  const uint64_t before = dp_->tx(uplink).load.load_bps();
  EXPECT_GT(before, 0u);

  apply({"groups.uplinks.sampling_interval=50us"});
  EXPECT_EQ(dp_->tx(uplink).load.interval_ns(), 50'000u);
  EXPECT_EQ(dp_->tx(uplink).load.load_bps(), before);  // the load is kept
  EXPECT_FALSE(dp_->tx(uplink).load.sample(10'000 + 49'999));
  EXPECT_TRUE(dp_->tx(uplink).load.sample(10'000 + 50'000));
}

TEST_F(PortStateLifecycle, FlushReleasesHeldBytesAndCountsTheDrops) {
  make_dataplane(test::default_params({"qos.pfc_enable=[3]"}));
  for (int i = 0; i < 6; ++i) {
    rte_mbuf* m[2] = {frame(26), frame(0)};  // class 3 (lossless) and class 0
    process_burst(*dp_, 0, 0, m, 2, 0);
  }
  ASSERT_EQ(dp_->tx(3).queues[3].depth_packets(), 6u);
  ASSERT_EQ(dp_->tx(3).queues[0].depth_packets(), 6u);
  EXPECT_GT(dp_->pfc().held_bytes(0, 3), 0u);
  EXPECT_GT(dp_->pfc().held_bytes(0, 0), 0u);

  EXPECT_EQ(dp_->flush(), 12u);

  EXPECT_EQ(dp_->pfc().held_bytes(0, 3), 0u);
  EXPECT_EQ(dp_->pfc().held_bytes(0, 0), 0u);
  const Snapshot s = dp_->snapshot();
  EXPECT_EQ(s.port[3].drops[static_cast<int>(DropReason::flushed)], 12u);
  EXPECT_EQ(s.port[0].total_drops(), 0u);
  EXPECT_EQ(s.queued_packets, 0u);
  const Json j = counters_to_json(*dp_, s, 0);
  EXPECT_EQ(j["totals"]["conserved"], true) << j["totals"].dump();
  EXPECT_EQ(j["totals"]["dropped_packets"], 12);
}

}  // namespace
}  // namespace rocelb
