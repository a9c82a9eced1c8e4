// ECN codepoints (RFC 3168): the two low bits of the IPv4 TOS byte and of
// the IPv6 traffic class. Shared by the wire formats and pfc/'s WRED.
#pragma once

#include <cstdint>

namespace rocelb {

inline constexpr uint8_t kEcnNotEct = 0;
inline constexpr uint8_t kEcnEct1 = 1;
inline constexpr uint8_t kEcnEct0 = 2;
inline constexpr uint8_t kEcnCe = 3;

}  // namespace rocelb
