#include "dataplane/forward/route_table.h"

#include <rte_errno.h>
#include <rte_fib.h>
#include <rte_fib6.h>
#include <rte_memory.h>

#include <algorithm>
#include <atomic>
#include <stdexcept>

namespace rocelb {
namespace {
std::atomic<uint64_t> g_table_seq{0};

std::string table_name(const char* kind) {
  // rte_fib names must be unique per process; configs are rebuilt on swap.
  return std::string(kind) + std::to_string(g_table_seq.fetch_add(1));
}
}  // namespace

namespace {
unsigned __int128 v6_key(const uint8_t* p) {
  unsigned __int128 k = 0;
  for (int i = 0; i < 16; ++i) k = (k << 8) | p[i];
  return k;
}
}  // namespace

RouteTable::RouteTable(const RouteTableSize& size) {
  if (size.compact_v4()) small_v4_ = std::make_unique<RangeTable<uint32_t>>(size.routes_v4);
  if (size.compact_v6())
    small_v6_ = std::make_unique<RangeTable<unsigned __int128>>(size.routes_v6);
  if (small_v4_ && small_v6_) return;
  // 2-byte entries hold next hops and tbl8 indices up to 32767.
  constexpr uint32_t kMax2B = (1u << 15) - 1;
  const uint32_t tbl8_v4 = size.tbl8_v4 + 16;
  rte_fib_conf c4{};
  c4.type = RTE_FIB_DIR24_8;
  c4.default_nh = kNoRoute;
  c4.max_routes = static_cast<int>(std::max<uint32_t>(16, size.routes_v4 + 16));
  c4.dir24_8.nh_sz =
      tbl8_v4 > kMax2B || size.next_hops > kMax2B ? RTE_FIB_DIR24_8_4B : RTE_FIB_DIR24_8_2B;
  c4.dir24_8.num_tbl8 = tbl8_v4;
  if (!small_v4_) {
    std::string n4 = table_name("rl_fib4_");
    v4_ = rte_fib_create(n4.c_str(), SOCKET_ID_ANY, &c4);
    if (!v4_)
      throw std::runtime_error("cannot create IPv4 route table: " +
                               std::string(rte_strerror(rte_errno)));
  }
  if (small_v6_) return;
  rte_fib6_conf c6{};
  c6.type = RTE_FIB6_TRIE;
  c6.default_nh = kNoRoute;
  c6.max_routes = static_cast<int>(std::max<uint32_t>(16, size.routes_v6 + 16));
  c6.trie.nh_sz = RTE_FIB6_TRIE_4B;
  c6.trie.num_tbl8 = size.tbl8_v6 + 16;
  std::string n6 = table_name("rl_fib6_");
  v6_ = rte_fib6_create(n6.c_str(), SOCKET_ID_ANY, &c6);
  if (!v6_) {
    rte_fib_free(v4_);
    throw std::runtime_error("cannot create IPv6 route table: " +
                             std::string(rte_strerror(rte_errno)));
  }
}

RouteTable::~RouteTable() {
  if (v4_) rte_fib_free(v4_);
  if (v6_) rte_fib6_free(v6_);
}

uint64_t RouteTable::compact_bytes() const {
  return (small_v4_ ? small_v4_->bytes() : 0) + (small_v6_ ? small_v6_->bytes() : 0);
}

void RouteTable::add_v4(const uint8_t* p, uint8_t len, uint32_t nh) {
  uint32_t ip = (uint32_t(p[0]) << 24) | (uint32_t(p[1]) << 16) | (uint32_t(p[2]) << 8) | p[3];
  if (len > 32) throw std::runtime_error("cannot add IPv4 route: prefix length over 32");
  if (small_v4_) return small_v4_->add(ip, len, nh);
  int rc = rte_fib_add(v4_, ip, len, nh);
  if (rc < 0) throw std::runtime_error("cannot add IPv4 route: " + std::string(rte_strerror(-rc)));
}

void RouteTable::add_v6(const uint8_t* p, uint8_t len, uint32_t nh) {
  if (len > 128) throw std::runtime_error("cannot add IPv6 route: prefix length over 128");
  if (small_v6_) return small_v6_->add(v6_key(p), len, nh);
  int rc = rte_fib6_add(v6_, p, len, nh);
  if (rc < 0) throw std::runtime_error("cannot add IPv6 route: " + std::string(rte_strerror(-rc)));
}

void RouteTable::lookup_v4(uint32_t* ips, uint64_t* nh, int n) const {
  if (small_v4_)
    small_v4_->lookup(ips, nh, n);
  else
    rte_fib_lookup_bulk(v4_, ips, nh, n);
}

void RouteTable::lookup_v6(uint8_t (*ips)[16], uint64_t* nh, int n) const {
  if (small_v6_) {
    unsigned __int128 keys[64];
    for (int off = 0; off < n; off += 64) {
      const int m = std::min(n - off, 64);
      for (int i = 0; i < m; ++i) keys[i] = v6_key(ips[off + i]);
      small_v6_->lookup(keys, nh + off, m);
    }
  } else {
    rte_fib6_lookup_bulk(v6_, ips, nh, n);
  }
}

}  // namespace rocelb
