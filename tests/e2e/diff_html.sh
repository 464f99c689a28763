#!/bin/sh
# profil diff --format html: the differential flame graph's page.  The file
# (self-contained, no marker left, '<' of the data escaped), its options, and its
# data against `profil diff --format json` of the same profiles: exact generated
# profiles (report_gen normal/big, flat) and profiles with call stacks
# (report_stackgen synthetic/real): the page's tables are the JSON's, the tree's
# root holds every sample of each profile, no node has fewer samples than its
# children, and the leaves' samples of each function are its row's samples.
# Then the page in headless Chromium (tests/browser/diff_html.py) on two
# recordings of diff_prog, diff_alpha 2x slower in the second (as it measures
# itself): no console error, diff_alpha the top grown row and red, diff_beta
# (the same CPU time) pale in seconds and blue once the toggle compares shares,
# the hover text as the JSON says it.  The browser part skips only when
# Chromium cannot be started.
. "$ROOT/tests/e2e/report/common.sh"

# fails NAME CMD...: exit status 2, one line on stderr, nothing on stdout
fails() {
	name=$1
	shift
	"$@" >"$T/out" 2>"$T/err"
	rc=$?
	if [ "$rc" -ne 2 ] || [ "$(wc -l <"$T/err")" -ne 1 ] || [ -s "$T/out" ]; then
		no "$name" "status $rc, stderr: $(cat "$T/err"), stdout: $(head -c 200 "$T/out")"
	else
		ok "$name ($(cat "$T/err"))"
	fi
}

"$P/report_gen_pie" "$T/n.data" normal >/dev/null 2>"$T/gen.err" &&
	"$P/report_gen_pie" "$T/b.data" big >/dev/null 2>>"$T/gen.err" ||
	{ no gen "$(cat "$T/gen.err")"; exit 0; }

fails html_needs_output "$PROFIL" diff --format html "$T/n.data" "$T/b.data"
fails pprof_needs_output "$PROFIL" diff --format pprof "$T/n.data" "$T/b.data"
fails output_not_for_text "$PROFIL" diff -o "$T/x" "$T/n.data" "$T/b.data"
[ ! -e "$T/x" ] && ok output_refused_writes_nothing || no output_refused_writes_nothing "x exists"

"$PROFIL" diff --format html -o "$T/nb.html" "$T/n.data" "$T/b.data" 2>"$T/err"
expect html_status "$?" 0
expect html_quiet "$(cat "$T/err")" ""
expect html_doctype "$(head -c 15 "$T/nb.html")" "<!DOCTYPE html>"
expect html_one_data_element "$(grep -c 'id="profile-data"' "$T/nb.html")" 1
FETCH='(src|href)=|https?://|@import|url\('
if sed 's|http://www.w3.org/2000/svg||g' "$T/nb.html" | grep -Eq "$FETCH"; then
	no html_self_contained "$(sed 's|http://www.w3.org/2000/svg||g' "$T/nb.html" | grep -Eo ".{0,30}($FETCH).{0,30}" | head -3)"
else
	ok html_self_contained
fi
grep -q '@@' "$T/nb.html" && no html_markers_replaced "a @@ marker is left" || ok html_markers_replaced
"$PROFIL" diff --format html -o - "$T/n.data" "$T/b.data" >"$T/stdout.html" 2>"$T/err"
expect html_to_stdout "$(grep -c 'id="profile-data"' "$T/stdout.html")" 1

# check_data NAME PAGE OLD NEW [OPTIONS]: the page's data against profil diff --format json
check_data() {
	name=$1 page=$2 old=$3 new=$4
	shift 4
	sed -n 's/.*<script type="application\/json" id="profile-data">\(.*\)<\/script>.*/\1/p' \
		"$page" >"$T/$name.data.json"
	"$PROFIL" diff --format json "$@" "$old" "$new" >"$T/$name.json" || no "${name}_json" "diff failed"
	if python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
want = json.load(open(sys.argv[2]))
assert d["version"] == 1, d["version"]
assert d["diff"] == want, "the page tables are not profil diff --format json"
nodes, frames = d["nodes"], d["frames"]
assert nodes[0][1] == -1, "node 0 is the root"
for s, k in ((0, "old"), (1, "new")):
    assert nodes[0][2 + s] == want[k]["total_samples"], (k, nodes[0], want[k]["total_samples"])
kids = [[0, 0] for _ in nodes]
for i, n in enumerate(nodes[1:], 1):
    assert 0 <= n[0] < i and 0 <= n[1] < len(frames), n
    kids[n[0]][0] += n[2]
    kids[n[0]][1] += n[3]
self = {}
for i, n in enumerate(nodes):
    assert n[2] >= kids[i][0] and n[3] >= kids[i][1], ("fewer than its children", n, kids[i])
    f = frames[n[1]] if n[1] >= 0 else None
    if f and not f.get("command"):
        k = (f["name"], f["object"])
        a = self.setdefault(k, [0, 0])
        a[0] += n[2] - kids[i][0]
        a[1] += n[3] - kids[i][1]
rows = {(r["name"], r["object"]): [r["old"]["samples"], r["new"]["samples"]] for r in want["functions"]}
leaves = {k: v for k, v in self.items() if v != [0, 0]}
if sys.argv[4] == "all":
    assert leaves == rows, sorted(set(map(str, leaves.items())) ^ set(map(str, rows.items())))[:6]
else:  # --top N: the tables shortened, the tree whole
    assert all(leaves.get(k) == v for k, v in rows.items()), (rows, leaves)
assert "<" not in open(sys.argv[3]).read().split("id=\"profile-data\">")[1].split("</script>")[0]
' "$T/$name.data.json" "$T/$name.json" "$page" "${1:-all}" 2>"$T/$name.err"; then
		ok "${name}_data_is_the_diff"
	else
		no "${name}_data_is_the_diff" "$(tail -1 "$T/$name.err")"
	fi
}
check_data flat "$T/nb.html" "$T/n.data" "$T/b.data"
"$PROFIL" diff --format html --normalize --top 3 -o "$T/nb3.html" "$T/n.data" "$T/b.data"
check_data flat_top3 "$T/nb3.html" "$T/n.data" "$T/b.data" --top 3
grep -q '"normalize":true' "$T/nb3.html" && ok normalize_in_page || no normalize_in_page "no normalize:true"

if "$P/report_stackgen" "$T/s.data" synthetic >/dev/null 2>"$T/sg.err" &&
	"$P/report_stackgen" "$T/r.data" real >/dev/null 2>>"$T/sg.err"; then
	"$PROFIL" diff --format html -o "$T/sr.html" "$T/s.data" "$T/r.data" 2>"$T/err" ||
		no stacks_page "$(cat "$T/err")"
	check_data stacks "$T/sr.html" "$T/s.data" "$T/r.data"
	depth=$(python3 -c '
import json, sys
d = json.loads(open(sys.argv[1]).read().split("id=\"profile-data\">")[1].split("</script>")[0])
depth = [0] * len(d["nodes"])
for i, n in enumerate(d["nodes"][1:], 1):
    depth[i] = depth[n[0]] + 1
print(max(depth))' "$T/sr.html")
	# all -> stackgen -> cg_main -> cg_run -> cg_hot_a -> k_entry -> k_write: 6 below the root
	[ "${depth:-0}" -ge 6 ] && ok "stacks_merged_tree_depth ($depth)" ||
		no stacks_merged_tree_depth "depth $depth, want 6 or more"
else
	no stackgen "$(cat "$T/sg.err")"
fi

# ---- the page in a browser: two recordings, diff_alpha 2x slower -----------------------
"$PROFIL" record -o "$T/old.data" -- "$P/diff_prog" 150 150 150 >"$T/old.out" 2>"$T/rec.err" &&
	"$PROFIL" record -o "$T/new.data" -- "$P/diff_prog" 300 150 150 >"$T/new.out" 2>>"$T/rec.err" ||
	{ no record "$(cat "$T/rec.err")"; exit 0; }
# the ground truth: what the program measured (alpha doubled, beta the same within 10 %)
ns() { awk -v k="$2" '$1 == k { print $2 }' "$1"; }
if ! awk -v a0="$(ns "$T/old.out" diff_alpha)" -v a1="$(ns "$T/new.out" diff_alpha)" \
	-v b0="$(ns "$T/old.out" diff_beta)" -v b1="$(ns "$T/new.out" diff_beta)" \
	'BEGIN { da = a1 - a0; db = b1 - b0; if (db < 0) db = -db
		 exit !(a0 > 0 && da > 0.8 * a0 && db < 0.1 * da) }'; then
	no measured "the program did not measure alpha 2x and beta steady: $(cat "$T/old.out" "$T/new.out")"
	exit 0
fi
"$PROFIL" diff --format html -o "$T/d.html" "$T/old.data" "$T/new.data" 2>"$T/err" ||
	no diff_page "$(cat "$T/err")"
"$PROFIL" diff --format json "$T/old.data" "$T/new.data" >"$T/d.json"
timeout -k 10 300 python3 "$ROOT/tests/browser/diff_html.py" --page "$T/d.html" --json "$T/d.json" \
	--grown diff_alpha --steady diff_beta --workdir "$T/browser" \
	${DIFF_SCREENSHOT:+--screenshot "$DIFF_SCREENSHOT"}
rc=$?
if [ "$rc" -eq 124 ] || [ "$rc" -ge 128 ]; then
	no browser_finished "the browser test did not finish in 300 s or was killed (status $rc)"
fi
exit 0
