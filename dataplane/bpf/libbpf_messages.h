// libbpf's messages, kept instead of printed: the switch reports a refusal
// (a program the kernel or the loader turned down) as one line ending in
// the last thing libbpf said. Used by the XDP steering loader and the
// mode-bpf policy loader, on the control thread. No knobs, no counters.
#pragma once

#include <string>

namespace rocelb {

// Routes libbpf's warnings and info here from now on, and forgets the last one.
void keep_libbpf_messages();
// The last warning libbpf printed since keep_libbpf_messages() ("" if none).
const std::string& last_libbpf_message();

}  // namespace rocelb
