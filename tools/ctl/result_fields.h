// Typed reads of the fields of a control-socket result (nlohmann::json), for
// rocelbctl's formatters: each throws nlohmann::json::exception when the
// field is missing or of another type, so a result that is not as
// control/control-protocol.md says is reported, never printed half.
#pragma once

#include <cstdint>
#include <string>

#include <nlohmann/json.hpp>

namespace rocelb::fields {

inline uint64_t u64(const nlohmann::json& j, const char* key) {
  return j.at(key).get<uint64_t>();
}
inline double f64(const nlohmann::json& j, const char* key) {
  return static_cast<double>(j.at(key).get<uint64_t>());
}
inline std::string str(const nlohmann::json& j, const char* key) {
  return j.at(key).get<std::string>();
}
inline bool flag(const nlohmann::json& j, const char* key) {
  return j.at(key).get<bool>();
}

// A list of PFC priorities: [3, 4] → "3,4"; [] → "-".
inline std::string priority_list(const nlohmann::json& list) {
  std::string out;
  for (const auto& p : list) {
    if (!out.empty()) out += ',';
    out += std::to_string(p.get<int>());
  }
  return out.empty() ? "-" : out;
}

}  // namespace rocelb::fields
