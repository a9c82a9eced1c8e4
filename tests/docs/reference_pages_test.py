#!/usr/bin/python3
"""Docs.ReferencePagesAreCurrent: the pages in docs/reference/ are what
tools/gen-docs writes from the code and the built programs now.

Regenerates them twice into temporary folders and fails, with a unified
diff, when the checked-in pages differ ("run tools/gen-docs"), when two
runs differ (the output must be deterministic), or when a page holds a
path of this machine (source, build or temporary folder). Arguments go to
tools/gen-docs (--build-dir, --program NAME=PATH)."""

import difflib
import os
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
PAGES = os.path.join(ROOT, "docs", "reference")
GEN = os.path.join(ROOT, "tools", "gen-docs")
MAX_DIFF_LINES = 200


def generate(into, args):
    r = subprocess.run([sys.executable, GEN, "--out", into] + args,
                       stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    if r.returncode != 0:
        sys.exit("FAIL: tools/gen-docs exited %d:\n%s" % (r.returncode, r.stdout))
    out = {}
    for name in sorted(os.listdir(into)):
        with open(os.path.join(into, name), encoding="utf-8") as f:
            out[name] = f.read()
    return out


def read_checked_in():
    out = {}
    for name in sorted(os.listdir(PAGES)) if os.path.isdir(PAGES) else []:
        if name.endswith(".md"):
            with open(os.path.join(PAGES, name), encoding="utf-8") as f:
                out[name] = f.read()
    return out


def diff(a, b, a_name, b_name):
    lines = list(difflib.unified_diff(a.splitlines(True), b.splitlines(True), a_name, b_name))
    if len(lines) > MAX_DIFF_LINES:
        lines = lines[:MAX_DIFF_LINES] + ["... (%d more lines)\n" % (len(lines) - MAX_DIFF_LINES)]
    return "".join(lines)


def main():
    args = sys.argv[1:]
    build_dirs = [os.path.abspath(a.split("=", 1)[1]) for a in args if a.startswith("--build-dir=")]
    build_dirs += [os.path.abspath(b) for a, b in zip(args, args[1:]) if a == "--build-dir"]
    failures = []
    with tempfile.TemporaryDirectory() as t1, tempfile.TemporaryDirectory() as t2:
        first, second = generate(t1, args), generate(t2, args)
        for name in first:
            if first[name] != second.get(name):
                failures.append("%s differs between two runs of tools/gen-docs (not "
                                "deterministic):\n%s" % (name, diff(first[name], second.get(name, ""),
                                                                      "run1/" + name, "run2/" + name)))
            for where in [ROOT, t1, os.path.realpath(t1)] + build_dirs:
                if where in first[name]:
                    failures.append("%s holds a path of this machine: %s" % (name, where))
        checked_in = read_checked_in()
        for name in sorted(set(first) | set(checked_in)):
            if name not in checked_in:
                failures.append("docs/reference/%s is missing" % name)
            elif name not in first:
                failures.append("docs/reference/%s is not written by tools/gen-docs" % name)
            elif checked_in[name] != first[name]:
                failures.append("docs/reference/%s is out of date:\n%s" % (
                    name, diff(checked_in[name], first[name], "docs/reference/" + name,
                               "generated/" + name)))
    if failures:
        for f in failures:
            print("FAIL: " + f)
        print("The reference pages differ from the code: run tools/gen-docs (after building) "
              "and commit docs/reference/.")
        return 1
    print("docs/reference is current: %s" % ", ".join(sorted(first)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
