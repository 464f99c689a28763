#!/bin/sh
# profil diff of two real runs of one program (tests/progs/diff_prog.c), the
# second with diff_beta() given twice the CPU time: diff_beta comes first,
# and every share and second agrees with the CPU time the program measured
# itself (CLOCK_THREAD_CPUTIME_ID), within tolerances that sampling noise
# (4 sigma of a share over that many samples) and a busy machine cannot break.
. "$ROOT/tests/e2e/report/common.sh"
CHECK="$TOOLS/diff_jsoncheck"
cd "$T" || exit 1

# record NAME ALPHA BETA GAMMA: NAME.data, and the program's own measurements in NAME.truth
record() {
	if ! "$PROFIL" record -q -F 4000 -o "$1.data" -- "$P/diff_prog" "$2" "$3" "$4" \
		>"$1.truth" 2>"$1.err"; then
		no "record_$1" "$(cat "$1.err")"
		exit 0
	fi
}
record old 400 400 400
record new 400 800 400

"$PROFIL" diff --format json old.data new.data >d.json 2>d.err || no diff_json "$(cat d.err)"
if "$CHECK" d.json >d.rows; then ok diff_schema; else no diff_schema "$(tail -1 d.rows)"; fi
first=$(awk -F'\t' '$1 == "row" && $2 == "functions" && $3 == 1 { print $12 }' d.rows)
expect slower_function_first "$first" diff_beta
"$PROFIL" diff old.data new.data >d.txt 2>d.err
first=$(awk '/^functions/ { getline; getline; print $7; exit }' d.txt)
expect slower_function_first_text "$first" diff_beta
"$PROFIL" diff --format json --sort seconds old.data new.data >s.json 2>d.err
"$CHECK" s.json >s.rows || no sort_seconds_schema "$(tail -1 s.rows)"
first=$(awk -F'\t' '$1 == "row" && $2 == "functions" && $3 == 1 { print $12 }' s.rows)
expect slower_function_first_by_seconds "$first" diff_beta

# each function's share and seconds against the program's own figures
samples() { awk -F'\t' -v s="$1" '$1 == "profile" && $2 == s { print $4 }' d.rows; }
n_old=$(samples old) n_new=$(samples new)
for f in diff_alpha diff_beta diff_gamma; do
	row=$(awk -F'\t' -v f="$f" '$1 == "row" && $2 == "functions" && $12 == f' d.rows)
	verdict=$(echo "$row" | awk -F'\t' -v f="$f" -v no="$n_old" -v nn="$n_new" \
		-v old="$(cat old.truth)" -v new="$(cat new.truth)" '
	function truth(text, name,    n, i, l, kv) {
		n = split(text, l, "\n")
		for (i = 1; i <= n; i++) { split(l[i], kv, " "); if (kv[1] == name) return kv[2] }
		return -1
	}
	{
		to = 100 * truth(old, f) / truth(old, "total")
		tn = 100 * truth(new, f) / truth(new, "total")
		ts = (truth(new, f) - truth(old, f)) / 1e9
		so = 100 * sqrt(0.25 / no); sn = 100 * sqrt(0.25 / nn)
		tol_o = 2 + 4 * so; tol_n = 2 + 4 * sn; tol_d = 2 + 4 * sqrt(so * so + sn * sn)
		tol_s = 0.05 + 0.25 * (ts < 0 ? -ts : ts)
		bad = ""
		if ($6 - to > tol_o || to - $6 > tol_o) bad = bad sprintf(" old%% %.2f (truth %.2f +- %.2f)", $6, to, tol_o)
		if ($7 - tn > tol_n || tn - $7 > tol_n) bad = bad sprintf(" new%% %.2f (truth %.2f +- %.2f)", $7, tn, tol_n)
		if ($8 - (tn - to) > tol_d || (tn - to) - $8 > tol_d) bad = bad sprintf(" delta%% %.2f (truth %.2f +- %.2f)", $8, tn - to, tol_d)
		if ($11 - ts > tol_s || ts - $11 > tol_s) bad = bad sprintf(" delta s %.3f (truth %.3f +- %.3f)", $11, ts, tol_s)
		print bad == "" ? "ok" : bad
	}')
	if [ "$verdict" = ok ]; then ok "${f}_share_and_seconds"; else no "${f}_share_and_seconds" "$verdict"; fi
done

# the program is one command and (nearly) all of it is in its own object
cmd=$(awk -F'\t' '$1 == "row" && $2 == "commands" { printf "%s %s %s;", $12, $6, $7 }' d.rows)
expect one_command "$cmd" "diff_prog 100.0000 100.0000;"
