// A port's non-empty mask (EgressQueue::attach_mask, PortTx::nonempty): the
// owner reads one byte to learn which classes hold packets, so a bit that
// stays clear while its queue holds packets strands them. Checked on one
// thread (every way a queue fills and empties, both forms of the mask) and
// with producers on other threads racing the owner's commits, where the
// owner takes packets only while the bit says so: every packet must come
// out, and the bit must end clear.
#include <gtest/gtest.h>

#include <atomic>
#include <thread>
#include <vector>

#include "mw_support.h"

namespace rocelb {
namespace {

class EgressMask : public mw::MultiWorkerTest {
 protected:
  std::vector<rte_mbuf*> frames(unsigned n) {
    std::vector<rte_mbuf*> v;
    for (unsigned i = 0; i < n; ++i) {
      v.push_back(rte_pktmbuf_alloc(pool_));
      EXPECT_NE(v.back(), nullptr);
      v.back()->pkt_len = v.back()->data_len = 100;
    }
    return v;
  }
  uint32_t put(EgressQueue& q, const std::vector<rte_mbuf*>& v) {
    std::vector<uint32_t> len(v.size(), 100);
    return q.enqueue_burst(v.data(), len.data(), static_cast<uint32_t>(v.size()), 100 * v.size(),
                           UINT64_MAX);
  }
};

TEST_F(EgressMask, TheBitFollowsTheQueueOnOneThread) {
  for (const bool one_thread : {true, false}) {
    SCOPED_TRACE(one_thread ? "plain stores" : "read-modify-writes");
    std::atomic<uint8_t> mask{0x01};  // another class's bit stays as it is
    EgressQueue q;
    q.init(tag_ + "mask" + (one_thread ? "1" : "0"), 8, true);
    q.attach_mask(&mask, 0x08, one_thread);
    ASSERT_EQ(put(q, frames(3)), 3u);
    EXPECT_EQ(mask.load(), 0x09);
    EXPECT_EQ(q.depth_bytes(), 300u);  // the depth, kept both ways
    EXPECT_EQ(q.depth_packets(), 3u);
    // Taken but not committed: still counted, still set.
    ASSERT_NE(q.peek(), nullptr);
    rte_pktmbuf_free(q.take());
    EXPECT_EQ(mask.load(), 0x09);
    q.commit();
    EXPECT_EQ(mask.load(), 0x09);  // two left
    EXPECT_EQ(q.depth_bytes(), 200u);
    EXPECT_EQ(q.depth_packets(), 2u);
    rte_pktmbuf_free(q.pop());
    rte_pktmbuf_free(q.pop());
    EXPECT_EQ(mask.load(), 0x01);
    EXPECT_EQ(q.depth_bytes(), 0u);
    EXPECT_EQ(q.pop(), nullptr);
    // A burst the ring cannot take (8 slots, 7 usable) leaves the bit as
    // the queue is: set for what went in, and clear again once it is out.
    std::vector<rte_mbuf*> many = frames(9);
    const uint32_t in = put(q, many);
    EXPECT_EQ(in, 7u);
    for (uint32_t i = in; i < many.size(); ++i) rte_pktmbuf_free(many[i]);
    EXPECT_EQ(mask.load(), 0x09);
    EXPECT_EQ(q.flush(), 7u);
    EXPECT_EQ(mask.load(), 0x01);
    // A full ring refuses everything: the bit stays clear.
    std::vector<rte_mbuf*> fill = frames(7);
    ASSERT_EQ(put(q, fill), 7u);
    std::vector<rte_mbuf*> refused = frames(2);
    EXPECT_EQ(put(q, refused), 0u);
    for (rte_mbuf* m : refused) rte_pktmbuf_free(m);
    EXPECT_EQ(q.flush(), 7u);
    EXPECT_EQ(mask.load(), 0x01);
  }
}

// The owner empties the queue (its commit clears the bit) at the moment a
// producer on another thread hands over a packet, round after round; after
// each round the bit must show the producer's packet. A bit cleared after
// the producer looked at it would leave that packet behind a clear bit.
TEST_F(EgressMask, NoBitIsLostWhenAProducerRacesTheOwnersCommit) {
  const unsigned rounds = mw::kTsan ? 2000 : 50000;
  std::atomic<uint8_t> mask{0};
  EgressQueue q;
  q.init(tag_ + "maskmp", 64, false);
  q.attach_mask(&mask, 0x10, false);
  std::vector<rte_mbuf*> pkts = frames(2);
  std::atomic<unsigned> go{0}, finished{0};
  std::thread producer([&] {
    mw::unpin_this_thread();
    for (unsigned r = 1; r <= rounds; ++r) {
      while (go.load() != r) {
      }
      EXPECT_EQ(put(q, {pkts[1]}), 1u);
      finished.store(r);
    }
  });
  unsigned lost = 0;
  for (unsigned r = 1; r <= rounds; ++r) {
    ASSERT_EQ(put(q, {pkts[0]}), 1u);
    go.store(r);
    // Takes what is there (the first packet, perhaps the producer's too)
    // and commits: emptying the queue clears the bit.
    for (rte_mbuf* m; (m = q.peek()) != nullptr;) q.take();
    q.commit();
    while (finished.load() != r) {
    }
    // Whatever is left is the producer's packet: the bit must show it.
    if (q.depth_packets() != 0 && !(mask.load() & 0x10)) ++lost;
    while (q.peek()) q.take();
    q.commit();
    ASSERT_EQ(mask.load() & 0x10, 0) << "round " << r;
  }
  producer.join();
  EXPECT_EQ(lost, 0u);
  for (rte_mbuf* m : pkts) rte_pktmbuf_free(m);
}

}  // namespace
}  // namespace rocelb
