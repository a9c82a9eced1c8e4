// A flow-size distribution read from a CDF file, sampled the way the
// HPCC/ConWeave traffic generator (traffic_gen/custom_rand.py) samples it,
// so a workload here has the flow sizes the papers' experiments had.
//
// File format (a regular file of at most 1 MiB, kMaxCdfFileBytes in
// control/bounded_file.h): one point per line, "<size_bytes> <cumulative>", separated by
// spaces or tabs; trailing whitespace, blank lines and a missing final
// newline are fine; nothing else (no comments, no third column). The
// cumulative column is either percent (0..100) or a fraction (0..1): the
// last point's y says which (100 or 1; anything else is an error). Rules,
// the generator's own, each refused with one FlowSizeCdfError line
// "FILE:LINE: rule":
//   - at least two points; sizes 0 .. 2^31 bytes (the largest RDMA message,
//     what the NIC model sends as one flow); numbers finite;
//   - the first point's y is 0 (no point mass at the first size: the
//     generator refuses it too, and interpolation then starts at that size);
//   - sizes and cumulative values increase strictly from line to line (some
//     published files repeat a size to make a step, or repeat a y: refused,
//     as the generator refuses them);
//   - the last point's y is 100 (percent) or 1 (fraction; the generator
//     takes percent only).
//
// Sampling: u uniform in [0,1) becomes p = u * 100 (u * 1 on the fraction
// scale); the first point i with y_i >= p closes the segment, and the size
// is x_{i-1} + (x_i - x_{i-1}) (p - y_{i-1}) / (y_i - y_{i-1}), truncated to
// whole bytes (floor, the generator's int()), and 0 becomes 1.
// mean_bytes() is the mean of the piecewise-linear distribution, before
// truncation (the generator's getAvg(), which sets its Poisson rate): the
// sampled mean is lower by under one byte (truncation), plus what the 0 -> 1
// clamp adds back.
//
// Named distributions (the files in configs/workloads/cdf/, embedded in the
// library at build time so they resolve from any directory):
//   AliStorage2019  AliStorage2019.txt
//   WebSearch       WebSearch_distribution.txt
//   FbHdp2015       FbHdp2015.txt
//   GoogleRPC2008   GoogleRPC2008.txt
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace rocelb {

class FlowSizeCdfError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// One embedded distribution: its name, the file it came from, the file's
// bytes. Defined in the .cc CMake generates from flow_size_cdf_data.cc.in.
struct NamedCdf {
  std::string_view name;
  std::string_view file;  // under configs/workloads/cdf/
  std::string_view text;
};
std::span<const NamedCdf> named_cdfs();

class FlowSizeCdf {
 public:
  enum class Scale : uint8_t { kPercent, kFraction };
  struct Point {
    double bytes = 0;
    double cumulative = 0;  // as in the file: 0..100 or 0..1 (scale())
  };

  // `source` names the text in errors ("FILE:LINE: rule").
  static FlowSizeCdf parse(std::string_view text, const std::string& source);
  static FlowSizeCdf load_file(const std::string& path);
  // A name from named_cdfs(), or nullopt.
  static std::optional<FlowSizeCdf> named(std::string_view name);

  const std::string& source() const { return source_; }
  Scale scale() const { return scale_; }
  const std::vector<Point>& points() const { return points_; }
  double mean_bytes() const { return mean_; }
  double max_bytes() const { return points_.back().bytes; }
  // The last point's cumulative value: 100 (percent) or 1 (fraction).
  double top() const { return scale_ == Scale::kPercent ? 100.0 : 1.0; }

  // The interpolated size at percentile p (0..100), not rounded.
  double size_at_percent(double p) const;
  // A sample from u in [0,1): size_at_percent(100u), floored, at least 1.
  uint64_t sample(double u) const;

 private:
  std::string source_;
  Scale scale_ = Scale::kPercent;
  std::vector<Point> points_;
  double mean_ = 0;

  double at(double q) const;  // interpolated size at cumulative value q
};

}  // namespace rocelb
