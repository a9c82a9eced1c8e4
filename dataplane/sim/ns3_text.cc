#include "dataplane/sim/ns3_text.h"

#include <algorithm>
#include <cctype>

namespace rocelb::ns3_text {
namespace {

bool is_space(char c) {
  return c == ' ' || c == '\t' || c == '\r' || c == '\n' || c == '\v' || c == '\f';
}

bool ends_with(std::string_view s, std::string_view tail) {
  return s.size() >= tail.size() && s.substr(s.size() - tail.size()) == tail;
}

}  // namespace

std::vector<Token> tokens(std::string_view text) {
  std::vector<Token> out;
  uint32_t line = 1;
  size_t i = 0;
  while (i < text.size()) {
    if (text[i] == '\n') ++line;
    if (is_space(text[i])) {
      ++i;
      continue;
    }
    const size_t start = i;
    while (i < text.size() && !is_space(text[i])) ++i;
    out.push_back({text.substr(start, i - start), line});
  }
  return out;
}

std::vector<std::string_view> first_line(std::string_view text) {
  size_t pos = 0;
  while (pos < text.size()) {
    size_t end = text.find('\n', pos);
    if (end == std::string_view::npos) end = text.size();
    std::vector<std::string_view> out;
    for (const Token& t : tokens(text.substr(pos, end - pos))) out.push_back(t.text);
    if (!out.empty()) return out;
    pos = end + 1;
  }
  return {};
}

bool parse_uint(std::string_view s, uint64_t& out) {
  if (s.empty() || s.size() > 19) return false;
  uint64_t v = 0;
  for (char c : s) {
    if (c < '0' || c > '9') return false;
    v = v * 10 + uint64_t(c - '0');
  }
  out = v;
  return true;
}

bool parse_scaled(std::string_view s, int scale, uint64_t& out) {
  // Mantissa digits and the position of the decimal point, then the exponent.
  std::string digits;
  int point = -1;
  size_t i = 0;
  for (; i < s.size() && (std::isdigit(static_cast<unsigned char>(s[i])) || s[i] == '.'); ++i) {
    if (s[i] == '.') {
      if (point >= 0) return false;
      point = int(digits.size());
    } else {
      digits += s[i];
    }
  }
  if (digits.empty()) return false;
  if (point < 0) point = int(digits.size());
  if (i < s.size()) {
    if (s[i] != 'e' && s[i] != 'E') return false;
    ++i;
    bool negative = false;
    if (i < s.size() && (s[i] == '+' || s[i] == '-')) negative = s[i++] == '-';
    uint64_t e = 0;
    if (!parse_uint(s.substr(i), e) || e > 40) return false;
    scale += negative ? -int(e) : int(e);
  }
  // value = digits × 10^(scale - (digits.size() - point))
  const int shift = scale - (int(digits.size()) - point);
  unsigned __int128 v = 0;
  using u128 = unsigned __int128;
  const u128 limit = u128{1} << 63;
  size_t keep = digits.size();
  if (shift < 0) keep = size_t(std::max<int>(0, int(digits.size()) + shift));
  for (size_t k = 0; k < keep; ++k) {
    v = v * 10 + unsigned(digits[k] - '0');
    if (v > limit) return false;
  }
  for (int k = 0; k < shift; ++k) {
    v *= 10;
    if (v > limit) return false;
  }
  if (shift < 0 && keep < digits.size() && digits[keep] >= '5') ++v;  // round half up
  if (v > limit) return false;
  out = uint64_t(v);
  return true;
}

bool parse_rate_bps(std::string_view s, uint64_t& out) {
  static constexpr struct {
    std::string_view unit;
    int scale;
  } kUnits[] = {{"Tbps", 12}, {"Tb/s", 12}, {"Gbps", 9}, {"Gb/s", 9}, {"Mbps", 6}, {"Mb/s", 6},
                {"kbps", 3},  {"kb/s", 3},  {"Kbps", 3}, {"Kb/s", 3}, {"bps", 0},  {"b/s", 0}};
  for (const auto& u : kUnits)
    if (ends_with(s, u.unit))
      return parse_scaled(s.substr(0, s.size() - u.unit.size()), u.scale, out);
  return parse_scaled(s, 0, out);
}

bool parse_time_ns(std::string_view s, uint64_t& out) {
  static constexpr struct {
    std::string_view unit;
    int scale;  // nanoseconds × 10^3
  } kUnits[] = {{"ms", 9}, {"us", 6}, {"ns", 3}, {"ps", 0}, {"s", 12}};
  int scale = 12;
  for (const auto& u : kUnits)
    if (ends_with(s, u.unit)) {
      s = s.substr(0, s.size() - u.unit.size());
      scale = u.scale;
      break;
    }
  uint64_t ps = 0;
  if (!parse_scaled(s, scale, ps) || ps % 1000) return false;
  out = ps / 1000;
  return true;
}

}  // namespace rocelb::ns3_text
