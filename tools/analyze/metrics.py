"""The report's figures, as pure functions of small inputs (the tests check
them on hand-made numbers). Definitions are in tools/analyze/README.md."""

import math

import numpy as np

PSN_MASK = 0xFFFFFF
PSN_HALF = 1 << 23
SMALL_BELOW = 100_000       # bytes: fabric_report.cc's split
LARGE_FROM = 1_000_000
BUCKETS = ("small", "medium", "large", "all")
BUCKET_SIZES = {"small": "< 100KB", "medium": "100KB .. 1MB", "large": ">= 1MB", "all": "all"}


def imbalance(values):
    """(max/mean, Jain's fairness index) of the members' bytes in one window,
    or None when nothing was sent. Jain = (sum x)^2 / (n * sum x^2): 1 when
    all members carry the same, 1/n when one carries everything."""
    n = len(values)
    total = float(sum(values))
    if n == 0 or total <= 0:
        return None
    mean = total / n
    squares = float(sum(float(v) * float(v) for v in values))
    return max(values) / mean, total * total / (n * squares)


def imbalance_windows(matrix):
    """matrix: members x windows of bytes. Returns (max_over_mean, jain)
    arrays over the windows with traffic, and the mask of those windows."""
    m = np.asarray(matrix, dtype=float)
    if m.ndim != 2 or m.shape[0] == 0:
        return np.zeros(0), np.zeros(0), np.zeros(0, dtype=bool)
    n = m.shape[0]
    total = m.sum(axis=0)
    busy = total > 0
    mt = m[:, busy]
    tot = total[busy]
    mom = mt.max(axis=0) / (tot / n)
    jain = tot * tot / (n * (mt * mt).sum(axis=0))
    return mom, jain, busy


class ReorderTracker:
    """Per observation point (a switch, its ports merged in departure order)
    and per queue pair (source>destination IP, destination QP): a packet
    whose PSN is behind the highest PSN already seen there for its QP is
    reordered. PSNs are 24-bit: "behind" means 1 to
    2^23 - 1 back (modulo 2^24); the same PSN again is a retransmission, not
    reordering. CNPs are not data and are skipped by the callers."""

    def __init__(self):
        self.highest = {}       # (point, dst, qp) -> highest PSN
        self.per_qp = {}        # (dst, qp) -> reordered packets (all points)
        self.per_point = {}     # point -> reordered packets
        self.packets = 0
        self.reordered = 0
        self.max_gap = 0

    def observe(self, point, dst, qp, psn):
        self.packets += 1
        key = (point, dst, qp)
        top = self.highest.get(key)
        if top is None:
            self.highest[key] = psn
            self.per_qp.setdefault((dst, qp), 0)
            return False
        ahead = (psn - top) & PSN_MASK
        if ahead == 0:
            return False
        if ahead < PSN_HALF:
            self.highest[key] = psn
            return False
        gap = (top - psn) & PSN_MASK
        self.reordered += 1
        self.max_gap = max(self.max_gap, gap)
        self.per_qp[(dst, qp)] = self.per_qp.get((dst, qp), 0) + 1
        self.per_point[point] = self.per_point.get(point, 0) + 1
        return True

    def qps(self):
        return len(self.per_qp)

    def top(self, n):
        """The n QPs with the most reordered packets (ties by name)."""
        items = [(c, k) for k, c in self.per_qp.items() if c > 0]
        items.sort(key=lambda ck: (-ck[0], str(ck[1][0]), ck[1][1]))
        return [(k, c) for c, k in items[:n]]


def nearest_rank(sorted_values, pct):
    """The pct-th percentile by nearest rank (as fabric_report.cc)."""
    n = len(sorted_values)
    if n == 0:
        return None
    rank = int(math.ceil(pct / 100.0 * n))
    rank = min(max(rank, 1), n)
    return float(sorted_values[rank - 1])


def size_bucket(size_bytes):
    if size_bytes < SMALL_BELOW:
        return "small"
    return "medium" if size_bytes < LARGE_FROM else "large"


def slowdown_stats(slowdowns, unfinished=0):
    """count, unfinished, average, p50, p95, p99 of a list of slowdowns."""
    v = sorted(slowdowns)
    out = {"count": len(v), "unfinished": unfinished,
           "average": None, "p50": None, "p95": None, "p99": None}
    if v:
        out["average"] = sum(v) / len(v)
        for p in (50, 95, 99):
            out["p%d" % p] = nearest_rank(v, p)
    return out


def slowdown_by_bucket(flows):
    """flows: iterable of (size_bytes, slowdown or None for unfinished).
    Returns {bucket: slowdown_stats} for small, medium, large and all."""
    vals = {b: [] for b in BUCKETS}
    unfinished = {b: 0 for b in BUCKETS}
    for size, sd in flows:
        for b in (size_bucket(size), "all"):
            if sd is None:
                unfinished[b] += 1
            else:
                vals[b].append(sd)
    out = {}
    for b in BUCKETS:
        out[b] = slowdown_stats(vals[b], unfinished[b])
        out[b]["sizes"] = BUCKET_SIZES[b]
    return out


def cdf(values):
    """(x sorted, F(x)) with F the fraction of values <= x: the empirical CDF."""
    x = np.sort(np.asarray(values, dtype=float))
    if x.size == 0:
        return x, x
    return x, np.arange(1, x.size + 1) / x.size


def cdf_points(values, points=400):
    """The empirical CDF thinned to at most `points` steps (quantiles), for
    plotting; exact when there are fewer values."""
    x, y = cdf(values)
    if x.size <= points:
        return x, y
    idx = np.unique(np.linspace(0, x.size - 1, points).round().astype(int))
    return x[idx], y[idx]


def percentile(values, pct):
    v = np.sort(np.asarray(values, dtype=float))
    return nearest_rank(v, pct) if v.size else None


def state_intervals(times, values, interval_ns):
    """Bars from state samples: a sample at t with value != 0 means the state
    held during (t - interval, t]. Adjacent samples merge. Returns
    [(start, end)] in the same clock."""
    out = []
    for t, v in zip(times, values):
        if not v:
            continue
        start = t - interval_ns
        if out and out[-1][1] >= start:
            out[-1] = (out[-1][0], t)
        else:
            out.append((start, t))
    return out


def pause_intervals(frames, speed_bps, end_ns):
    """PFC frames of one priority, [(t_ns, quanta)] in time order, to pause
    intervals: a frame with quanta q > 0 pauses from t for q * 512 bit times
    at speed_bps (a later frame replaces the running pause; q = 0 is XON and
    ends it). Returns [(start, end)] merged, clipped at end_ns."""
    out = []
    cur = None  # (start, expiry)
    for t, q in frames:
        if cur is not None and cur[1] < t:
            out.append(cur)
            cur = None
        if q > 0:
            expiry = t + q * 512 * 1e9 / speed_bps
            cur = (t if cur is None else cur[0], expiry)
        elif cur is not None:
            out.append((cur[0], t))
            cur = None
    if cur is not None:
        out.append(cur)
    merged = []
    for s, e in out:
        e = min(e, end_ns) if end_ns is not None else e
        if e <= s:
            continue
        if merged and merged[-1][1] >= s:
            merged[-1] = (merged[-1][0], max(merged[-1][1], e))
        else:
            merged.append((s, e))
    return merged
