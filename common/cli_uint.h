// Strict unsigned integer options for the programs' command lines. CLI11
// alone turns 18446744073709551616, 1e23 or -1 given for a uint64_t option
// into 2^64-1 without a word; uint_range(min, max) is a CLI11 validator that
// accepts only a plain decimal integer (or 0x hex) in min..max, hands it on
// in decimal (CLI11 would read 010 as octal), and otherwise
// fails with the value and the range. CLI11 reports a failed validator as a
// CLI::ValidationError: "--seed: -1: must be an integer 0..2^64-1" (see
// print_validation_error()).
//
// Include only from a program's main.cc (CLI11 costs compile time). Knobs:
// the range. Counters: none.
#pragma once

#include <CLI/CLI.hpp>
#include <cstdint>
#include <iostream>
#include <string>

namespace rocelb {

inline std::string uint_bound_text(uint64_t v) {
  if (v == UINT64_MAX) return "2^64-1";
  if (v == UINT32_MAX) return "2^32-1";
  return std::to_string(v);
}

// Why `text` is not an unsigned integer in min..max, or "" when it is (and
// then `v` holds it). Leading zeros are decimal, not octal.
inline std::string uint_text_error(const std::string& text, uint64_t min, uint64_t max,
                                   uint64_t& v) {
  const std::string range =
      "must be an integer " + uint_bound_text(min) + ".." + uint_bound_text(max);
  const bool hex = text.size() > 2 && text[0] == '0' && (text[1] == 'x' || text[1] == 'X');
  const std::string digits = hex ? text.substr(2) : text;
  const unsigned base = hex ? 16 : 10;
  if (digits.empty()) return text + ": " + range;
  v = 0;
  for (char c : digits) {
    unsigned d = 0;
    if (c >= '0' && c <= '9')
      d = static_cast<unsigned>(c - '0');
    else if (hex && c >= 'a' && c <= 'f')
      d = static_cast<unsigned>(c - 'a' + 10);
    else if (hex && c >= 'A' && c <= 'F')
      d = static_cast<unsigned>(c - 'A' + 10);
    else
      return text + ": " + range;
    if (v > (UINT64_MAX - d) / base) return text + ": " + range;  // does not fit 64 bits
    v = v * base + d;
  }
  if (v < min || v > max) return text + ": " + range;
  return {};
}

// A transform (option->transform(uint_range(...))): the value, once
// accepted, is handed to CLI11 in plain decimal, which it converts exactly.
inline CLI::Validator uint_range(uint64_t min, uint64_t max) {
  return CLI::Validator(
      [min, max](std::string& s) {
        uint64_t v = 0;
        std::string why = uint_text_error(s, min, max, v);
        if (why.empty()) s = std::to_string(v);
        return why;
      },
      uint_bound_text(min) + ".." + uint_bound_text(max), "uint_range");
}

// One line on stderr: "PROGRAM: --seed: -1: must be an integer 0..2^64-1".
inline void print_validation_error(const char* program, const CLI::ValidationError& e) {
  std::cerr << program << ": " << e.what() << "\n";
}

}  // namespace rocelb
