#!/bin/sh
# profil()/sprofil() from a signal handler (issue 12, item 10): a handler that interrupted an API
# call of its own thread gets EBUSY, never a deadlock; a handler on a thread that is not in the
# API waits for the lock and succeeds.  Each run is bounded by a timeout.
. "$ROOT/tests/lib.sh"

R="$B/tests/progs/lib_reentry"

field() { # name, line
	echo "$2" | sed -n "s/.*$1=\([0-9]*\).*/\1/p"
}

# reentry MODE CLOCK: one run of lib_reentry (within 60 s); out, rc and its counts ok, busy, other, fail
reentry() {
	out=$(timeout 60 "$R" "$1" "$2" 2>&1)
	rc=$?
	ok=$(field handler_ok "$out") busy=$(field handler_ebusy "$out")
	other=$(field handler_other "$out") fail=$(field loop_fail "$out")
	return $rc
}

for clock in manual thread itimer; do
	name="reentry same thread ($clock)"
	if ! reentry same $clock; then
		no "$name" "status $rc (124: deadlock): $out"
	elif [ "${busy:-0}" -ge 1 ] && [ "$other" = 0 ] && [ "$fail" = 0 ]; then
		ok "$name: $busy handler calls EBUSY, $ok succeeded, no other error"
	else
		no "$name" "$out"
	fi

	name="reentry other thread ($clock)"
	if ! reentry other $clock; then
		no "$name" "status $rc (124: deadlock): $out"
	elif [ "${ok:-0}" -ge 1 ] && [ "$busy" = 0 ] && [ "$other" = 0 ] && [ "$fail" = 0 ]; then
		ok "$name: $ok handler calls waited and succeeded, none EBUSY"
	else
		no "$name" "$out"
	fi
done
