// Longest-prefix match for IPv4 (rte_fib DIR-24-8) and IPv6 (rte_fib6 trie).
// A lookup returns a next-hop index into the switch config's next-hop table;
// 0 means "no route". Built once per config; lookups are read-only and safe
// from any lcore. Needs EAL (the tables live in rte_malloc memory).
#pragma once

#include <cstdint>
#include <string>

#include "control/route_table_size.h"

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

 private:
  rte_fib* v4_ = nullptr;
  rte_fib6* v6_ = nullptr;
};

}  // namespace rocelb
