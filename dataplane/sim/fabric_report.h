// What a fabric run reports about its flows: flows.csv (one line per flow)
// and the FCT slowdown statistics of summary.json. Pure functions of the
// flow records, so the figures can be checked without running a fabric.
//
// Slowdown = fct / ideal_fct (ideal_fct.h), at least 1 is not enforced: a
// figure below 1 means the ideal is wrong and is reported as measured.
// Statistics per group of flows: count, average, p50, p95, p99 (nearest
// rank on the sorted slowdowns). Groups:
//   by_size      small (< 100 KB), medium (100 KB .. 1 MB), large (>= 1 MB)
//                — the split ConWeave's and HPCC's papers discuss — and all;
//   by_size_percentile  the flows sorted by size in 20 groups of 5 % each
//                (HPCC's fct_analysis plots slowdown against these), each
//                with its size range.
// Unfinished flows are counted per group and left out of the statistics.
#pragma once

#include <nlohmann/json.hpp>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace rocelb {

struct FlowRecord {
  uint64_t id = 0;
  std::string src, dst;
  uint64_t size_bytes = 0;
  uint64_t start_ns = 0;
  std::optional<uint64_t> finish_ns;  // unset: unfinished
  uint64_t ideal_fct_ns = 0;
  uint64_t packets = 0;
  uint64_t retransmitted_packets = 0;
  uint64_t cnps_received = 0;
  // For ConWeave's and HPCC's FCT file (fct_txt): the hosts' indices (an
  // ns-3 topology's node ids) and the flow's UDP source port.
  uint32_t src_host = 0, dst_host = 0;
  uint16_t sport = 0;
  std::optional<uint32_t> plane;  // on a fabric of several planes: the flow's
  std::optional<uint64_t> fct_ns() const {
    return finish_ns ? std::optional<uint64_t>(*finish_ns - start_ns) : std::nullopt;
  }
  std::optional<double> slowdown() const;
};

struct SlowdownStats {
  uint64_t count = 0;       // finished flows in the group
  uint64_t unfinished = 0;  // flows in the group that did not finish
  double average = 0, p50 = 0, p95 = 0, p99 = 0;
};

SlowdownStats slowdown_stats(const std::vector<const FlowRecord*>& flows);

// flows.csv: a header line, then one line per flow in id order. When the
// flows have a plane (a fabric of several planes), a last column `plane`.
std::string flows_csv(const std::vector<FlowRecord>& flows);

// out_fct.txt, the FCT file of ConWeave's and HPCC's ns-3 (their
// network-load-balance.cc / third.cc qp_finish, read by their
// fctAnalysis.py): one line per finished flow, in the order they finished
// (then by flow), "SRC DST SPORT DPORT SIZE START_NS FCT_NS IDEAL_NS" with
// the hosts' indices, the UDP ports (4791 for DPORT) and rocelb's own ideal
// FCT where ns-3 writes its standalone FCT.
std::string fct_txt(const std::vector<FlowRecord>& flows);

// {"by_size": {"small": {...}, "medium": ..., "large": ..., "all": ...},
//  "by_size_percentile": [{"from_bytes", "to_bytes", ...stats}, ...]}
nlohmann::ordered_json slowdown_summary(const std::vector<FlowRecord>& flows);

}  // namespace rocelb
