#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Load `profil report --format html` pages in headless Chromium and check them.

Drives Debian's chromedriver over the W3C WebDriver HTTP protocol with the
standard library only (urllib + json).  Prints the test protocol of
tests/run.sh: "ok NAME", "not ok NAME: why", "skip NAME: why".

usage: report_html.py --page HTML --json REPORT.json
                      [--hostile HTML --hostile-json REPORT.json --hostile-text TEXT]
                      [--stacked HTML CHILDREN.json]... [--screenshot PNG] [--workdir DIR]

REPORT.json is `profil report --format json` of the same profile: the truth
the page is checked against (hottest function, samples per thread/process).
--stacked: a page of a profile WITH call stacks and `profil report --children
--format json` of it: the page's self and total per function, the depth of its
flame graph and a zoom along the hottest stack are checked against it.
Chromium's and chromedriver's processes are ended (their process group, then
any left with our profile directory) whatever happens, and every wait is
bounded.
"""
import argparse
import base64
import json
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request

HTTP_TIMEOUT = 60  # one WebDriver command, s
WAIT = 10  # a condition in the page, s

CHROME_ARGS = [
    "--headless", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
    "--no-first-run", "--no-default-browser-check", "--disable-background-networking",
    "--disable-component-update", "--disable-sync", "--disable-quic",
    "--disable-extensions", "--disable-breakpad", "--disable-crash-reporter",
    "--window-size=1280,800", "--force-device-scale-factor=1",
]

# Installed before any script of the page runs: collects errors, alerts and
# CSP violations (a second check beside the browser's console log).
WATCH_JS = r"""
window.__seen = { errors: [], alerts: [], csp: [] };
window.addEventListener('error', function (e) {
    var what = e.message || ('load error: ' + (e.target && e.target.tagName));
    window.__seen.errors.push(String(what));
}, true);
window.addEventListener('securitypolicyviolation', function (e) {
    window.__seen.csp.push(e.violatedDirective + ' ' + e.blockedURI);
});
window.alert = window.confirm = window.prompt = function (m) {
    window.__seen.alerts.push(String(m));
};
"""

failures = 0


def ok(name):
    print("ok " + name, flush=True)


def nok(name, why):
    global failures
    failures += 1
    print("not ok %s: %s" % (name, " ".join(str(why).split())[:400]), flush=True)


def check(name, cond, why):
    if cond:
        ok(name)
    else:
        nok(name, why)
    return cond


class WebDriverError(Exception):
    def __init__(self, error, message):
        super().__init__("%s: %s" % (error, message))
        self.error = error


class Session:
    """A W3C WebDriver session: just the commands the test uses."""

    ELEMENT = "element-6066-11e4-a52e-4f735466cecf"

    def __init__(self, base, caps):
        self.base = base
        self.id = None
        value = self.call("POST", "/session", {"capabilities": {"alwaysMatch": caps}})
        self.id = value["sessionId"]

    def call(self, method, path, body=None):
        if self.id and not path.startswith("/session"):
            path = "/session/%s%s" % (self.id, path)
        data = json.dumps(body).encode() if body is not None else None
        if method == "POST" and data is None:
            data = b"{}"
        req = urllib.request.Request(self.base + path, data=data, method=method,
                                     headers={"Content-Type": "application/json"})
        try:
            with urllib.request.urlopen(req, timeout=HTTP_TIMEOUT) as r:
                reply = json.loads(r.read() or b"{}")
        except urllib.error.HTTPError as e:
            reply = json.loads(e.read() or b"{}")
        value = reply.get("value")
        if isinstance(value, dict) and "error" in value:
            raise WebDriverError(value["error"], value.get("message", "").split("\n")[0])
        return value

    def js(self, script, *args):
        return self.call("POST", "/execute/sync", {"script": script, "args": list(args)})

    def find(self, css):
        return self.call("POST", "/element", {"using": "css selector", "value": css})

    def find_all(self, css):
        return self.call("POST", "/elements", {"using": "css selector", "value": css})

    def text(self, elem):
        return self.call("GET", "/element/%s/text" % elem[self.ELEMENT])

    def displayed(self, elem):
        return self.call("GET", "/element/%s/displayed" % elem[self.ELEMENT])

    def click(self, elem):
        self.call("POST", "/element/%s/click" % elem[self.ELEMENT])

    def hover(self, elem):
        """Move the mouse to the middle of elem (WebDriver actions)."""
        self.call("POST", "/actions", {"actions": [{
            "type": "pointer", "id": "mouse", "parameters": {"pointerType": "mouse"},
            "actions": [{"type": "pointerMove", "duration": 0, "origin": elem, "x": 0, "y": 0}]}]})

    def type(self, elem, text):
        self.call("POST", "/element/%s/value" % elem[self.ELEMENT], {"text": text})

    def clear(self, elem):
        self.call("POST", "/element/%s/clear" % elem[self.ELEMENT])

    def prop(self, elem, name):
        return self.call("GET", "/element/%s/property/%s" % (elem[self.ELEMENT], name))

    def wait(self, script, *args, timeout=WAIT):
        """Poll script until it returns a true value (returned) or the timeout (None)."""
        end = time.monotonic() + timeout
        while True:
            v = self.js(script, *args)
            if v or time.monotonic() > end:
                return v or None
            time.sleep(0.05)


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def start_driver(tmp):
    """chromedriver on a free localhost port, in its own process group."""
    driver = shutil.which("chromedriver") or "/usr/bin/chromedriver"
    port = free_port()
    # the log path puts tmp on its command line: see --workdir
    proc = subprocess.Popen([driver, "--port=%d" % port, "--allowed-ips=127.0.0.1",
                             "--log-path=" + os.path.join(tmp, "chromedriver.log")],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                            stdin=subprocess.DEVNULL, start_new_session=True)
    base = "http://127.0.0.1:%d" % port
    end = time.monotonic() + 20
    while time.monotonic() < end:
        if proc.poll() is not None:
            raise RuntimeError("chromedriver exited with status %d" % proc.returncode)
        try:
            with urllib.request.urlopen(base + "/status", timeout=2) as r:
                if json.loads(r.read())["value"].get("ready"):
                    return proc, base
        except (OSError, ValueError, KeyError):
            pass
        time.sleep(0.1)
    raise RuntimeError("chromedriver did not answer on %s within 20 s" % base)


def stop_processes(proc, profile_dir):
    """End chromedriver's process group, then any process still using our profile dir
    (a Chromium helper may have left the group); returns the pids of the latter."""
    if proc:
        for sig, grace in ((signal.SIGTERM, 5), (signal.SIGKILL, 5)):
            try:
                os.killpg(proc.pid, sig)
            except ProcessLookupError:
                break
            try:
                proc.wait(timeout=grace)
                break
            except subprocess.TimeoutExpired:
                pass
    left = []
    for pid in os.listdir("/proc"):
        if not pid.isdigit():
            continue
        try:
            with open("/proc/%s/cmdline" % pid, "rb") as f:
                if profile_dir.encode() in f.read():
                    left.append(int(pid))
        except OSError:
            pass
    for pid in left:
        try:
            os.kill(pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
    return left


def open_browser(chromium, tmp, profile_dir, started):
    """chromedriver and a Chromium session (errors collected, a 1280x800 page).  chromedriver's
    process joins the list started as soon as it runs: end it with stop_processes whatever
    happens."""
    proc, base = start_driver(tmp)
    started.append(proc)
    s = Session(base, {
        "browserName": "chrome",
        "goog:chromeOptions": {"binary": chromium,
                               "args": CHROME_ARGS + ["--user-data-dir=" + profile_dir]},
        "goog:loggingPrefs": {"browser": "ALL"},
        "timeouts": {"pageLoad": 30000, "script": 30000},
    })
    s.call("POST", "/goog/cdp/execute",
           {"cmd": "Page.addScriptToEvaluateOnNewDocument", "params": {"source": WATCH_JS}})
    # a 1280x800 page whatever the headless window's frame takes
    s.call("POST", "/goog/cdp/execute",
           {"cmd": "Emulation.setDeviceMetricsOverride",
            "params": {"width": 1280, "height": 800, "deviceScaleFactor": 1, "mobile": False}})
    return s


# ---- what the page shows ---------------------------------------------------------

def file_url(path):
    return "file://" + urllib.request.pathname2url(os.path.abspath(path))


def load(s, page):
    s.call("POST", "/url", {"url": file_url(page)})
    return s.wait("return document.body && document.body.getAttribute('data-ready') === '1';")


def first_row(s):
    return s.js("""
        var tr = document.querySelector('#table tbody tr');
        if (!tr) return null;
        var c = tr.children;
        return { fn: tr.querySelector('td.fn').textContent, self: c[2].textContent };
    """)


def table_names(s):
    return s.js("return Array.from(document.querySelectorAll('#table tbody td.fn'))"
                ".map(function (td) { return td.textContent; });")


def shown_samples(s):
    t = s.js("return document.getElementById('selection-total').textContent;")
    m = re.search(r"([\d,]+) samples", t or "")
    return int(m.group(1).replace(",", "")) if m else None


# The flame graph frame whose label is text: its element, and the widths of its rect and the svg.
FRAME_JS = """
    var gs = document.querySelectorAll('#flame g.frame');
    for (var i = 0; i < gs.length; i++) {
        if (gs[i].querySelector('text').textContent === arguments[0]) {
            var r = gs[i].querySelector('rect');
            return { el: r, w: r.getBoundingClientRect().width, cls: gs[i].getAttribute('class'),
                     svg: document.getElementById('flame').getBoundingClientRect().width };
        }
    }
    return null;
"""


def seen(s):
    return s.js("return window.__seen || null;")


def no_errors(s, name):
    """No console error (browser log), no error event, alert or CSP violation in the page."""
    w = seen(s)
    check(name + "_watcher_installed", w is not None, "the error collector was not installed")
    if w is not None:
        check(name + "_no_error_events", not w["errors"], w["errors"])
        check(name + "_no_alerts", not w["alerts"], w["alerts"])
        check(name + "_no_csp_violations", not w["csp"], w["csp"])
    try:
        s.call("GET", "/alert/text")
        nok(name + "_no_dialog", "a JavaScript dialog is open")
    except WebDriverError as e:
        check(name + "_no_dialog", e.error == "no such alert", e)
    try:
        logs = s.call("POST", "/se/log", {"type": "browser"})
    except WebDriverError as e:
        nok(name + "_console_log", "cannot read the browser log: %s" % e)
        return
    bad = [e.get("message", "") for e in logs if e.get("level") in ("SEVERE", "ERROR")]
    check(name + "_no_console_errors", not bad, bad)


# ---- the tests ---------------------------------------------------------------------

def hottest(report):
    """Names with the most samples over all processes (by function and object), and that count."""
    by = {}
    for p in report["processes"]:
        for f in p["functions"]:
            if not f["samples"]:  # CPU time without samples ([unsampled], accounted
                continue          # [kernel]): the page shows sampled functions only
            k = (f["name"], f["object"])
            by[k] = by.get(k, 0) + f["samples"]
    top = max(by.values())
    # with call stacks the table also lists the callers: every frame of a stack
    frames = {(f["name"], f["object"]) for p in report["processes"] for f in p.get("frames", [])}
    return sorted({k[0] for k, v in by.items() if v == top}), top, len(set(by) | frames)


def below(report, names):
    """The functions some stack has under (called by) one of names."""
    out = set()
    for p in report["processes"]:
        for st in p.get("stacks", []):
            fr = [p["frames"][i]["name"] for i in st["frames"]]
            at = [i for i, n in enumerate(fr) if n in names]
            if at:
                out.update(fr[:max(at)])
    return out


def test_main(s, page, report, screenshot):
    if not check("load", load(s, page), "the page did not become ready in %d s" % WAIT):
        return
    hot, top, nfuncs = hottest(report)

    row = first_row(s)
    check("hottest_first_in_table", row and row["fn"] in hot and
          int(row["self"].replace(",", "")) == top,
          "first row %r, report --format json says %s with %d samples" % (row, hot, top))
    cell = s.find("#table tbody tr td.fn")
    check("hottest_first_row_visible", s.displayed(cell) and s.text(cell) in hot, s.text(cell))
    fr = s.js(FRAME_JS, hot[0])
    check("hottest_in_flame_graph", fr and fr["w"] > 20 and s.displayed(fr["el"]),
          "no visible frame labelled %r: %r" % (hot[0], fr))
    # the time the report has without samples: stated in the header (when there is some)
    other = report.get("accounted_seconds", 0) + report.get("unsampled_seconds", 0)
    facts = s.js("return document.getElementById('facts').innerText;")
    if other > 0:
        check("time_without_samples_stated", facts and "without samples" in facts and
              "%.3f s" % other in facts, "facts %r, report: %.3f s without samples" % (facts, other))
    else:
        check("time_without_samples_stated", facts and "without samples" not in facts,
              "facts %r, the report has none" % facts)
    # the process images as the text and JSON reports count them (every image, not only
    # those with samples)
    check("process_images_stated", facts and
          ("process images %d (" % len(report["processes"])) in facts.replace(",", ""),
          "facts %r, the report has %d process images" % (facts, len(report["processes"])))
    check("all_samples_shown", shown_samples(s) == report["total_samples"],
          "page shows %s samples, the profile has %d" % (shown_samples(s),
                                                          report["total_samples"]))

    # hover: a tooltip with the frame's name and numbers (kept in the screenshot)
    s.hover(fr["el"])
    tip = s.wait("var t = document.getElementById('tooltip');"
                 "return t.hidden ? null : t.innerText;")
    counts = {f["samples"] for p in report["processes"] for f in p["functions"]
              if f["name"] == hot[0]}  # the frame is under one of its processes
    check("tooltip_on_hover", tip and hot[0] in tip and
          any("%d samples" % n in tip.replace(",", "") for n in counts), "tooltip %r" % tip)
    if screenshot:
        take_screenshot(s, screenshot, "screenshot")

    # sorting: by function name (a click: ascending, another: descending), back to self
    s.click(s.find("#table-head th[data-key=name]"))
    up = s.wait("var n = Array.from(document.querySelectorAll('#table tbody td.fn'))"
                ".map(function (td) { return td.textContent; });"
                "return document.querySelector('#table-head th[data-key=name]')"
                ".getAttribute('aria-sort') === 'ascending' ? n : null;")
    check("sort_by_name", up and up == sorted(up, key=str.lower), up)
    s.click(s.find("#table-head th[data-key=name]"))
    down = s.wait("var n = Array.from(document.querySelectorAll('#table tbody td.fn'))"
                  ".map(function (td) { return td.textContent; });"
                  "return document.querySelector('#table-head th[data-key=name]')"
                  ".getAttribute('aria-sort') === 'descending' ? n : null;")
    check("sort_by_name_descending", down and down == sorted(down, key=str.lower, reverse=True),
          down)
    s.click(s.find("#table-head th[data-key=self]"))
    back = s.wait("return document.querySelector('#table-head th[data-key=self]')"
                  ".getAttribute('aria-sort') === 'descending';")
    check("sort_by_self", back and first_row(s)["fn"] in hot, first_row(s))

    # search: fewer table rows, all matching; matching frames highlighted, others not
    term = hot[0]
    names = table_names(s)
    check("table_has_all_functions", len(names) == nfuncs,
          "%d rows, report says %d functions" % (len(names), nfuncs))
    box = s.find("#search")
    s.type(box, term)
    names2 = s.wait("var n = document.querySelectorAll('#table tbody tr').length;"
                    "return n < arguments[0] ? n : 0;", len(names))
    check("search_filters_table", names2 and 0 < names2 < len(names),
          "%s rows after searching %r (before: %d)" % (names2, term, len(names)))
    names2 = table_names(s)
    check("search_rows_match", names2 and all(term.lower() in n.lower() for n in names2), names2)
    marks = s.js("""
        var m = [], o = [];
        document.querySelectorAll('#flame g.frame').forEach(function (g) {
            (g.classList.contains('match') ? m : o).push(g.querySelector('text').textContent);
        });
        return { match: m, other: o };
    """)
    check("search_highlights_frames", term in marks["match"] and
          not any(term.lower() in o.lower() for o in marks["other"] if o and "\u2026" not in o),
          marks)
    s.clear(box)
    back = s.wait("return document.querySelectorAll('#table tbody tr').length === arguments[0];",
                  len(names))
    check("search_cleared", back, "the table did not come back after clearing the search")

    # zoom: the clicked frame takes the full width; the breadcrumb ends with it
    fr = s.js(FRAME_JS, hot[0])
    if check("zoom_target", fr and fr["w"] < fr["svg"] - 2, "frame %r is already full width" % fr):
        s.click(fr["el"])
        z = s.wait("var f = (function () {" + FRAME_JS + "}).apply(null, arguments);"
                   "return f && f.w >= f.svg - 1 ? f : null;", hot[0])
        check("zoom_full_width", z, "the clicked frame %r is not full width" % hot[0])
        here = s.js("var h = document.querySelector('#crumbs .here'); return h && h.textContent;")
        check("zoom_breadcrumb", here == hot[0], "breadcrumb ends with %r" % here)
        others = s.js("return Array.from(document.querySelectorAll('#flame g.frame text'))"
                      ".map(function (t) { return t.textContent; });")
        crumbs = s.js("return Array.from(document.querySelectorAll('#crumbs button, #crumbs .here'))"
                      ".map(function (e) { return e.textContent; });") or []
        # shown: the frame, its ancestors (with stacks) and its callees
        keep = set(hot) | set(crumbs) | below(report, set(hot))
        check("zoom_hides_siblings", all(o in keep or o in ("all", "") or "(" in o for o in others),
              others)
        s.click(s.find("#reset"))
        out = s.wait("var h = document.querySelector('#crumbs .here');"
                     "return h && h.textContent === 'all';")
        check("zoom_reset", out, "the breadcrumb did not go back to 'all'")
        fr2 = s.js(FRAME_JS, hot[0])
        check("zoom_reset_width", fr2 and abs(fr2["w"] - fr["w"]) < 1, (fr, fr2))

    # selector: a thread alone shows that thread's samples
    threads = [(t["samples"], t["tid"], p["pid"]) for p in report["processes"]
               for t in p["threads"] if t["samples"]]
    small = min(threads)
    if choose_alone(s, "thread", "thread %d " % small[1], False, report["total_samples"], small[0]):
        tot = s.js("var s = 0; document.querySelectorAll('#table tbody tr').forEach(function (tr) {"
                   " s += +tr.children[2].textContent.replace(/,/g, ''); }); return s;")
        check("selector_filters_table", tot == small[0], "table self samples sum to %s" % tot)
    no_errors(s, "main")


def choose_alone(s, kind, label, at_start, total, want):
    """Choose the selector's option of kind ("thread", "process") whose label holds label
    (at_start: begins with it): the page must then show want of the total samples.  False when
    there is no such option."""
    opt = s.js("""
        var os = document.querySelectorAll('#selector option');
        for (var i = 0; i < os.length; i++) {
            var at = os[i].textContent.indexOf(arguments[1]);
            if (os[i].value.charAt(0) === arguments[0] && (arguments[2] ? at === 0 : at >= 0))
                return os[i];
        }
        return null;
    """, kind[0], label, at_start)
    if not check("selector_has_" + kind, opt, "no option for %r" % label):
        return False
    s.click(opt)
    got = s.wait("var t = document.getElementById('selection-total').textContent;"
                 "var m = /([\\d,]+) samples/.exec(t);"
                 "var n = m ? +m[1].replace(/,/g, '') : -1;"
                 "return n !== arguments[0] ? n : null;", total)
    check("selector_%s_total" % kind, got == want,
          "%s: page shows %s samples, the report says %d" % (label.strip(" ,"), got, want))
    return True


def take_screenshot(s, path, name):
    """A PNG of the page in path."""
    png = base64.b64decode(s.call("GET", "/screenshot"))
    with open(path, "wb") as f:
        f.write(png)
    check(name, png[:8] == b"\x89PNG\r\n\x1a\n", "not a PNG")


def self_and_total(s):
    """The table's rows: function -> (self, total) samples."""
    rows = s.js("""
        var r = {};
        document.querySelectorAll('#table tbody tr').forEach(function (tr) {
            var c = tr.children;
            r[tr.querySelector('td.fn').textContent] =
                [+c[2].textContent.replace(/,/g, ''), +c[5].textContent.replace(/,/g, '')];
        });
        return r;
    """)
    return {k: tuple(v) for k, v in (rows or {}).items()}


def test_hostile(s, page, report, text):
    """Profile strings that are markup must show as text and run nothing."""
    if not check("hostile_load", load(s, page), "the page did not become ready"):
        return
    hot, top, _ = hottest(report)
    check("hostile_no_img", s.js("return document.querySelectorAll('img').length;") == 0,
          "an <img> element was created from profile data")
    check("hostile_no_markup_in_selector",
          s.js("return document.querySelectorAll('#selector *:not(option):not(optgroup)').length;")
          == 0, "elements inside the selector")
    cmd = s.js("return document.getElementById('command').textContent;")
    check("hostile_command_as_text", text in (cmd or ""), "command shown as %r" % cmd)
    title = s.js("return document.title;")
    check("hostile_title_as_text", text in (title or ""), "title %r" % title)
    row = first_row(s)
    check("hostile_function_as_text", row and row["fn"] in hot and "<" in row["fn"],
          "first row %r, want %s" % (row, hot))
    fr = s.js(FRAME_JS, hot[0])
    check("hostile_frame_as_text", fr and s.displayed(fr["el"]),
          "no frame labelled %r" % hot[0])
    comm = s.js("return Array.from(document.querySelectorAll('#selector option'))"
                ".some(function (o) { return o.textContent.indexOf('</script><b>x') >= 0; });")
    check("hostile_thread_name_as_text", comm, "the thread name is not in the selector")
    # two processes: choosing one shows only its samples
    procs = [(p["samples"], p["pid"]) for p in report["processes"] if p["samples"]]
    check("hostile_two_processes", len(procs) == 2, procs)
    one = min(procs)
    if choose_alone(s, "process", "process %d," % one[1], True, report["total_samples"], one[0]):
        procs_drawn = s.js("return Array.from(document.querySelectorAll('#flame g.frame text'))"
                           ".filter(function (t) { return / \\(\\d+\\)$/.test(t.textContent); })"
                           ".map(function (t) { return t.textContent; });")
        check("selector_process_flame", len(procs_drawn) == 1 and
              procs_drawn[0].endswith("(%d)" % one[1]), procs_drawn)
    no_errors(s, "hostile")


# A profile with call stacks (what `profil record` will store once it unwinds), put into a
# page profil wrote: the same page code must draw stacks, totals and recursion.
STACKED = {
    "version": 1,
    "meta": {"command": "stacked", "clock": "perf", "clock_note": "", "rate_hz": 1000.0,
             "nominal_hz": 1000, "period_ns": 1000000, "seconds_per_sample": 0.001,
             "samples": 165, "lost": 0, "dropped": 0, "complete": True,
             "total_samples": 165, "total_seconds": 0.165, "cpu_seconds": 0.165, "notes": []},
    "procs": [{"pid": 7, "exe": "/bin/prog", "comm": "prog"}],
    "threads": [{"proc": 0, "tid": 7, "comm": "prog"}, {"proc": 0, "tid": 8, "comm": "worker"}],
    "frames": [{"name": n, "object": "/bin/prog", "file": None, "line": 0}
               for n in ("main", "run", "hot_a", "hot_b", "recurse", "worker_fn", "memcpy")],
    # [thread, count, leaf .. outermost]
    "samples": [[0, 50, 2, 1, 0], [0, 30, 3, 1, 0], [0, 10, 1, 0], [0, 25, 4, 4, 4, 0],
                [1, 40, 6, 5], [0, 10, 6, 2, 1, 0]],
}
# frame -> (self, total) over all threads
STACKED_WANT = {"main": (0, 125), "run": (10, 100), "hot_a": (50, 60), "hot_b": (30, 30),
                "recurse": (25, 25), "worker_fn": (0, 40), "memcpy": (50, 50)}


def make_stacked(page, out):
    """page with its data replaced by STACKED ('<' written as \\u003c, as profil does)."""
    with open(page, encoding="utf-8") as f:
        html = f.read()
    m = re.search(r'(<script type="application/json" id="profile-data">)(.*?)(</script>)', html,
                  re.S)
    data = json.dumps(STACKED).replace("<", "\\u003c")
    with open(out, "w", encoding="utf-8") as f:
        f.write(html[:m.start(2)] + data + html[m.end(2):])


def test_stacked(s, page):
    if not check("stacked_load", load(s, page), "the page did not become ready"):
        return
    got = self_and_total(s)
    check("stacked_self_and_total", got == STACKED_WANT, "table %s, want %s" % (got, STACKED_WANT))
    check("stacked_first_row", first_row(s)["fn"] in ("hot_a", "memcpy"), first_row(s))
    note = s.js("return document.getElementById('flame-note').textContent;")
    check("stacked_not_called_flat", not note, "flame note %r" % note)
    # depth: all, process, main, run, hot_a, memcpy = 6 rows; recurse is drawn 3 deep under main
    depth = s.js("return Math.max.apply(null, Array.from(document.querySelectorAll('#flame rect'))"
                 ".map(function (r) { return +r.getAttribute('y'); })) / 18 + 1;")
    check("stacked_depth", depth == 6, "%s rows" % depth)
    rec = s.js("return Array.from(document.querySelectorAll('#flame g.frame text'))"
               ".filter(function (t) { return t.textContent === 'recurse'; }).length;")
    check("stacked_recursion_levels", rec == 3, "%s frames labelled recurse" % rec)
    run = s.js(FRAME_JS, "run")
    if check("stacked_run_frame", run, "no frame 'run'"):
        s.click(run["el"])
        crumbs = s.wait("var c = Array.from(document.querySelectorAll('#crumbs button, #crumbs .here'))"
                        ".map(function (e) { return e.textContent; });"
                        "return c[c.length - 1] === 'run' ? c : null;")
        check("stacked_zoom_breadcrumb", crumbs == ["all", "prog (7)", "main", "run"], crumbs)
        z = s.js(FRAME_JS, "run")
        a = s.js(FRAME_JS, "hot_a")
        check("stacked_zoom_children", z and abs(z["w"] - z["svg"]) < 1 and a and
              abs(a["w"] / z["w"] - 60 / 100) < 0.01, (z, a))
        gone = s.js(FRAME_JS, "worker_fn")
        check("stacked_zoom_hides_other_subtrees", gone is None, gone)
        s.click(s.find("#crumbs button:nth-of-type(3)"))
        m = s.wait("var h = document.querySelector('#crumbs .here');"
                   "return h && h.textContent === 'main';")
        check("stacked_breadcrumb_zooms_out", m, "clicking 'main' in the breadcrumb")
    no_errors(s, "stacked")


def merged_totals(report):
    """name -> (self, total) over all processes, from report --children --format json."""
    by = {}
    for p in report["processes"]:
        for f in p["functions"]:
            a = by.get(f["name"], (0, 0))
            by[f["name"]] = (a[0] + f["samples"], a[1] + f["total_samples"])
    return by


def test_profile_stacks(s, page, report, name):
    """A page profil wrote for a profile with stacks agrees with report --children."""
    if not check(name + "_load", load(s, page), "the page did not become ready"):
        return
    got = self_and_total(s)
    want = merged_totals(report)
    check(name + "_self_and_total_as_report_children", got == want,
          "table %s, report --children %s" % (sorted(got.items()), sorted(want.items())))
    # (samples, pid, names root first) of every stack
    stacks = [(st["samples"], p["pid"], [p["frames"][i]["name"] for i in st["frames"]][::-1])
              for p in report["processes"] for st in p.get("stacks", [])]
    # the deepest path drawn: frames narrower than the page's MIN_W (0.4 px) are not
    paths = {}
    for c, pid, names in stacks:
        for k in range(1, len(names) + 1):
            key = (pid, tuple(names[:k]))
            paths[key] = paths.get(key, 0) + c
    width = s.js("return document.getElementById('flame').getBoundingClientRect().width;")
    total = sum(c for c, _, _ in stacks)
    deepest = max(len(k[1]) for k, c in paths.items() if c * width / total >= 0.4)
    depth = s.js("return Math.max.apply(null, Array.from(document.querySelectorAll('#flame rect'))"
                 ".map(function (r) { return +r.getAttribute('y'); })) / 18 + 1;")
    check(name + "_flame_depth", depth == deepest + 2,
          "%s rows, the deepest stack drawn has %d frames (+ all + process)" % (depth, deepest))
    kernel = any(f["object"] == "[kernel]" for p in report["processes"] for f in p["frames"])
    legend = s.js("return document.getElementById('legend').textContent;") or ""
    check(name + "_kernel_legend", ("kernel" in legend) == kernel,
          "legend %r, kernel frames: %s" % (legend, kernel))

    def one_node(fn):
        """fn is drawn once: in one process, under one path, never twice in a stack"""
        paths = {(pid, tuple(ns[:ns.index(fn)])) for _, pid, ns in stacks if fn in ns}
        return len(paths) == 1 and all(ns.count(fn) <= 1 for _, _, ns in stacks)

    # zoom on a frame drawn once whose child (drawn once too) has a good share of it: the widest
    # such frame, so that its label is whole; the child then takes its share of the width
    cands = []
    for c, pid, names in stacks:
        for k in range(len(names) - 1):
            target, kid = names[k], names[k + 1]
            if one_node(target) and one_node(kid):
                under = paths[(pid, tuple(names[:k + 1]))]
                through = paths[(pid, tuple(names[:k + 2]))]
                if through * 10 >= under:
                    cands.append((under, through, pid, names[:k + 2]))
    if not cands:
        nok(name + "_zoom", "no frame is drawn once with a child drawn once")
    else:
        under, through, pid, names = max(cands, key=lambda x: (x[0], x[1]))
        target, kid = names[-2], names[-1]
        fr = s.js(FRAME_JS, target)
        if check(name + "_zoom_target", fr, "no frame %r" % target):
            s.click(fr["el"])
            crumbs = s.wait("var c = Array.from(document.querySelectorAll('#crumbs button, #crumbs .here'))"
                            ".map(function (e) { return e.textContent; });"
                            "return c[c.length - 1] === arguments[0] ? c : null;", target)
            check(name + "_zoom_breadcrumb", crumbs and crumbs[0] == "all" and
                  crumbs[1].endswith("(%d)" % pid) and crumbs[2:] == names[:-1],
                  "%r, want all, the process %d, %r" % (crumbs, pid, names[:-1]))
            z, k = s.js(FRAME_JS, target), s.js(FRAME_JS, kid)
            check(name + "_zoom_child_share", z and k and abs(z["w"] - z["svg"]) < 1 and
                  abs(k["w"] / z["w"] - through / under) < 0.01,
                  "%r %r, want %s of the width" % (z, k, through / under))
    no_errors(s, name)


def test_offcpu(s, page, report):
    """A page of a profile with off-CPU time (record --off-cpu -g) switches its flame graph
    and table between wall, CPU and off-CPU time: each function's total in the table is the
    one `profil report --children --format json` gives (total_seconds of CPU,
    total_offcpu_seconds, their sum), off-CPU frames are drawn in their own colours."""
    if not check("offcpu_load", load(s, page), "the page did not become ready"):
        return
    want = {}
    for p in report["processes"]:
        for f in p["functions"]:
            a = want.get(f["name"], (0.0, 0.0))
            want[f["name"]] = (a[0] + f["total_seconds"], a[1] + f["total_offcpu_seconds"])
    got = s.js("var m = document.getElementById('mode'); return [m.value, "
               "!document.getElementById('mode-field').hidden, document.body.getAttribute('data-mode')];")
    check("offcpu_switch_shown_wall_first", got == ["wall", True, "wall"], got)
    # the table's total seconds per function (column 4: %, s, off s, % | %, s, ...) in each time
    TOTALS = """
        var r = {}, col = arguments[0];
        document.querySelectorAll('#table tbody tr').forEach(function (tr) {
            r[tr.querySelector('td.fn').textContent] = parseFloat(tr.children[col].textContent);
        });
        var gs = Array.from(document.querySelectorAll('#flame g.frame:not(.dark)'));
        return { rows: r, frames: gs.length, off: gs.filter(function (g) {
                     return /\\boff\\b/.test(g.getAttribute('class')); }).length,
                 legend: document.getElementById('legend').textContent,
                 fill: gs.length ? gs[gs.length - 1].querySelector('rect').getAttribute('fill') : '' };
    """
    names = [n for n in ("sleep_fn", "pipe_fn", "mutex_fn", "burn_fn") if n in want]
    check("offcpu_functions_in_report", len(names) == 4, sorted(want)[:20])
    for mode, col, pick in (("off", 3, lambda w: w[1]), ("cpu", 4, lambda w: w[0]),
                            ("wall", 4, lambda w: w[0] + w[1])):
        sel = s.find("#mode")
        s.js("var m = arguments[0]; m.value = arguments[1];"
             "m.dispatchEvent(new Event('change'));", sel, mode)
        if not s.wait("return document.body.getAttribute('data-mode') === arguments[0];", mode):
            nok("offcpu_%s_switch" % mode, "the page did not switch to %s" % mode)
            continue
        t = s.js(TOTALS, col)
        # (a function without time in this view has no row: 0)
        bad = ["%s %.4f != %.4f" % (n, t["rows"].get(n, 0.0), pick(want[n])) for n in names
               if abs(t["rows"].get(n, 0.0) - pick(want[n])) > 0.0015]
        check("offcpu_%s_table_totals" % mode, not bad, "%s; table %s" % (bad, t["rows"]))
        if mode == "off":
            check("offcpu_off_frames_own_colours", t["frames"] > 0 and t["off"] == t["frames"] and
                  "off the CPU" in t["legend"] and re.match(r"hsl\((2[5-8]\d|290),", t["fill"]),
                  t)
        elif mode == "cpu":
            check("offcpu_cpu_frames_not_off", t["frames"] > 0 and t["off"] == 0 and
                  "off the CPU" not in t["legend"], t)
        else:
            check("offcpu_wall_some_frames_off", 0 < t["off"] < t["frames"], t)
    no_errors(s, "offcpu")


def test_annotation(s, page, ann):
    """Clicking a function in the table, then in the flame graph, opens its annotation:
    its source lines and instructions, heat beside each, the hottest line the one
    `profil annotate --format json` names."""
    a = ann["annotations"][0]
    want_hot = [l for l in a["lines"] if l.get("hottest")][0]
    load(s, page)
    row = s.js("""
        var rows = Array.from(document.querySelectorAll('#table tbody tr'));
        for (var i = 0; i < rows.length; i++)
            if (rows[i].querySelector('td.fn').textContent === arguments[0]) return rows[i];
        return null;""", a["name"])
    check("annotation_row_found", row is not None, "no table row %r" % a["name"])
    if row is None:
        return
    s.click(row)
    s.wait("return !document.getElementById('annotation-card').hidden")
    got = s.js("""
        var card = document.getElementById('annotation-card');
        var src = Array.from(card.querySelectorAll('tr.src')), ins = card.querySelectorAll('tr.insn');
        var hot = card.querySelector('tr.src.hot');
        return { fn: card.getAttribute('data-function'), src: src.length, insns: ins.length,
                 hot: hot ? hot.querySelector('td.where').textContent : null,
                 heat: hot ? getComputedStyle(hot.querySelector('td.num')).backgroundColor : null,
                 text: hot ? hot.querySelector('td.code').textContent : null };""")
    check("annotation_opens_from_table", got["fn"] == a["name"],
          "the card shows %r, not %r" % (got["fn"], a["name"]))
    check("annotation_instructions", got["insns"] == len(a["instructions"]),
          "%d instruction rows, the JSON has %d" % (got["insns"], len(a["instructions"])))
    where = "%s:%d" % (os.path.basename(want_hot["file"]), want_hot["line"])
    check("annotation_hottest_line", got["hot"] is not None and got["hot"].startswith(where),
          "the hottest line shown is %r, profil annotate says %r" % (got["hot"], where))
    check("annotation_heat_colour", got["heat"] not in (None, "", "rgba(0, 0, 0, 0)"),
          "the hottest line has no heat colour (%r)" % got["heat"])
    check("annotation_source_text", bool(got["text"]) and got["text"] == want_hot.get("text"),
          "source text %r, want %r" % (got["text"], want_hot.get("text")))
    s.click(s.find("#annotation-close"))
    s.wait("return document.getElementById('annotation-card').hidden")
    fr = s.js("""
        var gs = Array.from(document.querySelectorAll('#flame g.frame'));
        for (var i = 0; i < gs.length; i++)
            if (gs[i].textContent.indexOf(arguments[0]) === 0) return gs[i];
        return null;""", a["name"])
    if fr is None:
        nok("annotation_opens_from_flame", "no flame frame %r" % a["name"])
        return
    s.click(fr)
    s.wait("return !document.getElementById('annotation-card').hidden")
    fn = s.js("return document.getElementById('annotation-card').getAttribute('data-function')")
    check("annotation_opens_from_flame", fn == a["name"], "the card shows %r" % fn)
    no_errors(s, "annotation")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--page", required=True)
    ap.add_argument("--json", required=True)
    ap.add_argument("--hostile")
    ap.add_argument("--hostile-json")
    ap.add_argument("--hostile-text")
    ap.add_argument("--stacked", nargs=2, action="append", default=[],
                    metavar=("HTML", "CHILDREN_JSON"))
    ap.add_argument("--annotate", nargs=2, metavar=("HTML", "ANNOTATE_JSON"))
    ap.add_argument("--offcpu", nargs=2, metavar=("HTML", "CHILDREN_JSON"),
                    help="a page of a profile with off-CPU time, and report --children --format "
                    "json of it")
    ap.add_argument("--screenshot")
    ap.add_argument("--workdir", help="an empty directory for the browser's files (default: a new "
                    "temporary one); every process whose command line names it is ours")
    a = ap.parse_args()
    return run_in_browser(a.workdir, "report_html_browser", "browser",
                          lambda s, tmp: run_report_tests(s, tmp, a))


def run_report_tests(s, tmp, a):
    with open(a.json) as f:
        report = json.load(f)
    test_main(s, a.page, report, a.screenshot)
    stacked = os.path.join(tmp, "stacked.html")
    make_stacked(a.page, stacked)
    test_stacked(s, stacked)
    for i, (page, rjson) in enumerate(a.stacked):
        with open(rjson) as f:
            test_profile_stacks(s, page, json.load(f), "stacks%d" % (i + 1))
    if a.annotate:
        with open(a.annotate[1]) as f:
            test_annotation(s, a.annotate[0], json.load(f))
    if a.offcpu:
        with open(a.offcpu[1]) as f:
            test_offcpu(s, a.offcpu[0], json.load(f))
    if a.hostile:
        with open(a.hostile_json) as f:
            hreport = json.load(f)
        test_hostile(s, a.hostile, hreport, a.hostile_text)


def run_in_browser(workdir, skip_name, fail_name, run):
    """Start headless Chromium in workdir (default: a new temporary directory), call run(s, tmp)
    with its session, and end its processes and remove tmp whatever happens.  Chromium missing or
    not starting: "skip SKIP_NAME"; an error of the session or a file: "not ok FAIL_NAME".
    The exit status: 1 when a check failed."""

    def on_signal(sig, frame):
        raise SystemExit("stopped by signal %d" % sig)

    signal.signal(signal.SIGTERM, on_signal)
    signal.signal(signal.SIGINT, on_signal)
    chromium = shutil.which("chromium") or "/usr/bin/chromium"
    if not os.access(chromium, os.X_OK) or not (shutil.which("chromedriver") or
                                                os.access("/usr/bin/chromedriver", os.X_OK)):
        print("skip %s: chromium or chromedriver is not installed" % skip_name)
        return 0
    tmp = workdir or tempfile.mkdtemp(prefix="profil-browser-")
    os.makedirs(tmp, exist_ok=True)
    profile_dir = os.path.join(tmp, "chromium-profile")
    started, s = [], None
    try:
        try:
            s = open_browser(chromium, tmp, profile_dir, started)
        except (RuntimeError, OSError, WebDriverError, ValueError) as e:
            print("skip %s: chromium cannot be started: %s" % (skip_name, e))
            return 0
        run(s, tmp)
    except (WebDriverError, OSError, ValueError, KeyError, TypeError) as e:
        nok(fail_name, "%s: %s" % (type(e).__name__, e))
    finally:
        # a second signal must not cut the cleanup short
        signal.signal(signal.SIGTERM, signal.SIG_IGN)
        signal.signal(signal.SIGINT, signal.SIG_IGN)
        if s and s.id:
            try:
                s.call("DELETE", "/session/%s" % s.id)
            except (WebDriverError, OSError, ValueError):
                pass
        stop_processes(started[0] if started else None, profile_dir)
        shutil.rmtree(tmp, ignore_errors=True)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
