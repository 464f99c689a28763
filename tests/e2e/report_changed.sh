#!/bin/sh
# profil report when the profiled binary changed or vanished after recording:
# it says so and does not crash; a vanished binary's code is shown as file offsets.
. "$ROOT/tests/e2e/report/common.sh"

cp "$P/report_gen_pie" "$P/libreport_lib.so" "$T/"
"$T/report_gen_pie" "$T/p.data" >"$T/info" || no gen "report_gen failed"
pid=$(awk '$1 == "pid" { print $2 }' "$T/info")

"$PROFIL" report -i "$T/p.data" >"$T/before.txt"
grep -q "modified after" "$T/before.txt" && no unchanged "claims a change: $(grep note "$T/before.txt")" ||
	ok unchanged

# rebuilt later: a newer modification time than the recording
touch -d '+1 hour' "$T/report_gen_pie" 2>/dev/null || touch -t "$(date -d '+1 hour' +%Y%m%d%H%M)" "$T/report_gen_pie"
"$PROFIL" report -i "$T/p.data" >"$T/changed.txt"
rc=$?
[ "$rc" -eq 0 ] && ok changed_status || no changed_status "exit $rc"
grep -q "^# note: $T/report_gen_pie: modified after it was recorded" "$T/changed.txt" &&
	ok changed_note || no changed_note "$(grep '^#' "$T/changed.txt")"

# deleted: names become [report_gen_pie+0xOFFSET] file-offset ranges; the library still resolves
rm "$T/report_gen_pie"
"$PROFIL" report -i "$T/p.data" --format csv --lines >"$T/gone.csv" 2>"$T/gone.err"
rc=$?
[ "$rc" -eq 0 ] && ok gone_status || no gone_status "exit $rc: $(cat "$T/gone.err")"
n=$(awk -F, -v p="$pid" '$1 == p && $3 ~ /^\[report_gen_pie\+0x[0-9a-f]+\]$/ { s += $7 } END { print s + 0 }' "$T/gone.csv")
# hot_a 300 + hot_b 200 + hot_c 80 in the executable
[ "$n" -eq 580 ] && ok gone_offsets || no gone_offsets "$n samples as file offsets, want 580"
awk -F, -v p="$pid" '$1 == p && $3 == "lib_hot" { print $7 }' "$T/gone.csv" | grep -qx 150 &&
	ok gone_lib_still_named || no gone_lib_still_named "$(cat "$T/gone.csv")"
"$PROFIL" report -i "$T/p.data" | grep -q "^# note: $T/report_gen_pie: binary is gone or unreadable" &&
	ok gone_note || no gone_note "no note"
"$PROFIL" export -i "$T/p.data" -o "$T/gmon.out" 2>"$T/exp.err"
rc=$?
[ "$rc" -eq 1 ] && [ "$(wc -l <"$T/exp.err")" -eq 1 ] && [ ! -e "$T/gmon.out" ] &&
	ok "gone_export_fails ($(cat "$T/exp.err"))" || no gone_export_fails "exit $rc: $(cat "$T/exp.err")"
