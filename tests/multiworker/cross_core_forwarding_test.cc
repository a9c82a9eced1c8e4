// Cross-core forwarding under load is exact: four host ports received by
// both workers (single-queue net_ring devices are dealt to the workers in
// turn: ports 0 and 2 to one, 1 and 3 to the other) send RoCE to remote
// hosts, load-balanced over the four uplinks, which are transmitted by both
// workers too. Every frame must leave exactly once, on an uplink, rewritten
// for that uplink's neighbor, each flow on one uplink and in order, and the
// switch's own accounting must agree: rx = tx, nothing dropped or queued,
// no PFC bytes held anywhere.
#include <gtest/gtest.h>

#include <map>

#include "mw_support.h"

namespace rocelb {
namespace {

using mw::MultiWorkerTest;

TEST_F(MultiWorkerTest, CrossCoreForwardingUnderLoadIsExact) {
  std::vector<std::string> sets;
  for (int p = 0; p < kPorts; ++p) ASSERT_NO_THROW(sets.push_back(ring_port(p)));
  ASSERT_NO_FATAL_FAILURE(start_switch(sets));
  Dataplane& dp = live_->dataplane();
  // The uplinks are transmitted by both workers.
  ASSERT_NE(dp.tx_owner(4), dp.tx_owner(5));
  ASSERT_EQ(dp.tx_owner(4), dp.tx_owner(6));
  ASSERT_EQ(dp.tx_owner(5), dp.tx_owner(7));

  constexpr int kIn = 4;  // ingress ports 0..3
  constexpr uint32_t kPerPort = mw::kTsan ? 3'000 : 60'000;
  constexpr int kFlows = 64;            // per ingress port
  constexpr uint64_t kInFlight = 6000;  // well under the rings and the pool
  std::array<uint32_t, kIn> next{};
  std::vector<std::vector<bool>> seen(kIn, std::vector<bool>(kPerPort, false));
  std::map<std::pair<int, int>, int> flow_uplink;        // (in port, flow) -> uplink
  std::map<std::pair<int, int>, int64_t> flow_last_psn;  // (in port, flow) -> last PSN out
  uint64_t injected = 0, received = 0, duplicates = 0, wrong_port = 0, bad_rewrite = 0,
           moved_flows = 0, reordered = 0, unknown = 0;
  std::array<uint64_t, kPorts> out_per_port{};

  auto drain = [&] {
    rte_mbuf* out[256];
    for (int p = 0; p < kPorts; ++p) {
      const unsigned n = take_tx(p, out, 256);
      for (unsigned i = 0; i < n; ++i) {
        rte_mbuf* m = out[i];
        ++received;
        ++out_per_port[p];
        ParsedPacket pp;
        if (parse_frame(rte_pktmbuf_mtod(m, uint8_t*), m->data_len, m->pkt_len, pp) !=
                ParseResult::ok ||
            !pp.is_rocev2) {
          ++unknown;
          mbuf_free(m);
          continue;
        }
        if (p < 4) ++wrong_port;
        const uint8_t want_dst[6] = {0x02, 0, 0, 0, 0x02, static_cast<uint8_t>(p)};
        const uint8_t want_src[6] = {0x02, 0, 0, 0, 0, static_cast<uint8_t>(p)};
        if (std::memcmp(pp.dst_mac, want_dst, 6) != 0 ||
            std::memcmp(pp.src_mac, want_src, 6) != 0 || pp.ttl != 63)
          ++bad_rewrite;
        const int in = pp.src_ip[2];
        const uint32_t psn = pp.bth_psn;
        if (in >= kIn || psn >= kPerPort) {
          ++unknown;
        } else {
          if (seen[in][psn]) ++duplicates;
          seen[in][psn] = true;
          const std::pair<int, int> flow{in, pp.sport - 49152};
          auto [it, fresh] = flow_uplink.emplace(flow, p);
          if (!fresh && it->second != p) ++moved_flows;
          auto [last, first] = flow_last_psn.emplace(flow, int64_t{psn});
          if (!first) {
            if (int64_t{psn} <= last->second) ++reordered;
            last->second = psn;
          }
        }
        mbuf_free(m);
      }
    }
  };

  // A thread waking every 20 us on the workers' CPU preempts them at many
  // more points of their loops (both hand packets to the same uplink queues).
  std::atomic<bool> stop_noise{false};
  std::thread noise([&] {
    mw::pin_to_worker_cpu();
    while (!stop_noise.load()) std::this_thread::sleep_for(std::chrono::microseconds(20));
  });
  struct Join {
    std::atomic<bool>& stop;
    std::thread& t;
    ~Join() {
      stop.store(true);
      t.join();
    }
  } join_noise{stop_noise, noise};

  // Bounded: 60 s in all, and 10 s without a frame out while some are in
  // flight means frames were lost.
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
  auto last_progress = std::chrono::steady_clock::now();
  uint64_t last_received = 0;
  while (injected < uint64_t{kIn} * kPerPort && std::chrono::steady_clock::now() < deadline) {
    const auto now = std::chrono::steady_clock::now();
    if (received != last_received) {
      last_received = received;
      last_progress = now;
    } else if (now - last_progress > std::chrono::seconds(10)) {
      break;
    }
    for (int in = 0; in < kIn; ++in)
      for (int k = 0; k < 32 && next[in] < kPerPort && injected - received < kInFlight; ++k) {
        const uint32_t seq = next[in];
        const auto f = mw::roce_frame(static_cast<uint8_t>(in),
                                      ipv4_bytes(10, 2, static_cast<uint8_t>(seq % kFlows), 9),
                                      static_cast<uint16_t>(49152 + seq % kFlows), seq, 64);
        if (!inject(in, f)) break;
        ++next[in];
        ++injected;
      }
    drain();
  }
  EXPECT_EQ(injected, uint64_t{kIn} * kPerPort)
      << "stalled with " << int64_t(injected) - int64_t(received) << " frames in flight";
  mw::wait_for([&] { return received >= injected; }, std::chrono::seconds(10), drain);

  EXPECT_EQ(received, injected);
  EXPECT_EQ(duplicates, 0u);
  EXPECT_EQ(unknown, 0u);
  EXPECT_EQ(wrong_port, 0u) << "frames out of a host port";
  EXPECT_EQ(bad_rewrite, 0u);
  EXPECT_EQ(moved_flows, 0u) << "a flow changed uplink under mode fixed";
  EXPECT_EQ(reordered, 0u) << "a flow's frames left out of order";
  for (int in = 0; in < kIn; ++in)
    EXPECT_EQ(std::count(seen[in].begin(), seen[in].end(), true), kPerPort) << "from port " << in;
  for (int p = 4; p < 8; ++p) EXPECT_GT(out_per_port[p], 0u) << "uplink " << p;

  // Everything out, so every queue is empty and nothing is held, while the
  // workers still run.
  mw::expect_queues_empty(dp);
  mw::expect_nothing_held(dp);
  stop_switch();

  const Json j = counters();
  EXPECT_EQ(j["totals"]["rx_packets"], injected);
  EXPECT_EQ(j["totals"]["tx_packets"], injected);
  EXPECT_EQ(j["totals"]["dropped_packets"], 0);
  EXPECT_EQ(j["totals"]["queued_packets"], 0);
  EXPECT_EQ(j["totals"]["conserved"], true);
  for (int p = 0; p < kPorts; ++p) {
    const Json& pj = mw::port_json(j, p);
    EXPECT_EQ(pj["rx_packets"], p < kIn ? kPerPort : 0) << "port " << p;
    EXPECT_EQ(pj["tx_packets"], out_per_port[p]) << "port " << p;
    for (const Json& q : pj["queues"]) EXPECT_EQ(q["depth_packets"], 0) << "port " << p;
  }
  // Both workers received and both transmitted.
  ASSERT_EQ(j["lcores"].size(), 2u);
  for (int w = 0; w < 2; ++w) {
    EXPECT_EQ(j["lcores"][w]["rx_packets"], 2 * kPerPort) << "worker " << w;
    EXPECT_GT(j["lcores"][w]["tx_packets"].get<uint64_t>(), 0u) << "worker " << w;
  }
  mw::expect_held_matches_queues(dp);
  EXPECT_EQ(mw::drain_as_owner(dp, live_->now_ns()), 0u);
  mw::expect_nothing_held(dp);
  RecordProperty("frames", std::to_string(injected));
  EXPECT_EQ(live_->shutdown(), 0u);
}

}  // namespace
}  // namespace rocelb
