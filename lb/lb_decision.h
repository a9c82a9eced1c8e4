// Why an engine chose what it chose, for `--trace` and for teaching: filled
// only when the caller passes a non-null LbDecision* to LbEngine::select (a
// null pointer costs nothing). Candidates are what the engine compared: the
// quality bands of the members (quality modes) or their queue depths (drill);
// at most kMaxCandidates are recorded, candidates_total says how many there were.
#pragma once

#include <cstdint>

namespace rocelb {

enum class LbCompared : uint8_t {
  kNothing,     // hash or random choice, or a flowlet that continued
  kBands,       // value[] = quality band 0 (best) .. 7
  kQueueBytes,  // value[] = queue depth in bytes
};

inline constexpr uint32_t kNoBucket = 0xffffffffu;

struct LbDecision {
  static constexpr uint32_t kMaxCandidates = 32;

  uint32_t member = 0;             // chosen member index, or kNoMember
  uint32_t bucket = kNoBucket;     // wcmp / resilient: the bucket the hash hit
  bool new_flowlet = false;        // flowlet modes: this packet started a flowlet
  bool flowlet_collision = false;  // the entry held another flow's tag
  uint64_t flowlet_age_ns = 0;     // flowlet modes: ns since the entry's last packet (0: empty)
  LbCompared compared = LbCompared::kNothing;
  uint16_t candidates_total = 0;  // members compared
  uint8_t num_candidates = 0;     // entries filled below (<= kMaxCandidates)
  uint16_t candidate[kMaxCandidates];
  uint64_t value[kMaxCandidates];

  void clear() {
    member = 0;
    bucket = kNoBucket;
    new_flowlet = false;
    flowlet_collision = false;
    flowlet_age_ns = 0;
    compared = LbCompared::kNothing;
    candidates_total = 0;
    num_candidates = 0;
  }
  void add_candidate(uint32_t m, uint64_t v) {
    if (num_candidates < kMaxCandidates) {
      candidate[num_candidates] = static_cast<uint16_t>(m);
      value[num_candidates] = v;
      ++num_candidates;
    }
    ++candidates_total;
  }
};

}  // namespace rocelb
