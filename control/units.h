// Unit parsing for config values: link speeds ("100G", "25Gb/s", bits/s),
// byte sizes ("4MB", "512KiB", "1.5MB", bytes), durations ("256us",
// "200ms", "1s", "500ns") and cable lengths ("100m", "2km", metres). Each
// returns false on bad text and sets *why to the rule that failed; range
// checks (e.g. 1 Mb/s .. 1.6 Tb/s) are the caller's.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace rocelb {

// An integer in bits/s, or a decimal number with a prefix K/k (1e3), M (1e6),
// G (1e9) or T (1e12) and an optional "bps", "b/s" or "bit/s" suffix
// ("100G", "2.5G", "100Gbps", "25Gb/s", "800M", "1000bps"). The result must be
// a whole number of bits/s.
bool parse_speed_bps(std::string_view text, uint64_t& out, std::string* why = nullptr);

// An integer in bytes, or a decimal number with a unit: B, KB/kB (1000), MB,
// GB, TB, KiB (1024), MiB, GiB, TiB ("4MB", "1.5MB", "512KiB", "64B"). The
// result must be a whole number of bytes.
bool parse_bytes(std::string_view text, uint64_t& out, std::string* why = nullptr);

// A decimal number with a unit: ns, us (or µs), ms, s ("500ns", "256us",
// "1.5ms", "1s"). A unit is required except for "0". The result must be a
// whole number of nanoseconds.
bool parse_duration_ns(std::string_view text, uint64_t& out, std::string* why = nullptr);

// An integer in metres, or a decimal number with unit m or km ("100m",
// "2km", "1.5km", "300"). The result must be a whole number of metres.
bool parse_length_m(std::string_view text, uint64_t& out, std::string* why = nullptr);

// Human forms used in messages and dumps: "100G" style for speeds (exact, e.g.
// "2.5G", "1000000001"), plain bytes with unit for sizes ("4MB", "1536B").
std::string format_speed_bps(uint64_t bps);
std::string format_bytes(uint64_t bytes);

}  // namespace rocelb
