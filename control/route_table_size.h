// What a set of prefixes needs of the route tables, shared by the table that
// is built (dataplane/forward/route_table.h) and the config's memory
// estimate (memory_estimate.h), so the two cannot drift: DIR-24-8 takes one
// 256-entry group (tbl8) per IPv4 prefix longer than /24; the IPv6 trie one
// per 8 bits beyond the first 24 of each prefix (counted without sharing:
// an upper bound). Next hops decide the entry width (2 bytes up to 32767).
// No knobs, no counters.
#pragma once

#include <cstdint>

namespace rocelb {

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
};

}  // namespace rocelb
