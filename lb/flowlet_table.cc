#include "lb/flowlet_table.h"

#include <bit>
#include <stdexcept>

namespace rocelb {

FlowletTable::FlowletTable(uint32_t size) {
  if (size == 0 || (size & (size - 1)) != 0 || size > (1u << 31))
    throw std::invalid_argument("flowlet table size must be a power of two");
  entries_.assign(size, FlowletEntry{});
  mask_ = size - 1;
  shift_ = static_cast<uint32_t>(std::countr_zero(size));
}

void FlowletTable::clear() {
  entries_.assign(entries_.size(), FlowletEntry{});
}

}  // namespace rocelb
