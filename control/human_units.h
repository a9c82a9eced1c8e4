// Human-readable figures for rocelbctl's screens, the memory estimate's
// messages and the comments of recorded pcapng files: byte amounts ("1.50 MB",
// decimal units as in the config files: 1 KB = 1000 B), bit rates
// ("12.3 Gb/s"), packet rates ("1.20 Mpps"), durations ("256 us", "1.5 ms")
// and percentages ("25.00%"). Bytes and rates keep three significant digits
// (so a column of them lines up); durations drop trailing zeros. Link speeds
// use control/units.h's format_speed_bps ("100G", as a config writes them).
#pragma once

#include <cstdint>
#include <string>

namespace rocelb {

// "0 B", "999 B", "1.00 KB", "49.8 KB", "1.50 MB", "32.0 MB", "4.33 GB", up
// to EB.
std::string human_bytes(double bytes);

// "0 b/s", "640 b/s", "1.00 Kb/s", "12.3 Gb/s", "100 Gb/s".
std::string human_bits_per_s(double bps);

// "0 pps", "999 pps", "1.00 Kpps", "8.13 Mpps".
std::string human_packets_per_s(double pps);

// "0 ns", "850 ns", "12.3 us", "256 us", "1.5 ms", "200 ms", "2 s".
std::string human_duration_ns(double ns);

// fraction 0.25 → "25.00%" (decimals digits after the point).
std::string human_percent(double fraction, int decimals = 2);

}  // namespace rocelb
