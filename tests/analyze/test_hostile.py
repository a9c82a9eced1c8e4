"""rocelb-analyze against hostile and careless input: every reader (run.json,
counters.json and <switch>.counters.json, summary.json, timeline.csv,
events.jsonl, flows.csv, pcap/pcapng) fed truncated files, wrong types,
NaN and Infinity, huge numbers, empty files, missing columns, non-UTF-8
bytes, deep nesting, files that are not regular files, directories that are
not runs, and inputs past each limit. Each must give exit 2 and ONE line
naming the file, where in it (line, key path or packet) and the rule; never
a traceback, never a hang, never reading a huge input whole.

Most cases run the command line in-process (report.main) so a traceback
fails the test as an exception; the ones that could hang run it as a child
with a timeout."""

import contextlib
import io
import json
import os
import shutil
import struct
import tempfile
import time
import unittest

from common import run_tool
import fixtures
from analyze import limits, readers, report


def analyze(*args):
    """(exit code, stdout, stderr) of rocelb-analyze ARGS, run in-process."""
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            rc = report.main(list(args))
        except SystemExit as e:
            rc = e.code
    return rc, out.getvalue(), err.getvalue()


class Hostile(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.mkdtemp(prefix="analyze_hostile_")
        self.saved = {k: getattr(limits, k) for k in dir(limits) if k.startswith("MAX_")}

    def tearDown(self):
        for k, v in self.saved.items():
            setattr(limits, k, v)
        shutil.rmtree(self.tmp, ignore_errors=True)

    def run_dir(self, name="r", **kw):
        kw.setdefault("intervals", 5)
        kw.setdefault("events", 10)
        return fixtures.make_replay(os.path.join(self.tmp, name), **kw)

    def refused(self, args, *needles, rc=2):
        """The command fails with exit `rc` and one line holding every needle."""
        code, out, err = analyze(*args)
        self.assertEqual(code, rc, out + err)
        lines = err.strip().splitlines()
        self.assertEqual(len(lines), 1, err)
        self.assertTrue(lines[0].startswith("rocelb-analyze: "), lines[0])
        for n in needles:
            self.assertIn(n, lines[0])
        self.assertNotIn("Traceback", err)
        return lines[0]

    def write(self, path, data, mode="w"):
        with open(path, mode) as f:
            f.write(data)

    def append(self, path, data, mode="a"):
        with open(path, mode) as f:
            f.write(data)
        with open(path, "rb") as f:
            return f.read().count(b"\n")


class TimelineTest(Hostile):
    def test_non_utf8_row_and_header(self):
        d = self.run_dir()
        p = os.path.join(d, "timeline.csv")
        n = self.append(p, b"1700000000000010000,le\xffaf1,4,,tx_bytes,5\n", "ab")
        self.refused([d], "timeline.csv:%d:" % n, "not UTF-8", "0xff at column 23")
        self.write(p, b"\xff\xfe,a\n", "wb")
        self.refused([d], "timeline.csv:1:", "not UTF-8")

    def test_oversized_and_negative_t_ns(self):
        d = self.run_dir()
        p = os.path.join(d, "timeline.csv")
        n = self.append(p, "99999999999999999999999,leaf1,4,,tx_bytes,5\n")
        self.refused([d], "timeline.csv:%d:" % n, "t_ns", "0 .. 9223372036854775807")
        self.write(p, "t_ns,switch,port,class,metric,value\n9223372036854775808,a,1,,x,1\n")
        self.refused([d], "timeline.csv:2:", "out of range")
        self.write(p, "t_ns,switch,port,class,metric,value\n-5,a,1,,x,1\n")
        self.refused([d], "timeline.csv:2:", "t_ns '-5'")

    def test_nan_inf_and_huge_values(self):
        d = self.run_dir()
        p = os.path.join(d, "timeline.csv")
        with open(p) as f:
            good = f.read()
        for v in ("nan", "NaN", "inf", "-Infinity", "1e400", "1e30"):
            self.write(p, good + "1700000000000010000,leaf1,4,,tx_bytes,%s\n" % v)
            self.refused([d], "timeline.csv:%d:" % (good.count("\n") + 1),
                         "value '%s' is not a finite number within +-2^64" % v)

    def test_empty_truncated_missing_columns(self):
        d = self.run_dir()
        p = os.path.join(d, "timeline.csv")
        self.write(p, "")
        self.refused([d], "timeline.csv:1:", "header must be", "an empty file")
        self.write(p, "t_ns,switch,port,class,metric\n1,a,1,,x\n")
        self.refused([d], "timeline.csv:1:", "header must be")
        self.write(p, "t_ns,switch,port,class,metric,value\n1,a,1,,x,1\n2,a,1,,x,1")
        self.refused([d], "timeline.csv:3:", "truncated")
        self.write(p, "t_ns,switch,port,class,metric,value\n1,a,70000,,x,1\n")
        self.refused([d], "timeline.csv:2:", "port '70000' is not an integer 0 .. 65535")

    def test_long_line_and_names(self):
        d = self.run_dir()
        p = os.path.join(d, "timeline.csv")
        n = self.append(p, "1," + "a" * (1 << 20) + ",1,,x,1\n")
        self.refused([d], "timeline.csv:%d:" % n, "longer than 1 MiB")
        self.write(p, "t_ns,switch,port,class,metric,value\n1," + "s" * 300 + ",1,,x,1\n")
        self.refused([d], "timeline.csv:2:", "switch name longer than 256")
        self.write(p, "t_ns,switch,port,class,metric,value\n1,le\0af,1,,x,1\n")
        self.refused([d], "timeline.csv:2:", "switch name 'le\\x00af' has a control character")

    def test_series_limit(self):
        d = self.run_dir()
        limits.MAX_SERIES = 10
        self.refused([d], "timeline.csv:", "more than 10 series")


class EventsTest(Hostile):
    def test_deeply_nested_line(self):
        d = self.run_dir()
        p = os.path.join(d, "events.jsonl")
        deep = "[" * 100000 + "]" * 100000
        n = self.append(p, '{"t_ns":1,"ev":"dequeue","switch":"leaf1","x":%s}\n' % deep)
        self.refused([d], "events.jsonl:%d:" % n, "nested more than 64 levels")
        # Deep, but within what Python's parser takes: the limit still holds.
        with open(p) as f:
            lines = f.readlines()[:-1]
        lines.append('{"t_ns":1,"ev":"pfc_rx","x":%s}\n' % ("[" * 70 + "]" * 70))
        self.write(p, "".join(lines))
        self.refused([d], "events.jsonl:%d:" % len(lines), "nested more than 64 levels")

    def test_oversized_t_ns_and_fields(self):
        d = self.run_dir()
        p = os.path.join(d, "events.jsonl")
        with open(p) as f:
            good = f.read()
        n = good.count("\n") + 1
        cases = [
            ('{"t_ns":%d,"ev":"dequeue","switch":"leaf1","port":4}' % (1 << 70),
             'dequeue "t_ns" must be an integer 0 .. 9223372036854775807'),
            ('{"t_ns":-1,"ev":"mark","switch":"leaf1","port":4}', '"t_ns" must be an integer'),
            ('{"t_ns":"5","ev":"drop","switch":"leaf1"}', '"t_ns" must be an integer'),
            ('{"t_ns":5,"ev":"dequeue","class":9,"sojourn_ns":1}', '"class" must be an integer 0 .. 7'),
            ('{"t_ns":5,"ev":"dequeue","qp":16777216,"psn":1}', '"qp" must be an integer 0 .. 16777215'),
            ('{"t_ns":5,"ev":"dequeue","qp":1,"psn":-1}', '"psn" must be an integer'),
            ('{"t_ns":5,"ev":"dequeue","qp":1,"psn":true}', '"psn" must be an integer'),
            ('{"t_ns":5,"ev":"pfc_tx","port":1,"class_enable":8,"quanta":[0,0,0,70000,0,0,0,0]}',
             '"quanta" must be 8 integers 0 .. 65535'),
            ('{"t_ns":5,"ev":"pfc_rx","port":1,"class_enable":8,"quanta":[0,0,0]}',
             'needs "port", "class_enable" and 8 "quanta"'),
            ('{"t_ns":5,"ev":"pfc_rx","port":70000,"class_enable":8,"quanta":[0,0,0,0,0,0,0,0]}',
             '"port" must be an integer 0 .. 65535'),
            ('{"t_ns":5,"ev":"dequeue","qp":1,"psn":1,"switch":["x"]}', '"switch" must be a string'),
            ('{"t_ns":5,"ev":"dequeue","t_ns":7,"class":3,"sojourn_ns":1}',
             'duplicate key "t_ns": an object has each key once'),
        ]
        for line, needle in cases:
            self.write(p, good + line + "\n")
            self.refused([d], "events.jsonl:%d:" % n, needle)

    def test_nan_infinity_and_huge_numbers(self):
        d = self.run_dir()
        p = os.path.join(d, "events.jsonl")
        with open(p) as f:
            good = f.read()
        n = good.count("\n") + 1
        for value, needle in (("NaN", "NaN is not a number JSON allows"),
                              ("-Infinity", "-Infinity is not a number JSON allows"),
                              ("1e999", "1e999 is out of the range of a double"),
                              ("1" * 5000, "an integer of more than 4300 digits")):
            self.write(p, good + '{"t_ns":5,"ev":"dequeue","class":3,"sojourn_ns":%s}\n' % value)
            self.refused([d], "events.jsonl:%d:" % n, needle)

    def test_non_utf8_truncated_not_an_object(self):
        d = self.run_dir()
        p = os.path.join(d, "events.jsonl")
        with open(p, "rb") as f:
            good = f.read()
        n = good.count(b"\n") + 1
        self.write(p, good + b'{"t_ns":5,"ev":"drop","reason":"\xc3("}\n', "wb")
        self.refused([d], "events.jsonl:%d:" % n, "not UTF-8 text (byte 0xc3 at column 33)")
        self.write(p, good + b'{"t_ns":5,"ev":"drop"', "wb")
        self.refused([d], "events.jsonl:%d:" % n, "truncated")
        self.write(p, good + b'"just a string"\n', "wb")
        self.refused([d], "events.jsonl:%d:" % n, "not a JSON object")
        self.write(p, good + b'{"t_ns":5,"ev":"Drop it!"}\n', "wb")
        self.refused([d], "events.jsonl:%d:" % n, '"ev" must be an event name')
        self.write(p, good + b'{"t_ns":5}\n', "wb")
        self.refused([d], "events.jsonl:%d:" % n, '"ev" must be an event name')

    def test_count_limits(self):
        d = self.run_dir()
        p = os.path.join(d, "events.jsonl")
        limits.MAX_NAMES = 4
        self.refused([d], "events.jsonl:", 'more than 4 distinct "ev" kinds')
        limits.MAX_NAMES = 256
        with open(p, "a") as f:
            for i in range(20):
                f.write('{"t_ns":5,"ev":"drop","reason":"r%d"}\n' % i)
        limits.MAX_NAMES = 10
        self.refused([d], "events.jsonl:", "more than 10 distinct drop reasons")
        limits.MAX_NAMES = 256
        limits.MAX_QPS = 3
        self.refused([d], "events.jsonl:", "more than 3 queue pairs")
        limits.MAX_QPS = 1_000_000
        limits.MAX_PFC_ENTRIES = 2
        self.refused([d], "events.jsonl:", "more than 2 PFC frame entries")

    def test_unread_kinds_are_counted_not_parsed(self):
        # arrive/enqueue/lb lines are only counted: a deep one does not slow
        # or break the read; a line that is no object is still refused.
        d = self.run_dir()
        p = os.path.join(d, "events.jsonl")
        self.append(p, '{"t_ns":1,"ev":"arrive","x":%s}\n' % ("[" * 5000 + "]" * 5000))
        rc, out, err = analyze(d)
        self.assertEqual(rc, 0, err)
        n = self.append(p, '{"t_ns":1,"ev":"arrive"} trailing\n')
        self.refused([d], "events.jsonl:%d:" % n, "malformed JSON")


class DocumentsTest(Hostile):
    def counters(self, d, mutate, name="counters.json"):
        p = os.path.join(d, name)
        with open(p) as f:
            doc = json.load(f)
        mutate(doc)
        with open(p, "w") as f:
            json.dump(doc, f, indent=1)

    def test_counters_types_ranges_nan(self):
        d = self.run_dir()

        def setter(path, value):
            def mutate(doc):
                o = doc
                for k in path[:-1]:
                    o = o[k]
                o[path[-1]] = value
            return mutate
        cases = [
            (("ports", 1, "speed_bps"), "fast",
             "counters.json:ports[1].speed_bps: must be an integer 0 .. 18446744073709551615"),
            (("ports", 1, "id"), -1, "counters.json:ports[1].id: must be an integer 0 .. 65535"),
            (("ports", 0, "queues", 2), [1], "counters.json:ports[0].queues[2]: must be a JSON object"),
            (("ports", 0, "queues", 3, "wred_ecn_marked_packets"), 1 << 64,
             "ports[0].queues[3].wred_ecn_marked_packets: must be an integer"),
            (("ports", 2, "pfc", "pfc_tx_frames"), "3", "ports[2].pfc.pfc_tx_frames: must be a list"),
            (("ports", 2, "drops_total"), 1.5, "ports[2].drops_total: must be an integer"),
            (("groups", 0, "members", 1, "bytes"), None, None),  # null: absent, fine
            (("groups", 0, "members", 1, "bytes"), [], "groups[0].members[1].bytes: must be an integer"),
            (("reordering", "qps"), "4", "reordering.qps: must be an integer"),
            (("time", "first_ns"), 1 << 63, "time.first_ns: must be an integer 0 .. 9223372036854775807"),
            (("ports",), {}, "not a counters document"),
        ]
        for path, value, needle in cases:
            d = self.run_dir("c%d" % len(os.listdir(self.tmp)))
            self.counters(d, setter(path, value))
            if needle is None:
                self.assertEqual(analyze(d)[0], 0)
            else:
                self.refused([d], needle)
        d = self.run_dir("nan")
        p = os.path.join(d, "counters.json")
        with open(p) as f:
            text = f.read()
        self.write(p, text.replace('"wred_ecn_marked_packets": 2', '"wred_ecn_marked_packets": NaN', 1))
        self.refused([d], "counters.json:", "NaN is not a number JSON allows")
        self.write(p, text.replace('"drops_total": 1', '"drops_total": 1e400', 1))
        self.refused([d], "counters.json:", "1e400 is out of the range of a double")

    def test_switch_counters_named(self):
        d = fixtures.make_fabric(os.path.join(self.tmp, "f"), intervals=5, events=10)
        self.counters(d, lambda doc: doc["ports"][0].update(name=7), "leaf1.counters.json")
        self.refused([d], "leaf1.counters.json:ports[0].name: must be a string")

    def test_json_documents_empty_truncated_deep_non_utf8(self):
        d = self.run_dir()
        for name in ("counters.json", "run.json"):
            p = os.path.join(d, name)
            with open(p, "rb") as f:
                good = f.read()
            self.write(p, b"", "wb")
            self.refused([d], "%s:1:" % name, "malformed JSON")
            self.write(p, good[:len(good) // 2], "wb")
            self.refused([d], "%s:" % name, "malformed JSON")
            self.write(p, b'{"kind": "replay", "x": ' + b"[" * 100 + b"]" * 100 + b"}", "wb")
            self.refused([d], name, "nested more than 64 levels")
            self.write(p, b'{"kind": "replay",\n "x": "\xff"}', "wb")
            self.refused([d], "%s:2:" % name, "not UTF-8 text (byte 0xff at column 8)")
            self.write(p, good, "wb")

    def test_run_json_rules(self):
        cases = [
            ({"kind": "gen"}, 'run.json:kind: must be "replay" or "fabric"'),
            ({"kind": None}, 'run.json:kind: must be "replay" or "fabric"'),
            ({"t0_ns": 1 << 64}, "run.json:t0_ns: must be an integer 0 .. 9223372036854775807"),
            ({"interval_ns": 0}, "run.json:interval_ns: must be an integer 1 .."),
            ({"end_ns": 5, "t0_ns": 10}, "run.json:end_ns: must not be before t0_ns"),
            ({"switches": {"a": 1}}, "run.json:switches: must be a list"),
        ]
        for change, needle in cases:
            d = self.run_dir("j%d" % len(os.listdir(self.tmp)))
            p = os.path.join(d, "run.json")
            with open(p) as f:
                doc = json.load(f)
            doc.update(change)
            self.write(p, json.dumps(doc))
            self.refused([d], needle)
        d = self.run_dir("sw")
        p = os.path.join(d, "run.json")
        with open(p) as f:
            doc = json.load(f)
        doc["switches"][0]["ports"][1]["speed_bps"] = "100G"
        self.write(p, json.dumps(doc))
        self.refused([d], "run.json:switches[0].ports[1].speed_bps: must be an integer")
        doc["switches"][0]["ports"][1]["speed_bps"] = 10 ** 11
        doc["switches"][0]["ecn"][0]["max_probability"] = 2
        self.write(p, json.dumps(doc))
        self.refused([d], "run.json:switches[0].ecn[0].max_probability: must be a number 0 .. 1")

    def test_summary_json(self):
        d = fixtures.make_fabric(os.path.join(self.tmp, "f"), intervals=5, events=10)
        p = os.path.join(d, "summary.json")
        self.write(p, json.dumps({"nics": {"retransmitted_packets": "3"}}))
        self.refused([d], "summary.json:nics.retransmitted_packets: must be an integer")
        self.write(p, "[1, 2]")
        self.refused([d], "summary.json:1:", "not a JSON object")
        self.write(p, '{"nics": {"retransmitted_packets": Infinity}}')
        self.refused([d], "summary.json:", "Infinity is not a number JSON allows")

    def test_duplicate_keys(self):
        # Python's json keeps the last of two equal keys: a run.json saying
        # "kind" twice was read as whichever came last. One rule everywhere:
        # a key once per object, as in every YAML file rocelb reads.
        d = self.run_dir()
        p = os.path.join(d, "run.json")
        with open(p) as f:
            text = f.read()
        self.write(p, text.replace('"kind": "replay"', '"kind": "replay", "kind": "fabric"', 1))
        self.refused([d], "run.json:", 'duplicate key "kind": an object has each key once')
        self.write(p, text)
        p = os.path.join(d, "counters.json")
        with open(p) as f:
            doc = json.load(f)
        self.write(p, '{"ports": [], ' + json.dumps(doc)[1:])
        self.refused([d], "counters.json:", 'duplicate key "ports"')
        f = fixtures.make_fabric(os.path.join(self.tmp, "f"), intervals=5, events=10)
        self.write(os.path.join(f, "summary.json"), '{"nics": {"a": 1, "a": 2}}')
        self.refused([f], "summary.json:", 'duplicate key "a"')

    def test_json_document_size_limit(self):
        d = self.run_dir()
        p = os.path.join(d, "counters.json")
        with open(p, "r+b") as f:
            f.truncate(limits.MAX_JSON_BYTES + 1)  # sparse: nothing is written
        t = time.monotonic()
        self.refused([d], "counters.json", "over the 64 MiB limit for a JSON document")
        self.assertLess(time.monotonic() - t, 60)  # refused, not read for minutes


class FlowsTest(Hostile):
    def fabric(self):
        return fixtures.make_fabric(os.path.join(self.tmp, "f"), intervals=5, events=10)

    def test_rows(self):
        d = self.fabric()
        p = os.path.join(d, "flows.csv")
        with open(p, "rb") as f:
            good = f.read()
        n = good.count(b"\n") + 1
        cases = [
            (b"9,h0,h1,%d,0,,,1000,,0,0,0\n" % (1 << 70), "size_bytes '1180591620717411303424' is not an integer"),
            (b"9,h0,h1,-5,0,,,1000,,0,0,0\n", "size_bytes '-5' is not an integer"),
            (b"9,h0,h1,5,0,10,abc,1000,,0,0,0\n", "fct_ns 'abc' is not an integer"),
            (b"9,h0,h1,5,0,\xff,,1000,,0,0,0\n", "not UTF-8"),
            (b"9,h0,h1,5,0\n", "expected 12 fields, got 5"),
            (b"9,h0,h1,5,0,,,1000,,0,0,0", "truncated"),
        ]
        for row, needle in cases:
            self.write(p, good + row, "wb")
            self.refused([d], "flows.csv:%d:" % n, needle)
        self.write(p, b"flow_id,size_bytes,slowdown\n1,100,nan\n", "wb")
        self.refused([d], "flows.csv:2:", "slowdown 'nan' is not a finite number")
        self.write(p, b"flow_id,size_bytes,slowdown\n1,100,-2\n", "wb")
        self.refused([d], "flows.csv:2:", "slowdown '-2' is negative")
        self.write(p, b"", "wb")
        self.refused([d], "flows.csv:1:", "header needs size_bytes")
        self.write(p, b"flow_id,src,dst\n", "wb")
        self.refused([d], "flows.csv:1:", "header needs size_bytes")
        # A column named twice: the reader cannot tell which one is meant.
        self.write(p, b"flow_id,size_bytes,slowdown,size_bytes\n1,100,2,5\n", "wb")
        self.refused([d], "flows.csv:1:", "column 'size_bytes' twice in the header")

    def test_flow_limit(self):
        d = self.fabric()
        limits.MAX_FLOWS = 50
        self.refused([d], "flows.csv:52:", "more than 50 flows")


class PcapTest(Hostile):
    def replay_with(self, name, data):
        d = self.run_dir(with_events=False)
        self.write(os.path.join(d, name), data, "wb")
        return d

    def test_huge_record_length_is_not_read(self):
        head = struct.pack("<IHHiIII", 0xA1B2C3D4, 2, 4, 0, 0, 65535, 1)
        rec = struct.pack("<IIII", 1, 0, 0xFFFFFFF0, 0xFFFFFFF0) + b"x" * 100
        d = self.replay_with("port4.pcap", head + rec)
        self.refused([d], "port4.pcap:packet 1:", "captured length 4294967280 is over 262144")

    def test_pcapng_bad_blocks(self):
        shb = struct.pack("<IIIHHq", 0x0A0D0D0A, 28, 0x1A2B3C4D, 1, 0, -1) + struct.pack("<I", 28)
        cases = [
            (struct.pack("<IIIHHq", 0x0A0D0D0A, 8, 0x1A2B3C4D, 1, 0, -1), "bad block length 8"),
            (shb + struct.pack("<II", 6, 0xFFFFFFF0), "bad block length 4294967280"),
            (shb + struct.pack("<III", 1, 12, 12), "interface block too short"),
            (shb + struct.pack("<IIHHI", 1, 20, 1, 0, 0) + struct.pack("<I", 20) +
             struct.pack("<IIII", 6, 20, 0, 0) + struct.pack("<I", 20), "packet block too short"),
            (shb + struct.pack("<IIHHI", 1, 28, 1, 0, 0) + struct.pack("<HH", 9, 4) +
             struct.pack("<I", 28), "truncated block"),
        ]
        for data, needle in cases:
            d = self.replay_with("port4.pcapng", data)
            self.refused([d], "port4.pcapng", needle)
            shutil.rmtree(d)

    def test_empty_and_truncated(self):
        d = self.replay_with("port4.pcap", b"")
        self.refused([d], "port4.pcap", "empty file")
        head = struct.pack("<IHHiIII", 0xA1B2C3D4, 2, 4, 0, 0, 65535, 1)
        d2 = self.replay_with("port4.pcap", head + struct.pack("<IIII", 1, 0, 60, 60) + b"x" * 10)
        self.refused([d2], "port4.pcap:packet 1:", "truncated packet data")


class DirectoryAndFileTest(Hostile):
    def test_rocelb_gen_folder_is_not_a_run(self):
        d = os.path.join(self.tmp, "gen")
        os.makedirs(d)
        for port in (0, 1):
            fixtures.write_pcap(os.path.join(d, "port%d.pcap" % port),
                                [fixtures.roce_frame("10.2.0.1", 300, psn) for psn in range(4)])
        self.refused([d], d, "not a run directory", "rocelb-gen's input")

    def test_other_folders(self):
        d = os.path.join(self.tmp, "notes")
        os.makedirs(d)
        self.write(os.path.join(d, "README.txt"), "hello\n")
        self.refused([d], "not a run directory")
        self.refused([os.path.join(d, "README.txt")], "not a directory")

    def test_known_names_that_are_not_files(self):
        d = self.run_dir()
        os.remove(os.path.join(d, "timeline.csv"))
        os.makedirs(os.path.join(d, "timeline.csv"))
        self.refused([d], "timeline.csv", "is a directory, not a regular file")
        os.rmdir(os.path.join(d, "timeline.csv"))
        os.symlink("/dev/zero", os.path.join(d, "timeline.csv"))
        self.refused([d], "timeline.csv", "is a device, not a regular file")

    def test_fifo_does_not_hang(self):
        d = self.run_dir()
        os.remove(os.path.join(d, "events.jsonl"))
        os.mkfifo(os.path.join(d, "events.jsonl"))
        rc, out, err = run_tool(d, timeout=60)
        self.assertEqual(rc, 2, err)
        self.assertEqual(len(err.strip().splitlines()), 1, err)
        self.assertIn("events.jsonl: is a FIFO, not a regular file", err)

    def test_input_size_limit(self):
        d = self.run_dir()
        p = os.path.join(d, "events.jsonl")
        with open(p, "r+b") as f:
            f.truncate(5 << 30)  # sparse 5 GiB: refused before any is read
        t = time.monotonic()
        self.refused([d], "events.jsonl", "5 GiB, over the 4 GiB limit", "--max-input")
        self.refused([d, "--max-input", "1MiB"], "timeline.csv" if os.path.getsize(
            os.path.join(d, "timeline.csv")) > (1 << 20) else "events.jsonl", "over the 1 MiB")
        self.assertLess(time.monotonic() - t, 60)  # refused, not read for minutes

    def test_line_without_end_is_not_read_whole(self):
        # 2 GiB of zeros and no newline: refused after the first MiBs.
        d = self.run_dir()
        p = os.path.join(d, "events.jsonl")
        with open(p, "r+b") as f:
            f.truncate(2 << 30)
        t = time.monotonic()
        self.refused([d], "events.jsonl:", "longer than 1 MiB")
        self.assertLess(time.monotonic() - t, 60)  # refused, not read for minutes


class OptionsTest(Hostile):
    def test_bad_options_are_one_line(self):
        d = self.run_dir()
        self.refused([d, "--top", "-1"], "--top -1: must be 1 .. 1000 (0: the defaults)")
        self.refused([d, "--top", "x"], "--top", "invalid int value")
        self.refused([d, "--max-input", "lots"], "--max-input 'lots': not a size")
        self.refused([d, "--frobnicate"], "--frobnicate: no such option (rocelb-analyze --help)")
        self.refused([d, "--tabel"], "--tabel: no such option; did you mean --table?")
        self.refused([d, "--max-inpt=1GiB"], "--max-inpt: no such option; did you mean --max-input?")
        self.refused([], "the following arguments are required: DIR")

    def test_version_names_the_tree(self):
        code, out, err = analyze("--version")
        self.assertEqual(code, 0, err)
        self.assertTrue(out.startswith("rocelb-analyze ("), out)

    def test_out_over_an_input_is_refused(self):
        d = self.run_dir()
        self.refused([d, "--out", os.path.join(d, "timeline.csv")],
                     "is an input of the run; the report would overwrite it")
        with open(os.path.join(d, "timeline.csv")) as f:
            self.assertTrue(f.readline().startswith("t_ns,"))

    def test_unwritable_out_is_one_line_exit_1(self):
        d = self.run_dir()
        self.write(os.path.join(self.tmp, "file"), "x")
        self.refused([d, "--out", os.path.join(self.tmp, "file", "r.html")], "file", rc=1)


class ReadersTest(Hostile):
    def test_errors_name_file_and_line(self):
        # The reader itself (as other tools would use it) raises InputError.
        d = self.run_dir()
        p = os.path.join(d, "events.jsonl")
        n = self.append(p, '{"t_ns":5,"ev":"dequeue","class":3,"sojourn_ns":NaN}\n')
        with self.assertRaises(readers.InputError) as e:
            readers.read_run(d)
        self.assertEqual((e.exception.line, os.path.basename(e.exception.path)), (n, "events.jsonl"))


if __name__ == "__main__":
    unittest.main()
