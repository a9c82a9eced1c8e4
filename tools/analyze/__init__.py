"""rocelb-analyze: plots and figures from rocelb run output directories.

Modules, one job each:
  errors   InputError: a bad input file (named, with its line) -> exit 2
  limits   what is read at most (sizes, lines, nesting, ranges, counts) and
           the bounded readers that hold every file to it
  documents  run.json, counters, summary.json: shape and ranges, key paths
  pcap     classic pcap / pcapng reader and the RoCEv2 header parser
  readers  the run directory's files (run.json, timeline.csv, events.jsonl,
           counters.json, flows.csv, summary.json, pcaps), streamed and
           aggregated into a Run
  metrics  pure functions: imbalance (max/mean, Jain), reordering, slowdown,
           CDFs, PFC intervals
  plots    matplotlib figures -> SVG text
  html     the self-contained page
  report   puts it together (the command line lives in report.main)
"""
