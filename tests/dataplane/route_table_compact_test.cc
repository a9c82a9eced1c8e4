// The compact route table (range_table.h) against DPDK's rte_fib /
// rte_fib6 and a brute-force model: random prefix sets (overlapping,
// nested, /0, host routes, IPv4 and IPv6) give the same next hop for random
// addresses and for every prefix's first, last and neighbouring addresses.
// IPv4 prefixes go in shortest first: DPDK 22.11's DIR-24-8 can lose a
// longer prefix (> /24) when a shorter one that holds it is added after it
// (seed 16 unsorted shows it); the compact table agrees with the model in
// any order.
// And the choice RouteTable makes: compact up to kCompactRoutesMax
// prefixes of a family, rte_fib above.
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cstdint>
#include <random>
#include <vector>

#include "dataplane/forward/route_table.h"
#include "tests/dataplane/test_support.h"

namespace rocelb {
namespace {

struct Prefix {
  std::array<uint8_t, 16> addr{};
  uint8_t len = 0;
  uint32_t nh = 0;
};

// Prefixes of `bits`-bit addresses clustered under a few roots, so they
// nest and overlap, /0 and host routes among them.
std::vector<Prefix> random_prefixes(std::mt19937_64& rng, unsigned bits, size_t n) {
  std::vector<Prefix> roots(4);
  for (auto& r : roots)
    for (unsigned i = 0; i < bits / 8; ++i) r.addr[i] = static_cast<uint8_t>(rng());
  std::vector<Prefix> out;
  for (size_t i = 0; i < n; ++i) {
    Prefix p = roots[rng() % roots.size()];
    const unsigned keep = static_cast<unsigned>(rng() % (bits + 1));
    for (unsigned b = keep; b < bits; ++b)  // random bits below the shared head
      if (rng() & 1) p.addr[b / 8] ^= static_cast<uint8_t>(0x80u >> (b % 8));
    const unsigned r = static_cast<unsigned>(rng() % 10);
    p.len = static_cast<uint8_t>(r == 0 ? bits : r == 1 ? 0 : rng() % (bits + 1));
    p.nh = 1 + static_cast<uint32_t>(rng() % 1000);
    for (unsigned b = p.len; b < bits; ++b)
      p.addr[b / 8] &= static_cast<uint8_t>(~(0x80u >> (b % 8)));
    // Each prefix once: rte_fib's DIR-24-8 (DPDK 22.11) can lose a longer
    // prefix's next hop when a shorter one it nests in is added again
    // (ReaddingAPrefixReplacesItsNextHop checks the compact table alone).
    bool seen = false;
    for (const Prefix& q : out) seen = seen || (q.len == p.len && q.addr == p.addr);
    if (!seen) out.push_back(p);
  }
  return out;
}

RouteTableSize size_of(const std::vector<Prefix>& ps, bool v4, bool force_fib) {
  RouteTableSize s;
  for (const Prefix& p : ps) s.add(v4, p.len);
  s.next_hops = 1002;
  if (force_fib) (v4 ? s.routes_v4 : s.routes_v6) = kCompactRoutesMax + 1;
  return s;
}

// The prefix's first and last address and the ones just outside it.
std::vector<std::array<uint8_t, 16>> probes(std::mt19937_64& rng, const std::vector<Prefix>& ps,
                                            unsigned bits) {
  std::vector<std::array<uint8_t, 16>> out;
  auto step = [&](std::array<uint8_t, 16> a, int d) {
    for (int i = static_cast<int>(bits / 8) - 1; i >= 0; --i) {
      const int v = a[i] + d;
      a[i] = static_cast<uint8_t>(v);
      if (v >= 0 && v <= 255) break;
    }
    return a;
  };
  for (const Prefix& p : ps) {
    std::array<uint8_t, 16> lo = p.addr, hi = p.addr;
    for (unsigned b = p.len; b < bits; ++b) {
      lo[b / 8] &= static_cast<uint8_t>(~(0x80u >> (b % 8)));
      hi[b / 8] |= static_cast<uint8_t>(0x80u >> (b % 8));
    }
    for (const auto& a : {lo, hi, step(lo, -1), step(hi, 1), p.addr}) out.push_back(a);
  }
  for (int i = 0; i < 2000; ++i) {
    std::array<uint8_t, 16> a{};
    for (unsigned j = 0; j < bits / 8; ++j) a[j] = static_cast<uint8_t>(rng());
    out.push_back(a);
  }
  out.push_back({});
  std::array<uint8_t, 16> ones{};
  for (unsigned j = 0; j < bits / 8; ++j) ones[j] = 0xff;
  out.push_back(ones);
  return out;
}

// The longest prefix that holds ip, by brute force.
uint64_t model(const std::vector<Prefix>& ps, uint32_t ip) {
  int best = -1;
  uint64_t nh = kNoRoute;
  for (const Prefix& p : ps) {
    const uint32_t a = (uint32_t{p.addr[0]} << 24) | (uint32_t{p.addr[1]} << 16) |
                       (uint32_t{p.addr[2]} << 8) | p.addr[3];
    const uint32_t mask = p.len ? ~0u << (32 - p.len) : 0;
    if (((a ^ ip) & mask) == 0 && static_cast<int>(p.len) > best) best = p.len, nh = p.nh;
  }
  return nh;
}

class CompactRouteTable : public ::testing::Test {
 protected:
  void SetUp() override { ASSERT_NO_THROW(test::start_eal()); }
};

TEST_F(CompactRouteTable, Ipv4AgreesWithDir24_8) {
  for (uint64_t seed = 1; seed <= 20; ++seed) {
    std::mt19937_64 rng(seed);
    auto ps = random_prefixes(rng, 32, 1 + rng() % 300);
    std::stable_sort(ps.begin(), ps.end(),
                     [](const Prefix& x, const Prefix& y) { return x.len < y.len; });
    RouteTable compact(size_of(ps, true, false)), fib(size_of(ps, true, true));
    ASSERT_TRUE(compact.compact_v4());
    ASSERT_FALSE(fib.compact_v4());
    for (const Prefix& p : ps) {
      compact.add_v4(p.addr.data(), p.len, p.nh);
      fib.add_v4(p.addr.data(), p.len, p.nh);
    }
    std::vector<uint32_t> ips;
    for (const auto& a : probes(rng, ps, 32))
      ips.push_back((uint32_t{a[0]} << 24) | (uint32_t{a[1]} << 16) | (uint32_t{a[2]} << 8) | a[3]);
    std::vector<uint32_t> copy = ips;
    std::vector<uint64_t> a(ips.size()), b(ips.size());
    compact.lookup_v4(ips.data(), a.data(), static_cast<int>(ips.size()));
    fib.lookup_v4(copy.data(), b.data(), static_cast<int>(copy.size()));
    for (size_t i = 0; i < ips.size(); ++i) {
      ASSERT_EQ(a[i], model(ps, ips[i])) << "seed " << seed << " address " << std::hex << ips[i];
      ASSERT_EQ(a[i], b[i]) << "seed " << seed << " address " << std::hex << ips[i];
    }
  }
}

TEST_F(CompactRouteTable, Ipv6AgreesWithTheTrie) {
  for (uint64_t seed = 1; seed <= 20; ++seed) {
    std::mt19937_64 rng(100 + seed);
    const auto ps = random_prefixes(rng, 128, 1 + rng() % 200);
    RouteTable compact(size_of(ps, false, false)), fib(size_of(ps, false, true));
    ASSERT_TRUE(compact.compact_v6());
    ASSERT_FALSE(fib.compact_v6());
    for (const Prefix& p : ps) {
      compact.add_v6(p.addr.data(), p.len, p.nh);
      fib.add_v6(p.addr.data(), p.len, p.nh);
    }
    const auto pr = probes(rng, ps, 128);
    std::vector<std::array<uint8_t, 16>> ips(pr.begin(), pr.end());
    std::vector<uint64_t> a(ips.size()), b(ips.size());
    auto* raw = reinterpret_cast<uint8_t(*)[16]>(ips.data());
    compact.lookup_v6(raw, a.data(), static_cast<int>(ips.size()));
    fib.lookup_v6(raw, b.data(), static_cast<int>(ips.size()));
    for (size_t i = 0; i < ips.size(); ++i) ASSERT_EQ(a[i], b[i]) << "seed " << seed << " #" << i;
  }
}

TEST_F(CompactRouteTable, NoRouteUntilAPrefixCoversTheAddress) {
  RouteTableSize s;
  s.add(true, 8);
  RouteTable t(s);
  const uint8_t ten[4] = {10, 0, 0, 0};
  t.add_v4(ten, 8, 7);
  uint32_t ips[3] = {0x0A000001, 0x0B000000, 0x09FFFFFF};
  uint64_t nh[3];
  t.lookup_v4(ips, nh, 3);
  EXPECT_EQ(nh[0], 7u);
  EXPECT_EQ(nh[1], kNoRoute);
  EXPECT_EQ(nh[2], kNoRoute);
  // What control/memory_estimate.cc counts: 2 * prefixes + 1 ranges of 9
  // bytes (IPv4) and 21 (IPv6), here 1 and 0 prefixes, and IPv4's two-step
  // index (16 starts, then the 3 starts padded to 16).
  EXPECT_EQ(t.compact_bytes(), 3u * 9 + 4u * 32 + 1u * 21);
}

// The longest prefix wins; a prefix added again keeps its last next hop
// (what the switch relies on when a port's subnet repeats a static route).
TEST_F(CompactRouteTable, ReaddingAPrefixReplacesItsNextHop) {
  RouteTableSize s;
  for (int i = 0; i < 4; ++i) s.add(true, 1);
  RouteTable t(s);
  const uint8_t host[4] = {0x99, 0x29, 0x38, 0x17}, half[4] = {0x80, 0, 0, 0};
  t.add_v4(host, 32, 884);
  t.add_v4(half, 1, 260);
  t.add_v4(half, 1, 1001);
  uint32_t ips[3] = {0x99293817, 0x99293818, 0x7FFFFFFF};
  uint64_t nh[3];
  t.lookup_v4(ips, nh, 3);
  EXPECT_EQ(nh[0], 884u);
  EXPECT_EQ(nh[1], 1001u);
  EXPECT_EQ(nh[2], kNoRoute);
}

TEST_F(CompactRouteTable, ManyPrefixesGoToRteFib) {
  RouteTableSize s;
  for (uint32_t i = 0; i <= kCompactRoutesMax; ++i) s.add(true, 32);
  s.add(false, 64);
  RouteTable t(s);
  EXPECT_FALSE(t.compact_v4());
  EXPECT_TRUE(t.compact_v6());
}

}  // namespace
}  // namespace rocelb
