#!/usr/bin/env python3
"""Run the course labs of configs/labs/ the way a student would.

For every configs/labs/<lab>/README.md (or only --lab NAME): check that the
folder has README.md and ANSWERS.md and that every configs/labs/... path
the README names exists, then run its ```sh blocks in order with bash from
the repository root under `set -euo pipefail`. In the commands, a word
starting with `build/` is rewritten to the --build-dir, and `out/labs/` to a
temporary folder (removed afterwards unless --keep). A block that exits
non-zero fails the lab; the failing command is named.

  run_labs.py --build-dir build [--lab 03-flowlet-gap] [--keep] [--verbose]

Standard library only. Exit status 0 when every lab passed, 1 otherwise.
"""
import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
LABS = os.path.join(REPO, "configs", "labs")

FENCE = re.compile(r"^```(\S*)\s*$")
# `build/` at the start of a command word: line start, after blanks, or after
# a shell operator or an opening bracket / quote.
BUILD_WORD = re.compile(r"(?<![\w./~$-])build/")
OUT_LABS = re.compile(r"(?<![\w./~$-])out/labs/")
# A path under configs/labs/ named in the README (stops at blanks, quotes,
# backticks, brackets and the characters that end a sentence or an argument).
LAB_PATH = re.compile(r"configs/labs/[A-Za-z0-9_./*-]*[A-Za-z0-9_*-]")


def sh_blocks(readme_text):
    """The ```sh blocks of a README, in order, as (first line number, text)."""
    blocks, cur, lang, start = [], None, None, 0
    for n, line in enumerate(readme_text.splitlines(), 1):
        m = FENCE.match(line.strip())
        if cur is None:
            if m:
                lang, cur, start = m.group(1), [], n + 1
        elif line.strip() == "```":
            if lang == "sh":
                blocks.append((start, "\n".join(cur) + "\n"))
            cur = None
        else:
            cur.append(line)
    if cur is not None:
        raise ValueError(f"README.md:{start - 1}: code block never closed")
    return blocks


def rewrite(cmd, build_dir, out_dir):
    cmd = BUILD_WORD.sub(lambda _: build_dir.rstrip("/") + "/", cmd)
    return OUT_LABS.sub(lambda _: out_dir.rstrip("/") + "/", cmd)


def check_files(lab, text):
    """Problems with the lab folder: missing files, dangling paths."""
    problems = []
    folder = os.path.join(LABS, lab)
    for name in ("README.md", "ANSWERS.md"):
        if not os.path.isfile(os.path.join(folder, name)):
            problems.append(f"{lab}: {name} is missing")
    for path in sorted(set(LAB_PATH.findall(text))):
        path = path.rstrip(".")
        if "*" in path:
            continue
        if not os.path.exists(os.path.join(REPO, path)):
            problems.append(f"{lab}: README.md names {path}, which does not exist")
    return problems


def run_lab(lab, build_dir, out_root, verbose):
    """Returns (ok, seconds, message)."""
    readme = os.path.join(LABS, lab, "README.md")
    try:
        text = open(readme, encoding="utf-8").read()
    except OSError as e:
        return False, 0.0, f"{lab}: README.md: {e.strerror}"
    problems = check_files(lab, text)
    if problems:
        return False, 0.0, "\n".join(problems)
    try:
        blocks = sh_blocks(text)
    except ValueError as e:
        return False, 0.0, f"{lab}: {e}"
    if not blocks:
        return False, 0.0, f"{lab}: README.md has no ```sh block"
    os.makedirs(out_root, exist_ok=True)
    t0 = time.monotonic()
    for line, block in blocks:
        script = ("set -euo pipefail\n"
                  "trap 'echo \"run_labs: failed: $BASH_COMMAND (exit $?)\" >&2' ERR\n"
                  + rewrite(block, build_dir, out_root))
        if verbose:
            print(f"--- {lab} README.md:{line}\n{block}", flush=True)
        proc = subprocess.run(["bash", "-c", script], cwd=REPO, stdout=subprocess.PIPE,
                              stderr=subprocess.STDOUT, text=True, errors="replace")
        if verbose:
            print(proc.stdout, end="", flush=True)
        if proc.returncode != 0:
            failed = [l for l in proc.stdout.splitlines() if l.startswith("run_labs: failed:")]
            what = failed[-1][len("run_labs: failed: "):] if failed else block.strip()
            tail = "\n".join(proc.stdout.splitlines()[-20:])
            return (False, time.monotonic() - t0,
                    f"{lab}: the ```sh block at README.md:{line} failed "
                    f"(exit {proc.returncode}): {what}\n{tail}")
    return True, time.monotonic() - t0, f"{lab}: {len(blocks)} blocks"


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--build-dir", required=True, help="the CMake build directory (holds dataplane/rocelb-dp)")
    ap.add_argument("--lab", action="append", help="only this lab folder (repeatable)")
    ap.add_argument("--keep", action="store_true", help="keep the outputs (their folder is printed)")
    ap.add_argument("--verbose", action="store_true", help="print each block and its output")
    args = ap.parse_args()

    build_dir = os.path.abspath(args.build_dir)
    if not os.path.isdir(build_dir):
        print(f"run_labs: --build-dir {args.build_dir}: not a directory", file=sys.stderr)
        return 2
    found = sorted(d for d in os.listdir(LABS)
                   if os.path.isdir(os.path.join(LABS, d)) and not d.startswith("."))
    labs = args.lab or [d for d in found if os.path.isfile(os.path.join(LABS, d, "README.md"))
                        or os.path.isfile(os.path.join(LABS, d, "ANSWERS.md"))]
    for lab in labs:
        if lab not in found:
            print(f"run_labs: no lab folder configs/labs/{lab}", file=sys.stderr)
            return 2

    tmp = tempfile.mkdtemp(prefix="rocelb-labs-")
    failures, total = 0, 0.0
    try:
        for lab in labs:
            ok, secs, msg = run_lab(lab, build_dir, os.path.join(tmp, "labs"), args.verbose)
            total += secs
            print(f"{'PASS' if ok else 'FAIL'} {lab} ({secs:.1f} s)" + ("" if ok else "\n" + msg),
                  flush=True)
            failures += not ok
    finally:
        if args.keep:
            print(f"outputs kept in {tmp}/labs")
        else:
            shutil.rmtree(tmp, ignore_errors=True)
    print(f"{len(labs) - failures} of {len(labs)} labs passed, {total:.1f} s of commands")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
