#!/usr/bin/python3
"""tools/bench-fabric end to end on the 32-host shape, 100 us, one and two
threads: it runs, prints one row per thread count, finds the outputs of the
two the same, and refuses an unknown shape with one line and exit 1. Its
figures are printed, never asserted."""
import argparse
import json
import os
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--build-dir", required=True)
    a = p.parse_args()
    dp = os.path.join(a.build_dir, "dataplane", "rocelb-dp")
    tool = os.path.join(ROOT, "tools", "bench-fabric")
    with tempfile.TemporaryDirectory() as tmp:
        rows_file = os.path.join(tmp, "rows.json")
        r = subprocess.run([tool, "--shapes", "32", "--threads", "1,2", "--time", "100us",
                            "--runs", "1", "--rocelb-dp", dp, "--out-dir", os.path.join(tmp, "o"),
                            "--json", rows_file], capture_output=True, text=True)
        print(r.stdout, r.stderr)
        assert r.returncode == 0, r.returncode
        rows = json.load(open(rows_file))
        assert [(x["hosts"], x["threads"]) for x in rows] == [(32, 1), (32, 2)], rows
        assert rows[0]["events"] == rows[1]["events"] > 1000, rows
        assert rows[0]["frames_between_threads"] == 0 < rows[1]["frames_between_threads"], rows
        table = [l for l in r.stdout.splitlines() if l.strip().startswith("32 ")]
        assert len(table) == 2, r.stdout
        bad = subprocess.run([tool, "--shapes", "33", "--rocelb-dp", dp], capture_output=True,
                             text=True)
        assert bad.returncode == 1 and bad.stderr.count("\n") == 1, bad.stderr
        assert "--shapes 33" in bad.stderr, bad.stderr
    print("ok")
    return 0


if __name__ == "__main__":
    sys.exit(main())
