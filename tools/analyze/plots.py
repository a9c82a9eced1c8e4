"""matplotlib figures as SVG text, one function per plot. Each returns a Plot:
its kind, title, the SVG, and the plotted series (for the CSV files). Dense
lines are rasterized inside the SVG so the page stays small."""

import io
import re

import matplotlib

matplotlib.use("Agg")
matplotlib.rcParams["svg.fonttype"] = "none"      # text stays text: small, no font files
matplotlib.rcParams["svg.hashsalt"] = "rocelb-analyze"
matplotlib.rcParams["font.size"] = 9
matplotlib.rcParams["legend.fontsize"] = 7
from matplotlib.figure import Figure  # noqa: E402
from matplotlib.patches import Patch  # noqa: E402

import numpy as np  # noqa: E402

from . import metrics  # noqa: E402

RASTERIZE_ABOVE = 4000   # points in a figure beyond which lines are rasterized
MAX_POINTS = 4000        # per line: longer series are thinned (max per bucket)
COLORS = matplotlib.rcParams["axes.prop_cycle"].by_key()["color"]


class Plot:
    def __init__(self, kind, title, svg, series, run=None):
        self.kind = kind
        self.title = title
        self.svg = svg
        self.series = series   # [(name, header, rows)]
        self.run = run


def _svg(fig):
    buf = io.StringIO()
    fig.savefig(buf, format="svg", metadata={"Date": None}, bbox_inches="tight")
    text = buf.getvalue()
    return text[text.find("<svg"):]


def prefix_ids(svg, prefix):
    """Makes the SVG's ids unique in a page holding several figures."""
    svg = re.sub(r'\bid="([^"]+)"', lambda m: 'id="%s-%s"' % (prefix, m.group(1)), svg)
    svg = re.sub(r'url\(#([^)]+)\)', lambda m: "url(#%s-%s)" % (prefix, m.group(1)), svg)
    return re.sub(r'href="#([^"]+)"', lambda m: 'href="#%s-%s"' % (prefix, m.group(1)), svg)


def _fig(h=3.6, rows=1, sharex=False):
    fig = Figure(figsize=(9.5, h), dpi=100, layout="constrained")
    axes = fig.subplots(rows, 1, sharex=sharex)
    return fig, axes


def _thin(x, y):
    """At most MAX_POINTS points: keeps each bucket's largest y (peaks survive)."""
    n = len(x)
    if n <= MAX_POINTS:
        return x, y
    k = int(np.ceil(n / (MAX_POINTS / 2)))
    m = n // k * k
    xs = x[:m].reshape(-1, k)
    ys = y[:m].reshape(-1, k)
    i = ys.argmax(axis=1)
    rows = np.arange(xs.shape[0])
    return np.append(xs[rows, i], x[m:]), np.append(ys[rows, i], y[m:])


def _legend(ax, n):
    if n > 8:
        ax.legend(loc="upper left", bbox_to_anchor=(1.01, 1.0), fontsize=6, frameon=False)
    else:
        ax.legend(loc="best")


def _time_label(unit):
    return "time since run start (%s)" % ("µs" if unit[0] == "us" else "ms")


def _rel(run, t_ns, unit):
    return (np.asarray(t_ns, dtype=float) - float(run.t0_ns or 0)) / unit[1]


def throughput(a, top):
    run, unit = a["run"], a["unit"]
    ss = a["throughput"][:top]
    fig, ax = _fig()
    series = []
    dense = sum(len(s["t_ns"]) for s in ss) > RASTERIZE_ABOVE
    for s in ss:
        x, y = _thin(_rel(run, s["t_ns"], unit), s["bps"] / 1e9)
        ax.plot(x, y, label=s["label"], lw=1, drawstyle="steps-pre", rasterized=dense)
        series.append(("throughput " + s["label"], ["t_rel_%s" % unit[0], "gbps"],
                       zip(_rel(run, s["t_ns"], unit), s["bps"] / 1e9)))
    more = len(a["throughput"]) - len(ss)
    title = "Throughput per uplink (group member)" + (" — busiest %d of %d" %
                                                      (len(ss), len(ss) + more) if more else "")
    ax.set_title(title)
    ax.set_xlabel(_time_label(unit))
    ax.set_ylabel("throughput (Gbit/s)")
    ax.set_ylim(bottom=0)
    _legend(ax, len(ss))
    return Plot("throughput", title, _svg(fig), series)


def queues(a, top):
    run, unit = a["run"], a["unit"]
    qs = a["queues"][:top]
    fig, ax = _fig(4.0)
    series = []
    dense = sum(len(q["t_ns"]) for q in qs) > RASTERIZE_ABOVE
    classes = []
    for i, q in enumerate(qs):
        x, y = _thin(_rel(run, q["t_ns"], unit), q["bytes"] / 1e3)
        ax.plot(x, y, label=q["label"], lw=1, color=COLORS[i % len(COLORS)], rasterized=dense)
        rows = zip(_rel(run, q["t_ns"], unit), q["bytes"])
        header = ["t_rel_%s" % unit[0], "depth_bytes"]
        if q["peak"] is not None and len(q["peak"][0]) == len(q["t_ns"]):
            rows = zip(_rel(run, q["t_ns"], unit), q["bytes"], q["peak"][1])
            header.append("peak_bytes")
        series.append(("queue " + q["label"], header, rows))
        if q["class"] not in classes:
            classes.append(q["class"])
    styles = {"ECN min": ":", "ECN max": "--", "PFC xoff": "-.", "PFC xon": (0, (1, 3))}
    for c in classes:
        for label, value in a["thresholds"].get(str(c), []):
            ax.axhline(value / 1e3, ls=styles.get(label, "--"), color="0.35", lw=0.9,
                       label="class %s %s (%.0f KB)" % (c, label, value / 1e3))
    title = "Queue depth per port and class (the %d deepest of %d)" % (len(qs), len(a["queues"]))
    ax.set_title(title)
    ax.set_xlabel(_time_label(unit))
    ax.set_ylabel("queue depth (KB)")
    ax.set_ylim(bottom=0)
    _legend(ax, len(ax.get_lines()))
    return Plot("queue", title, _svg(fig), series)


def pfc(a, top):
    run, unit = a["run"], a["unit"]
    rows, source = a["pfc"]
    rows = rows[:top]
    fig, ax = _fig(max(2.2, 0.8 + 0.28 * len(rows)))
    colors = {"paused": "#d62728", "xoff": "#1f77b4"}
    series = []
    for i, r in enumerate(rows):
        bars = [(((s - (run.t0_ns or 0)) / unit[1]), (e - s) / unit[1]) for s, e in r["intervals"]]
        ax.broken_barh(bars, (i - 0.35, 0.7), color=colors[r["kind"]])
        series.append(("pfc " + r["label"], ["start_rel_%s" % unit[0], "end_rel_%s" % unit[0]],
                       [(b[0], b[0] + b[1]) for b in bars]))
    ax.set_yticks(range(len(rows)))
    ax.set_yticklabels([r["label"] for r in rows], fontsize=7)
    ax.invert_yaxis()
    ax.set_xlim(0, max(((run.end_ns or 0) - (run.t0_ns or 0)) / unit[1], 1e-9))
    title = "PFC timeline: paused by the peer (received PFC) / XOFF asserted (sent PFC), from %s" \
        % source
    ax.set_title(title)
    ax.set_xlabel(_time_label(unit))
    ax.set_ylabel("port, priority")
    ax.legend(handles=[Patch(color=colors["paused"], label="egress paused by peer"),
                       Patch(color=colors["xoff"], label="switch asserts XOFF toward port")],
              loc="upper right")
    return Plot("pfc", title, _svg(fig), series)


def sojourn_cdf(a):
    fig, ax = _fig()
    series = []
    lo = hi = None
    for c, v in a["sojourn"].items():
        if not v.size:
            continue
        x, y = metrics.cdf_points(v / 1e3)
        ax.plot(x, y, label="class %s (%d packets)" % (c, v.size), lw=1.2, drawstyle="steps-post")
        series.append(("sojourn class %s" % c, ["sojourn_us", "fraction_le"], zip(x, y)))
        lo = x[0] if lo is None else min(lo, x[0])
        hi = x[-1] if hi is None else max(hi, x[-1])
    if lo is not None and lo > 0 and hi / lo > 100:
        ax.set_xscale("log")
    title = "Per-packet sojourn time (enqueue to first bit on the wire), CDF per class"
    ax.set_title(title)
    ax.set_xlabel("sojourn time (µs)")
    ax.set_ylabel("fraction of packets ≤ x")
    ax.set_ylim(0, 1.01)
    _legend(ax, len(series))
    return Plot("sojourn", title, _svg(fig), series)


def imbalance(a, top):
    run, unit = a["run"], a["unit"]
    gs = sorted(a["imbalance"], key=lambda g: -g["t_ns"].size)[:top]
    fig, (ax1, ax2) = _fig(5.0, rows=2, sharex=True)
    series = []
    dense = sum(g["t_ns"].size for g in gs) > RASTERIZE_ABOVE
    for g in gs:
        x = _rel(run, g["t_ns"], unit)
        ax1.plot(*_thin(x, g["max_over_mean"]), label=g["label"], lw=1, rasterized=dense)
        ax2.plot(x, g["jain"], label=g["label"], lw=1, rasterized=dense)
        series.append(("imbalance " + g["label"], ["t_rel_%s" % unit[0], "max_over_mean", "jain"],
                       zip(x, g["max_over_mean"], g["jain"])))
    title = "Uplink imbalance per window (members' tx bytes per interval)"
    ax1.set_title(title)
    ax1.set_ylabel("max / mean (1 = even)")
    ax1.set_ylim(bottom=1)
    ax2.set_ylabel("Jain's index (1 = even)")
    ax2.set_ylim(0, 1.02)
    ax2.set_xlabel(_time_label(unit))
    _legend(ax1, len(gs))
    _legend(ax2, len(gs))
    return Plot("imbalance", title, _svg(fig), series)


def reordering(a):
    r = a["reordering"]
    top = r["top"]
    fig, ax = _fig(max(2.2, 0.8 + 0.25 * len(top)))
    ax.barh(range(len(top)), [c for _, c in top], color="#9467bd",
            label="reordered packets (source: %s)" % r["source"])
    ax.set_yticks(range(len(top)))
    ax.set_yticklabels([k for k, _ in top], fontsize=7)
    ax.invert_yaxis()
    title = "Per-QP reordering: the top %d of %d QPs (%d reordered of %d RoCE packets)" % (
        len(top), r["qps"] or 0, r["reordered_packets"] or 0, r["roce_packets"] or 0)
    ax.set_title(title)
    ax.set_xlabel("reordered packets")
    ax.set_ylabel("destination IP, QP")
    ax.legend(loc="lower right")
    return Plot("reorder", title, _svg(fig), [("reorder per qp", ["qp", "reordered_packets"], top)])


def slowdown(a):
    sd = a["slowdown"]
    fig, ax = _fig()
    buckets = list(metrics.BUCKETS)
    x = np.arange(len(buckets))
    avg = [sd[b]["average"] or 0 for b in buckets]
    p99 = [sd[b]["p99"] or 0 for b in buckets]
    ax.bar(x - 0.2, avg, 0.4, label="average")
    ax.bar(x + 0.2, p99, 0.4, label="p99 (nearest rank)")
    ax.set_xticks(x)
    ax.set_xticklabels(["%s\n%s, %d flows" % (b, sd[b]["sizes"], sd[b]["count"]) for b in buckets])
    title = "FCT slowdown (FCT / ideal FCT) by flow size"
    ax.set_title(title)
    ax.set_xlabel("flow size bucket")
    ax.set_ylabel("slowdown (×)")
    ax.legend()
    rows = [(b, sd[b]["count"], sd[b]["unfinished"], sd[b]["average"], sd[b]["p99"])
            for b in buckets]
    return Plot("slowdown", title, _svg(fig),
                [("slowdown", ["bucket", "count", "unfinished", "average", "p99"], rows)])


# --- comparison of several runs ------------------------------------------

def compare_imbalance(analyses):
    fig, (ax1, ax2) = _fig(5.0, rows=2, sharex=True)
    series = []
    unit = max((a["unit"] for a in analyses), key=lambda u: u[1])
    for a in analyses:
        run = a["run"]
        if not a["imbalance"]:
            continue
        t = np.concatenate([g["t_ns"] for g in a["imbalance"]])
        mom = np.concatenate([g["max_over_mean"] for g in a["imbalance"]])
        jain = np.concatenate([g["jain"] for g in a["imbalance"]])
        grid, inv = np.unique(t, return_inverse=True)
        cnt = np.bincount(inv)
        m1 = np.bincount(inv, mom) / cnt
        m2 = np.bincount(inv, jain) / cnt
        x = _rel(run, grid, unit)
        ax1.plot(*_thin(x, m1), lw=1, label=run.name)
        ax2.plot(x, m2, lw=1, label=run.name)
        series.append(("compare imbalance " + run.name,
                       ["t_rel_%s" % unit[0], "max_over_mean", "jain"], zip(x, m1, m2)))
    title = "Uplink imbalance per window, one line per run (mean over the run's groups)"
    ax1.set_title(title)
    ax1.set_ylabel("max / mean")
    ax2.set_ylabel("Jain's index")
    ax2.set_xlabel(_time_label(unit))
    ax1.legend()
    ax2.legend()
    return Plot("compare-imbalance", title, _svg(fig), series)


def compare_sojourn(analyses):
    fig, ax = _fig()
    series = []
    lo = hi = None
    for a in analyses:
        if not a["sojourn"]:
            continue
        v = np.concatenate(list(a["sojourn"].values()))
        x, y = metrics.cdf_points(v / 1e3)
        ax.plot(x, y, lw=1.2, drawstyle="steps-post", label=a["run"].name)
        series.append(("compare sojourn " + a["run"].name, ["sojourn_us", "fraction_le"], zip(x, y)))
        lo = x[0] if lo is None else min(lo, x[0])
        hi = x[-1] if hi is None else max(hi, x[-1])
    if lo is not None and lo > 0 and hi / lo > 100:
        ax.set_xscale("log")
    title = "Per-packet sojourn time CDF (all classes), one line per run"
    ax.set_title(title)
    ax.set_xlabel("sojourn time (µs)")
    ax.set_ylabel("fraction of packets ≤ x")
    ax.legend()
    return Plot("compare-sojourn", title, _svg(fig), series)


def compare_counts(summaries):
    names = [s["name"] for s in summaries]
    metrics_ = [("reordered packets", lambda s: (s.get("reordering") or {}).get("reordered_packets")),
                ("ECN marks", lambda s: s.get("ecn_marks")),
                ("PFC frames sent", lambda s: s.get("pfc_frames_sent")),
                ("drops", lambda s: s.get("drops"))]
    fig = Figure(figsize=(9.5, 3.2), dpi=100, layout="constrained")
    axes = fig.subplots(1, len(metrics_))
    rows = []
    for ax, (label, get) in zip(axes, metrics_):
        vals = [get(s) or 0 for s in summaries]
        ax.bar(range(len(names)), vals, color=COLORS[:len(names)] * (len(names) // 10 + 1),
               label=label)
        ax.set_xticks(range(len(names)))
        ax.set_xticklabels(names, rotation=30, ha="right", fontsize=7)
        ax.set_title(label)
        ax.set_xlabel("run")
        ax.set_ylabel("%s (count)" % label)
        ax.legend(fontsize=6)
    for s in summaries:
        rows.append([s["name"]] + [get(s) for _, get in metrics_])
    title = "Reordering, ECN marks, PFC frames and drops per run"
    fig.suptitle(title)
    return Plot("compare-counts", title, _svg(fig),
                [("compare counts", ["run"] + [m for m, _ in metrics_], rows)])


def compare_slowdown(analyses):
    runs = [a for a in analyses if a["slowdown"]]
    fig, (ax1, ax2) = _fig(5.0, rows=2, sharex=True)
    buckets = list(metrics.BUCKETS)
    x = np.arange(len(buckets))
    w = 0.8 / max(len(runs), 1)
    rows = []
    for i, a in enumerate(runs):
        sd = a["slowdown"]
        off = x - 0.4 + w * (i + 0.5)
        ax1.bar(off, [sd[b]["average"] or 0 for b in buckets], w, label=a["run"].name)
        ax2.bar(off, [sd[b]["p99"] or 0 for b in buckets], w, label=a["run"].name)
        rows += [(a["run"].name, b, sd[b]["count"], sd[b]["average"], sd[b]["p99"])
                 for b in buckets]
    title = "FCT slowdown by flow size, per run"
    ax1.set_title(title)
    ax1.set_ylabel("average slowdown (×)")
    ax2.set_ylabel("p99 slowdown (×)")
    ax2.set_xticks(x)
    ax2.set_xticklabels(buckets)
    ax2.set_xlabel("flow size bucket (small < 100KB, medium < 1MB, large ≥ 1MB)")
    ax1.legend()
    ax2.legend()
    return Plot("compare-slowdown", title, _svg(fig),
                [("compare slowdown", ["run", "bucket", "count", "average", "p99"], rows)])
