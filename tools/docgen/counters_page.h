// The reference page of every counter and drop reason
// (docs/reference/counters.md), rendered from the X-macro tables the
// exporters walk (dataplane/forward/counters.h, lcore_stats.h, pfc/, lb/,
// the parser's verdicts, the fabric NIC's counters). The Prometheus name of
// each counter is found by running the exporter itself
// (counters_prometheus()): one synthetic counters JSON per counter, that
// counter set, and the samples that change name its metric. The output is
// deterministic: no dates, paths or versions. No knobs, no counters.
#pragma once

#include <string>

namespace rocelb {

// The whole Markdown page. Throws std::runtime_error when the exporter and
// the tables disagree (a counter the exporter reads is missing from the
// synthetic JSON: the exporter changed its layout).
std::string counters_page();

}  // namespace rocelb
