#include "control/human_units.h"

#include <cmath>
#include <cstdio>
#include <iterator>

namespace rocelb {
namespace {

// Scales v >= 0 by 1000 until it is below 999.5 (so it never prints as
// "1000 KB") and prints three significant digits; the base unit of a
// countable thing (bytes, packets) is printed as an integer.
template <size_t N>
std::string scaled(double v, const char* const (&units)[N], bool integer_base) {
  if (!std::isfinite(v)) return "-";
  const char* sign = v < 0 ? "-" : "";
  v = std::fabs(v);
  size_t u = 0;
  while (u + 1 < N && v >= 999.5) {
    v /= 1000.0;
    ++u;
  }
  char buf[64];
  if (u == 0 && integer_base)
    std::snprintf(buf, sizeof buf, "%s%.0f %s", sign, v, units[u]);
  else if (v < 9.995)
    std::snprintf(buf, sizeof buf, "%s%.2f %s", sign, v, units[u]);
  else if (v < 99.95)
    std::snprintf(buf, sizeof buf, "%s%.1f %s", sign, v, units[u]);
  else
    std::snprintf(buf, sizeof buf, "%s%.0f %s", sign, v, units[u]);
  return buf;
}

}  // namespace

std::string human_bytes(double bytes) {
  static const char* const kUnits[] = {"B", "KB", "MB", "GB", "TB", "PB", "EB"};
  return scaled(bytes, kUnits, true);
}

std::string human_bits_per_s(double bps) {
  static const char* const kUnits[] = {"b/s", "Kb/s", "Mb/s", "Gb/s", "Tb/s"};
  return scaled(bps, kUnits, true);
}

std::string human_packets_per_s(double pps) {
  static const char* const kUnits[] = {"pps", "Kpps", "Mpps", "Gpps"};
  return scaled(pps, kUnits, true);
}

std::string human_duration_ns(double ns) {
  if (!std::isfinite(ns) || ns < 0) return "-";
  static const struct {
    const char* name;
    double factor;
  } kUnits[] = {{"ns", 1.0}, {"us", 1e3}, {"ms", 1e6}, {"s", 1e9}};
  size_t u = 0;
  while (u + 1 < std::size(kUnits) && ns >= kUnits[u + 1].factor * 0.9995) ++u;
  char buf[64];
  // Three significant digits, then drop trailing zeros ("16.0" → "16").
  const double v = ns / kUnits[u].factor;
  std::snprintf(buf, sizeof buf, "%.*f", v < 9.995 ? 2 : v < 99.95 ? 1 : 0, v);
  std::string s = buf;
  if (s.find('.') != std::string::npos) {
    while (s.back() == '0') s.pop_back();
    if (s.back() == '.') s.pop_back();
  }
  return s + " " + kUnits[u].name;
}

std::string human_percent(double fraction, int decimals) {
  if (!std::isfinite(fraction)) return "-";
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.*f%%", decimals, fraction * 100.0);
  return buf;
}

}  // namespace rocelb
