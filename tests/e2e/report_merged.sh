#!/bin/sh
# The whole run merged, on a real recording of two programs at once (needs
# `profil record`): report_spin and a copy of it named spin2 run side by side,
# each measuring its own per-function thread CPU time.  The merged view's first
# rows are their hot functions by command (the spinner threads of both programs
# share the name "spinner": one row), with the seconds they measured (25 % or
# 30 ms), and the text report shows them on its first screen.  Then a loop of
# 300 /bin/true: the run's seconds add up to the tree's CPU time (/proc), short
# processes included (unsampled rows), where the recorder gives each image's CPU
# time and the clock's true period.
. "$ROOT/tests/e2e/report/common.sh"

if ! "$PROFIL" record --help >/dev/null 2>&1; then
	echo "skip report_merged: profil record is not part of this build"
	exit 0
fi
mkdir "$T/b"
# a copy of the program under another name; the same library (one object, one row)
cp "$P/report_spin" "$T/b/spin2" && ln -s "$P/libreport_lib.so" "$T/b/" || no copy "cannot copy report_spin"
if ! "$PROFIL" record -q -o "$T/p.data" -- sh -c "'$P/report_spin' >'$T/t1' & '$T/b/spin2' >'$T/t2'; wait" 2>"$T/err"; then
	no record "$(cat "$T/err")"
	exit 0
fi
# truth FILE NAME: what a program measured
truth() { awk -v k="$2" '$1 == k { print $2 }' "$1"; }
lib=$(awk -v a="$(truth "$T/t1" lib_hot)" -v b="$(truth "$T/t2" lib_hot)" 'BEGIN { print a + b }')

"$PROFIL" report -i "$T/p.data" --format csv --sort comm,sym >"$T/run.csv"
expect csv_header "$(head -1 "$T/run.csv")" "comm,function,object,samples,percent,self_seconds,kind"
# the first five rows: the five (command, function) pairs that did the work, most time first
sed -n 2,6p "$T/run.csv" | cut -d, -f1,2 | sort >"$T/top5"
printf 'report_spin,hot_a\nreport_spin,hot_b\nspin2,hot_a\nspin2,hot_b\nspinner,lib_hot\n' >"$T/want5"
cmp -s "$T/top5" "$T/want5" && ok merged_first_rows ||
	no merged_first_rows "first rows: $(sed -n 2,8p "$T/run.csv" | tr '\n' ';')"
sec() { awk -F, -v c="$1" -v f="$2" '$1 == c && $2 == f { s += $6 } END { printf "%.4f", s }' "$T/run.csv"; }
near report_spin_hot_a "$(sec report_spin hot_a)" "$(truth "$T/t1" hot_a)"
near spin2_hot_a "$(sec spin2 hot_a)" "$(truth "$T/t2" hot_a)"
near report_spin_hot_b "$(sec report_spin hot_b)" "$(truth "$T/t1" hot_b)"
near spin2_hot_b "$(sec spin2 hot_b)" "$(truth "$T/t2" hot_b)"
near spinner_lib_hot "$(sec spinner lib_hot)" "$lib"
# most time first
awk -F, 'NR > 1 && NR < 8 { if (prev != "" && $6 > prev + 1e-9) bad = 1; prev = $6 } END { exit bad }' "$T/run.csv" &&
	ok merged_sorted || no merged_sorted "$(sed -n 2,8p "$T/run.csv" | tr '\n' ';')"

# the text report's first screen: the merged table, its first row one of those five
"$PROFIL" report -i "$T/p.data" >"$T/run.txt"
n=$(grep -n '^   %time   seconds    samples  command' "$T/run.txt" | head -1 | cut -d: -f1)
first=$(sed -n "$((n + 1))p" "$T/run.txt" | awk '{ print $4 "," $6 }')
[ -n "$n" ] && [ "$n" -le 15 ] && grep -qx "$first" "$T/want5" && ok "text_first_screen (table at line $n: $first)" ||
	no text_first_screen "$(head -20 "$T/run.txt")"

# ---- short processes: 300 /bin/true, each well under one sampling period ----------------------
# the truth: the shell's own and its children's CPU time (/proc/PID/stat fields 14-17, in ticks)
"$PROFIL" record -q -o "$T/loop.data" -- sh -c 'for i in $(seq 300); do /bin/true; done; cat /proc/$$/stat' \
	>"$T/stat" 2>"$T/err" || no loop_record "$(cat "$T/err")"
hz=$(getconf CLK_TCK)
tree=$(sed 's/.*) //' "$T/stat" | awk -v hz="$hz" '{ printf "%.4f", ($12 + $13 + $14 + $15) / hz }')
"$PROFIL" report -i "$T/loop.data" --format json >"$T/loop.json"
"$TOOLS/report_jsoncheck" "$T/loop.json" >"$T/loop.flat" || no loop_schema "$(tail -1 "$T/loop.flat")"
# does this recorder give every image its CPU time, and state the clock's own rate?
with_cpu=$(awk '$1 == "image" && $3 == "true" && $7 > 0' "$T/loop.flat" | wc -l)
rate_ok=$(awk '$1 == "run" { r = $3; n = $4; exit !(r > 0.8 * n && r < 1.25 * n) }' "$T/loop.flat" && echo 1)
if [ "$with_cpu" -lt 300 ] || [ "$rate_ok" != 1 ]; then
	echo "skip short_processes: the recorder gave $with_cpu of 300 /bin/true images their CPU time$([ "$rate_ok" = 1 ] || echo ', and states a rate other than its clock'\''s')"
else
	near loop_seconds "$(awk '$1 == "time" { print $4 }' "$T/loop.flat")" "$tree" 0.30
	big=$(awk '$1 == "image" && $3 == "true" && $4 > 0.010' "$T/loop.flat" | wc -l)
	expect loop_no_image_above_10ms "$big" 0
fi
