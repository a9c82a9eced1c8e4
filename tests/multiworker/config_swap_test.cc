// Config swaps under two-worker traffic: two net_pcap ports replay RoCE at
// full speed (one received by each worker) to the uplinks (transmitted by
// both), while the control thread publishes 300 configs alternating the
// uplink group's mode (fixed, drill, flowlet_quality), the PFC thresholds
// and pfc_enable. Each worker adopts every epoch at the top of its loop and
// RCU frees the old one; nothing may be lost, no PFC sent, no byte left
// held, no mbuf leaked.
#include <gtest/gtest.h>

#include "dataplane/wire/pcap_file.h"
#include "mw_support.h"

namespace rocelb {
namespace {

using mw::MultiWorkerTest;

void write_roce_pcap(const std::string& path, uint8_t in_port) {
  PcapWriter w(path);
  for (int i = 0; i < 64; ++i) {
    const auto f = mw::roce_frame(
        in_port, ipv4_bytes(10, 2, static_cast<uint8_t>(i % 8), static_cast<uint8_t>(10 + in_port)),
        static_cast<uint16_t>(49152 + i), static_cast<uint32_t>(i), i % 2 ? 1000 : 128);
    w.write(1'767'225'600'000'000'000ull + uint64_t(i) * 1000, f.data(),
            static_cast<uint32_t>(f.size()));
  }
  w.close();
}

TEST_F(MultiWorkerTest, ConfigSwapsUnderTwoWorkerTrafficLoseNothing) {
  std::vector<std::string> base;
  for (int p = 0; p < 2; ++p) {
    const std::string pcap = (dir_ / ("roce" + std::to_string(p) + ".pcap")).string();
    write_roce_pcap(pcap, static_cast<uint8_t>(p));
    ASSERT_NO_THROW(base.push_back(
        "ports[" + std::to_string(p) +
        "].device=" + probe_vdev("net_pcap", p, "rx_pcap=" + pcap + ",infinite_rx=1")));
  }
  for (int p = 2; p < kPorts; ++p)
    ASSERT_NO_THROW(base.push_back("ports[" + std::to_string(p) +
                                   "].device=" + probe_vdev("net_null", p, "no-rx=1")));
  base.push_back("qos.queue_limit=1GB");
  auto config = [&](int k) {
    static const char* kModes[] = {"fixed", "drill", "flowlet_quality"};
    std::vector<std::string> sets = base;
    sets.push_back(std::string("groups.uplinks.mode=") + kModes[k % 3]);
    if (k % 2) {
      sets.insert(sets.end(), {"qos.pfc.xoff=500MB", "qos.pfc.xon=400MB"});
    } else {
      sets.insert(sets.end(), {"qos.pfc.xoff=800MB", "qos.pfc.xon=100MB"});
    }
    sets.push_back(k % 4 < 2 ? "qos.pfc_enable=[3]" : "qos.pfc_enable=[3,4]");
    return sets;
  };
  LiveOptions opt;
  opt.ring_capacity = 32768;  // longer than the pool: no ring-full drop
  ASSERT_NO_FATAL_FAILURE(start_switch(config(0), opt));
  Dataplane& dp = live_->dataplane();

  // Meanwhile a watcher reads every held-bytes counter and queue depth
  // without pause (none may ever read near 2^64: a release or dequeue ahead
  // of its count-in), and a thread waking every 20 us on the workers' CPU
  // preempts them at many more points of their loops.
  std::atomic<bool> done{false};
  std::atomic<uint64_t> wrapped{0};
  std::atomic<uint8_t> asserted{0};
  const std::vector<uint16_t> ports = dp.config().port_ids;  // the same in every config
  std::thread watcher([&, ports] {
    constexpr uint64_t kWrapped = uint64_t{1} << 40;
    while (!done.load()) {
      for (uint16_t port : ports) {
        asserted.fetch_or(dp.pfc().asserted_mask(port));
        for (int p = 0; p < kPfcPriorities; ++p)
          if (dp.pfc().held_bytes(port, static_cast<uint8_t>(p)) >= kWrapped ||
              dp.tx(port).queues[p].depth_bytes() >= kWrapped)
            ++wrapped;
      }
    }
  });
  std::thread noise([&] {
    mw::pin_to_worker_cpu();
    while (!done.load()) std::this_thread::sleep_for(std::chrono::microseconds(20));
  });

  constexpr int kSwaps = 300;
  const auto t0 = std::chrono::steady_clock::now();
  for (int k = 1; k <= kSwaps; ++k)
    EXPECT_NO_THROW(live_->apply(SwitchConfig::build(mw::params(config(k)), &dp.config())));
  const auto swap_ms =
      std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() - t0)
          .count();
  done.store(true);
  watcher.join();
  noise.join();
  stop_switch();
  EXPECT_EQ(asserted.load(), 0) << "XOFF asserted towards some port";
  EXPECT_EQ(wrapped.load(), 0u) << "samples of held bytes or queue depths near 2^64";

  const Json j = counters();
  EXPECT_EQ(dp.epoch().generation, uint64_t{kSwaps} + 1);
  EXPECT_EQ(j["groups"][0]["mode"], "fixed");  // config(300)
  const uint64_t rx = j["totals"]["rx_packets"];
  EXPECT_GT(rx, mw::kTsan ? 1'000u : 10'000u);
  EXPECT_EQ(j["totals"]["dropped_packets"], 0) << j["ports"].dump();
  EXPECT_EQ(j["totals"]["generated_packets"], 0);
  EXPECT_EQ(j["totals"]["conserved"], true) << j["totals"].dump();
  EXPECT_EQ(j["groups"][0]["decisions"], rx) << "every frame balanced once, retired engines kept";
  ASSERT_EQ(j["lcores"].size(), 2u);
  for (int w = 0; w < 2; ++w) {
    EXPECT_GT(j["lcores"][w]["rx_packets"].get<uint64_t>(), 0u) << "worker " << w;
    EXPECT_GT(j["lcores"][w]["tx_packets"].get<uint64_t>(), 0u) << "worker " << w;
  }
  for (uint16_t port = 4; port < 8; ++port)
    EXPECT_GT(mw::port_json(j, port)["tx_packets"].get<uint64_t>(), 0u) << "uplink " << port;

  mw::expect_held_matches_queues(dp);
  mw::drain_as_owner(dp, live_->now_ns());
  mw::expect_queues_empty(dp);
  mw::expect_nothing_held(dp);
  RecordProperty("rx_packets", std::to_string(rx));
  RecordProperty("swap_ms", std::to_string(swap_ms));
  EXPECT_EQ(live_->shutdown(), 0u);
}

}  // namespace
}  // namespace rocelb
