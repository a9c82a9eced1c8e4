// RouteTable on DPDK's rte_fib (IPv4 DIR-24-8) and rte_fib6 (IPv6 trie)
// gives the longest prefix's next hop whatever order the prefixes come in,
// re-adds included (a prefix added again keeps its last next hop): the
// order a config lists its routes in, and an `apply` that adds them again.
// DPDK (22.11 to at least 26.07) overwrites the whole table with a prefix's
// next hop when the prefix is added after more specific ones whose last
// ends at the top of the address space right where the one before it ends
// (0/1, 128/1, then 0/0), and writes IPv4 0/0 nowhere when it comes after
// routes that all lie in 0.0.0.0/24; route_table.h says how RouteTable
// avoids both.
// Checked against a brute-force longest-prefix model, for the smallest
// cases and for random prefix sets in random orders.
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cstdint>
#include <cstdio>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "dataplane/forward/route_table.h"
#include "tests/dataplane/test_support.h"

namespace rocelb {
namespace {

using Key = unsigned __int128;  // an address, host order, in the low `bits` bits

struct Add {
  Key addr = 0;  // host bits clear
  uint8_t len = 0;
  uint32_t nh = 0;
};

Key mask_of(unsigned bits, unsigned len) {
  const Key all = bits == 128 ? ~Key(0) : (Key(1) << bits) - 1;
  return len == 0 ? Key(0) : (all << (bits - len)) & all;
}

std::array<uint8_t, 16> bytes_of(Key k, unsigned bits) {
  std::array<uint8_t, 16> b{};
  for (int i = static_cast<int>(bits / 8) - 1; i >= 0; --i, k >>= 8) b[i] = static_cast<uint8_t>(k);
  return b;
}

// The next hop of the longest prefix holding `a`; of two adds of one prefix
// the later wins.
uint64_t model(const std::vector<Add>& adds, unsigned bits, Key a) {
  int best = -1;
  uint64_t nh = kNoRoute;
  for (const Add& x : adds)
    if (((x.addr ^ a) & mask_of(bits, x.len)) == 0 && static_cast<int>(x.len) >= best)
      best = x.len, nh = x.nh;
  return nh;
}

// A table forced onto rte_fib / rte_fib6, sized for `adds`.
std::unique_ptr<RouteTable> fib_table(const std::vector<Add>& adds, unsigned bits) {
  RouteTableSize s;
  for (const Add& x : adds) s.add(bits == 32, x.len);
  s.next_hops = 1002;
  (bits == 32 ? s.routes_v4 : s.routes_v6) = kCompactRoutesMax + 1;
  auto t = std::make_unique<RouteTable>(s);
  EXPECT_FALSE(bits == 32 ? t->compact_v4() : t->compact_v6());
  for (const Add& x : adds) {
    const auto b = bytes_of(x.addr, bits);
    if (bits == 32)
      t->add_v4(b.data(), x.len, x.nh);
    else
      t->add_v6(b.data(), x.len, x.nh);
  }
  return t;
}

std::vector<uint64_t> lookup(const RouteTable& t, unsigned bits, const std::vector<Key>& addrs) {
  std::vector<uint64_t> nh(addrs.size());
  if (bits == 32) {
    std::vector<uint32_t> ips;
    for (Key a : addrs) ips.push_back(static_cast<uint32_t>(a));
    t.lookup_v4(ips.data(), nh.data(), static_cast<int>(ips.size()));
  } else {
    std::vector<std::array<uint8_t, 16>> ips;
    for (Key a : addrs) ips.push_back(bytes_of(a, 128));
    t.lookup_v6(reinterpret_cast<uint8_t(*)[16]>(ips.data()), nh.data(),
                static_cast<int>(ips.size()));
  }
  return nh;
}

// Every prefix's first and last address and the ones just outside, the
// ends of the address space, and random addresses.
std::vector<Key> probes(std::mt19937_64& rng, const std::vector<Add>& adds, unsigned bits) {
  const Key all = mask_of(bits, bits);
  std::vector<Key> out{0, all, all >> 1, (all >> 1) + 1};
  for (const Add& x : adds) {
    const Key hi = x.addr | (all & ~mask_of(bits, x.len));
    for (Key a : {x.addr, hi, x.addr - 1, hi + 1}) out.push_back(a & all);
  }
  for (int i = 0; i < 300; ++i) out.push_back(((Key(rng()) << 64) | rng()) & all);
  return out;
}

// "" when the table agrees with the model, else the first address it does
// not agree on.
std::string disagreement(const std::vector<Add>& adds, unsigned bits, std::mt19937_64& rng) {
  const auto t = fib_table(adds, bits);
  const std::vector<Key> addrs = probes(rng, adds, bits);
  const std::vector<uint64_t> got = lookup(*t, bits, addrs);
  for (size_t i = 0; i < addrs.size(); ++i) {
    const uint64_t want = model(adds, bits, addrs[i]);
    if (got[i] == want) continue;
    std::string s = "address #" + std::to_string(i) + ": got " + std::to_string(got[i]) +
                    ", want " + std::to_string(want) + "; adds:";
    for (const Add& x : adds) {
      char buf[64];
      if (bits == 32)
        snprintf(buf, sizeof buf, " %08x/%u->%u", static_cast<unsigned>(x.addr), x.len, x.nh);
      else
        snprintf(buf, sizeof buf, " %016llx%016llx/%u->%u",
                 static_cast<unsigned long long>(x.addr >> 64),
                 static_cast<unsigned long long>(x.addr), x.len, x.nh);
      s += buf;
    }
    return s;
  }
  return "";
}

class RouteTableOrder : public ::testing::Test {
 protected:
  void SetUp() override { ASSERT_NO_THROW(test::start_eal()); }
};

Add v4(uint32_t a, uint8_t len, uint32_t nh) {
  return {a, len, nh};
}
Add v6(uint16_t top, uint8_t len, uint32_t nh) {
  return {Key(top) << 112, len, nh};
}

// The smallest cases: the covering prefix comes after two more specific
// ones that tile up to the top of the address space.
TEST_F(RouteTableOrder, Ipv4CoveringPrefixAfterItsHalves) {
  std::mt19937_64 rng(1);
  EXPECT_EQ(disagreement({v4(0, 1, 336), v4(0x80000000, 1, 522), v4(0, 0, 939)}, 32, rng), "");
  EXPECT_EQ(disagreement({v4(0xF8000000, 5, 796), v4(0xF4000000, 6, 501), v4(0x80000000, 1, 202)},
                         32, rng),
            "");
  EXPECT_EQ(disagreement({v4(0xC0000000, 2, 53), v4(0xA0000000, 3, 12), v4(0, 0, 864)}, 32, rng),
            "");
}

// IPv4 0/0 after routes that all lie in 0.0.0.0/24.
TEST_F(RouteTableOrder, Ipv4DefaultAfterRoutesInTheFirst24) {
  std::mt19937_64 rng(4);
  EXPECT_EQ(disagreement({v4(0, 32, 616), v4(0, 0, 33)}, 32, rng), "");
  EXPECT_EQ(disagreement({v4(0x10, 28, 5), v4(0x40, 26, 6), v4(0, 0, 7)}, 32, rng), "");
}

// An `apply` adds the default route again, with another next hop.
TEST_F(RouteTableOrder, Ipv4ReaddedDefaultKeepsTheLongerPrefixes) {
  std::mt19937_64 rng(2);
  EXPECT_EQ(disagreement({v4(0, 0, 1), v4(0, 1, 2), v4(0x80000000, 1, 3), v4(0xFFFFFFFF, 32, 4),
                          v4(0, 0, 5)},
                         32, rng),
            "");
  // The same next hop again changes nothing.
  EXPECT_EQ(disagreement({v4(0, 0, 1), v4(0, 1, 2), v4(0x80000000, 1, 3), v4(0, 0, 1)}, 32, rng),
            "");
}

TEST_F(RouteTableOrder, Ipv6CoveringPrefixAfterItsHalves) {
  std::mt19937_64 rng(3);
  EXPECT_EQ(disagreement({v6(0, 1, 11), v6(0x8000, 1, 22), v6(0, 0, 33)}, 128, rng), "");
  EXPECT_EQ(
      disagreement({v6(0xFFF8, 13, 7), v6(0xFFF0, 13, 8), v6(0xFF00, 8, 9), v6(0xFF00, 8, 10)}, 128,
                   rng),
      "");
}

// Prefixes under a few roots, the ends of the address space among them, so
// they nest and tile up to the top; some added again (the same or another
// next hop); the set added in several random orders. `deep`: mostly
// prefixes longer than /20 (IPv4) or /16 (IPv6) close to each other, so
// they share and split the long-prefix groups (DIR-24-8's tbl8s, the trie's
// 8-bit levels); else mostly short ones, /0 to /8, that cover the others.
std::vector<Add> random_adds(std::mt19937_64& rng, unsigned bits, bool deep) {
  const Key all = mask_of(bits, bits);
  const Key roots[4] = {0, all, ((Key(rng()) << 64) | rng()) & all,
                        ((Key(rng()) << 64) | rng()) & all};
  std::vector<Add> out;
  const size_t n = 1 + rng() % 40;
  for (size_t i = 0; i < n; ++i) {
    Key a = roots[rng() % 4];
    const unsigned r = static_cast<unsigned>(rng() % 10);
    const unsigned lo = bits == 32 ? 20 : 16;
    const unsigned len = r == 0   ? bits
                         : r == 1 ? 0
                         : r < 7  ? (deep ? lo + rng() % (bits - lo + 1) : rng() % 9)
                                  : rng() % (bits + 1);
    const unsigned head = deep ? (len > 12 ? len - 12 : 0) : 0;
    for (unsigned b = head + static_cast<unsigned>(rng() % (len - head + 1)); b < len; ++b)
      if (rng() & 1) a ^= Key(1) << (bits - 1 - b);
    out.push_back({a & mask_of(bits, len), static_cast<uint8_t>(len),
                   1 + static_cast<uint32_t>(rng() % 1000)});
    if (rng() % 4 == 0) {  // an earlier prefix again
      Add again = out[rng() % out.size()];
      if (rng() & 1) again.nh = 1 + static_cast<uint32_t>(rng() % 1000);
      out.push_back(again);
    }
  }
  return out;
}

void any_order(unsigned bits, uint64_t seed0, int seeds) {
  for (uint64_t seed = seed0; seed < seed0 + seeds; ++seed) {
    std::mt19937_64 rng(seed);
    std::vector<Add> adds = random_adds(rng, bits, seed % 2 == 0);
    for (int order = 0; order < 3; ++order) {
      ASSERT_EQ(disagreement(adds, bits, rng), "") << "seed " << seed << " order " << order;
      std::shuffle(adds.begin(), adds.end(), rng);
    }
  }
}

TEST_F(RouteTableOrder, Ipv4AnyOrderAgreesWithTheModel) {
  any_order(32, 1, 40);
}

TEST_F(RouteTableOrder, Ipv6AnyOrderAgreesWithTheModel) {
  any_order(128, 1000, 25);
}

}  // namespace
}  // namespace rocelb
