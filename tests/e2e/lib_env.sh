#!/bin/sh
# PROFIL_CLOCK, PROFIL_HZ and PROFIL_SIGNAL (read once by libprofil's constructor), and one
# clear sentence on stderr for a value that cannot be used.
. "$ROOT/tests/lib.sh"

S="$B/tests/progs/lib_scen"

out=$(PROFIL_CLOCK=itimer PROFIL_HZ=200 PROFIL_SIGNAL=SIGRTMAX-5 "$S" env - 0 2>&1)
case "$out" in
*"clock=itimer nominal_hz=200 signal_rtmax_minus=5"*) echo "ok env: clock, rate and signal taken from the environment" ;;
*) echo "not ok env: $out" ;;
esac

out=$("$S" env - 0 2>&1)
case "$out" in
*"signal_rtmax_minus=2"*) echo "ok env: default signal is SIGRTMAX-2 ($out)" ;;
*) echo "not ok env default: $out" ;;
esac

for bad in "PROFIL_HZ=abc" "PROFIL_CLOCK=fast" "PROFIL_SIGNAL=SIGPROF"; do
	out=$(env "$bad" "$S" env - 0 2>&1 >/dev/null)
	rc=$?
	n=$(echo "$out" | grep -c "^libprofil: ignoring ${bad%%=*}=")
	if [ $rc = 0 ] && [ "$n" = 1 ]; then
		echo "ok env: $bad ignored with one sentence on stderr"
	else
		echo "not ok env: $bad: status $rc: $out"
	fi
done
