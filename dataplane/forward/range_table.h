// A small longest-prefix-match table: the prefixes flattened into a sorted
// array of disjoint address ranges, each with the next hop of the longest
// prefix that covers it (0, "no route", where none does). A lookup is a
// branch-free binary search, run in lockstep over a whole burst so the
// loads of its packets overlap (one packet alone: the same search in
// registers, without the lanes' set-up); an IPv4 table of up to 256 ranges
// is searched in two steps of 16 starts compared at once. Used by RouteTable
// (route_table.h) for the tens of routes a leaf or spine holds, where
// DIR-24-8 would take 32 MB (IPv4) and 64 MB (IPv6) for its first level
// alone.
//
// Built once (add() per prefix, O(ranges) each: meant for up to a few
// thousand prefixes, kCompactRoutesMax), then read-only: lookups are safe
// from any thread. A prefix added twice keeps the last next hop, as
// rte_fib_add does. Memory: ranges() * (sizeof(Key) + 4 + 1) bytes, at most
// 2 * prefixes + 1 ranges (reserved up front: route_table_size.h), and for
// the two-step search 4 bytes a range and 64 more (rounded up to 16).
// Knobs: none. Counters: none.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>
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
    if (kSeeks && 2 * prefixes + 1 <= kSeekRanges)
      seek_.reserve(kSeekWidth * (1 + (2 * prefixes + 1 + kSeekWidth - 1) / kSeekWidth));
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
    build_seek();
  }

  void lookup(const Key* keys, uint64_t* nh, int n) const {
    constexpr int kLanes = 32;
    const Key* s = start_.data();
    if constexpr (kSeeks) {
      if (!seek_.empty()) {
        for (int k = 0; k < n; ++k) nh[k] = nh_[seek(keys[k])];
        return;
      }
    }
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
    return start_.capacity() * sizeof(Key) + nh_.capacity() * 4 + len_.capacity() +
           seek_.capacity() * sizeof(uint32_t);
  }

 private:
  // IPv4 tables of up to kSeekRanges ranges (a leaf's or a spine's) are
  // searched in two steps of kSeekWidth starts each, every start of a step
  // compared at once (the compiler's vector compares), where the binary
  // search's steps each wait for the one before: seek_ holds every 16th
  // start, then all the starts, padded to whole steps with the largest key.
  static constexpr bool kSeeks = sizeof(Key) == sizeof(uint32_t);
  static constexpr size_t kSeekWidth = 16, kSeekRanges = kSeekWidth * kSeekWidth;

  // How many of a[0..16) are <= x: four compares of four lanes (GCC's
  // vector extensions: SSE on x86, NEON on Arm), no chain through a flag.
  static size_t count_le(const uint32_t* a, uint32_t x) {
    typedef uint32_t U4 __attribute__((vector_size(16)));
    typedef int32_t I4 __attribute__((vector_size(16)));
    const U4 xs = {x, x, x, x};
    I4 acc = {0, 0, 0, 0};
    for (size_t j = 0; j < kSeekWidth; j += 4) {
      U4 v;
      std::memcpy(&v, a + j, sizeof v);
      acc += reinterpret_cast<I4>(v <= xs);  // -1 where it is
    }
    return static_cast<size_t>(-(acc[0] + acc[1] + acc[2] + acc[3]));
  }
  // The range holding `key`: the last start <= key. A padding entry counts
  // only for the largest key and is cut off by the step's real size.
  size_t seek(Key key) const {
    const uint32_t x = static_cast<uint32_t>(key);
    const size_t blocks = (start_.size() + kSeekWidth - 1) / kSeekWidth;
    const size_t b = std::min(count_le(seek_.data(), x), blocks) - 1;
    const size_t in = std::min(count_le(seek_.data() + kSeekWidth * (1 + b), x),
                               std::min(kSeekWidth, start_.size() - kSeekWidth * b));
    return kSeekWidth * b + in - 1;
  }
  void build_seek() {
    seek_.clear();
    if (!kSeeks || start_.size() > kSeekRanges) return;
    const size_t blocks = (start_.size() + kSeekWidth - 1) / kSeekWidth;
    seek_.assign(kSeekWidth * (1 + blocks), UINT32_MAX);
    for (size_t i = 0; i < start_.size(); ++i) {
      const uint32_t a = static_cast<uint32_t>(start_[i]);
      if (i % kSeekWidth == 0) seek_[i / kSeekWidth] = a;
      seek_[kSeekWidth + i] = a;
    }
  }

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
  std::vector<uint32_t> seek_;  // kSeeks: see seek()
};

}  // namespace rocelb
