"""A real headless browser (Debian's chromium) opens report.html offline:
no console message (errors, uncaught exceptions), the page's own load check
ran, and every plot listed in report-index is a figure element whose SVG
was laid out with a non-empty box. Skipped only when chromium is absent."""

import os
import re
import shutil
import subprocess
import tempfile
import unittest
from html.parser import HTMLParser

from common import report_index, run_tool
import fixtures

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")


class _Figures(HTMLParser):
    """Each figure's attributes and whether it holds a non-empty svg/img."""

    def __init__(self):
        super().__init__()
        self.figures = {}
        self.body = {}
        self._cur = None
        self._depth = 0

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if tag == "body":
            self.body = a
        if tag == "figure":
            self._cur = a.get("id")
            self.figures[self._cur] = {"attrs": a, "graphic": 0}
        elif self._cur and tag in ("svg", "img"):
            self.figures[self._cur]["graphic"] += 1
        elif self._cur and tag in ("path", "image", "text", "use"):
            self.figures[self._cur]["graphic"] += 1

    def handle_endtag(self, tag):
        if tag == "figure":
            self._cur = None


@unittest.skipIf(CHROMIUM is None, "chromium is not installed (apt-get install chromium): "
                 "the headless browser check is skipped")
class BrowserTest(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.mkdtemp(prefix="analyze_browser_")

    def tearDown(self):
        shutil.rmtree(self.tmp, ignore_errors=True)

    def load(self, page):
        """(dumped DOM, console lines) of the page in headless chromium."""
        profile = os.path.join(self.tmp, "profile")
        env = dict(os.environ, HOME=self.tmp)
        p = subprocess.run(
            [CHROMIUM, "--headless", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
             "--no-first-run", "--user-data-dir=" + profile, "--enable-logging=stderr", "--v=0",
             "--virtual-time-budget=5000", "--dump-dom", "file://" + os.path.abspath(page)],
            capture_output=True, text=True, timeout=180, env=env)
        self.assertEqual(p.returncode, 0, p.stderr[-2000:])
        console = [l for l in p.stderr.splitlines() if ":CONSOLE" in l]
        return p.stdout, console

    def check(self, page):
        with open(page, encoding="utf-8") as f:
            index = report_index(f.read())
        self.assertTrue(index["plots"])
        dom, console = self.load(page)
        self.assertEqual(console, [], "console messages while loading %s" % page)
        parser = _Figures()
        parser.feed(dom)
        self.assertEqual(parser.body.get("data-render-check"), "ok",
                         "the page's load check did not pass: %s" % parser.body)
        self.assertEqual(parser.body.get("data-rendered-plots"), str(len(index["plots"])))
        for p in index["plots"]:
            fig = parser.figures.get(p["id"])
            self.assertIsNotNone(fig, "figure %s missing from the DOM" % p["id"])
            self.assertEqual(fig["attrs"].get("data-plot"), p["plot"])
            self.assertEqual(fig["attrs"].get("data-rendered"), "yes", p["id"])
            self.assertGreater(fig["graphic"], 3, "figure %s is empty" % p["id"])
        self.assertEqual(set(parser.figures), {p["id"] for p in index["plots"]})
        self.assertIsNone(re.search(r'<(script|link|img)[^>]+(src|href)="https?:', dom))

    def test_one_run(self):
        run = fixtures.make_replay(os.path.join(self.tmp, "fixed"))
        rc, out, err = run_tool(run)
        self.assertEqual(rc, 0, err)
        self.check(out.strip().splitlines()[-1])

    def test_two_runs(self):
        a = fixtures.make_replay(os.path.join(self.tmp, "fixed"))
        b = fixtures.make_fabric(os.path.join(self.tmp, "drill"))
        rc, out, err = run_tool(a, b, "--out", os.path.join(self.tmp, "cmp.html"))
        self.assertEqual(rc, 0, err)
        self.check(os.path.join(self.tmp, "cmp.html"))


if __name__ == "__main__":
    unittest.main()
