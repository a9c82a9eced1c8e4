#include "dataplane/sim/fabric_report.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <optional>

namespace rocelb {

namespace {

constexpr uint64_t kSmallBelow = 100'000;
constexpr uint64_t kLargeFrom = 1'000'000;
constexpr int kPercentileGroups = 20;

double nearest_rank(const std::vector<double>& sorted, double pct) {
  if (sorted.empty()) return 0;
  size_t rank = static_cast<size_t>(std::ceil(pct / 100.0 * static_cast<double>(sorted.size())));
  rank = std::clamp<size_t>(rank, 1, sorted.size());
  return sorted[rank - 1];
}

nlohmann::ordered_json to_json(const SlowdownStats& s) {
  nlohmann::ordered_json j;
  j["count"] = s.count;
  j["unfinished"] = s.unfinished;
  j["average"] = s.average;
  j["p50"] = s.p50;
  j["p95"] = s.p95;
  j["p99"] = s.p99;
  return j;
}

}  // namespace

std::optional<double> FlowRecord::slowdown() const {
  const auto fct = fct_ns();
  if (!fct || ideal_fct_ns == 0) return std::nullopt;
  return static_cast<double>(*fct) / static_cast<double>(ideal_fct_ns);
}

SlowdownStats slowdown_stats(const std::vector<const FlowRecord*>& flows) {
  SlowdownStats s;
  std::vector<double> v;
  v.reserve(flows.size());
  for (const FlowRecord* f : flows) {
    if (auto sd = f->slowdown())
      v.push_back(*sd);
    else
      ++s.unfinished;
  }
  s.count = v.size();
  if (v.empty()) return s;
  std::sort(v.begin(), v.end());
  double sum = 0;
  for (double x : v) sum += x;
  s.average = sum / static_cast<double>(v.size());
  s.p50 = nearest_rank(v, 50);
  s.p95 = nearest_rank(v, 95);
  s.p99 = nearest_rank(v, 99);
  return s;
}

namespace {

// Appends `v` in decimal, or nothing when it has none.
void put(std::string& out, uint64_t v) {
  char b[24];
  out.append(b, std::to_chars(b, b + sizeof b, v).ptr);
}
void put(std::string& out, const std::optional<uint64_t>& v) {
  if (v) put(out, *v);
}
// Four decimals, as printf's "%.4f" writes them.
void put(std::string& out, const std::optional<double>& v) {
  if (!v) return;
  char b[64];
  const auto r = std::to_chars(b, b + sizeof b, *v, std::chars_format::fixed, 4);
  out.append(b, r.ptr);
}
void put(std::string& out, const std::string& s) {
  out += s;
}
// The fields, comma-separated.
template <class First, class... Rest>
void put_row(std::string& out, const First& first, const Rest&... rest) {
  put(out, first);
  ((out += ',', put(out, rest)), ...);
}

}  // namespace

// A row a flow (a few hundred thousand at a thousand hosts): digits by
// to_chars straight into the text, no format string parsed per field.
std::string fct_txt(const std::vector<FlowRecord>& flows) {
  std::vector<uint32_t> done;
  for (uint32_t i = 0; i < flows.size(); ++i)
    if (flows[i].finish_ns) done.push_back(i);
  std::stable_sort(done.begin(), done.end(), [&](uint32_t a, uint32_t b) {
    return *flows[a].finish_ns < *flows[b].finish_ns;
  });
  std::string out;
  out.reserve(done.size() * 64);
  char line[160];
  for (const uint32_t i : done) {
    const FlowRecord& r = flows[i];
    const int n = std::snprintf(
        line, sizeof line, "%u %u %u %u %llu %llu %llu %llu\n", r.src_host, r.dst_host,
        unsigned{r.sport}, 4791u, static_cast<unsigned long long>(r.size_bytes),
        static_cast<unsigned long long>(r.start_ns), static_cast<unsigned long long>(*r.fct_ns()),
        static_cast<unsigned long long>(r.ideal_fct_ns));
    out.append(line, static_cast<size_t>(n));
  }
  return out;
}

std::string flows_csv(const std::vector<FlowRecord>& flows) {
  const bool planes = !flows.empty() && flows.front().plane.has_value();
  std::string out =
      "flow_id,src,dst,size_bytes,start_ns,finish_ns,fct_ns,ideal_fct_ns,slowdown,packets,"
      "retransmitted_packets,cnps_received";
  out += planes ? ",plane\n" : "\n";
  out.reserve(out.size() + flows.size() * 96);
  for (const FlowRecord& f : flows) {
    put_row(out, f.id, f.src, f.dst, f.size_bytes, f.start_ns, f.finish_ns, f.fct_ns(),
            f.ideal_fct_ns, f.slowdown(), f.packets, f.retransmitted_packets, f.cnps_received);
    if (planes) {
      out += ',';
      put(out, uint64_t{f.plane.value_or(0)});
    }
    out += '\n';
  }
  return out;
}

nlohmann::ordered_json slowdown_summary(const std::vector<FlowRecord>& flows) {
  std::vector<const FlowRecord*> small, medium, large, all;
  for (const FlowRecord& f : flows) {
    all.push_back(&f);
    (f.size_bytes < kSmallBelow ? small : f.size_bytes < kLargeFrom ? medium : large).push_back(&f);
  }
  nlohmann::ordered_json by_size;
  by_size["small"] = to_json(slowdown_stats(small));
  by_size["small"]["sizes"] = "< 100KB";
  by_size["medium"] = to_json(slowdown_stats(medium));
  by_size["medium"]["sizes"] = "100KB .. 1MB";
  by_size["large"] = to_json(slowdown_stats(large));
  by_size["large"]["sizes"] = ">= 1MB";
  by_size["all"] = to_json(slowdown_stats(all));

  // HPCC-style: sorted by size (ties by id), 20 groups of 5 % of the flows.
  std::vector<const FlowRecord*> sorted = all;
  std::stable_sort(sorted.begin(), sorted.end(), [](const FlowRecord* a, const FlowRecord* b) {
    return a->size_bytes < b->size_bytes;
  });
  nlohmann::ordered_json pct = nlohmann::ordered_json::array();
  const size_t n = sorted.size();
  for (int g = 0; g < kPercentileGroups && n > 0; ++g) {
    const size_t lo = n * g / kPercentileGroups, hi = n * (g + 1) / kPercentileGroups;
    if (lo == hi) continue;
    std::vector<const FlowRecord*> part(sorted.begin() + lo, sorted.begin() + hi);
    nlohmann::ordered_json j;
    j["percentile_from"] = g * 100 / kPercentileGroups;
    j["percentile_to"] = (g + 1) * 100 / kPercentileGroups;
    j["from_bytes"] = part.front()->size_bytes;
    j["to_bytes"] = part.back()->size_bytes;
    j.update(to_json(slowdown_stats(part)));
    pct.push_back(j);
  }
  nlohmann::ordered_json out;
  out["by_size"] = by_size;
  out["by_size_percentile"] = pct;
  return out;
}

}  // namespace rocelb
