#include "control/units.h"

#include <limits>

namespace rocelb {
namespace {

using u128 = unsigned __int128;

struct UnitDef {
  std::string_view name;
  uint64_t factor;
};

std::string_view trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
  return s;
}

bool is_digit(char c) {
  return c >= '0' && c <= '9';
}

void set_why(std::string* why, std::string text) {
  if (why) *why = std::move(text);
}

// A decimal number "D+[.D+]" at the start of `s`: value = mantissa / 10^frac.
// Consumes it from `s`. Limits the digit count so later products fit 128 bits.
bool take_decimal(std::string_view& s, u128& mantissa, int& frac) {
  mantissa = 0;
  frac = 0;
  size_t i = 0;
  int digits = 0;
  while (i < s.size() && is_digit(s[i])) {
    mantissa = mantissa * 10 + unsigned(s[i] - '0');
    ++i;
    if (++digits > 20) return false;
  }
  if (i == 0) return false;
  if (i < s.size() && s[i] == '.') {
    ++i;
    size_t start = i;
    while (i < s.size() && is_digit(s[i])) {
      mantissa = mantissa * 10 + unsigned(s[i] - '0');
      ++i;
      ++frac;
      if (++digits > 32 || frac > 12) return false;
    }
    if (i == start) return false;
  }
  s.remove_prefix(i);
  return true;
}

enum class Scaled { kOk, kNotWhole, kTooLarge };

Scaled scale(u128 mantissa, int frac, uint64_t factor, uint64_t& out) {
  u128 den = 1;
  for (int i = 0; i < frac; ++i) den *= 10;
  u128 num = mantissa * factor;  // < 1e32 * 1.1e12 fits in 128 bits
  if (num % den != 0) return Scaled::kNotWhole;
  u128 v = num / den;
  if (v > std::numeric_limits<uint64_t>::max()) return Scaled::kTooLarge;
  out = static_cast<uint64_t>(v);
  return Scaled::kOk;
}

// number, optional spaces, unit from `units` ("" = no unit allowed when
// `bare_factor` is non-zero).
bool parse_with_units(std::string_view text, const UnitDef* units, size_t n_units,
                      uint64_t bare_factor, std::string_view what_whole, std::string_view expected,
                      uint64_t& out, std::string* why) {
  std::string_view s = trim(text);
  u128 mantissa;
  int frac;
  if (!take_decimal(s, mantissa, frac)) {
    set_why(why, std::string(expected));
    return false;
  }
  s = trim(s);
  uint64_t factor = 0;
  if (s.empty()) {
    factor = bare_factor;
    if (factor == 0 && mantissa == 0) factor = 1;  // "0" needs no unit
  } else {
    for (size_t i = 0; i < n_units; ++i)
      if (units[i].name == s) factor = units[i].factor;
  }
  if (factor == 0) {
    set_why(why, std::string(expected));
    return false;
  }
  switch (scale(mantissa, frac, factor, out)) {
    case Scaled::kOk:
      return true;
    case Scaled::kNotWhole:
      set_why(why, "not a whole number of " + std::string(what_whole));
      return false;
    case Scaled::kTooLarge:
      set_why(why, "too large");
      return false;
  }
  return false;
}

constexpr uint64_t kK = 1000, kM = kK * 1000, kG = kM * 1000, kT = kG * 1000;
constexpr uint64_t kKi = 1024, kMi = kKi * 1024, kGi = kMi * 1024, kTi = kGi * 1024;

constexpr UnitDef kSpeedUnits[] = {
    {"bps", 1},     {"b/s", 1},   {"bit/s", 1},   {"K", kK},      {"k", kK},      {"Kbps", kK},
    {"kbps", kK},   {"Kb/s", kK}, {"kb/s", kK},   {"Kbit/s", kK}, {"kbit/s", kK}, {"M", kM},
    {"Mbps", kM},   {"Mb/s", kM}, {"Mbit/s", kM}, {"G", kG},      {"Gbps", kG},   {"Gb/s", kG},
    {"Gbit/s", kG}, {"T", kT},    {"Tbps", kT},   {"Tb/s", kT},   {"Tbit/s", kT},
};

constexpr UnitDef kByteUnits[] = {
    {"B", 1},   {"KB", kK},   {"kB", kK},   {"MB", kM},   {"GB", kG},
    {"TB", kT}, {"KiB", kKi}, {"MiB", kMi}, {"GiB", kGi}, {"TiB", kTi},
};

constexpr UnitDef kDurationUnits[] = {
    {"ns", 1}, {"us", 1000}, {"\xc2\xb5s", 1000}, {"ms", 1000000}, {"s", 1000000000},
};

constexpr UnitDef kLengthUnits[] = {{"m", 1}, {"km", 1000}};

}  // namespace

bool parse_speed_bps(std::string_view text, uint64_t& out, std::string* why) {
  return parse_with_units(text, kSpeedUnits, std::size(kSpeedUnits), 1, "bits/s",
                          "not a speed (expected e.g. 100G, 25Gbps, 800M or an integer in bits/s)",
                          out, why);
}

bool parse_bytes(std::string_view text, uint64_t& out, std::string* why) {
  return parse_with_units(
      text, kByteUnits, std::size(kByteUnits), 1, "bytes",
      "not a byte size (expected e.g. 4MB, 1.5MB, 512KiB or an integer in bytes)", out, why);
}

bool parse_duration_ns(std::string_view text, uint64_t& out, std::string* why) {
  return parse_with_units(
      text, kDurationUnits, std::size(kDurationUnits), 0, "nanoseconds",
      "not a duration (expected a number with unit ns, us, ms or s, e.g. 256us)", out, why);
}

bool parse_length_m(std::string_view text, uint64_t& out, std::string* why) {
  return parse_with_units(text, kLengthUnits, std::size(kLengthUnits), 1, "metres",
                          "not a length (expected e.g. 100m, 2km or an integer in metres)", out,
                          why);
}

namespace {

std::string format_scaled(uint64_t v, const UnitDef* units, size_t n, std::string_view bare_unit) {
  // Largest unit that gives at most 3 fractional digits exactly.
  for (size_t i = n; i-- > 0;) {
    uint64_t f = units[i].factor;
    if (f <= 1 || v < f) continue;
    uint64_t whole = v / f, rest = v % f;
    if (rest == 0) return std::to_string(whole) + std::string(units[i].name);
    if (f % 1000 == 0 && whole < 1000 && rest % (f / 1000) == 0) {
      std::string frac = std::to_string(1000 + rest / (f / 1000)).substr(1);
      while (frac.back() == '0') frac.pop_back();
      return std::to_string(whole) + "." + frac + std::string(units[i].name);
    }
  }
  return std::to_string(v) + std::string(bare_unit);
}

}  // namespace

std::string format_speed_bps(uint64_t bps) {
  static constexpr UnitDef kUnits[] = {{"K", kK}, {"M", kM}, {"G", kG}, {"T", kT}};
  return format_scaled(bps, kUnits, std::size(kUnits), "");
}

std::string format_bytes(uint64_t bytes) {
  static constexpr UnitDef kDecimal[] = {{"KB", kK}, {"MB", kM}, {"GB", kG}};
  static constexpr UnitDef kBinary[] = {{"KiB", kKi}, {"MiB", kMi}, {"GiB", kGi}};
  // Prefer an exact decimal unit, then an exact binary one, else bytes.
  for (size_t i = std::size(kDecimal); i-- > 0;)
    if (bytes >= kDecimal[i].factor && bytes % kDecimal[i].factor == 0)
      return std::to_string(bytes / kDecimal[i].factor) + std::string(kDecimal[i].name);
  for (size_t i = std::size(kBinary); i-- > 0;)
    if (bytes >= kBinary[i].factor && bytes % kBinary[i].factor == 0)
      return std::to_string(bytes / kBinary[i].factor) + std::string(kBinary[i].name);
  return std::to_string(bytes) + "B";
}

}  // namespace rocelb
