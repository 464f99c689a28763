#!/bin/sh
# profil record: the profile survives _exit, SIGSEGV, SIGKILL of the program,
# Ctrl-C/SIGTERM forwarding, and a killed recorder leaves an incomplete file.
. "$ROOT/tests/e2e/record/common.sh"

if ! perf_usable; then
	skip record_crash "perf_event_open is refused here (the fallback is tested in record_fallback)"
	exit 0
fi

"$P" record -q -o ue.data -- "$PROGS/record_prog" _exit >out.txt
rc=$?
[ $rc -eq 7 ] && [ ! -s out.txt ] && [ "$(hdr ue.data state)" = 2 ] &&
	[ "$(hdr ue.data end_kind)" = 1 ] && [ "$(hdr ue.data end_code)" = 7 ] &&
	[ "$(fsamples ue.data hot_a)" -ge 30 ]
expect _exit_profile "rc=$rc hot_a=$(fsamples ue.data hot_a) $("$DUMP" ue.data | head -1)"

"$P" record -q -o segv.data -- "$PROGS/record_prog" segv 2>/dev/null
rc=$?
[ $rc -eq 139 ] && [ "$(hdr segv.data state)" = 2 ] &&
	[ "$(hdr segv.data end_kind)" = 2 ] && [ "$(hdr segv.data end_code)" = 11 ] &&
	[ "$(fsamples segv.data hot_a)" -ge 30 ]
expect segv_status_and_profile "rc=$rc hot_a=$(fsamples segv.data hot_a) $("$DUMP" segv.data | head -1)"

# SIGKILL of the program in the middle of its run
rm -f pid1
bg_record -q -o kill.data -- "$PROGS/record_prog" forever pid1
wait_file pid1 && kill -9 "$(cat pid1)"
wait $REC
rc=$?
unwatch
[ $rc -eq 137 ] && [ "$(hdr kill.data state)" = 2 ] && [ "$(hdr kill.data end_kind)" = 2 ] &&
	[ "$(hdr kill.data end_code)" = 9 ] && [ "$(fsamples kill.data hot_a)" -ge 30 ]
expect sigkill_program "rc=$rc hot_a=$(fsamples kill.data hot_a) $("$DUMP" kill.data | head -1)"
"$DUMP" kill.data | grep -q '^proc id=1 .*end_kind=2 end_code=9'
expect sigkill_proc_record "$("$DUMP" kill.data | grep '^proc')"

# SIGTERM / SIGINT sent to the recorder are forwarded; the profile is complete
for sig in TERM INT; do
	rm -f pid2
	bg_record -q -o $sig.data -- "$PROGS/record_prog" forever pid2
	wait_file pid2 && kill -$sig $REC
	wait $REC
	rc=$?
	unwatch
	num=$( [ $sig = TERM ] && echo 15 || echo 2)
	[ $rc -eq $((128 + num)) ] && [ "$(hdr $sig.data state)" = 2 ] &&
		[ "$(hdr $sig.data end_code)" = $num ] && [ "$(fsamples $sig.data hot_a)" -ge 30 ]
	expect "sig${sig}_forwarded" "rc=$rc $("$DUMP" $sig.data | head -1)"
	kill -9 "$(cat pid2)" 2>/dev/null
done

# the recorder itself killed: the file stays "recording", still readable
rm -f pid3
bg_record -q -o rk.data -- "$PROGS/record_prog" forever pid3
wait_file pid3 && kill -9 $REC
wait $REC 2>/dev/null
unwatch
kill -9 "$(cat pid3)" 2>/dev/null
[ "$(hdr rk.data state)" = 1 ] && "$DUMP" rk.data | grep -q '^proc id=1 '
expect killed_recorder_incomplete "$("$DUMP" rk.data 2>&1 | head -1)"
