"""The JSON documents of a run directory (run.json, counters.json and
<switch>.counters.json, summary.json): read whole within the limits
(limits.load_json_doc) and checked for the shape and ranges the report
relies on. A problem names the file and the key path, e.g.
`counters.json:ports[3].speed_bps: must be an integer 0 .. 18446744073709551615 (got -1)`."""

from .errors import InputError
from .limits import INT64_MAX, MAX_NAME_CHARS, UINT64_MAX, int_in, load_json_doc

PORT_MAX = 65535
CLASS_MAX = 7


class _Doc:
    """Checks on one document; every failure names the key path."""

    def __init__(self, path):
        self.path = path

    def fail(self, where, rule, v=None, show=True):
        got = ""
        if show:
            r = repr(v)
            got = " (got %s)" % (r if len(r) <= 40 else r[:37] + "...")
        raise InputError(self.path, where or None, "%s%s" % (rule, got))

    def obj(self, where, v):
        if not isinstance(v, dict):
            self.fail(where, "must be a JSON object", type(v).__name__, show=True)
        return v

    def lst(self, where, v):
        if not isinstance(v, list):
            self.fail(where, "must be a list", type(v).__name__)
        return v

    def integer(self, where, v, lo=0, hi=UINT64_MAX):
        if not int_in(v, lo, hi):
            self.fail(where, "must be an integer %d .. %d" % (lo, hi), v)
        return v

    def number(self, where, v, lo, hi):
        if isinstance(v, bool) or not isinstance(v, (int, float)) or not lo <= v <= hi:
            self.fail(where, "must be a number %g .. %g" % (lo, hi), v)
        return v

    def string(self, where, v):
        if not isinstance(v, str) or len(v) > MAX_NAME_CHARS:
            self.fail(where, "must be a string of at most %d characters" % MAX_NAME_CHARS, v)
        return v

    # Optional members of an object: absent or null is fine.
    def opt_int(self, o, where, key, lo=0, hi=UINT64_MAX):
        if o.get(key) is not None:
            self.integer(_at(where, key), o[key], lo, hi)

    def opt_str(self, o, where, key):
        if o.get(key) is not None:
            self.string(_at(where, key), o[key])

    def opt_list(self, o, where, key):
        v = o.get(key)
        return [] if v is None else self.lst(_at(where, key), v)

    def opt_obj(self, o, where, key):
        v = o.get(key)
        return {} if v is None else self.obj(_at(where, key), v)


def _at(where, key):
    return "%s.%s" % (where, key) if where else key


def read_run_json(path):
    """run.json: kind, clock and the switches (ports, groups, ECN and PFC
    thresholds). Returns the document."""
    d = _Doc(path)
    doc = load_json_doc(path)
    if not isinstance(doc, dict):
        raise InputError(path, 1, "not a JSON object")
    kind = doc.get("kind")
    if kind not in ("replay", "fabric"):
        d.fail("kind", "must be \"replay\" or \"fabric\" (a run.json of rocelb-dp replay or "
               "fabric)", kind)
    d.opt_int(doc, "", "t0_ns", 0, INT64_MAX)
    d.opt_int(doc, "", "end_ns", 0, INT64_MAX)
    d.opt_int(doc, "", "interval_ns", 1, INT64_MAX)
    t0, end = doc.get("t0_ns"), doc.get("end_ns")
    if t0 is not None and end is not None and end < t0:
        d.fail("end_ns", "must not be before t0_ns (%d)" % t0, end)
    for i, s in enumerate(d.opt_list(doc, "", "switches")):
        _switch(d, "switches[%d]" % i, s)
    return doc


def _switch(d, where, s):
    d.obj(where, s)
    d.opt_str(s, where, "name")
    for i, p in enumerate(d.opt_list(s, where, "ports")):
        w = "%s.ports[%d]" % (where, i)
        d.obj(w, p)
        d.integer(w + ".id", p.get("id"), 0, PORT_MAX)
        d.opt_str(p, w, "name")
        d.opt_int(p, w, "speed_bps")
    for i, g in enumerate(d.opt_list(s, where, "groups")):
        w = "%s.groups[%d]" % (where, i)
        d.obj(w, g)
        d.opt_str(g, w, "name")
        d.opt_str(g, w, "mode")
        for k, m in enumerate(d.opt_list(g, w, "members")):
            d.integer("%s.members[%d]" % (w, k), m, 0, PORT_MAX)
    for i, e in enumerate(d.opt_list(s, where, "ecn")):
        w = "%s.ecn[%d]" % (where, i)
        d.obj(w, e)
        d.integer(w + ".class", e.get("class"), 0, CLASS_MAX)
        d.opt_int(e, w, "min_bytes")
        d.opt_int(e, w, "max_bytes")
        if e.get("max_probability") is not None:
            d.number(w + ".max_probability", e["max_probability"], 0, 1)
    pfc = d.opt_obj(s, where, "pfc")
    w = _at(where, "pfc")
    for i, c in enumerate(d.opt_list(pfc, w, "classes")):
        d.integer("%s.classes[%d]" % (w, i), c, 0, CLASS_MAX)
    d.opt_int(pfc, w, "xoff_bytes")
    d.opt_int(pfc, w, "xon_bytes")


def read_counters(path):
    """counters.json or <switch>.counters.json: what the report reads of it
    (ports with their queues' ECN marks, PFC frames and drops; groups'
    member bytes; the reordering totals; the first timestamp)."""
    d = _Doc(path)
    doc = load_json_doc(path)
    if not isinstance(doc, dict) or not isinstance(doc.get("ports", []), list):
        raise InputError(path, 1, "not a counters document (an object with a \"ports\" list)")
    for i, p in enumerate(d.opt_list(doc, "", "ports")):
        w = "ports[%d]" % i
        d.obj(w, p)
        d.integer(w + ".id", p.get("id"), 0, PORT_MAX)
        d.opt_str(p, w, "name")
        d.opt_int(p, w, "speed_bps")
        d.opt_int(p, w, "drops_total")
        for k, q in enumerate(d.opt_list(p, w, "queues")):
            wq = "%s.queues[%d]" % (w, k)
            d.obj(wq, q)
            d.opt_int(q, wq, "wred_ecn_marked_packets")
        pfc = d.opt_obj(p, w, "pfc")
        for key in ("pfc_tx_frames", "pfc_rx_frames"):
            for k, v in enumerate(d.opt_list(pfc, w + ".pfc", key)):
                d.integer("%s.pfc.%s[%d]" % (w, key, k), v)
    for i, g in enumerate(d.opt_list(doc, "", "groups")):
        w = "groups[%d]" % i
        d.obj(w, g)
        d.opt_str(g, w, "name")
        for k, m in enumerate(d.opt_list(g, w, "members")):
            wm = "%s.members[%d]" % (w, k)
            d.obj(wm, m)
            d.opt_int(m, wm, "port", 0, PORT_MAX)
            d.opt_int(m, wm, "bytes")
    r = d.opt_obj(doc, "", "reordering")
    for key in ("reordered_packets", "qps", "roce_packets", "max_psn_gap"):
        d.opt_int(r, "reordering", key)
    d.opt_int(d.opt_obj(doc, "", "time"), "time", "first_ns", 0, INT64_MAX)
    return doc


def read_summary(path):
    """A fabric's summary.json: an object; the NIC totals the report copies
    are integers."""
    d = _Doc(path)
    doc = load_json_doc(path)
    if not isinstance(doc, dict):
        raise InputError(path, 1, "not a JSON object")
    nics = d.opt_obj(doc, "", "nics")
    for key in ("out_of_order_received", "retransmitted_packets"):
        d.opt_int(nics, "nics", key)
    return doc
