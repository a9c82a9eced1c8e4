// The eBPF objects the bpf tests load (lb/bpf/ examples and tests/bpf/ bad
// policies, built into ROCELB_BPF_DIR) and the loader's refusal as text.
#pragma once

#include <cstdint>
#include <string>

#include "dataplane/bpf/bpf_policy_loader.h"

#ifndef ROCELB_BPF_DIR
#error "ROCELB_BPF_DIR: the build folder with lb/bpf/*.o and tests/bpf/*.o"
#endif

namespace rocelb::test {

inline std::string example(const std::string& name) {
  return std::string(ROCELB_BPF_DIR) + "/lb/bpf/" + name + ".o";
}
inline std::string bad(const std::string& name) {
  return std::string(ROCELB_BPF_DIR) + "/tests/bpf/" + name + ".o";
}

// The loader's error for `file`, or "loaded".
inline std::string load_error(const std::string& file, const std::string& section = "",
                              uint64_t steps = kDefaultBpfValidationSteps) {
  try {
    load_bpf_policy(file, section, true, steps);
  } catch (const BpfPolicyError& e) {
    return e.what();
  }
  return "loaded";
}

inline bool contains(const std::string& s, const std::string& part) {
  return s.find(part) != std::string::npos;
}

}  // namespace rocelb::test
