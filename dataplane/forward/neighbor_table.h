// Exact-match table IP → (port, MAC) for static neighbors, and the switch's
// own interface addresses (flag `local`). Open addressing, built once per
// config, read-only on the hot path (no allocation, no locks).
#pragma once

#include <cstdint>
#include <cstring>
#include <vector>

namespace rocelb {

struct NeighborEntry {
  uint8_t family = 0;  // 0 = empty slot
  uint8_t ip[16] = {};
  uint16_t port = 0;
  uint8_t mac[6] = {};
  bool local = false;  // an address of the switch itself
};

class NeighborTable {
 public:
  explicit NeighborTable(size_t expected = 16);
  // Returns false if the address is already present.
  bool insert(const NeighborEntry& e);
  const NeighborEntry* find(uint8_t family, const uint8_t* ip) const {
    size_t i = hash(family, ip) & mask_;
    for (;;) {
      const NeighborEntry& e = slots_[i];
      if (e.family == 0) return nullptr;
      if (e.family == family && std::memcmp(e.ip, ip, family == 4 ? 4 : 16) == 0) return &e;
      i = (i + 1) & mask_;
    }
  }
  size_t size() const { return count_; }

 private:
  static size_t hash(uint8_t family, const uint8_t* ip) {
    uint64_t h = 0xcbf29ce484222325ull ^ family;
    for (int i = 0; i < (family == 4 ? 4 : 16); ++i) h = (h ^ ip[i]) * 0x100000001b3ull;
    return static_cast<size_t>(h ^ (h >> 29));
  }
  std::vector<NeighborEntry> slots_;
  size_t mask_ = 0;
  size_t count_ = 0;
};

}  // namespace rocelb
