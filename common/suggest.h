// "Did you mean …?" for a mistyped name: the candidate nearest to `word` by
// edit distance (insertions, deletions, substitutions and swaps of two
// neighbours each count 1), if it is near enough to be a typo: at most 1
// edit for words of up to 4 characters, 2 up to 8, else 3. Ties go to the
// first candidate. Used for command-line options and subcommands
// (common/cli_app.h). No knobs, no counters.
#pragma once

#include <algorithm>
#include <string>
#include <string_view>
#include <vector>

namespace rocelb {

inline size_t edit_distance(std::string_view a, std::string_view b) {
  // Optimal string alignment distance, three rows.
  std::vector<size_t> prev2(b.size() + 1), prev(b.size() + 1), cur(b.size() + 1);
  for (size_t j = 0; j <= b.size(); ++j) prev[j] = j;
  for (size_t i = 1; i <= a.size(); ++i) {
    cur[0] = i;
    for (size_t j = 1; j <= b.size(); ++j) {
      const size_t cost = a[i - 1] == b[j - 1] ? 0 : 1;
      cur[j] = std::min({prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + cost});
      if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1])
        cur[j] = std::min(cur[j], prev2[j - 2] + 1);
    }
    prev2.swap(prev);
    prev.swap(cur);
  }
  return prev[b.size()];
}

// The nearest candidate, or "" when none is near enough.
inline std::string nearest_name(std::string_view word, const std::vector<std::string>& candidates) {
  const size_t n = word.size();
  const size_t allowed = n <= 4 ? 1 : n <= 8 ? 2 : 3;
  std::string best;
  size_t best_d = allowed + 1;
  for (const std::string& c : candidates) {
    const size_t d = edit_distance(word, c);
    if (d < best_d && d < std::max(n, c.size())) {
      best = c;
      best_d = d;
    }
  }
  return best;
}

}  // namespace rocelb
