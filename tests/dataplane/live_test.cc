// The live run's real lcore loop on net_ring ports: frames injected into
// a port's RX ring come out of the right TX rings; SIGINT-style stop; every
// mbuf returns to its pool.
#include <gtest/gtest.h>
#include <rte_eth_ring.h>
#include <rte_ethdev.h>
#include <rte_ring.h>

#include <chrono>
#include <thread>

#include "dataplane/run/live_run.h"
#include "dataplane/wire/packet_builder.h"
#include "dataplane/wire/parser.h"
#include "test_support.h"

namespace rocelb {
namespace {

class Live : public test::DpdkTest {
 protected:
  void SetUp() override {
    test::DpdkTest::SetUp();
    static int seq = 0;
    const std::string tag = "lt" + std::to_string(seq++);
    for (int p = 0; p < 8; ++p) {
      const std::string n = tag + "p" + std::to_string(p);
      rx_[p] =
          rte_ring_create((n + "rx").c_str(), 4096, SOCKET_ID_ANY, RING_F_SP_ENQ | RING_F_SC_DEQ);
      tx_[p] =
          rte_ring_create((n + "tx").c_str(), 4096, SOCKET_ID_ANY, RING_F_SP_ENQ | RING_F_SC_DEQ);
      ASSERT_NE(rx_[p], nullptr);
      ASSERT_NE(tx_[p], nullptr);
      const int id = rte_eth_from_rings(n.c_str(), &rx_[p], 1, &tx_[p], 1, SOCKET_ID_ANY);
      ASSERT_GE(id, 0);
      char name[RTE_ETH_NAME_MAX_LEN];
      ASSERT_EQ(rte_eth_dev_get_name_by_port(static_cast<uint16_t>(id), name), 0);
      sets_.push_back("ports[" + std::to_string(p) + "].device=" + name);
    }
  }
  void TearDown() override {
    for (int p = 0; p < 8; ++p) {
      test::ring_free_all(tx_[p]);
      test::ring_free_all(rx_[p]);
      rte_ring_free(rx_[p]);
      rte_ring_free(tx_[p]);
    }
    test::DpdkTest::TearDown();
  }

  std::array<rte_ring*, 8> rx_{}, tx_{};
  std::vector<std::string> sets_;
  uint64_t received = 0;
};

TEST_F(Live, ForwardsThroughTheWorkerLcoreAndStopsCleanly) {
  auto engine =
      std::make_unique<LiveRun>(SwitchConfig::build(test::default_params(sets_)), LiveOptions{});
  std::thread main_worker;
  if (engine->runs_on_main())
    main_worker = std::thread([&] { engine->start(); });
  else
    engine->start();

  // 64 QPs from host 0 to remote hosts (ECMP over the uplinks) and 64 frames
  // from host 1 to host 2 (connected).
  constexpr int kFlows = 64;
  for (int i = 0; i < kFlows; ++i) {
    FrameSpec s;
    s.dst_mac = {0x02, 0, 0, 0, 0, 0};
    s.src_ip = ipv4_bytes(10, 0, 0, 2);
    s.dst_ip = ipv4_bytes(10, 2, 0, 2);
    s.dscp = 26;
    s.sport = static_cast<uint16_t>(49152 + i);
    s.payload_len = 1024;
    ASSERT_EQ(test::ring_put(rx_[0], mbuf(build_frame(s))), 0);
    FrameSpec h = s;
    h.dst_mac = {0x02, 0, 0, 0, 0, 1};
    h.src_ip = ipv4_bytes(10, 0, 1, 2);
    h.dst_ip = ipv4_bytes(10, 0, 2, 2);
    ASSERT_EQ(test::ring_put(rx_[1], mbuf(build_frame(h))), 0);
  }
  auto count = [&](int p) { return rte_ring_count(tx_[p]); };
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
  while (count(4) + count(5) + count(6) + count(7) + count(2) < 2u * kFlows &&
         std::chrono::steady_clock::now() < deadline)
    std::this_thread::sleep_for(std::chrono::milliseconds(5));

  engine->request_stop();
  if (main_worker.joinable()) main_worker.join();
  engine->wait();

  EXPECT_EQ(count(2), unsigned(kFlows));
  EXPECT_EQ(count(4) + count(5) + count(6) + count(7), unsigned(kFlows));
  int uplinks_used = 0;
  for (int p = 4; p < 8; ++p) uplinks_used += count(p) > 0;
  EXPECT_GE(uplinks_used, 3);  // 64 QPs hash over the four uplinks
  // What left port 2 is routed: host 2's MAC, TTL 63.
  rte_mbuf* m = nullptr;
  ASSERT_EQ(test::ring_take(tx_[2], &m, 1), 1u);
  ParsedPacket pp;
  ASSERT_EQ(parse_frame(rte_pktmbuf_mtod(m, uint8_t*), m->data_len, m->pkt_len, pp),
            ParseResult::ok);
  EXPECT_EQ(pp.dst_mac[5], 0x02);
  EXPECT_EQ(pp.dst_mac[4], 0x01);
  EXPECT_EQ(pp.ttl, 63);
  mbuf_free(m);

  const Json j = engine->counters();
  EXPECT_EQ(j["totals"]["rx_packets"], 2 * kFlows);
  EXPECT_EQ(j["totals"]["tx_packets"], 2 * kFlows);
  EXPECT_EQ(j["totals"]["conserved"], true);
  EXPECT_EQ(engine->shutdown(), 0u);  // the live run's own pool
  engine.reset();
}

// A device that takes nothing (its TX ring full and never read: a link
// that is down, a frame too big for it) cannot hold a port: each frame it
// refuses for tx_stall_ns is dropped as tx_failed, and once the device takes
// frames again the port forwards.
TEST_F(Live, AFrameTheDeviceRefusesIsDroppedAfterTheStallTime) {
  LiveOptions opt;
  opt.tx_stall_ns = 2'000'000;
  auto engine = std::make_unique<LiveRun>(SwitchConfig::build(test::default_params(sets_)), opt);
  if (engine->runs_on_main()) GTEST_SKIP() << "needs a second lcore for the test thread";
  // Port 2's device is full before the switch sends anything.
  std::vector<rte_mbuf*> filler;
  while (rte_ring_free_count(tx_[2]) > 0) {
    filler.push_back(mbuf_of_size(60));
    ASSERT_EQ(test::ring_put(tx_[2], filler.back()), 0);
  }
  engine->start();
  auto frame_to_host2 = [&](uint32_t i) {
    FrameSpec s;
    s.dst_mac = {0x02, 0, 0, 0, 0, 1};
    s.src_ip = ipv4_bytes(10, 0, 1, 2);
    s.dst_ip = ipv4_bytes(10, 0, 2, 2);
    s.psn = i;
    s.payload_len = 64;
    return mbuf(build_frame(s));
  };
  constexpr uint32_t kRefused = 20;
  for (uint32_t i = 0; i < kRefused; ++i) ASSERT_EQ(test::ring_put(rx_[1], frame_to_host2(i)), 0);
  auto tx_failed = [&] {
    return engine->counters()["ports"][2]["drops"]["tx_failed"].get<uint64_t>();
  };
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
  while (tx_failed() < kRefused && std::chrono::steady_clock::now() < deadline)
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  EXPECT_EQ(tx_failed(), kRefused);

  // The device takes frames again: the port forwards.
  EXPECT_EQ(test::ring_free_all(tx_[2]), filler.size());
  for (uint32_t i = 0; i < 10; ++i) ASSERT_EQ(test::ring_put(rx_[1], frame_to_host2(100 + i)), 0);
  while (rte_ring_count(tx_[2]) < 10 && std::chrono::steady_clock::now() < deadline)
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  EXPECT_EQ(rte_ring_count(tx_[2]), 10u);

  engine->request_stop();
  engine->wait();
  EXPECT_EQ(engine->shutdown(), 0u);
  const Json j = engine->counters();
  EXPECT_EQ(j["ports"][2]["tx_packets"], 10);
  EXPECT_EQ(j["ports"][2]["drops"]["tx_failed"], kRefused);
  EXPECT_EQ(j["totals"]["conserved"], true) << j["totals"].dump();
  engine.reset();
}

TEST(LiveDevice, NameIsTheDeviceStringUpToTheFirstComma) {
  EXPECT_EQ(device_name("net_tap0,iface=rl0"), "net_tap0");
  EXPECT_EQ(device_name("0000:3b:00.0"), "0000:3b:00.0");
  EXPECT_EQ(device_name("net_af_xdp0,iface=veth0,start_queue=0"), "net_af_xdp0");
}

}  // namespace
}  // namespace rocelb

namespace rocelb {
namespace {

// Issue 3's live change: while traffic flows through the worker lcore, the
// control thread publishes 1000 configs that switch the group's mode and
// knobs and a queue limit; not one packet may be lost and every mbuf comes
// back. Engines of an unchanged group are carried over; a changed one starts
// with a fresh flowlet table.
TEST_F(Live, ConfigSwapsWhileTrafficFlowsLoseNothing) {
  auto engine =
      std::make_unique<LiveRun>(SwitchConfig::build(test::default_params(sets_)), LiveOptions{});
  if (engine->runs_on_main()) GTEST_SKIP() << "needs a second lcore for the control thread";
  engine->start();

  std::atomic<bool> done{false};
  std::atomic<uint64_t> sent{0};
  std::thread traffic([&] {
    uint32_t i = 0;
    while (!done.load()) {
      FrameSpec s;
      s.dst_mac = {0x02, 0, 0, 0, 0, 0};
      s.src_ip = ipv4_bytes(10, 0, 0, 2);
      s.dst_ip = ipv4_bytes(10, 2, 0, static_cast<uint8_t>(i % 200));
      s.dscp = 26;
      s.sport = static_cast<uint16_t>(49152 + i % 64);
      s.psn = i;
      s.payload_len = 256;
      rte_mbuf* m = mbuf(build_frame(s));
      if (!m) break;
      if (test::ring_put(rx_[0], m) != 0) {
        mbuf_free(m);
        std::this_thread::yield();
        continue;
      }
      ++sent;
      ++i;
      // Drain what left so the pool never runs dry.
      for (int p = 4; p < 8; ++p) {
        received += test::ring_free_all(tx_[p]);
      }
    }
  });

  const char* modes[] = {"fixed", "flowlet_quality", "per_packet_random", "drill",
                         "wcmp",  "resilient",       "flowlet_random",    "per_packet_quality"};
  for (int k = 0; k < 1000; ++k) {
    std::vector<std::string> sets = sets_;
    sets.push_back(std::string("groups.uplinks.mode=") + modes[k % 8]);
    sets.push_back("groups.uplinks.idle_time=" + std::to_string(10 + k % 3) + "us");
    sets.push_back("qos.queue_limits.3=" + std::to_string(2 + k % 2) + "MB");
    ASSERT_NO_THROW(engine->dataplane().apply(
        SwitchConfig::build(test::default_params(sets), &engine->dataplane().config())));
  }
  done.store(true);
  traffic.join();
  // Let the last frames through, then stop.
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(5);
  for (;;) {
    for (int p = 4; p < 8; ++p) {
      received += test::ring_free_all(tx_[p]);
    }
    if (received == sent.load() || std::chrono::steady_clock::now() > deadline) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
  }
  engine->request_stop();
  engine->wait();

  EXPECT_GT(sent.load(), 1000u);
  EXPECT_EQ(received, sent.load());
  const Json j = engine->counters();
  EXPECT_EQ(j["totals"]["dropped_packets"], 0);
  EXPECT_EQ(j["totals"]["rx_packets"], sent.load());
  EXPECT_EQ(j["groups"][0]["mode"], "per_packet_quality");  // the last one applied
  EXPECT_EQ(j["groups"][0]["decisions"], sent.load());      // retired engines' counts kept
  EXPECT_EQ(engine->dataplane().epoch().generation, 1001u);
  EXPECT_EQ(engine->shutdown(), 0u);
  engine.reset();
}

}  // namespace
}  // namespace rocelb

namespace rocelb {
namespace {

// What a device fixes when it starts cannot change under it: a live change
// of a port's MTU, link source or XDP steering is refused with the key and
// the running config stays.
TEST_F(Live, ChangesThatNeedARestartAreRefused) {
  LiveOptions opt;
  auto engine = std::make_unique<LiveRun>(SwitchConfig::build(test::default_params(sets_)), opt);
  auto refused = [&](const std::string& set) -> std::string {
    std::vector<std::string> sets = sets_;
    sets.push_back(set);
    try {
      engine->dataplane().apply(
          SwitchConfig::build(test::default_params(sets), &engine->dataplane().config()));
    } catch (const std::invalid_argument& e) {
      return e.what();
    }
    return "applied";
  };
  EXPECT_EQ(refused("ports[1].mtu=9000"), "ports[1].mtu changed: restart the switch to change it");
  EXPECT_EQ(refused("ports[2].link_detect=off"),
            "ports[2].link_detect changed: restart the switch to change it");
  EXPECT_EQ(refused("ports[2].link_detect=auto"), "applied");  // the default: no change
  EXPECT_EQ(engine->dataplane().config().ports[1].mtu, 1500u);
}

}  // namespace
}  // namespace rocelb
