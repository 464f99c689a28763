#!/bin/sh
# Process-level behaviour of libprofil, each clock: fork, exec, the program's
# own SIGPROF/ITIMER_PROF, errno, a buffer unmapped or made read-only while
# profiling, and a real fault of the program.  The three clocks run in
# parallel (every check is on CPU time or on counts, never on wall time).
# Sample-count floors are far below the expected counts (the kernel checks
# CPU timers less often on a loaded machine): they only prove that sampling,
# or the program's own SIGPROF, kept going.
. "$ROOT/tests/lib.sh"

S="$PROGS/lib_scen"

val() { # key text
	echo "$2" | tr ' ' '\n' | sed -n "s/^$1=//p" | head -n 1
}

one_clock() { # clock hz
	clock=$1
	hz=$2

	out=$("$S" fork $clock $hz 2>&1)
	cb=$(val child_b "$out"); pb=$(val parent_b "$out"); pc=$(val parent_c "$out")
	ca=$(val child_a "$out"); pa=$(val parent_a "$out"); ac=$(val child_active "$out")
	if [ -n "$cb" ] && [ "$cb" -ge 10 ] && [ "$pb" = 0 ] && [ "$pc" -ge 10 ] && [ "$ca" = "$pa" ] && [ "$ac" = 1 ]; then
		echo "ok $clock fork: child counted $cb into its copy, parent's copy untouched (b=$pb), both hold the $pa pre-fork samples"
	else
		echo "not ok $clock fork: $out"
	fi

	bad=0
	for i in 1 2 3; do
		out=$("$S" exec $clock $hz 2>&1)
		rc=$?
		if [ $rc != 0 ] || [ "$(val spin_done "$out")" != 1 ] || [ "$(val leftovers "$out")" != 0 ]; then
			bad=1
			break
		fi
	done
	if [ $bad = 0 ]; then
		echo "ok $clock exec: 3 CPU-bound exec'd images exited 0, no timer or fd left"
	else
		echo "not ok $clock exec: status $rc: $out"
	fi

	out=$("$S" sigprof $clock $hz 2>&1)
	n=$(val sigprof "$out")
	if [ -n "$n" ] && [ "$n" -ge 10 ] && [ "$(val itimer_armed "$out")" = 1 ] &&
		[ "$(val handler_kept "$out")" = 1 ] && [ "$(val samples "$out")" -ge 10 ]; then
		echo "ok $clock sigprof: the program's SIGPROF handler ran $n times in 0.6 s of CPU, timer and handler kept"
	else
		echo "not ok $clock sigprof: $out"
	fi

	out=$("$S" errno $clock $hz 2>&1)
	if [ "$(val errno_changed "$out")" = 0 ] && [ "$(val samples "$out")" -ge 10 ]; then
		echo "ok $clock errno preserved ($(val checks "$out") checks, $(val samples "$out") samples)"
	else
		echo "not ok $clock errno: $out"
	fi

	for how in munmap mprotect; do
		out=$("$S" $how $clock $hz 2>&1)
		rc=$?
		if [ $rc = 0 ] && [ "$(val fault_disabled "$out")" = 1 ] && [ "$(val active "$out")" = 0 ] &&
			[ "$(val off "$out")" = 0 ] && [ "$(val samples_before "$out")" -ge 5 ]; then
			echo "ok $clock $how mid-run: no crash, profiling turned itself off"
		else
			echo "not ok $clock $how: status $rc: $out"
		fi
	done

	out=$("$S" segv $clock $hz 2>&1)
	rc=$?
	case "$B" in
	*/asan) # ASan owns SIGSEGV: our guard must chain to its handler, which reports and exits 1
		if [ $rc = 1 ] && echo "$out" | grep -q "AddressSanitizer: SEGV"; then
			echo "ok $clock segv: the program's own fault reaches ASan's SIGSEGV handler"
		else
			echo "not ok $clock segv: status $rc, want ASan's SEGV report: $out"
		fi ;;
	*)
		if [ $rc = 139 ]; then
			echo "ok $clock segv: the program's own fault still kills it with SIGSEGV"
		else
			echo "not ok $clock segv: status $rc, want 139 (SIGSEGV)"
		fi ;;
	esac
}

out=$("$PROGS/lib_hot" perf 1000 0.01 2>&1)
perf_rc=$?
one_clock thread 250 >"$T/thread" 2>&1 &
one_clock itimer 250 >"$T/itimer" 2>&1 &
if [ $perf_rc = 77 ]; then
	echo "skip perf: perf_event_open refused here: $out" >"$T/perf"
else
	one_clock perf 10000 >"$T/perf" 2>&1
fi
wait
cat "$T/thread" "$T/itimer" "$T/perf"

# 300 on/off cycles across all clocks while threads are created and exit: no crash, no
# stray tick after the last off (the default action of the signal would kill the program).
bad=
for i in 1 2 3; do
	out=$("$S" churn auto 0 2>&1)
	rc=$?
	if [ $rc != 0 ] || [ "$(val fails "$out")" != 0 ] || [ "$(val cycles "$out")" != 300 ]; then
		bad="status $rc: $out"
		break
	fi
done
if [ -z "$bad" ]; then
	echo "ok churn: 3 x 300 on/off cycles with threads coming and going"
else
	echo "not ok churn: $bad"
fi

# perf_event_open refused (seccomp returns EACCES, as in many containers): AUTO falls back to
# the thread clock, an explicit PERF request fails with EACCES and leaves profiling off.
out=$("$S" noperf - 0 2>&1)
case "$out" in
*seccomp=unavailable*) echo "skip noperf: seccomp filters are not available here" ;;
*)
	if [ "$(val perf_ret "$out")" = -1 ] && [ "$(val perf_eacces "$out")" = 1 ] &&
		[ "$(val active_after "$out")" = 0 ] && [ "$(val auto_clock "$out")" = thread ] &&
		[ "$(val samples "$out")" -ge 1 ] && [ "$(val ticks "$out")" -ge 20 ]; then
		echo "ok noperf: PERF fails with EACCES, AUTO falls back to thread ($(val samples "$out") samples, $(val ticks "$out") ticks)"
	else
		echo "not ok noperf: $(echo "$out" | tr '\n' ' ')"
	fi ;;
esac

# Public calls from 4 threads at once (profil, sprofil, get_stats, off): serialised, no failure.
for clock in thread perf; do
	hz=250
	[ $clock = perf ] && hz=5000
	if [ $clock = perf ] && [ $perf_rc = 77 ]; then
		echo "skip perf concurrent: perf_event_open refused here"
		continue
	fi
	out=$("$S" concurrent $clock $hz 2>&1)
	rc=$?
	if [ $rc = 0 ] && [ "$(val failed "$out")" = 0 ] && [ "$(val active "$out")" = 0 ]; then
		echo "ok $clock concurrent: 800 public calls from 4 threads at once"
	else
		echo "not ok $clock concurrent: status $rc: $out"
	fi
done
