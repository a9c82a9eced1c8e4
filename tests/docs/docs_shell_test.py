#!/usr/bin/python3
"""DocsShell.<page>: every ```sh block of a page runs as pasted.

  docs_shell_test.py --build-dir DIR PAGE [--keep] [--verbose] [--timeout S]
  docs_shell_test.py --list            # the pages, one a line (for CMake)

PAGE is README.md, docs/tutorials/NAME.md or docs/howto/NAME.md. Its ```sh
blocks run in page order, unchanged, in ONE bash (so a variable or a
background job of one block is there for the next), under
`set -eEuo pipefail`, from a fresh working copy of the repository: a
temporary folder with a link to every top-level entry of the source tree
(configs/, tools/, lb/...), `build` linked to DIR and nothing else, so what
a page writes (out/..., a config it makes) lands there and is removed
afterwards (kept with --keep). That is the convention the pages state once
in the README: commands from the top of the clone, programs from build/,
outputs under out/.

As root (with unshare(1)), the page runs in new network, mount and PID
namespaces with a private /run and the loopback up: taps, veths, network
namespaces, control sockets and switches the page makes cannot meet
anything else, and die with it. Without root, a block marked as root and
every block after it are skipped.

Markers, an HTML comment on the line right above a fence (several may
stack):
  <!-- docs-shell: skip — WHY -->   the block is not run; WHY is reported
                                     (a real NIC, a long benchmark...)
  <!-- docs-shell: as root -->       the block needs root (taps, netns)
A fence of bash, shell, console or zsh is refused: a shell block is ```sh
(run here) or ```text (output, a synopsis).

Fails (exit 1) when a block exits non-zero (the page, the block's line, the
failing line and the output are printed), when the page's commands leave a
process running (a missing teardown), or past --timeout (default 100 s).
Prints how many blocks ran and how many were skipped, and why. Exit 77
(ctest: skipped) when nothing could run. Standard library only.
"""

import argparse
import glob
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
FENCE = re.compile(r"^(\s*)```+\s*([^\s`]*)")
MARKER = re.compile(r"^\s*<!--\s*docs-shell:\s*(.*?)\s*-->\s*$")
SHELL_LANGS = {"bash", "shell", "console", "zsh", "shell-session"}
SKIP_EXIT = 77
TAIL_LINES = 120


def pages():
    """Every page whose shell blocks are tested, relative to ROOT."""
    found = ["README.md"]
    for d in ("docs/tutorials", "docs/howto"):
        found += sorted(os.path.relpath(p, ROOT) for p in glob.glob(os.path.join(ROOT, d, "*.md")))
    return found


class Block:
    def __init__(self, line, text, skip, root):
        self.line = line  # the page line of the block's first command line
        self.text = text
        self.skip = skip  # None, or why it is not run
        self.root = root


def parse(page, text):
    """The page's ```sh blocks, in order; raises ValueError on a bad page."""
    lines = text.splitlines()
    blocks, i = [], 0
    while i < len(lines):
        m = FENCE.match(lines[i])
        if not m:
            if MARKER.match(lines[i]) and not any(
                    FENCE.match(l) or MARKER.match(l) for l in lines[i + 1:i + 2]):
                raise ValueError("%s:%d: a docs-shell marker must be right above a fence"
                                 % (page, i + 1))
            i += 1
            continue
        indent, lang = m.group(1), m.group(2).lower()
        start = i
        i += 1
        body = []
        while i < len(lines) and not re.match(r"^\s*```+\s*$", lines[i]):
            body.append(lines[i][len(indent):] if lines[i].startswith(indent) else lines[i])
            i += 1
        if i == len(lines):
            raise ValueError("%s:%d: code block never closed" % (page, start + 1))
        i += 1
        if lang in SHELL_LANGS:
            raise ValueError("%s:%d: a ```%s block: write ```sh (it runs in DocsShell) or "
                             "```text (output, a synopsis)" % (page, start + 1, lang))
        skip, root, j = None, False, start - 1
        while j >= 0 and MARKER.match(lines[j]):
            what = MARKER.match(lines[j]).group(1)
            if lang != "sh":
                raise ValueError("%s:%d: a docs-shell marker above a ```%s block"
                                 % (page, j + 1, lang or "(plain)"))
            if re.match(r"^skip\b", what):
                skip = re.sub(r"^skip\s*[—:-]*\s*", "", what)
                if not skip:
                    raise ValueError("%s:%d: `docs-shell: skip` says why: "
                                     "<!-- docs-shell: skip — WHY -->" % (page, j + 1))
            elif what == "as root":
                root = True
            else:
                raise ValueError("%s:%d: unknown docs-shell marker %r (skip — WHY, as root)"
                                 % (page, j + 1, what))
            j -= 1
        if lang == "sh":
            blocks.append(Block(start + 2, "\n".join(body) + "\n", skip, root))
    return blocks


def working_copy(build_dir):
    """A fresh folder that looks like the top of a clone with build/ built."""
    work = tempfile.mkdtemp(prefix="rocelb-docs-shell-")
    for name in sorted(os.listdir(ROOT)):
        if name == ".git" or name == "out" or name == "build" or name.startswith("build-"):
            continue
        os.symlink(os.path.join(ROOT, name), os.path.join(work, name))
    os.symlink(os.path.abspath(build_dir), os.path.join(work, "build"))
    return work


def script(blocks, work, status_file, in_namespaces):
    """The bash script of the blocks to run, and its line -> page line map."""
    out = ["set -eEuo pipefail",
           "trap 'echo \"$? $LINENO\" > %s' ERR" % status_file]
    if in_namespaces:
        out += ["mount -t tmpfs rocelb-docs-shell /run", "ip link set lo up"]
    out += ["cd %s" % work]
    where = {}
    for b in blocks:
        out.append("echo '--- docs-shell: block at line %d' >&2" % b.line)
        for k, line in enumerate(b.text.splitlines()):
            out.append(line)
            where[len(out)] = (b, b.line + k)
    # What the page left running: its own jobs, and in the PID namespace
    # (where this shell is 1) any other process.
    out += ["trap - ERR",
            "echo '--- docs-shell: after the last block' >&2",
            "if [ -n \"$(jobs -rp)\" ]; then echo 'docs-shell: still running after the page:' "
            "\"$(jobs -rp)\" >&2; jobs -l >&2; exit 95; fi"]
    if in_namespaces:
        out += ["ps -e -o pid=,args= > %s.ps" % status_file,
                "left=0",
                "while read -r pid args; do",
                "  case $pid in 1|$$) continue;; esac",
                "  case $args in ps\\ *) continue;; esac",
                "  echo \"docs-shell: still running after the page: $pid $args\" >&2; left=1",
                "done < %s.ps" % status_file,
                "[ $left = 0 ] || exit 95"]
    out.append("echo DOCS-SHELL-DONE")
    return "\n".join(out) + "\n", where


def tail(text, n=TAIL_LINES):
    lines = text.splitlines()
    if len(lines) > n:
        lines = ["... (%d lines before)" % (len(lines) - n)] + lines[-n:]
    return "\n".join(lines)


def main():
    p = argparse.ArgumentParser(usage=__doc__.split("\n\n")[1])
    p.add_argument("page", nargs="?")
    p.add_argument("--build-dir", default=os.path.join(ROOT, "build"))
    p.add_argument("--list", action="store_true")
    p.add_argument("--keep", action="store_true")
    p.add_argument("--verbose", action="store_true", help="print the output on success too")
    p.add_argument("--timeout", type=float, default=100)
    a = p.parse_args()
    if a.list:
        print("\n".join(pages()))
        return 0
    if not a.page or a.page not in pages():
        p.error("PAGE must be one of: %s" % ", ".join(pages()))

    try:
        with open(os.path.join(ROOT, a.page), encoding="utf-8") as f:
            blocks = parse(a.page, f.read())
    except ValueError as e:
        print("FAIL: %s" % e)
        return 1

    is_root = os.geteuid() == 0
    in_namespaces = is_root and shutil.which("unshare") and shutil.which("ip")
    run, skipped = [], []
    for b in blocks:
        if b.skip:
            skipped.append((b, b.skip))
        elif b.root and not in_namespaces:
            skipped += [(c, "needs root, unshare(1) and ip(8) (the blocks after it too)")
                        for c in blocks[blocks.index(b):] if not c.skip]
            break
        else:
            run.append(b)
    for b, why in skipped:
        print("skipped: %s:%d: %s" % (a.page, b.line, why))
    if not run:
        print("%s: no block ran (%d ```sh blocks, %d skipped)" % (a.page, len(blocks),
                                                                   len(skipped)))
        return SKIP_EXIT

    work = working_copy(a.build_dir)
    status_file = os.path.join(work, ".docs-shell-status")
    text, where = script(run, work, status_file, in_namespaces)
    with open(os.path.join(work, ".docs-shell.sh"), "w") as f:
        f.write(text)
    cmd = ["bash", os.path.join(work, ".docs-shell.sh")]
    if in_namespaces:
        cmd = ["unshare", "--mount", "--net", "--pid", "--fork", "--kill-child", "--mount-proc",
               "--propagation", "private"] + cmd
    env = {"PATH": "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin",
           "LC_ALL": "C.UTF-8", "HOME": work, "TERM": "dumb", "PYTHONDONTWRITEBYTECODE": "1",
           "TMPDIR": os.environ.get("TMPDIR", "/tmp")}
    start = time.monotonic()
    try:
        r = subprocess.run(["timeout", "-k", "5", str(a.timeout)] + cmd, cwd=work, env=env,
                           stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                           stderr=subprocess.STDOUT, text=True, errors="replace")
        output, rc = r.stdout, r.returncode
    finally:
        seconds = time.monotonic() - start
    ok = rc == 0 and "DOCS-SHELL-DONE" in output
    if not ok:
        print("FAIL: %s: its ```sh blocks did not run as pasted (exit %d, %.1f s)"
              % (a.page, rc, seconds))
        failed = None
        if os.path.exists(status_file):
            with open(status_file) as f:
                parts = f.read().split()
            if len(parts) == 2 and int(parts[1]) in where:
                failed = where[int(parts[1])] + (int(parts[0]),)
        if rc in (124, 137):
            print("  it ran past --timeout %g s" % a.timeout)
        elif rc == 95:
            print("  the page left a process running: a block lacks its teardown")
        if failed:
            b, line, code = failed
            print("  %s:%d exited %d, in the block at line %d:" % (a.page, line, code, b.line))
            for k, l in enumerate(b.text.splitlines()):
                print("  %s %5d  %s" % (">" if b.line + k == line else " ", b.line + k, l))
        print("--- output (stdout and stderr):")
        print(tail(output))
        print("--- the working copy is kept: %s" % work)
        return 1
    if a.verbose:
        print(output)
    print("%s: %d ```sh blocks ran as pasted in %.1f s%s; %d skipped" % (
        a.page, len(run), seconds, " (as root, in namespaces)" if in_namespaces else "",
        len(skipped)))
    if a.keep:
        print("working copy kept: %s" % work)
    else:
        shutil.rmtree(work, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
