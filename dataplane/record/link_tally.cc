#include "dataplane/record/link_tally.h"

#include <algorithm>
#include <tuple>

namespace rocelb {

void LinkTally::start(uint32_t wires, uint64_t window_ns) {
  window_ns_ = window_ns;
  bytes_.assign(wires, {});
  first_.clear();
}

void LinkTally::add(uint32_t i, uint64_t now_ps, uint64_t start_ps, uint64_t wire_bytes) {
  const uint64_t w = start_ps / 1000 / window_ns_;
  // Windows come nearly in order: a new one is almost always the last.
  if (first_.empty() || first_.back().window != w) {
    const auto it = std::lower_bound(first_.begin(), first_.end(), w,
                                     [](const FirstUse& f, uint64_t x) { return f.window < x; });
    if (it == first_.end() || it->window != w) first_.insert(it, FirstUse{w, now_ps, start_ps});
  }
  add_to_window(bytes_[i], w, wire_bytes);
}

void merge_link_tallies(const std::vector<const LinkTally*>& tallies, LinkMeters& into) {
  // Each window's first use over every shard.
  std::vector<LinkTally::FirstUse> uses;
  for (const LinkTally* t : tallies) uses.insert(uses.end(), t->first_.begin(), t->first_.end());
  std::sort(uses.begin(), uses.end(), [](const auto& x, const auto& y) {
    return std::tie(x.window, x.now_ps, x.start_ps) < std::tie(y.window, y.now_ps, y.start_ps);
  });
  uses.erase(std::unique(uses.begin(), uses.end(),
                         [](const auto& x, const auto& y) { return x.window == y.window; }),
             uses.end());
  std::sort(uses.begin(), uses.end(), [](const auto& x, const auto& y) {
    return std::tie(x.now_ps, x.window) < std::tie(y.now_ps, y.window);
  });
  std::vector<uint64_t> taken;
  for (const auto& u : uses) {
    if (!into.use_window(u.window, u.start_ps / 1000)) break;
    taken.push_back(u.window);
  }
  std::sort(taken.begin(), taken.end());
  for (const LinkTally* t : tallies)
    for (uint32_t i = 0; i < t->bytes_.size(); ++i)
      for (const auto& [w, b] : t->bytes_[i])
        if (std::binary_search(taken.begin(), taken.end(), w)) into.add_window(i, w, b);
}

}  // namespace rocelb
