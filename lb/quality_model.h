// Path quality as Broadcom DLB computes it: a member's load (transmit-load
// EWMA as a percentage of its speed) and its queue depth are each quantised
// into 8 levels by 7 increasing thresholds (the level is the number of
// thresholds reached), and the quality band is their weighted mix,
//   band = (load_weight * load_level + queue_weight * queue_level + 50) / 100,
// 0 = best (idle) .. 7 = worst. pick_best() returns a member of the best band
// among the up members, ties broken at random.
// Knobs: quality.{load_weight, queue_weight, load_thresholds, queue_thresholds}
// (lb_knobs.h). No counters.
#pragma once

#include <array>
#include <cstdint>

#include "lb/lb_decision.h"
#include "lb/lb_knobs.h"
#include "lb/lb_rng.h"
#include "lb/path_state.h"
#include "lb/up_members.h"

namespace rocelb {

class QualityModel {
 public:
  explicit QualityModel(const QualityKnobs& k);

  uint32_t queue_level(uint64_t queue_bytes) const {
    uint32_t l = 0;
    for (uint64_t t : queue_thresholds_) l += queue_bytes >= t;
    return l;
  }
  // load_bps / speed_bps >= t %, compared exactly; a member of unknown speed is idle.
  uint32_t load_level(uint64_t load_bps, uint64_t speed_bps) const {
    if (speed_bps == 0) return 0;
    if (load_bps >= speed_bps) return kQualityThresholds;  // every threshold is <= 100 %
    if (speed_bps > kMaxExactSpeed) return load_level_wide(load_bps, speed_bps);
    const uint64_t load100 = load_bps * 100;  // < 100 * 2^56: no overflow
    uint32_t l = 0;
    for (uint32_t t : load_thresholds_) l += load100 >= t * speed_bps;
    return l;
  }
  uint32_t band(const MemberPath& p) const {
    return band_[load_level(p.load_bps, p.speed_bps)][queue_level(p.queue_bytes)];
  }

  // A member of the best band among the up ones (kNoMember if none is up);
  // one random draw when several share the best band.
  uint32_t pick_best(const UpMembers& up, const MemberPath* paths, LbRng& rng,
                     LbDecision* trace) const {
    const uint32_t n = up.count();
    if (n == 0) return kNoMember;
    // Branch-free: bands vary packet to packet, so comparisons are unpredictable.
    std::array<uint8_t, kMaxLbMembers> bands;
    std::array<uint16_t, kMaxLbMembers> ties;
    uint32_t best = kQualityBands;
    for (uint32_t k = 0; k < n; ++k) {
      const uint32_t b = band(paths[up.at(k)]);
      bands[k] = static_cast<uint8_t>(b);
      best = b < best ? b : best;
    }
    uint32_t nties = 0;
    for (uint32_t k = 0; k < n; ++k) {
      ties[nties] = static_cast<uint16_t>(up.at(k));
      nties += bands[k] == best;
    }
    if (trace) {
      trace->compared = LbCompared::kBands;
      for (uint32_t k = 0; k < n; ++k) trace->add_candidate(up.at(k), bands[k]);
    }
    return nties == 1 ? ties[0] : ties[rng.below(nties)];
  }

 private:
  static constexpr uint64_t kMaxExactSpeed = uint64_t{1} << 56;
  uint32_t load_level_wide(uint64_t load_bps, uint64_t speed_bps) const;

  std::array<uint64_t, kQualityThresholds> queue_thresholds_;
  std::array<uint64_t, kQualityThresholds> load_thresholds_;
  // band_[load level][queue level]: the weighted mix, precomputed.
  std::array<std::array<uint8_t, kQualityBands>, kQualityBands> band_;
};

}  // namespace rocelb
