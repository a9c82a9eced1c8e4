// Speed, byte-size, duration and length parsing (control/units.h).
#include "control/units.h"

#include <gtest/gtest.h>

namespace rocelb {
namespace {

uint64_t speed(std::string_view s) {
  uint64_t v = 0;
  std::string why;
  EXPECT_TRUE(parse_speed_bps(s, v, &why)) << s << ": " << why;
  return v;
}

uint64_t bytes(std::string_view s) {
  uint64_t v = 0;
  std::string why;
  EXPECT_TRUE(parse_bytes(s, v, &why)) << s << ": " << why;
  return v;
}

uint64_t duration(std::string_view s) {
  uint64_t v = 0;
  std::string why;
  EXPECT_TRUE(parse_duration_ns(s, v, &why)) << s << ": " << why;
  return v;
}

template <typename Fn>
std::string error(Fn fn, std::string_view s) {
  uint64_t v = 0;
  std::string why;
  if (fn(s, v, &why)) return "parsed " + std::to_string(v);
  return why;
}

const std::string kNotSpeed =
    "not a speed (expected e.g. 100G, 25Gbps, 800M or an integer in bits/s)";
const std::string kNotBytes =
    "not a byte size (expected e.g. 4MB, 1.5MB, 512KiB or an integer in bytes)";
const std::string kNotDuration =
    "not a duration (expected a number with unit ns, us, ms or s, e.g. 256us)";

TEST(ParseSpeed, Forms) {
  EXPECT_EQ(speed("100G"), 100'000'000'000u);
  EXPECT_EQ(speed("25G"), 25'000'000'000u);
  EXPECT_EQ(speed("400G"), 400'000'000'000u);
  EXPECT_EQ(speed("800M"), 800'000'000u);
  EXPECT_EQ(speed("100Gbps"), 100'000'000'000u);
  EXPECT_EQ(speed("25Gb/s"), 25'000'000'000u);
  EXPECT_EQ(speed("10Gbit/s"), 10'000'000'000u);
  EXPECT_EQ(speed("2.5G"), 2'500'000'000u);
  EXPECT_EQ(speed("1.6T"), 1'600'000'000'000u);
  EXPECT_EQ(speed("100k"), 100'000u);
  EXPECT_EQ(speed("100K"), 100'000u);
  EXPECT_EQ(speed("1000000"), 1'000'000u);
  EXPECT_EQ(speed("1000bps"), 1000u);
  EXPECT_EQ(speed("10 G"), 10'000'000'000u);
}

TEST(ParseSpeed, Errors) {
  EXPECT_EQ(error(parse_speed_bps, "100X"), kNotSpeed);
  EXPECT_EQ(error(parse_speed_bps, "G"), kNotSpeed);
  EXPECT_EQ(error(parse_speed_bps, ""), kNotSpeed);
  EXPECT_EQ(error(parse_speed_bps, "-1G"), kNotSpeed);
  EXPECT_EQ(error(parse_speed_bps, "100GB"), kNotSpeed);
  EXPECT_EQ(error(parse_speed_bps, "100m"), kNotSpeed);
  EXPECT_EQ(error(parse_speed_bps, "1.G"), kNotSpeed);
  EXPECT_EQ(error(parse_speed_bps, ".5G"), kNotSpeed);
  EXPECT_EQ(error(parse_speed_bps, "1.5"), "not a whole number of bits/s");
  EXPECT_EQ(error(parse_speed_bps, "1.0000000001G"), "not a whole number of bits/s");
  EXPECT_EQ(error(parse_speed_bps, "99999999999T"), "too large");
}

TEST(ParseBytes, Forms) {
  EXPECT_EQ(bytes("4MB"), 4'000'000u);
  EXPECT_EQ(bytes("1.5MB"), 1'500'000u);
  EXPECT_EQ(bytes("64B"), 64u);
  EXPECT_EQ(bytes("100"), 100u);
  EXPECT_EQ(bytes("1KB"), 1000u);
  EXPECT_EQ(bytes("1kB"), 1000u);
  EXPECT_EQ(bytes("2GB"), 2'000'000'000u);
  EXPECT_EQ(bytes("512KiB"), 524'288u);
  EXPECT_EQ(bytes("4MiB"), 4'194'304u);
  EXPECT_EQ(bytes("1GiB"), 1'073'741'824u);
  EXPECT_EQ(bytes("1.5KiB"), 1536u);
  EXPECT_EQ(bytes("8 MB"), 8'000'000u);
}

TEST(ParseBytes, Errors) {
  EXPECT_EQ(error(parse_bytes, "4Mb"), kNotBytes);
  EXPECT_EQ(error(parse_bytes, "4M"), kNotBytes);
  EXPECT_EQ(error(parse_bytes, "MB"), kNotBytes);
  EXPECT_EQ(error(parse_bytes, "-4MB"), kNotBytes);
  EXPECT_EQ(error(parse_bytes, "4 M B"), kNotBytes);
  EXPECT_EQ(error(parse_bytes, "1.5B"), "not a whole number of bytes");
  EXPECT_EQ(error(parse_bytes, "1.0001KB"), "not a whole number of bytes");
  EXPECT_EQ(error(parse_bytes, "99999999999TiB"), "too large");
}

TEST(ParseDuration, Forms) {
  EXPECT_EQ(duration("500ns"), 500u);
  EXPECT_EQ(duration("256us"), 256'000u);
  EXPECT_EQ(duration("256\xc2\xb5s"), 256'000u);
  EXPECT_EQ(duration("200ms"), 200'000'000u);
  EXPECT_EQ(duration("1s"), 1'000'000'000u);
  EXPECT_EQ(duration("1.5ms"), 1'500'000u);
  EXPECT_EQ(duration("0.25s"), 250'000'000u);
  EXPECT_EQ(duration("0"), 0u);
}

TEST(ParseDuration, Errors) {
  EXPECT_EQ(error(parse_duration_ns, "10"), kNotDuration);
  EXPECT_EQ(error(parse_duration_ns, "10m"), kNotDuration);
  EXPECT_EQ(error(parse_duration_ns, "ms"), kNotDuration);
  EXPECT_EQ(error(parse_duration_ns, ""), kNotDuration);
  EXPECT_EQ(error(parse_duration_ns, "1.5ns"), "not a whole number of nanoseconds");
  EXPECT_EQ(error(parse_duration_ns, "99999999999999s"), "too large");
}

TEST(ParseLength, Forms) {
  auto metres = [](std::string_view s) {
    uint64_t v = 0;
    std::string why;
    EXPECT_TRUE(parse_length_m(s, v, &why)) << s << ": " << why;
    return v;
  };
  EXPECT_EQ(metres("100m"), 100u);
  EXPECT_EQ(metres("2km"), 2000u);
  EXPECT_EQ(metres("1.5km"), 1500u);
  EXPECT_EQ(metres("0.001km"), 1u);
  EXPECT_EQ(metres("300"), 300u);
  EXPECT_EQ(metres("5 m"), 5u);
  EXPECT_EQ(metres("0"), 0u);
}

TEST(ParseLength, Errors) {
  const std::string not_length = "not a length (expected e.g. 100m, 2km or an integer in metres)";
  EXPECT_EQ(error(parse_length_m, "100ft"), not_length);
  EXPECT_EQ(error(parse_length_m, "100M"), not_length);
  EXPECT_EQ(error(parse_length_m, "10cm"), not_length);
  EXPECT_EQ(error(parse_length_m, "km"), not_length);
  EXPECT_EQ(error(parse_length_m, "-5m"), not_length);
  EXPECT_EQ(error(parse_length_m, ""), not_length);
  EXPECT_EQ(error(parse_length_m, "1.5m"), "not a whole number of metres");
  EXPECT_EQ(error(parse_length_m, "0.0001km"), "not a whole number of metres");
  EXPECT_EQ(error(parse_length_m, "99999999999999999999km"), "too large");
}

TEST(FormatUnits, SpeedAndBytes) {
  EXPECT_EQ(format_speed_bps(100'000'000'000u), "100G");
  EXPECT_EQ(format_speed_bps(2'500'000'000u), "2.5G");
  EXPECT_EQ(format_speed_bps(1'600'000'000'000u), "1.6T");
  EXPECT_EQ(format_speed_bps(800'000'000u), "800M");
  EXPECT_EQ(format_speed_bps(1'000'000'001u), "1000000001");
  EXPECT_EQ(format_bytes(4'000'000u), "4MB");
  EXPECT_EQ(format_bytes(4'194'304u), "4MiB");
  EXPECT_EQ(format_bytes(1536u), "1536B");
  EXPECT_EQ(format_bytes(64u), "64B");
  // Round trip.
  uint64_t v = 0;
  ASSERT_TRUE(parse_speed_bps(format_speed_bps(2'500'000'000u), v));
  EXPECT_EQ(v, 2'500'000'000u);
}

}  // namespace
}  // namespace rocelb
