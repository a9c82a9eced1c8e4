// Egress rings and pause inboxes take no memzone: DPDK has RTE_MAX_MEMZONE
// (2560) of them for the whole process, and a fabric has a ring per (port,
// class) and an inbox per port on every switch (12 leaves x 24 ports + 8
// spines x 12 ports is 3,456 rings: "cannot create egress queue ...: No
// space left on device" when each took one).
#include <gtest/gtest.h>
#include <rte_memzone.h>

#include <memory>
#include <vector>

#include "dataplane/forward/dataplane.h"
#include "test_support.h"

namespace rocelb {
namespace {

unsigned memzones() {
  unsigned n = 0;
  rte_memzone_walk([](const rte_memzone*, void* arg) { ++*static_cast<unsigned*>(arg); }, &n);
  return n;
}

using EgressRing = test::DpdkTest;

TEST_F(EgressRing, MoreQueuesThanDpdkHasMemzonesAndNoneTakesOne) {
  const unsigned before = memzones();
  std::vector<std::unique_ptr<EgressQueue>> queues;
  for (unsigned i = 0; i < RTE_MAX_MEMZONE + 100; ++i) {
    queues.push_back(std::make_unique<EgressQueue>());
    ASSERT_NO_THROW(queues.back()->init("ring_test_" + std::to_string(i), 64, true)) << i;
  }
  EXPECT_EQ(memzones(), before);
  // They work as rings: one packet in and out of the last.
  rte_mbuf* m = mbuf_of_size(100);
  ASSERT_TRUE(queues.back()->enqueue(m));
  EXPECT_EQ(queues.back()->depth_packets(), 1u);
  EXPECT_EQ(queues.back()->pop(), m);
  rte_pktmbuf_free(m);
  ASSERT_TRUE(queues.front()->enqueue(mbuf_of_size(60)));
  queues.clear();  // each frees what it holds and its ring, back to DPDK's heap
}

// A switch's pause inboxes likewise: a Dataplane of every port makes none.
TEST_F(EgressRing, ADataplaneTakesNoMemzoneForItsRings) {
  const unsigned before = memzones();
  make_dataplane(test::default_params());
  EXPECT_NE(dp_->tx(dp_->config().port_ids.front()).pause_inbox, nullptr);
  // 8 ports: 72 rings and inboxes. Only the route tables' RIB node pools
  // take memzones (a mempool each for IPv4 and IPv6: a header, a ring and
  // the objects).
  EXPECT_LE(memzones(), before + 6);
  dp_.reset();
  EXPECT_EQ(memzones(), before);
}

}  // namespace
}  // namespace rocelb
