#!/bin/sh
# profil report's view of the whole run, on profiles with known numbers
# (tests/tools/report_synth.c, period 1 ms): the merged rows and every sort key,
# the filters, --percent-limit, --top 0; the kernel's time as accounted rows
# (perf without privilege), as sampled rows named by symbol, or invisible (thread
# clock); short processes' unsampled time, so that the run's seconds add up to
# the tree's CPU time; hostile strings in the header; the JSON's memory bound
# on 10,000 process images.
. "$ROOT/tests/e2e/report/common.sh"
# info FILE KEY: a value report_synth printed
info() { awk -v k="$2" '$1 == k { print $2 }' "$1"; }
# flat NAME ARGS...: the report as JSON, checked and flattened by report_jsoncheck, into $T/NAME.flat
flat() {
	name=$1
	shift
	"$PROFIL" report --format json "$@" >"$T/$name.json" 2>"$T/$name.err" ||
		no "${name}_status" "$(cat "$T/$name.err")"
	"$TOOLS/report_jsoncheck" "$T/$name.json" >"$T/$name.flat" || no "${name}_schema" "$(tail -1 "$T/$name.flat")"
}
# rows NAME: the whole run's rows, one per line: KIND SAMPLES PERCENT SECONDS and the keys
rows() { awk '$1 == "row" { $1 = ""; sub(/^ /, ""); print }' "$T/$1.flat" | sed "s|$exe|EXE|g"; }
# same TEST NAME FILE: rows NAME equal the expected lines in FILE
same() {
	rows "$2" >"$T/$2.rows"
	if cmp -s "$T/$2.rows" "$3"; then ok "$1"; else no "$1" "rows: $(tr '\n' ';' <"$T/$2.rows") want: $(tr '\n' ';' <"$3")"; fi
}
# field NAME LINE-TYPE N: field N of the first line of that type
field() { awk -v t="$2" -v n="$3" '$1 == t { print $n; exit }' "$T/$1.flat"; }

"$TOOLS/report_synth" "$T/acct.data" acct >"$T/acct.info" || no gen_acct "report_synth failed"
exe=$(info "$T/acct.info" exe)
pid=$(info "$T/acct.info" pid)
worker=$(info "$T/acct.info" worker)
kid=$(info "$T/acct.info" kid)
A="-i $T/acct.data"

# ---- the whole run, merged by comm,dso,sym: the kernel's time accounted per thread ------------
# shellcheck disable=SC2086
flat acct $A
expect acct_time "$(grep '^time ' "$T/acct.flat")" \
	"time 2 accounted 1.0400 0.7400 0.2600 0.0400 1.0400 0.7800 0.2600 3"
expect acct_whole "$(grep '^whole ' "$T/acct.flat")" "whole comm,dso,sym self 1.0400 1.0400 0 0.0000"
cat >"$T/want" <<EOF
sampled 300 28.85 0.3000 comm=synth object=EXE name=hot_a
sampled 200 19.23 0.2000 comm=worker object=EXE name=hot_c
accounted 0 11.54 0.1200 comm=synth object=[kernel] name=[kernel]
sampled 100 9.62 0.1000 comm=cruncher object=EXE name=hot_b
sampled 90 8.65 0.0900 comm=synth object=EXE name=hot_b
sampled 50 4.81 0.0500 comm=cruncher object=EXE name=hot_d
accounted 0 4.81 0.0500 comm=cruncher object=[kernel] name=[kernel]
accounted 0 4.81 0.0500 comm=worker object=[kernel] name=[kernel]
accounted 0 3.85 0.0400 comm=true object=[kernel] name=[kernel]
unsampled 0 1.92 0.0200 comm=synth object=[unsampled] name=[unsampled]
unsampled 0 1.92 0.0200 comm=true object=[unsampled] name=[unsampled]
EOF
same acct_rows acct "$T/want"
# the shares and seconds add up: to 100 % and to the tree's CPU time (1.040 s)
expect acct_sum "$(rows acct | awk '{ p += $3; s += $4 } END { printf "%.1f %.4f", p, s }')" "100.0 1.0400"

# the text report: header and the first rows
# shellcheck disable=SC2086
"$PROFIL" report $A >"$T/acct.txt"
has_lines acct_text "$T/acct.txt" '^# command: report_synth acct$' \
	'^# rate: 1000.0 Hz effective (one sample is 1.000 ms of CPU time), 1000 Hz asked; the kernel throttled sampling: 3 samples not taken; 2 samples lost$' \
	"^# kernel: not sampled (no privilege); each thread's \[kernel\] row is its system time as the kernel accounted it" \
	'^# run: 1.040 s of CPU time in 202 process images (202 with time): 740 samples (0.740 s), 0.260 s kernel (accounted), 0.040 s unsampled$' \
	'^# cpu: 1.040 s measured for the process tree (user 0.780 s, system 0.260 s)$' \
	'^whole run: 1.040 s; %time is the share of the whole run (rows by comm,dso,sym, most time first)$' \
	'^   %time   seconds    samples  command   object        function$' \
	'^   28.85     0.300        300  synth     report_synth  hot_a$' \
	'^   11.54     0.120  accounted  synth     \[kernel\]      \[kernel\]$' \
	'^    1.92     0.020  unsampled  true      \[unsampled\]   \[unsampled\]$'
# the first screen is the merged profile: its first row within the first 15 lines
n=$(grep -n 'report_synth  hot_a$' "$T/acct.txt" | head -1 | cut -d: -f1)
[ -n "$n" ] && [ "$n" -le 15 ] && ok "acct_first_screen (line $n)" || no acct_first_screen "first row at line '$n'"

# ---- each sort key -----------------------------------------------------------------------------
# shellcheck disable=SC2086
flat comm $A --sort comm
cat >"$T/want" <<EOF
sampled 390 37.50 0.3900 comm=synth
sampled 200 19.23 0.2000 comm=worker
sampled 150 14.42 0.1500 comm=cruncher
accounted 0 11.54 0.1200 comm=synth
accounted 0 4.81 0.0500 comm=cruncher
accounted 0 4.81 0.0500 comm=worker
accounted 0 3.85 0.0400 comm=true
unsampled 0 1.92 0.0200 comm=synth
unsampled 0 1.92 0.0200 comm=true
EOF
same sort_comm comm "$T/want"
# shellcheck disable=SC2086
flat dso $A --sort dso
printf 'sampled 740 71.15 0.7400 object=EXE\naccounted 0 25.00 0.2600 object=[kernel]\nunsampled 0 3.85 0.0400 object=[unsampled]\n' >"$T/want"
same sort_dso dso "$T/want"
# shellcheck disable=SC2086
flat sym $A --sort sym
cat >"$T/want" <<EOF
sampled 300 28.85 0.3000 object=EXE name=hot_a
accounted 0 25.00 0.2600 object=[kernel] name=[kernel]
sampled 200 19.23 0.2000 object=EXE name=hot_c
sampled 190 18.27 0.1900 object=EXE name=hot_b
sampled 50 4.81 0.0500 object=EXE name=hot_d
unsampled 0 3.85 0.0400 object=[unsampled] name=[unsampled]
EOF
same sort_sym sym "$T/want"
# pid: the short processes' unsampled rows (0.3 ms each, under one period) are not listed, but counted
# shellcheck disable=SC2086
flat pid $A --sort pid
expect sort_pid_first "$(rows pid | head -5)" "sampled 590 56.73 0.5900 pid=$pid
sampled 150 14.42 0.1500 pid=$kid
accounted 0 14.42 0.1500 pid=$pid
accounted 0 4.81 0.0500 pid=$kid
unsampled 0 0.96 0.0100 pid=$pid"
expect sort_pid_short "$(rows pid | awk 'NR > 5 && $1 == "accounted" && $4 == "0.0006" { n++ } END { print NR, n }')" "105 100"
expect sort_pid_hidden "$(grep '^whole ' "$T/pid.flat")" "whole pid self 1.0400 1.0400 100 0.0300"
# shellcheck disable=SC2086
flat tid $A --sort tid
expect sort_tid "$(rows tid | head -4)" "sampled 390 37.50 0.3900 tid=$pid
sampled 200 19.23 0.2000 tid=$worker
sampled 150 14.42 0.1500 tid=$kid
accounted 0 9.62 0.1000 tid=$pid"
# two keys, in the order given: the columns and the grouping
# shellcheck disable=SC2086
flat commpid $A --sort comm,pid
expect sort_comm_pid "$(rows commpid | grep -c ' pid=4000000$')" 2
expect sort_comm_pid_true "$(rows commpid | grep ' comm=true pid=4000000$')" "accounted 0 0.04 0.0004 comm=true pid=4000000"
# shellcheck disable=SC2086
"$PROFIL" report $A --sort pid,comm >"$T/pidcomm.txt"
grep -q '^   %time   seconds    samples      pid  command$' "$T/pidcomm.txt" && ok sort_pid_comm_columns ||
	no sort_pid_comm_columns "$(sed -n 11,13p "$T/pidcomm.txt")"
# name: by function name
# shellcheck disable=SC2086
flat name $A --sort name
rows name | sed 's/.* name=//' >"$T/names"
LC_ALL=C sort -c "$T/names" 2>/dev/null && [ "$(wc -l <"$T/names")" -eq 11 ] && ok sort_name ||
	no sort_name "$(tr '\n' ' ' <"$T/names")"
# csv of the whole run: the same rows as the JSON
# shellcheck disable=SC2086
"$PROFIL" report $A --format csv --sort comm,dso,sym >"$T/run.csv"
expect csv_run_header "$(head -1 "$T/run.csv")" "comm,object,function,samples,percent,self_seconds,kind"
expect csv_run_row "$(sed -n 4p "$T/run.csv")" "synth,[kernel],[kernel],0,11.5385,0.120000,accounted"
expect csv_run_rows "$(($(wc -l <"$T/run.csv") - 1))" 11
# shellcheck disable=SC2086
"$PROFIL" report $A --format csv --sort sym,comm >"$T/symcomm.csv"
expect csv_sym_object "$(head -2 "$T/symcomm.csv" | tr '\n' ';')" \
	"function,object,comm,samples,percent,self_seconds,kind;hot_a,$exe,synth,300,28.8462,0.300000,sampled;"

# ---- filters, --percent-limit, --top -------------------------------------------------------------
# shellcheck disable=SC2086
flat fcomm $A --comm true
expect filter_comm "$(grep '^whole ' "$T/fcomm.flat") $(rows fcomm | tr '\n' ';')" \
	"whole comm,dso,sym self 1.0400 0.0600 0 0.0000 accounted 0 3.85 0.0400 comm=true object=[kernel] name=[kernel];unsampled 0 1.92 0.0200 comm=true object=[unsampled] name=[unsampled];"
expect filter_comm_images "$(grep -c '^proc ' "$T/fcomm.flat")" 100
# shellcheck disable=SC2086
flat fdso $A --dso '[kernel]'
expect filter_dso "$(field fdso whole 5) $(rows fdso | awk '{ print $5 }' | tr '\n' ' ')" \
	"0.2600 comm=synth comm=cruncher comm=worker comm=true "
# shellcheck disable=SC2086
flat fpid $A --pid "$kid"
expect filter_pid "$(field fpid whole 5) $(rows fpid | awk '{ print $7 }' | tr '\n' ' ')" \
	"0.2000 name=hot_b name=hot_d name=[kernel] "
expect filter_pid_images "$(grep '^proc ' "$T/fpid.flat" | awk '{ print $2 }')" "$kid"
# shellcheck disable=SC2086
flat fpids $A --pid "$kid,$pid"
expect filter_pids "$(field fpids whole 5)" 0.9500
# shellcheck disable=SC2086
flat ftid $A --tid "$worker"
expect filter_tid "$(field ftid whole 5) $(rows ftid | awk '{ print $1, $4 }' | tr '\n' ' ')" \
	"0.2500 sampled 0.2000 accounted 0.0500 "
# shellcheck disable=SC2086
flat fboth $A --dso report_synth --comm synth,cruncher
expect filter_dso_comm "$(field fboth whole 5) $(rows fboth | wc -l)" "0.5400 4"
# shellcheck disable=SC2086
"$PROFIL" report $A --comm true --dso "[unsampled]" >"$T/filter.txt"
grep -q '^# filter: --comm true --dso \[unsampled\]: 0.020 s of the run.s 1.040 s pass (1.92 %), in 100 process images$' "$T/filter.txt" &&
	ok filter_text || no filter_text "$(grep '^# filter' "$T/filter.txt")"
# shellcheck disable=SC2086
flat limit $A --percent-limit 5
expect percent_limit "$(rows limit | wc -l) $(grep '^whole ' "$T/limit.flat")" \
	"5 whole comm,dso,sym self 1.0400 1.0400 6 0.2300"
# shellcheck disable=SC2086
flat top0 $A --top 0
expect top_0_all "$(rows top0 | wc -l)" 11
# shellcheck disable=SC2086
flat top3 $A --top 3
expect top_3 "$(rows top3 | wc -l) $(field top3 whole 6)" "3 8"
# shellcheck disable=SC2086
"$PROFIL" report $A --top 2 --percent-limit 50 >"$T/top.txt"
grep -q '^  (11 more rows not listed: 1.040 s, 100.00 %)$' "$T/top.txt" && ok text_hidden_rows ||
	no text_hidden_rows "$(sed -n 11,16p "$T/top.txt")"

# ---- per image and per thread --------------------------------------------------------------------
expect image_root "$(grep "^image $pid " "$T/acct.flat")" "image $pid synth 0.7500 0.1500 0.0100 0.7500 0.6000 0.1500"
expect image_root_funcs "$(awk -v p="$pid" '$1 == "func" && $2 == p { print $3, $5, $6, $NF }' "$T/acct.flat" | tr '\n' ';')" \
	"300 0.300 hot_a sampled;200 0.200 hot_c sampled;0 0.150 [kernel] accounted;90 0.090 hot_b sampled;0 0.010 [unsampled] unsampled;"
# the threads in thread id order (the worker's id is below the main thread's when the pids wrapped)
expect image_threads "$(grep "^thread $pid " "$T/acct.flat" | tr '\n' ';')" \
	"$(printf '%s\n' "thread $pid $pid 390 synth 0.5000 0.5000 0.4000 0.1000" \
		"thread $pid $worker 200 worker 0.2500 0.2500 0.2000 0.0500" | sort -n -k3 | tr '\n' ';')"
expect image_short "$(grep '^image 4000000 ' "$T/acct.flat" | tr '\n' ';')" \
	"image 4000000 synth 0.0003 0.0002 0.0001 0.0003 0.0001 0.0002;image 4000000 true 0.0006 0.0004 0.0002 0.0006 0.0002 0.0004;"
# shellcheck disable=SC2086
flat threads $A --threads
expect tfunc_worker "$(awk -v t="$worker" '$1 == "tfunc" && $3 == t { print $4, $5, $6 }' "$T/threads.flat" | tr '\n' ';')" \
	"200 hot_c sampled;0 [kernel] accounted;"
# shellcheck disable=SC2086
"$PROFIL" report $A --threads >"$T/threads.txt"
grep -q "^ thread $worker (worker): 200 samples, 0.250 s; CPU 0.250 s$" "$T/threads.txt" &&
	ok text_thread || no text_thread "$(grep "thread $worker" "$T/threads.txt")"
grep -q "^process 4000000 (after exec from .*): /usr/bin/true: exited with code 0: 0 samples, 0.000 s; CPU 0.0006 s (user 0.0002 s, system 0.0004 s); 0.0006 s in all$" "$T/threads.txt" &&
	ok text_short_image || no text_short_image "$(grep -m2 '^process 4000000' "$T/threads.txt")"
# shellcheck disable=SC2086
"$PROFIL" report $A --format csv --pid "$pid" >"$T/img.csv"
expect csv_images "$(sed -n '1p;4p' "$T/img.csv" | tr '\n' ';')" \
	"pid,exe,function,object,samples,percent,self_seconds;$pid,$exe,[kernel],[kernel],0,20.0000,0.150000;"

# ---- the thread clock: the kernel invisible, no accounted rows ------------------------------------
"$TOOLS/report_synth" "$T/thread.data" thread >/dev/null
flat thread -i "$T/thread.data"
expect thread_time "$(grep '^time ' "$T/thread.flat")" \
	"time 2 invisible 1.0400 0.7400 0.0000 0.3000 1.0400 0.7800 0.2600 3"
expect thread_unsampled "$(rows thread | awk '$1 == "unsampled" { print $4, $5 }' | tr '\n' ';')" \
	"0.1400 comm=synth;0.0600 comm=true;0.0500 comm=cruncher;0.0500 comm=worker;"
"$PROFIL" report -i "$T/thread.data" >"$T/thread.txt"
grep -q '^# kernel: the thread clock cannot see the kernel: its ticks land at the user code the kernel returns to' "$T/thread.txt" &&
	ok thread_text || no thread_text "$(grep '^# kernel' "$T/thread.txt")"

# ---- the kernel sampled: named by the profile's kernel symbols -------------------------------------
"$TOOLS/report_synth" "$T/ks.data" ksampled >/dev/null
flat ks -i "$T/ks.data"
expect ks_time "$(grep '^time ' "$T/ks.flat")" "time 2 sampled 1.0400 0.9400 0.0000 0.1000 1.0400 0.7800 0.2600 3"
expect ks_rows "$(rows ks | awk '$0 ~ /object=\[kernel\]/ { print $1, $2, $5, $7 }' | tr '\n' ';')" \
	"sampled 80 comm=synth name=do_syscall_64;sampled 50 comm=cruncher name=do_syscall_64;sampled 50 comm=worker name=do_syscall_64;sampled 20 comm=synth name=clear_page_erms;"
expect ks_no_accounted "$(rows ks | grep -c '^accounted')" 0

# ---- attached: the attached process's CPU time includes the time before: no rows from it ----------
"$TOOLS/report_synth" "$T/att.data" attach >/dev/null
flat att -i "$T/att.data"
expect attach_root "$(grep "^image " "$T/att.flat" | head -1 | awk '{ print $4, $5, $6 }')" "0.5900 0.0000 0.0000"
expect attach_seconds "$(field att time 4)" 0.8800

# ---- hostile strings: the header cannot break ------------------------------------------------------
"$TOOLS/report_synth" "$T/bad.data" hostile >/dev/null
"$PROFIL" report -i "$T/bad.data" --images --threads >"$T/bad.txt"
expect hostile_header "$(sed '/^$/q' "$T/bad.txt" | grep -vc '^#\|^$')" 0
expect hostile_no_injection "$(grep -c '^# injected' "$T/bad.txt")" 0
# the command as stored (a raw one here: the recorder stores it shell-quoted), its control
# characters escaped: one line
want='# command: sh -c '"'"'printf "a\nb"'"'"'\n# injected: line\t"quoted" back\slash \x01 end'
grep -qxF "$want" "$T/bad.txt" && ok hostile_command ||
	no hostile_command "$(grep '^# command: ' "$T/bad.txt" | od -c | head -5)"
grep -q '^# clock: perf (note\\n# injected note)$' "$T/bad.txt" && ok hostile_note || no hostile_note "$(grep '^# clock' "$T/bad.txt")"
grep -q '^ thread [0-9]* (a\\n# b,"c"): 1 sample, 0.001 s$' "$T/bad.txt" && ok hostile_thread ||
	no hostile_thread "$(grep thread "$T/bad.txt")"
flat bad -i "$T/bad.data"
grep -qF '"command":"sh -c '"'"'printf \"a\\nb\"'"'"'\n# injected: line\t\"quoted\" back\\slash \u0001 end"' "$T/bad.json" &&
	ok hostile_json || no hostile_json "$(grep '"command"' "$T/bad.json")"
"$PROFIL" report -i "$T/bad.data" --format csv --sort comm >"$T/bad.csv"
expect hostile_csv "$(cat "$T/bad.csv")" "comm,samples,percent,self_seconds,kind
\"a
# b,\"\"c\"\"\",1,100.0000,0.001000,sampled"
grep -q '^# run: 0.001 s of CPU time in 1 process image (1 with time): 1 sample (0.001 s)$' "$T/bad.txt" &&
	ok singular || no singular "$(grep '^# run' "$T/bad.txt")"

# ---- memory: the JSON of 10,000 process images -----------------------------------------------------
"$TOOLS/report_synth" "$T/m1.data" many 2500 >/dev/null || no gen_many "report_synth many 2500 failed"
"$TOOLS/report_synth" "$T/m4.data" many 10000 >/dev/null || no gen_many "report_synth many 10000 failed"
r1=$("$TOOLS/report_maxrss" "$T/m1.json" "$PROFIL" report -i "$T/m1.data" --format json)
r4=$("$TOOLS/report_maxrss" "$T/m4.json" "$PROFIL" report -i "$T/m4.data" --format json)
"$TOOLS/report_jsoncheck" "$T/m4.json" >"$T/m4.flat" && ok many_schema || no many_schema "$(tail -1 "$T/m4.flat")"
expect many_images "$(grep -c '^image ' "$T/m4.flat")" 10001
case "$B" in
*/asan) echo "skip many_memory: ASan's shadow memory and quarantine are not the report's" ;;
*)
	# 7.7 KB per image before (one json-c tree); the images' maps and rows, streamed, now
	per=$(((r4 - r1) * 1024 / 7500))
	[ "$r4" -lt 204800 ] && [ "$per" -lt 3072 ] && ok "many_memory (2,500 images: $r1 KiB, 10,000: $r4 KiB; $per bytes per image)" ||
		no many_memory "2,500 images: $r1 KiB, 10,000: $r4 KiB ($per bytes per image)"
	;;
esac
