#!/bin/sh
# Two profiles compared in go tool pprof -diff_base (issue 20): the pprof exports of two runs
# of the two measured loops (0.3 s and 0.7 s of CPU) give, as the base and the profile, a
# difference for two_loops within 25 % (and 30 ms) of what the program measured itself.
# profil diff --format pprof writes the comparison as one file: go tool pprof -top of it
# gives the rows and total of -diff_base OLD NEW; with --normalize those of
# -normalize -diff_base.
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

# ---- one file: profil diff --format pprof (NEW with OLD negated, label pprof::base) ----------
# go tool pprof reads it alone as it reads -diff_base OLD NEW: the same rows, the same total
rows() { sed -n '/flat%/,$p' "$1"; }
"$PROFIL" diff --format pprof -o "$T/diff.pb.gz" "$T/old.data" "$T/new.data" 2>"$T/diff.err"
expect diff_pprof_status "$?" 0
grep -q "go tool pprof -top $T/diff.pb.gz" "$T/diff.err" && ok diff_pprof_says_how ||
	no diff_pprof_says_how "$(cat "$T/diff.err")"
HOME=$T GOCACHE=$T/go timeout 120 go tool pprof -top -unit ms "$T/diff.pb.gz" >"$T/one.txt" 2>"$T/one.err"
if [ -s "$T/one.txt" ] && [ "$(rows "$T/one.txt")" = "$(rows "$T/top.txt")" ]; then
	ok "diff_pprof_is_diff_base ($(rows "$T/one.txt" | wc -l) rows)"
else
	no diff_pprof_is_diff_base "$(diff "$T/one.txt" "$T/top.txt" | head -5) $(tail -2 "$T/one.err")"
fi
total() { sed -n 's/.*Total samples = \([^ ]*\).*/\1/p' "$1"; }
expect diff_pprof_total_of_base "$(total "$T/one.txt")" "$(total "$T/top.txt")"
# --normalize: as pprof's -normalize -diff_base (NEW scaled to OLD's totals)
"$PROFIL" diff --format pprof --normalize -o "$T/norm.pb.gz" "$T/old.data" "$T/new.data" 2>/dev/null
HOME=$T GOCACHE=$T/go timeout 120 go tool pprof -top -unit ms "$T/norm.pb.gz" >"$T/n1.txt" 2>&1
HOME=$T GOCACHE=$T/go timeout 120 go tool pprof -top -unit ms -normalize -diff_base "$T/old.pb.gz" \
	"$T/new.pb.gz" >"$T/n2.txt" 2>&1
# (rounding: pprof scales in floating point, profil to whole nanoseconds; compare to 0.01 ms)
if python3 -c '
import re, sys
def rows(p):
    out, on = {}, False
    for l in open(p):
        if "flat%" in l:
            on = True
        elif on:
            w = l.split()
            out[w[-1]] = (float(w[0].rstrip("ms")), w[1])
    return out
a, b = rows(sys.argv[1]), rows(sys.argv[2])
assert a and a.keys() == b.keys(), (a, b)
assert all(abs(a[k][0] - b[k][0]) <= 0.01 and a[k][1] == b[k][1] for k in a), (a, b)
' "$T/n1.txt" "$T/n2.txt" 2>"$T/py.err"; then
	ok diff_pprof_normalize_as_pprof
else
	no diff_pprof_normalize_as_pprof "$(tail -1 "$T/py.err")"
fi
