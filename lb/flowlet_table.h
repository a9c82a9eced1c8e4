// The flowlet table of one group on one lcore: a fixed-size array (`max_flows`
// entries, a power of two) indexed by the low bits of the flow hash. As in
// hardware, flows whose hashes share those bits share an entry; the remaining
// hash bits are kept as a tag so that such collisions can be counted. An
// entry remembers when its last packet passed and which member it went to.
// Knobs: max_flows. Counters: none (FlowletEngine counts).
#pragma once

#include <cstdint>
#include <vector>

namespace rocelb {

struct FlowletEntry {
  uint64_t last_seen_ns = 0;
  uint32_t tag = 0;
  uint16_t member = 0;
  uint8_t valid = 0;
};
static_assert(sizeof(FlowletEntry) == 16, "lb_knobs.h group_table_bytes counts 16 bytes");

class FlowletTable {
 public:
  // size: a power of two, 1..2^31.
  explicit FlowletTable(uint32_t size);

  FlowletEntry& entry(uint32_t hash) { return entries_[hash & mask_]; }
  uint32_t tag(uint32_t hash) const { return hash >> shift_; }
  uint32_t index(uint32_t hash) const { return hash & mask_; }

  const FlowletEntry& at(uint32_t index) const { return entries_[index]; }
  uint32_t size() const { return mask_ + 1; }
  void clear();

 private:
  std::vector<FlowletEntry> entries_;
  uint32_t mask_;
  uint32_t shift_;
};

}  // namespace rocelb
