// Received PFC crosses workers as a message: a PFC frame received on a port
// by a worker that does not transmit the port goes through the port's pause
// inbox to its TX owner, the one writer of the port's pause state
// (Dataplane::receive_pause, tx_poll). Real threads, no EAL workers: the
// test thread is worker 0 (the owner: it polls the port and receives frames
// itself too), std::threads are the other workers, each running the whole
// pipeline (process_burst) on PFC frames. Every frame is applied exactly
// once, or, when the inbox is full, dropped as pause_inbox_full on the
// ingress port: never lost silently.
#include <gtest/gtest.h>

#include "dataplane/forward/pipeline.h"
#include "mw_support.h"
#include "pfc/pfc_frame.h"

namespace rocelb {
namespace {

constexpr uint16_t kPort = 0;
constexpr uint64_t kT0 = 1'000'000'000;       // virtual time of the first frames, ns
constexpr uint64_t kSpeed = 100'000'000'000;  // port 0's speed in the default config

class PauseInbox : public mw::MultiWorkerTest {
 protected:
  void TearDown() override {
    dp_.reset();
    mw::MultiWorkerTest::TearDown();
  }
  void make(unsigned workers) {
    dp_ = std::make_unique<Dataplane>(SwitchConfig::build(mw::params()), workers, 4096, 0);
    for (uint16_t port : dp_->config().port_ids) dp_->set_tx_owner(port, 0);
    inbox_ = dp_->tx(kPort).pause_inbox;
    ASSERT_NE(inbox_, nullptr);
  }
  // Worker w receives n PFC frames on kPort at now_ns through the pipeline:
  // class_enable 3 and 4 (4 is not lossless: never honoured), quanta q
  // (0: XON). Thread-safe (the pool has no per-lcore cache).
  void receive(unsigned w, unsigned n, uint16_t quanta, uint64_t now_ns) {
    const auto f = mw::pfc_frame(kPort, quanta, 0x18);
    rte_mbuf* burst[kMaxBurst];
    for (unsigned i = 0; i < n; ++i) {
      burst[i] = mbuf(f);
      ASSERT_NE(burst[i], nullptr);
    }
    process_burst(*dp_, w, kPort, burst, static_cast<uint16_t>(n), now_ns);
  }
  // A producer worker: bursts of 32 PFC frames, every fourth frame an XON,
  // never more than the inbox has room for when `throttle` (room for
  // `room` frames before each burst).
  void produce(unsigned w, unsigned bursts, unsigned room) {
    mw::unpin_this_thread();
    for (unsigned b = 0; b < bursts; ++b) {
      while (rte_ring_free_count(inbox_) < room) std::this_thread::yield();
      // 24 XOFF (quanta vary), then 8 XON: one XON in four.
      receive(w, 24, static_cast<uint16_t>(1000 + b % 1000), kT0 + b);
      receive(w, 8, 0, kT0 + b);
    }
  }
  uint64_t drops(uint16_t port, DropReason r) const {
    return dp_->snapshot().port[port].drops[static_cast<int>(r)];
  }
  uint64_t port_counter(uint16_t port, PortCounter c) const {
    return dp_->snapshot().port[port][c];
  }
  uint64_t other_ports_drops() const {
    const Snapshot s = dp_->snapshot();
    uint64_t d = 0;
    for (uint16_t port : dp_->config().port_ids)
      if (port != kPort) d += s.port[port].total_drops();
    return d;
  }
  bool conserved() const {
    return counters_to_json(*dp_, dp_->snapshot(), kT0)["totals"]["conserved"].get<bool>();
  }

  std::unique_ptr<Dataplane> dp_;
  rte_ring* inbox_ = nullptr;
};

// Worker 1 sends 64,000 PFC frames (3,200 under TSan) for port 0 while worker 0, its owner,
// polls the port and receives frames on it itself all along: each one
// counted by the port's PauseReceiver, none dropped, and the pause of the
// last frame in effect.
TEST_F(PauseInbox, PfcFromAnotherWorkerReachesTheOwner) {
  ASSERT_NO_FATAL_FAILURE(make(2));
  constexpr unsigned kBursts = mw::kTsan ? 100 : 2000;  // worker 1: kBursts x 32
  std::atomic<bool> done{false};
  std::thread w1([&] {
    produce(1, kBursts, 32);  // only w1 fills the inbox: room for 32 means no drop
    done.store(true);
  });
  // The owner polls its inbox and, as long as worker 1 sends, receives
  // frames on the port itself (applied at once, by the same one writer).
  uint64_t own = 0, polls = 0;
  while (!done.load() || rte_ring_count(inbox_) > 0) {
    dp_->tx_poll(kPort, kT0);
    ++polls;
    if (!done.load() && own < kBursts * 32) {
      receive(0, 8, 500, kT0);
      own += 8;
    }
  }
  w1.join();
  // The last word: the owner's own frame at t_end pausing for 4000 quanta.
  const uint64_t t_end = 2 * kT0;
  receive(0, 1, 4000, t_end);

  const PauseReceiver& pr = dp_->tx(kPort).pause;
  const uint64_t total = uint64_t{kBursts} * 32 + own + 1;
  EXPECT_EQ(pr.rx_frames(3), total);
  EXPECT_EQ(pr.counters(3, t_end).pfc_rx_xon_frames, uint64_t{kBursts} * 8);
  EXPECT_EQ(pr.rx_frames(4), 0u) << "priority 4 is not lossless: its PFC is not honoured";
  EXPECT_EQ(pr.paused_mask(t_end) & 0x18, 0x08);
  EXPECT_EQ(pr.paused_until_ns(3), t_end + pause_quanta_to_ns(4000, kSpeed));
  EXPECT_EQ(port_counter(kPort, PortCounter::rx_packets), total);
  EXPECT_EQ(port_counter(kPort, PortCounter::rx_pfc_frames), total);
  EXPECT_EQ(port_counter(kPort, PortCounter::consumed_pfc), total);
  EXPECT_EQ(drops(kPort, DropReason::pause_inbox_full), 0u);
  EXPECT_EQ(rte_ring_count(inbox_), 0u);
  EXPECT_TRUE(conserved());
  EXPECT_GT(own, 0u);
  RecordProperty("owner_polls", std::to_string(polls));
  RecordProperty("owner_frames", std::to_string(own));
}

// Two workers (1 and 2) post to the same owner at once: the inbox is
// multi-producer, so nothing is lost or applied twice.
TEST_F(PauseInbox, TwoProducersOneOwnerMissNothing) {
  ASSERT_NO_FATAL_FAILURE(make(3));
  constexpr unsigned kBursts = mw::kTsan ? 64 : 320;  // per producer
  std::atomic<int> done{0};
  // Room for 64 before each burst of 32: two producers together never
  // overfill it.
  std::thread w1([&] {
    produce(1, kBursts, 64);
    ++done;
  });
  std::thread w2([&] {
    produce(2, kBursts, 64);
    ++done;
  });
  while (done.load() < 2 || rte_ring_count(inbox_) > 0) dp_->tx_poll(kPort, kT0);
  w1.join();
  w2.join();

  const PauseReceiver& pr = dp_->tx(kPort).pause;
  const uint64_t total = 2ull * kBursts * 32;
  EXPECT_EQ(pr.rx_frames(3), total);
  EXPECT_EQ(pr.counters(3, kT0).pfc_rx_xon_frames, 2ull * kBursts * 8);
  EXPECT_EQ(port_counter(kPort, PortCounter::consumed_pfc), total);
  EXPECT_EQ(drops(kPort, DropReason::pause_inbox_full), 0u);
  EXPECT_TRUE(conserved());
}

// Nobody drains: the inbox takes what it holds, the rest is dropped as
// pause_inbox_full on the ingress port, counted frame by frame; the owner's
// own frames still apply at once; once the owner polls, every frame the
// inbox held is applied.
TEST_F(PauseInbox, FullInboxOverflowIsCountedNeverLostSilently) {
  ASSERT_NO_FATAL_FAILURE(make(2));
  const unsigned cap = rte_ring_get_capacity(inbox_);
  ASSERT_GE(cap, 1023u);  // kPauseInboxSize is 1024
  const unsigned bursts = (cap + 100 + 31) / 32;
  const uint64_t posted = uint64_t{bursts} * 32;
  std::thread w1([&] {
    mw::unpin_this_thread();
    for (unsigned b = 0; b < bursts; ++b) receive(1, 32, 2000, kT0 + b);
  });
  w1.join();

  const PauseReceiver& pr = dp_->tx(kPort).pause;
  EXPECT_EQ(rte_ring_count(inbox_), cap);
  EXPECT_EQ(pr.rx_frames(3), 0u) << "applied before the owner polled";
  EXPECT_EQ(drops(kPort, DropReason::pause_inbox_full), posted - cap);
  EXPECT_EQ(port_counter(kPort, PortCounter::rx_pfc_frames), posted);
  EXPECT_EQ(port_counter(kPort, PortCounter::consumed_pfc), cap);
  EXPECT_EQ(other_ports_drops(), 0u) << "the drop belongs to the ingress port";
  EXPECT_TRUE(conserved()) << "rx = consumed + drops";

  // The owner's own frame needs no inbox.
  receive(0, 1, 3000, kT0 + 5000);
  EXPECT_EQ(pr.rx_frames(3), 1u);
  EXPECT_EQ(drops(kPort, DropReason::pause_inbox_full), posted - cap);

  dp_->tx_poll(kPort, kT0 + 5000);
  EXPECT_EQ(rte_ring_count(inbox_), 0u);
  EXPECT_EQ(pr.rx_frames(3), uint64_t{cap} + 1);
  EXPECT_EQ(port_counter(kPort, PortCounter::consumed_pfc), uint64_t{cap} + 1);
  EXPECT_EQ(port_counter(kPort, PortCounter::rx_packets), posted + 1);
  EXPECT_TRUE(conserved());
}

}  // namespace
}  // namespace rocelb
