#!/bin/sh
# profil record --off-cpu as root: the command's tree sampled by per-CPU events
# of a cgroup the recorder makes and puts the command in (--sample-by auto,
# record/command.c; utils/cgroup.h).  The clock note says it; each thread's
# samples under its own tid in the shares of CPU time the program measured
# itself, a child process's too; the cgroup is gone after the run, after the
# command is killed by SIGKILL and after the recorder gets SIGINT; a stale one
# of a recorder killed by SIGKILL is removed by the next run; a process that
# outlives the command goes back to the recorder's cgroup, alive; where no
# cgroup can be made (a read-only cgroup mount), per-thread events and one line
# why; --sample-by thread and cgroup as asked.  Needs root and BPF (skipped
# otherwise: record_offcpu_unpriv covers the rest).
. "$ROOT/tests/e2e/record/common.sh"
PROG="$PROGS/record_prog"

need_offcpu record_cgroup "^note .*per-CPU cpu-clock events of cgroup" "no sampling by cgroup here" '^note'
MNT=$(awk '$3 == "cgroup2" { print $2; exit }' /proc/self/mounts)
OWN=$(sed -n 's/^0:://p' /proc/self/cgroup)
[ "$OWN" = / ] && OWN=
# cgroup_of DATA: the cgroup the clock note names (a path in the mount)
cgroup_of() { "$DUMP" "$1" | sed -n 's/^note .*events of cgroup \([^,]*\),.*/\1/p' | head -1; }

# ---- threads: each one's samples under its own tid, in its measured share ---------------
rm -f thr.truth
RECORD_TRUTH=$T/thr.truth "$P" record -q --off-cpu -o thr.data -- "$PROG" threads
rc=$?
cg=$(cgroup_of thr.data)
case "$cg" in "$OWN"/profil-record-[0-9]*) [ $rc -eq 0 ] ;; *) false ;; esac
expect note_says_cgroup "rc=$rc cgroup '$cg': $("$DUMP" thr.data | grep '^note' | head -1 | cut -c1-400)"
[ -n "$cg" ] && [ ! -e "$MNT$cg" ]
expect cgroup_removed "$MNT$cg: $(ls -d "$MNT$cg" 2>&1)"
n=$(thread_tids_match thr.data thr.truth 0.06)
[ "$n" -eq 4 ]
expect four_threads_measured_shares "$n of 4: $(grep '^tid' tids.txt | tr '\n' ' ') $(grep thread_spin thr.truth | tr '\n' ' ')"
ts=$(fsamples thr.data thread_spin)
total=$(hdr thr.data samples)
in_range "$(share "$ts" $((total - ts)))" 0.9 1
expect thread_spin_dominates "thread_spin $ts of $total"
# the profile's seconds are the tree's CPU time (its samples, one period each)
set -- $(pseconds thr.data)
near "$1" "$(hdr thr.data cpu_ns)" $(($(hdr thr.data cpu_ns) / 10))
expect seconds_are_cpu_time "the profile shows $1 ns of $(hdr thr.data cpu_ns) ns"
# every thread's CPU time (the kernel's accounting) beside its samples
bad=$("$DUMP" thr.data | awk '$1=="thread" { for (i = 2; i <= NF; i++) { split($i,a,"="); t[a[1]]=a[2] }
	if (t["cpu_ns"] + 0 == 0) n++ } END { print n+0 }')
[ "$bad" -eq 0 ] && [ "$("$DUMP" thr.data | grep -c '^thread ')" -eq 5 ]
expect thread_cpu_times "$bad threads without CPU time: $("$DUMP" thr.data | grep '^thread ' | tr '\n' ' ' | cut -c1-600)"

# ---- a child process: its own samples, the fork and the exits in the profile -----------
rm -f fork.truth
RECORD_TRUTH=$T/fork.truth "$P" record -q --off-cpu -o fork.data -- "$PROG" fork
rc=$?
c=$(fsamples fork.data child_spin)
p=$(fsamples fork.data parent_spin)
procs=$(hdr fork.data processes)
near "$(share "$c" "$p")" "$(share "$(truth fork.truth child_spin)" "$(truth fork.truth parent_spin)")" 0.06 &&
	[ $rc -eq 0 ] && [ "$procs" -eq 2 ] && [ $((c + p)) -ge 200 ]
expect fork_child_sampled "rc=$rc processes=$procs child_spin=$c parent_spin=$p measured $(grep spin fork.truth | tr '\n' ' ')"
# the child's samples are in its own proc record, which ended
child=$("$DUMP" fork.data | awk '$1=="proc" && $0 !~ /ppid=0 / { for (i = 2; i <= NF; i++) { split($i,a,"="); if (a[1]=="id") id=a[2]; if (a[1]=="parent") par=a[2] } if (par+0 > 0) print id }' | head -1)
[ -n "$child" ] && [ "$(fsamples fork.data child_spin "$child")" -eq "$c" ]
expect child_samples_in_child_proc "child proc '$child': $("$DUMP" fork.data | grep '^proc' | tr '\n' ' ')"

# ---- the command killed by SIGKILL: the cgroup goes ----------------------------------
"$P" record -q --off-cpu -o kill.data -- "$PROG" die KILL 200 >kill.out
rc=$?
cg=$(cgroup_of kill.data)
[ $rc -eq 137 ] && [ -n "$cg" ] && [ ! -e "$MNT$cg" ]
expect sigkill_cgroup_removed "rc=$rc cgroup '$cg' $(ls -d "$MNT$cg" 2>&1)"

# ---- SIGINT to the recorder: the command ends, the cgroup goes -------------------------
rm -f fe.pid
bg_record -q --off-cpu -o int.data -- "$PROG" forever "$T/fe.pid"
wait_file fe.pid
cmd=$(cat fe.pid)
dir="$MNT$OWN/profil-record-$REC"
[ -d "$dir" ] && grep -qx "$cmd" "$dir/cgroup.procs"
expect command_in_cgroup "command $cmd, $dir: $(cat "$dir/cgroup.procs" 2>&1 | tr '\n' ' ') $(cat /proc/"$cmd"/cgroup 2>&1 | tr '\n' ' ')"
kill -INT "$REC"
wait "$REC"
rc=$?
unwatch
[ $rc -eq 130 ] && [ ! -e "$dir" ] && [ "$(cgroup_of int.data)" = "$OWN/profil-record-$REC" ]
expect sigint_cgroup_removed "rc=$rc $(ls -d "$dir" 2>&1)"

# ---- the recorder killed by SIGKILL: its cgroup stays (the command gets SIGTERM and ends); the
# next run removes it ----------------------------------------------------------------------------
rm -f fe.pid
bg_record -q --off-cpu -o k9.data -- "$PROG" forever "$T/fe.pid"
wait_file fe.pid
cmd=$(cat fe.pid)
stale="$MNT$OWN/profil-record-$REC"
kill -9 "$REC"
wait "$REC" 2>/dev/null
unwatch
n=0
while kill -0 "$cmd" 2>/dev/null && [ $n -lt 200 ]; do sleep 0.05; n=$((n + 1)); done
# (another recorder on this machine may have removed it already: not asserted)
! kill -0 "$cmd" 2>/dev/null
expect stale_command_ended "command $cmd alive: $(kill -0 "$cmd" 2>&1 && echo yes); $stale: $(ls -d "$stale" 2>&1)"
"$P" record -q --off-cpu -o next.data -- true
rc=$?
[ $rc -eq 0 ] && [ ! -e "$stale" ] && [ -n "$(cgroup_of next.data)" ]
expect stale_removed_by_next_run "rc=$rc $(ls -d "$stale" 2>&1)"

# ---- a process that outlives the command: back in the recorder's cgroup, alive ----------
"$P" record -q --off-cpu -o orphan.data -- sh -c 'sleep 30 >/dev/null 2>&1 & echo $! >'"$T/orphan.pid"
rc=$?
cg=$(cgroup_of orphan.data)
o=$(cat orphan.pid)
[ $rc -eq 0 ] && kill -0 "$o" 2>/dev/null && [ "$(sed -n 's/^0:://p' /proc/"$o"/cgroup)" = "${OWN:-/}" ] &&
	[ -n "$cg" ] && [ ! -e "$MNT$cg" ]
expect orphan_moved_back "rc=$rc orphan $o in '$(sed -n 's/^0:://p' /proc/"$o"/cgroup 2>&1)' (want '${OWN:-/}'); $(ls -d "$MNT$cg" 2>&1)"
kill "$o" 2>/dev/null

# ---- no cgroup can be made: per-thread events, one line why ----------------------------
if command -v unshare >/dev/null && unshare -m true 2>/dev/null; then
	rm -f ro.truth
	RECORD_TRUTH=$T/ro.truth unshare -m sh -c 'mount -o remount,bind,ro "$1" && shift && exec "$@"' sh "$MNT" \
		"$P" record --off-cpu -o ro.data -- "$PROG" threads >ro.out 2>ro.err
	rc=$?
	[ $rc -eq 0 ] && [ "$(grep -c 'not by a cgroup: cannot make a cgroup in .*Read-only file system' ro.err)" -eq 1 ] &&
		"$DUMP" ro.data | grep -q "^note .*per-thread events, inherit, per-CPU rings (not by a cgroup: cannot make a cgroup"
	expect readonly_fallback_said "rc=$rc stderr: $(cat ro.err) note: $("$DUMP" ro.data | grep '^note' | head -1 | cut -c1-400)"
	n=$(thread_tids_match ro.data ro.truth 0.06)
	[ "$n" -eq 4 ]
	expect readonly_fallback_threads "$n of 4: $(grep '^tid' tids.txt | tr '\n' ' ')"
	unshare -m sh -c 'mount -o remount,bind,ro "$1" && shift && exec "$@"' sh "$MNT" \
		"$P" record -q --sample-by cgroup -o roc.data -- true >roc.out 2>roc.err
	rc=$?
	[ $rc -ne 0 ] && [ "$(wc -l <roc.err)" -eq 1 ] && grep -q "^profil.*--sample-by cgroup: cannot make a cgroup" roc.err &&
		[ ! -e roc.data ]
	expect readonly_sample_by_cgroup_fails "rc=$rc $(cat roc.err)"
else
	skip readonly_fallback "unshare -m is not permitted here"
fi

# ---- --sample-by thread and cgroup, as asked ---------------------------------------------
"$P" record -q --off-cpu --sample-by thread -o th.data -- true
"$DUMP" th.data | grep -q "^note .*per-thread events, inherit, per-CPU rings;"
expect sample_by_thread "$("$DUMP" th.data | grep '^note' | head -1 | cut -c1-300)"
rm -f cgc.truth
RECORD_TRUTH=$T/cgc.truth "$P" record -q --sample-by cgroup -o cgc.data -- "$PROG" threads
cg=$(cgroup_of cgc.data)
n=$(thread_tids_match cgc.data cgc.truth 0.06)
[ -n "$cg" ] && [ ! -e "$MNT$cg" ] && [ "$n" -eq 4 ]
expect sample_by_cgroup_cpu_only "cgroup '$cg', $n of 4 threads: $(grep '^tid' tids.txt | tr '\n' ' ')"
fails_rc 2 sample_by_cgroup_no_inherit "$P" record -q --sample-by cgroup --no-inherit -- true
