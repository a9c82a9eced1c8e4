// Port scheduler: strict priority first, byte-accurate DWRR, PFC-blocked
// classes skipped; through Dataplane::dequeue, exact departure times.
#include <gtest/gtest.h>

#include <algorithm>
#include <random>

#include "test_support.h"

namespace rocelb {
namespace {

class Scheduler : public test::DpdkTest {
 protected:
  // Dequeues `budget` bytes from port 4 and returns bytes sent per class.
  std::array<uint64_t, 8> drain(uint64_t budget) {
    std::array<uint64_t, 8> per{};
    uint64_t total = 0, now = 0;
    PortTx& t = dp_->tx(4);
    while (total < budget) {
      rte_mbuf* m = nullptr;
      uint64_t start = 0;
      if (dp_->dequeue(4, now, &m, &start, 1) != 1) break;
      now = t.shaper.wire_free_ps();
      per[class_of(m)] += m->pkt_len;
      total += m->pkt_len;
      rte_pktmbuf_free(m);
    }
    return per;
  }
  // Tests mark each packet's class in its first byte.
  static int class_of(const rte_mbuf* m) { return *rte_pktmbuf_mtod(m, const uint8_t*); }
  // Queues `count` packets of random sizes 64..1500 on (port, tc).
  void fill_marked(uint16_t port, int tc, int count, std::mt19937& rng) {
    std::uniform_int_distribution<uint32_t> size(64, 1500);
    for (int i = 0; i < count; ++i) {
      std::vector<uint8_t> b(size(rng), 0);
      b[0] = static_cast<uint8_t>(tc);
      ASSERT_TRUE(dp_->tx(port).queues[tc].enqueue(mbuf(b)));
    }
  }
};

TEST_F(Scheduler, DwrrSharesFollowWeightsWithinTwoPercent) {
  struct Case {
    std::string weights;
    std::vector<std::pair<int, double>> share;
  };
  const std::vector<Case> cases = {
      {"{0: 50, 3: 50}", {{0, 0.5}, {3, 0.5}}},
      {"{0: 70, 3: 30}", {{0, 0.7}, {3, 0.3}}},
      {"{0: 10, 1: 20, 3: 40}", {{0, 1.0 / 7}, {1, 2.0 / 7}, {3, 4.0 / 7}}},
      {"{0: 1, 2: 3}", {{0, 0.25}, {2, 0.75}}},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.weights);
    make_dataplane(
        test::default_params({"qos.scheduler.weights=" + c.weights, "qos.queue_limit=100MB"}));
    std::mt19937 rng(11);
    for (const auto& [tc, share] : c.share) fill_marked(4, tc, 2000, rng);
    const auto per = drain(1'000'000);
    uint64_t total = 0;
    for (auto b : per) total += b;
    for (const auto& [tc, share] : c.share)
      EXPECT_NEAR(double(per[tc]) / double(total), share, 0.02) << "class " << tc;
    dp_.reset();
  }
}

TEST_F(Scheduler, StrictClassGoesFirstAndBlockedClassesWait) {
  make_dataplane(test::default_params());  // class 6 strict, 0 and 3 DWRR 50/50
  std::mt19937 rng(3);
  fill_marked(4, 0, 10, rng);
  fill_marked(4, 3, 10, rng);
  fill_marked(4, 6, 5, rng);
  PortTx& t = dp_->tx(4);
  // The five strict packets leave first.
  for (int i = 0; i < 5; ++i) {
    rte_mbuf* m = nullptr;
    uint64_t s = 0;
    ASSERT_EQ(dp_->dequeue(4, uint64_t(i) * 1'000'000, &m, &s, 1), 1);
    EXPECT_EQ(class_of(m), 6);
    rte_pktmbuf_free(m);
  }
  // Class 3 paused by a received PFC frame (65535 quanta at 100 Gb/s: until
  // 335.54 us after 10 us): only class 0 leaves meanwhile.
  const uint16_t quanta[8] = {0, 0, 0, 0xffff, 0, 0, 0, 0};
  t.pause.on_pfc(1u << 3, quanta, 10'000, 100'000'000'000ull);
  for (int i = 0; i < 10; ++i) {
    rte_mbuf* m = nullptr;
    uint64_t s = 0;
    ASSERT_EQ(dp_->dequeue(4, uint64_t(10 + i) * 1'000'000, &m, &s, 1), 1);
    EXPECT_EQ(class_of(m), 0);
    rte_pktmbuf_free(m);
  }
  rte_mbuf* m = nullptr;
  uint64_t s = 0;
  EXPECT_EQ(dp_->dequeue(4, 345'539'000, &m, &s, 1), 0);     // still paused
  EXPECT_EQ(dp_->next_tx_ps(4, 345'539'000), 345'540'000u);  // when the pause ends
  EXPECT_EQ(dp_->dequeue(4, 345'540'000, &m, &s, 1), 1);
  EXPECT_EQ(class_of(m), 3);
  rte_pktmbuf_free(m);
}

TEST_F(Scheduler, DeparturesAreExactlyBackToBackAtPortSpeed) {
  make_dataplane(test::default_params({"ports[4].speed=25G"}));
  std::vector<uint32_t> sizes = {1000, 64, 1500, 4000};
  for (uint32_t len : sizes) ASSERT_TRUE(dp_->tx(4).queues[0].enqueue(mbuf_of_size(len)));
  rte_mbuf* out[8];
  uint64_t start[8];
  // All four are ready at t = 1 us; the shaper spaces them at 25 Gb/s.
  ASSERT_EQ(dp_->dequeue(4, 1'000'000, out, start, 8), 1);  // burst 0: one at a time
  uint64_t expect = 1'000'000;
  EXPECT_EQ(start[0], expect);
  for (size_t i = 1; i < sizes.size(); ++i) {
    expect += (sizes[i - 1] + 20) * 320;  // ps per byte at 25 Gb/s
    const uint64_t now = dp_->tx(4).shaper.wire_free_ps();
    EXPECT_EQ(now, expect);
    rte_pktmbuf_free(out[0]);
    ASSERT_EQ(dp_->dequeue(4, now, out, start, 8), 1);
    EXPECT_EQ(start[0], expect);
  }
  rte_pktmbuf_free(out[0]);
}

TEST_F(Scheduler, TailDropAtTheByteLimitAndWatermark) {
  make_dataplane(test::default_params({"qos.queue_limit=5000", "qos.pfc_enable=[]"}));
  EgressQueue& q = dp_->tx(5).queues[3];
  const uint64_t limit = dp_->config().ports[5].queue_limit[3];
  EXPECT_EQ(limit, 5000u);
  EXPECT_TRUE(q.enqueue(mbuf_of_size(2000), limit));
  EXPECT_TRUE(q.enqueue(mbuf_of_size(3000), limit));
  rte_mbuf* extra = mbuf_of_size(64);
  EXPECT_FALSE(q.enqueue(extra, limit));  // 5064 > 5000
  rte_pktmbuf_free(extra);
  EXPECT_EQ(q.depth_bytes(), 5000u);
  EXPECT_EQ(q.depth_packets(), 2u);
  EXPECT_EQ(q.watermark_bytes(), 5000u);
  rte_pktmbuf_free(q.pop());
  EXPECT_EQ(q.depth_bytes(), 3000u);
  EXPECT_EQ(q.watermark_bytes(), 5000u);
  EXPECT_EQ(q.dequeued_packets(), 1u);
}

// The scheduler steps over classes with nothing to send in one go; a model
// that visits every class in turn (the rule as written: an idle class that
// is not blocked loses its credit when visited, a visit moves the round on)
// must pick the same class every time, over random strict masks, quanta,
// paused classes and queue contents.
class DwrrModel {
 public:
  DwrrModel(uint8_t strict, const std::array<uint32_t, 8>& quantum)
      : strict_(strict), quantum_(quantum) {}
  int pick(EgressQueue* const* q, uint8_t blocked, uint8_t ready) {
    auto peek = [&](int c) -> rte_mbuf* { return (ready >> c) & 1 ? q[c]->peek() : nullptr; };
    for (int c = 7; c >= 0; --c)
      if (((strict_ >> c) & 1) && !((blocked >> c) & 1) && peek(c)) return c;
    for (int pass = 0; pass < 3; ++pass) {
      for (int v = 0; v < 8; ++v) {
        const int c = cur_;
        const bool is_blocked = (blocked >> c) & 1;
        rte_mbuf* m = ((strict_ >> c) & 1) || is_blocked ? nullptr : peek(c);
        if (!m) {
          if (!is_blocked) deficit_[c] = 0;
          advance();
          continue;
        }
        if (!credited_) {
          deficit_[c] += quantum_[c];
          credited_ = true;
        }
        if (m->pkt_len <= deficit_[c]) {
          deficit_[c] -= m->pkt_len;
          return c;
        }
        advance();
      }
      uint64_t skip = UINT64_MAX;
      for (int c = 0; c < 8; ++c) {
        if (((strict_ | blocked) >> c) & 1) continue;
        rte_mbuf* m = peek(c);
        if (!m || quantum_[c] == 0) continue;
        skip = std::min<uint64_t>(skip, (m->pkt_len - deficit_[c] + quantum_[c] - 1) / quantum_[c]);
      }
      if (skip == UINT64_MAX) return -1;
      for (int c = 0; c < 8; ++c)
        if (!(((strict_ | blocked) >> c) & 1) && peek(c)) deficit_[c] += (skip - 1) * quantum_[c];
    }
    return -1;
  }
  void sent(int c, bool empty) {
    if (empty && !((strict_ >> c) & 1)) {
      deficit_[c] = 0;
      if (c == cur_) advance();
    }
  }

 private:
  void advance() {
    cur_ = (cur_ + 1) & 7;
    credited_ = false;
  }
  uint8_t strict_;
  std::array<uint32_t, 8> quantum_;
  std::array<uint64_t, 8> deficit_{};
  int cur_ = 0;
  bool credited_ = false;
};

TEST_F(Scheduler, SkippingEmptyClassesPicksAsVisitingEachDoes) {
  std::mt19937 rng(7);
  for (int round = 0; round < 40; ++round) {
    SCOPED_TRACE("round " + std::to_string(round));
    std::array<EgressQueue, 8> queues;
    std::array<EgressQueue*, 8> ptrs{};
    for (int c = 0; c < 8; ++c) {
      queues[c].init("dwrr_" + std::to_string(round) + "_" + std::to_string(c), 1024, true);
      ptrs[c] = &queues[c];
    }
    const uint8_t strict = static_cast<uint8_t>(rng() & rng() & 0xff);  // a few strict classes
    std::array<uint32_t, 8> quantum{};
    for (uint32_t& q : quantum) q = rng() % 4 == 0 ? 0 : 100 + rng() % 3000;
    PortScheduler sched;
    sched.configure(strict, quantum);
    DwrrModel model(strict, quantum);
    for (int step = 0; step < 3000; ++step) {
      // Now and then some classes get packets of 64 to 1,500 bytes.
      if (rng() % 3 == 0) {
        const int c = static_cast<int>(rng() % 8);
        for (uint32_t k = rng() % 4; k > 0; --k) {
          std::vector<uint8_t> b(64 + rng() % 1437, static_cast<uint8_t>(c));
          ASSERT_TRUE(queues[c].enqueue(mbuf(b)));
        }
      }
      // Now and then a class is emptied without sending (a watchdog's drop,
      // a link going down): it keeps its credit until a visit finds it idle.
      if (rng() % 16 == 0) queues[rng() % 8].flush();
      uint8_t ready = 0;
      for (int c = 0; c < 8; ++c)
        if (!queues[c].empty()) ready |= static_cast<uint8_t>(1u << c);
      const uint8_t blocked = static_cast<uint8_t>(rng() % 4 == 0 ? rng() & 0xff : 0);
      rte_mbuf* head = nullptr;
      const int want = model.pick(ptrs.data(), blocked, ready);
      const int got = sched.pick(ptrs.data(), blocked, ready, &head);
      ASSERT_EQ(got, want) << "step " << step << " ready " << int{ready} << " blocked "
                           << int{blocked} << " strict " << int{strict};
      if (got < 0) continue;
      rte_pktmbuf_free(queues[got].pop());
      const bool empty = queues[got].peek() == nullptr;
      model.sent(got, empty);
      sched.sent(got, empty);
    }
    for (EgressQueue& q : queues) q.flush();
  }
}

}  // namespace
}  // namespace rocelb
