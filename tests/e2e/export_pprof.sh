#!/bin/sh
# profil export --format pprof, read by a real pprof reader: Debian's
# `go tool pprof`.  On an exact generated profile (report_gen): every
# function's samples as `profil report`, cpu = samples x period, labels, the
# mapping's build id (readelf), source lines, and pprof's OWN symbolizer
# naming the same functions from our link-time addresses, and from our file
# offsets once a binary that was gone is found again.  On real recordings:
# flat % as report's JSON (merged over processes), processes kept apart by label
# in a program that forks.  Then: an empty profile, and errors (a device that
# fails the write, a file size limit hit while writing, bad input)
# give one sentence, a non-zero exit and no file.
. "$ROOT/tests/e2e/report/common.sh"

if ! go_offline; then
	echo "skip export_pprof: go (golang-go) is not installed"
	exit 0
fi
# (-nodefraction=0: no row is hidden for being small)
pp() { go tool pprof -nodefraction=0 "$@" 2>"$T/pp.err"; }

# flat FILE: "NAME FLAT FLATPCT" per row of a pprof -top (NAME may have spaces)
flat() {
	awk 'go && NF >= 6 { n = $6; for (i = 7; i <= NF; i++) n = n " " $i; sub(/%$/, "", $2); sub(/ \(inline\)$/, "", n);
		print n, $1, $2 } /^ *flat  *flat%/ { go = 1 }' "$1"
}
# merged CSV: "NAME SAMPLES PERCENT" from report csv summed over processes
merged() {
	awk -F, 'NR > 1 { s[$3] += $(NF - 2); t += $(NF - 2) }
		END { for (n in s) printf "%s %d %.2f\n", n, s[n], 100 * s[n] / t }' "$1" | sort
}
# total FILE: the total of "Showing nodes accounting for X, P% of TOTAL total"
total() { sed -n 's/^Showing nodes accounting for .* of \([^ ]*\) total$/\1/p' "$1"; }

# ---- an exact profile ----------------------------------------------------------
exe="$(cd "$P" && pwd)/report_gen_pie" # absolute, as in the profile
"$exe" "$T/g.data" normal >"$T/g.info" || { no gen "report_gen failed"; exit 0; }
"$PROFIL" export --format pprof -i "$T/g.data" -o "$T/g.pb.gz" 2>"$T/g.err"
expect export_status "$?" 0
grep -q "g.pb.gz: 842 samples, .* in .* functions and 4 objects; read it with: go tool pprof" "$T/g.err" &&
	ok export_summary || no export_summary "$(cat "$T/g.err")"
expect gzip_magic "$(od -An -tx1 -N2 "$T/g.pb.gz" | tr -d ' ')" 1f8b

# default symbolization mode: nothing to symbolize again, no warning at all
pp -top -sample_index=samples -nodecount=50 "$T/g.pb.gz" >"$T/g.top"
expect pprof_status "$?" 0
expect pprof_no_warnings "$(cat "$T/pp.err")" ""
"$PROFIL" report -i "$T/g.data" --format csv >"$T/g.csv"
flat "$T/g.top" | awk '{ $NF = ""; print }' | sed 's/ $//' | sort >"$T/g.flat"
merged "$T/g.csv" | awk '{ $NF = ""; print }' | sed 's/ $//' >"$T/g.want"
if cmp -s "$T/g.flat" "$T/g.want" && [ "$(wc -l <"$T/g.want")" -ge 7 ]; then
	ok "every function's samples as report ($(tr '\n' ',' <"$T/g.want"))"
else
	no samples_as_report "pprof: $(tr '\n' ',' <"$T/g.flat") report: $(tr '\n' ',' <"$T/g.want")"
fi
pp -top -sample_index=cpu -unit=ns "$T/g.pb.gz" >"$T/g.cpu"
expect cpu_is_samples_times_period "$(total "$T/g.cpu")" 842000000ns

# labels: processes, threads and their names
pp -tags -sample_index=samples "$T/g.pb.gz" >"$T/g.tags"
pid=$(awk '$1 == "pid" { print $2 }' "$T/g.info")
child=$(awk '$1 == "child" { print $2 }' "$T/g.info")
worker=$(awk '$1 == "worker" { print $2 }' "$T/g.info")
tag() { awk -v k="$1:" -v v="$2" '$1 == k { on = 1; next } /^ *[a-z_]+: Total/ { on = 0 }
	on && $NF == v { print $1 }' "$T/g.tags"; }
expect tag_pid_root "$(tag pid "$pid")" 795.0
expect tag_pid_child "$(tag pid "$child")" 40.0
expect tag_tid_worker "$(tag tid "$worker")" 80.0
expect tag_thread_comm "$(tag thread_comm worker)" 80.0
expect tag_process_comm "$(tag process_comm report_gen_pie)" 835.0
pp -top -sample_index=samples -tagfocus=pid="$child" "$T/g.pb.gz" >"$T/g.child"
expect tagfocus_child "$(flat "$T/g.child" | tr '\n' ' ')" "hot_b 40 4.75 "

# the mapping: path, build id (as readelf reads it), symbol information
pp -raw "$T/g.pb.gz" >"$T/g.raw"
bid=$(readelf -n "$exe" | awk '/Build ID:/ { print $3 }')
grep -q "^1: 0x[0-9a-f]*/0x[0-9a-f]*/0x[0-9a-f]* $exe $bid \[FN\]\[FL\]\[LN\]$" "$T/g.raw" &&
	ok "mapping 1: $exe, build id $bid" || no mapping_build_id "$(sed -n '/^Mappings/,$p' "$T/g.raw")"

# source lines: per line as report --lines (summed over processes)
"$PROFIL" report -i "$T/g.data" --format csv --lines >"$T/gl.csv"
awk -F, 'NR > 1 && $3 ~ /^hot_/ { n = split($5, p, "/"); s[$3 " " p[n] ":" $6] += $7 }
	END { for (k in s) print k, s[k] }' "$T/gl.csv" | sort >"$T/gl.want"
pp -top -lines -sample_index=samples "$T/g.pb.gz" >"$T/gl.top"
awk 'go && $6 ~ /^hot_/ { n = split($7, p, "/"); print $6, p[n], $1 } /^ *flat  *flat%/ { go = 1 }' \
	"$T/gl.top" | sort >"$T/gl.got"
if cmp -s "$T/gl.got" "$T/gl.want" && [ -s "$T/gl.want" ]; then
	ok "lines as report --lines ($(tr '\n' ',' <"$T/gl.want"))"
else
	no lines "pprof: $(tr '\n' ',' <"$T/gl.got") report: $(tr '\n' ',' <"$T/gl.want")"
fi

# the addresses are right: pprof's own symbolizer (binutils) reads the
# executables and the library at our link-time addresses and mapping offsets
for v in pie nopie; do
	"$P/report_gen_$v" "$T/$v.data" normal >/dev/null
	"$PROFIL" export --format pprof -i "$T/$v.data" -o "$T/$v.pb.gz" 2>/dev/null
	pp -top -sample_index=samples -symbolize=force "$T/$v.pb.gz" >"$T/$v.force"
	got=$(flat "$T/$v.force" | awk '$1 ~ /^(hot_|lib_hot)/ { print $1, $2 }' | sort | tr '\n' ' ')
	expect "pprof_resymbolizes_$v" "$got" "hot_a 300 hot_b 240 hot_c 80 lib_hot 150 "
done

# a binary that is gone: addresses are file offsets and its mapping says it has no
# functions, so pprof warns, and names it right once told where the binary is now
mkdir "$T/gone" "$T/kept"
cp "$P/report_gen_pie" "$P/libreport_lib.so" "$T/gone/"
"$T/gone/report_gen_pie" "$T/gone.data" normal >/dev/null
mv "$T/gone/report_gen_pie" "$T/kept/"
"$PROFIL" export --format pprof -i "$T/gone.data" -o "$T/gone.pb.gz" 2>/dev/null
pp -top -sample_index=samples "$T/gone.pb.gz" >"$T/gone.top"
grep -q "Local symbolization failed for report_gen_pie" "$T/pp.err" && ok gone_binary_warning ||
	no gone_binary_warning "$(cat "$T/pp.err")"
expect gone_binary_range "$(flat "$T/gone.top" | awk '$1 ~ /^\[report_gen_pie\+/ { print $2 }')" 620
(
	export PPROF_BINARY_PATH="$T/kept"
	pp -top -sample_index=samples "$T/gone.pb.gz" >"$T/kept.top"
)
got=$(flat "$T/kept.top" | awk '$1 ~ /^hot_/ { print $1, $2 }' | sort | tr '\n' ' ')
expect gone_binary_found_again "$got" "hot_a 300 hot_b 240 hot_c 80 "

# ---- real recordings -------------------------------------------------------------
if ! "$PROFIL" record -q -o "$T/s.data" -- "$P/report_spin" >/dev/null 2>"$T/rec.err"; then
	echo "skip export_pprof_recorded: profil record cannot run here: $(cat "$T/rec.err")"
	exit 0
fi
# pprof's flat rows are the innermost function, inlined or not ("NAME (inline)"): report --inline
"$PROFIL" report -i "$T/s.data" --inline --format json >"$T/s.json"
"$TOOLS/report_jsoncheck" "$T/s.json" >"$T/s.flat" || no report_json "$(tail -1 "$T/s.flat")"
"$PROFIL" export --format pprof -i "$T/s.data" -o "$T/s.pb.gz" 2>/dev/null
pp -top -nodecount=20 -sample_index=samples "$T/s.pb.gz" >"$T/s.top"
expect recorded_no_warnings "$(cat "$T/pp.err")" ""
# report's functions merged over processes: "NAME SAMPLES PERCENT-OF-ALL"
awk '$1 == "func" { s[$6] += $3; t += $3 } END { for (n in s) printf "%s %d %.2f\n", n, s[n], 100 * s[n] / t }' \
	"$T/s.flat" | sort >"$T/s.want"
flat "$T/s.top" >"$T/s.got"
# each of pprof's top functions: the same samples, and flat % within 0.5 points of report's
bad=$(awk 'NR == FNR { n[$1] = $2; p[$1] = $3; next }
	{ d = $3 - p[$1]; if (d < 0) d = -d; if (!($1 in n) || n[$1] != $2 || d > 0.5) print $0 }' \
	"$T/s.want" "$T/s.got")
rows=$(wc -l <"$T/s.got")
if [ -z "$bad" ] && [ "$rows" -ge 3 ] && grep -q '^hot_a ' "$T/s.got" && grep -q '^lib_hot ' "$T/s.got"; then
	ok "recorded: $rows functions as report ($(tr '\n' ',' <"$T/s.got"))"
else
	no recorded_flat "differ: '$bad'; pprof: $(tr '\n' ',' <"$T/s.got") report: $(tr '\n' ',' <"$T/s.want")"
fi
# json_num KEY FILE: the first (the whole run's) numeric field KEY of a report's JSON
json_num() { sed -n "s/^ *\"$1\":\([0-9.e+-]*\),*\$/\1/p" "$2" | head -1; }
# cpu: the samples' time and the time without samples ([unsampled] here): report's seconds
pp -top -sample_index=cpu -unit=ns "$T/s.pb.gz" >"$T/s.cpu"
want=$(awk -v s="$(json_num seconds "$T/s.json")" 'BEGIN { printf "%.0f", s * 1e9 }')
got=$(total "$T/s.cpu" | sed 's/ns$//')
awk -v g="$got" -v w="$want" 'BEGIN { d = g - w; if (d < 0) d = -d; exit !(g != "" && d <= 2000) }' &&
	ok "recorded: cpu total ${got} ns, report's seconds ${want} ns" ||
	no recorded_cpu "pprof ${got} ns, report's seconds ${want} ns"
pp -tags -sample_index=samples "$T/s.pb.gz" >"$T/s.tags"
grep -q "^ *[0-9.]* ([ 0-9.]*%): spinner$" "$T/s.tags" && grep -q '^ *pid: Total' "$T/s.tags" &&
	grep -q '^ *tid: Total' "$T/s.tags" && ok "recorded: labels pid, tid, thread_comm spinner" ||
	no recorded_tags "$(cat "$T/s.tags")"

# the kernel's time where it cannot be sampled (the perf clock as nobody): the report's
# accounted [kernel] row, a sample of values [0, ns] in pprof, and its cpu total is the report's
mkdir -p "$T/u" && chmod 777 "$T/u" && chmod 711 "$T"
if [ "$(id -u)" = 0 ] && command -v setpriv >/dev/null &&
	setpriv --reuid=65534 --regid=65534 --clear-groups "$PROFIL" record -q --clock perf \
		-o "$T/u/k.data" -- "$P/record_acct" halfk 300 >/dev/null 2>"$T/k.err"; then
	"$PROFIL" report -i "$T/u/k.data" --format json >"$T/k.json"
	"$PROFIL" export --format pprof -i "$T/u/k.data" -o "$T/k.pb.gz" 2>"$T/k.exp"
	pp -top -sample_index=cpu -unit=ns "$T/k.pb.gz" >"$T/k.cpu"
	kern=$(flat "$T/k.cpu" | awk '$1 == "[kernel]" { sub(/ns$/, "", $2); print $2 }')
	acc=$(json_num accounted_seconds "$T/k.json")
	secs=$(json_num seconds "$T/k.json")
	got=$(total "$T/k.cpu" | sed 's/ns$//')
	awk -v k="$kern" -v a="$acc" -v g="$got" -v s="$secs" 'BEGIN {
		d = k - a * 1e9; if (d < 0) d = -d; e = g - s * 1e9; if (e < 0) e = -e
		exit !(a > 0.05 && k != "" && d <= 2000 && e <= 2000) }' &&
		grep -q "s of CPU time without samples" "$T/k.exp" &&
		ok "unprivileged: [kernel] ${kern} ns as report's accounted ${acc} s; cpu total ${got} ns, report ${secs} s" ||
		no accounted_kernel "pprof [kernel] '${kern}' ns total ${got} ns; report accounted ${acc} s of ${secs} s; $(cat "$T/k.exp")"
else
	skip accounted_kernel "cannot record as nobody with the perf clock here: $(head -1 "$T/k.err" 2>/dev/null)"
fi

# a program that forks: one profile, the processes apart by their pid label (report --inline:
# pprof's flat rows are the innermost functions, as libc's _IO_unbuffer_all inlined in
# _IO_cleanup, where a tick at the exit landed once; rows of no flat samples left out)
"$PROFIL" record -q -o "$T/f.data" -- "$P/record_prog" fork 2>/dev/null
"$PROFIL" report -i "$T/f.data" --inline --format csv >"$T/f.csv"
"$PROFIL" export --format pprof -i "$T/f.data" -o "$T/f.pb.gz" 2>/dev/null
npids=$(awk -F, 'NR > 1 { print $1 }' "$T/f.csv" | sort -u | wc -l)
[ "$npids" -eq 2 ] && ok fork_two_processes || no fork_two_processes "$(cat "$T/f.csv")"
for p in $(awk -F, 'NR > 1 { print $1 }' "$T/f.csv" | sort -u); do
	want=$(awk -F, -v p="$p" '$1 == p && $(NF - 2) > 0 { print $3, $(NF - 2) }' "$T/f.csv" | sort | tr '\n' ' ')
	pp -top -sample_index=samples -tagfocus=pid="$p" "$T/f.pb.gz" >"$T/f.$p"
	got=$(flat "$T/f.$p" | awk '$2 > 0 { print $1, $2 }' | sort | tr '\n' ' ')
	expect "fork_pid_$p" "$got" "$want"
done

# ---- an empty profile ------------------------------------------------------------
# 1 sample per CPU second of `true`: no sample
"$PROFIL" record -q -F 1 -o "$T/e.data" -- true 2>/dev/null
if "$PROFIL" report -i "$T/e.data" | grep -q '^# total: 0 samples'; then
	"$PROFIL" export --format pprof -i "$T/e.data" -o "$T/e.pb.gz" 2>/dev/null
	expect empty_export "$?" 0
	pp -top "$T/e.pb.gz" >"$T/e.top"
	expect empty_read "$? $(grep -c '^Showing nodes accounting for 0, 0% of 0 total' "$T/e.top")" "0 1"
else
	echo "skip empty_profile: true got a sample at 1 Hz"
fi

# ---- errors: one sentence, non-zero exit, no file ------------------------------------
"$PROFIL" export --format pprof -i "$T/g.data" -o /dev/full 2>"$T/err"
expect full_status "$?" 1
# a device is written in place (never replaced): its write error is the sentence
expect full_message "$(cat "$T/err")" "profil export: cannot write /dev/full: No space left on device"

# a file size limit (RLIMIT_FSIZE, SIGXFSZ ignored: EFBIG) hit while writing: the
# previous file stays as it was, no temporary file is left
mkdir "$T/lim"
echo previous >"$T/lim/out.pb.gz"
(
	ulimit -f 1
	trap '' XFSZ
	exec "$PROFIL" export --format pprof -i "$T/g.data" -o "$T/lim/out.pb.gz" >/dev/null 2>"$T/lim.err"
)
expect limit_status "$?" 1
expect limit_message "$(cat "$T/lim.err")" "profil export: cannot write $T/lim/out.pb.gz: File too large"
expect limit_old_file_kept "$(cat "$T/lim/out.pb.gz")" previous
expect limit_no_temporary "$(ls -A "$T/lim" | tr '\n' ' ')" "out.pb.gz "
[ "$(wc -c <"$T/g.pb.gz")" -gt 512 ] && ok limit_is_hit || no limit_is_hit "output under 512 bytes"

"$PROFIL" export --format pprof -i "$T/missing.data" -o "$T/m.pb.gz" 2>"$T/err"
expect missing_input_status "$?" 1
expect missing_input_one_line "$(wc -l <"$T/err")" 1
[ ! -e "$T/m.pb.gz" ] && ok missing_input_no_file || no missing_input_no_file "file written"
"$PROFIL" export --format svg -i "$T/g.data" 2>"$T/err"
expect bad_format "$?:$(cat "$T/err")" "2:profil export: unknown format 'svg' (gmon, pprof or folded)"

# default output name
abs=$(cd "$(dirname "$PROFIL")" && pwd)/profil
(cd "$T/lim" && "$abs" export --format pprof -i "$T/g.data" 2>/dev/null)
[ -s "$T/lim/profil.pb.gz" ] && ok default_output_name || no default_output_name "no profil.pb.gz"
