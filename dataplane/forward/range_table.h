// A small longest-prefix-match table: the prefixes flattened into a sorted
// array of disjoint address ranges, each with the next hop of the longest
// prefix that covers it (0, "no route", where none does). A lookup is a
// branch-free binary search, run in lockstep over a whole burst so the
// loads of its packets overlap (one packet alone: the same search in
// registers, without the lanes' set-up). Used by RouteTable
// (route_table.h) for the tens of routes a leaf or spine holds, where
// DIR-24-8 would take 32 MB (IPv4) and 64 MB (IPv6) for its first level
// alone.
//
// Built once (add() per prefix, O(ranges) each: meant for up to a few
// thousand prefixes, kCompactRoutesMax), then read-only: lookups are safe
// from any thread. A prefix added twice keeps the last next hop, as
// rte_fib_add does. Memory: ranges() * (sizeof(Key) + 4 + 1) bytes, at most
// 2 * prefixes + 1 ranges (reserved up front: route_table_size.h).
// Knobs: none. Counters: none.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace rocelb {

template <typename Key>  // uint32_t (IPv4) or unsigned __int128 (IPv6), host order
class RangeTable {
 public:
  static constexpr unsigned kBits = sizeof(Key) * 8;

  // Room for `prefixes` adds without growing.
  explicit RangeTable(size_t prefixes = 0) {
    start_.reserve(2 * prefixes + 1);
    nh_.reserve(2 * prefixes + 1);
    len_.reserve(2 * prefixes + 1);
    start_.push_back(0);
    nh_.push_back(0);
    len_.push_back(0);  // 0: no prefix; otherwise the prefix length + 1
  }

  // `addr` (host order; bits beyond len ignored), len 0..kBits.
  void add(Key addr, unsigned len, uint32_t nh) {
    const Key mask = len == 0 ? Key(0) : static_cast<Key>(~Key(0) << (kBits - len));
    const Key lo = addr & mask, hi = lo | static_cast<Key>(~mask);
    size_t i = split_at(lo);
    const size_t end = hi == static_cast<Key>(~Key(0)) ? start_.size() : split_at(hi + 1);
    for (; i < end; ++i)
      if (len_[i] <= len + 1) {
        len_[i] = static_cast<uint8_t>(len + 1);
        nh_[i] = nh;
      }
  }

  void lookup(const Key* keys, uint64_t* nh, int n) const {
    constexpr int kLanes = 32;
    const Key* s = start_.data();
    if (n == 1) {  // one packet (the fabric's and replay's arrivals): no lanes to set up
      size_t pos = 0;
      for (size_t len = start_.size(); len > 1; len -= len / 2) {
        const size_t half = len / 2;
        pos += half & (size_t{0} - static_cast<size_t>(s[pos + half] <= keys[0]));
      }
      nh[0] = nh_[pos];
      return;
    }
    for (int off = 0; off < n; off += kLanes) {
      const int m = n - off < kLanes ? n - off : kLanes;
      uint32_t pos[kLanes] = {};
      // The range holding key: the last start <= key (start_[0] is 0).
      for (size_t len = start_.size(); len > 1; len -= len / 2) {
        const size_t half = len / 2;
        for (int k = 0; k < m; ++k)
          pos[k] += s[pos[k] + half] <= keys[off + k] ? static_cast<uint32_t>(half) : 0;
      }
      for (int k = 0; k < m; ++k) nh[off + k] = nh_[pos[k]];
    }
  }

  size_t ranges() const { return start_.size(); }
  // What it holds in memory (the reserved capacity).
  size_t bytes() const {
    return start_.capacity() * sizeof(Key) + nh_.capacity() * 4 + len_.capacity();
  }

 private:
  // The index of the range that starts at `a`, splitting the one holding it.
  size_t split_at(Key a) {
    size_t lo = 0, n = start_.size();
    while (n > 1) {
      const size_t half = n / 2;
      if (start_[lo + half] <= a) lo += half;
      n -= half;
    }
    if (start_[lo] == a) return lo;
    start_.insert(start_.begin() + static_cast<std::ptrdiff_t>(lo + 1), a);
    nh_.insert(nh_.begin() + static_cast<std::ptrdiff_t>(lo + 1), nh_[lo]);
    len_.insert(len_.begin() + static_cast<std::ptrdiff_t>(lo + 1), len_[lo]);
    return lo + 1;
  }

  std::vector<Key> start_;
  std::vector<uint32_t> nh_;
  std::vector<uint8_t> len_;
};

}  // namespace rocelb
