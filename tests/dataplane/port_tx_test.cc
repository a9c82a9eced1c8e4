// PortTx (dataplane/forward/port_tx.h): the one queue-drain loop, drain(),
// and its three users. A link that goes down drops what its port holds
// (link_down, the observer told), a stopping switch flushes (flushed, the
// observer not told); each frame's PFC held bytes are released on its
// ingress port and the ingress port is marked for the switch clock to look
// at again.
#include <gtest/gtest.h>

#include <vector>

#include "dataplane/forward/pipeline.h"
#include "dataplane/forward/port_tx.h"
#include "dataplane/wire/packet_builder.h"
#include "test_support.h"

namespace rocelb {
namespace {

// What the TX side told: one entry per drop.
struct Drop {
  uint16_t port;
  uint8_t tc;
  DropReason reason;
  uint64_t now_ns;
};
class DropLog : public PacketObserver {
 public:
  void on_balance(rte_mbuf*, const GroupConfig&, const LbDecision&, uint16_t, uint64_t) override {}
  void on_enqueue(rte_mbuf*, uint16_t, uint16_t, uint8_t, uint64_t, uint64_t, uint64_t) override {}
  void on_mark(rte_mbuf*, uint16_t, uint8_t, MarkWhere, uint64_t) override {}
  void on_drop(const rte_mbuf*, uint16_t port, uint8_t tc, DropReason r, uint64_t now) override {
    drops.push_back({port, tc, r, now});
  }
  std::vector<Drop> drops;
};

class PortTxTest : public test::DpdkTest {
 protected:
  // Six 994-byte frames in class 3 (DSCP 26, lossless) and six in class 0,
  // from host port 0 to port 3.
  void fill() {
    make_dataplane(test::default_params({"qos.pfc_enable=[3]"}));
    for (int i = 0; i < 6; ++i) {
      rte_mbuf* m[2] = {frame(26), frame(0)};
      process_burst(*dp_, 0, 0, m, 2, 0);
    }
    ASSERT_EQ(dp_->tx(3).queues[3].depth_packets(), 6u);
    ASSERT_EQ(dp_->tx(3).queues[0].depth_packets(), 6u);
    ASSERT_GT(dp_->pfc().held_bytes(0, 3), 0u);
    dp_->tx(3).released_ports = PortSet{};
  }
  rte_mbuf* frame(uint8_t dscp) {
    FrameSpec s;
    s.dst_mac = {0x02, 0, 0, 0, 0, 0};
    s.src_ip = ipv4_bytes(10, 0, 0, 2);
    s.dst_ip = ipv4_bytes(10, 0, 3, 2);
    s.dscp = dscp;
    s.payload_len = 936;
    return mbuf(build_frame(s));
  }
};

TEST_F(PortTxTest, DrainEmptiesOneClassReleasesItsHoldAndTellsTheObserver) {
  ASSERT_NO_FATAL_FAILURE(fill());
  PortTx& t = dp_->tx(3);
  EXPECT_EQ(t.port(), 3);
  DropLog log;
  EXPECT_EQ(t.drain(3, &log, DropReason::pfc_watchdog_drop, 777), 6u);
  EXPECT_EQ(t.queues[3].depth_packets(), 0u);
  EXPECT_EQ(t.queues[0].depth_packets(), 6u);  // the other class stays
  EXPECT_EQ(dp_->pfc().held_bytes(0, 3), 0u);
  EXPECT_GT(dp_->pfc().held_bytes(0, 0), 0u);
  EXPECT_EQ(t.released_ports, PortSet::of(0));  // ingress port 0 looked at again
  ASSERT_EQ(log.drops.size(), 6u);
  for (const Drop& d : log.drops) {
    EXPECT_EQ(d.port, 3);
    EXPECT_EQ(d.tc, 3);
    EXPECT_EQ(d.reason, DropReason::pfc_watchdog_drop);
    EXPECT_EQ(d.now_ns, 777u);
  }
  EXPECT_EQ(t.drain(3, &log, DropReason::pfc_watchdog_drop, 778), 0u);  // nothing left
}

TEST_F(PortTxTest, LinkDownDrainsEveryClassThroughTheObserver) {
  ASSERT_NO_FATAL_FAILURE(fill());
  DropLog log;
  dp_->set_observer(&log);
  dp_->set_link_up(3, false);
  rte_mbuf* out[32];
  uint64_t start[32];
  EXPECT_EQ(dp_->dequeue(3, 5'000'000, out, start, 32), 0);
  EXPECT_TRUE(dp_->tx(3).empty());
  EXPECT_EQ(dp_->tx(3).link_down_drops, 12u);
  EXPECT_EQ(dp_->pfc().held_bytes(0, 3), 0u);
  EXPECT_EQ(dp_->pfc().held_bytes(0, 0), 0u);
  ASSERT_EQ(log.drops.size(), 12u);
  EXPECT_EQ(log.drops.front().reason, DropReason::link_down);
  EXPECT_EQ(log.drops.front().now_ns, 5'000u);
  dp_->set_observer(nullptr);
}

TEST_F(PortTxTest, FlushDrainsEveryPortWithoutTellingTheObserver) {
  ASSERT_NO_FATAL_FAILURE(fill());
  DropLog log;
  dp_->set_observer(&log);
  EXPECT_EQ(dp_->flush(), 12u);
  EXPECT_TRUE(log.drops.empty());
  EXPECT_EQ(dp_->snapshot().port[3].drops[static_cast<int>(DropReason::flushed)], 12u);
  EXPECT_EQ(dp_->pfc().held_bytes(0, 3), 0u);
  dp_->set_observer(nullptr);
}

}  // namespace
}  // namespace rocelb
