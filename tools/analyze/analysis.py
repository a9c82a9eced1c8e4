"""From a Run (readers.py) to what the report shows: the plotted series
(capped to the busiest N) and the run's summary figures. Uses metrics.py for
every definition."""

import numpy as np

from . import metrics

TOP_THROUGHPUT = 16
TOP_QUEUES = 8
TOP_PFC_ROWS = 24
TOP_QPS = 20


def time_unit(run):
    """("us", 1e3) or ("ms", 1e6): ms when the run spans 2 ms or more."""
    span = (run.end_ns or 0) - (run.t0_ns or 0)
    return ("ms", 1e6) if span >= 2_000_000 else ("us", 1e3)


def _arr(series):
    return np.frombuffer(series.t, dtype=np.int64), np.frombuffer(series.v, dtype=np.float64)


def _member_series(run, sw, port, group):
    """(t_ns, bits per second, bytes per interval) of a group member from the
    timeline: tx_bps, else tx_bytes, else group.<g>.load_bps; None if absent."""
    tl = run.timeline
    iv = run.interval_ns or 0
    load = tl.get((sw, port, "", "group.%s.load_bps" % group))
    txb = tl.get((sw, port, "", "tx_bytes"))
    bps = tl.get((sw, port, "", "tx_bps"))
    if load is None and bps is None and txb is None:
        return None
    # What the member really sent in each interval; the engines' load EWMA
    # (smoothed, lagging) only when the timeline has nothing better.
    if bps is not None:
        t, rate = _arr(bps)
    elif txb is not None:
        t, b = _arr(txb)
        rate = b * 8e9 / iv if iv else b * 0
    else:
        t, rate = _arr(load)
    if txb is not None:
        tb, by = _arr(txb)
    else:
        tb, by = t, rate * iv / 8e9
    return t, rate, tb, by


def throughput(run):
    """Per group member: {label, group, t_ns, bps, bytes}; the busiest first."""
    out = []
    for sw, g, members in run.groups():
        for port in members:
            s = _member_series(run, sw, port, g)
            if s is None:
                continue
            t, rate, tb, by = s
            out.append({"label": "%s %s" % (run.port_label(sw, port), g), "switch": sw,
                        "group": g, "port": port, "t_ns": t, "bps": rate,
                        "tb_ns": tb, "bytes": by, "total": float(by.sum())})
    out.sort(key=lambda s: -s["total"])
    return out


def imbalance(run, members_series=None):
    """Per (switch, group): windows, max/mean and Jain over the members'
    tx_bytes per interval (a member without a row in a window sent 0)."""
    series = members_series if members_series is not None else throughput(run)
    by_group = {}
    for s in series:
        by_group.setdefault((s["switch"], s["group"]), []).append(s)
    out = []
    for (sw, g), ss in sorted(by_group.items()):
        n_members = len([m for (sw2, g2, mm) in run.groups() if (sw2, g2) == (sw, g) for m in mm])
        grid = np.unique(np.concatenate([s["tb_ns"] for s in ss]))
        mat = np.zeros((max(n_members, len(ss)), grid.size))
        for i, s in enumerate(ss):
            idx = np.searchsorted(grid, s["tb_ns"])
            np.add.at(mat[i], idx, s["bytes"])
        mom, jain, busy = metrics.imbalance_windows(mat)
        out.append({"label": "%s %s" % (sw, g) if sw else g, "switch": sw, "group": g,
                    "members": mat.shape[0], "t_ns": grid[busy], "max_over_mean": mom,
                    "jain": jain})
    return out


def queues(run):
    """Queue depth series per (switch, port, class): the TOP_QUEUES deepest."""
    out = []
    for (sw, port, cls, metric), s in run.timeline.items():
        if metric != "queue_bytes":
            continue
        t, v = _arr(s)
        peak_s = run.timeline.get((sw, port, cls, "queue_peak_bytes"))
        peak = _arr(peak_s) if peak_s is not None else None
        top = max(float(v.max()) if v.size else 0.0,
                  float(peak[1].max()) if peak is not None and peak[1].size else 0.0)
        out.append({"label": "%s class %s" % (run.port_label(sw, port), cls), "switch": sw,
                    "port": port, "class": cls, "t_ns": t, "bytes": v, "peak": peak,
                    "max": top})
    out.sort(key=lambda q: -q["max"])
    return out


def pfc_rows(run):
    """Bars of the PFC timeline: [{label, kind, intervals [(s, e) ns], total_ns}].
    kind "paused": the switch's egress class was paused by the peer (it
    received PFC); "xoff": the switch asserted XOFF toward the port (it sent
    PFC). From events' pfc_rx/pfc_tx frames when there are any, else from
    the timeline's pfc_paused/pfc_xoff states."""
    rows = []
    if run.pfc_frames:
        source = "events"
        for (sw, port, kind, prio), fr in run.pfc_frames.items():
            # In time order; frames at the same time keep the file's order.
            t = np.frombuffer(fr.t, dtype=np.int64)
            order = np.argsort(t, kind="stable")
            q = np.frombuffer(fr.quanta, dtype=np.uint16)[order]
            frames = zip(map(int, t[order]), map(int, q))
            iv = metrics.pause_intervals(frames, run.speed_bps(sw, port), run.end_ns)
            rows.append(_pfc_row(run, sw, port, kind, prio, iv))
    else:
        source = "timeline"
        for (sw, port, cls, metric), s in run.timeline.items():
            if metric not in ("pfc_paused", "pfc_xoff"):
                continue
            kind = "paused" if metric == "pfc_paused" else "xoff"
            iv = metrics.state_intervals(s.t, s.v, run.interval_ns or 0)
            rows.append(_pfc_row(run, sw, port, kind, cls, iv))
    rows = [r for r in rows if r["intervals"]]
    rows.sort(key=lambda r: (-r["total_ns"], r["label"]))
    return rows, source


def _pfc_row(run, sw, port, kind, prio, intervals):
    what = "paused by peer" if kind == "paused" else "XOFF sent"
    return {"label": "%s p%s %s" % (run.port_label(sw, port), prio, what), "switch": sw,
            "port": port, "priority": prio, "kind": kind, "intervals": intervals,
            "total_ns": float(sum(e - s for s, e in intervals))}


def sojourn(run):
    """{class: sorted np.array of sojourn_ns}."""
    return {c: np.sort(np.frombuffer(a, dtype=np.int64)) for c, a in sorted(run.sojourn.items())}


def slowdown(run):
    return metrics.slowdown_by_bucket(run.flows) if run.flows is not None else None


def _timeline_sum(run, metric, per_port_only=False):
    total, found = 0.0, False
    for (sw, port, cls, m), s in run.timeline.items():
        if m == metric and (not per_port_only or cls == ""):
            total += float(sum(s.v))
            found = True
    return total if found else None


def _counters_sum(run, getter):
    if not run.counters:
        return None
    total = 0
    for doc in run.counters.values():
        for p in doc.get("ports", []):
            total += getter(p)
    return total


def totals(run):
    """ECN marks, PFC frames sent/received, drops: {name: (value, source)}."""
    out = {}

    def pick(name, counters_get, tl_metric, ev_value, per_port_only=False):
        v = None
        if run.counters:
            try:
                v = (_counters_sum(run, counters_get), "counters.json")
            except (TypeError, AttributeError):
                v = None
        if v is None and run.timeline:
            s = _timeline_sum(run, tl_metric, per_port_only)
            if s is not None:
                v = (s, "timeline.csv")
        if v is None and ev_value is not None:
            v = (ev_value, "events.jsonl")
        out[name] = v if v is not None else (None, None)

    ev = run.event_counts if run.event_counts else None
    pick("ecn_marks",
         lambda p: sum(q.get("wred_ecn_marked_packets", 0) for q in p.get("queues", [])),
         "ecn_marks", ev.get("mark", 0) if ev else None)
    pick("pfc_frames_sent", lambda p: sum((p.get("pfc") or {}).get("pfc_tx_frames", []) or []),
         "pfc_tx_frames", ev.get("pfc_tx", 0) if ev else None)
    pick("pfc_frames_received",
         lambda p: sum((p.get("pfc") or {}).get("pfc_rx_frames", []) or []),
         "pfc_rx_frames", ev.get("pfc_rx", 0) if ev else None)
    pick("drops", lambda p: p.get("drops_total", 0), "drops",
         sum(run.event_drops.values()) if ev else None, per_port_only=True)
    return out


def reordering(run):
    """(total, qps, top [(label, count)], source, max_gap)."""
    tr = run.reorder
    if tr is not None and tr.packets:
        top = [("%s qp %d" % (dst or "?", qp), c) for (dst, qp), c in tr.top(TOP_QPS)]
        return {"reordered_packets": tr.reordered, "qps": tr.qps(), "roce_packets": tr.packets,
                "max_psn_gap": tr.max_gap, "top": top, "source": run.reorder_source}
    for doc in run.counters.values():
        r = doc.get("reordering")
        if isinstance(r, dict):
            return {"reordered_packets": r.get("reordered_packets"), "qps": r.get("qps"),
                    "roce_packets": r.get("roce_packets"), "max_psn_gap": r.get("max_psn_gap"),
                    "top": [], "source": "counters.json (totals only)"}
    return None


def summarize(run, thr, imb, soj, pfc, reo, sd):
    """The run's summary.json entry."""
    s = {"name": run.name, "path": run.path, "kind": run.kind, "files": run.files,
         "t0_ns": run.t0_ns, "end_ns": run.end_ns, "interval_ns": run.interval_ns,
         "timeline_rows": run.timeline_rows, "event_lines": sum(run.event_counts.values())}
    moms = np.concatenate([g["max_over_mean"] for g in imb]) if imb else np.zeros(0)
    jains = np.concatenate([g["jain"] for g in imb]) if imb else np.zeros(0)
    whole = []
    for g in imb:
        per_member = {}
        for t in thr:
            if (t["switch"], t["group"]) == (g["switch"], g["group"]):
                per_member[t["port"]] = t["total"]
        vals = list(per_member.values()) + [0.0] * (g["members"] - len(per_member))
        r = metrics.imbalance(vals)
        whole.append({"group": g["label"], "members": g["members"],
                      "max_over_mean": r[0] if r else None, "jain": r[1] if r else None})
    if not whole:  # no timeline: the counters' member bytes over the whole run
        for sw, doc in run.counters.items():
            for g in doc.get("groups", []) or []:
                vals = [m.get("bytes", 0) for m in g.get("members", [])]
                r = metrics.imbalance(vals)
                whole.append({"group": "%s %s" % (sw, g.get("name")), "members": len(vals),
                              "max_over_mean": r[0] if r else None,
                              "jain": r[1] if r else None, "source": "counters.json"})
    s["uplink_imbalance"] = {
        "windows": int(moms.size),
        "mean_max_over_mean": float(moms.mean()) if moms.size else None,
        "p99_max_over_mean": metrics.percentile(moms, 99) if moms.size else None,
        "mean_jain": float(jains.mean()) if jains.size else None,
        "whole_run": whole,
    }
    allsoj = np.sort(np.concatenate(list(soj.values()))) if soj else np.zeros(0)
    s["sojourn_us"] = {
        "packets": int(allsoj.size),
        "p50": metrics.nearest_rank(allsoj, 50) / 1e3 if allsoj.size else None,
        "p99": metrics.nearest_rank(allsoj, 99) / 1e3 if allsoj.size else None,
        "max": float(allsoj[-1]) / 1e3 if allsoj.size else None,
        "per_class": {str(c): {"packets": int(a.size),
                               "p50": metrics.nearest_rank(a, 50) / 1e3,
                               "p99": metrics.nearest_rank(a, 99) / 1e3} for c, a in soj.items()
                      if a.size},
    }
    s["reordering"] = {k: v for k, v in reo.items() if k != "top"} if reo else None
    tot = totals(run)
    for k, (v, src) in tot.items():
        s[k] = v
        s[k + "_source"] = src
    rows, src = pfc
    s["pfc_time_us"] = {
        "paused_by_peer": sum(r["total_ns"] for r in rows if r["kind"] == "paused") / 1e3,
        "xoff_asserted": sum(r["total_ns"] for r in rows if r["kind"] == "xoff") / 1e3,
        "source": src if rows else None}
    s["fct_slowdown"] = sd
    if isinstance(run.fabric_summary, dict):
        nics = run.fabric_summary.get("nics") or {}
        s["nic_out_of_order_received"] = nics.get("out_of_order_received")
        s["nic_retransmitted_packets"] = nics.get("retransmitted_packets")
    return s


def analyze(run):
    thr = throughput(run)
    imb = imbalance(run, thr)
    soj = sojourn(run)
    pfc = pfc_rows(run)
    reo = reordering(run)
    sd = slowdown(run)
    q = queues(run)
    summary = summarize(run, thr, imb, soj, pfc, reo, sd)
    return {"run": run, "throughput": thr, "imbalance": imb, "sojourn": soj, "pfc": pfc,
            "reordering": reo, "slowdown": sd, "queues": q, "thresholds": run.thresholds(),
            "unit": time_unit(run), "summary": summary}
