#!/bin/sh
# Run every test and print "N passed, N failed[, N skipped]" as the last line.
#
# Protocol: a test prints lines "ok NAME", "not ok NAME: why" and
# "skip NAME: why" on stdout, one per case; "# note: ..." lines are shown
# under a passing test too (what the run did that a reader should know).
# A test program that exits non-zero without printing "not ok" counts as one
# failure; one that prints nothing and exits 0 counts as one pass.  Unit
# tests are build/tests/unit/*, shell tests are tests/e2e/*.sh (run with B,
# ROOT and PATH set).
# Each line of the summary gives the test's wall time; a test that runs
# past TEST_TIMEOUT seconds (default 600) is killed and counts as a failure,
# so one hang cannot eat CI's whole budget.
# Arguments, if any, are patterns (shell globs) of the tests to run, by the
# names the summary prints: `sh tests/run.sh 'e2e/record_*' unit/test_htab`
# (`make check TESTS='e2e/record_*'`).
B=${B:-build}
TEST_TIMEOUT=${TEST_TIMEOUT:-600}
ROOT=$(cd "$(dirname "$0")/.." && pwd)
export B ROOT
case "$B" in /*) ;; *) B="$ROOT/$B" ;; esac
export PROFIL_BUILD="$B"
# no test reaches the network: a debuginfod test sets its own local server
unset DEBUGINFOD_URLS
pass=0 fail=0 skip=0
patterns="$*"
log=$(mktemp)
trap 'rm -f "$log"' EXIT

# selected NAME: true when no pattern was given or NAME matches one
selected() {
	[ -z "$patterns" ] && return 0
	set -f
	for p in $patterns; do
		case "$1" in $p) set +f && return 0 ;; esac
	done
	set +f
	return 1
}

run_one() {
	name=$1
	shift
	selected "$name" || return 0
	t0=$(date +%s)
	timeout -k 10 "$TEST_TIMEOUT" "$@" >"$log" 2>&1
	rc=$?
	secs=$(($(date +%s) - t0))
	[ "$rc" -eq 124 ] && echo "not ok $name: killed after ${TEST_TIMEOUT} s" >>"$log"
	np=$(grep -c '^ok ' "$log")
	nf=$(grep -c '^not ok ' "$log")
	ns=$(grep -c '^skip ' "$log")
	if [ "$rc" -ne 0 ] && [ "$nf" -eq 0 ]; then
		nf=1
		echo "not ok $name: exited with status $rc" >>"$log"
	fi
	[ "$np" -eq 0 ] && [ "$nf" -eq 0 ] && [ "$ns" -eq 0 ] && np=1
	pass=$((pass + np))
	fail=$((fail + nf))
	skip=$((skip + ns))
	if [ "$nf" -ne 0 ]; then
		echo "FAIL $name (${secs} s)"
		sed 's/^/    /' "$log" | tail -n 60
	else
		if [ "$ns" -ne 0 ]; then echo "ok   $name ($np passed, $ns skipped, ${secs} s)"; else echo "ok   $name ($np passed, ${secs} s)"; fi
		grep -E '^(skip |# note: )' "$log" | sed 's/^/    /'
	fi
}

for t in "$B"/tests/unit/*; do
	[ -x "$t" ] && [ -f "$t" ] || continue
	case "$t" in *.d | *.o) continue ;; esac
	run_one "unit/$(basename "$t")" "$t"
done
for t in "$ROOT"/tests/e2e/*.sh; do
	[ -f "$t" ] || continue
	run_one "e2e/$(basename "$t" .sh)" sh "$t"
done
if [ "$skip" -ne 0 ]; then
	echo "$pass passed, $fail failed, $skip skipped"
else
	echo "$pass passed, $fail failed"
fi
[ "$fail" -eq 0 ]
