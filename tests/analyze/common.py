"""Shared by the rocelb-analyze tests: paths and a runner of the tool."""

import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
TOOL = os.path.join(ROOT, "tools", "rocelb-analyze")
sys.path.insert(0, os.path.join(ROOT, "tools"))
sys.path.insert(0, HERE)


def run_tool(*args, timeout=300):
    """(exit code, stdout, stderr) of tools/rocelb-analyze ARGS."""
    p = subprocess.run(["/usr/bin/python3", TOOL] + list(args), capture_output=True, text=True,
                       timeout=timeout)
    return p.returncode, p.stdout, p.stderr


def report_index(html_text):
    import json
    import re
    m = re.search(r'<script type="application/json" id="report-index">(.*?)</script>',
                  html_text, re.S)
    if not m:
        raise AssertionError("no report-index script in the page")
    return json.loads(m.group(1).replace("<\\/", "</"))
