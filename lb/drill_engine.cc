#include "lb/drill_engine.h"

#include <algorithm>
#include <bit>

namespace rocelb {

DrillEngine::DrillEngine(uint32_t d, uint32_t m, bool per_destination, uint32_t table_entries)
    : d_(std::clamp(d, 1u, kMaxDrillSamples)), m_(std::min(m, kMaxDrillMemory)) {
  if (per_destination) dest_.assign(std::bit_ceil(std::max(table_entries, 1u)), DestMemory{});
}

void DrillEngine::resync(const UpMembers& up) {
  generation_ = up.generation();
  for (uint32_t k = 0; k < up.count(); ++k) perm_[k] = static_cast<uint16_t>(up.at(k));
  uint32_t kept = 0;
  for (uint32_t k = 0; k < nmem_; ++k)
    if (up.is_up(memory_[k])) memory_[kept++] = memory_[k];
  nmem_ = kept;
}

void DrillEngine::remember(const uint16_t* cand, uint32_t nc, const MemberPath* paths) {
  if (m_ == 0) return;
  std::array<uint16_t, kMaxDrillMemory> best;
  uint32_t nb = 0;
  for (uint32_t k = 0; k < nc; ++k) {
    const uint16_t c = cand[k];
    if (std::find(best.begin(), best.begin() + nb, c) != best.begin() + nb) continue;
    const uint64_t q = paths[c].queue_bytes;
    uint32_t pos = nb;
    while (pos > 0 && paths[best[pos - 1]].queue_bytes > q) --pos;
    if (pos >= m_) continue;
    const uint32_t last = nb < m_ ? nb : m_ - 1;
    for (uint32_t i = last; i > pos; --i) best[i] = best[i - 1];
    best[pos] = c;
    if (nb < m_) ++nb;
  }
  for (uint32_t i = 0; i < nb; ++i) memory_[i] = best[i];
  nmem_ = nb;
}

}  // namespace rocelb
