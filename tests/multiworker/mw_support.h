// Shared set-up for the multi-worker tests: EAL with three lcores (the main
// lcore on one CPU, two worker lcores on another: LiveRun then runs two
// workers, and the test thread is free to drive traffic and configs), no
// hugepages, a packet pool per test, net_ring ports the test feeds and
// drains, vdevs probed per test (unique names, so every test of the binary
// can run in one process), and the checks every test ends with: workers
// stopped, every mbuf of both pools back. EAL failure fails the test (it
// never turns into a skip).
#pragma once

#include <gtest/gtest.h>
#include <pthread.h>
#include <rte_dev.h>
#include <rte_errno.h>
#include <rte_eth_ring.h>
#include <rte_ethdev.h>
#include <rte_lcore.h>
#include <rte_mbuf.h>
#include <rte_ring.h>
#include <sched.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <chrono>
#include <filesystem>
#include <functional>
#include <memory>
#include <stdexcept>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "control/config_loader.h"
#include "control/default_config.h"
#include "dataplane/forward/dataplane.h"
#include "dataplane/forward/mbuf_util.h"
#include "dataplane/forward/tsan.h"
#include "dataplane/record/counters_json.h"
#include "dataplane/run/eal.h"
#include "dataplane/run/live_run.h"
#include "dataplane/wire/packet_builder.h"
#include "dataplane/wire/parser.h"
#include "ring_handoff.h"

namespace rocelb::mw {

// EAL lcores: main + two workers.
inline constexpr unsigned kLcores = 3;

// Under ThreadSanitizer everything runs 5-20x slower: the tests that count
// frames rather than seconds use fewer of them.
#ifdef ROCELB_TSAN
inline constexpr bool kTsan = true;
#else
inline constexpr bool kTsan = false;
#endif

// The CPUs this process may run on before EAL pins the main thread (helper
// threads of the tests get them back, so they really run beside it).
inline cpu_set_t& original_affinity() {
  static cpu_set_t set = [] {
    cpu_set_t s;
    CPU_ZERO(&s);
    if (sched_getaffinity(0, sizeof s, &s) != 0) CPU_SET(0, &s);
    return s;
  }();
  return set;
}

// The first two CPUs we may use (the same one twice on a 1-CPU machine):
// the main lcore runs on the first, both workers on the second.
inline std::pair<int, int> eal_cpus() {
  const cpu_set_t& set = original_affinity();
  int a = -1, b = -1;
  for (int c = 0; c < CPU_SETSIZE && b < 0; ++c) {
    if (!CPU_ISSET(c, &set)) continue;
    (a < 0 ? a : b) = c;
  }
  if (a < 0) a = 0;
  if (b < 0) b = a;
  return {a, b};
}

// "0@A,1@B,2@B": the main lcore on the first CPU we may use, both workers on
// the second (0@0,1@1,2@1 on a 2-CPU machine; overcommitting is fine for
// correctness). With one CPU everything shares it.
inline std::string lcores_arg() {
  const auto [a, b] = eal_cpus();
  const std::string A = std::to_string(a), B = std::to_string(b);
  return "0@" + A + ",1@" + B + ",2@" + B;
}

// The no-hugepage arguments of eal_args_for_replay (as test::start_eal uses
// them), with "-l 0" replaced by three lcores.
inline std::vector<std::string> eal_args() {
  std::vector<std::string> args = eal_args_for_replay(1024);
  bool replaced = false;
  for (size_t i = 0; i + 1 < args.size(); ++i)
    if (args[i] == "-l") {
      args[i] = "--lcores";
      args[i + 1] = lcores_arg();
      replaced = true;
    }
  if (!replaced) {
    args.push_back("--lcores");
    args.push_back(lcores_arg());
  }
  return args;
}

// Throws (and so fails the test) when EAL cannot start or has other lcores.
inline void start_eal() {
  original_affinity();  // before EAL pins this thread
  eal_start(eal_args());
  if (rte_lcore_count() != kLcores)
    throw std::runtime_error("EAL runs " + std::to_string(rte_lcore_count()) +
                             " lcores, the multi-worker tests need " + std::to_string(kLcores) +
                             " (was EAL started elsewhere with other arguments?)");
}

// Lets a helper thread run on every CPU the process had (EAL pinned the main
// thread, and new threads inherit that).
inline void unpin_this_thread() {
  pthread_setaffinity_np(pthread_self(), sizeof(cpu_set_t), &original_affinity());
}

// Pins the calling thread to the CPU of the worker lcores.
inline void pin_to_worker_cpu() {
  cpu_set_t set;
  CPU_ZERO(&set);
  CPU_SET(eal_cpus().second, &set);
  pthread_setaffinity_np(pthread_self(), sizeof set, &set);
}

inline ConfigParams params(const std::vector<std::string>& sets = {}) {
  return load_config_text(std::string(embedded_default_config()), std::string(kEmbeddedDefaultName),
                          sets);
}

// A RoCEv2 frame (DSCP `dscp`, ECT(0)) from host `in_port` (10.0.N.2, to the
// switch port's MAC) to `dst`; sport and PSN identify it.
inline std::vector<uint8_t> roce_frame(uint8_t in_port, const IpBytes& dst, uint16_t sport,
                                       uint32_t psn, uint32_t payload_len, uint8_t dscp = 26) {
  FrameSpec s;
  s.dst_mac = {0x02, 0, 0, 0, 0, in_port};
  s.src_mac = {0x02, 0, 0, 0, 0x01, in_port};
  s.src_ip = ipv4_bytes(10, 0, in_port, 2);
  s.dst_ip = dst;
  s.dscp = dscp;
  s.ecn = 2;
  s.sport = sport;
  s.dest_qp = 0x100u + sport;
  s.psn = psn & 0xffffffu;
  s.payload_len = payload_len;
  return build_frame(s);
}

// A PFC frame from the peer of `port` pausing priority 3 for `quanta`
// (0: XON).
inline std::vector<uint8_t> pfc_frame(uint8_t port, uint16_t quanta, uint8_t class_enable = 0x08) {
  std::array<uint16_t, 8> q{};
  for (int p = 0; p < 8; ++p)
    if ((class_enable >> p) & 1) q[p] = quanta;
  return build_frame(pfc_frame_spec({0x02, 0, 0, 0, 0x01, port}, class_enable, q));
}

inline const Json& port_json(const Json& j, int id) {
  for (const Json& p : j["ports"])
    if (p["id"] == id) return p;
  throw std::out_of_range("no port " + std::to_string(id) + " in counters");
}

// With every worker stopped nothing moves: per class, the bytes the PFC
// generator counts as held (summed over ingress ports) must be exactly the
// bytes in the egress queues of that class.
inline void expect_held_matches_queues(Dataplane& dp) {
  for (int c = 0; c < kNumTrafficClasses; ++c) {
    uint64_t held = 0, queued = 0;
    for (uint16_t port : dp.config().port_ids) {
      held += dp.pfc().held_bytes(port, static_cast<uint8_t>(c));
      queued += dp.tx(port).queues[c].depth_bytes();
    }
    EXPECT_EQ(held, queued) << "class " << c << ": PFC held bytes differ from the queued bytes";
  }
}

inline void expect_nothing_held(Dataplane& dp) {
  for (uint16_t port : dp.config().port_ids)
    for (int p = 0; p < kPfcPriorities; ++p) {
      EXPECT_EQ(dp.pfc().held_bytes(port, static_cast<uint8_t>(p)), 0u)
          << "port " << port << " priority " << p;
    }
}

inline void expect_queues_empty(Dataplane& dp) {
  for (uint16_t port : dp.config().port_ids)
    for (int c = 0; c < kNumTrafficClasses; ++c) {
      EXPECT_EQ(dp.tx(port).queues[c].depth_bytes(), 0u) << "port " << port << " class " << c;
      EXPECT_EQ(dp.tx(port).queues[c].depth_packets(), 0u) << "port " << port << " class " << c;
    }
}

// After the workers have stopped, the test thread is the only one left on
// the egress side: acting as every port's TX owner, it takes out what is
// still queued (past any pause a peer asked for) and frees it, as a port
// would transmit it. Returns how many frames. The PFC held bytes those
// frames had are released by dequeue() like any departure.
inline uint64_t drain_as_owner(Dataplane& dp, uint64_t now_ns) {
  rte_mbuf* out[32];
  uint64_t start[32];
  uint64_t n = 0;
  const uint64_t base_ps = (now_ns + 3600ull * 1'000'000'000ull) * 1000;  // an hour ahead
  for (uint16_t port : dp.config().port_ids) {
    PortTx& t = dp.tx(port);
    for (int guard = 0; !t.empty() && guard < 10'000'000; ++guard) {
      const uint64_t now = std::max(t.shaper.wire_free_ps(), base_ps) + 1'000'000;
      const uint16_t k = dp.dequeue(port, now, out, start, 32);
      for (uint16_t i = 0; i < k; ++i) mbuf_free(out[i]);
      n += k;
    }
  }
  return n;
}

// Waits until pred() holds or the deadline passes; returns pred().
inline bool wait_for(const std::function<bool()>& pred, std::chrono::milliseconds limit,
                     const std::function<void()>& meanwhile = {}) {
  const auto deadline = std::chrono::steady_clock::now() + limit;
  for (;;) {
    if (meanwhile) meanwhile();
    if (pred()) return true;
    if (std::chrono::steady_clock::now() > deadline) return false;
    std::this_thread::sleep_for(std::chrono::microseconds(200));
  }
}

// Base fixture: EAL with three lcores, a pool, optional net_ring ports and
// vdevs, one LiveRun; TearDown stops the workers whatever happened and
// checks that no mbuf of either pool is left.
class MultiWorkerTest : public ::testing::Test {
 protected:
  static constexpr int kPorts = 8;

  void SetUp() override {
    ASSERT_NO_THROW(start_eal());
    ASSERT_EQ(rte_lcore_count(), kLcores);
    static int seq = 0;
    tag_ = "mw" + std::to_string(seq++);
    pool_ = rte_pktmbuf_pool_create((tag_ + "pool").c_str(), 16383, 0, 0, RTE_MBUF_DEFAULT_BUF_SIZE,
                                    SOCKET_ID_ANY);
    ASSERT_NE(pool_, nullptr);
    dir_ = std::filesystem::temp_directory_path() /
           ("rocelb-mw-" + std::to_string(getpid()) + "-" + tag_);
    std::filesystem::remove_all(dir_);
    std::filesystem::create_directories(dir_);
  }

  void TearDown() override {
    stop_switch();
    drain_rings();
    if (live_) {
      EXPECT_EQ(live_->shutdown(), 0u) << "mbufs of the switch's pool leaked";
      live_.reset();
    }
    drain_rings();
    for (int p = 0; p < kPorts; ++p) {
      rte_ring_free(rx_[p]);
      rte_ring_free(tx_[p]);
    }
    for (const std::string& name : vdevs_) rte_eal_hotplug_remove("vdev", name.c_str());
    if (pool_) {
      EXPECT_EQ(mbufs_in_use(pool_), 0u) << "mbufs of the test's pool leaked";
      rte_mempool_free(pool_);
    }
    std::error_code ec;
    std::filesystem::remove_all(dir_, ec);
  }

  // A net_ring device for config port p: the test enqueues into rx_[p] what
  // the port receives and dequeues from tx_[p] what it sends. Returns the
  // "ports[p].device=..." override.
  std::string ring_port(int p) {
    const std::string n = tag_ + "r" + std::to_string(p);
    rx_[p] =
        rte_ring_create((n + "rx").c_str(), 4096, SOCKET_ID_ANY, RING_F_SP_ENQ | RING_F_SC_DEQ);
    tx_[p] =
        rte_ring_create((n + "tx").c_str(), 4096, SOCKET_ID_ANY, RING_F_SP_ENQ | RING_F_SC_DEQ);
    if (!rx_[p] || !tx_[p]) throw std::runtime_error("cannot create the rings of " + n);
    const int id = rte_eth_from_rings(n.c_str(), &rx_[p], 1, &tx_[p], 1, SOCKET_ID_ANY);
    if (id < 0) throw std::runtime_error("cannot create net_ring device " + n);
    char name[RTE_ETH_NAME_MAX_LEN];
    if (rte_eth_dev_get_name_by_port(static_cast<uint16_t>(id), name) != 0)
      throw std::runtime_error("no name for net_ring device " + n);
    return "ports[" + std::to_string(p) + "].device=" + name;
  }

  // Probes a vdev "<driver>_<unique>[,args]" (driver: net_pcap, net_null)
  // and returns its ethdev name.
  std::string probe_vdev(const std::string& driver, int p, const std::string& args = "") {
    const std::string name = driver + "_" + tag_ + "p" + std::to_string(p);
    const std::string devargs = args.empty() ? name : name + "," + args;
    if (int rc = rte_dev_probe(devargs.c_str()); rc != 0)
      throw std::runtime_error("cannot probe " + devargs + ": " + rte_strerror(-rc));
    vdevs_.push_back(name);
    return name;
  }

  void start_switch(const std::vector<std::string>& sets, const LiveOptions& opt = {}) {
    live_ = std::make_unique<LiveRun>(SwitchConfig::build(params(sets)), opt);
    ASSERT_FALSE(live_->runs_on_main()) << "EAL gave LiveRun no worker lcore";
    ASSERT_EQ(live_->dataplane().num_workers(), 2u);
    live_->start();
    running_ = true;
  }
  void stop_switch() {
    if (!running_) return;
    live_->request_stop();
    live_->wait();
    running_ = false;
  }

  rte_mbuf* mbuf(const std::vector<uint8_t>& frame) {
    return mbuf_from_bytes(pool_, frame.data(), static_cast<uint32_t>(frame.size()));
  }
  // Puts a frame on port p's wire towards the switch (false: ring full or no mbuf).
  bool inject(int p, const std::vector<uint8_t>& frame) {
    rte_mbuf* m = mbuf(frame);
    if (!m) return false;
    if (test::ring_put(rx_[p], m) != 0) {
      mbuf_free(m);
      return false;
    }
    return true;
  }
  // Takes up to `max` frames port p sent; the caller frees them.
  unsigned take_tx(int p, rte_mbuf** out, unsigned max) {
    return tx_[p] ? test::ring_take(tx_[p], out, max) : 0;
  }
  void drain_rings() {
    for (int p = 0; p < kPorts; ++p)
      for (rte_ring* r : {rx_[p], tx_[p]})
        if (r) test::ring_free_all(r);
  }

  Json counters() const { return live_->counters(); }

  std::string tag_;
  std::filesystem::path dir_;
  rte_mempool* pool_ = nullptr;
  std::array<rte_ring*, kPorts> rx_{}, tx_{};
  std::vector<std::string> vdevs_;
  std::unique_ptr<LiveRun> live_;
  bool running_ = false;
};

}  // namespace rocelb::mw
