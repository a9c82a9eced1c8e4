#include "pfc/wred.h"

#include <algorithm>

namespace rocelb {
namespace {

uint64_t splitmix64(uint64_t& state) {
  uint64_t z = (state += 0x9e3779b97f4a7c15ull);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

}  // namespace

WredMarker::WredMarker(const WredProfile& profile, uint64_t seed)
    : profile_(profile), state_(seed) {
  profile_.probability_pct = std::min<uint32_t>(profile_.probability_pct, 100);
}

uint64_t WredMarker::seed_for(uint64_t config_seed, uint16_t port, uint8_t tc, uint32_t lcore) {
  uint64_t s = config_seed;
  uint64_t h = splitmix64(s);
  s = h ^ ((uint64_t{port} << 40) | (uint64_t{tc} << 32) | lcore);
  return splitmix64(s);
}

uint64_t WredMarker::next_random() {
  return splitmix64(state_);
}

double WredMarker::hit_probability(uint64_t queue_bytes) const {
  if (!profile_.enabled || queue_bytes < profile_.min_bytes) return 0.0;
  if (queue_bytes >= profile_.max_bytes) return 1.0;
  return profile_.probability_pct / 100.0 * static_cast<double>(queue_bytes - profile_.min_bytes) /
         static_cast<double>(profile_.max_bytes - profile_.min_bytes);
}

WredVerdict WredMarker::decide(uint64_t queue_bytes, uint32_t pkt_bytes, uint8_t ecn,
                               bool lossless) {
  if (!profile_.enabled || queue_bytes < profile_.min_bytes) return WredVerdict::kPass;
  if (queue_bytes < profile_.max_bytes) {
    // Hit iff r < pct × (q − min), r uniform in [0, 100 × (max − min)).
    // Spans of 2^56 bytes and more are scaled down so the product fits.
    uint64_t span = profile_.max_bytes - profile_.min_bytes;
    uint64_t over = queue_bytes - profile_.min_bytes;
    if (span >= (uint64_t{1} << 56)) {
      span >>= 8;
      over >>= 8;
    }
    const unsigned __int128 range = static_cast<unsigned __int128>(100) * span;
    const unsigned __int128 r = (static_cast<unsigned __int128>(next_random()) * range) >> 64;
    const unsigned __int128 bar = static_cast<unsigned __int128>(profile_.probability_pct) * over;
    if (r >= bar) return WredVerdict::kPass;
  }
  if (profile_.ecn == EcnMode::kEcnAll && (ecn & 3) != kEcnNotEct) {
    ++counters_.wred_ecn_marked_packets;
    counters_.wred_ecn_marked_bytes += pkt_bytes;
    return WredVerdict::kMark;
  }
  if (lossless) return WredVerdict::kPass;
  ++counters_.wred_dropped_packets;
  counters_.wred_dropped_bytes += pkt_bytes;
  return WredVerdict::kDrop;
}

}  // namespace rocelb
