#!/bin/sh
# profil diff on exact generated profiles (tests/progs/report_gen.c): the same
# program's "normal" profile and its "big" one, which adds 70000 samples of
# hot_d; every figure is known.  Rows summed across process images (hot_b is
# 200 samples in the parent and 40 in its forked child; [unknown] 10 + 7 in
# the image after an exec), per object and per command; the JSON is checked
# against doc/report-json.md by tests/tools/diff_jsoncheck.c; --sort, --threshold,
# --top, a profile without a period (seconds unknown), and the errors.
. "$ROOT/tests/e2e/report/common.sh"
CHECK="$TOOLS/diff_jsoncheck"

"$P/report_gen_pie" "$T/n.data" normal >/dev/null 2>"$T/gen.err" &&
	"$P/report_gen_pie" "$T/b.data" big >/dev/null 2>>"$T/gen.err" ||
	{ no gen "$(cat "$T/gen.err")"; exit 0; }

# json NAME ARGS...: profil diff --format json ARGS into $T/NAME.json, checked into $T/NAME.rows
json() {
	name=$1
	shift
	if ! "$PROFIL" diff --format json "$@" >"$T/$name.json" 2>"$T/$name.err"; then
		no "${name}_runs" "$(cat "$T/$name.err")"
		: >"$T/$name.rows"
		return
	fi
	if "$CHECK" "$T/$name.json" >"$T/$name.rows"; then
		ok "${name}_schema"
	else
		no "${name}_schema" "$(tail -1 "$T/$name.rows")"
	fi
}
# field ROWS TABLE NAME COLUMN: a column of the row (1 row, 2 table, 3 rank, 4 old samples,
# 5 new samples, 6 old%, 7 new%, 8 delta%, 9 old s, 10 new s, 11 delta s, 12 name, 13 object)
field() { awk -F'\t' -v t="$2" -v n="$3" -v c="$4" '$1 == "row" && $2 == t && $12 == n { print $c }' "$1"; }
first() { awk -F'\t' -v t="$2" '$1 == "row" && $2 == t && $3 == 1 { print $12 }' "$1"; }
count() { awk -F'\t' -v t="$2" '$1 == "row" && $2 == t' "$1" | wc -l; }

json nb "$T/n.data" "$T/b.data"
R=$T/nb.rows
expect first_function "$(first "$R" functions)" hot_d
expect hot_d_samples "$(field "$R" functions hot_d 4) $(field "$R" functions hot_d 5)" "0 70000"
# 70000 of 70842 samples: 98.8114 points up; 70 s more
expect hot_d_share "$(field "$R" functions hot_d 7) $(field "$R" functions hot_d 8)" "98.8114 98.8114"
expect hot_d_seconds "$(field "$R" functions hot_d 11)" 70.000000
expect hot_a_share "$(field "$R" functions hot_a 6) $(field "$R" functions hot_a 7)" "35.6295 0.4235"
expect hot_a_second "$(awk -F'\t' '$2 == "functions" && $3 == 2 { print $12 }' "$R")" hot_a
expect hot_a_seconds_unchanged "$(field "$R" functions hot_a 11)" 0.000000
# summed across images: the parent's 200 and the forked child's 40
expect hot_b_across_images "$(field "$R" functions hot_b 4)" 240
expect unknown_across_images "$(field "$R" functions '[unknown]' 4)" 17
expect lib_hot_object "$(field "$R" functions lib_hot 13)" libreport_lib.so
expect functions_rows "$(count "$R" functions)" 8
# objects: the executable's 300 + 240 + 80 (+ 70000), the library, libc, [unknown], [vdso]
expect object_exe "$(field "$R" objects report_gen_pie 4) $(field "$R" objects report_gen_pie 5)" "620 70620"
expect object_lib "$(field "$R" objects libreport_lib.so 4)" 150
expect objects_rows "$(count "$R" objects)" 5
# commands: report_gen_pie (parent and child: 795 + 40), and /bin/true after the exec: 7
expect command_exe "$(field "$R" commands report_gen_pie 4)" 835
expect command_true "$(field "$R" commands true 4) $(field "$R" commands true 6)" "7 0.8314"
expect commands_rows "$(count "$R" commands)" 2

# the other way round: what went away comes first too, with the opposite sign
json bn "$T/b.data" "$T/n.data"
expect reverse_first "$(first "$T/bn.rows" functions) $(field "$T/bn.rows" functions hot_d 8)" \
	"hot_d -98.8114"

# the same profile twice: nothing changed
json same "$T/n.data" "$T/n.data"
expect same_no_change "$(awk -F'\t' '$1 == "row" && $8 != "0.0000"' "$T/same.rows" | wc -l)" 0

# --sort seconds: hot_d's 70 s first, then the rest (no change) by their weight
json secs --sort seconds "$T/n.data" "$T/b.data"
expect sort_seconds "$(awk -F'\t' '$2 == "functions" && $3 <= 5 { printf "%s ", $12 }' "$T/secs.rows")" \
	"hot_d hot_a hot_b lib_hot hot_c "

# --threshold: only rows whose share moved by at least that many points
json thr --threshold 20 "$T/n.data" "$T/b.data"
expect threshold_functions "$(awk -F'\t' '$2 == "functions" { printf "%s ", $12 }' "$T/thr.rows")" \
	"hot_d hot_a hot_b "
expect threshold_meta "$(awk -F'\t' '$1 == "meta" { print $3 }' "$T/thr.rows")" 20

# --top
json top --top 1 "$T/n.data" "$T/b.data"
expect top_one "$(count "$T/top.rows" functions) $(count "$T/top.rows" objects) $(count "$T/top.rows" commands)" "1 1 1"

# a profile that does not say how long a sample is: shares only, seconds null
cp "$T/n.data" "$T/noperiod.data"
"$B/tests/tools/pdata_tamper" "$T/noperiod.data" period_ns=0 nominal_hz=0
json noper "$T/noperiod.data" "$T/b.data"
expect no_period_seconds "$(awk -F'\t' '$1 == "meta" { print $4 }' "$T/noper.rows") $(field "$T/noper.rows" functions hot_d 11)" "0 null"
expect no_period_share "$(field "$T/noper.rows" functions hot_d 8)" 98.8114
"$PROFIL" diff "$T/noperiod.data" "$T/b.data" >"$T/noper.txt" 2>&1
grep -q '^# seconds: unknown' "$T/noper.txt" && ok no_period_text || no no_period_text "$(head -5 "$T/noper.txt")"

# the text output: the headers, the tables, the same first rows
"$PROFIL" diff "$T/n.data" "$T/b.data" >"$T/nb.txt" 2>"$T/nb.err"
expect text_status "$?" 0
has_lines text "$T/nb.txt" "^# old: $T/n.data: report_gen .* 842 samples, 0.842 s" \
	"^# new: $T/b.data: report_gen .* 70842 samples, 70.842 s" '^functions (8 of 8 shown):' \
	'^ *0.00 *98.81 *+98.81 *0.000 *70.000 *+70.000  hot_d  *report_gen_pie$' \
	'^objects (5 of 5 shown):' '^commands (2 of 2 shown):' '^ *0.83 *0.01 *-0.82 .* true$'

# errors: one sentence, status 1 for a file, 2 for usage; nothing on stdout
err() {
	name=$1 want_rc=$2 pat=$3
	shift 3
	"$PROFIL" diff "$@" >"$T/e.out" 2>"$T/e.err"
	rc=$?
	if [ $rc -eq "$want_rc" ] && [ ! -s "$T/e.out" ] && [ "$(wc -l <"$T/e.err")" -eq 1 ] &&
		grep -q -- "$pat" "$T/e.err"; then
		ok "$name"
	else
		no "$name" "rc=$rc (want $want_rc), stdout $(wc -c <"$T/e.out") bytes, stderr: $(cat "$T/e.err")"
	fi
}
err missing_old 1 "^profil diff: old profile: .*nonexistent" "$T/nonexistent" "$T/b.data"
err missing_new 1 "^profil diff: new profile: .*nonexistent" "$T/n.data" "$T/nonexistent"
printf 'not a profile' >"$T/junk.data"
err junk_new 1 "^profil diff: new profile: " "$T/n.data" "$T/junk.data"
err one_profile 2 "^profil diff: give two profiles" "$T/n.data"
err three_profiles 2 "^profil diff: give two profiles" "$T/n.data" "$T/n.data" "$T/n.data"
err bad_threshold 2 "^profil diff: --threshold needs" --threshold 10x "$T/n.data" "$T/b.data"
err negative_threshold 2 "^profil diff: --threshold needs" --threshold -1 "$T/n.data" "$T/b.data"
err bad_format 2 "^profil diff: unknown format 'xml' (text, json, html or pprof)" --format xml "$T/n.data" "$T/b.data"
err bad_sort 2 "^profil diff: unknown sort key 'x' (share, seconds or offcpu)" --sort x "$T/n.data" "$T/b.data"
err bad_top 2 "^profil diff: --top needs" --top 0 "$T/n.data" "$T/b.data"
err unknown_option 2 "^profil diff: unknown option '--bogus' (try 'profil diff --help')" --bogus
err sort_seconds_without_period 1 "^profil diff: cannot sort by seconds: the old profile" \
	--sort seconds "$T/noperiod.data" "$T/b.data"
