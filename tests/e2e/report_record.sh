#!/bin/sh
# record -> report -> export -> gprof on a real CPU-bound program (needs
# `profil record`; skipped in a build without it).  The program measures its own
# per-function thread CPU time; the profile must agree within sampling noise
# (25 % or 30 ms), in the report (process and threads) and in gprof.
. "$ROOT/tests/e2e/report/common.sh"

if ! "$PROFIL" record --help >/dev/null 2>&1; then
	echo "skip record_report: profil record is not part of this build"
	exit 0
fi
if ! "$PROFIL" record -q -o "$T/p.data" --gmon "$T/gmon.out" -- "$P/report_spin" >"$T/truth" 2>"$T/err"; then
	no record "$(cat "$T/err")"
	exit 0
fi
truth() { awk -v k="$1" '$1 == k { print $2 }' "$T/truth"; }

"$PROFIL" report -i "$T/p.data" --format csv --threads >"$T/r.csv"
sec() { awk -F, -v f="$1" -v c="$2" '$5 == f && $4 == c { s += $9 } END { printf "%.4f", s }' "$T/r.csv"; }
near report_hot_a "$(sec hot_a report_spin)" "$(truth hot_a)"
near report_hot_b "$(sec hot_b report_spin)" "$(truth hot_b)"
near report_lib_hot_in_spinner_thread "$(sec lib_hot spinner)" "$(truth lib_hot)"
obj=$(awk -F, '$5 == "lib_hot" { print $6 }' "$T/r.csv" | head -1)
[ "$obj" = "$P/libreport_lib.so" ] && ok report_lib_object || no report_lib_object "object '$obj'"

if command -v gprof >/dev/null && [ -s "$T/gmon.out" ]; then
	gprof -b -p "$P/report_spin" "$T/gmon.out" >"$T/prof" 2>&1
	g() { awk -v f="$1" '$NF == f && NF == 4 { print $3 }' "$T/prof"; }
	near gprof_hot_a "$(g hot_a)" "$(truth hot_a)"
	near gprof_hot_b "$(g hot_b)" "$(truth hot_b)"
	[ -z "$(g lib_hot)" ] && ok gprof_no_library_time || no gprof_no_library_time "$(cat "$T/prof")"
else
	echo "skip gprof: no gprof or no gmon.out"
fi
