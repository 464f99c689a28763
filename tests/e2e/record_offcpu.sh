#!/bin/sh
# profil record --off-cpu where BPF is permitted: each function's off-CPU
# seconds, through the text report, JSON and pprof, against what the
# program measured itself (tests/progs/offcpu_prog.c: CLOCK_MONOTONIC less
# CLOCK_THREAD_CPUTIME_ID around each call), within 15 % or 40 ms; every
# thread's CPU + off-CPU time against its lifetime; a thread blocked for
# the whole run, SIGKILL, a thread that ends while off the CPU, 10,000
# threads that sleep once; the program's sleeps as long as it asked.
# Needs root or CAP_BPF+CAP_PERFMON (skipped otherwise; record_offcpu_unpriv
# covers the rest).
. "$ROOT/tests/e2e/record/common.sh"
PROG="$PROGS/offcpu_prog"

need_offcpu record_offcpu "^offcpu header .*source=bpf" "BPF off-CPU not available here" '^note topic=off-cpu'

# near_off WANT_NS GOT_NS: within 15 % or 40 ms
near_off() {
	awk -v w="$1" -v g="$2" 'BEGIN { d = g - w; if (d < 0) d = -d; exit !(d <= 0.15 * w || d <= 40000000) }'
}
truth_off() { awk -v f="$2" '$1=="truth" && $2=="func="f { split($5,a,"="); print a[2] }' "$1"; }
truth_cpu() { awk -v f="$2" '$1=="truth" && $2=="func="f { split($4,a,"="); print a[2] }' "$1"; }

# ---- the mix: sleep, a pipe fed slowly by a child, a contended mutex, CPU ------
rm -f mix.truth
OFFCPU_TRUTH=$T/mix.truth "$P" record -q --off-cpu -g -o mix.data -- "$PROG" mix 300 >mix.out 2>&1
rc=$?
[ $rc -eq 0 ] && [ "$(grep -c '^truth' mix.truth)" -eq 5 ]
expect mix_runs "rc=$rc $(cat mix.out) $(cat mix.truth)"

# text: --children, by function (the total column of off-cpu is each function's and its callees')
"$P" report -i mix.data --children --sort sym --top 0 >mix.txt
for f in sleep_fn pipe_fn feed_fn mutex_fn burn_fn; do
	# the header's "total s" and "self s" are two words each: a row's column is 2 fewer
	got=$(awk -v f="$f" '/^ *%total/ { for (i=1;i<=NF;i++) if ($i=="off-cpu") c=i-2 }
		c { for (i = c; i <= NF; i++) if ($i == f) { printf "%.0f", $c * 1e9; exit } }' mix.txt)
	want=$(truth_off mix.truth "$f")
	near_off "$want" "${got:-0}"
	expect "text_offcpu_$f" "report ${got}ns, measured ${want}ns"
done

# JSON: total_offcpu_seconds of each function's row; CPU of burn_fn
"$P" report -i mix.data --format json --children --sort sym >mix.json
for f in sleep_fn pipe_fn feed_fn mutex_fn burn_fn; do
	got=$(python3 -c 'import json,sys
d=json.load(open(sys.argv[1]))
print(sum(int(r["total_offcpu_seconds"]*1e9) for r in d["whole_run"]["rows"] if r.get("name")==sys.argv[2]))' mix.json "$f")
	want=$(truth_off mix.truth "$f")
	near_off "$want" "$got"
	expect "json_offcpu_$f" "json ${got}ns, measured ${want}ns"
done
got=$(python3 -c 'import json,sys
d=json.load(open(sys.argv[1]))
print(sum(int(r["total_seconds"]*1e9) for r in d["whole_run"]["rows"] if r.get("name")=="burn_fn"))' mix.json)
near_off "$(truth_cpu mix.truth burn_fn)" "$got"
expect json_cpu_burn_fn "json ${got}ns of CPU, measured $(truth_cpu mix.truth burn_fn)ns"
python3 -c 'import json,sys
d=json.load(open(sys.argv[1]))
o=d["offcpu"]; r=o["reasons"]
assert o["source"]=="bpf" and abs(o["seconds"]-sum(r.values()))<1e-6, o
assert r["sleep"]>0.5 and o["lifetimes"]["known"]==o["lifetimes"]["threads"], o' mix.json
expect json_offcpu_object "$(head -c 600 mix.json)"

# the trees: --callees FUNC's root is FUNC's off-CPU time (its column in the text tree),
# -g caller's node of each function and the JSON stacks through it say the same
for f in sleep_fn pipe_fn mutex_fn; do
	"$P" report -i mix.data --callees "$f" --sort off-cpu >callees_$f.txt
	got=$(awk -v f="$f" '/^ *%off-cpu +cpu s +off-cpu s +function$/ { h=1; next }
		h && $4 == f { printf "%.0f", $3 * 1e9; exit }' callees_$f.txt)
	want=$(truth_off mix.truth "$f")
	near_off "$want" "${got:-0}"
	expect "callees_offcpu_$f" "callees tree ${got}ns, measured ${want}ns: $(head -c 400 callees_$f.txt)"
done
"$P" report -i mix.data --format json -g caller,0 >mix_cg.json
for f in sleep_fn pipe_fn mutex_fn; do
	got=$(python3 -c 'import json,sys
d=json.load(open(sys.argv[1])); f=sys.argv[2]
def walk(nodes, frames, acc):
    for n in nodes:
        if frames[n["frame"]]["name"] == f: acc.append(n["offcpu_seconds"])
        else: walk(n["children"], frames, acc)
tree=[]; walk(d["whole_run"]["call_graph"]["children"], d["whole_run"]["frames"], tree)
stk=0.0
for p in d["processes"]:
    for s in p["stacks"]:
        if any(p["frames"][i]["name"] == f for i in s["frames"]): stk += s["offcpu_seconds"]
print("%.0f %.0f" % (sum(tree) * 1e9, stk * 1e9))' mix_cg.json "$f")
	want=$(truth_off mix.truth "$f")
	near_off "$want" "${got% *}" && near_off "$want" "${got#* }"
	expect "json_tree_and_stacks_offcpu_$f" "call_graph node, stacks: ${got}ns, measured ${want}ns"
done

# pprof: go tool pprof -sample_index=off_cpu, cumulative per function
if command -v go >/dev/null 2>&1; then
	"$P" export --format pprof -i mix.data -o mix.pb.gz 2>/dev/null
	go tool pprof -sample_index=off_cpu -unit=ms -top -cum -nodecount=1000 mix.pb.gz >mix.top 2>&1
	for f in sleep_fn pipe_fn feed_fn mutex_fn burn_fn; do
		got=$(awk -v f="$f" '$NF==f { v=$4; sub(/ms$/,"",v); printf "%.0f", v * 1e6; exit }' mix.top)
		want=$(truth_off mix.truth "$f")
		near_off "$want" "${got:-0}"
		expect "pprof_offcpu_$f" "pprof ${got}ns, measured ${want}ns"
	done
	grep -q 'Type: off_cpu' mix.top
	expect pprof_sample_type_off_cpu "$(head -12 mix.top)"
else
	skip pprof_offcpu "go not installed"
fi

# the user stacks of new places walked in the kernel (issue 17's walk), where it loads here
if "$DUMP" mix.data | grep -q '^note topic=off-cpu .*user stacks walked through the CFI in the kernel'; then
	"$DUMP" mix.data | grep '^note topic=off-cpu' | grep -q 'in the kernel at [1-9][0-9]* new places'
	expect mix_user_stacks_walked_in_kernel "$("$DUMP" mix.data | grep '^note topic=off-cpu')"
else
	skip mix_user_stacks_walked_in_kernel "the in-kernel walk does not load here: $("$DUMP" mix.data | grep '^note topic=off-cpu')"
fi

# every thread: CPU + off-CPU = its lifetime (nothing lost, nothing twice)
"$DUMP" mix.data >mix.dump
bad=$(awk '$1=="thread" { for (i=2;i<=NF;i++) { split($i,a,"="); v[a[1]]=a[2] }
	life=v["life_ns"]; s=v["cpu_ns"]+v["offcpu_ns"]
	if (life == 0 || s > life * 1.02 + 2000000 || s < life * 0.85) print $0 }' mix.dump)
[ -z "$bad" ] && [ "$(grep -c '^thread' mix.dump)" -ge 3 ]
expect mix_threads_lifetimes_add_up "$bad"
# the table holds what the threads' totals say (no interval without its place)
awk '$1=="offcpu" && $2=="header" { split($3,a,"="); split($4,b,"="); t=a[2]; l=b[2] }
	$1=="offtid" { split($5,c,"="); s+=c[2] }
	END { d = t - l - s; if (d < 0) d = -d; exit !(t > 0 && d < 1000) }' mix.dump
expect mix_table_is_the_total "$(grep -e '^offcpu' -e '^offtid' mix.dump)"

# ---- short-lived children: their stacks unwound before their mappings go ---------
# (each child's user stack copy is unwound when the session handles its exit at the
# latest; unwound after, the copy met no mappings and the time went to [truncated])
rm -f forks.truth
# (copies: PROFIL_OFFCPU_NO_KWALK, the in-kernel walk left out)
OFFCPU_TRUTH=$T/forks.truth PROFIL_OFFCPU_NO_KWALK=1 \
	"$P" record -q --off-cpu -g -o forks.data -- "$PROG" forks 10
"$P" report -i forks.data --children --sort sym --top 0 >forks.txt
got=$(awk '/^ *%total/ { for (i=1;i<=NF;i++) if ($i=="off-cpu") c=i-2 }
	c && $(NF-1) == "forked_fn" { printf "%.0f", $c * 1e9; exit }' forks.txt)
want=$(awk '$2=="func=forked_fn" { split($5,a,"="); s+=a[2] } END { printf "%.0f", s }' forks.truth)
[ "$(grep -c '^truth' forks.truth)" -eq 10 ] && near_off "$want" "${got:-0}"
expect forked_children_stacks_complete "forked_fn ${got}ns, the 10 children measured ${want}ns; $(grep -e forked_fn -e truncated forks.txt)"

# ---- profil diff of off-CPU time: 200 ms of sleep against 500 ms ------------------
rm -f d1.truth d2.truth
OFFCPU_TRUTH=$T/d1.truth "$P" record -q --off-cpu -g -o d1.data -- "$PROG" sleep 200
OFFCPU_TRUTH=$T/d2.truth "$P" record -q --off-cpu -g -o d2.data -- "$PROG" sleep 500
"$P" diff --sort offcpu --format json d1.data d2.data >d.json
got=$(python3 -c 'import json,sys
d=json.load(open(sys.argv[1])); f=d["functions"][0]
print(f["name"], "%.0f" % (f["delta_offcpu_seconds"] * 1e9), d["offcpu"])' d.json)
want=$(( $(truth_off d2.truth sleep_fn) - $(truth_off d1.truth sleep_fn) ))
set -- $got
[ "$1" = hrtimer_nanosleep ] && [ "$3" = True ] && near_off "$want" "$2"
expect diff_offcpu_delta "top row $got, measured change ${want}ns; $(head -c 300 d.json)"
"$P" diff --sort offcpu d1.data d2.data >d.txt
grep -q 'old off s  new off s  delta off s' d.txt && grep -q 'sorted by |delta off s|' d.txt
expect diff_offcpu_text_columns "$(head -8 d.txt)"
"$P" record -q -o c1.data -- true && "$P" diff --sort offcpu c1.data c1.data >d.out 2>d.err
rc=$?
[ $rc -eq 1 ] && [ "$(wc -l <d.err)" -eq 1 ] && grep -q 'neither profile has any' d.err
expect diff_offcpu_without_offcpu_refused "rc=$rc $(cat d.err)"

# ---- the program's sleeps are as long as asked, under the recorder ------------
rm -f sl.truth
OFFCPU_TRUTH=$T/sl.truth "$P" record -q --off-cpu -g -o sl.data -- "$PROG" sleep 200
w=$(awk '$2=="func=sleep_fn" { split($3,a,"="); print a[2] }' sl.truth)
[ "${w:-0}" -ge 200000000 ]
expect sleeps_not_shortened "sleep_fn took ${w}ns for 200 ms"

# ---- flat (no -g): the leaf user function where each thread waited -----------
rm -f flat.truth
OFFCPU_TRUTH=$T/flat.truth "$P" record -q --off-cpu -o flat.data -- "$PROG" sleep 200
n=$("$DUMP" flat.data | awk '$1=="offfunc" && $0 ~ /name=.*nanosleep/ { split($3,a,"="); s+=a[2] } END { print s+0 }')
near_off "$(truth_off flat.truth sleep_fn)" "$n"
expect flat_leaf_is_nanosleep "nanosleep ${n}ns, sleep_fn measured $(truth_off flat.truth sleep_fn)ns"

# ---- a thread blocked for the whole run; an orphan still blocked at the end ----
rm -f bl.truth
OFFCPU_TRUTH=$T/bl.truth "$P" record -q --off-cpu -g -o bl.data -- "$PROG" blocked 300
"$DUMP" bl.data >bl.dump
bad=$(awk '$1=="thread" { for (i=2;i<=NF;i++) { split($i,a,"="); v[a[1]]=a[2] }
	if (v["life_ns"] < 250000000 || v["cpu_ns"] + v["offcpu_ns"] < v["life_ns"] * 0.85) print }' bl.dump)
[ -z "$bad" ] && [ "$(grep -c '^thread' bl.dump)" -eq 2 ]
expect blocked_thread_whole_run "$bad $(grep '^thread' bl.dump)"

# (one nanosleep: in 20 ms steps it is, once in a while, on the CPU at the end)
"$P" record -q --off-cpu -o orphan.data -- sh -c "\"$PROG\" nap 1500 >/dev/null & sleep 0.3"
"$DUMP" orphan.data >orphan.dump
# the orphan is still asleep when the recording ends: its interval is closed then, not lost
life=$(awk '$1=="thread" && $4=="comm=offcpu_prog" { for (i=2;i<=NF;i++) { split($i,a,"="); v[a[1]]=a[2] } print v["life_ns"], v["offcpu_ns"] }' orphan.dump)
set -- $life
[ "${1:-0}" -ge 200000000 ] && [ "${2:-0}" -ge $(( ${1:-0} * 8 / 10 )) ]
expect interval_open_at_end_closed "life/offcpu of the orphan: $life; $(grep '^note topic' orphan.dump)"
grep -q 'still open closed at the end' orphan.dump
expect note_says_open_intervals_closed "$(grep '^note topic' orphan.dump)"

# ---- -p PID: a running process, one thread blocked since before the attach ---------
# (the recorder detaches at SIGINT 2 s later; under load it attaches late: the lifetimes are
# what the attach lasted, whatever that was)
OFFCPU_TRUTH=/dev/null "$PROG" blocked 3000 >/dev/null &
bpid=$!
sleep 0.3
timeout -s INT 2 "$P" record -q -p "$bpid" --off-cpu -g -o att.data 2>att.err
kill "$bpid" 2>/dev/null
wait "$bpid" 2>/dev/null
"$DUMP" att.data >att.dump
# each thread: its lifetime from the attach, all of it off the CPU but its CPU time
bad=$(awk '$1=="thread" { for (i=2;i<=NF;i++) { split($i,a,"="); v[a[1]]=a[2] }
	s=v["cpu_ns"]+v["offcpu_ns"]; if (v["life_ns"] < 50000000 || s > v["life_ns"] * 1.02 + 2000000 || s < v["life_ns"] * 0.85) print }' att.dump)
[ -z "$bad" ] && [ "$(grep -c '^thread' att.dump)" -eq 2 ] && grep -q '^offcpu header .*source=bpf' att.dump &&
	grep -q '^note topic=off-cpu .*attached: [12] waits already under way' att.dump
expect attach_threads_lifetimes "$bad $(grep -e '^thread' -e '^note topic=off' att.dump) $(cat att.err)"
# the blocked thread's wait at the PC of its read, the main thread's sleeps under sleep_fn
life=$(awk '$1=="thread" { for (i=2;i<=NF;i++) { split($i,a,"="); v[a[1]]=a[2] } print v["life_ns"]; exit }' att.dump)
"$P" report -i att.data --children --sort sym --top 0 >att.txt
for f in read sleep_fn; do
	got=$(awk -v f="$f" '/^ *%total/ { for (i=1;i<=NF;i++) if ($i=="off-cpu") c=i-2 }
		c && $(NF-1) == f { printf "%.0f", $c * 1e9; exit }' att.txt)
	near_off "${life:-0}" "${got:-0}"
	expect "attach_offcpu_$f" "$f ${got}ns off the CPU, the attach lasted ${life}ns: $(sed -n '/%total/,$p' att.txt | head -6)"
done

# ---- SIGKILL while asleep: nothing lost ------------------------------------------
"$P" record -q --off-cpu -o kill.data -- sh -c "\"$PROG\" sleep 3000 & p=\$!; sleep 0.4; kill -KILL \$p; wait \$p" 2>/dev/null
"$DUMP" kill.data >kill.dump
v=$(awk '$1=="thread" && $4=="comm=offcpu_prog" { for (i=2;i<=NF;i++) { split($i,a,"="); v[a[1]]=a[2] } print v["life_ns"], v["offcpu_ns"], v["cpu_ns"] }' kill.dump)
set -- $v
[ "${1:-0}" -ge 300000000 ] && [ $(( ${2:-0} + ${3:-0} )) -ge $(( ${1:-0} * 85 / 100 )) ] &&
	[ $(( ${2:-0} + ${3:-0} )) -le $(( ${1:-0} + ${1:-0} / 50 + 2000000 )) ]
expect sigkill_nothing_lost "life offcpu cpu: $v"

# ---- a thread that ends while off the CPU (exit_group while it sleeps) ---------
"$P" record -q --off-cpu -o ex.data -- "$PROG" exit_offcpu 200 >/dev/null
"$DUMP" ex.data >ex.dump
bad=$(awk '$1=="thread" { for (i=2;i<=NF;i++) { split($i,a,"="); v[a[1]]=a[2] }
	s=v["cpu_ns"]+v["offcpu_ns"]; if (v["life_ns"] == 0 || s > v["life_ns"] * 1.02 + 2000000 || s < v["life_ns"] * 0.85) print }' ex.dump)
[ -z "$bad" ] && [ "$(grep -c '^thread' ex.dump)" -eq 2 ]
expect thread_ends_off_cpu_counted_once "$bad $(grep '^thread' ex.dump)"

# ---- 10,000 threads that sleep once ------------------------------------------------
n=10000
is_asan && n=3000
"$P" record -q --off-cpu -o many.data -- "$PROG" threads $n >many.out
"$DUMP" many.data >many.dump
started=$(sed -n 's/^threads started=//p' many.out)
k=$(awk '$1=="thread" { for (i=2;i<=NF;i++) { split($i,a,"="); v[a[1]]=a[2] } if (v["life_ns"] > 0 && v["offcpu_ns"] >= 1500000) k++ } END { print k+0 }' many.dump)
short=$(awk '$1=="thread" { for (i=2;i<=NF;i++) { split($i,a,"="); v[a[1]]=a[2] } if (!(v["life_ns"] > 0 && v["offcpu_ns"] >= 1500000)) print }' many.dump | head -3)
lost=$(awk '$1=="offcpu" && $2=="header" { split($4,a,"="); print a[2] }' many.dump)
life=$(awk '$1=="thread" { for (i=2;i<=NF;i++) { split($i,a,"="); v[a[1]]=a[2] } if (v["life_ns"] > 0) k++ } END { print k+0 }' many.dump)
# every thread has its lifetime and its 2 ms (a switch-in that missed its entry closed later)
[ "${started:-0}" -ge $((n * 99 / 100)) ] && [ "$life" -gt "$started" ] &&
	[ "$k" -ge "$started" ] && [ "$lost" = 0 ] && ! grep -q 'lost:' many.dump
expect many_threads_each_counted "$k of $started threads ($n asked) with a lifetime and their 2 ms; lost=$lost; $short; $(grep '^note topic' many.dump)"
