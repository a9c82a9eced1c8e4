"""rocelb-analyze's metrics on small hand-made inputs with known answers."""

import os
import tempfile
import unittest

import common  # noqa: F401  (sets sys.path)
import fixtures
from analyze import analysis, metrics, readers
from analyze.errors import InputError


class ImbalanceTest(unittest.TestCase):
    def test_three_one_zero_zero(self):
        # mean 1, max 3; Jain = 4^2 / (4 * (9 + 1)) = 0.4
        mom, jain = metrics.imbalance([3, 1, 0, 0])
        self.assertAlmostEqual(mom, 3.0)
        self.assertAlmostEqual(jain, 0.4)

    def test_even_and_worst(self):
        self.assertEqual(metrics.imbalance([5, 5, 5, 5]), (1.0, 1.0))
        mom, jain = metrics.imbalance([8, 0, 0, 0])
        self.assertAlmostEqual(mom, 4.0)
        self.assertAlmostEqual(jain, 0.25)
        self.assertIsNone(metrics.imbalance([0, 0, 0, 0]))

    def test_windows_skip_idle(self):
        mom, jain, busy = metrics.imbalance_windows([[3, 0, 1], [1, 0, 1], [0, 0, 1], [0, 0, 1]])
        self.assertEqual(list(busy), [True, False, True])
        self.assertAlmostEqual(mom[0], 3.0)
        self.assertAlmostEqual(jain[0], 0.4)
        self.assertAlmostEqual(mom[1], 1.0)
        self.assertAlmostEqual(jain[1], 1.0)

    def test_from_timeline(self):
        # Members 3:1:0:0 per interval; the idle members have no rows for the
        # first half of the run (a series starts at its first activity).
        with tempfile.TemporaryDirectory() as d:
            fixtures.make_replay(d, intervals=40, with_events=False, pcaps=False)
            a = analysis.analyze(readers.read_run(d))
            u = a["summary"]["uplink_imbalance"]
            self.assertEqual(u["windows"], 40)
            self.assertAlmostEqual(u["mean_max_over_mean"], 3.0)
            self.assertAlmostEqual(u["mean_jain"], 0.4)
            self.assertAlmostEqual(u["whole_run"][0]["jain"], 0.4)


class ReorderTest(unittest.TestCase):
    def count(self, frames, writer=fixtures.write_pcap, **kw):
        with tempfile.TemporaryDirectory() as d:
            p = os.path.join(d, "port4.pcap")
            writer(p, frames, **kw)
            t = metrics.ReorderTracker()
            readers.read_pcap_reordering(t, p)
            return t

    def test_pcap_psns_0_1_3_2_4(self):
        t = self.count([fixtures.roce_frame("10.2.0.1", 300, p) for p in (0, 1, 3, 2, 4)])
        self.assertEqual((t.packets, t.reordered, t.qps(), t.max_gap), (5, 1, 1, 1))
        self.assertEqual(t.top(5), [(("10.0.0.1>10.2.0.1", 300), 1)])

    def test_other_encodings(self):
        frames = [fixtures.roce_frame("10.2.0.1", 300, p, vlan=5) for p in (0, 1, 3, 2, 4)]
        self.assertEqual(self.count(frames, nanos=False, big_endian=True).reordered, 1)
        self.assertEqual(self.count(frames, writer=fixtures.write_pcapng).reordered, 1)
        v6 = [fixtures.roce_frame("fd00::2", 7, p, src_ip="fd00::1", ipv6=True)
              for p in (0, 2, 1)]
        t = self.count(v6)
        self.assertEqual(t.reordered, 1)
        self.assertEqual(t.top(1)[0][0], ("fd00::1>fd00::2", 7))

    def test_qps_apart_wrap_retransmit_cnp(self):
        frames = [fixtures.roce_frame("10.2.0.1", 1, 5), fixtures.roce_frame("10.2.0.1", 2, 0),
                  fixtures.roce_frame("10.2.0.2", 1, 0),      # other QPs: not behind
                  fixtures.roce_frame("10.2.0.1", 1, 5),      # retransmission
                  fixtures.roce_frame("10.2.0.1", 3, 0xFFFFFF),
                  fixtures.roce_frame("10.2.0.1", 3, 0),      # wraps: ahead
                  fixtures.roce_frame("10.2.0.1", 3, 0xFFFFFE),  # behind by 2
                  fixtures.roce_frame("10.2.0.1", 1, 0, opcode=0x81)]  # CNP: skipped
        t = self.count(frames)
        self.assertEqual(t.reordered, 1)
        self.assertEqual(t.max_gap, 2)
        self.assertEqual(t.packets, 7)

    def test_points_count_apart(self):
        t = metrics.ReorderTracker()
        t.observe("leaf0", "d", 1, 5)
        t.observe("leaf1", "d", 1, 3)   # another switch: its own order
        self.assertEqual(t.reordered, 0)
        t.observe("leaf0", "d", 1, 4)
        self.assertEqual((t.reordered, t.per_point), (1, {"leaf0": 1}))

    def test_pcaps_of_one_switch_merge_in_time_order(self):
        # PSN 1 leaves port 5 after PSN 2 left port 4: the receiver sees 0, 2, 1.
        with tempfile.TemporaryDirectory() as d:
            p4, p5 = os.path.join(d, "port4.pcap"), os.path.join(d, "port5.pcap")
            fixtures.write_pcap(p4, [fixtures.roce_frame("10.2.0.1", 9, 0),
                                     fixtures.roce_frame("10.2.0.1", 9, 2)], step=1000)
            fixtures.write_pcap(p5, [fixtures.roce_frame("10.2.0.1", 9, 1)],
                                t0=fixtures.T0 + 1500)
            t = metrics.ReorderTracker()
            readers.read_pcap_reordering(t, [p4, p5])
            self.assertEqual((t.packets, t.reordered), (3, 1))


class SlowdownTest(unittest.TestCase):
    FLOWS = ([(50_000, 1000 * i, 1000) for i in range(1, 101)] +      # small: 1..100
             [(200_000, 2000, 1000), (999_999, 4000, 1000)] +          # medium: 2, 4
             [(1_000_000, 1500, 1000), (5_000_000, None, 1000)])        # large: 1.5, unfinished

    def check(self, sd):
        self.assertEqual(sd["small"]["count"], 100)
        self.assertAlmostEqual(sd["small"]["average"], 50.5)
        self.assertAlmostEqual(sd["small"]["p99"], 99.0)   # nearest rank: ceil(0.99 * 100) = 99
        self.assertAlmostEqual(sd["small"]["p50"], 50.0)
        self.assertAlmostEqual(sd["medium"]["average"], 3.0)
        self.assertAlmostEqual(sd["medium"]["p99"], 4.0)
        self.assertEqual((sd["large"]["count"], sd["large"]["unfinished"]), (1, 1))
        self.assertAlmostEqual(sd["large"]["p99"], 1.5)
        self.assertEqual((sd["all"]["count"], sd["all"]["unfinished"]), (103, 1))
        self.assertAlmostEqual(sd["all"]["average"], (5050 + 6 + 1.5) / 103)
        self.assertAlmostEqual(sd["all"]["p99"], 99.0)     # rank ceil(101.97) = 102 of 103

    def test_buckets(self):
        rows = [(s, None if f is None else f / i) for s, f, i in self.FLOWS]
        self.check(metrics.slowdown_by_bucket(rows))

    def test_from_flows_csv(self):
        with tempfile.TemporaryDirectory() as d:
            fixtures.write_flows(d, self.FLOWS)
            self.check(metrics.slowdown_by_bucket(readers.read_flows(os.path.join(d, "flows.csv"))))

    def test_bad_flows_csv(self):
        with tempfile.TemporaryDirectory() as d:
            fixtures.write_flows(d, self.FLOWS[:3])
            p = os.path.join(d, "flows.csv")
            with open(p, "a") as f:
                f.write("9,h0,h1,big,0,,,1000,,0,0,0\n")
            with self.assertRaises(InputError) as e:
                readers.read_flows(p)
            self.assertEqual(e.exception.line, 5)


class SojournTest(unittest.TestCase):
    def test_cdf(self):
        x, y = metrics.cdf([4, 2, 1, 2])
        self.assertEqual(list(x), [1, 2, 2, 4])
        self.assertEqual(list(y), [0.25, 0.5, 0.75, 1.0])
        x, y = metrics.cdf_points(range(1, 10001), points=101)
        self.assertEqual((x[0], x[-1], y[-1]), (1, 10000, 1.0))
        self.assertLessEqual(len(x), 101)

    def test_from_events(self):
        # 100 dequeues of class 3 with sojourn 1..100 us: p50 = 50, p99 = 99;
        # 4 of class 0 with 1, 2, 2, 4 us.
        with tempfile.TemporaryDirectory() as d:
            with open(os.path.join(d, "events.jsonl"), "w") as f:
                for i in range(1, 101):
                    f.write('{"t_ns":%d,"ev":"dequeue","switch":"s","port":4,"class":3,'
                            '"in_port":0,"len":100,"sojourn_ns":%d}\n' % (i, i * 1000))
                for i, s in enumerate((1, 2, 2, 4)):
                    f.write('{"t_ns":%d,"ev":"dequeue","switch":"s","port":4,"class":0,'
                            '"in_port":0,"len":100,"sojourn_ns":%d}\n' % (200 + i, s * 1000))
            a = analysis.analyze(readers.read_run(d))
            s = a["summary"]["sojourn_us"]
            self.assertEqual(s["per_class"]["3"], {"packets": 100, "p50": 50.0, "p99": 99.0})
            self.assertEqual(s["per_class"]["0"], {"packets": 4, "p50": 2.0, "p99": 4.0})
            self.assertEqual(s["packets"], 104)
            x, y = metrics.cdf(a["sojourn"][0] / 1e3)
            self.assertEqual(list(zip(x, y)), [(1, .25), (2, .5), (2, .75), (4, 1.0)])


class PfcIntervalTest(unittest.TestCase):
    def test_pause_frames(self):
        # 100 Gbit/s: one quantum = 5.12 ns. XOFF 1000 quanta at 0 (5120 ns),
        # refreshed at 4000 (to 9120), XON at 6000; then 10 quanta at 10000.
        iv = metrics.pause_intervals([(0, 1000), (4000, 1000), (6000, 0), (10000, 10)],
                                     100e9, None)
        self.assertEqual(len(iv), 2)
        self.assertEqual(iv[0], (0, 6000))
        self.assertAlmostEqual(iv[1][1] - iv[1][0], 51.2)
        # Expires without a refresh.
        iv = metrics.pause_intervals([(0, 1000), (8000, 0)], 100e9, None)
        self.assertAlmostEqual(iv[0][1], 5120)

    def test_states(self):
        self.assertEqual(metrics.state_intervals([10, 20, 30, 40, 50], [0, 1, 1, 0, 1], 10),
                         [(10, 30), (40, 50)])


if __name__ == "__main__":
    unittest.main()
