// Ports past the first 64 (common/port_set.h): a PortSet spans every word,
// and PfcGenerator finds, pauses and resumes port 200 of 256 as it does
// port 2, and counts up to 256 storms a priority without spilling into the
// next one.
#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

#include "common/port_set.h"
#include "pfc/pfc_generator.h"

namespace rocelb {
namespace {

std::vector<uint16_t> ports_of(const PortSet& s) {
  std::vector<uint16_t> out;
  s.for_each([&](uint16_t p) { out.push_back(p); });
  return out;
}

TEST(PortSet, SpansEveryWordInIncreasingOrder) {
  PortSet s;
  for (uint16_t p : {255, 64, 0, 200, 63}) s.add(p);
  EXPECT_EQ(ports_of(s), (std::vector<uint16_t>{0, 63, 64, 200, 255}));
  EXPECT_EQ(s.count(), 5);
  EXPECT_TRUE(s.has(200));
  EXPECT_FALSE(s.has(201));
  s.remove(64);
  EXPECT_FALSE(s.has(64));
  EXPECT_EQ(ports_of(s.without(PortSet::of(255))), (std::vector<uint16_t>{0, 63, 200}));
  const PortSet taken = s.take();
  EXPECT_TRUE(s.empty());
  EXPECT_EQ(taken.count(), 4);
}

TEST(PortSet, ForEachBelowWalksOnlyTheFirstWords) {
  PortSet s;
  for (uint16_t p : {3, 70, 200}) s.add(p);
  std::vector<uint16_t> one, two;
  s.for_each_below<1>([&](uint16_t p) { one.push_back(p); });
  s.for_each_below<2>([&](uint16_t p) { two.push_back(p); });
  EXPECT_EQ(one, (std::vector<uint16_t>{3}));
  EXPECT_EQ(two, (std::vector<uint16_t>{3, 70}));
}

TEST(PortSet, FirstNAndIdsPastTheLastPort) {
  const PortSet f = PortSet::first(130);
  EXPECT_EQ(f.count(), 130);
  EXPECT_TRUE(f.has(129));
  EXPECT_FALSE(f.has(130));
  EXPECT_EQ(PortSet::first(kMaxPorts).count(), kMaxPorts);
  // An mbuf's RTE_MBUF_PORT_INVALID (65535) is in no set and adds nothing.
  PortSet s;
  s.add(65535);
  s.add(kMaxPorts);
  EXPECT_TRUE(s.empty());
  EXPECT_FALSE(f.has(65535));
  AtomicPortSet a;
  EXPECT_FALSE(a.set(65535, true));
  EXPECT_TRUE(a.empty());
  EXPECT_FALSE(a.set(150, true));
  EXPECT_TRUE(a.set(150, false));  // it was in
  EXPECT_TRUE(a.empty());
}

TEST(PfcWidePorts, Port200IsFoundPausedAndResumed) {
  constexpr uint16_t kPorts = 256;
  PfcParams params;
  params.enable_mask = 1u << 3;
  params.pause_quanta = 65535;
  params.xoff_bytes = 20'000;
  params.xon_bytes = 10'000;
  const std::vector<uint64_t> speeds(kPorts, 100'000'000'000ull);
  const PfcConfig cfg = PfcConfig::build(params, speeds);
  PfcGenerator g(kPorts);
  const PortSet all = PortSet::first(kPorts);
  g.add(200, 3, 30'000);
  EXPECT_EQ(ports_of(g.ports_to_poll(cfg, all, true)), (std::vector<uint16_t>{200}));
  EXPECT_TRUE(g.ports_to_poll(cfg, all, false).empty());  // not asserting yet
  PfcFrameRequest req;
  ASSERT_TRUE(g.poll(cfg, 200, 1'000, req));
  EXPECT_EQ(req.class_enable, 1u << 3);
  EXPECT_EQ(g.asserted_mask(200), 1u << 3);
  EXPECT_EQ(ports_of(g.ports_to_poll(cfg, all, false)), (std::vector<uint16_t>{200}));
  // A set that leaves port 200 out gets nothing.
  EXPECT_TRUE(g.ports_to_poll(cfg, PortSet::first(200), true).empty());
  g.release(200, 3, 25'000);
  ASSERT_TRUE(g.poll(cfg, 200, 2'000, req));  // XON
  EXPECT_EQ(g.asserted_mask(200), 0u);
  EXPECT_TRUE(g.ports_to_poll(cfg, all, true).empty());
}

TEST(PfcWidePorts, StormCountsReach256APriority) {
  PfcGenerator g(256);
  for (int i = 0; i < 256; ++i) g.storm_begin(3);
  g.storm_begin(4);
  EXPECT_EQ(g.suppressed_mask(), (1u << 3) | (1u << 4));
  g.storm_end(4);
  EXPECT_EQ(g.suppressed_mask(), 1u << 3);
  for (int i = 0; i < 255; ++i) g.storm_end(3);
  EXPECT_EQ(g.suppressed_mask(), 1u << 3);  // one storm left
  g.storm_end(3);
  EXPECT_EQ(g.suppressed_mask(), 0u);
  g.storm_begin(7);
  g.storm_begin(0);
  EXPECT_EQ(g.suppressed_mask(), (1u << 7) | 1u);
}

}  // namespace
}  // namespace rocelb
