// `drill`: DRILL (Ghorbani et al., SIGCOMM 2017). Per packet, compare the
// queue depth of d distinct random up members and of the m best members
// remembered from this engine's previous decision; send to the shortest
// (ties: remembered first, then in sampling order) and remember the m
// shortest of this comparison. Samples are drawn by a partial Fisher-Yates
// shuffle of the up list: O(d) per packet, no duplicates.
// drill.memory destination (ConWeave's ns-3, switch-node.cc:122-146): the
// remembered best is kept per destination, in a direct-mapped table of
// max_flows entries indexed by the caller's hash of the destination address
// and tagged with the whole hash (a colliding destination takes the entry
// over); m is then 1 and the remembered member is compared first.
// Knobs: drill.d (default 2), drill.m (default 1), drill.memory,
// max_flows (its table), quality.depth (which queue the dataplane reports).
// Counters: none of its own.
#pragma once

#include <array>
#include <cstdint>
#include <vector>

#include "lb/lb_decision.h"
#include "lb/lb_knobs.h"
#include "lb/lb_shared.h"
#include "lb/path_state.h"

namespace rocelb {

class DrillEngine {
 public:
  // per_destination: drill.memory destination, in `table_entries` (a power
  // of two) entries.
  DrillEngine(uint32_t d, uint32_t m, bool per_destination = false, uint32_t table_entries = 0);

  // dst_hash: the destination's hash (read with per_destination only).
  uint32_t select(uint32_t dst_hash, const MemberPath* paths, LbShared& s, LbDecision* trace) {
    if (s.up.generation() != generation_) resync(s.up);
    std::array<uint16_t, kMaxDrillSamples + kMaxDrillMemory> cand;
    uint32_t nc = 0;
    DestMemory* slot = nullptr;
    if (!dest_.empty()) {
      slot = &dest_[dst_hash & (dest_.size() - 1)];
      if (slot->tag == dst_hash && slot->member != kNone && s.up.is_up(slot->member))
        cand[nc++] = slot->member;
    } else {
      for (uint32_t k = 0; k < nmem_; ++k) cand[nc++] = memory_[k];
    }
    const uint32_t n = s.up.count();
    const uint32_t d = d_ < n ? d_ : n;
    for (uint32_t j = 0; j < d; ++j) {
      const uint32_t r = j + s.rng.below(n - j);
      std::swap(perm_[j], perm_[r]);
      cand[nc++] = perm_[j];
    }
    uint32_t best = cand[0];
    uint64_t best_q = paths[best].queue_bytes;
    for (uint32_t k = 1; k < nc; ++k) {  // branch-free: depths are unpredictable
      const uint64_t q = paths[cand[k]].queue_bytes;
      const bool shorter = q < best_q;
      best_q = shorter ? q : best_q;
      best = shorter ? cand[k] : best;
    }
    if (trace) {
      trace->compared = LbCompared::kQueueBytes;
      for (uint32_t k = 0; k < nc; ++k) trace->add_candidate(cand[k], paths[cand[k]].queue_bytes);
    }
    if (slot) {
      *slot = DestMemory{dst_hash, static_cast<uint16_t>(best)};
    } else if (m_ == 1) {
      memory_[0] = static_cast<uint16_t>(best);  // the shortest, earliest on ties
      nmem_ = 1;
    } else {
      remember(cand.data(), nc, paths);
    }
    return best;
  }

  void reset() {
    nmem_ = 0;
    for (DestMemory& e : dest_) e = DestMemory{};
  }
  uint32_t memory_size() const { return nmem_; }
  uint32_t memory(uint32_t k) const { return memory_[k]; }

 private:
  static constexpr uint16_t kNone = 0xffff;
  struct DestMemory {
    uint32_t tag = 0;
    uint16_t member = kNone;
  };
  void resync(const UpMembers& up);
  // Keeps the m shortest distinct candidates (stable: earlier wins ties), m != 1.
  void remember(const uint16_t* cand, uint32_t nc, const MemberPath* paths);

  uint32_t d_;
  uint32_t m_;
  uint32_t nmem_ = 0;
  uint64_t generation_ = 0;
  std::array<uint16_t, kMaxDrillMemory> memory_{};
  std::array<uint16_t, kMaxLbMembers> perm_{};
  std::vector<DestMemory> dest_;  // drill.memory destination; empty otherwise
};

}  // namespace rocelb
