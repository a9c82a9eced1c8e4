// The reference page of every key of every YAML file rocelb reads
// (docs/reference/config-keys.md), rendered from the files' key tables
// (control/key_schema.h): the switch config's (control/switch_config_keys.cc)
// and each other file's that config_keys_page.cc lists. The readers take
// each key's range, rule and default from the same rows, so the page and
// the readers cannot disagree. Deterministic: no dates, paths or versions.
// No knobs, no counters.
#pragma once

#include <span>
#include <string>
#include <string_view>

#include "control/key_schema.h"

namespace rocelb {

// One file on the page: its heading, a paragraph on where it comes from,
// and its schema.
struct ConfigKeysFile {
  std::string_view title;
  std::string_view intro;
  const KeySchema& (*schema)();
};

// The files the page lists, in page order.
std::span<const ConfigKeysFile> config_keys_files();

// The whole Markdown page.
std::string config_keys_page();

}  // namespace rocelb
