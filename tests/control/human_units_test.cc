// Human units of rocelbctl's screens, the memory estimate and pcapng
// comments (control/human_units.h).
#include "control/human_units.h"

#include <gtest/gtest.h>

namespace rocelb {
namespace {

TEST(HumanUnits, BytesKeepThreeSignificantDigitsInDecimalUnits) {
  EXPECT_EQ(human_bytes(0), "0 B");
  EXPECT_EQ(human_bytes(999), "999 B");
  EXPECT_EQ(human_bytes(1000), "1.00 KB");
  EXPECT_EQ(human_bytes(1098), "1.10 KB");
  EXPECT_EQ(human_bytes(49772), "49.8 KB");
  EXPECT_EQ(human_bytes(150000), "150 KB");
  EXPECT_EQ(human_bytes(1500000), "1.50 MB");
  EXPECT_EQ(human_bytes(32000000), "32.0 MB");
  EXPECT_EQ(human_bytes(4328512000.0), "4.33 GB");
  // Never "1000 KB": a value that rounds to 1000 moves to the next unit.
  EXPECT_EQ(human_bytes(999600), "1.00 MB");
  EXPECT_EQ(human_bytes(999400), "999 KB");
  // As the memory estimate states sizes, up to what a uint64_t holds.
  EXPECT_EQ(human_bytes(16u << 20), "16.8 MB");
  EXPECT_EQ(human_bytes(999'600'000), "1.00 GB");
  EXPECT_EQ(human_bytes(static_cast<double>(UINT64_MAX)), "18.4 EB");
}

TEST(HumanUnits, Rates) {
  EXPECT_EQ(human_bits_per_s(0), "0 b/s");
  EXPECT_EQ(human_bits_per_s(640), "640 b/s");
  EXPECT_EQ(human_bits_per_s(12.34e9), "12.3 Gb/s");
  EXPECT_EQ(human_bits_per_s(100e9), "100 Gb/s");
  EXPECT_EQ(human_bits_per_s(1.6e12), "1.60 Tb/s");
  EXPECT_EQ(human_packets_per_s(0), "0 pps");
  EXPECT_EQ(human_packets_per_s(999), "999 pps");
  EXPECT_EQ(human_packets_per_s(8.127e6), "8.13 Mpps");
  EXPECT_EQ(human_packets_per_s(1000), "1.00 Kpps");
}

TEST(HumanUnits, DurationsDropTrailingZeros) {
  EXPECT_EQ(human_duration_ns(0), "0 ns");
  EXPECT_EQ(human_duration_ns(850), "850 ns");
  EXPECT_EQ(human_duration_ns(999), "999 ns");
  EXPECT_EQ(human_duration_ns(1000), "1 us");
  EXPECT_EQ(human_duration_ns(12300), "12.3 us");
  EXPECT_EQ(human_duration_ns(16000), "16 us");
  EXPECT_EQ(human_duration_ns(256000), "256 us");
  EXPECT_EQ(human_duration_ns(1.5e6), "1.5 ms");
  EXPECT_EQ(human_duration_ns(200e6), "200 ms");
  EXPECT_EQ(human_duration_ns(2e9), "2 s");
  EXPECT_EQ(human_duration_ns(3600e9), "3600 s");
}

TEST(HumanUnits, Percentages) {
  EXPECT_EQ(human_percent(0.25), "25.00%");
  EXPECT_EQ(human_percent(1.0 / 3.0), "33.33%");
  EXPECT_EQ(human_percent(0.965, 1), "96.5%");
  EXPECT_EQ(human_percent(0), "0.00%");
}

}  // namespace
}  // namespace rocelb
