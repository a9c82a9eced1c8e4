// That a file's key table (control/key_schema.h) and its reader agree: for
// each row that holds a number, hi+1 (and lo-1 where lo > 0) in the row's
// unit; for each kChoice row, a word not among its choices; for each kBool
// row, 1. Each value is set at one concrete instance of the row's path
// ("flows[]" → "flows[0]") in a minimal valid file, which must then be
// refused with an error naming that path. Used by the simulator's files
// (tests/fabric) and the generator's scenario (tests/gen).
#pragma once

#include <gtest/gtest.h>

#include <functional>
#include <string>
#include <vector>

#include <yaml-cpp/yaml.h>

#include "control/key_schema.h"
#include "control/yaml_override.h"

namespace rocelb::test {

// A number in the unit a file writes a row's kind in.
inline std::string number_text(const KeySpec& k, unsigned __int128 v) {
  std::string digits;
  do {
    digits.insert(digits.begin(), char('0' + int(v % 10)));
    v /= 10;
  } while (v != 0);
  switch (k.kind) {
    case KeyKind::kDuration:
      return digits + "ns";
    case KeyKind::kLength:
      return digits + "m";
    case KeyKind::kFraction: {
      while (digits.size() < 4) digits.insert(digits.begin(), '0');
      return digits.substr(0, digits.size() - 3) + "." + digits.substr(digits.size() - 3);
    }
    default:  // integers, bytes, bits/s
      return digits;
  }
}

// The row's pattern at one instance: "[]" → "[0]".
inline std::string concrete_path(std::string_view pattern) {
  std::string out;
  for (size_t i = 0; i < pattern.size(); ++i) {
    if (pattern.substr(i, 2) == "[]") {
      out += "[0]";
      ++i;
    } else {
      out += pattern[i];
    }
  }
  return out;
}

struct Probe {
  std::string path;   // concrete
  std::string value;  // as a file writes it
};

// The values each row must refuse. Rows under a "*" (a map of names) have
// no instance in a generic file and are left to their own tests.
inline std::vector<Probe> refused_values(const KeySchema& schema) {
  std::vector<Probe> out;
  for (const KeySpec& k : schema.keys) {
    if (k.path.find('*') != std::string_view::npos) continue;
    const std::string path = concrete_path(k.path);
    if (is_number_kind(k.kind)) {
      out.push_back({path, number_text(k, (unsigned __int128)k.hi + 1)});
      if (k.lo > 0) out.push_back({path, number_text(k, (unsigned __int128)(k.lo - 1))});
    } else if (k.kind == KeyKind::kChoice) {
      out.push_back({path, "no_such_word"});
    } else if (k.kind == KeyKind::kBool) {
      out.push_back({path, "1"});
    }
  }
  return out;
}

// `error_of(yaml text)`: the error loading the text gives, "" when it
// loads. The minimal file must load; every probe set in it must be refused
// naming its path. Returns the number of probes.
inline size_t expect_table_and_reader_agree(
    const KeySchema& schema, const std::string& minimal,
    const std::function<std::string(const std::string&)>& error_of) {
  EXPECT_EQ(error_of(minimal), "") << schema.file_kind << ": the minimal file must load";
  const std::vector<Probe> probes = refused_values(schema);
  for (const Probe& p : probes) {
    YAML::Node doc = YAML::Load(minimal);
    apply_override(doc, p.path + "=" + p.value);
    const std::string e = error_of(YAML::Dump(doc) + "\n");
    EXPECT_NE(e, "") << schema.file_kind << ": " << p.path << "=" << p.value << " was accepted";
    EXPECT_NE(e.find(": " + p.path + ": "), std::string::npos)
        << schema.file_kind << ": " << p.path << "=" << p.value << ": " << e;
  }
  return probes.size();
}

}  // namespace rocelb::test
