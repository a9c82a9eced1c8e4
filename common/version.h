// What build this is, for every binary's --version: "rocelb 0.1.0 (git
// describe of the tree it was built from, with -dirty when it had
// uncommitted changes; "unknown" outside a git checkout)". The text is
// written at build time by common/version.cmake into the build folder; a
// build after a commit writes it again. No knobs, no counters.
#pragma once

namespace rocelb {

const char* version_text();

}  // namespace rocelb
