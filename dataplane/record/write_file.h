// One output file of a run written whole (counters, flows.csv, summary.json,
// run.json), and the one-line error when it cannot be: the path and the
// system's reason ("cannot write out/.rocelb-replay.x/flows.csv: No space
// left on device"). Knobs: none. Counters: none.
#pragma once

#include <cstdio>
#include <string>
#include <string_view>

namespace rocelb {

// Creates or truncates `path` with `text`; throws std::runtime_error naming
// the path and strerror(errno) if any part fails (creating, writing,
// flushing, closing).
void write_whole_file(const std::string& path, std::string_view text);

// "cannot write PATH: REASON" for a stream that failed: strerror(err), or
// "write error" for err <= 0 (the failing call left no errno).
std::string write_error(const std::string& path, int err);

}  // namespace rocelb
