#include "dataplane/forward/route_table.h"

#include <rte_errno.h>
#include <rte_fib.h>
#include <rte_fib6.h>
#include <rte_memory.h>
#include <rte_rib.h>
#include <rte_rib6.h>
#include <rte_version.h>

#include <algorithm>
#include <atomic>
#include <stdexcept>
#include <vector>

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

void v6_bytes(unsigned __int128 k, uint8_t* p) {
  for (int i = 15; i >= 0; --i, k >>= 8) p[i] = static_cast<uint8_t>(k);
}

// One family's RIB (the prefixes rte_fib keeps beside its lookup table),
// keys in host order.
struct V4 {
  using Fib = rte_fib;
  using Rib = rte_rib;
  using Node = rte_rib_node;
  using Key = uint32_t;
  static constexpr unsigned kBits = 32;
  static Rib* rib(Fib* f) { return rte_fib_get_rib(f); }
  static Node* exact(Rib* r, Key k, uint8_t len) { return rte_rib_lookup_exact(r, k, len); }
  // rte_rib_get_nxt: the routes inside k/len (not k/len itself), in address
  // order; `cover`: only those no other route inside k/len holds.
  static Node* next(Rib* r, Key k, uint8_t len, Node* last, bool cover) {
    return rte_rib_get_nxt(r, k, len, last, cover ? RTE_RIB_GET_NXT_COVER : RTE_RIB_GET_NXT_ALL);
  }
  static Key key(const Node* n) {
    uint32_t ip = 0;
    rte_rib_get_ip(n, &ip);
    return ip;
  }
  static uint8_t len(const Node* n) {
    uint8_t d = 0;
    rte_rib_get_depth(n, &d);
    return d;
  }
  static uint64_t nh(const Node* n) {
    uint64_t h = 0;
    rte_rib_get_nh(n, &h);
    return h;
  }
};

struct V6 {
  using Fib = rte_fib6;
  using Rib = rte_rib6;
  using Node = rte_rib6_node;
  using Key = unsigned __int128;
  static constexpr unsigned kBits = 128;
  static Rib* rib(Fib* f) { return rte_fib6_get_rib(f); }
  static Node* exact(Rib* r, Key k, uint8_t len) {
    uint8_t b[16];
    v6_bytes(k, b);
    return rte_rib6_lookup_exact(r, b, len);
  }
  static Node* next(Rib* r, Key k, uint8_t len, Node* last, bool cover) {
    uint8_t b[16];
    v6_bytes(k, b);
    return rte_rib6_get_nxt(r, b, len, last, cover ? RTE_RIB6_GET_NXT_COVER : RTE_RIB6_GET_NXT_ALL);
  }
  static Key key(const Node* n) {
    uint8_t b[16] = {};
    rte_rib6_get_ip(n, b);
    return v6_key(b);
  }
  static uint8_t len(const Node* n) {
    uint8_t d = 0;
    rte_rib6_get_depth(n, &d);
    return d;
  }
  static uint64_t nh(const Node* n) {
    uint64_t h = 0;
    rte_rib6_get_nh(n, &h);
    return h;
  }
};

template <typename F>
typename F::Key prefix_mask(unsigned len) {
  using K = typename F::Key;
  return len == 0 ? K(0) : static_cast<K>(~K(0) << (F::kBits - len));
}

// Whether DPDK's add of key/len -> nh would write nh over the whole table
// or (below) not at all (DIR-24-8's modify_fib(), the trie's modify_dp(),
// DPDK 22.11 to at least 26.07). The add writes nh into the gaps between the routes directly
// inside key/len, walking them in address order with a left edge; when a
// route starts right at the left edge, the edge steps past it without the
// wrap check the other step has (DPDK commit ab1b927cd7), so a route that
// ends at the top of the address space takes the edge round to 0, and the
// last gap becomes [0, 0): everything. This walk mirrors DPDK's, on the
// same RIB, before the add. Before 22.11.4 (no ab1b927cd7) the other step
// wraps round to 0 as well.
constexpr bool kWrapCheck = RTE_VERSION >= RTE_VERSION_NUM(22, 11, 4, 0);

template <typename F>
bool dpdk_add_goes_wrong(typename F::Rib* rib, typename F::Key key, uint8_t len, uint64_t nh) {
  using K = typename F::Key;
  if (const auto* self = F::exact(rib, key, len); self && F::nh(self) == nh)
    return false;  // DPDK returns before the walk
  K ledge = key;
  for (typename F::Node* n = nullptr; (n = F::next(rib, key, len, n, true)) != nullptr;) {
    const uint8_t d = F::len(n);
    if (d == len) continue;
    const K start = F::key(n) & prefix_mask<F>(d);
    const K end = start + (K(1) << (F::kBits - d));  // past the route: 0 at the top
    if (end == 0) return start == ledge || !kWrapCheck;
    ledge = end;
  }
  // DIR-24-8: the last gap of 0/0 from inside 0.0.0.0/24 to the top, [ledge,
  // 0), looks to install_to_fib() like a gap inside one /24 and is not
  // written at all.
  if constexpr (F::kBits == 32) return len == 0 && ledge > 0 && ledge < 256;
  return false;
}

template <typename K>
struct Route {
  K key;
  uint8_t len;
  uint64_t nh;
};

// Every route of the RIB with key/len -> nh put in (or its next hop
// replaced), shortest first: DPDK builds any set right in that order (no
// add then has a route inside it, so the walk above has nothing to step
// over).
template <typename F>
std::vector<Route<typename F::Key>> routes_shortest_first(typename F::Rib* rib, typename F::Key key,
                                                          uint8_t len, uint64_t nh) {
  std::vector<Route<typename F::Key>> out;
  if (const auto* all = F::exact(rib, 0, 0)) out.push_back({0, 0, F::nh(all)});
  for (typename F::Node* n = nullptr; (n = F::next(rib, 0, 0, n, false)) != nullptr;)
    out.push_back({F::key(n) & prefix_mask<F>(F::len(n)), F::len(n), F::nh(n)});
  bool found = false;
  for (auto& r : out)
    if (r.key == key && r.len == len) r.nh = nh, found = true;
  if (!found) out.push_back({key, len, nh});
  std::stable_sort(out.begin(), out.end(),
                   [](const auto& a, const auto& b) { return a.len < b.len; });
  return out;
}
}  // namespace

rte_fib* RouteTable::create_v4() const {
  // 2-byte entries hold next hops and tbl8 indices up to 32767.
  constexpr uint32_t kMax2B = (1u << 15) - 1;
  const uint32_t tbl8_v4 = size_.tbl8_v4 + 16;
  rte_fib_conf c4{};
  c4.type = RTE_FIB_DIR24_8;
  c4.default_nh = kNoRoute;
  c4.max_routes = static_cast<int>(std::max<uint32_t>(16, size_.routes_v4 + 16));
  c4.dir24_8.nh_sz =
      tbl8_v4 > kMax2B || size_.next_hops > kMax2B ? RTE_FIB_DIR24_8_4B : RTE_FIB_DIR24_8_2B;
  c4.dir24_8.num_tbl8 = tbl8_v4;
  std::string n4 = table_name("rl_fib4_");
  rte_fib* f = rte_fib_create(n4.c_str(), SOCKET_ID_ANY, &c4);
  if (!f)
    throw std::runtime_error("cannot create IPv4 route table: " +
                             std::string(rte_strerror(rte_errno)));
  return f;
}

rte_fib6* RouteTable::create_v6() const {
  rte_fib6_conf c6{};
  c6.type = RTE_FIB6_TRIE;
  c6.default_nh = kNoRoute;
  c6.max_routes = static_cast<int>(std::max<uint32_t>(16, size_.routes_v6 + 16));
  c6.trie.nh_sz = RTE_FIB6_TRIE_4B;
  c6.trie.num_tbl8 = size_.tbl8_v6 + 16;
  std::string n6 = table_name("rl_fib6_");
  rte_fib6* f = rte_fib6_create(n6.c_str(), SOCKET_ID_ANY, &c6);
  if (!f)
    throw std::runtime_error("cannot create IPv6 route table: " +
                             std::string(rte_strerror(rte_errno)));
  return f;
}

RouteTable::RouteTable(const RouteTableSize& size) : size_(size) {
  if (size.compact_v4()) small_v4_ = std::make_unique<RangeTable<uint32_t>>(size.routes_v4);
  if (size.compact_v6())
    small_v6_ = std::make_unique<RangeTable<unsigned __int128>>(size.routes_v6);
  if (!small_v4_) v4_ = create_v4();
  if (small_v6_) return;
  try {
    v6_ = create_v6();
  } catch (...) {
    if (v4_) rte_fib_free(v4_);
    throw;
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
  ip &= prefix_mask<V4>(len);
  if (dpdk_add_goes_wrong<V4>(V4::rib(v4_), ip, len, nh)) {
    // Rebuilt shortest first, the new route among the others.
    const auto routes = routes_shortest_first<V4>(V4::rib(v4_), ip, len, nh);
    rte_fib_free(v4_);
    v4_ = nullptr;
    v4_ = create_v4();
    for (const auto& r : routes) fib_add_v4(r.key, r.len, static_cast<uint32_t>(r.nh));
    return;
  }
  fib_add_v4(ip, len, nh);
}

void RouteTable::fib_add_v4(uint32_t ip, uint8_t len, uint32_t nh) {
  int rc = rte_fib_add(v4_, ip, len, nh);
  if (rc < 0) throw std::runtime_error("cannot add IPv4 route: " + std::string(rte_strerror(-rc)));
}

void RouteTable::add_v6(const uint8_t* p, uint8_t len, uint32_t nh) {
  if (len > 128) throw std::runtime_error("cannot add IPv6 route: prefix length over 128");
  if (small_v6_) return small_v6_->add(v6_key(p), len, nh);
  const unsigned __int128 key = v6_key(p) & prefix_mask<V6>(len);
  if (dpdk_add_goes_wrong<V6>(V6::rib(v6_), key, len, nh)) {
    const auto routes = routes_shortest_first<V6>(V6::rib(v6_), key, len, nh);
    rte_fib6_free(v6_);
    v6_ = nullptr;
    v6_ = create_v6();
    for (const auto& r : routes) {
      uint8_t b[16];
      v6_bytes(r.key, b);
      fib_add_v6(b, r.len, static_cast<uint32_t>(r.nh));
    }
    return;
  }
  fib_add_v6(p, len, nh);
}

void RouteTable::fib_add_v6(const uint8_t* p, uint8_t len, uint32_t nh) {
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
