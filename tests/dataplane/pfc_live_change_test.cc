// pfc_enable and the PFC thresholds changed while traffic is queued
// (apply(), as `rocelbctl set` does): a class made lossless starts from
// what it really holds and pauses its sender at once; made lossy while
// paused, it releases the sender with an XON; the bytes held come back to
// zero whichever config the packets were queued under.
#include <gtest/gtest.h>

#include "dataplane/forward/pipeline.h"
#include "dataplane/wire/mac_control.h"
#include "dataplane/wire/packet_builder.h"
#include "pfc/pfc_frame.h"
#include "test_support.h"

namespace rocelb {
namespace {

class PfcLiveChange : public test::DpdkTest {
 protected:
  // A 994-byte frame from host 0 to host 3 in class 0 (DSCP 0).
  rte_mbuf* frame() {
    FrameSpec s;
    s.dst_mac = {0x02, 0, 0, 0, 0, 0};
    s.src_ip = ipv4_bytes(10, 0, 0, 2);
    s.dst_ip = ipv4_bytes(10, 0, 3, 2);
    s.dscp = 0;
    s.payload_len = 936;
    return mbuf(build_frame(s));
  }
  void apply(const std::vector<std::string>& sets) {
    dp_->apply(SwitchConfig::build(test::default_params(sets), &dp_->config()));
    dp_->adopt(0);  // as a worker does at the top of its loop
  }
  // The PFC frame port 0 sends now, if any.
  std::optional<PfcFrame> pfc_out(uint64_t now_ns) {
    dp_->tx_poll(0, now_ns);
    rte_mbuf* out[1];
    uint64_t start[1];
    if (dp_->dequeue(0, now_ns * 1000, out, start, 1) != 1) return std::nullopt;
    PfcFrame f;
    EXPECT_EQ(decode_pfc(rte_pktmbuf_mtod(out[0], uint8_t*), out[0]->pkt_len, f),
              PfcDecodeResult::kOk);
    dp_->tx(0).count_tx(out[0]->pkt_len);
    rte_pktmbuf_free(out[0]);
    return f;
  }
  void drain_port3() {
    rte_mbuf* out[32];
    uint64_t start[32];
    uint64_t now = 0;
    while (uint16_t n = dp_->dequeue(3, now, out, start, 32)) {
      for (uint16_t i = 0; i < n; ++i) rte_pktmbuf_free(out[i]);
      now = dp_->tx(3).shaper.wire_free_ps() + 1'000'000'000;
    }
  }
};

TEST_F(PfcLiveChange, ClassMadeLosslessUnderTrafficPausesThenReleases) {
  make_dataplane(test::default_params({"qos.pfc.xoff=4KB", "qos.pfc.xon=2KB"}));
  dp_->set_control_pool(pool_);
  for (int i = 0; i < 10; ++i) {
    rte_mbuf* m = frame();
    process_burst(*dp_, 0, 0, &m, 1, 0);
  }
  ASSERT_EQ(dp_->tx(3).queues[0].depth_packets(), 10u);
  EXPECT_FALSE(dp_->config().qos.pfc.lossless(0));
  // Held even while lossy: exactly what is queued.
  EXPECT_EQ(dp_->pfc().held_bytes(0, 0), dp_->tx(3).queues[0].depth_bytes());
  EXPECT_GT(dp_->pfc().held_bytes(0, 0), 9'000u);
  EXPECT_FALSE(pfc_out(10).has_value());  // lossy: no PFC

  apply({"qos.pfc.xoff=4KB", "qos.pfc.xon=2KB", "qos.pfc_enable=[0,3]"});
  EXPECT_TRUE(dp_->config().qos.pfc.lossless(0));
  const auto xoff = pfc_out(20);
  ASSERT_TRUE(xoff.has_value());
  EXPECT_EQ(xoff->class_enable, 1u);  // priority 0, paused at once: ~10 KB > 4 KB
  EXPECT_EQ(xoff->quanta[0], 65535);

  drain_port3();
  EXPECT_EQ(dp_->pfc().held_bytes(0, 0), 0u);
  const auto xon = pfc_out(30);
  ASSERT_TRUE(xon.has_value());
  EXPECT_EQ(xon->class_enable, 1u);
  EXPECT_EQ(xon->quanta[0], 0);
  EXPECT_EQ(dp_->pfc().total_held_bytes(dp_->config().qos.pfc), 0u);
}

TEST_F(PfcLiveChange, ClassMadeLossyWhilePausedSendsXon) {
  make_dataplane(
      test::default_params({"qos.pfc.xoff=4KB", "qos.pfc.xon=2KB", "qos.pfc_enable=[0,3]"}));
  dp_->set_control_pool(pool_);
  for (int i = 0; i < 10; ++i) {
    rte_mbuf* m = frame();
    process_burst(*dp_, 0, 0, &m, 1, 0);
  }
  const auto xoff = pfc_out(10);
  ASSERT_TRUE(xoff.has_value());
  EXPECT_EQ(xoff->quanta[0], 65535);

  apply({"qos.pfc.xoff=4KB", "qos.pfc.xon=2KB", "qos.pfc_enable=[3]"});
  const auto xon = pfc_out(20);  // still 10 KB queued, but no longer lossless
  ASSERT_TRUE(xon.has_value());
  EXPECT_EQ(xon->class_enable, 1u);
  EXPECT_EQ(xon->quanta[0], 0);
  EXPECT_FALSE(pfc_out(30).has_value());
  drain_port3();
  EXPECT_EQ(dp_->pfc().held_bytes(0, 0), 0u);
}

TEST_F(PfcLiveChange, ThresholdRaisedReleasesAtTheNextPoll) {
  make_dataplane(
      test::default_params({"qos.pfc.xoff=4KB", "qos.pfc.xon=2KB", "qos.pfc_enable=[0,3]"}));
  dp_->set_control_pool(pool_);
  for (int i = 0; i < 10; ++i) {
    rte_mbuf* m = frame();
    process_burst(*dp_, 0, 0, &m, 1, 0);
  }
  ASSERT_TRUE(pfc_out(10).has_value());
  apply({"qos.pfc.xoff=40KB", "qos.pfc.xon=20KB", "qos.pfc_enable=[0,3]"});
  EXPECT_EQ(dp_->pfc().xoff_threshold(dp_->config().qos.pfc), 40'000u);
  const auto xon = pfc_out(20);  // 10 KB is below the new XON
  ASSERT_TRUE(xon.has_value());
  EXPECT_EQ(xon->quanta[0], 0);
  drain_port3();
}

}  // namespace
}  // namespace rocelb
