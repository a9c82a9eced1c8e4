// Reading the whitespace-separated text files of HPCC's and ConWeave's ns-3
// simulators (ns3_topology.h, ns3_flows.h) as ns-3 reads them (`>>`, any
// whitespace between tokens), each token with its line for "FILE:LINE:
// rule" errors, and their units: a DataRate ("100Gbps", "25Gb/s", "1e11"),
// a Time ("1000ns", "1us", "0.000001s"; no unit: seconds), a decimal
// number of seconds. Internal to rocelb_sim. Knobs, counters: none.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace rocelb::ns3_text {

struct Token {
  std::string_view text;
  uint32_t line = 0;
};

// Every token of `text`, with its line (1-based).
std::vector<Token> tokens(std::string_view text);

// The first line with a token, split into its tokens (empty if none).
std::vector<std::string_view> first_line(std::string_view text);

// A decimal unsigned integer (no sign, no 0x): true and `out`, else false.
bool parse_uint(std::string_view s, uint64_t& out);

// "1.5" · 10^scale, rounded to the nearest whole number; false if `s` is
// not a plain non-negative decimal (digits, one '.', optional e/E exponent)
// or the result passes 2^63.
bool parse_scaled(std::string_view s, int scale, uint64_t& out);

// An ns-3 DataRate string in bits/s: a number and bps, b/s, kbps, kb/s,
// Kbps, Kb/s, Mbps, Mb/s, Gbps, Gb/s, Tbps, Tb/s, or none (bits/s).
bool parse_rate_bps(std::string_view s, uint64_t& out);

// An ns-3 Time string in whole nanoseconds: a number and s, ms, us, ns, ps
// or none (seconds); false if not a whole number of nanoseconds.
bool parse_time_ns(std::string_view s, uint64_t& out);

}  // namespace rocelb::ns3_text
