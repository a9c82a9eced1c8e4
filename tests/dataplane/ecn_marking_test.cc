// WRED/ECN through the pipeline: the CE mark rate follows the line between
// green_min_threshold and green_max_threshold, none below, all above;
// Not-ECT is never marked (left alone on a lossless class, dropped on a lossy
// one); IPv4 checksums stay valid; marking at dequeue sees the queue left
// behind.
#include <gtest/gtest.h>

#include "dataplane/forward/pipeline.h"
#include "dataplane/wire/ipv4.h"
#include "dataplane/wire/packet_builder.h"
#include "dataplane/wire/parser.h"
#include "test_support.h"

namespace rocelb {
namespace {

class EcnMarking : public test::DpdkTest {
 protected:
  // A RoCE frame from host 0 to host 3 (class 3 by DSCP 26).
  std::vector<uint8_t> frame(uint8_t ecn, uint8_t dscp = 26) {
    FrameSpec s;
    s.dst_mac = {0x02, 0, 0, 0, 0, 0};
    s.src_ip = ipv4_bytes(10, 0, 0, 2);
    s.dst_ip = ipv4_bytes(10, 0, 3, 2);
    s.dscp = dscp;
    s.ecn = ecn;
    s.payload_len = 936;  // 1000-byte frames
    return build_frame(s);
  }
  // Holds port 3's class-`tc` queue at `depth` bytes of filler, sends `n`
  // frames one at a time (each popped right after) and returns how many
  // left marked CE.
  int marked_at(uint64_t depth, int n, uint8_t ecn, int* dropped = nullptr, uint8_t tc = 3,
                uint8_t dscp = 26) {
    EgressQueue& q = dp_->tx(3).queues[tc];
    while (q.depth_bytes() < depth) ASSERT_TRUE_OR(q.enqueue(mbuf_of_size(1000)));
    int marked = 0, lost = 0;
    for (int i = 0; i < n; ++i) {
      rte_mbuf* m = mbuf(frame(ecn, dscp));
      const uint64_t before = q.depth_packets();
      process_burst(*dp_, 0, 0, &m, 1, 0);
      if (q.depth_packets() == before) {
        ++lost;
        continue;
      }
      // The frame went in last: take the queue apart to find it.
      std::vector<rte_mbuf*> all;
      while (rte_mbuf* x = q.pop()) all.push_back(x);
      rte_mbuf* last = all.back();
      all.pop_back();
      // As the transmit path would: its bytes leave the ingress port's PFC hold.
      dp_->pfc().release(0, tc, last->pkt_len);
      const uint8_t* l3 = rte_pktmbuf_mtod(last, uint8_t*) + 14;
      EXPECT_TRUE(ipv4_checksum_ok(l3));
      marked += (l3[1] & 3) == kEcnCe;
      rte_pktmbuf_free(last);
      for (rte_mbuf* x : all) EXPECT_TRUE(q.enqueue(x));
    }
    if (dropped) *dropped = lost;
    return marked;
  }
  static bool ASSERT_TRUE_OR(bool ok) {
    EXPECT_TRUE(ok);
    return ok;
  }
};

TEST_F(EcnMarking, MarkRateFollowsTheLineBetweenTheThresholds) {
  make_dataplane(
      test::default_params({"qos.wred.3={green_min_threshold: 100KB, green_max_threshold: 300KB, "
                            "green_drop_probability: 40, ecn: ecn_all}"}));
  constexpr int kN = 4000;
  EXPECT_EQ(marked_at(50'000, 500, kEcnEct0), 0);  // below min: never
  // At 200 KB: 40 % × (200 - 100) / (300 - 100) = 20 %; 4 σ ≈ 2.5 %.
  const double at_mid = double(marked_at(200'000, kN, kEcnEct0)) / kN;
  EXPECT_NEAR(at_mid, 0.20, 0.025);
  const double at_high = double(marked_at(250'000, kN, kEcnEct1)) / kN;  // ECT(1) too: 30 %
  EXPECT_NEAR(at_high, 0.30, 0.03);
  EXPECT_EQ(marked_at(310'000, 500, kEcnEct0), 500);  // above max: always
  const Snapshot s = dp_->snapshot();
  EXPECT_GT(s.queue[3][3].wred.wred_ecn_marked_packets, 0u);
  EXPECT_EQ(s.queue[3][3].wred.wred_dropped_packets, 0u);
}

TEST_F(EcnMarking, NotEctIsNeverMarked) {
  make_dataplane(
      test::default_params({"qos.wred.3={green_min_threshold: 10KB, green_max_threshold: 20KB}",
                            "qos.wred.0={green_min_threshold: 10KB, green_max_threshold: 20KB}"}));
  int dropped = 0;
  // Lossless class 3: left alone, not dropped.
  EXPECT_EQ(marked_at(50'000, 200, kEcnNotEct, &dropped), 0);
  EXPECT_EQ(dropped, 0);
  // Lossy class 0 (DSCP 0): above max, Not-ECT is dropped by WRED.
  EXPECT_EQ(marked_at(50'000, 200, kEcnNotEct, &dropped, 0, 0), 0);
  EXPECT_EQ(dropped, 200);
  const Snapshot s = dp_->snapshot();
  EXPECT_EQ(s.port[3].drops[static_cast<int>(DropReason::wred_dropped)], 200u);
  EXPECT_EQ(s.queue[3][0].wred.wred_dropped_packets, 200u);
}

TEST_F(EcnMarking, DequeueMarkingSeesTheQueueLeftBehind) {
  make_dataplane(
      test::default_params({"qos.ecn_mark=dequeue",
                            "qos.wred.3={green_min_threshold: 10KB, green_max_threshold: 20KB}"}));
  // 40 frames arrive while the queue is empty of filler: at enqueue nothing
  // would be marked below 10 KB for the first ones, but at dequeue the first
  // frames leave 39 KB behind them (marked) and the last ones leave little.
  for (int i = 0; i < 40; ++i) {
    rte_mbuf* m = mbuf(frame(kEcnEct0));
    process_burst(*dp_, 0, 0, &m, 1, 0);
  }
  std::vector<int> ce;
  rte_mbuf* out[1];
  uint64_t start[1];
  uint64_t now = 0;
  while (dp_->dequeue(3, now, out, start, 1) == 1) {
    const uint8_t* l3 = rte_pktmbuf_mtod(out[0], uint8_t*) + 14;
    ce.push_back((l3[1] & 3) == kEcnCe);
    EXPECT_TRUE(ipv4_checksum_ok(l3));
    dp_->tx(3).count_tx(out[0]->pkt_len);
    rte_pktmbuf_free(out[0]);
    now = dp_->tx(3).shaper.wire_free_ps();
  }
  ASSERT_EQ(ce.size(), 40u);
  for (int i = 0; i < 19; ++i) EXPECT_EQ(ce[i], 1) << i;   // ≥ 20 KB left behind
  for (int i = 30; i < 40; ++i) EXPECT_EQ(ce[i], 0) << i;  // < 10 KB left behind
}

}  // namespace
}  // namespace rocelb

namespace rocelb {
namespace {

TEST_F(EcnMarking, Ipv6TrafficClassIsRewritten) {
  make_dataplane(
      test::default_params({"qos.wred.3={green_min_threshold: 10KB, green_max_threshold: 20KB}"}));
  EgressQueue& q = dp_->tx(3).queues[3];
  while (q.depth_bytes() < 30'000) ASSERT_TRUE(q.enqueue(mbuf_of_size(1000)));
  FrameSpec s;
  s.payload = FramePayload::kIpv6;
  s.dst_mac = {0x02, 0, 0, 0, 0, 0};
  s.src_ip = ipv6_bytes({0xfd00, 0, 0, 0, 0, 0, 0, 2});
  s.dst_ip = ipv6_bytes({0xfd00, 0, 3, 0, 0, 0, 0, 2});
  s.dscp = 26;
  s.ecn = kEcnEct0;
  s.payload_len = 200;
  auto in = build_frame(s);
  rte_mbuf* m = mbuf(in);
  process_burst(*dp_, 0, 0, &m, 1, 0);
  std::vector<rte_mbuf*> all;
  while (rte_mbuf* x = q.pop()) all.push_back(x);
  ASSERT_FALSE(all.empty());
  const auto out = bytes(all.back());
  ParsedPacket pp;
  ASSERT_EQ(parse_frame(out.data(), uint32_t(out.size()), uint32_t(out.size()), pp),
            ParseResult::ok);
  EXPECT_EQ(pp.ecn, kEcnCe);
  EXPECT_EQ(pp.dscp, 26);  // the DSCP bits are untouched
  dp_->pfc().release(0, 3, all.back()->pkt_len);
  for (rte_mbuf* x : all) rte_pktmbuf_free(x);
}

}  // namespace
}  // namespace rocelb
