#!/bin/sh
# profil report on exact generated profiles (tests/progs/report_gen.c): function
# and object names for PIE, non-PIE, static and stripped executables, a shared
# library, libc, [vdso], unmapped PCs, a forked child; the whole run merged; --images, --threads, --lines (checked
# against binutils addr2line), json (schema-checked with json-c), csv, --top, --sort.
. "$ROOT/tests/e2e/report/common.sh"
# csv column values: col FILE PID FUNCTION COLUMN (pid,exe,function,object,samples,percent,self_seconds)
col() { awk -F, -v p="$2" -v f="$3" -v c="$4" '$1 == p && $3 == f { print $c }' "$1"; }
info() { awk -v k="$2" '$1 == k { print $2 }' "$1"; }

for v in pie nopie static stripped; do
	exe="$P/report_gen_$v"
	if ! "$exe" "$T/$v.data" normal >"$T/$v.info" 2>"$T/$v.err"; then
		no "gen_$v" "$(cat "$T/$v.err")"
		continue
	fi
	"$PROFIL" report -i "$T/$v.data" --format csv >"$T/$v.csv" 2>"$T/$v.rerr"
	expect "report_${v}_status" "$?" 0
	pid=$(info "$T/$v.info" pid)
	child=$(info "$T/$v.info" child)
	base=report_gen_$v
	expect "${v}_hot_a_samples" "$(col "$T/$v.csv" "$pid" hot_a 5)" 300
	expect "${v}_hot_a_object" "$(col "$T/$v.csv" "$pid" hot_a 4)" "$exe"
	expect "${v}_hot_a_seconds" "$(col "$T/$v.csv" "$pid" hot_a 7)" 0.300000
	# 300 of 795 samples; the static one has no libc samples: 300 of 745
	pct=37.7358
	[ "$v" = static ] && pct=40.2685
	expect "${v}_hot_a_percent" "$(col "$T/$v.csv" "$pid" hot_a 6)" "$pct"
	expect "${v}_hot_c_samples" "$(col "$T/$v.csv" "$pid" hot_c 5)" 80
	expect "${v}_unknown_pc" "$(col "$T/$v.csv" "$pid" '[unknown]' 5)" 10
	expect "${v}_vdso" "$(col "$T/$v.csv" "$pid" '[vdso]' 5)" 5
	if [ "$v" = stripped ]; then
		# hot_b is static: not in .dynsym; its range starts at its link-time address
		hb="[$base+$(info "$T/$v.info" hot_b_vaddr)]"
		expect "${v}_hot_b_range_name" "$(col "$T/$v.csv" "$pid" "$hb" 5)" 200
		expect "${v}_child_hot_b_range" "$(col "$T/$v.csv" "$child" "$hb" 5)" 40
	else
		expect "${v}_hot_b_samples" "$(col "$T/$v.csv" "$pid" hot_b 5)" 200
		expect "${v}_child_hot_b" "$(col "$T/$v.csv" "$child" hot_b 5)" 40
		expect "${v}_child_percent" "$(col "$T/$v.csv" "$child" hot_b 6)" 100.0000
	fi
	if [ "$v" = static ]; then
		expect "${v}_lib_hot_in_exe" "$(col "$T/$v.csv" "$pid" lib_hot 4)" "$exe"
		"$PROFIL" report -i "$T/$v.data" | grep -q "statically linked" &&
			ok "${v}_note" || no "${v}_note" "no 'statically linked' note"
	else
		expect "${v}_lib_hot_object" "$(col "$T/$v.csv" "$pid" lib_hot 4)" "$P/libreport_lib.so"
		expect "${v}_lib_hot_samples" "$(col "$T/$v.csv" "$pid" lib_hot 5)" 150
		libc=$(info "$T/$v.info" libc)
		got=$(awk -F, -v p="$pid" -v o="$libc" '$1 == p && $4 == o { s += $5 } END { print s + 0 }' "$T/$v.csv")
		expect "${v}_libc_object" "$got" 50
	fi
	if [ "$v" = stripped ]; then
		"$PROFIL" report -i "$T/$v.data" | grep -q "$base: stripped" &&
			ok "${v}_note" || no "${v}_note" "no 'stripped' note"
	fi
done

# the text report: header lines, the whole run merged, and with --images the per-image tables
"$PROFIL" report -i "$T/pie.data" >"$T/pie.txt"
"$PROFIL" report -i "$T/pie.data" --images >"$T/pie_images.txt"
has_lines text "$T/pie.txt" '^# command: report_gen ' '^# clock: perf (test generator)$' \
	'^# rate: 1000.0 Hz effective (one sample is 1.000 ms of CPU time), 997 Hz asked$' \
	'^# samples: 842, lost 0, dropped 0' '^# ended: exited with code 0' \
	'^# run: 0.842 s of CPU time in 4 process images (3 with time): 842 samples (0.842 s)$' \
	'^whole run: 0.842 s; %time is the share of the whole run' \
	'^   35.63     0.300        300  report_gen  report_gen_pie    hot_a$' \
	'^    9.50     0.080         80  worker      report_gen_pie    hot_c$' \
	'^    0.83     0.007          7  true        \[unknown\]         \[unknown\]$'
grep -q '^process ' "$T/pie.txt" && no text_no_images "per-image tables without --images" || ok text_no_images
has_lines images "$T/pie_images.txt" \
	"^process [0-9]*: .*report_gen_pie: exited with code 0: 795 samples, 0.795 s$" \
	'exited with code 3: 40 samples' ' 37.74     0.300        300  hot_a '

# exec: the image before exec ends "exec"; the new image does not inherit its maps
execer=$(info "$T/pie.info" execer)
expect exec_after_image "$(col "$T/pie.csv" "$execer" '[unknown]' 5)" 7
grep -q "^process $execer (after exec from .*report_gen_pie): /bin/true: exited with code 0: 7 samples" "$T/pie_images.txt" &&
	ok exec_text || no exec_text "$(grep "^process $execer" "$T/pie.txt")"

# --threads: the worker thread by its tid and comm
pid=$(info "$T/pie.info" pid)
worker=$(info "$T/pie.info" worker)
"$PROFIL" report -i "$T/pie.data" --format csv --threads >"$T/thr.csv"
expect threads_header "$(head -1 "$T/thr.csv")" "pid,exe,tid,comm,function,object,samples,percent,self_seconds"
expect threads_worker "$(awk -F, -v t="$worker" '$3 == t && $4 == "worker" && $5 == "hot_c" { print $7 }' "$T/thr.csv")" 80
expect threads_main "$(awk -F, -v t="$pid" '$3 == t && $5 == "hot_a" { print $7 }' "$T/thr.csv")" 300
expect threads_worker_only_hot_c "$(awk -F, -v t="$worker" '$3 == t' "$T/thr.csv" | wc -l)" 1
"$PROFIL" report -i "$T/pie.data" --threads | grep -q "^ thread $worker (worker): 80 samples" &&
	ok threads_text || no threads_text "no worker thread line"

# --lines: hot_a's entry line agrees with binutils addr2line
for v in pie nopie; do
	exe="$P/report_gen_$v"
	"$PROFIL" report -i "$T/$v.data" --format csv --lines >"$T/lines.csv"
	pid=$(info "$T/$v.info" pid)
	addr=$(nm "$exe" | awk '$3 == "hot_a" { print $1 }')
	want=$(addr2line -e "$exe" "0x$addr" | sed 's/.*://; s/ .*//')
	decl=$(info "$T/$v.info" hot_a_line)
	got=$(awk -F, -v p="$pid" '$1 == p && $3 == "hot_a" && $5 ~ /report_gen\.c$/ { print $6 }' "$T/lines.csv" | sort -n | head -1)
	expect "lines_${v}_hot_a" "$got" "$want"
	[ -n "$got" ] && [ "$got" -ge "$decl" ] && [ "$got" -le $((decl + 4)) ] &&
		ok "lines_${v}_near_decl" || no "lines_${v}_near_decl" "line '$got' not near $decl"
	expect "lines_${v}_sum" "$(awk -F, -v p="$pid" '$1 == p && $3 == "hot_a" { s += $7 } END { print s }' "$T/lines.csv")" 300
done

# json: schema and values
"$PROFIL" report -i "$T/pie.data" --format json --threads --lines >"$T/r.json"
if "$TOOLS/report_jsoncheck" "$T/r.json" >"$T/r.flat"; then
	ok json_schema
else
	no json_schema "$(cat "$T/r.flat" | tail -1)"
fi
pid=$(info "$T/pie.info" pid)
child=$(info "$T/pie.info" child)
expect json_run "$(grep '^run ' "$T/r.flat")" "run perf 1000.0 997 842 0 1"
expect json_root "$(awk -v p="$pid" '$1 == "proc" && $2 == p { print $4, $5, $6 }' "$T/r.flat")" "exited 0 795"
expect json_child "$(awk -v p="$child" '$1 == "proc" && $2 == p { print $3 == '"$pid"', $4, $5, $6 }' "$T/r.flat")" "1 exited 3 40"
expect json_hot_a "$(awk -v p="$pid" '$1 == "func" && $2 == p && $6 == "hot_a" { print $3, $4, $5 }' "$T/r.flat")" "300 37.74 0.300"
expect json_lib_object "$(awk -v p="$pid" '$1 == "func" && $6 == "lib_hot" { print $7 }' "$T/r.flat")" "$P/libreport_lib.so"
expect json_exec "$(awk -v p="$execer" '$1 == "proc" && $2 == p { print $4, $6 }' "$T/r.flat" | tr '\n' ' ')" "exec 0 exited 7 "
expect json_worker "$(awk -v t="$(info "$T/pie.info" worker)" '$1 == "tfunc" && $3 == t { print $4, $5 }' "$T/r.flat")" "80 hot_c"

# --top and --sort name
"$PROFIL" report -i "$T/pie.data" --format csv --top 2 >"$T/top.csv"
expect top_rows "$(awk -F, -v p="$pid" '$1 == p' "$T/top.csv" | cut -d, -f3 | tr '\n' ' ')" "hot_a hot_b "
"$PROFIL" report -i "$T/pie.data" --format csv --sort name >"$T/name.csv"
awk -F, -v p="$pid" '$1 == p { print $3 }' "$T/name.csv" >"$T/names"
LC_ALL=C sort "$T/names" >"$T/names.sorted"
cmp -s "$T/names" "$T/names.sorted" && [ "$(wc -l <"$T/names")" -eq 7 ] && ok sort_name ||
	no sort_name "not sorted by name: $(tr '\n' ' ' <"$T/names")"

# a profile whose recorder never finished, of a program killed by SIGKILL
"$P/report_gen_pie" "$T/inc.data" incomplete >/dev/null
"$PROFIL" report -i "$T/inc.data" >"$T/inc.txt"
expect incomplete_status "$?" 0
grep -q '^# ended: profile incomplete: the recorder did not finish (program: killed by signal 9 (SIGKILL))' "$T/inc.txt" &&
	ok incomplete_text || no incomplete_text "$(grep '^# ended' "$T/inc.txt")"
"$PROFIL" report -i "$T/inc.data" --format json >"$T/inc.json"
"$TOOLS/report_jsoncheck" "$T/inc.json" >"$T/inc.flat"
expect incomplete_json "$(awk '$1 == "run" { print $7 }' "$T/inc.flat") $(awk '$1 == "proc" { print $4, $5; exit }' "$T/inc.flat")" "0 signaled 9"
