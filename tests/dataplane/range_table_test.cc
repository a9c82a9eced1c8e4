// RangeTable (dataplane/forward/range_table.h) on its own: a lookup of one
// address (its own path) and of a burst find the range a brute-force model
// finds, at every start, just below it, 0 and the top address, for tables
// of one range to hundreds (IPv4: both sides of the two-step search's 256
// ranges); IPv4 and IPv6 keys.
#include <gtest/gtest.h>

#include <cstdint>
#include <random>
#include <vector>

#include "dataplane/forward/range_table.h"

namespace rocelb {
namespace {

template <typename Key>
constexpr unsigned kBits = sizeof(Key) * 8;

template <typename Key>
struct Added {
  Key addr;
  unsigned len;
  uint32_t nh;
};

// The next hop of the longest prefix holding `a` (of equal ones, the last
// added), 0 when none does.
template <typename Key>
uint32_t model(const std::vector<Added<Key>>& ps, Key a) {
  int best = -1;
  uint32_t nh = 0;
  for (const Added<Key>& p : ps) {
    const Key mask = p.len == 0 ? Key(0) : static_cast<Key>(~Key(0) << (kBits<Key> - p.len));
    if (((p.addr ^ a) & mask) == 0 && static_cast<int>(p.len) >= best) {
      best = static_cast<int>(p.len);
      nh = p.nh;
    }
  }
  return nh;
}

template <typename Key>
Key random_key(std::mt19937_64& rng) {
  if constexpr (kBits<Key> <= 64)
    return static_cast<Key>(rng());
  else
    return static_cast<Key>(static_cast<Key>(rng()) << 64 | rng());
}

template <typename Key>
void check(uint64_t seed) {
  std::mt19937_64 rng(seed);
  for (size_t n : {0, 1, 2, 3, 7, 8, 16, 33, 100, 127, 128, 400}) {
    RangeTable<Key> t(n);
    std::vector<Added<Key>> ps;
    std::vector<Key> keys = {Key(0), static_cast<Key>(~Key(0))};
    for (size_t i = 0; i < n; ++i) {
      const unsigned len = static_cast<unsigned>(rng() % (kBits<Key> + 1));
      const Key mask = len == 0 ? Key(0) : static_cast<Key>(~Key(0) << (kBits<Key> - len));
      const Key a = static_cast<Key>(random_key<Key>(rng) & mask);
      const uint32_t nh = 1 + static_cast<uint32_t>(rng() % 1000);
      ps.push_back(Added<Key>{a, len, nh});
      t.add(a, len, nh);
      keys.push_back(a);
      keys.push_back(static_cast<Key>(a - 1));
      keys.push_back(static_cast<Key>(a | static_cast<Key>(~mask)));
      keys.push_back(random_key<Key>(rng));
    }
    std::vector<uint64_t> burst(keys.size());
    t.lookup(keys.data(), burst.data(), static_cast<int>(keys.size()));
    for (size_t i = 0; i < keys.size(); ++i) {
      uint64_t one = 0;
      t.lookup(&keys[i], &one, 1);
      const uint32_t want = model<Key>(ps, keys[i]);
      ASSERT_EQ(one, want) << kBits<Key> << "-bit, " << n << " prefixes, probe " << i;
      ASSERT_EQ(burst[i], want) << kBits<Key> << "-bit, " << n << " prefixes, probe " << i;
    }
  }
}

TEST(RangeTable, OneAddressAndABurstFindTheLongestPrefixIpv4) {
  for (uint64_t seed = 1; seed <= 5; ++seed) check<uint32_t>(seed);
}

TEST(RangeTable, OneAddressAndABurstFindTheLongestPrefixIpv6) {
  for (uint64_t seed = 1; seed <= 3; ++seed) check<unsigned __int128>(seed);
}

}  // namespace
}  // namespace rocelb
