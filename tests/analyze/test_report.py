"""rocelb-analyze end to end: the page, summary.json and CSVs of one run,
the comparison of two, graceful degradation, and bad input (exit 2)."""

import json
import os
import re
import shutil
import tempfile
import unittest

from common import report_index, run_tool
import fixtures


def line_count(path):
    with open(path) as f:
        return sum(1 for _ in f)


class ReportTest(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.mkdtemp(prefix="analyze_test_")

    def tearDown(self):
        shutil.rmtree(self.tmp, ignore_errors=True)

    def d(self, *p):
        return os.path.join(self.tmp, *p)

    def check_page(self, path):
        with open(path, encoding="utf-8") as f:
            text = f.read()
        self.assertLess(len(text), 5_000_000)
        self.assertNotRegex(text, r'(src|href)="(https?:)?//')  # nothing fetched
        index = report_index(text)
        for p in index["plots"]:
            m = re.search(r'<figure id="%s" data-plot="%s"[^>]*>(.*?)</figure>' %
                          (re.escape(p["id"]), re.escape(p["plot"])), text, re.S)
            self.assertIsNotNone(m, p["id"])
            self.assertTrue(re.search(r"<svg[^>]*>.*<path", m.group(1), re.S),
                            "%s: no SVG with paths" % p["id"])
            for c in p["csv"]:
                self.assertTrue(os.path.getsize(os.path.join(os.path.dirname(path), c)) > 0, c)
        self.assertEqual(len(re.findall(r"<figure ", text)), len(index["plots"]))
        return text, index

    def test_one_replay_run(self):
        run = fixtures.make_replay(self.d("fixed"))
        rc, out, err = run_tool(run)
        self.assertEqual(rc, 0, err)
        report = out.strip().splitlines()[-1]
        self.assertEqual(report, os.path.join(run, "report.html"))
        text, index = self.check_page(report)
        kinds = [p["plot"] for p in index["plots"]]
        self.assertEqual(kinds, ["throughput", "queue", "pfc", "sojourn", "imbalance", "reorder"])
        self.assertIn('id="plot-throughput"', text)
        with open(self.d("fixed", "report_data", "summary.json")) as f:
            s = json.load(f)["runs"][0]
        self.assertEqual(s["name"], "fixed")
        self.assertAlmostEqual(s["uplink_imbalance"]["mean_max_over_mean"], 3.0)
        self.assertEqual(s["reordering"]["source"], "events")
        self.assertEqual(s["pfc_time_us"]["paused_by_peer"], 100.0)   # pfc_rx XOFF .. XON
        self.assertEqual(s["pfc_time_us"]["xoff_asserted"], 50.0)
        # Threshold lines are drawn.
        self.assertIn("class 3 ECN min (100 KB)", text)
        self.assertIn("class 3 PFC xoff (600 KB)", text)

    def test_pcaps_when_no_events_and_timeline_pfc(self):
        run = fixtures.make_replay(self.d("r"), with_events=False)
        os.makedirs(self.d("x"))
        rc, out, err = run_tool(run, "--out", self.d("x", "r.html"))
        self.assertEqual(rc, 0, err)
        with open(self.d("x", "r_data", "summary.json")) as f:
            s = json.load(f)["runs"][0]
        self.assertEqual(s["reordering"]["source"], "pcap")
        self.assertEqual(s["reordering"]["reordered_packets"], 1)
        self.assertEqual(s["pfc_time_us"]["source"], "timeline")
        self.assertEqual(s["pfc_time_us"]["paused_by_peer"], 100.0)    # 10 intervals of 10 us
        text, index = self.check_page(self.d("x", "r.html"))
        self.assertIn("skip", [m for m in re.findall(r'class="(skip)"', text)])  # sojourn
        self.assertIn("Sojourn time CDF", [s["section"] for s in index["skipped"]])

    def test_old_dir_degrades(self):
        # Only counters.json (an old replay directory): no plots, but notes
        # and the summary from the counters.
        os.makedirs(self.d("old"))
        with open(self.d("old", "counters.json"), "w") as f:
            json.dump(fixtures.counters_json(fixtures.switch_json()["ports"], [3, 1, 0, 0], 5), f)
        rc, out, err = run_tool(self.d("old"))
        self.assertEqual(rc, 0, err)
        text, index = self.check_page(out.strip().splitlines()[-1])
        self.assertEqual(index["plots"], [])
        self.assertGreaterEqual(len(index["skipped"]), 5)
        with open(self.d("old", "report_data", "summary.json")) as f:
            s = json.load(f)["runs"][0]
        self.assertEqual(s["reordering"]["reordered_packets"], 5)
        self.assertAlmostEqual(s["uplink_imbalance"]["whole_run"][0]["jain"], 0.4)

    def test_two_runs_compared(self):
        a = fixtures.make_replay(self.d("out", "fixed"))
        b = fixtures.make_fabric(self.d("out", "drill"), member_ratio=(1, 1, 1, 1))
        rc, out, err = run_tool(a, b, "--out", self.d("cmp.html"))
        self.assertEqual(rc, 0, err)
        self.assertEqual(out.strip().splitlines()[-1], self.d("cmp.html"))
        text, index = self.check_page(self.d("cmp.html"))
        self.assertEqual(index["runs"], ["fixed", "drill"])
        table = re.search(r'<table id="summary-table">(.*?)</table>', text, re.S).group(1)
        rows = re.findall(r'<tr data-run="([^"]+)">(.*?)</tr>', table, re.S)
        self.assertEqual([r[0] for r in rows], ["fixed", "drill"])
        cells = {r[0]: re.findall(r"<td>(.*?)</td>", r[1]) for r in rows}
        self.assertEqual(cells["fixed"][2], "3")     # imbalance max/mean
        self.assertEqual(cells["drill"][2], "1")
        self.assertEqual(cells["drill"][1], "fabric")
        kinds = [p["plot"] for p in index["plots"]]
        for k in ("compare-imbalance", "compare-sojourn", "compare-counts", "compare-slowdown",
                  "slowdown"):
            self.assertIn(k, kinds)
        ids = [p["id"] for p in index["plots"]]
        self.assertEqual(len(ids), len(set(ids)))
        self.assertIn("plot-throughput-fixed", ids)
        self.assertIn("plot-throughput-drill", ids)


class BadInputTest(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.mkdtemp(prefix="analyze_bad_")

    def tearDown(self):
        shutil.rmtree(self.tmp, ignore_errors=True)

    def expect(self, args, *needles):
        rc, out, err = run_tool(*args)
        self.assertEqual(rc, 2, out + err)
        lines = err.strip().splitlines()
        self.assertEqual(len(lines), 1, err)
        for n in needles:
            self.assertIn(n, lines[0])
        return lines[0]

    def test_missing_dir(self):
        self.expect([os.path.join(self.tmp, "nope")], "nope", "no such directory")

    def test_not_a_run_dir(self):
        os.makedirs(os.path.join(self.tmp, "empty"))
        self.expect([os.path.join(self.tmp, "empty")], "empty", "not a run directory")

    def test_bad_second_dir(self):
        good = fixtures.make_replay(os.path.join(self.tmp, "good"), intervals=5, events=10)
        self.expect([good, os.path.join(self.tmp, "gone")], "gone")

    def test_malformed_timeline_row(self):
        d = fixtures.make_replay(os.path.join(self.tmp, "r"), intervals=5, events=10)
        p = os.path.join(d, "timeline.csv")
        with open(p) as f:
            lines = f.readlines()
        lines[2] = "12x,leaf1,4,,tx_bytes,5\n"
        with open(p, "w") as f:
            f.writelines(lines)
        self.expect([d], "timeline.csv:3:", "t_ns '12x' is not an integer")

    def test_timeline_short_row_and_header(self):
        d = fixtures.make_replay(os.path.join(self.tmp, "r"), intervals=5, events=10)
        p = os.path.join(d, "timeline.csv")
        with open(p, "a") as f:
            f.write("1,leaf1,4\n")
        n = line_count(p)
        self.expect([d], "timeline.csv:%d:" % n, "expected 6 fields")
        with open(p, "w") as f:
            f.write("time,switch\n")
        self.expect([d], "timeline.csv:1:", "header")

    def test_malformed_event_line(self):
        d = fixtures.make_replay(os.path.join(self.tmp, "r"), intervals=5, events=10)
        p = os.path.join(d, "events.jsonl")
        with open(p) as f:
            lines = f.readlines()
        lines[4] = lines[4][:-10] + "\n"  # cut short
        with open(p, "w") as f:
            f.writelines(lines)
        self.expect([d], "events.jsonl:5:", "malformed JSON")

    def test_event_missing_field(self):
        d = fixtures.make_replay(os.path.join(self.tmp, "r"), intervals=5, events=10)
        with open(os.path.join(d, "events.jsonl"), "a") as f:
            f.write('{"t_ns":5,"ev":"dequeue","switch":"leaf1","port":4}\n')  # not queued: fine
            f.write('{"t_ns":6,"ev":"dequeue","switch":"leaf1","port":4,"class":3,'
                    '"sojourn_ns":"12"}\n')
        n = line_count(os.path.join(d, "events.jsonl"))
        self.expect([d], "events.jsonl:%d:" % n, "sojourn_ns")

    def test_malformed_run_json(self):
        d = fixtures.make_replay(os.path.join(self.tmp, "r"), intervals=5, events=10)
        with open(os.path.join(d, "run.json"), "w") as f:
            f.write('{"kind": "replay",\n "t0_ns": }\n')
        self.expect([d], "run.json:2:", "malformed JSON")

    def test_bad_pcap(self):
        os.makedirs(os.path.join(self.tmp, "p"))
        with open(os.path.join(self.tmp, "p", "counters.json"), "w") as f:
            json.dump(fixtures.counters_json(fixtures.switch_json()["ports"]), f)
        with open(os.path.join(self.tmp, "p", "port1.pcap"), "wb") as f:
            f.write(b"garbage!" * 4)
        self.expect([os.path.join(self.tmp, "p")], "port1.pcap", "not a pcap")


if __name__ == "__main__":
    unittest.main()
