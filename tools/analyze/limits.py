"""What rocelb-analyze will read, and the bounded readers that hold it to
that. Every refusal is an InputError naming the file, where in it, and the
rule or limit (tools/analyze/README.md, "Limits").

Knobs: MAX_INPUT_BYTES (--max-input): the largest input file. The others
are fixed: a JSON document (run.json, counters, summary.json) at most
MAX_JSON_BYTES, one CSV/JSONL line at most MAX_LINE_BYTES, JSON nested at
most MAX_JSON_DEPTH levels, integers within their field's range, numbers
finite (no NaN, no Infinity), at most MAX_SERIES timeline series,
MAX_QPS queue pairs in the reordering tracker, MAX_PFC_ENTRIES PFC frame
entries, MAX_FLOWS flows, MAX_NAMES distinct event kinds or drop reasons,
pcap records of at most MAX_PCAP_RECORD bytes."""

import json
import math
import os
import stat

from .errors import InputError

MAX_INPUT_BYTES = 4 << 30       # one streamed file (timeline, events, flows, a pcap)
MAX_JSON_BYTES = 64 << 20       # one JSON document, read whole
MAX_LINE_BYTES = 1 << 20        # one line of a CSV or JSONL file
MAX_JSON_DEPTH = 64
MAX_NAME_CHARS = 256            # a switch, metric, class or reason name
MAX_SERIES = 200_000            # timeline (switch, port, class, metric) series
MAX_QPS = 1_000_000             # (switch, addresses, QP) the reordering tracker follows
MAX_PFC_ENTRIES = 2_000_000     # (time, quanta) pairs of PFC frames kept for the timeline
MAX_NAMES = 256                 # distinct event kinds, drop reasons
MAX_FLOWS = 10_000_000          # rows of flows.csv
MAX_PCAP_RECORD = 256 << 10     # one pcap record / pcapng block

INT64_MAX = (1 << 63) - 1
UINT64_MAX = (1 << 64) - 1


def human_bytes(n):
    for unit, size in (("GiB", 1 << 30), ("MiB", 1 << 20), ("KiB", 1 << 10)):
        if n >= size:
            v = n / size
            return ("%d %s" % (v, unit)) if v == int(v) else ("%.3g %s" % (v, unit))
    return "%d B" % n


def parse_size(text):
    """'4GiB', '500M', '1e9' -> bytes; ValueError on anything else."""
    t = text.strip().lower().replace(" ", "")
    mult = 1
    for suffix, m in (("gib", 1 << 30), ("mib", 1 << 20), ("kib", 1 << 10), ("gb", 10**9),
                      ("mb", 10**6), ("kb", 10**3), ("g", 1 << 30), ("m", 1 << 20),
                      ("k", 1 << 10), ("b", 1)):
        if t.endswith(suffix):
            t, mult = t[:-len(suffix)], m
            break
    v = float(t)
    if not math.isfinite(v) or v <= 0:
        raise ValueError(text)
    return int(v * mult)


def check_file(path, limit, what="an input file"):
    """A regular file no bigger than `limit` bytes (a FIFO or a device would
    block or never end; a directory is not a file). Returns its size."""
    try:
        st = os.stat(path)
    except OSError as e:
        raise InputError(path, None, e.strerror) from None
    if not stat.S_ISREG(st.st_mode):
        kind = ("a directory" if stat.S_ISDIR(st.st_mode) else
                "a FIFO" if stat.S_ISFIFO(st.st_mode) else
                "a device" if stat.S_ISCHR(st.st_mode) or stat.S_ISBLK(st.st_mode) else
                "a socket" if stat.S_ISSOCK(st.st_mode) else "not a file")
        raise InputError(path, None, "is %s, not a regular file" % kind)
    if st.st_size > limit:
        raise InputError(path, None, "%s is %s, over the %s limit for %s (--max-input)" %
                         (os.path.basename(path), human_bytes(st.st_size), human_bytes(limit),
                          what))
    return st.st_size


def _too_long(path, n):
    return InputError(path, n, "line longer than %s (the limit for one line)" %
                      human_bytes(MAX_LINE_BYTES))


def text_lines(f, path, require_newline=True):
    """(line number, str without its newline) of a file opened in binary
    mode, read in blocks: UTF-8 (an error names the line and column), each
    line at most MAX_LINE_BYTES, and every line ending in a newline (a last
    line without one is a truncated file)."""
    n = 0
    rest = b""
    while True:
        block = f.read(MAX_LINE_BYTES)
        if not block:
            break
        data = rest + block if rest else block
        cut = data.rfind(b"\n") + 1
        rest = data[cut:]
        if len(rest) > MAX_LINE_BYTES:
            raise _too_long(path, n + data.count(b"\n") + 1)
        if not cut:
            continue
        try:
            text = data[:cut].decode("utf-8")
        except UnicodeDecodeError as e:
            line_start = data.rfind(b"\n", 0, e.start) + 1
            raise InputError(path, n + data.count(b"\n", 0, e.start) + 1,
                             "not UTF-8 text (byte 0x%02x at column %d)" %
                             (data[e.start], e.start - line_start + 1)) from None
        lines = text.split("\n")
        lines.pop()  # after the last newline
        if len(text) > MAX_LINE_BYTES and max(map(len, lines)) > MAX_LINE_BYTES:
            raise _too_long(path, n + 1 + next(i for i, x in enumerate(lines)
                                               if len(x) > MAX_LINE_BYTES))
        for line in lines:
            n += 1
            yield n, line
    if rest:
        if require_newline:
            raise InputError(path, n + 1, "the file ends in the middle of this line "
                             "(truncated: every line ends with a newline)")
        try:
            yield n + 1, rest.decode("utf-8")
        except UnicodeDecodeError as e:
            raise InputError(path, n + 1, "not UTF-8 text (byte 0x%02x at column %d)" %
                             (rest[e.start], e.start + 1)) from None


def _bad_constant(name):
    raise ValueError("%s is not a number JSON allows" % name)


def _finite_float(text):
    v = float(text)
    if not math.isfinite(v):
        raise ValueError("%s is out of the range of a double" % text)
    return v


class DuplicateKey(ValueError):
    """A key an object already has (Python's json keeps the last silently)."""


def _object(pairs):
    d = dict(pairs)
    if len(d) != len(pairs):
        seen = set()
        for k, _ in pairs:
            if k in seen:
                raise DuplicateKey(k)
            seen.add(k)
    return d


decoder = json.JSONDecoder(parse_constant=_bad_constant, parse_float=_finite_float,
                           object_pairs_hook=_object)


def json_depth(v):
    """Nesting levels of a parsed JSON value (a scalar: 0), without recursion."""
    depth = 0
    stack = [(v, 1)]
    while stack:
        o, d = stack.pop()
        if isinstance(o, dict):
            o = o.values()
        elif not isinstance(o, list):
            continue
        depth = max(depth, d)
        if d > MAX_JSON_DEPTH:
            return d
        stack.extend((x, d + 1) for x in o if isinstance(x, (dict, list)))
    return depth


def loads(text, path, line):
    """One JSON value: no NaN or Infinity, nested at most MAX_JSON_DEPTH
    levels; InputError otherwise. `line` is the line of a JSONL file (None
    for a document: the parser's line is used)."""
    try:
        v = decoder.decode(text)
    except json.JSONDecodeError as e:
        raise InputError(path, line if line is not None else e.lineno,
                         "malformed JSON: %s (column %d)" % (e.msg, e.colno)) from None
    except RecursionError:
        raise InputError(path, line, "JSON nested more than %d levels deep (the limit)" %
                         MAX_JSON_DEPTH) from None
    except DuplicateKey as e:
        name = json.dumps(e.args[0])
        raise InputError(path, line, "duplicate key %s: an object has each key once" %
                         (name if len(name) <= 60 else name[:57] + "...")) from None
    except ValueError as e:  # NaN, Infinity, 1e999, an integer of thousands of digits
        why = str(e)
        if "integer string conversion" in why:
            why = "an integer of more than 4300 digits"
        raise InputError(path, line, "JSON number refused: %s" % why) from None
    return v


def load_json_doc(path, limit=MAX_JSON_BYTES):
    """A whole JSON document: a regular file of at most `limit` bytes, UTF-8,
    within the nesting limit."""
    check_file(path, limit, "a JSON document")
    with open(path, "rb") as f:
        raw = f.read(limit + 1)
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as e:
        line = raw.count(b"\n", 0, e.start) + 1
        col = e.start - (raw.rfind(b"\n", 0, e.start) + 1) + 1
        raise InputError(path, line, "not UTF-8 text (byte 0x%02x at column %d)" %
                         (raw[e.start], col)) from None
    v = loads(text, path, None)
    if json_depth(v) > MAX_JSON_DEPTH:
        raise InputError(path, None, "JSON nested more than %d levels deep (the limit)" %
                         MAX_JSON_DEPTH)
    return v


def int_in(v, lo, hi):
    """v is a JSON integer (not a bool) within lo..hi."""
    return isinstance(v, int) and not isinstance(v, bool) and lo <= v <= hi


def count_names(d, path, line, what):
    """Refuses one more distinct name in `d` past MAX_NAMES."""
    if len(d) >= MAX_NAMES:
        raise InputError(path, line, "more than %d distinct %s (the limit)" % (MAX_NAMES, what))
