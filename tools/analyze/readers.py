"""Reading one run output directory into a Run: every file is streamed and
aggregated as it is read (timeline.csv into compact per-series arrays,
events.jsonl into per-class sojourn arrays, PFC frames and the reordering
tracker), so multi-million-line inputs fit in memory. Every problem raises
InputError naming the file and line."""

import csv
import glob
import json
import heapq
import os
import re
from array import array

from . import metrics
from .errors import InputError
from .pcap import OPCODE_CNP, parse_roce, read_packets

TIMELINE_HEADER = ["t_ns", "switch", "port", "class", "metric", "value"]
KNOWN_FILES = ("run.json", "timeline.csv", "events.jsonl", "trace.jsonl", "counters.json",
               "flows.csv", "summary.json", "links.csv")
DEFAULT_SPEED_BPS = 100_000_000_000
# events.jsonl kinds the report reads; the others (arrive, enqueue, lb) are
# only checked to be one JSON object per line, which keeps big files fast.
_EV_READ = {"dequeue", "mark", "drop", "pfc_tx", "pfc_rx"}


class Series:
    """One timeline series: t_ns and value arrays."""
    __slots__ = ("t", "v")

    def __init__(self):
        self.t = array("q")
        self.v = array("d")


class Run:
    def __init__(self, path):
        self.path = path
        self.name = os.path.basename(os.path.normpath(path)) or path
        self.files = []
        self.kind = None
        self.t0_ns = None
        self.end_ns = None
        self.interval_ns = None
        self.switches = []          # run.json "switches"
        self.timeline = {}          # (switch, port, class, metric) -> Series
        self.timeline_rows = 0
        self.sojourn = {}           # class -> array of sojourn_ns (events dequeue)
        self.event_counts = {}      # ev -> lines
        self.event_drops = {}       # reason -> drops (events)
        self.pfc_frames = {}        # (switch, port, "paused"|"xoff", prio) -> [(t, quanta)]
        self.reorder = None         # metrics.ReorderTracker (events or pcaps)
        self.reorder_source = None
        self.counters = {}          # switch -> counters.json document
        self.flows = None           # [(size_bytes, slowdown or None)]
        self.fabric_summary = None
        self.min_t = None
        self.max_t = None

    # --- what the run.json (or the counters) say about the switches -------
    def switch_names(self):
        names = [s.get("name", "") for s in self.switches]
        for n in self.counters:
            if n not in names:
                names.append(n)
        return names

    def port_info(self, switch, port):
        for s in self.switches:
            if s.get("name") == switch:
                for p in s.get("ports", []):
                    if p.get("id") == port:
                        return p
        c = self.counters.get(switch)
        if c:
            for p in c.get("ports", []):
                if p.get("id") == port:
                    return p
        return {}

    def port_label(self, switch, port):
        name = self.port_info(switch, port).get("name")
        base = "%s:%s" % (switch, port) if switch else "port %s" % port
        return "%s (%s)" % (base, name) if name else base

    def speed_bps(self, switch, port):
        return self.port_info(switch, port).get("speed_bps") or DEFAULT_SPEED_BPS

    def groups(self):
        """[(switch, group name, [member ports])] from run.json, else from the
        counters' groups."""
        out = []
        for s in self.switches:
            for g in s.get("groups", []) or []:
                out.append((s.get("name", ""), g.get("name", "?"), list(g.get("members", []))))
        if out:
            return out
        for sw, c in self.counters.items():
            for g in c.get("groups", []) or []:
                out.append((sw, g.get("name", "?"), [m.get("port") for m in g.get("members", [])]))
        return out

    def thresholds(self):
        """{class: [(label, bytes)]}: ECN min/max and PFC xoff/xon per class,
        distinct values over the switches."""
        out = {}
        for s in self.switches:
            for e in s.get("ecn", []) or []:
                c = str(e.get("class"))
                for key, label in (("min_bytes", "ECN min"), ("max_bytes", "ECN max")):
                    if e.get(key) is not None:
                        out.setdefault(c, set()).add((label, e[key]))
            pfc = s.get("pfc") or {}
            for c in pfc.get("classes", []) or []:
                for key, label in (("xoff_bytes", "PFC xoff"), ("xon_bytes", "PFC xon")):
                    if pfc.get(key) is not None:
                        out.setdefault(str(c), set()).add((label, pfc[key]))
        return {c: sorted(v, key=lambda lv: lv[1]) for c, v in out.items()}

    def rel_ns(self, t):
        return t - (self.t0_ns or 0)

    def _seen(self, t):
        if self.min_t is None or t < self.min_t:
            self.min_t = t
        if self.max_t is None or t > self.max_t:
            self.max_t = t


def _load_json(path):
    try:
        with open(path, encoding="utf-8") as f:
            return json.load(f)
    except json.JSONDecodeError as e:
        raise InputError(path, e.lineno, "malformed JSON: %s" % e.msg) from None
    except UnicodeDecodeError as e:
        raise InputError(path, None, "not UTF-8 text: %s" % e) from None


def _need_int(path, line, obj, key, required=True):
    v = obj.get(key)
    if v is None and not required:
        return None
    if not isinstance(v, int) or isinstance(v, bool):
        raise InputError(path, line, "%r must be an integer (got %r)" % (key, v))
    return v


def read_run(path):
    """Reads a run directory. Raises InputError if it is missing, is not a run
    directory, or holds a malformed file."""
    if not os.path.exists(path):
        raise InputError(path, None, "no such directory")
    if not os.path.isdir(path):
        raise InputError(path, None, "not a directory")
    run = Run(path)
    present = [f for f in KNOWN_FILES if os.path.isfile(os.path.join(path, f))]
    switch_counters = sorted(glob.glob(os.path.join(path, "*.counters.json")))
    pcaps = sorted(glob.glob(os.path.join(path, "port*.pcap")) +
                   glob.glob(os.path.join(path, "port*.pcapng")))
    if not present and not switch_counters and not pcaps:
        raise InputError(path, None, "not a run directory (none of run.json, timeline.csv, "
                         "events.jsonl, counters.json, flows.csv, port<N>.pcap)")
    run.files = present + [os.path.basename(p) for p in switch_counters + pcaps]
    j = lambda f: os.path.join(path, f)  # noqa: E731
    if "run.json" in present:
        _read_run_json(run, j("run.json"))
    if "counters.json" in present:
        doc = _load_json(j("counters.json"))
        _check_counters(j("counters.json"), doc)
        name = run.switches[0].get("name", "switch") if run.switches else "switch"
        run.counters[name] = doc
    for p in switch_counters:
        doc = _load_json(p)
        _check_counters(p, doc)
        run.counters[os.path.basename(p)[:-len(".counters.json")]] = doc
    if "summary.json" in present:
        run.fabric_summary = _load_json(j("summary.json"))
        if not isinstance(run.fabric_summary, dict):
            raise InputError(j("summary.json"), 1, "not a JSON object")
    if "flows.csv" in present:
        run.flows = read_flows(j("flows.csv"))
    if run.kind is None:
        run.kind = "fabric" if (switch_counters or run.flows is not None) else "replay"
    if "timeline.csv" in present:
        read_timeline(run, j("timeline.csv"))
    if "events.jsonl" in present:
        read_events(run, j("events.jsonl"))
    if (run.reorder is None or run.reorder.packets == 0) and pcaps:
        run.reorder = metrics.ReorderTracker()
        run.reorder_source = "pcap"
        read_pcap_reordering(run.reorder, pcaps)
    # Clock fallbacks for directories without run.json.
    if run.t0_ns is None:
        first = None
        for c in run.counters.values():
            t = (c.get("time") or {}).get("first_ns")
            if isinstance(t, int):
                first = t if first is None else min(first, t)
        if first is None and run.min_t is not None:
            first = run.min_t - (run.interval_ns or 0) if run.timeline else run.min_t
        run.t0_ns = first or 0
    if run.interval_ns is None:
        run.interval_ns = _guess_interval(run)
    if run.end_ns is None:
        run.end_ns = run.max_t if run.max_t is not None else run.t0_ns
    return run


def _check_counters(path, doc):
    if not isinstance(doc, dict) or not isinstance(doc.get("ports", []), list):
        raise InputError(path, 1, "not a counters document (an object with a \"ports\" list)")


def _read_run_json(run, path):
    doc = _load_json(path)
    if not isinstance(doc, dict):
        raise InputError(path, 1, "not a JSON object")
    kind = doc.get("kind")
    if kind not in ("replay", "fabric", None):
        raise InputError(path, None, "\"kind\" must be \"replay\" or \"fabric\" (got %r)" % kind)
    run.kind = kind
    run.t0_ns = _need_int(path, None, doc, "t0_ns", required=False)
    run.end_ns = _need_int(path, None, doc, "end_ns", required=False)
    run.interval_ns = _need_int(path, None, doc, "interval_ns", required=False)
    sw = doc.get("switches", [])
    if not isinstance(sw, list) or not all(isinstance(s, dict) for s in sw):
        raise InputError(path, None, "\"switches\" must be a list of objects")
    run.switches = sw


def read_timeline(run, path):
    series = run.timeline
    rows = 0
    with open(path, newline="", encoding="utf-8") as f:
        reader = csv.reader(f)
        try:
            header = next(reader, None)
        except csv.Error as e:
            raise InputError(path, 1, "malformed CSV: %s" % e) from None
        if header != TIMELINE_HEADER:
            raise InputError(path, 1, "header must be %s (got %s)" %
                             (",".join(TIMELINE_HEADER), ",".join(header or [])))
        line = 1
        min_t = max_t = None
        try:
            for row in reader:
                line += 1
                if len(row) != 6:
                    if not row:
                        continue
                    raise InputError(path, line, "expected 6 fields, got %d" % len(row))
                t_s, sw, port_s, cls, metric, val_s = row
                key = (sw, port_s, cls, metric)
                s = series.get(key)
                if s is None:
                    if port_s and not port_s.lstrip("-").isdigit():
                        raise InputError(path, line, "port %r is not an integer" % port_s)
                    if not metric:
                        raise InputError(path, line, "empty metric")
                    s = series[key] = Series()
                try:
                    t = int(t_s)
                    v = float(val_s)
                except ValueError:
                    raise InputError(path, line, "t_ns %r or value %r is not a number" %
                                     (t_s, val_s)) from None
                s.t.append(t)
                s.v.append(v)
                if min_t is None or t < min_t:
                    min_t = t
                if max_t is None or t > max_t:
                    max_t = t
                rows += 1
        except csv.Error as e:
            raise InputError(path, line + 1, "malformed CSV: %s" % e) from None
        except UnicodeDecodeError as e:
            raise InputError(path, line + 1, "not UTF-8 text: %s" % e) from None
    # Re-key with integer ports (-1: none).
    run.timeline = {(sw, int(p) if p else -1, c, m): s for (sw, p, c, m), s in series.items()}
    run.timeline_rows = rows
    if min_t is not None:
        run._seen(min_t)
        run._seen(max_t)


_EV_RE = re.compile(r'"ev"\s*:\s*"([a-z_]+)"')


def read_events(run, path):
    counts = run.event_counts
    sojourn = run.sojourn
    drops = run.event_drops
    pfc = run.pfc_frames
    tracker = metrics.ReorderTracker()
    loads = json.loads
    min_t = max_t = None
    with open(path, encoding="utf-8") as f:
        line_no = 0
        try:
            for line in f:
                line_no += 1
                i = line.find('"ev":"')
                if i >= 0:
                    ev = line[i + 6:line.find('"', i + 6)]
                else:
                    m = _EV_RE.search(line)
                    ev = m.group(1) if m else None
                if ev not in _EV_READ:
                    s = line.strip()
                    if not s:
                        continue
                    if not (s.startswith("{") and s.endswith("}")) or ev is None:
                        try:
                            o = loads(s)
                        except json.JSONDecodeError as e:
                            raise InputError(path, line_no, "malformed JSON: %s" % e.msg) from None
                        if not isinstance(o, dict) or "ev" not in o:
                            raise InputError(path, line_no, "not an event object with \"ev\"")
                        ev = o["ev"]
                    counts[ev] = counts.get(ev, 0) + 1
                    continue
                try:
                    o = loads(line)
                except json.JSONDecodeError as e:
                    raise InputError(path, line_no, "malformed JSON: %s" % e.msg) from None
                if not isinstance(o, dict):
                    raise InputError(path, line_no, "not a JSON object")
                ev = o.get("ev")
                counts[ev] = counts.get(ev, 0) + 1
                t = o.get("t_ns")
                if not isinstance(t, int):
                    raise InputError(path, line_no, "\"t_ns\" must be an integer")
                if min_t is None or t < min_t:
                    min_t = t
                if max_t is None or t > max_t:
                    max_t = t
                if ev == "dequeue":
                    # sojourn_ns and class are absent for a frame that was
                    # never queued (or of no known class): no sojourn then.
                    soj = o.get("sojourn_ns")
                    cls = o.get("class")
                    if (soj is not None and not isinstance(soj, int)) or \
                            (cls is not None and not isinstance(cls, int)):
                        raise InputError(path, line_no,
                                         "dequeue \"class\" and \"sojourn_ns\" must be integers")
                    if soj is not None and cls is not None:
                        a = sojourn.get(cls)
                        if a is None:
                            a = sojourn[cls] = array("q")
                        a.append(soj)
                    qp = o.get("qp")
                    psn = o.get("psn")
                    if qp is not None and psn is not None and o.get("opcode") != OPCODE_CNP:
                        flow = o.get("flow")
                        pair = ("%s>%s" % (flow.get("src", ""), flow.get("dst", ""))
                                if isinstance(flow, dict) else "")
                        # Per switch, across its ports: the order a receiving
                        # NIC sees (as the engines' reordering counter).
                        if is_response(o.get("opcode")):
                            pair += "/responses"
                        tracker.observe(o.get("switch", ""), pair, qp, psn)
                elif ev == "drop":
                    r = str(o.get("reason", "?"))
                    drops[r] = drops.get(r, 0) + 1
                elif ev in ("pfc_tx", "pfc_rx"):
                    enable = o.get("class_enable")
                    quanta = o.get("quanta")
                    port = o.get("port")
                    if (not isinstance(enable, int) or not isinstance(quanta, list) or
                            len(quanta) != 8 or not isinstance(port, int)):
                        raise InputError(path, line_no, "%s needs \"port\", \"class_enable\" "
                                         "and 8 \"quanta\"" % ev)
                    what = "xoff" if ev == "pfc_tx" else "paused"
                    sw = o.get("switch", "")
                    for prio in range(8):
                        if enable >> prio & 1:
                            pfc.setdefault((sw, port, what, prio), []).append((t, quanta[prio]))
        except UnicodeDecodeError as e:
            raise InputError(path, line_no + 1, "not UTF-8 text: %s" % e) from None
    if tracker.packets:
        run.reorder = tracker
        run.reorder_source = "events"
    if min_t is not None:
        run._seen(min_t)
        run._seen(max_t)


def is_response(opcode):
    """An RC response (RDMA READ response, ACK, atomic ACK): it carries the
    requester's PSNs, a sequence apart from the requests on the same QP."""
    return isinstance(opcode, int) and opcode >> 5 == 0 and 0x0D <= (opcode & 0x1F) <= 0x12


def read_pcap_reordering(tracker, paths):
    """The switch's output pcaps merged in departure order: a receiving NIC
    sees one QP's packets from whichever uplinks they took, so order counts
    across ports (as the replay engine's own meter does)."""
    if isinstance(paths, str):
        paths = [paths]

    def tagged(path):
        for ts, frame in read_packets(path):
            yield ts, frame
    for _ts, frame in heapq.merge(*(tagged(p) for p in paths), key=lambda x: x[0]):
        r = parse_roce(frame)
        if r is None or r[4] == OPCODE_CNP:
            continue
        pair = "%s>%s%s" % (r[0], r[1], "/responses" if is_response(r[4]) else "")
        tracker.observe("switch", pair, r[2], r[3])


def read_flows(path):
    """flows.csv -> [(size_bytes, slowdown or None)]. Slowdown is fct_ns /
    ideal_fct_ns when both are there, else the slowdown column."""
    out = []
    with open(path, newline="", encoding="utf-8") as f:
        reader = csv.reader(f)
        header = next(reader, None) or []
        col = {name: i for i, name in enumerate(header)}
        if "size_bytes" not in col or not ("slowdown" in col or
                                           ("fct_ns" in col and "ideal_fct_ns" in col)):
            raise InputError(path, 1, "header needs size_bytes and slowdown "
                             "(or fct_ns and ideal_fct_ns)")
        line = 1
        try:
            for row in reader:
                line += 1
                if not row:
                    continue
                if len(row) != len(header):
                    raise InputError(path, line, "expected %d fields, got %d" %
                                     (len(header), len(row)))
                try:
                    size = int(row[col["size_bytes"]])
                    sd = None
                    if "fct_ns" in col and "ideal_fct_ns" in col:
                        fct, ideal = row[col["fct_ns"]], row[col["ideal_fct_ns"]]
                        if fct and ideal and int(ideal) > 0:
                            sd = int(fct) / int(ideal)
                    elif row[col["slowdown"]]:
                        sd = float(row[col["slowdown"]])
                except ValueError as e:
                    raise InputError(path, line, "not a number: %s" % e) from None
                out.append((size, sd))
        except csv.Error as e:
            raise InputError(path, line + 1, "malformed CSV: %s" % e) from None
    return out


def _guess_interval(run):
    """Most timeline series step by the interval: the smallest positive step."""
    best = None
    for s in list(run.timeline.values())[:50]:
        for a, b in zip(s.t, s.t[1:]):
            d = b - a
            if d > 0 and (best is None or d < best):
                best = d
    return best
