// Longest-prefix match for IPv4 and IPv6, each in the representation its
// route count calls for (route_table_size.h): up to kCompactRoutesMax
// prefixes a compact range table (range_table.h: a few KB, a binary search
// per address), above that DPDK's rte_fib DIR-24-8 (IPv4) and rte_fib6
// trie (IPv6), so a switch with an Internet table keeps O(1) lookups. Both
// give the same next hop for every address. A lookup returns a next-hop
// index into the switch config's next-hop table; 0 means "no route". Built
// once per config; lookups are read-only and safe from any lcore. Only the
// rte_fib tables need EAL (they live in rte_malloc memory).
//
// Prefixes may come in any order, and again (the last next hop wins). DPDK's
// rte_fib_add / rte_fib6_add (22.11 to at least 26.07; no fix upstream)
// write a prefix's next hop wrongly in two cases, found by
// tests/dataplane/route_table_order_test.cc: (1) a prefix added, or added
// again with another next hop, after more specific ones of which the last
// ends at the top of the address space right where the one before it (or
// the prefix) ends: 0/1, 128/1, then 0/0 writes 0/0's next hop over the
// whole table, leaking the long-prefix groups it held (IPv4 and IPv6);
// (2) IPv4 0/0 added after routes that all lie in 0.0.0.0/24: 0/0 is not
// written at all. Shortest first, each prefix once, DPDK builds any set
// right. So add_v4/add_v6 first walk the prefixes inside the new one as
// DPDK will, and where DPDK would go wrong rebuild the table from its RIB,
// shortest first, the new prefix among them (both tables never exist at
// once). Adds in config order rarely rebuild; a rebuild of 500,000 IPv4
// routes takes about 0.5 s.
// Knobs: none (the sizes). Counters: none.
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include "control/route_table_size.h"
#include "dataplane/forward/range_table.h"

struct rte_fib;
struct rte_fib6;

namespace rocelb {

inline constexpr uint32_t kNoRoute = 0;

class RouteTable {
 public:
  // Sized for `size` (with some room to spare). Throws std::runtime_error
  // when DPDK cannot allocate the tables.
  explicit RouteTable(const RouteTableSize& size);
  ~RouteTable();
  RouteTable(const RouteTable&) = delete;
  RouteTable& operator=(const RouteTable&) = delete;

  // prefix in network order (4 or 16 bytes). Throws on failure.
  void add_v4(const uint8_t* prefix, uint8_t len, uint32_t nh);
  void add_v6(const uint8_t* prefix, uint8_t len, uint32_t nh);

  // Bulk lookups: ips_host4 are host-order IPv4 addresses.
  void lookup_v4(uint32_t* ips_host4, uint64_t* nh, int n) const;
  void lookup_v6(uint8_t (*ips)[16], uint64_t* nh, int n) const;

  // Which representation each family got (tests, the memory report).
  bool compact_v4() const { return small_v4_ != nullptr; }
  bool compact_v6() const { return small_v6_ != nullptr; }
  // What the compact tables hold (the rte_fib ones are memory_estimate.h's).
  uint64_t compact_bytes() const;

 private:
  rte_fib* create_v4() const;
  rte_fib6* create_v6() const;
  void fib_add_v4(uint32_t ip, uint8_t len, uint32_t nh);
  void fib_add_v6(const uint8_t* prefix, uint8_t len, uint32_t nh);

  RouteTableSize size_;
  rte_fib* v4_ = nullptr;
  rte_fib6* v6_ = nullptr;
  std::unique_ptr<RangeTable<uint32_t>> small_v4_;
  std::unique_ptr<RangeTable<unsigned __int128>> small_v6_;
};

}  // namespace rocelb
