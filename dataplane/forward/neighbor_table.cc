#include "dataplane/forward/neighbor_table.h"

namespace rocelb {

NeighborTable::NeighborTable(size_t expected) {
  size_t cap = 16;
  while (cap < expected * 2) cap <<= 1;
  slots_.resize(cap);
  mask_ = cap - 1;
}

bool NeighborTable::insert(const NeighborEntry& e) {
  if (find(e.family, e.ip)) return false;
  if ((count_ + 1) * 2 > slots_.size()) {
    std::vector<NeighborEntry> old;
    old.swap(slots_);
    slots_.resize(old.size() * 2);
    mask_ = slots_.size() - 1;
    count_ = 0;
    for (const auto& o : old)
      if (o.family) insert(o);
  }
  size_t i = hash(e.family, e.ip) & mask_;
  while (slots_[i].family != 0) i = (i + 1) & mask_;
  slots_[i] = e;
  ++count_;
  return true;
}

}  // namespace rocelb
