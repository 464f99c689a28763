#!/bin/sh
# Call stacks of the LD_PRELOAD agent (record -g with the thread or itimer
# clock: PROFIL_AGENT_STACKS=1): unwound in the signal handler
# (agent/unwind.c) through code without frame pointers (the test program,
# built -O2 -fomit-frame-pointer, and Debian's zlib).  The program reads the
# stacks from the test-only stack dump (PROFIL_TEST_STACK_DUMP,
# agent/stack_dump.h) and prints its figures (tests/progs/stack_prog.c); the
# profile's own stacks are checked against the same truth at the end.
. "$ROOT/tests/e2e/record/common.sh"

if is_asan; then
	skip record_stacks "the ASan-built agent cannot be preloaded into uninstrumented programs"
	exit 0
fi
if [ ! -f "$B/libprofil-agent.so" ]; then
	no record_stacks "$B/libprofil-agent.so was not built"
	exit 1
fi

# field NAME: a figure of the program's "stacks ..." line in out.txt
field() {
	awk -v k="$1" '$1=="stacks" {for(i=2;i<=NF;i++){split($i,a,"="); if(a[1]==k) print a[2]}}' out.txt
}

# stacks_run CLOCK SECONDS SAMPLES: stack_prog under the agent with stacks; figures in out.txt
stacks_run() {
	rm -f stacks.dump
	PROFIL_TEST_STACK_DUMP="$T/stacks.dump" \
		"$P" record -q -g --clock "$1" -F 250 -o "st_$1.data" -- "$PROGS/stack_prog" "$2" "$3" >out.txt
}

# 350 stacks of the main thread: the split of zlib time is then within about 1 point
stacks_run thread 1.5 350
rc=$?
main=$(field main)
main_c=$(field main_complete)
worker=$(field worker)
worker_c=$(field worker_complete)
complete=$(ratio $((main_c + worker_c)) $((main + worker)))
[ $rc -eq 0 ] && [ "$main" -ge 150 ] && [ "$worker" -ge 100 ] && in_range "$complete" 0.99 1
expect stacks_complete "rc=$rc $(cat out.txt) complete=$complete"

zlib=$(field zlib)
a=$(field zlib_a)
b=$(field zlib_b)
truth=$(field truth_a)
share=$(share "$a" "$b")
diff=$(awk -v s="$share" -v t="$truth" 'BEGIN { d = s - t; if (d < 0) d = -d; printf "%.4f", d }')
[ "$zlib" -ge 150 ] && [ $((a + b)) -ge $((zlib * 99 / 100)) ] && in_range "$diff" 0 0.03
expect stacks_zlib_callers "zlib=$zlib caller_a=$a caller_b=$b share_a=$share measured=$truth"

leaf=$(field leaf)
leaf_c=$(field leaf_complete)
[ "$leaf" -ge 100 ] && in_range "$(ratio "$leaf_c" "$leaf")" 0.95 1
expect stacks_worker_leaf "spin_leaf samples=$leaf reaching worker_main=$leaf_c"

# the profile holds the same stacks (the frame table), read back through pview
Q="$TOOLS/stack_query"
pleaf=$("$Q" st_thread.data count --leaf spin_leaf)
preach=$("$Q" st_thread.data count --leaf spin_leaf --has worker_main)
[ "$(hdr st_thread.data state)" = 2 ] && [ "$pleaf" -ge 100 ] && in_range "$(ratio "$preach" "$pleaf")" 0.95 1 &&
	"$Q" st_thread.data header | grep -q "callgraph=libunwind"
expect stacks_in_profile "spin_leaf=$pleaf reaching worker_main=$preach; $("$Q" st_thread.data header | head -1)"

# a process-wide clock: which thread gets a tick depends on which CPU sees the timer expire
# first (main 37 of 608 stacks seen in 0.6 s): up to 2 s, done at 100 of main's
stacks_run itimer 2 100
rc=$?
main=$(field main)
complete=$(ratio "$(field main_complete)" "$main")
[ $rc -eq 0 ] && [ "$main" -ge 40 ] && in_range "$complete" 0.99 1
expect stacks_itimer_clock "rc=$rc $(cat out.txt)"

# without -g the agent is flat: no sink with context, no dump
rm -f flat.dump
PROFIL_TEST_STACK_DUMP="$T/flat.dump" "$P" record -q --clock thread -o flat.data -- "$PROGS/stack_prog" 0.2 >out.txt 2>err.txt
rc=$?
[ $rc -eq 2 ] && [ ! -e flat.dump ] && [ "$(fsamples flat.data spin_leaf)" -ge 5 ]
expect stacks_off_by_default "rc=$rc (2: no dump to read) $(cat err.txt)"

# the hazards at once (dlopen/dlclose with TLS, malloc, dl_iterate_phdr, fork+exec):
# no hang (watchdog), no crash, every child exits 0
rm -f stress.dump pid1
env PROFIL_AGENT_STACKS=1 PROFIL_TEST_STACK_DUMP="$T/stress.dump" \
	"$P" record -q --clock thread -F 250 -o stress.data -- "$PROGS/stack_stress" 0.5 >out.txt &
REC=$!
watchdog $REC
wait $REC
rc=$?
unwatch
[ $rc -eq 0 ] && grep -q 'bad_children=0' out.txt && [ "$(hdr stress.data state)" = 2 ]
expect stacks_stress_short "rc=$rc $(cat out.txt) $("$DUMP" stress.data | head -1)"
