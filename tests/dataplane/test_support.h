// Shared set-up for tests that touch DPDK: EAL without hugepages (two lcores
// when the machine has two CPUs, so live tests can launch a worker), a
// packet pool per test, and the check that every test ends with no mbuf in
// use. EAL failure fails the test (it never turns into a skip).
#pragma once

#include <gtest/gtest.h>
#include <rte_lcore.h>
#include <rte_mbuf.h>

#include <atomic>
#include <cstring>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "control/config_loader.h"
#include "control/default_config.h"
#include "dataplane/forward/dataplane.h"
#include "dataplane/forward/mbuf_util.h"
#include "dataplane/run/eal.h"
#include "ring_handoff.h"

namespace rocelb::test {

inline void start_eal() {
  std::vector<std::string> args = eal_args_for_replay(1024);
  for (size_t i = 0; i + 1 < args.size(); ++i)
    if (args[i] == "-l" && std::thread::hardware_concurrency() > 1) args[i + 1] = "0-1";
  eal_start(args);
}

inline ConfigParams default_params(const std::vector<std::string>& sets = {}) {
  return load_config_text(std::string(embedded_default_config()), std::string(kEmbeddedDefaultName),
                          sets);
}

// Base fixture: EAL up, a pool, and zero mbufs in use at the end.
class DpdkTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_NO_THROW(start_eal());
    static std::atomic<int> seq{0};
    const std::string name = "test_pool" + std::to_string(seq++);
    pool_ =
        rte_pktmbuf_pool_create(name.c_str(), 8191, 0, 0, RTE_MBUF_DEFAULT_BUF_SIZE, SOCKET_ID_ANY);
    ASSERT_NE(pool_, nullptr);
  }
  void TearDown() override {
    dp_.reset();  // frees whatever is still queued
    if (pool_) {
      EXPECT_EQ(mbufs_in_use(pool_), 0u) << "mbufs leaked";
      rte_mempool_free(pool_);
    }
  }
  void make_dataplane(const ConfigParams& p, unsigned workers = 1, uint64_t burst_ps = 0) {
    dp_ = std::make_unique<Dataplane>(SwitchConfig::build(p), workers, 4096, burst_ps);
  }
  rte_mbuf* mbuf(const std::vector<uint8_t>& frame) {
    rte_mbuf* m = mbuf_from_bytes(pool_, frame.data(), static_cast<uint32_t>(frame.size()));
    EXPECT_NE(m, nullptr);
    return m;
  }
  rte_mbuf* mbuf_of_size(uint32_t len) {
    std::vector<uint8_t> b(len, 0xab);
    return mbuf(b);
  }
  static std::vector<uint8_t> bytes(const rte_mbuf* m) {
    std::vector<uint8_t> out(m->pkt_len);
    const uint8_t* p = mbuf_bytes(m, out.data());
    if (p != out.data()) std::memcpy(out.data(), p, m->pkt_len);
    return out;
  }

  rte_mempool* pool_ = nullptr;
  std::unique_ptr<Dataplane> dp_;
};

}  // namespace rocelb::test
