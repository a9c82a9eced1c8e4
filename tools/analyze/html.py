"""The self-contained report page: inline CSS, figures as inline SVG, a
summary table, the definitions, and the machine-readable index of the plots
(<script type="application/json" id="report-index">). The only script is a
small inline check that marks each listed figure as rendered (non-empty
box) once the page has loaded; nothing is fetched from anywhere."""

import html
import json

from .plots import prefix_ids

CSS = """
body{font-family:sans-serif;margin:1.5em auto;max-width:1100px;color:#222}
h1{font-size:1.5em}h2{font-size:1.25em;border-bottom:1px solid #ccc;margin-top:2em}
h3{font-size:1.05em;margin-top:1.5em}
figure{margin:1em 0;padding:.5em;border:1px solid #e4e4e4}
figure svg{max-width:100%;height:auto;display:block}
figcaption{font-size:.85em;color:#555;margin-top:.3em}
table{border-collapse:collapse;font-size:.85em;margin:.5em 0}
td,th{border:1px solid #ccc;padding:.25em .6em;text-align:right}
td:first-child,th:first-child{text-align:left}
p.skip{color:#8a6d3b;background:#fcf8e3;padding:.3em .6em;font-size:.9em}
dl.defs dt{font-weight:bold;margin-top:.5em}dl.defs dd{margin-left:1.5em}
code{background:#f4f4f4;padding:0 .2em}
"""

CHECK_JS = """
window.addEventListener('load', function () {
  var idx = JSON.parse(document.getElementById('report-index').textContent);
  var ok = 0;
  idx.plots.forEach(function (p) {
    var f = document.getElementById(p.id);
    var g = f && f.querySelector('svg, img');
    var r = g && g.getBoundingClientRect();
    var good = !!(r && r.width > 0 && r.height > 0 && g.childElementCount !== 0);
    if (f) f.setAttribute('data-rendered', good ? 'yes' : 'no');
    if (good) ok++;
  });
  document.body.setAttribute('data-render-check', ok === idx.plots.length ? 'ok' : 'fail');
  document.body.setAttribute('data-rendered-plots', String(ok));
});
"""

DEFINITIONS = [
    ("Throughput per uplink",
     "Each group member's load per timeline interval: <code>group.&lt;g&gt;.load_bps</code>, "
     "else the port's <code>tx_bps</code>, else <code>tx_bytes</code> × 8 / interval."),
    ("Uplink imbalance",
     "Per window (timeline interval) and per group, over the members' <code>tx_bytes</code> "
     "x<sub>1..n</sub> (a member with no row sent 0): max/mean = max x / (Σx/n), 1 when even, n "
     "when one member carries everything; Jain's index = (Σx)² / (n·Σx²), 1 when even, 1/n at "
     "worst. Windows where the group sent nothing are left out. The table shows the mean over "
     "all windows of all groups."),
    ("Queue depth",
     "<code>queue_bytes</code> at the end of each interval; the busiest queues (largest depth "
     "or interval peak) are drawn, with the class's ECN min/max and PFC xoff/xon thresholds "
     "from run.json as horizontal lines."),
    ("PFC timeline",
     "Red: the switch's egress class on that port was paused by the peer (it received PFC). "
     "Blue: the switch asserted XOFF toward that port (it sent PFC). From events.jsonl "
     "(a frame with quanta q pauses for q × 512 bit times at the port's speed, until a later "
     "frame replaces it or an XON, q = 0, ends it), else from the timeline's "
     "<code>pfc_paused</code>/<code>pfc_xoff</code> states (a 1 at t covers the interval "
     "ending at t)."),
    ("Sojourn time",
     "Per packet, from events.jsonl <code>dequeue</code>: <code>sojourn_ns</code>, the time "
     "from enqueue to the first bit on the wire. p99 is the nearest-rank 99th percentile."),
    ("Reordering",
     "Per switch, its output ports merged in departure order, per queue pair (source IP, "
     "destination IP, destination QP): a packet whose PSN is behind the highest PSN already "
     "seen for its QP is reordered. PSNs are 24-bit: behind means 1 to 2<sup>23</sup>−1 back "
     "modulo 2<sup>24</sup>; the same PSN again is a retransmission, not reordering; CNPs are "
     "skipped. From events.jsonl dequeue lines with qp/psn, else from the output pcaps."),
    ("FCT slowdown",
     "Per finished flow in flows.csv: fct_ns / ideal_fct_ns. Buckets: small &lt; 100 KB, "
     "medium 100 KB..1 MB, large ≥ 1 MB, and all; average and nearest-rank p99 per bucket. "
     "Unfinished flows are counted apart."),
]


def esc(s):
    return html.escape(str(s), quote=True)


def fmt(v, digits=3):
    if v is None:
        return "–"
    if isinstance(v, float):
        if v.is_integer() and abs(v) < 1e15:
            return "%d" % v
        return ("%%.%dg" % digits) % v
    return esc(v)


# The comparison's columns: (heading, value of one run's summary).
SUMMARY_COLUMNS = [
    ("run", lambda s: s["name"]), ("kind", lambda s: s["kind"]),
    ("uplink imbalance max/mean", lambda s: s["uplink_imbalance"]["mean_max_over_mean"]),
    ("Jain's index", lambda s: s["uplink_imbalance"]["mean_jain"]),
    ("p99 sojourn (µs)", lambda s: s["sojourn_us"]["p99"]),
    ("reordered packets", lambda s: (s.get("reordering") or {}).get("reordered_packets")),
    ("ECN marks", lambda s: s.get("ecn_marks")),
    ("PFC frames sent", lambda s: s.get("pfc_frames_sent")),
    ("drops", lambda s: s.get("drops")),
    ("FCT slowdown p99 (all)",
     lambda s: ((s.get("fct_slowdown") or {}).get("all") or {}).get("p99"))]


def text_table(summaries):
    """The comparison as aligned text (rocelb-analyze --table), columns that
    hold nothing for every run left out."""
    cols = [(h, get) for h, get in SUMMARY_COLUMNS
            if any(get(s) is not None for s in summaries) or h == "run"]
    rows = [[h for h, _ in cols]] + [[fmt(get(s)) for _, get in cols] for s in summaries]
    widths = [max(len(r[i]) for r in rows) for i in range(len(cols))]
    lines = []
    for r in rows:
        lines.append("  ".join(c.ljust(w) if i == 0 else c.rjust(w)
                               for i, (c, w) in enumerate(zip(r, widths))))
    return "\n".join(lines)


def summary_table(summaries):
    cols = SUMMARY_COLUMNS
    out = ['<table id="summary-table"><thead><tr>']
    out += ["<th>%s</th>" % esc(c) for c, _ in cols]
    out.append("</tr></thead><tbody>")
    for s in summaries:
        out.append('<tr data-run="%s">' % esc(s["name"]))
        out += ["<td>%s</td>" % fmt(get(s)) for _, get in cols]
        out.append("</tr>")
    out.append("</tbody></table>")
    return "".join(out)


def figure(plot, fig_id, csv_paths):
    svg = prefix_ids(plot.svg, fig_id)
    links = ", ".join('<a href="%s">%s</a>' % (esc(p), esc(p.split("/")[-1])) for p in csv_paths)
    return ('<figure id="%s" data-plot="%s"%s>%s<figcaption>%s%s</figcaption></figure>' % (
        esc(fig_id), esc(plot.kind), (' data-run="%s"' % esc(plot.run)) if plot.run else "",
        svg, esc(plot.title), (" — data: " + links) if links else ""))


def skip_note(section, run, reason):
    return '<p class="skip" data-skip="%s"%s>%s: %s</p>' % (
        esc(section), (' data-run="%s"' % esc(run)) if run else "", esc(section), esc(reason))


def page(title, summaries, body_parts, index):
    data = json.dumps(index, indent=1).replace("</", "<\\/")
    defs = "".join("<dt>%s</dt><dd>%s</dd>" % (esc(k), v) for k, v in DEFINITIONS)
    return "".join([
        "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">",
        "<title>%s</title><style>%s</style></head><body>" % (esc(title), CSS),
        "<h1>%s</h1>" % esc(title),
        "<h2 id=\"summary\">Summary</h2>", summary_table(summaries),
        "".join(body_parts),
        "<h2 id=\"definitions\">Definitions</h2><dl class=\"defs\">%s</dl>" % defs,
        "<script type=\"application/json\" id=\"report-index\">%s</script>" % data,
        "<script>%s</script>" % CHECK_JS,
        "</body></html>\n"])
