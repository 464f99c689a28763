#!/bin/sh
# profil record without perf: the LD_PRELOAD agent (--clock thread|itimer, or
# perf_event_open refused: simulated with PROFIL_SIMULATE_PERF_ERRNO, the test hook
# of record/perf_session.h, which is not in --help).
. "$ROOT/tests/e2e/record/common.sh"

if is_asan; then
	skip record_fallback "the ASan-built agent cannot be preloaded into uninstrumented programs"
	exit 0
fi
if [ ! -f "$B/libprofil-agent.so" ]; then
	no record_fallback "$B/libprofil-agent.so was not built"
	exit 1
fi

# truth: the CPU time the program measured in each function (tests/progs/record_cpu.h)
RECORD_TRUTH=$T/th.truth "$P" record -q --clock thread -o th.data -- "$PROGS/record_prog" hot 3 >out.txt
rc=$?
hot_ab th.data th.truth 600 0.06 && [ $rc -eq 0 ] && [ "$(hdr th.data clock)" = 1 ] &&
	[ "$(hdr th.data state)" = 2 ] && [ ! -s out.txt ]
expect thread_clock_hot_functions "rc=$rc $HOT_AB $("$DUMP" th.data | head -1)"

# every mapping of a file carries the file's GNU build id, as MMAP2 records do for perf
bid() { readelf -n "$1" 2>/dev/null | sed -n 's/^ *Build ID: *//p' | head -1; }
prog=$(cd "$(dirname "$PROGS/record_prog")" && pwd)/record_prog
libc=$("$DUMP" th.data | sed -n 's/^map .* path=\(.*libc\.so\.6\)$/\1/p' | head -1)
got_p=$("$DUMP" th.data | sed -n "s|^map .* build_id=\([0-9a-f-]*\) path=$prog\$|\1|p" | head -1)
got_c=$("$DUMP" th.data | sed -n "s|^map .* build_id=\([0-9a-f-]*\) path=$libc\$|\1|p" | head -1)
[ -n "$(bid "$prog")" ] && [ "$got_p" = "$(bid "$prog")" ] && [ -n "$libc" ] &&
	[ "$got_c" = "$(bid "$libc")" ]
expect agent_maps_carry_build_ids "program $got_p (readelf: $(bid "$prog")), $libc $got_c (readelf: $(bid "$libc"))"
# ... so that report knows a program rebuilt since
cp "$PROGS/record_prog" rp && "$P" record -q --clock thread -o rb.data -- ./rp exit 0 &&
	cp "$PROGS/record_prog_nopie" rp.new && mv rp.new rp && "$P" report -i rb.data >rb.txt 2>&1
grep -q "rp: rebuilt after it was recorded (its build id differs)" rb.txt
expect agent_report_sees_rebuilt_program "$(grep '^# note' rb.txt | head -3)"

PROFIL_SIMULATE_PERF_ERRNO=EACCES "$P" record -q -o sim.data -- "$PROGS/record_prog" exit 42
rc=$?
[ $rc -eq 42 ] && [ "$(hdr sim.data clock)" = 1 ] && "$DUMP" sim.data | grep -q '^note perf refused: EACCES' &&
	[ "$(hdr sim.data end_code)" = 42 ] && [ "$(fsamples sim.data hot_a)" -ge 5 ]
expect simulated_refusal_falls_back "rc=$rc $("$DUMP" sim.data | sed -n '1,2p' | tr '\n' ' ')"

PROFIL_SIMULATE_PERF_ERRNO=EPERM "$P" record -q --clock perf -o p.data -- true 2>err.txt
rc=$?
[ $rc -ne 0 ] && [ ! -e p.data ] && [ "$(wc -l <err.txt)" -eq 1 ]
expect clock_perf_refused_is_an_error "rc=$rc $(cat err.txt)"

thread_shares() {
	total=$(hdr thr.data samples)
	n=$(thread_tids_match thr.data thr.truth 0.06)
	[ "$total" -ge 400 ] && [ "$n" -eq 4 ]
}
held_runs "$T/thr.truth" thread_shares "$P" record -q --clock thread -o thr.data -- "$PROGS/record_prog" threads
expect agent_four_threads "$n of 4 threads with their measured share of $total: $(grep '^tid' tids.txt | tr '\n' ' ')"

# the itimer clock's ticks are the process's, landing on the thread that used the CPU; on a busy
# machine the kernel merges them, and a merged tick stands for the receiving thread's own CPU
# time since its previous tick, not for periods other threads used (issue 16, item 9: beside two
# busy loops, 4 equal threads got 0.62 to 1.34 of their measured CPU time): each thread's
# samples are worth its measured CPU time within 25 %
# (a run in which the kernel gave a thread the process's ticks for under 80 % of its CPU time, a
# process-wide witness says, is run again: held_runs; issue 16, item 9: once one of four threads
# got 98 samples for 200 ms while its own thread timer got 92 % of its ticks)
itimer_weights() {
	p=$(hdr ithr.data period_ns)
	"$DUMP" ithr.data >itids.txt
	n=$(awk -v p="$p" '$1=="truth" && $4=="func=thread_spin" { split($3,a,"="); split($5,b,"="); t[a[2]]=b[2] }
		$1=="tid" { split($3,a,"="); split($4,b,"="); s[a[2]]=b[2] }
		END { for (k in t) { r = s[k] * p / t[k]; if (r >= 0.75 && r <= 1.25) n++ }; print n+0 }' \
		ithr.truth itids.txt)
	[ "$n" -eq 4 ]
}
WITNESS=process held_runs "$T/ithr.truth" itimer_weights "$P" record -q --clock itimer -o ithr.data -- "$PROGS/record_prog" threads
expect itimer_four_threads_weights "$n of 4 threads within 25 % of their measured CPU at \
$p ns a sample: $(grep '^tid' itids.txt | tr '\n' ' ') $(grep thread_spin ithr.truth | tr '\n' ' ')"

# each process with the samples its measured CPU time is worth (a merged tick counts with the
# tick that carried it: within 20 %), none of the child's in the parent
fork_weights() {
	child=$("$DUMP" fork.data | awk '$1=="proc" && $3=="parent=1" {split($2,a,"="); print a[2]; exit}')
	p=$(hdr fork.data period_ns)
	near $(($(fsamples fork.data child_spin "${child:-0}") * p)) "$(truth fork.truth child_spin)" $(($(truth fork.truth child_spin) / 5)) &&
		near $(($(fsamples fork.data parent_spin 1) * p)) "$(truth fork.truth parent_spin)" $(($(truth fork.truth parent_spin) / 5)) &&
		[ -n "$child" ] && [ "$(fsamples fork.data child_spin 1)" -le 1 ]
}
held_runs "$T/fork.truth" fork_weights "$P" record -q --clock thread -o fork.data -- "$PROGS/record_prog" fork
expect agent_fork "$("$DUMP" fork.data | grep -E '^(proc|func)' | tr '\n' ' ') $(grep spin fork.truth | tr '\n' ' ')"
"$DUMP" fork.data | grep -q "^proc id=$child .* end_kind=1 end_code=0 "
expect agent_fork_child_exit_recorded "$("$DUMP" fork.data | grep '^proc' | tr '\n' ' ')"

"$P" record -q --clock thread -o ex.data -- "$PROGS/record_prog" exec "$PROGS/record_prog_nopie"
"$DUMP" ex.data | awk '$1=="proc" {n++; if ($2=="id=1" && $6=="end_kind=3") first=1;
	if ($3=="parent=1" && $0 ~ /record_prog_nopie$/) second=1 } END { exit !(n == 2 && first && second) }'
expect agent_exec_new_image "$("$DUMP" ex.data | grep '^proc' | tr '\n' ' ')"
second=$("$DUMP" ex.data | awk '$1=="proc" && $3=="parent=1" {split($2,a,"="); print a[2]}')
[ "$(fsamples ex.data hot_a "$second")" -ge 20 ]
expect agent_exec_samples "hot_a in the exec'd image: $(fsamples ex.data hot_a "$second")"

"$P" record -q --clock thread -o sh.data -- sh -c "$PROGS/record_prog hot; $PROGS/record_prog hot"
"$DUMP" sh.data >sh.txt
n=0
for id in $(awk '$1=="proc" && $NF ~ /record_prog$/ { split($2,a,"="); print a[2] }' sh.txt); do
	parent=$(awk -v id="id=$id" '$1=="proc" && $2==id { split($3,a,"="); print a[2] }' sh.txt)
	pexe=$(awk -v id="id=$parent" '$1=="proc" && $2==id { print $NF }' sh.txt)
	case "$pexe" in *sh) [ "$(fsamples sh.data hot_a "$id")" -ge 15 ] && n=$((n + 1)) ;; esac
done
[ $n -eq 2 ]
expect agent_shell_chain "$n of 2: $(grep '^proc' sh.txt | tr '\n' ' ')"
# every image ended by exec or exit (main's return value included), none unknown
[ "$(grep -c '^proc .* end_kind=0 ' sh.txt)" -eq 0 ]
expect agent_end_of_every_image "$(grep '^proc' sh.txt | tr '\n' ' ')"

"$P" record -q --clock thread -o ue.data -- "$PROGS/record_prog" _exit >out.txt
rc=$?
[ $rc -eq 7 ] && [ ! -s out.txt ] && [ "$(fsamples ue.data hot_a)" -ge 10 ] && [ "$(hdr ue.data end_code)" = 7 ]
expect agent__exit "rc=$rc hot_a=$(fsamples ue.data hot_a)"

rm -f pid1
bg_record -q --clock thread -o kill.data -- "$PROGS/record_prog" forever pid1
wait_file pid1 && kill -9 "$(cat pid1)"
wait $REC
rc=$?
unwatch
[ $rc -eq 137 ] && [ "$(hdr kill.data end_kind)" = 2 ] && [ "$(hdr kill.data end_code)" = 9 ] &&
	[ "$(fsamples kill.data hot_a)" -ge 10 ]
expect agent_sigkill "rc=$rc hot_a=$(fsamples kill.data hot_a) $("$DUMP" kill.data | head -1)"

"$P" record -q --clock thread -o dl.data -- "$PROGS/record_prog" dlopen "$PROGS/librecord_hot.so"
inlib=$(osamples dl.data /librecord_hot.so)
total=$(hdr dl.data samples)
[ "$total" -ge 20 ] && in_range "$(share "$inlib" $((total - inlib)))" 0.8 1
expect agent_dlopen_mapping "$inlib of $total samples in librecord_hot.so"

"$P" record -q --clock thread --no-inherit -o ni.data -- "$PROGS/record_prog" fork
[ "$("$DUMP" ni.data | grep -c '^proc ')" -eq 1 ] && [ "$(fsamples ni.data child_spin)" -eq 0 ] &&
	[ "$(fsamples ni.data parent_spin)" -ge 20 ]
expect agent_no_inherit "$("$DUMP" ni.data | grep -E '^(proc|func)' | tr '\n' ' ')"

"$P" record -q --clock itimer -o it.data -- "$PROGS/record_prog" hot 2
[ "$(hdr it.data clock)" = 2 ] && [ "$(($(fsamples it.data hot_a) + $(fsamples it.data hot_b)))" -ge 30 ]
expect itimer_clock "$("$DUMP" it.data | head -1)"

# the program's own output, environment and exit status are untouched
out=$("$P" record -q --clock thread -o env.data -- sh -c 'echo "[$LD_PRELOAD]"; exit 3' 2>err.txt)
rc=$?
[ $rc -eq 3 ] && [ ! -s err.txt ] && case "$out" in *libprofil-agent.so*) true ;; *) false ;; esac
expect agent_program_output "rc=$rc out=$out err=$(cat err.txt)"

"$P" record --clock thread -o st.data -- "$PROGS/record_prog_static" exit 5 2>err.txt
rc=$?
[ $rc -eq 5 ] && grep -q "did not load" err.txt && [ "$(hdr st.data state)" = 2 ]
expect agent_static_program_warns "rc=$rc $(cat err.txt)"

# --no-inherit: the agent takes itself out of the environment children would inherit
out=$("$P" record -q --clock thread --no-inherit -o nienv.data -- sh -c 'echo "[$LD_PRELOAD][$PROFIL_AGENT_FD]"')
[ "$out" = "[][]" ]
expect agent_no_inherit_hides_env "sh saw $out"

# a failed exec: errno is the program's, and the image goes on being profiled
"$P" record -q --clock thread -o xf.data -- "$PROGS/record_prog" execfail
rc=$?
[ $rc -eq 0 ] && [ "$("$DUMP" xf.data | grep -c '^proc ')" -eq 1 ] &&
	"$DUMP" xf.data | grep -q '^proc id=1 .*end_kind=1 end_code=0 ' &&
	[ "$(fsamples xf.data hot_b 1)" -ge 20 ]
expect agent_failed_exec "rc=$rc hot_b=$(fsamples xf.data hot_b 1) $("$DUMP" xf.data | grep '^proc')"
