#!/bin/sh
# Two profiles compared in go tool pprof -diff_base (issue 20): the pprof exports of two runs
# of the two measured loops (0.3 s and 0.7 s of CPU) give, as the base and the profile, a
# difference for two_loops within 25 % (and 30 ms) of what the program measured itself.
. "$ROOT/tests/e2e/report/common.sh"
if ! command -v go >/dev/null; then
	echo "skip diff_base: no go (golang-go)"
	exit 0
fi
info() { awk -v k="$2" '$1 == k { print $2 }' "$1"; }
for run in old:0.3 new:0.7; do
	name=${run%%:*}
	"$PROFIL" record -o "$T/$name.data" -- "$P/annotate_loops" "${run#*:}" >"$T/$name.out" 2>/dev/null
	"$PROFIL" export -i "$T/$name.data" --format pprof -o "$T/$name.pb.gz" 2>/dev/null ||
		no "export_$name" "status $?"
done
measured=$(awk 'FNR == 1 { f++ } $1 ~ /^loop_/ { s[f] += $2 } END { printf "%.3f", s[2] - s[1] }' \
	"$T/old.out" "$T/new.out")
HOME=$T GOCACHE=$T/go timeout 120 go tool pprof -top -unit ms -diff_base "$T/old.pb.gz" \
	"$T/new.pb.gz" >"$T/top.txt" 2>"$T/top.err"
got=$(awk '$NF == "two_loops" { sub(/ms$/, "", $1); printf "%.3f", $1 / 1000 }' "$T/top.txt")
if [ -z "$got" ]; then
	no diff_base_two_loops "no two_loops row: $(tail -5 "$T/top.txt") $(tail -3 "$T/top.err")"
elif awk -v g="$got" -v m="$measured" 'BEGIN { d = g - m; if (d < 0) d = -d; exit !(m > 0 && d <= 0.25 * m + 0.03) }'; then
	ok "diff_base_two_loops (pprof: +$got s, measured +$measured s)"
else
	no diff_base_two_loops "pprof -diff_base says $got s, the program measured $measured s"
fi
