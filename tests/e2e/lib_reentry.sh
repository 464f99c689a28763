#!/bin/sh
# profil()/sprofil() from a signal handler (issue 12, item 10): a handler that interrupted an API
# call of its own thread gets EBUSY, never a deadlock; a handler on a thread that is not in the
# API waits for the lock and succeeds.  Each run is bounded by a timeout.
. "$ROOT/tests/lib.sh"

R="$B/tests/progs/lib_reentry"

field() { # name, line
	echo "$2" | sed -n "s/.*$1=\([0-9]*\).*/\1/p"
}

for clock in manual thread itimer; do
	out=$(timeout 60 "$R" same $clock 2>&1)
	rc=$?
	ok=$(field handler_ok "$out") busy=$(field handler_ebusy "$out")
	other=$(field handler_other "$out") fail=$(field loop_fail "$out")
	if [ $rc -ne 0 ]; then
		echo "not ok reentry same thread ($clock): status $rc (124: deadlock): $out"
	elif [ "${busy:-0}" -ge 1 ] && [ "$other" = 0 ] && [ "$fail" = 0 ]; then
		echo "ok reentry same thread ($clock): $busy handler calls EBUSY, $ok succeeded, no other error"
	else
		echo "not ok reentry same thread ($clock): $out"
	fi

	out=$(timeout 60 "$R" other $clock 2>&1)
	rc=$?
	ok=$(field handler_ok "$out") busy=$(field handler_ebusy "$out")
	other=$(field handler_other "$out") fail=$(field loop_fail "$out")
	if [ $rc -ne 0 ]; then
		echo "not ok reentry other thread ($clock): status $rc (124: deadlock): $out"
	elif [ "${ok:-0}" -ge 1 ] && [ "$busy" = 0 ] && [ "$other" = 0 ] && [ "$fail" = 0 ]; then
		echo "ok reentry other thread ($clock): $ok handler calls waited and succeeded, none EBUSY"
	else
		echo "not ok reentry other thread ($clock): $out"
	fi
done
