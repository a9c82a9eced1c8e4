#include "lb/flow_hash.h"

#include <cstring>

namespace rocelb {
namespace {

// 64x64→128 multiply folded to 64 bits: the mixing step of wyhash-style
// hashes; every input bit influences every output bit after two rounds.
inline uint64_t mum(uint64_t a, uint64_t b) {
  unsigned __int128 r = static_cast<unsigned __int128>(a) * b;
  return static_cast<uint64_t>(r) ^ static_cast<uint64_t>(r >> 64);
}

inline uint64_t load64(const uint8_t* p) {
  uint64_t v;
  std::memcpy(&v, p, sizeof v);
  return v;
}

constexpr uint64_t kP0 = 0xa0761d6478bd642full;
constexpr uint64_t kP1 = 0xe7037ed1a0b428dbull;
constexpr uint64_t kP2 = 0x8ebc6af09c88c6e3ull;

}  // namespace

uint32_t flow_hash(const FlowKey& key, const HashConfig& cfg) {
  uint64_t h = cfg.seed ^ kP0;
  const uint32_t f = cfg.fields;
  if (f & kHashSrcIp) {
    if (key.family == 6) {
      h = mum(h ^ load64(key.src_ip), kP1 ^ load64(key.src_ip + 8));
    } else {
      uint32_t v;
      std::memcpy(&v, key.src_ip, 4);
      h = mum(h ^ v, kP1);
    }
  }
  if (f & kHashDstIp) {
    if (key.family == 6) {
      h = mum(h ^ load64(key.dst_ip), kP2 ^ load64(key.dst_ip + 8));
    } else {
      uint32_t v;
      std::memcpy(&v, key.dst_ip, 4);
      h = mum(h ^ v, kP2);
    }
  }
  uint64_t l4 = 0;
  if (f & kHashProto) l4 |= static_cast<uint64_t>(key.proto) << 48;
  if (f & kHashSrcPort) l4 |= static_cast<uint64_t>(key.sport) << 16;
  if (f & kHashDstPort) l4 |= key.dport;
  uint64_t qp = (f & kHashDestQp) ? key.dest_qp : 0;
  h = mum(h ^ l4, kP1);
  h = mum(h ^ (qp << 8 | key.family), kP2);
  // murmur3's 64-bit finalizer: full avalanche before the top bits pick a member.
  h ^= h >> 33;
  h *= 0xff51afd7ed558ccdull;
  h ^= h >> 33;
  h *= 0xc4ceb9fe1a85ec53ull;
  h ^= h >> 33;
  return static_cast<uint32_t>(h);
}

}  // namespace rocelb
