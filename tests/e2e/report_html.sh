#!/bin/sh
# profil report --format html: the page file (self-contained, atomically
# written, profile strings never as markup in the file), its options, and the
# page itself in headless Chromium (tests/browser/report_html.py): a real
# recorded profile (report_spin: the hottest function first in the table and
# in the flame graph, search, zoom, thread selection, no console errors) and a
# hostile one (html_hostile: its command line, thread name and function symbol
# are markup; they must show as text and run nothing), and profiles WITH call
# stacks (report_stackgen: real stacks taken with backtrace(), and synthetic ones
# with kernel frames and a cut-short stack): the table's self and total agree with
# report --children, the flame graph is as deep as the deepest stack, zooming
# along the hottest stack.  The browser part skips only when Chromium cannot be
# installed or started.
#
# HTML_SCREENSHOT=FILE keeps the screenshot there (default: in the build dir;
# doc/html-report.png is one).
. "$ROOT/tests/e2e/report/common.sh"
EVIL='</script><img src=x onerror=alert(1)>'
SHOT=${HTML_SCREENSHOT:-$B/tests/html-report.png}

# ---- the file, without a browser (generated profile: exact) -------------------
"$P/report_gen_pie" "$T/gen.data" >/dev/null || no gen "report_gen failed"
fails_rc 2 html_needs_output "$PROFIL" report -i "$T/gen.data" --format html
fails_rc 2 output_only_for_html "$PROFIL" report -i "$T/gen.data" --format json -o "$T/x.json"
[ ! -e "$T/x.json" ] && ok output_refused_writes_nothing || no output_refused_writes_nothing "x.json exists"

"$PROFIL" report -i "$T/gen.data" --format html -o "$T/gen.html" 2>"$T/err"
expect html_status "$?" 0
expect html_quiet "$(cat "$T/err")" ""
html_page "$T/gen.html"
# the data is the profile
page_data "$T/gen.html" >"$T/gen.json"
"$PROFIL" report -i "$T/gen.data" --format csv --threads >"$T/gen.csv"
# every (pid, tid, function, object) of the csv report has the same samples in the page's data
if python3 -c '
import csv, json, sys
d = json.load(open(sys.argv[1]))
want = {}
for r in csv.DictReader(open(sys.argv[2])):
    k = (int(r["pid"]), int(r["tid"]), r["function"], r["object"])
    want[k] = want.get(k, 0) + int(r["samples"])
got = {}
for r in d["samples"]:
    t = d["threads"][r[0]]
    f = d["frames"][r[2]]
    k = (d["procs"][t["proc"]]["pid"], t["tid"], f["name"], f["object"])
    got[k] = got.get(k, 0) + r[1]
assert all(len(r) == 3 for r in d["samples"]), "a flat profile has one frame per row"
assert got == want, (sorted(set(got.items()) ^ set(want.items())))[:5]
assert d["version"] == 1 and d["meta"]["total_samples"] == sum(want.values()) == 842
names = [(f["name"], f["object"], f["file"], f["line"]) for f in d["frames"]]
assert len(names) == len(set(names)), "frames are not unique"
' "$T/gen.json" "$T/gen.csv" 2>"$T/err"; then
	ok html_data_matches_csv_report
else
	no html_data_matches_csv_report "$(tail -1 "$T/err")"
fi

# --lines: frames are function + source line, as in the csv report
"$PROFIL" report -i "$T/gen.data" --format html --lines -o "$T/lines.html" &&
	"$PROFIL" report -i "$T/gen.data" --format csv --lines >"$T/lines.csv"
page_data "$T/lines.html" >"$T/lines.json"
if python3 -c '
import csv, json, sys
d = json.load(open(sys.argv[1]))
want = {(r["function"], r["file"], int(r["line"])) for r in csv.DictReader(open(sys.argv[2]))}
got = {(f["name"], f["file"] or "", f["line"]) for f in d["frames"]}
assert got == want, sorted(got ^ want)[:5]
assert any(f["file"] and f["line"] > 0 for f in d["frames"] if f["name"] == "hot_a")
' "$T/lines.json" "$T/lines.csv" 2>"$T/err"; then
	ok html_lines
else
	no html_lines "$(tail -1 "$T/err")"
fi

"$PROFIL" report -i "$T/gen.data" --format html -o - >"$T/stdout.html" 2>"$T/err"
expect html_stdout_status "$?" 0
expect html_stdout_size "$(wc -c <"$T/stdout.html")" "$(wc -c <"$T/gen.html")"
ln -s "$T/gen.html" "$T/link.html"
"$PROFIL" report -i "$T/gen.data" --format html -o "$T/link.html" 2>"$T/err"
expect html_refuses_symlink "$?:$(wc -l <"$T/err")" "1:1"
"$PROFIL" report -i "$T/nope.data" --format html -o "$T/nope.html" 2>"$T/err"
expect html_bad_input "$?:$(wc -l <"$T/err"):$([ -e "$T/nope.html" ] && echo file)" "1:1:"
"$PROFIL" report -i "$T/gen.data" --format html -o "$T/no/such/dir.html" 2>"$T/err"
expect html_bad_output "$?:$(wc -l <"$T/err")" "1:1"

# ---- profiles with call stacks (until record -g: written by report_stackgen) -----
STACKED=
for m in real synthetic; do
	if "$P/report_stackgen" "$T/$m.data" "$m" >/dev/null &&
		"$PROFIL" report -i "$T/$m.data" --children --format json >"$T/$m.json" &&
		"$PROFIL" report -i "$T/$m.data" --format html -o "$T/$m.html"; then
		STACKED="$STACKED --stacked $T/$m.html $T/$m.json"
	else
		no "stacked_$m" "report_stackgen or profil report failed"
	fi
done

# ---- real profiles --------------------------------------------------------------
if ! "$PROFIL" record --help >/dev/null 2>&1; then
	echo "skip report_html_browser: profil record is not part of this build"
	exit 0
fi
if ! "$PROFIL" record -q -o "$T/spin.data" -- "$P/report_spin" >/dev/null 2>"$T/err"; then
	no record_spin "$(cat "$T/err")"
	exit 0
fi
if ! "$PROFIL" record -q -o "$T/evil.data" -- "$P/html_hostile" 0.2 "$EVIL" >/dev/null 2>"$T/err"; then
	no record_hostile "$(cat "$T/err")"
	exit 0
fi
for p in spin evil; do
	"$PROFIL" report -i "$T/$p.data" --format json >"$T/$p.json" &&
		"$PROFIL" report -i "$T/$p.data" --format html -o "$T/$p.html" ||
		no "report_$p" "profil report failed"
done
# the hostile strings are in the profile, and nowhere in the file as markup
grep -qF "$EVIL" "$T/evil.json" && ok hostile_in_profile || no hostile_in_profile "$(head -c 300 "$T/evil.json")"
if grep -qiE '<img|</script><|<b>x' "$T/evil.html"; then
	no hostile_escaped_in_file "$(grep -oiE '.{20}(<img|</script><|<b>x).{20}' "$T/evil.html" | head -3)"
else
	ok hostile_escaped_in_file
fi

# ---- in the browser ---------------------------------------------------------------
# The driver ends chromedriver and Chromium itself; should it be killed first, whatever
# still names our browser directory on its command line is ended here, by pid.
end_browser() {
	for c in /proc/[0-9]*/cmdline; do
		if { tr '\0' ' ' <"$c"; } 2>/dev/null | grep -qF "$T/browser"; then
			p=${c#/proc/}
			kill -9 "${p%/cmdline}" 2>/dev/null
		fi
	done
}
trap 'end_browser; rm -rf "$T"' EXIT
# a page that annotates: the two measured loops, and profil annotate's own JSON of them
ANNOTATE=
if "$PROFIL" record -o "$T/loops.data" -- "$P/annotate_loops" 0.3 >/dev/null 2>&1 &&
	"$PROFIL" report -i "$T/loops.data" --format html -o "$T/loops.html" &&
	"$PROFIL" annotate -i "$T/loops.data" --format json two_loops >"$T/loops_ann.json"; then
	ANNOTATE="--annotate $T/loops.html $T/loops_ann.json"
else
	no annotate_page "the annotated page or its JSON could not be made"
fi
# a page with off-CPU time, where BPF off-CPU recording is permitted (record_offcpu's program)
OFFCPU=
if "$PROFIL" record -q --off-cpu -g -o "$T/off.data" -- "$P/offcpu_prog" mix 200 >/dev/null 2>&1 &&
	"$TOOLS/pdata_dump" "$T/off.data" | grep -q '^offcpu header .*source=bpf' &&
	"$PROFIL" report -i "$T/off.data" --children --format json >"$T/off.json" &&
	"$PROFIL" report -i "$T/off.data" --format html -o "$T/off.html"; then
	OFFCPU="--offcpu $T/off.html $T/off.json"
else
	echo "skip report_html_offcpu: no BPF off-CPU recording here"
fi
mkdir -p "$(dirname "$SHOT")"
timeout -k 10 300 python3 "$ROOT/tests/browser/report_html.py" --page "$T/spin.html" $ANNOTATE $OFFCPU \
	--json "$T/spin.json" --hostile "$T/evil.html" --hostile-json "$T/evil.json" \
	--hostile-text "$EVIL" --screenshot "$SHOT" --workdir "$T/browser" $STACKED
rc=$?
if [ "$rc" -eq 124 ] || [ "$rc" -ge 128 ]; then
	no browser_finished "the browser test did not finish in 300 s or was killed (status $rc)"
fi
exit 0
