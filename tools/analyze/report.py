"""rocelb-analyze's command line: read the run directories, analyze them,
write the page, summary.json and the CSV of every plotted series."""

import argparse
import difflib
import csv
import json
import os
import re
import subprocess
import sys

from . import analysis, html, limits, plots
from .errors import InputError
from .readers import read_run

MAX_TOP = 1000

USAGE = """rocelb-analyze DIR [DIR...] [--out FILE] [--table] [--top N] [--max-input SIZE]

Reads rocelb run output directories (replay or fabric) and writes one
self-contained HTML report of plots (default DIR/report.html, DIR the first
one), <report stem>_data/summary.json and one CSV per plotted series in
<report stem>_data/. With several DIRs the report starts with a comparison
of the runs. --table also prints the summary table (one row per run).
Prints the report's path last. Bad input (a missing or malformed file, one
past a limit, a directory that is not a run): one line naming the file,
where and the rule, exit 2; the report cannot be written: exit 1."""


def slug(s):
    return re.sub(r"[^A-Za-z0-9_.-]+", "_", str(s)).strip("_") or "x"


def _run_names(runs):
    """Each run's label: its directory name, made unique with its parent."""
    names = [r.name for r in runs]
    for i, r in enumerate(runs):
        if names.count(r.name) > 1:
            parent = os.path.basename(os.path.dirname(os.path.normpath(r.path)))
            names[i] = "%s/%s" % (parent, r.name) if parent else r.name
    seen = {}
    for i, n in enumerate(names):
        if n in seen:
            seen[n] += 1
            names[i] = "%s#%d" % (n, seen[n])
        else:
            seen[n] = 1
    return names


class Writer:
    """Collects figures, notes and CSV files for the page."""

    def __init__(self, data_dir, data_rel):
        self.data_dir = data_dir
        self.data_rel = data_rel
        self.parts = []
        self.index = []
        self.skipped = []
        self.files = set()

    def csv_name(self, base):
        name = slug(base)[:120] + ".csv"
        k = 1
        while name in self.files:
            k += 1
            name = "%s_%d.csv" % (slug(base)[:120], k)
        self.files.add(name)
        return name

    def add(self, plot, fig_id, run_name=None, prefix=""):
        plot.run = run_name
        paths = []
        for name, header, rows in plot.series:
            fn = self.csv_name("%s%s" % (prefix, name))
            with open(os.path.join(self.data_dir, fn), "w", newline="", encoding="utf-8") as f:
                w = csv.writer(f)
                w.writerow(header)
                for row in rows:
                    w.writerow([_cell(v) for v in row])
            paths.append("%s/%s" % (self.data_rel, fn))
        self.parts.append(html.figure(plot, fig_id, paths))
        self.index.append({"id": fig_id, "plot": plot.kind, "run": run_name, "title": plot.title,
                           "csv": paths})

    def skip(self, section, run_name, reason):
        self.parts.append(html.skip_note(section, run_name, reason))
        self.skipped.append({"section": section, "run": run_name, "reason": reason})


def _cell(v):
    if isinstance(v, float) or type(v).__name__.startswith("float"):
        return "%.9g" % v
    if type(v).__name__.startswith("int"):
        return int(v)
    return v


def run_sections(w, a, top, fig_id):
    run = a["run"]
    name = run.name
    pre = slug(name) + "__"
    if a["throughput"]:
        w.add(plots.throughput(a, top["throughput"]), fig_id("throughput"), name, pre)
    else:
        w.skip("Throughput per uplink", name, "no group member series in timeline.csv "
               "(needs run.json or counters.json groups and --timeline)")
    if a["queues"]:
        w.add(plots.queues(a, top["queues"]), fig_id("queue"), name, pre)
    else:
        w.skip("Queue depth", name, "no queue_bytes in timeline.csv (run with --timeline)")
    if a["pfc"][0]:
        w.add(plots.pfc(a, top["pfc"]), fig_id("pfc"), name, pre)
    else:
        w.skip("PFC timeline", name, "no PFC pause or XOFF in timeline.csv or events.jsonl")
    if a["sojourn"]:
        w.add(plots.sojourn_cdf(a), fig_id("sojourn"), name, pre)
    else:
        w.skip("Sojourn time CDF", name, "no dequeue lines in events.jsonl (run with --events)")
    if any(g["t_ns"].size for g in a["imbalance"]):
        w.add(plots.imbalance(a, top["throughput"]), fig_id("imbalance"), name, pre)
    else:
        w.skip("Uplink imbalance", name, "no group members' tx_bytes per interval in timeline.csv")
    r = a["reordering"]
    if r and r["top"]:
        w.add(plots.reordering(a), fig_id("reorder"), name, pre)
    elif r:
        w.skip("Per-QP reordering", name, "%s reordered packets over %s QPs (%s): nothing to plot"
               % (r["reordered_packets"], r["qps"], r["source"]))
    else:
        w.skip("Per-QP reordering", name, "no RoCE packets with PSNs in events.jsonl or pcaps")
    if run.kind == "fabric" or run.flows is not None:
        if a["slowdown"] and a["slowdown"]["all"]["count"]:
            w.add(plots.slowdown(a), fig_id("slowdown"), name, pre)
        else:
            w.skip("FCT slowdown", name, "no finished flows in flows.csv" if run.flows is not None
                   else "no flows.csv")


class _Parser(argparse.ArgumentParser):
    """A bad option is one line and exit 2, as any other bad input."""

    def error(self, message):
        prefix = "unrecognized arguments: "
        if message.startswith(prefix):
            # Name the option nearest to each mistyped one, as rocelb's C++
            # programs do (common/cli_app.h).
            known = [o for a in self._actions for o in a.option_strings]
            for word in message[len(prefix):].split():
                if word.startswith("-"):
                    name = word.split("=", 1)[0]
                    near = difflib.get_close_matches(name, known, n=1, cutoff=0.75)
                    message = "%s: no such option%s" % (
                        name, "; did you mean %s?" % near[0] if near else "")
                    break
        print("rocelb-analyze: %s (rocelb-analyze --help)" % message, file=sys.stderr)
        sys.exit(2)


def _version():
    """"rocelb-analyze (git describe)" of the tree it runs from."""
    here = os.path.dirname(os.path.abspath(__file__))
    try:
        out = subprocess.run(["git", "-C", here, "describe", "--always", "--dirty", "--tags"],
                             capture_output=True, text=True, timeout=5)
        described = out.stdout.strip() if out.returncode == 0 else ""
    except (OSError, subprocess.SubprocessError):
        described = ""
    return "rocelb-analyze (%s)" % (described or "unknown")


class _VersionAction(argparse.Action):
    """--version: git is asked only when the option is given."""

    def __init__(self, option_strings, dest, **kwargs):
        super().__init__(option_strings, dest, nargs=0, **kwargs)

    def __call__(self, parser, namespace, values, option_string=None):
        print(_version())
        sys.exit(0)


def _args(argv):
    p = _Parser(prog="rocelb-analyze", usage=USAGE.split("\n")[0],
                description=USAGE.split("\n\n", 1)[1])
    p.add_argument("--version", action=_VersionAction, help="print the version and exit")
    p.add_argument("dirs", nargs="+", metavar="DIR", help="run output directories")
    p.add_argument("--out", metavar="FILE", help="the report (default: DIR/report.html)")
    p.add_argument("--table", action="store_true",
                   help="also print the runs' summary table (imbalance, p99 sojourn, ...)")
    p.add_argument("--top", type=int, default=0,
                   help="series per plot, 1 .. %d (default 0: 16 uplinks, 8 queues, 24 PFC rows)"
                   % MAX_TOP)
    p.add_argument("--max-input", metavar="SIZE", default=None,
                   help="the largest input file read (default %s; e.g. 8GiB)" %
                   limits.human_bytes(limits.MAX_INPUT_BYTES))
    args = p.parse_args(argv)
    if not 0 <= args.top <= MAX_TOP:
        p.error("--top %d: must be 1 .. %d (0: the defaults)" % (args.top, MAX_TOP))
    args.max_input_bytes = limits.MAX_INPUT_BYTES
    if args.max_input is not None:
        try:
            args.max_input_bytes = limits.parse_size(args.max_input)
        except ValueError:
            p.error("--max-input %r: not a size (e.g. 4GiB, 500MB)" % args.max_input)
    return args


def main(argv=None):
    """The command line: 0, or 2 (bad input) or 1 (cannot write, out of
    memory, a bug), each failure one line. ROCELB_ANALYZE_DEBUG=1 shows a
    bug's traceback."""
    try:
        return _main(argv)
    except KeyboardInterrupt:
        print("rocelb-analyze: interrupted", file=sys.stderr)
        return 130
    except MemoryError:
        print("rocelb-analyze: out of memory (inputs are bounded by --max-input and the "
              "limits of tools/analyze/README.md)", file=sys.stderr)
        return 1
    except Exception as e:  # noqa: BLE001 - a bug: one line, not a traceback
        if os.environ.get("ROCELB_ANALYZE_DEBUG"):
            raise
        print("rocelb-analyze: internal error: %s: %s (ROCELB_ANALYZE_DEBUG=1 shows where)" %
              (type(e).__name__, e), file=sys.stderr)
        return 1


def _main(argv):
    args = _args(argv)
    try:
        runs = [read_run(d, args.max_input_bytes) for d in args.dirs]
    except InputError as e:
        print("rocelb-analyze: %s" % e, file=sys.stderr)
        return 2
    except OSError as e:
        print("rocelb-analyze: %s: %s" % (e.filename, e.strerror), file=sys.stderr)
        return 2
    out = args.out or os.path.join(args.dirs[0], "report.html")
    inputs = {os.path.realpath(os.path.join(r.path, f)) for r in runs for f in r.files}
    if os.path.realpath(out) in inputs:
        print("rocelb-analyze: --out %s: is an input of the run; the report would overwrite it"
              % out, file=sys.stderr)
        return 2
    try:
        return write_report(args, runs, out)
    except OSError as e:
        print("rocelb-analyze: %s: %s" % (e.filename or out, e.strerror), file=sys.stderr)
        return 1


def write_report(args, runs, out):
    for r, n in zip(runs, _run_names(runs)):
        r.name = n
    out_dir = os.path.dirname(os.path.abspath(out))
    stem = os.path.splitext(os.path.basename(out))[0]
    data_rel = stem + "_data"
    data_dir = os.path.join(out_dir, data_rel)
    os.makedirs(data_dir, exist_ok=True)
    for f in os.listdir(data_dir):  # the CSVs of an earlier report
        if f.endswith(".csv"):
            os.remove(os.path.join(data_dir, f))
    top = {"throughput": args.top or analysis.TOP_THROUGHPUT,
           "queues": args.top or analysis.TOP_QUEUES, "pfc": args.top or analysis.TOP_PFC_ROWS}

    analyses = [analysis.analyze(r) for r in runs]
    summaries = [a["summary"] for a in analyses]
    w = Writer(data_dir, data_rel)
    multi = len(runs) > 1
    if multi:
        w.parts.append('<h2 id="comparison">Comparison of %d runs</h2>' % len(runs))
        if any(a["imbalance"] for a in analyses):
            w.add(plots.compare_imbalance(analyses), "plot-compare-imbalance", None, "compare__")
        else:
            w.skip("Uplink imbalance comparison", None, "no run has group members in a timeline")
        if any(a["sojourn"] for a in analyses):
            w.add(plots.compare_sojourn(analyses), "plot-compare-sojourn", None, "compare__")
        else:
            w.skip("Sojourn comparison", None, "no run has dequeue events")
        w.add(plots.compare_counts(summaries), "plot-compare-counts", None, "compare__")
        if any(a["slowdown"] and a["slowdown"]["all"]["count"] for a in analyses):
            w.add(plots.compare_slowdown(analyses), "plot-compare-slowdown", None, "compare__")
    for a in analyses:
        name = a["run"].name
        w.parts.append('<h2 id="run-%s">Run %s <small>(%s, %s)</small></h2>' % (
            html.esc(slug(name)), html.esc(name), html.esc(a["run"].kind), html.esc(a["run"].path)))
        if multi:
            fig_id = lambda kind, s=slug(name): "plot-%s-%s" % (kind, s)  # noqa: E731
        else:
            fig_id = lambda kind: "plot-%s" % kind  # noqa: E731
        run_sections(w, a, top, fig_id)

    title = "rocelb run report: " + ", ".join(r.name for r in runs)
    index = {"schema": "rocelb.analyze.report.v1", "runs": [r.name for r in runs],
             "plots": w.index, "skipped": w.skipped, "summary": data_rel + "/summary.json"}
    with open(os.path.join(data_dir, "summary.json"), "w", encoding="utf-8") as f:
        json.dump({"schema": "rocelb.analyze.summary.v1", "runs": summaries}, f, indent=2,
                  default=_json_default, allow_nan=False)
        f.write("\n")
    with open(out, "w", encoding="utf-8") as f:
        f.write(html.page(title, summaries, w.parts, index))
    if args.table:
        print(html.text_table(summaries))
    print(out)
    return 0


def _json_default(v):
    if hasattr(v, "item"):
        return v.item()
    raise TypeError("not JSON serializable: %r" % type(v))
