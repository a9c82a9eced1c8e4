// QpMap (dataplane/sim/qp_map.h), the RoCE NIC model's QPN -> slot map,
// against std::unordered_map: random inserts, updates and erases of QPNs
// across the 24-bit space and of QPNs crowded onto few home slots (long
// runs that erase must close up), through growth and back to empty.
#include <gtest/gtest.h>

#include <cstdint>
#include <random>
#include <unordered_map>
#include <vector>

#include "dataplane/sim/qp_map.h"

namespace rocelb {
namespace {

void agree(const QpMap& m, const std::unordered_map<uint32_t, uint32_t>& model,
           const std::vector<uint32_t>& keys) {
  ASSERT_EQ(m.size(), model.size());
  ASSERT_EQ(m.empty(), model.empty());
  for (uint32_t k : keys) {
    const auto it = model.find(k);
    const uint32_t* got = m.find(k);
    if (it == model.end()) {
      ASSERT_EQ(got, nullptr) << k;
      ASSERT_FALSE(m.contains(k)) << k;
    } else {
      ASSERT_NE(got, nullptr) << k;
      ASSERT_EQ(*got, it->second) << k;
    }
  }
}

void churn(uint64_t seed, const std::vector<uint32_t>& keys, int steps) {
  std::mt19937_64 rng(seed);
  QpMap m;
  std::unordered_map<uint32_t, uint32_t> model;
  for (int step = 0; step < steps; ++step) {
    const uint32_t k = keys[rng() % keys.size()];
    const uint32_t r = static_cast<uint32_t>(rng() % 10);
    if (r < 5) {
      const uint32_t slot = static_cast<uint32_t>(rng());
      m.set(k, slot);
      model[k] = slot;
    } else {
      ASSERT_EQ(m.erase(k), model.erase(k) == 1) << "step " << step << " key " << k;
    }
    if (step % 97 == 0) agree(m, model, keys);
  }
  agree(m, model, keys);
  for (uint32_t k : keys) {  // back to empty
    m.erase(k);
    model.erase(k);
  }
  agree(m, model, keys);
  EXPECT_TRUE(m.empty());
}

TEST(QpMap, AgreesWithUnorderedMapAcrossTheQpnSpace) {
  std::mt19937_64 rng(1);
  std::vector<uint32_t> keys = {0, 1, 0xffffff, 0x100, 0x101};
  while (keys.size() < 3000) keys.push_back(static_cast<uint32_t>(rng() & 0xffffff));
  churn(2, keys, 200'000);
}

// QPNs that share a home slot (the top bits of qpn × 0x9E3779B1, the
// map's hash) while the table is small, and consecutive QPNs: long runs
// that erase must close up.
TEST(QpMap, AgreesWithUnorderedMapWhenKeysCollide) {
  std::vector<uint32_t> keys;
  for (uint32_t k = 0; keys.size() < 40; ++k)
    if (((k * 0x9E3779B1u) >> 26) == 5) keys.push_back(k);  // one home in 16 to 64 slots
  for (uint32_t i = 0; i < 40; ++i) keys.push_back(0x100 + i);
  churn(3, keys, 100'000);
}

TEST(QpMap, SetReplacesAndEraseOfAMissingKeyIsFalse) {
  QpMap m;
  EXPECT_EQ(m.find(7), nullptr);
  EXPECT_FALSE(m.erase(7));
  m.set(7, 1);
  m.set(7, 2);
  ASSERT_NE(m.find(7), nullptr);
  EXPECT_EQ(*m.find(7), 2u);
  EXPECT_EQ(m.size(), 1u);
  EXPECT_FALSE(m.erase(8));
  EXPECT_TRUE(m.erase(7));
  EXPECT_FALSE(m.erase(7));
  EXPECT_TRUE(m.empty());
  EXPECT_GT(m.bytes(), 0u);  // the table stays for the next flows
}

}  // namespace
}  // namespace rocelb
