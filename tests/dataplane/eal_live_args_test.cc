// Live mode's EAL arguments: every configured device is declared once, and
// without hugepages EAL's memory (-m) follows what the switch will allocate,
// so raising --mbufs or sizing a large config never ends in "cannot create
// the packet pool" on a machine that has the memory.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <thread>
#include <vector>

#include "control/memory_estimate.h"
#include "dataplane/mgmt/memory_runtime.h"
#include "dataplane/run/eal.h"
#include "dataplane/run/live_run.h"
#include "test_support.h"

namespace rocelb {
namespace {

std::string value_after(const std::vector<std::string>& a, const std::string& flag) {
  const auto it = std::find(a.begin(), a.end(), flag);
  return it == a.end() || it + 1 == a.end() ? "" : *(it + 1);
}

ConfigParams null_ports() {
  std::vector<std::string> sets;
  for (int p = 0; p < 8; ++p)
    sets.push_back("ports[" + std::to_string(p) + "].device=net_null" + std::to_string(p));
  return test::default_params(sets);
}

TEST(EalLiveArgs, EveryDeviceOnceAndTheUsersArgumentsKept) {
  const ConfigParams p = null_ports();
  const auto a = eal_args_for_live(p, {"--vdev", "net_null3", "--file-prefix", "x"}, 2048);
  EXPECT_EQ(std::count(a.begin(), a.end(), "net_null3"), 1);
  for (int i = 0; i < 8; ++i)
    EXPECT_EQ(std::count(a.begin(), a.end(), "net_null" + std::to_string(i)), 1) << i;
  EXPECT_EQ(value_after(a, "--file-prefix"), "x");
  EXPECT_EQ(std::count(a.begin(), a.end(), "--no-shconf"), 0);  // a prefix is shared config
  EXPECT_EQ(std::count(a.begin(), a.end(), "--no-pci"), 1);     // every device is virtual
}

TEST(EalLiveArgs, WithoutHugepagesMemoryFollowsTheEstimate) {
  if (hugepages_available()) GTEST_SKIP() << "this machine has hugepages: no -m is added";
  const ConfigParams p = null_ports();
  const auto d = eal_args_for_live(p, {}, 3000);
  EXPECT_EQ(value_after(d, "-m"), "3000");
  EXPECT_EQ(std::count(d.begin(), d.end(), "--no-huge"), 1);
  // The user's choice stands.
  EXPECT_EQ(value_after(eal_args_for_live(p, {"-m", "700"}, 3000), "-m"), "700");
  EXPECT_EQ(value_after(eal_args_for_live(p, {"--socket-mem", "700"}, 3000), "-m"), "");

  // The default pool fits the old fixed 1024 MB; eight times as many mbufs
  // (one a 4 KiB page without hugepages: 1 GiB of pool) get what they need.
  LiveOptions small, large;
  large.set_mbufs(262143);
  EXPECT_EQ(no_huge_memory_mb(p, small), 1024u);
  MemoryRuntime rt;
  rt.workers = std::max(1u, std::thread::hardware_concurrency());
  rt.pool_mbufs = large.pool_mbufs;
  rt.xdp_pool_mbufs = large.xdp_pool_mbufs;
  rt.ring_capacity = large.ring_capacity;
  rt.page_bytes = 4096;
  const uint64_t need = estimate_memory(p, rt).total;
  EXPECT_GT(need, 262143ull * 4096);
  EXPECT_GE(uint64_t{no_huge_memory_mb(p, large)} * 1'000'000, need + need / 4);
  EXPECT_LT(uint64_t{no_huge_memory_mb(p, large)} * 1'000'000, need + need / 4 + 2'000'000);
}

}  // namespace
}  // namespace rocelb
