#!/bin/sh
# The long stress test of the agent's in-handler unwinder (not part of make check;
# tests/e2e/record_stacks.sh runs one short round):
#
#   tests/stress/stack_stress.sh [RUNS [SECONDS [TIMEOUT]]]     (defaults 50 3 120)
#
# RUNS runs of tests/progs/stack_stress (threads in dlopen/dlclose of a library
# with TLS, malloc, dl_iterate_phdr and fork+exec, while main recurses) under
# `profil record --clock thread -F 250` with call stacks on, each until main
# spent SECONDS of CPU.  A run that outlives TIMEOUT seconds is a hang (its
# process group is killed); a non-zero exit is a crash or a failed child.
# Prints one line per run and a summary; exits 1 on any hang or failure.
# B: the build directory (default build).
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
B=${B:-build}
case "$B" in /*) ;; *) B="$ROOT/$B" ;; esac
RUNS=${1:-50}
SECONDS_CPU=${2:-3}
TIMEOUT=${3:-120}
P="$B/profil"
PROGS="$B/tests/progs"
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT

hangs=0 fails=0 records=0 complete=0 forking=0 no_info=0 faults=0 children=0
i=1
while [ $i -le "$RUNS" ]; do
	rm -f "$T/dump" "$T/run.data"
	start=$(date +%s)
	timeout -s KILL "$TIMEOUT" env PROFIL_AGENT_STACKS=1 PROFIL_TEST_STACK_DUMP="$T/dump" \
		"$P" record -q --clock thread -F 250 -o "$T/run.data" -- \
		"$PROGS/stack_stress" "$SECONDS_CPU" >"$T/out" 2>"$T/err"
	rc=$?
	took=$(($(date +%s) - start))
	summary=$([ -f "$T/dump" ] && "$B/tests/tools/stack_dump_flags" "$T/dump")
	if [ $rc -eq 137 ]; then
		hangs=$((hangs + 1))
		verdict=HANG
	elif [ $rc -ne 0 ]; then
		fails=$((fails + 1))
		verdict="FAIL($rc)"
	else
		verdict=ok
	fi
	echo "run $i: $verdict ${took}s $(cat "$T/out") $summary $(head -c 300 "$T/err")"
	for kv in $summary; do
		v=${kv#*=}
		case "$kv" in
		records=*) records=$((records + v)) ;;
		complete=*) complete=$((complete + v)) ;;
		forking=*) forking=$((forking + v)) ;;
		no_info=*) no_info=$((no_info + v)) ;;
		fault=*) faults=$((faults + v)) ;;
		esac
	done
	c=$(sed -n 's/.* children=\([0-9]*\).*/\1/p' "$T/out")
	children=$((children + ${c:-0}))
	i=$((i + 1))
done
echo "summary: runs=$RUNS hangs=$hangs failures=$fails children=$children stacks=$records" \
	"complete=$complete forking=$forking no_info=$no_info faults=$faults"
[ $hangs -eq 0 ] && [ $fails -eq 0 ]
