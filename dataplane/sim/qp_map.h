// QpMap: a queue pair number (24 bits) to a queue-pair slot, the RoCE NIC
// model's lookup for every frame it receives (dataplane/sim/roce_nic.h).
// Open addressing with linear probing in one array of (QPN, slot) pairs
// kept at most half full: a lookup is a multiply, a shift and usually one
// probe in one cache line (std::unordered_map: a division and a node in
// another line). Erase moves the rest of its run back (no tombstones), so
// lookups do not slow down as flows come and go. The only allocation is
// growth (doubling) on an insert that would pass half full: per flow, never
// per frame. Knobs: none. Counters: none (size(), bytes()). Not
// thread-safe.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace rocelb {

class QpMap {
 public:
  // The slot of `qpn`, or nullptr.
  const uint32_t* find(uint32_t qpn) const {
    if (size_ == 0) return nullptr;
    for (size_t i = home(qpn);; i = (i + 1) & mask()) {
      const Entry& e = entries_[i];
      if (e.qpn == qpn) return &e.slot;
      if (e.qpn == kEmpty) return nullptr;
    }
  }
  bool contains(uint32_t qpn) const { return find(qpn) != nullptr; }

  // Inserts qpn -> slot, or sets the slot of a qpn already there. qpn
  // must be below 2^24.
  void set(uint32_t qpn, uint32_t slot) {
    if (2 * (size_ + 1) > entries_.size()) grow();
    size_t i = home(qpn);
    while (entries_[i].qpn != kEmpty && entries_[i].qpn != qpn) i = (i + 1) & mask();
    if (entries_[i].qpn == kEmpty) ++size_;
    entries_[i] = Entry{qpn, slot};
  }

  // Removes qpn; false when it was not there.
  bool erase(uint32_t qpn) {
    if (size_ == 0) return false;
    size_t i = home(qpn);
    while (entries_[i].qpn != qpn) {
      if (entries_[i].qpn == kEmpty) return false;
      i = (i + 1) & mask();
    }
    // Each later entry of the run that may move into the hole does, until
    // an empty one: then every key is still reached from its home.
    for (size_t j = (i + 1) & mask(); entries_[j].qpn != kEmpty; j = (j + 1) & mask()) {
      const size_t h = home(entries_[j].qpn);
      const bool stays = i <= j ? (i < h && h <= j) : (i < h || h <= j);
      if (stays) continue;
      entries_[i] = entries_[j];
      i = j;
    }
    entries_[i].qpn = kEmpty;
    --size_;
    return true;
  }

  size_t size() const { return size_; }
  bool empty() const { return size_ == 0; }
  // What it holds in memory.
  uint64_t bytes() const { return entries_.capacity() * sizeof(Entry); }

 private:
  static constexpr uint32_t kEmpty = UINT32_MAX;  // never a QPN
  struct Entry {
    uint32_t qpn = kEmpty;
    uint32_t slot = 0;
  };

  size_t mask() const { return entries_.size() - 1; }
  // Fibonacci hashing: the top bits of qpn × 2^32/φ.
  size_t home(uint32_t qpn) const { return (qpn * 0x9E3779B1u) >> shift_; }

  void grow() {
    std::vector<Entry> old;
    old.swap(entries_);
    const size_t n = old.empty() ? 16 : 2 * old.size();
    entries_.assign(n, Entry{});
    shift_ = 32;
    for (size_t m = n; m > 1; m >>= 1) --shift_;
    size_ = 0;
    for (const Entry& e : old)
      if (e.qpn != kEmpty) set(e.qpn, e.slot);
  }

  std::vector<Entry> entries_;
  uint32_t shift_ = 32;
  size_t size_ = 0;
};

}  // namespace rocelb
