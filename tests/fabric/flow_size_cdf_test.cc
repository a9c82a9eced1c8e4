// Flow-size CDFs: the four shipped distributions load (and are the files in
// configs/workloads/cdf/), percent and fraction scales, interpolation
// against hand computations, the analytic mean against samples, the
// deterministic random numbers, and one clear error per file rule.
#include <gtest/gtest.h>

#include <charconv>
#include <cmath>
#include <fstream>
#include <sstream>

#include "dataplane/sim/flow_size_cdf.h"
#include "dataplane/sim/workload_random.h"

namespace rocelb {
namespace {

std::string read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

std::string cdf_error(const std::string& text) {
  try {
    FlowSizeCdf::parse(text, "c.txt");
  } catch (const FlowSizeCdfError& e) {
    return e.what();
  }
  return "(loaded)";
}

// Means of the interpolated curves, as published alongside the files
// (/work/shared/data/cdf/README.md) to three digits.
struct Expected {
  const char* name;
  size_t points;
  double max_bytes;
  double mean_bytes;
};
constexpr Expected kShipped[] = {
    {"AliStorage2019", 9, 2'000'000, 40.9e3},
    {"WebSearch", 12, 30'000'000, 1.71e6},
    {"FbHdp2015", 461, 10'000'000, 122e3},
    {"GoogleRPC2008", 843, 15'158'197, 2.89e3},
};

TEST(FlowSizeCdf, EachShippedDistributionLoadsByNameAndIsTheFileInConfigs) {
  ASSERT_EQ(named_cdfs().size(), std::size(kShipped));
  for (const Expected& e : kShipped) {
    SCOPED_TRACE(e.name);
    const auto cdf = FlowSizeCdf::named(e.name);
    ASSERT_TRUE(cdf);
    EXPECT_EQ(cdf->scale(), FlowSizeCdf::Scale::kPercent);
    EXPECT_EQ(cdf->points().size(), e.points);
    EXPECT_EQ(cdf->max_bytes(), e.max_bytes);
    EXPECT_NEAR(cdf->mean_bytes(), e.mean_bytes, e.mean_bytes * 0.005);
    // The embedded text is the file, byte for byte, and loads the same.
    int found = 0;
    for (const NamedCdf& n : named_cdfs()) {
      if (n.name != e.name) continue;
      ++found;
      const std::string path =
          std::string(ROCELB_SOURCE_DIR) + "/configs/workloads/cdf/" + std::string(n.file);
      EXPECT_EQ(n.text, read_file(path));
      EXPECT_EQ(FlowSizeCdf::load_file(path).mean_bytes(), cdf->mean_bytes());
    }
    EXPECT_EQ(found, 1);
  }
  EXPECT_FALSE(FlowSizeCdf::named("websearch"));
  EXPECT_FALSE(FlowSizeCdf::named("WebSearch_distribution"));
}

TEST(FlowSizeCdf, InterpolatesLinearlyTruncatesToWholeBytesAndClampsZeroToOne) {
  // 50 % of flows are uniform on 0..100 B, 50 % on 100..300 B.
  const FlowSizeCdf c = FlowSizeCdf::parse("0 0\n100 50\n300 100\n", "tiny");
  EXPECT_EQ(c.scale(), FlowSizeCdf::Scale::kPercent);
  EXPECT_DOUBLE_EQ(c.size_at_percent(25), 50);
  EXPECT_DOUBLE_EQ(c.size_at_percent(50), 100);
  EXPECT_DOUBLE_EQ(c.size_at_percent(60), 140);  // 100 + 200 * 10/50
  EXPECT_DOUBLE_EQ(c.size_at_percent(100), 300);
  EXPECT_EQ(c.sample(0.25), 50u);
  EXPECT_EQ(c.sample(0.6), 140u);
  EXPECT_EQ(c.sample(0.75), 200u);
  EXPECT_EQ(c.sample(0.0), 1u);       // size 0 becomes 1
  EXPECT_EQ(c.sample(0.0049), 1u);    // 0.98 B: floor 0, then 1
  EXPECT_EQ(c.sample(0.0051), 1u);    // 1.02 B
  EXPECT_EQ(c.sample(0.0101), 2u);    // 2.02 B
  EXPECT_EQ(c.sample(0.6149), 145u);  // 145.96 B: truncated, not rounded
  EXPECT_EQ(c.sample(std::nextafter(1.0, 0.0)), 299u);
  // Mean: 50 % at 50 B on average, 50 % at 200 B.
  EXPECT_DOUBLE_EQ(c.mean_bytes(), 125);
}

TEST(FlowSizeCdf, DetectsPercentOrFractionFromTheLastPoint) {
  const FlowSizeCdf pct = *FlowSizeCdf::named("WebSearch");
  // The same curve on the 0..1 scale (ConWeave's workloads/ files use it).
  std::string text;
  for (const auto& p : pct.points()) {
    char buf[64];
    text += std::to_string(uint64_t(p.bytes)) + " ";
    text += std::string(buf, std::to_chars(buf, buf + sizeof buf, p.cumulative / 100).ptr) + "\n";
  }
  const FlowSizeCdf frac = FlowSizeCdf::parse(text, "frac");
  EXPECT_EQ(frac.scale(), FlowSizeCdf::Scale::kFraction);
  EXPECT_EQ(frac.top(), 1.0);
  EXPECT_EQ(pct.top(), 100.0);
  EXPECT_NEAR(frac.mean_bytes(), pct.mean_bytes(), pct.mean_bytes() * 1e-12);
  for (double u : {0.0, 0.1, 0.15, 0.5, 0.9, 0.99})
    EXPECT_NEAR(frac.size_at_percent(100 * u), pct.size_at_percent(100 * u), 1e-6) << u;
  EXPECT_EQ(cdf_error("0 0\n10 30\n20 57\n"),
            "c.txt:3: the last point's cumulative value is 57: it must be 100 (percent scale) "
            "or 1 (fraction scale)");
}

TEST(FlowSizeCdf, TakesTheWhitespaceQuirksOfPublishedFiles) {
  // Several spaces, tabs, trailing space, CRLF, a blank line, no final newline.
  const FlowSizeCdf c = FlowSizeCdf::parse("0     0\n10\t0.5 \r\n\n  20 1", "q");
  EXPECT_EQ(c.points().size(), 3u);
  EXPECT_EQ(c.scale(), FlowSizeCdf::Scale::kFraction);
  EXPECT_DOUBLE_EQ(c.mean_bytes(), 10);
}

TEST(FlowSizeCdf, RefusesWhatTheGeneratorRefusesWithFileLineAndRule) {
  // A repeated size (a step: ConWeave's workloads/search.txt starts so).
  EXPECT_EQ(cdf_error("9000 0\n9000 0.15\n30000000 1\n"),
            "c.txt:2: size 9000 does not increase (line 1 has 9000): sizes must increase "
            "strictly");
  // A repeated cumulative value (a gap).
  EXPECT_EQ(cdf_error("0 0\n300 0.2\n600 0.2\n900 1\n"),
            "c.txt:3: cumulative value 0.2 does not increase (line 2 has 0.2): cumulative "
            "values must increase strictly");
  EXPECT_EQ(cdf_error("100 5\n200 100\n"),
            "c.txt:1: the first point's cumulative value is 5: it must be 0 (the distribution "
            "starts at its first size; a point mass there is not supported)");
  EXPECT_EQ(cdf_error("0 0\n\n10 50 7\n"),
            "c.txt:3: expected two numbers, \"<size_bytes> <cumulative>\", found 3 fields");
  EXPECT_EQ(cdf_error("# sizes\n0 0\n"), "c.txt:1: size \"#\" is not a number");
  EXPECT_EQ(cdf_error("0 0\n1e3x 100\n"), "c.txt:2: size \"1e3x\" is not a number");
  EXPECT_EQ(cdf_error("0 0\n10 nan\n"), "c.txt:2: cumulative value \"nan\" is not a number");
  EXPECT_EQ(cdf_error("-5 0\n10 100\n"),
            "c.txt:1: size -5 is out of range: sizes are 0 .. 2147483648 bytes (2 GiB, the largest "
            "RDMA message)");
  EXPECT_EQ(cdf_error("0 0\n"),
            "c.txt: 1 point(s): a CDF needs at least two lines of \"<size_bytes> <cumulative>\"");
  EXPECT_EQ(cdf_error(""),
            "c.txt: 0 point(s): a CDF needs at least two lines of \"<size_bytes> <cumulative>\"");
  EXPECT_EQ(FlowSizeCdf::parse("0 0\n5 100\n", "ok").points().size(), 2u);
  try {
    FlowSizeCdf::load_file("/nonexistent/x.txt");
    ADD_FAILURE() << "loaded";
  } catch (const FlowSizeCdfError& e) {
    EXPECT_EQ(std::string(e.what()),
              "/nonexistent/x.txt: cannot read the CDF file: No such file or directory");
  }
}

// 200k independent samples: the mean is within 2 % of the analytic mean
// where the standard error allows it (WebSearch: about 0.5 %). The other
// curves' tails make that error 1-5 % at 200k samples, so they are checked
// with one uniform draw in each of 200k equal slices of [0,1) (stratified):
// that tests the interpolation against the analytic mean, not the tail's luck.
TEST(FlowSizeCdf, SampleMeansMatchTheAnalyticMean) {
  constexpr int kN = 200'000;
  {
    const FlowSizeCdf c = *FlowSizeCdf::named("WebSearch");
    WorkloadRandom rng(1, 0);
    double sum = 0;
    for (int i = 0; i < kN; ++i) sum += double(c.sample(rng.uniform()));
    EXPECT_NEAR(sum / kN, c.mean_bytes(), c.mean_bytes() * 0.02);
  }
  for (const NamedCdf& n : named_cdfs()) {
    SCOPED_TRACE(std::string(n.name));
    const FlowSizeCdf c = *FlowSizeCdf::named(n.name);
    WorkloadRandom rng(2, 0);
    double sum = 0;
    for (int i = 0; i < kN; ++i) sum += double(c.sample((i + rng.uniform()) / kN));
    EXPECT_NEAR(sum / kN, c.mean_bytes(), c.mean_bytes() * 0.02);
    EXPECT_NEAR(sum / kN, c.mean_bytes(), c.mean_bytes() * 0.002);  // in fact much closer
  }
}

TEST(WorkloadRandom, IsDeterministicUniformAndItsLogIsExactEnough) {
  WorkloadRandom a(7, 3), b(7, 3), c(7, 4), d(8, 3);
  for (int i = 0; i < 100; ++i) {
    const uint64_t x = a.next();
    EXPECT_EQ(x, b.next());
    EXPECT_NE(x, c.next());
    EXPECT_NE(x, d.next());
  }
  // uniform() is in [0,1) on a 2^-53 grid; below(n) hits every value about
  // equally.
  WorkloadRandom r(1, 0);
  int counts[6] = {};
  double lo = 1, hi = 0;
  for (int i = 0; i < 60'000; ++i) {
    const double u = r.uniform();
    lo = std::min(lo, u);
    hi = std::max(hi, u);
    EXPECT_EQ(std::ldexp(u, 53), std::floor(std::ldexp(u, 53)));
    ++counts[r.below(6)];
  }
  EXPECT_GE(lo, 0.0);
  EXPECT_LT(hi, 1.0);
  for (int c6 : counts) EXPECT_NEAR(c6, 10'000, 400);  // 4 sigma
  for (double x : {1e-300, 1e-9, 0.1, 0.5, 0.7071, 0.7072, 1.0, 1.5, 2.0, 10.0, 1e300}) {
    EXPECT_NEAR(deterministic_log(x), std::log(x), std::abs(std::log(x)) * 4e-16 + 4e-16) << x;
  }
  EXPECT_EQ(deterministic_log(1.0), 0.0);
  // Exponential gaps: mean and the P(gap > mean) = 1/e tail.
  WorkloadRandom e(3, 0);
  double sum = 0;
  int over = 0;
  for (int i = 0; i < 100'000; ++i) {
    const double g = e.exponential(250.0);
    sum += g;
    over += g > 250.0;
  }
  EXPECT_NEAR(sum / 100'000, 250.0, 250.0 * 0.013);  // 4 sigma
  EXPECT_NEAR(over / 100'000.0, std::exp(-1.0), 0.006);
}

}  // namespace
}  // namespace rocelb
