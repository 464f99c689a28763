#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Load `profil diff --format html` pages in headless Chromium and check them.

The browser is driven as tests/browser/report_html.py drives it (its helpers are
imported).  Prints the test protocol of tests/run.sh.

usage: diff_html.py --page HTML --json DIFF.json --grown NAME --steady NAME
                    [--screenshot PNG] [--workdir DIR]

DIFF.json is `profil diff --format json` of the same two profiles: the truth the
page is checked against.  NAME (--grown) is a function made slower in the new
profile, NAME (--steady) one that took the same CPU time in both: the page was
written without --normalize, so it first compares CPU seconds.  Checked: the
page opens without errors; the grown function is the table's first row and a
red frame; the steady one is pale (seconds) until the toggle compares shares,
where it shrank: then it is blue; hovering a frame shows its old, new and
change in samples, seconds and percent as the JSON has them; sorting; the
widths of the old profile; a page whose data is markup shows it as text.
"""
import argparse
import json
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import report_html as rh  # noqa: E402
from report_html import check  # noqa: E402

# The frame labelled arguments[0]: its colour (hue -1 neutral, 0 red, 215 blue), its change,
# the lightness of its fill and the widths of its rect and of the svg.
FRAME_JS = """
    var gs = document.querySelectorAll('#flame g.frame');
    for (var i = 0; i < gs.length; i++) {
        if (gs[i].querySelector('text').textContent === arguments[0]) {
            var r = gs[i].querySelector('rect'), f = r.getAttribute('fill');
            var m = /hsl\\((\\d+),(\\d+)%,(\\d+)%\\)/.exec(f);
            return { el: r, fill: f, hue: +gs[i].getAttribute('data-hue'),
                     change: +gs[i].getAttribute('data-change'), light: m ? +m[3] : null,
                     w: r.getBoundingClientRect().width,
                     svg: document.getElementById('flame').getBoundingClientRect().width };
        }
    }
    return null;
"""


def row_of(diff, name):
    return next((r for r in diff["functions"] if r["name"] == name), None)


def table(s):
    return s.js("""
        return Array.from(document.querySelectorAll('#table tbody tr')).map(function (tr) {
            return Array.from(tr.children).map(function (td) {
                return { text: td.textContent, cls: td.className };
            });
        });""")


def fmt_int(n):
    return "{:,}".format(n)


def test_main(s, page, diff, grown, steady, screenshot):
    if not check("diff_load", rh.load(s, page), "the page did not become ready in %d s" % rh.WAIT):
        return
    g, st = row_of(diff, grown), row_of(diff, steady)
    if not check("diff_rows_in_json", g and st, "no row %r or %r in the JSON" % (grown, steady)):
        return
    rows = table(s) or []
    check("diff_table_all_rows", len(rows) == len(diff["functions"]),
          "%d rows, the JSON has %d" % (len(rows), len(diff["functions"])))
    first = rows[0] if rows else []
    check("diff_grown_top_row", first and first[0]["text"] == grown and "grown" in first[7]["cls"],
          "first row %r" % [c["text"] for c in first])
    # seconds (the page's first mode without --normalize): the grown function red, the
    # steady one pale (its change is noise beside the grown one's)
    fg, fs = s.js(FRAME_JS, grown), s.js(FRAME_JS, steady)
    check("diff_grown_red", fg and fg["hue"] == 0 and fg["change"] > 0 and fg["light"] < 60,
          "frame %r" % fg)
    check("diff_steady_pale_in_seconds", fs and (fs["hue"] == -1 or fs["light"] >= 80), fs)
    unit = s.js("return document.getElementById('change-unit').textContent;")
    check("diff_unit_seconds", unit and "CPU seconds" in unit, unit)

    # hover: old, new and the change as the JSON says them
    s.hover(fg["el"])
    tip = s.wait("var t = document.getElementById('tooltip'); return t.hidden ? null : t.innerText;")
    tip = tip or ""
    want = ["Old:", "New:", "Change:", fmt_int(g["old"]["samples"]) + " samples",
            fmt_int(g["new"]["samples"]) + " samples", "%.2f%%" % g["old"]["percent"],
            "%.2f%%" % g["new"]["percent"], "%+.2f pts" % g["delta_percent"],
            "%+d samples" % (g["new"]["samples"] - g["old"]["samples"]),
            "+%.3f s" % g["delta_seconds"]]
    missing = [w for w in want if w not in tip.replace("\u2212", "-")]
    check("diff_tooltip", grown in tip and not missing, "tooltip %r lacks %r" % (tip, missing))
    if screenshot:
        rh.take_screenshot(s, screenshot, "diff_screenshot")

    # the toggle: shares of each profile's samples; the steady function shrank (blue)
    s.click(s.find("#normalize"))
    ns = s.wait("var f = (function () {" + FRAME_JS + "}).apply(null, arguments);"
                "return f && f.fill !== arguments[1] ? f : null;", steady, fs["fill"] if fs else "")
    check("diff_toggle_changes_colours", ns is not None, "the steady frame kept %r" % fs)
    check("diff_steady_blue_normalised", ns and ns["hue"] == 215 and ns["change"] < 0 and
          abs(ns["change"] - st["delta_percent"]) < 0.01, "frame %r, JSON %r" % (ns, st))
    fg2 = s.js(FRAME_JS, grown)
    check("diff_grown_red_normalised", fg2 and fg2["hue"] == 0 and
          abs(fg2["change"] - g["delta_percent"]) < 0.01, fg2)
    unit = s.js("return document.getElementById('change-unit').textContent;")
    check("diff_unit_points", unit and "percentage points" in unit, unit)
    rows = table(s) or [[{"text": ""}]]
    check("diff_grown_top_row_normalised", rows[0][0]["text"] == grown,
          [c["text"] for c in rows[0]])
    s.hover(ns["el"] if ns else fg2["el"])
    tip = s.wait("var t = document.getElementById('tooltip');"
                 "return t.hidden || t.innerText.indexOf(arguments[0]) < 0 ? null : t.innerText;",
                 steady) or ""
    check("diff_tooltip_points", "Change: %+.2f pts" % st["delta_percent"] in tip, tip)

    # sorting: by name, then the change back on top
    s.click(s.find("#table-head th[data-key=name]"))
    names = s.wait("var n = Array.from(document.querySelectorAll('#table tbody td.fn'))"
                   ".map(function (td) { return td.textContent; });"
                   "return document.querySelector('#table-head th[data-key=name]')"
                   ".getAttribute('aria-sort') === 'ascending' ? n : null;")
    check("diff_sort_by_name", names and names == sorted(names, key=lambda x: (x.lower(), x)), names)
    s.click(s.find("#table-head th[data-key=dpct]"))
    s.wait("return document.querySelector('#table-head th[data-key=dpct]')"
           ".getAttribute('aria-sort') === 'descending';")
    got = [float(r[4]["text"]) for r in (table(s) or [])]
    check("diff_sort_by_change", got and got == sorted(got, reverse=True) and
          table(s)[0][0]["text"] == grown, got)

    # the widths of the old profile: the grown function is narrower there
    w_new = s.js(FRAME_JS, grown)
    s.js("var w = document.getElementById('widths'); w.value = '0';"
         "w.dispatchEvent(new Event('change'));")
    w_old = s.js(FRAME_JS, grown)
    share_old = g["old"]["samples"] / diff["old"]["total_samples"]
    share_new = g["new"]["samples"] / diff["new"]["total_samples"]
    check("diff_widths_of_old", w_new and w_old and
          abs(w_old["w"] / w_old["svg"] - share_old) < 0.02 and
          abs(w_new["w"] / w_new["svg"] - share_new) < 0.02,
          "widths %r / %r of the svg, shares old %.3f new %.3f" % (
              w_old and w_old["w"], w_new and w_new["w"], share_old, share_new))
    rh.no_errors(s, "diff")


HOSTILE = '</script><img src=x onerror=alert(1)><b>x'


def make_hostile(page, out):
    """page with every name of its data made markup ('<' written as \\u003c, as profil does)."""
    with open(page, encoding="utf-8") as f:
        html = f.read()
    m = re.search(r'(<script type="application/json" id="profile-data">)(.*?)(</script>)', html,
                  re.S)
    d = json.loads(m.group(2))
    for fr in d["frames"]:
        fr["name"] = HOSTILE + fr["name"]
    for t in ("functions", "objects", "commands"):
        for r in d["diff"][t]:
            r["name"] = HOSTILE + r["name"]
    d["diff"]["old"]["command"] = HOSTILE
    d["diff"]["new"]["notes"] = [HOSTILE]
    d["nodes"].append([0, 999999, 1, 1])  # a node whose frame is not one: dropped, said
    data = json.dumps(d).replace("<", "\\u003c")
    with open(out, "w", encoding="utf-8") as f:
        f.write(html[:m.start(2)] + data + html[m.end(2):])


def test_hostile(s, page):
    if not check("diff_hostile_load", rh.load(s, page), "the page did not become ready"):
        return
    made = s.js("return document.querySelectorAll('img, #table b, #notes-list b, #command b, "
                "#flame b, #tooltip b').length;")
    check("diff_hostile_no_markup", made == 0, "%s elements were made from the data" % made)
    title = s.js("return document.getElementById('command').textContent;") or ""
    check("diff_hostile_command_as_text", HOSTILE in title, title)
    first = (table(s) or [[{"text": ""}]])[0][0]["text"]
    check("diff_hostile_name_as_text", first.startswith(HOSTILE), first)
    labels = s.js("return Array.from(document.querySelectorAll('#flame text'))"
                  ".map(function (t) { return t.textContent; }).join(' ');") or ""
    check("diff_hostile_frames_as_text", "</script>" in labels, labels[:200])
    notes = s.js("return document.getElementById('notes-list').textContent;") or ""
    check("diff_hostile_bad_node_said", "1 malformed node" in notes and HOSTILE in notes, notes)
    rh.no_errors(s, "diff_hostile")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--page", required=True)
    ap.add_argument("--json", required=True)
    ap.add_argument("--grown", required=True)
    ap.add_argument("--steady", required=True)
    ap.add_argument("--screenshot")
    ap.add_argument("--workdir")
    a = ap.parse_args()
    return rh.run_in_browser(a.workdir, "diff_html_browser", "diff_browser",
                             lambda s, tmp: run_diff_tests(s, tmp, a))


def run_diff_tests(s, tmp, a):
    with open(a.json) as f:
        diff = json.load(f)
    test_main(s, a.page, diff, a.grown, a.steady, a.screenshot)
    hostile = os.path.join(tmp, "hostile.html")
    make_hostile(a.page, hostile)
    test_hostile(s, hostile)


if __name__ == "__main__":
    sys.exit(main())
