#!/bin/sh
# The report of a whole machine's hour (doc/system.md): tests/tools/system_synth
# writes one (997 Hz, 2 CPUs, 3,620 process images of real programs), and
# `profil report` reads it, plain and by cgroup: CPU time, wall time and largest
# resident set of 3 runs each.  A measurement, not a test.
# Usage: B=build sh tests/bench/system_report.sh [SECONDS]
B=${B:-build}
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
"$B/tests/tools/system_synth" "$T/hour.data" "${1:-3600}" || exit 1
ls -l "$T/hour.data" | awk '{ printf "profile: %.1f MB\n", $5 / 1e6 }'
for args in "" "--sort cgroup"; do
	for r in 1 2 3; do
		/usr/bin/time -f "report $args: %U s user, %S s system, %e s wall, %M KB max RSS" \
			"$B/profil" report -i "$T/hour.data" $args >/dev/null
	done
done
