// What a set of prefixes needs of the route tables, shared by the table that
// is built (dataplane/forward/route_table.h) and the config's memory
// estimate (memory_estimate.h), so the two cannot drift. Up to
// kCompactRoutesMax prefixes of a family go to a compact range table
// (dataplane/forward/range_table.h: at most 2 * prefixes + 1 ranges);
// more go to DPDK's rte_fib, where DIR-24-8 takes one
// 256-entry group (tbl8) per IPv4 prefix longer than /24; the IPv6 trie one
// per 8 bits beyond the first 24 of each prefix (counted without sharing:
// an upper bound). Next hops decide the entry width (2 bytes up to 32767).
// No knobs, no counters.
#pragma once

#include <cstdint>

namespace rocelb {

// The most prefixes of one family (IPv4 or IPv6) a compact table holds: a
// lookup is then at most 13 steps of binary search over 16 KB (IPv4).
inline constexpr uint32_t kCompactRoutesMax = 2048;

struct RouteTableSize {
  uint32_t routes_v4 = 0, routes_v6 = 0;
  uint32_t tbl8_v4 = 0, tbl8_v6 = 0;
  uint32_t next_hops = 1;
  void add(bool v4, unsigned len) {
    if (v4) {
      ++routes_v4;
      tbl8_v4 += len > 24;
    } else {
      ++routes_v6;
      tbl8_v6 += len > 24 ? (len - 24 + 7) / 8 : 0;
    }
  }
  bool compact_v4() const { return routes_v4 <= kCompactRoutesMax; }
  bool compact_v6() const { return routes_v6 <= kCompactRoutesMax; }
};

}  // namespace rocelb
