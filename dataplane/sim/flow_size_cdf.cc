#include "dataplane/sim/flow_size_cdf.h"

#include <algorithm>
#include <charconv>
#include <cmath>

#include "control/bounded_file.h"

namespace rocelb {
namespace {

// The largest RDMA message (IB: 2^31 bytes), what the NIC model and the
// generator take as one flow.
constexpr double kMaxBytes = 2147483648.0;

bool is_space(char c) {
  return c == ' ' || c == '\t' || c == '\r';
}

// The whitespace-separated fields of one line.
std::vector<std::string_view> fields_of(std::string_view line) {
  std::vector<std::string_view> out;
  size_t i = 0;
  while (i < line.size()) {
    while (i < line.size() && is_space(line[i])) ++i;
    const size_t start = i;
    while (i < line.size() && !is_space(line[i])) ++i;
    if (i > start) out.push_back(line.substr(start, i - start));
  }
  return out;
}

bool to_double(std::string_view t, double& out) {
  const auto [end, ec] = std::from_chars(t.data(), t.data() + t.size(), out);
  return ec == std::errc() && end == t.data() + t.size() && std::isfinite(out);
}

struct Parsed {
  FlowSizeCdf::Point point;
  std::string_view x_text, y_text;
  size_t line = 0;
};

}  // namespace

FlowSizeCdf FlowSizeCdf::parse(std::string_view text, const std::string& source) {
  auto fail = [&](size_t line, const std::string& why) -> FlowSizeCdfError {
    return FlowSizeCdfError(source + ":" + std::to_string(line) + ": " + why);
  };
  std::vector<Parsed> parsed;
  size_t line_no = 0;
  for (size_t pos = 0; pos < text.size();) {
    size_t end = text.find('\n', pos);
    if (end == std::string_view::npos) end = text.size();
    const std::string_view line = text.substr(pos, end - pos);
    pos = end + 1;
    ++line_no;
    const auto f = fields_of(line);
    if (f.empty()) continue;
    if (f.size() != 2)
      throw fail(line_no, "expected two numbers, \"<size_bytes> <cumulative>\", found " +
                              std::to_string(f.size()) + " fields");
    Parsed p;
    p.line = line_no;
    p.x_text = f[0];
    p.y_text = f[1];
    if (!to_double(f[0], p.point.bytes))
      throw fail(line_no, "size \"" + std::string(f[0]) + "\" is not a number");
    if (!to_double(f[1], p.point.cumulative))
      throw fail(line_no, "cumulative value \"" + std::string(f[1]) + "\" is not a number");
    if (p.point.bytes < 0 || p.point.bytes > kMaxBytes)
      throw fail(line_no,
                 "size " + std::string(f[0]) +
                     " is out of range: sizes are 0 .. 2147483648 bytes (2 GiB, the largest RDMA "
                     "message)");
    if (parsed.empty() && p.point.cumulative != 0)
      throw fail(line_no, "the first point's cumulative value is " + std::string(f[1]) +
                              ": it must be 0 (the distribution starts at its first size; "
                              "a point mass there is not supported)");
    if (!parsed.empty()) {
      const Parsed& prev = parsed.back();
      if (p.point.bytes <= prev.point.bytes)
        throw fail(line_no, "size " + std::string(f[0]) + " does not increase (line " +
                                std::to_string(prev.line) + " has " + std::string(prev.x_text) +
                                "): sizes must increase strictly");
      if (p.point.cumulative <= prev.point.cumulative)
        throw fail(line_no, "cumulative value " + std::string(f[1]) + " does not increase (line " +
                                std::to_string(prev.line) + " has " + std::string(prev.y_text) +
                                "): cumulative values must increase strictly");
    }
    parsed.push_back(p);
  }
  if (parsed.size() < 2)
    throw FlowSizeCdfError(source + ": " + std::to_string(parsed.size()) +
                           " point(s): a CDF needs at least two lines of "
                           "\"<size_bytes> <cumulative>\"");
  const Parsed& last = parsed.back();
  FlowSizeCdf cdf;
  cdf.source_ = source;
  if (last.point.cumulative == 100)
    cdf.scale_ = Scale::kPercent;
  else if (last.point.cumulative == 1)
    cdf.scale_ = Scale::kFraction;
  else
    throw fail(last.line, "the last point's cumulative value is " + std::string(last.y_text) +
                              ": it must be 100 (percent scale) or 1 (fraction scale)");
  for (const Parsed& p : parsed) cdf.points_.push_back(p.point);
  double sum = 0;
  for (size_t i = 1; i < cdf.points_.size(); ++i) {
    const Point& a = cdf.points_[i - 1];
    const Point& b = cdf.points_[i];
    sum += (a.bytes + b.bytes) / 2 * (b.cumulative - a.cumulative);
  }
  cdf.mean_ = sum / cdf.top();
  return cdf;
}

FlowSizeCdf FlowSizeCdf::load_file(const std::string& path) {
  std::string text;
  try {
    text = read_bounded_file(path, kMaxCdfFileBytes, "CDF file");
  } catch (const BoundedFileError& e) {
    throw FlowSizeCdfError(path + ": cannot read the CDF file: " + e.why());
  }
  return parse(text, path);
}

std::optional<FlowSizeCdf> FlowSizeCdf::named(std::string_view name) {
  for (const NamedCdf& n : named_cdfs())
    if (n.name == name)
      return parse(n.text, std::string(n.name) + " (embedded " + std::string(n.file) + ")");
  return std::nullopt;
}

double FlowSizeCdf::at(double q) const {
  // The first point whose cumulative value is >= q closes the segment (q is
  // below top(), so there is one; past it, the last segment).
  auto it = std::lower_bound(points_.begin() + 1, points_.end(), q,
                             [](const Point& pt, double v) { return pt.cumulative < v; });
  if (it == points_.end()) --it;
  const Point& a = *(it - 1);
  const Point& b = *it;
  return a.bytes + (b.bytes - a.bytes) / (b.cumulative - a.cumulative) * (q - a.cumulative);
}

double FlowSizeCdf::size_at_percent(double p) const {
  return at(scale_ == Scale::kPercent ? p : p / 100);
}

uint64_t FlowSizeCdf::sample(double u) const {
  const double whole = std::floor(at(u * top()));
  return whole < 1 ? 1 : uint64_t(whole);
}

}  // namespace rocelb
