// ECMP hash properties: spread, determinism, field selection, seeds.
#include <gtest/gtest.h>

#include <array>
#include <cstring>
#include <random>
#include <vector>

#include "lb/flow_hash.h"

namespace rocelb {
namespace {

FlowKey random_v4_flow(std::mt19937_64& rng) {
  FlowKey k;
  k.family = 4;
  uint32_t s = static_cast<uint32_t>(rng()), d = static_cast<uint32_t>(rng());
  std::memcpy(k.src_ip, &s, 4);
  std::memcpy(k.dst_ip, &d, 4);
  k.proto = 17;
  k.sport = static_cast<uint16_t>(rng());
  k.dport = 4791;
  k.dest_qp = static_cast<uint32_t>(rng()) & 0xffffff;
  return k;
}

TEST(FlowHash, ThousandRandomFlowsSpreadWithin15PercentOverFourMembers) {
  std::mt19937_64 rng(7);
  std::array<int, 4> count{};
  HashConfig cfg;
  cfg.seed = 0x5eed;
  for (int i = 0; i < 1000; ++i) ++count[ecmp_pick(flow_hash(random_v4_flow(rng), cfg), 4)];
  for (int c : count) {
    EXPECT_GE(c, 250 * 0.85);
    EXPECT_LE(c, 250 * 1.15);
  }
}

TEST(FlowHash, RoceFlowsDifferingOnlyInSourcePortSpread) {
  // RoCEv2 NICs vary only the UDP source port between QPs of two hosts.
  FlowKey k;
  k.family = 4;
  k.src_ip[0] = 10, k.src_ip[3] = 2;
  k.dst_ip[0] = 10, k.dst_ip[1] = 2, k.dst_ip[3] = 2;
  k.proto = 17;
  k.dport = 4791;
  std::array<int, 4> count{};
  for (int sport = 49152; sport < 49152 + 1000; ++sport) {
    k.sport = static_cast<uint16_t>(sport);
    ++count[ecmp_pick(flow_hash(k, HashConfig{}), 4)];
  }
  for (int c : count) {
    EXPECT_GE(c, 250 * 0.85);
    EXPECT_LE(c, 250 * 1.15);
  }
}

TEST(FlowHash, SameFlowSameHash) {
  std::mt19937_64 rng(1);
  FlowKey k = random_v4_flow(rng);
  HashConfig cfg{42, kHashFiveTuple};
  EXPECT_EQ(flow_hash(k, cfg), flow_hash(k, cfg));
}

TEST(FlowHash, DestQpOnlyCountsWhenSelected) {
  std::mt19937_64 rng(2);
  FlowKey a = random_v4_flow(rng);
  FlowKey b = a;
  b.dest_qp = a.dest_qp ^ 0x55;
  EXPECT_EQ(flow_hash(a, HashConfig{0, kHashFiveTuple}),
            flow_hash(b, HashConfig{0, kHashFiveTuple}));
  const HashConfig with_qp{0, kHashFiveTuple | kHashDestQp};
  EXPECT_NE(flow_hash(a, with_qp), flow_hash(b, with_qp));
}

TEST(FlowHash, UnselectedFieldsIgnored) {
  std::mt19937_64 rng(3);
  FlowKey a = random_v4_flow(rng);
  FlowKey b = a;
  b.sport ^= 0x1234;
  const HashConfig ips_only{9, kHashSrcIp | kHashDstIp};
  EXPECT_EQ(flow_hash(a, ips_only), flow_hash(b, ips_only));
  EXPECT_NE(flow_hash(a, HashConfig{9, kHashFiveTuple}),
            flow_hash(b, HashConfig{9, kHashFiveTuple}));
}

TEST(FlowHash, Ipv6UsesAllAddressBytes) {
  FlowKey a;
  a.family = 6;
  a.proto = 17;
  a.dport = 4791;
  FlowKey b = a;
  b.src_ip[15] = 1;  // last byte only
  FlowKey c = a;
  c.dst_ip[9] = 1;
  EXPECT_NE(flow_hash(a, HashConfig{}), flow_hash(b, HashConfig{}));
  EXPECT_NE(flow_hash(a, HashConfig{}), flow_hash(c, HashConfig{}));
}

TEST(FlowHash, DifferentSeedsDoNotPolarize) {
  // Two switches in a row: the flows that switch A puts on member 0 must be
  // spread over all members by switch B (seeded differently).
  std::mt19937_64 rng(4);
  std::array<int, 4> second{};
  int on_zero = 0;
  for (int i = 0; i < 4000; ++i) {
    FlowKey k = random_v4_flow(rng);
    if (ecmp_pick(flow_hash(k, HashConfig{1, kHashFiveTuple}), 4) != 0) continue;
    ++on_zero;
    ++second[ecmp_pick(flow_hash(k, HashConfig{2, kHashFiveTuple}), 4)];
  }
  for (int c : second) {
    EXPECT_GE(c, on_zero / 4 * 0.8);
    EXPECT_LE(c, on_zero / 4 * 1.2);
  }
}

TEST(EcmpPick, CoversEveryMemberAndStaysInRange) {
  for (uint32_t n = 1; n <= 64; ++n) {
    std::vector<bool> seen(n);
    for (uint32_t i = 0; i < 4096; ++i) {
      uint32_t h = i * 0x9e3779b9u;
      uint32_t k = ecmp_pick(h, n);
      ASSERT_LT(k, n);
      seen[k] = true;
    }
    for (uint32_t k = 0; k < n; ++k) EXPECT_TRUE(seen[k]) << "n=" << n << " member " << k;
  }
}

}  // namespace
}  // namespace rocelb
