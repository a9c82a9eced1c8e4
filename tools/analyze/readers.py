"""Reading one run output directory into a Run: every file is streamed and
aggregated as it is read (timeline.csv into compact per-series arrays,
events.jsonl into per-class sojourn arrays, PFC frames and the reordering
tracker), so multi-million-line inputs fit in memory. Every file is held to
the limits of limits.py (size, line length, nesting, ranges, counts) and
every problem raises InputError naming the file, the line or key path and
the rule."""

import csv
import heapq
import os
import re
from array import array

from . import documents, limits, metrics
from .errors import InputError
from .limits import INT64_MAX
from .pcap import OPCODE_CNP, parse_roce, read_packets

TIMELINE_HEADER = ["t_ns", "switch", "port", "class", "metric", "value"]
KNOWN_FILES = ("run.json", "timeline.csv", "events.jsonl", "trace.jsonl", "counters.json",
               "flows.csv", "summary.json", "links.csv")
DEFAULT_SPEED_BPS = 100_000_000_000
PSN_MAX = (1 << 24) - 1
# events.jsonl kinds the report reads; the others (arrive, enqueue, lb) are
# only checked to be one JSON object per line, which keeps big files fast.
_EV_READ = {"dequeue", "mark", "drop", "pfc_tx", "pfc_rx"}


class Series:
    """One timeline series: t_ns and value arrays."""
    __slots__ = ("t", "v")

    def __init__(self):
        self.t = array("q")
        self.v = array("d")


class PfcFrames:
    """One (switch, port, direction, priority)'s PFC frames in file order:
    times and that priority's quanta, compact."""
    __slots__ = ("t", "quanta")

    def __init__(self):
        self.t = array("q")
        self.quanta = array("H")


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
        self.pfc_frames = {}        # (switch, port, "paused"|"xoff", prio) -> PfcFrames
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


def read_run(path, max_input=limits.MAX_INPUT_BYTES):
    """Reads a run directory. Raises InputError if it is missing, is not a run
    directory (rocelb-gen's folder of input pcaps is not), or holds a
    malformed file or one past a limit (limits.py; `max_input` bytes per
    streamed file)."""
    if not os.path.lexists(path):
        raise InputError(path, None, "no such directory")
    if not os.path.isdir(path):
        raise InputError(path, None, "not a directory")
    try:
        names = os.listdir(path)
    except OSError as e:
        raise InputError(path, None, e.strerror) from None
    j = lambda f: os.path.join(path, f)  # noqa: E731
    present = [f for f in KNOWN_FILES if os.path.lexists(j(f))]
    switch_counters = sorted(n for n in names if n.endswith(".counters.json") and
                             not n.startswith("."))
    pcaps = sorted(n for n in names if n.startswith("port") and
                   (n.endswith(".pcap") or n.endswith(".pcapng")))
    if not present and not switch_counters:
        if pcaps:
            raise InputError(path, None, "not a run directory: only port<N>.pcap files, no "
                             "run.json or counters.json (rocelb-gen's input, not a replay's "
                             "output: give the replay's --out-dir)")
        raise InputError(path, None, "not a run directory (none of run.json, timeline.csv, "
                         "events.jsonl, counters.json, flows.csv, summary.json)")
    # Each one a regular file within its limit before anything is read.
    for f in present + switch_counters + pcaps:
        json_doc = f.endswith(".json")
        limits.check_file(j(f), limits.MAX_JSON_BYTES if json_doc else max_input,
                          "a JSON document" if json_doc else "an input file")
    run = Run(path)
    run.files = present + switch_counters + pcaps
    if "run.json" in present:
        doc = documents.read_run_json(j("run.json"))
        run.kind = doc["kind"]
        run.t0_ns = doc.get("t0_ns")
        run.end_ns = doc.get("end_ns")
        run.interval_ns = doc.get("interval_ns")
        run.switches = doc.get("switches") or []
    if "counters.json" in present:
        doc = documents.read_counters(j("counters.json"))
        name = run.switches[0].get("name", "switch") if run.switches else "switch"
        run.counters[name] = doc
    for f in switch_counters:
        run.counters[f[:-len(".counters.json")]] = documents.read_counters(j(f))
    if "summary.json" in present:
        run.fabric_summary = documents.read_summary(j("summary.json"))
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
        read_pcap_reordering(run.reorder, [j(p) for p in pcaps])
    # Clock fallbacks for directories without run.json.
    if run.t0_ns is None:
        first = None
        for c in run.counters.values():
            t = (c.get("time") or {}).get("first_ns")
            if isinstance(t, int):
                first = t if first is None else min(first, t)
        if first is None and run.min_t is not None:
            first = run.min_t - (run.interval_ns or 0) if run.timeline else run.min_t
        run.t0_ns = max(first or 0, 0)
    if run.interval_ns is None:
        run.interval_ns = _guess_interval(run)
    if run.end_ns is None:
        run.end_ns = run.max_t if run.max_t is not None else run.t0_ns
    return run


def _csv_rows(path, f):
    """csv rows of a file opened in binary mode, each line bounded and
    decoded (limits.text_lines); pos[0] is the last line read."""
    pos = [0]

    def lines():
        for n, text in limits.text_lines(f, path):
            pos[0] = n
            yield text
    return csv.reader(lines()), pos


def _value(path, line, what, text):
    """A timeline value: a finite number within +-2^64 (no counter of the
    switch is larger)."""
    try:
        v = float(text)
    except ValueError:
        raise InputError(path, line, "%s %r is not a number" % (what, text)) from None
    if not -_VALUE_MAX <= v <= _VALUE_MAX:  # also false for NaN
        raise InputError(path, line, "%s %r is not a finite number within +-2^64" %
                         (what, text))
    return v


def _time(path, line, text):
    """t_ns: an integer 0 .. 2^63-1."""
    if not (text.isascii() and text.isdigit()) or len(text) > 19:
        raise InputError(path, line, "t_ns %r is not an integer 0 .. %d" %
                         (text if len(text) <= 40 else text[:37] + "...", INT64_MAX))
    t = int(text)
    if t > INT64_MAX:
        raise InputError(path, line, "t_ns %s is out of range (0 .. %d)" % (text, INT64_MAX))
    return t


_VALUE_MAX = float(1 << 64)


def read_timeline(run, path):
    series = run.timeline
    rows = 0
    min_t = max_t = None
    with open(path, "rb") as f:
        reader, pos = _csv_rows(path, f)
        try:
            header = next(reader, None)
            if header != TIMELINE_HEADER:
                raise InputError(path, 1, "header must be %s (got %s)" %
                                 (",".join(TIMELINE_HEADER), ",".join(header or [])[:200]
                                  if header else "an empty file"))
            for row in reader:
                if len(row) != 6:
                    if not row:
                        continue
                    raise InputError(path, pos[0], "expected 6 fields, got %d" % len(row))
                t_s, sw, port_s, cls, metric, val_s = row
                key = (sw, port_s, cls, metric)
                s = series.get(key)
                if s is None:
                    _new_series(path, pos[0], series, sw, port_s, cls, metric)
                    s = series[key] = Series()
                try:
                    t = int(t_s)
                except ValueError:
                    t = _time(path, pos[0], t_s)
                if not 0 <= t <= INT64_MAX:
                    _time(path, pos[0], t_s)
                try:
                    v = float(val_s)
                except ValueError:
                    v = _value(path, pos[0], "value", val_s)
                if not -_VALUE_MAX <= v <= _VALUE_MAX:
                    _value(path, pos[0], "value", val_s)
                s.t.append(t)
                s.v.append(v)
                if min_t is None or t < min_t:
                    min_t = t
                if max_t is None or t > max_t:
                    max_t = t
                rows += 1
        except csv.Error as e:
            raise InputError(path, pos[0], "malformed CSV: %s" % e) from None
    # Re-key with integer ports (-1: none).
    run.timeline = {(sw, int(p) if p else -1, c, m): s for (sw, p, c, m), s in series.items()}
    run.timeline_rows = rows
    if min_t is not None:
        run._seen(min_t)
        run._seen(max_t)


def _new_series(path, line, series, sw, port_s, cls, metric):
    """The rules for a timeline series' key, checked once per series."""
    if port_s and not (port_s.isascii() and port_s.isdigit() and len(port_s) <= 5 and
                       int(port_s) <= 65535):
        raise InputError(path, line, "port %r is not an integer 0 .. 65535" % port_s[:40])
    if not metric:
        raise InputError(path, line, "empty metric")
    for what, v in (("switch", sw), ("class", cls), ("metric", metric)):
        if len(v) > limits.MAX_NAME_CHARS:
            raise InputError(path, line, "%s name longer than %d characters (the limit)" %
                             (what, limits.MAX_NAME_CHARS))
        if not v.isprintable():
            raise InputError(path, line, "%s name %r has a control character" % (what, v))
    if len(series) >= limits.MAX_SERIES:
        raise InputError(path, line, "more than %d series (switch, port, class, metric): "
                         "the limit" % limits.MAX_SERIES)


_EV_RE = re.compile(r'"ev"\s*:\s*"([a-z_]+)"')
_EV_NAME = re.compile(r"[a-z_]{1,32}")
_DEPTH_GATE = limits.MAX_JSON_DEPTH  # more brackets than this: check the nesting


def _event(path, n, line):
    """One events.jsonl line parsed: a JSON object with an "ev" name."""
    o = limits.loads(line, path, n)
    if line.count("[") + line.count("{") > _DEPTH_GATE and \
            limits.json_depth(o) > limits.MAX_JSON_DEPTH:
        raise InputError(path, n, "JSON nested more than %d levels deep (the limit)" %
                         limits.MAX_JSON_DEPTH)
    if not isinstance(o, dict):
        raise InputError(path, n, "not a JSON object")
    ev = o.get("ev")
    if not isinstance(ev, str) or not _EV_NAME.fullmatch(ev):
        raise InputError(path, n, "\"ev\" must be an event name ([a-z_], at most 32 "
                         "characters; got %r)" % (ev if not isinstance(ev, str) else ev[:40]))
    return o, ev


def _field(path, n, o, key, lo, hi, required=False):
    """An integer field of an event within lo..hi (None when absent and not
    required)."""
    v = o.get(key)
    if v is None and not required:
        return None
    if not limits.int_in(v, lo, hi):
        r = repr(v)
        raise InputError(path, n, "%s \"%s\" must be an integer %d .. %d (got %s)" %
                         (o.get("ev"), key, lo, hi, r if len(r) <= 40 else r[:37] + "..."))
    return v


def _name(path, n, o, key):
    v = o.get(key, "")
    if not isinstance(v, str) or len(v) > limits.MAX_NAME_CHARS:
        raise InputError(path, n, "%s \"%s\" must be a string of at most %d characters" %
                         (o.get("ev"), key, limits.MAX_NAME_CHARS))
    return v


def read_events(run, path):
    counts = run.event_counts
    sojourn = run.sojourn
    drops = run.event_drops
    pfc = run.pfc_frames
    tracker = metrics.ReorderTracker()
    min_t = max_t = None
    pfc_entries = 0
    decode = limits.decoder.decode
    with open(path, "rb") as f:
        for line_no, line in limits.text_lines(f, path):
            i = line.find('"ev":"')
            if i >= 0:
                ev = line[i + 6:line.find('"', i + 6)]
            else:
                m = _EV_RE.search(line)
                ev = m.group(1) if m else None
            if ev not in _EV_READ:
                c = counts.get(ev)
                if c is not None and line[:1] == "{" and line[-1:] == "}":
                    counts[ev] = c + 1  # a kind seen before, on a line like an object
                    continue
                s = line.strip()
                if not s:
                    continue
                # arrive, enqueue, lb, ...: counted, not parsed, when the line
                # looks like an object with a plain "ev" name.
                if not (s.startswith("{") and s.endswith("}")) or ev is None or \
                        not _EV_NAME.fullmatch(ev):
                    _o, ev = _event(path, line_no, s)
                c = counts.get(ev)
                if c is None:
                    limits.count_names(counts, path, line_no, "\"ev\" kinds")
                    c = 0
                counts[ev] = c + 1
                continue
            try:
                o = decode(line)
                ev = o["ev"] if type(o) is dict else None
            except (ValueError, RecursionError, KeyError):
                ev = None
            if ev not in _EV_READ or line.count("[") + line.count("{") > _DEPTH_GATE:
                o, ev = _event(path, line_no, line)  # says what is wrong, or checks more
            if ev not in counts:
                limits.count_names(counts, path, line_no, "\"ev\" kinds")
            counts[ev] = counts.get(ev, 0) + 1
            t = o.get("t_ns")
            if type(t) is not int or not 0 <= t <= INT64_MAX:
                _field(path, line_no, o, "t_ns", 0, INT64_MAX, required=True)
            if min_t is None or t < min_t:
                min_t = t
            if max_t is None or t > max_t:
                max_t = t
            if ev == "dequeue":
                # sojourn_ns and class are absent for a frame that was
                # never queued (or of no known class): no sojourn then.
                soj = o.get("sojourn_ns")
                cls = o.get("class")
                qp = o.get("qp")
                psn = o.get("psn")
                opcode = o.get("opcode")
                # The common case in one test; the named checks say what is wrong.
                if not ((soj is None or type(soj) is int and 0 <= soj <= INT64_MAX) and
                        (cls is None or type(cls) is int and 0 <= cls <= 7) and
                        (qp is None or type(qp) is int and 0 <= qp <= PSN_MAX) and
                        (psn is None or type(psn) is int and 0 <= psn <= PSN_MAX) and
                        (opcode is None or type(opcode) is int and 0 <= opcode <= 255)):
                    _field(path, line_no, o, "sojourn_ns", 0, INT64_MAX)
                    _field(path, line_no, o, "class", 0, 7)
                    _field(path, line_no, o, "qp", 0, PSN_MAX)
                    _field(path, line_no, o, "psn", 0, PSN_MAX)
                    _field(path, line_no, o, "opcode", 0, 255)
                if soj is not None and cls is not None:
                    a = sojourn.get(cls)
                    if a is None:
                        a = sojourn[cls] = array("q")
                    a.append(soj)
                if qp is not None and psn is not None and opcode != OPCODE_CNP:
                    flow = o.get("flow")
                    pair = ""
                    if isinstance(flow, dict):
                        src, dst = flow.get("src", ""), flow.get("dst", "")
                        if not (type(src) is str and type(dst) is str and
                                len(src) + len(dst) <= limits.MAX_NAME_CHARS):
                            _name(path, line_no, flow, "src")
                            _name(path, line_no, flow, "dst")
                            raise InputError(path, line_no, "dequeue \"flow\" addresses "
                                             "longer than %d characters" % limits.MAX_NAME_CHARS)
                        pair = src + ">" + dst
                    # Per switch, across its ports: the order a receiving
                    # NIC sees (as the engines' reordering counter).
                    if is_response(opcode):
                        pair += "/responses"
                    sw = o.get("switch", "")
                    if type(sw) is not str or len(sw) > limits.MAX_NAME_CHARS:
                        _name(path, line_no, o, "switch")
                    tracker.observe(sw, pair, qp, psn)
                    if len(tracker.highest) > limits.MAX_QPS:
                        raise InputError(path, line_no, "more than %d queue pairs to follow "
                                         "for reordering (the limit)" % limits.MAX_QPS)
            elif ev == "drop":
                r = o.get("reason", "?")
                r = r if isinstance(r, str) else str(r)
                if len(r) > limits.MAX_NAME_CHARS:
                    raise InputError(path, line_no, "drop \"reason\" longer than %d characters"
                                     % limits.MAX_NAME_CHARS)
                if r not in drops:
                    limits.count_names(drops, path, line_no, "drop reasons")
                drops[r] = drops.get(r, 0) + 1
            elif ev in ("pfc_tx", "pfc_rx"):
                enable = o.get("class_enable")
                quanta = o.get("quanta")
                port = o.get("port")
                if (not isinstance(enable, int) or not isinstance(quanta, list) or
                        len(quanta) != 8 or not isinstance(port, int)):
                    raise InputError(path, line_no, "%s needs \"port\", \"class_enable\" "
                                     "and 8 \"quanta\"" % ev)
                _field(path, line_no, o, "port", 0, 65535)
                _field(path, line_no, o, "class_enable", 0, 255)
                for q in quanta:
                    if not limits.int_in(q, 0, 65535):
                        raise InputError(path, line_no, "%s \"quanta\" must be 8 integers "
                                         "0 .. 65535 (got %r)" % (ev, q))
                what = "xoff" if ev == "pfc_tx" else "paused"
                sw = _name(path, line_no, o, "switch")
                for prio in range(8):
                    if enable >> prio & 1:
                        key = (sw, port, what, prio)
                        fr = pfc.get(key)
                        if fr is None:
                            fr = pfc[key] = PfcFrames()
                        fr.t.append(t)
                        fr.quanta.append(quanta[prio])
                        pfc_entries += 1
                if pfc_entries > limits.MAX_PFC_ENTRIES:
                    raise InputError(path, line_no, "more than %d PFC frame entries (port, "
                                     "priority) to draw (the limit)" % limits.MAX_PFC_ENTRIES)
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
    across ports (as the replay run's own meter does)."""
    if isinstance(paths, str):
        paths = [paths]

    def tagged(path):
        for ts, frame in read_packets(path):
            yield ts, frame, path
    n = 0
    for _ts, frame, path in heapq.merge(*(tagged(p) for p in paths), key=lambda x: x[0]):
        n += 1
        r = parse_roce(frame)
        if r is None or r[4] == OPCODE_CNP:
            continue
        pair = "%s>%s%s" % (r[0], r[1], "/responses" if is_response(r[4]) else "")
        tracker.observe("switch", pair, r[2], r[3])
        if len(tracker.highest) > limits.MAX_QPS:
            raise InputError(path, None, "more than %d queue pairs to follow for reordering "
                             "(the limit)" % limits.MAX_QPS)


class Flows:
    """flows.csv, compact: per flow its size and slowdown (NaN: unfinished).
    Iterates as (size_bytes, slowdown or None)."""
    __slots__ = ("size", "slowdown")

    def __init__(self):
        self.size = array("q")
        self.slowdown = array("d")

    def __len__(self):
        return len(self.size)

    def __iter__(self):
        for size, sd in zip(self.size, self.slowdown):
            yield size, (None if sd != sd else sd)


def read_flows(path):
    """flows.csv -> Flows. Slowdown is fct_ns / ideal_fct_ns when both are
    there, else the slowdown column; an unfinished flow has neither."""
    out = Flows()
    nan = float("nan")
    with open(path, "rb") as f:
        reader, pos = _csv_rows(path, f)
        try:
            header = next(reader, None) or []
            col = {name: i for i, name in enumerate(header)}
            if len(col) != len(header):  # a name twice: which column is meant?
                seen = set()
                dup = next(n for n in header if n in seen or seen.add(n))
                raise InputError(path, 1, "column %r twice in the header" %
                                 (dup if len(dup) <= 40 else dup[:37] + "..."))
            if "size_bytes" not in col or not ("slowdown" in col or
                                               ("fct_ns" in col and "ideal_fct_ns" in col)):
                raise InputError(path, 1, "header needs size_bytes and slowdown "
                                 "(or fct_ns and ideal_fct_ns)")
            both = "fct_ns" in col and "ideal_fct_ns" in col
            for row in reader:
                line = pos[0]
                if not row:
                    continue
                if len(row) != len(header):
                    raise InputError(path, line, "expected %d fields, got %d" %
                                     (len(header), len(row)))
                size = _count(path, line, "size_bytes", row[col["size_bytes"]])
                sd = nan
                if both:
                    fct, ideal = row[col["fct_ns"]], row[col["ideal_fct_ns"]]
                    if fct and ideal:
                        fct = _count(path, line, "fct_ns", fct)
                        ideal = _count(path, line, "ideal_fct_ns", ideal)
                        if ideal > 0:
                            sd = fct / ideal
                elif row[col["slowdown"]]:
                    sd = _value(path, line, "slowdown", row[col["slowdown"]])
                    if sd < 0:
                        raise InputError(path, line, "slowdown %r is negative" %
                                         row[col["slowdown"]])
                if len(out.size) >= limits.MAX_FLOWS:
                    raise InputError(path, line, "more than %d flows (the limit)" %
                                     limits.MAX_FLOWS)
                out.size.append(size)
                out.slowdown.append(sd)
        except csv.Error as e:
            raise InputError(path, pos[0], "malformed CSV: %s" % e) from None
    return out


def _count(path, line, what, text):
    """A non-negative integer of flows.csv, 0 .. 2^63-1."""
    if not (text.isascii() and text.isdigit()) or len(text) > 19 or int(text) > INT64_MAX:
        raise InputError(path, line, "%s %r is not an integer 0 .. %d" %
                         (what, text if len(text) <= 40 else text[:37] + "...", INT64_MAX))
    return int(text)


def _guess_interval(run):
    """Most timeline series step by the interval: the smallest positive step."""
    best = None
    for s in list(run.timeline.values())[:50]:
        for a, b in zip(s.t, s.t[1:]):
            d = b - a
            if d > 0 and (best is None or d < best):
                best = d
    return best
