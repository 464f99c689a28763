#!/bin/sh
# profil record -p PID: attach to a running process and all its threads.
. "$ROOT/tests/e2e/record/common.sh"

if ! perf_usable; then
	skip record_attach "perf_event_open is refused here: attaching needs perf events"
	exit 0
fi
ncpu=$(nproc)

# wait_attached REC NTHREADS: until the recorder holds an event per thread and CPU
wait_attached() {
	n=0
	while [ "$(ls -l /proc/$1/fd 2>/dev/null | grep -c perf_event)" -lt $(($2 * ncpu)) ] &&
		[ $n -lt 400 ]; do
		sleep 0.05
		n=$((n + 1))
	done
}

# four threads that exist before the attach start working after it
RECORD_TRUTH=$T/at.truth "$PROGS/record_prog" attach pidA &
prog=$!
wait_file pidA
bg_record -q -p "$prog" -o at.data
wait_attached $REC 5
kill -USR1 $prog
wait $prog
wait $REC
rc=$?
unwatch
total=$(hdr at.data samples)
# every thread's share of the samples is its share of the CPU time it measured (within 0.06)
n=$(thread_tids_match at.data at.truth 0.06)
[ $rc -eq 0 ] && [ "$total" -ge 100 ] && [ "$n" -eq 4 ]
expect attach_four_threads "rc=$rc total=$total, $n threads with their measured share: $(grep '^tid' tids.txt | tr '\n' ' ') $(grep thread_spin at.truth | tr '\n' ' ')"
ts=$(fsamples at.data thread_spin)
[ "$ts" -ge $((total * 9 / 10)) ] && [ "$(hdr at.data state)" = 2 ] &&
	[ $(($(hdr at.data flags) & 2)) -eq 2 ] && [ "$(hdr at.data end_kind)" != 4 ]
expect attach_profile "thread_spin=$ts of $total; $("$DUMP" at.data | head -1)"
"$DUMP" at.data | grep -q "^map proc=1 .*/record_prog$"
expect attach_existing_mappings "no mapping of the executable (from /proc/PID/maps)"

# Ctrl-C ends the session, not the process
"$PROGS/record_prog" forever pidB &
prog=$!
wait_file pidB
bg_record -q -p "$prog" -o det.data
wait_attached $REC 1
# the file is readable while recording: wait for samples, not for time
n=0
while [ "$(hdr det.data samples)" -lt 20 ] && [ $n -lt 400 ]; do sleep 0.05; n=$((n + 1)); done
kill -INT $REC
wait $REC
rc=$?
unwatch
kill -0 $prog 2>/dev/null
alive=$?
kill -9 $prog
wait $prog 2>/dev/null
[ $rc -eq 0 ] && [ $alive -eq 0 ] && [ "$(hdr det.data end_kind)" = 4 ] &&
	[ "$(hdr det.data state)" = 2 ] && [ "$(fsamples det.data hot_b)" -ge 10 ]
expect detach_on_sigint "rc=$rc alive=$alive hot_b=$(fsamples det.data hot_b) $("$DUMP" det.data | head -1)"

"$P" record -q -p 999999999 -o none.data 2>err.txt
rc=$?
[ $rc -ne 0 ] && [ "$(wc -l <err.txt)" -eq 1 ] && [ ! -e none.data ]
expect attach_missing_pid "rc=$rc: $(cat err.txt)"
