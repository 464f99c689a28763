#!/bin/sh
# The recorder's own cost on the whole machine (`profil record -a`): its CPU
# time (user + system, /usr/bin/time) and its largest resident set for
# recordings of D and 4D seconds, at 99 and 997 Hz, flat and with -g, with
# the perf clock (the default) and the BPF histogram, on the machine as it
# is and with 2,000 sleeping processes and 64 busy threads added: the cost
# of a D-second recording, and the steady cost per second (the difference
# of the two over 3D: what start and finish cost once, kallsyms and the
# unwinder's first look at each object, cancels out).  Then the done-when
# case: `record -a -- sleep 3` beside two busy processes.  Medians of ROUNDS.
# A measurement for doc/system.md, not a test; needs what -a needs.
# Usage: B=build sh tests/bench/system_cost.sh [ROUNDS] [D]
B=${B:-build}
ROUNDS=${1:-3}
D=${2:-10}
SPIN="$B/tests/progs/system_spin"
T=$(mktemp -d)
P="$T/profil" # a copy: a rebuild meanwhile does not stop the measurement
cp "$B/profil" "$P" || exit 1
pids=""
trap 'kill $pids 2>/dev/null; rm -rf "$T"' EXIT

median() { sort -n | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }

# one CFG: "HZ G CLOCK" SECONDS -> "cpu_s rss_mib samples"
run() {
	secs=$2
	set -- $1
	g=""
	[ "$2" = g ] && g=-g
	/usr/bin/time -f "%U %S %M" -o "$T/time" "$P" record -a -q -F "$1" $g --clock "$3" \
		-o "$T/x.data" --duration "$secs" 2>"$T/err" || { cat "$T/err" >&2; echo "0 0 0"; return; }
	awk '{ printf "%.3f %.1f", $1 + $2, $3 / 1024 }' "$T/time"
	echo " $("$B/tests/tools/pdata_dump" --records "$T/x.data" | sed -n 's/.* samples=\([0-9]*\) .*/\1/p')"
}

table() {
	L=$((4 * D))
	echo "| rate | stacks | clock | recorder CPU in ${D} s | in ${L} s | steady (% of one CPU) | max RSS (${L} s) | samples (${L} s) |"
	echo "| --- | --- | --- | --- | --- | --- | --- | --- |"
	for cfg in "99 - perf" "99 - bpf" "99 g perf" "997 - perf" "997 - bpf" "997 g perf"; do
		for r in $(seq "$ROUNDS"); do
			run "$cfg" "$D" >>"$T/short"
			run "$cfg" "$L" >>"$T/long"
		done
		cs=$(awk '{ print $1 }' "$T/short" | median)
		cl=$(awk '{ print $1 }' "$T/long" | median)
		rss=$(awk '{ print $2 }' "$T/long" | median)
		n=$(awk '{ print $3 }' "$T/long" | median)
		rm -f "$T/short" "$T/long"
		set -- $cfg
		echo "| $1 Hz | $2 | $3 | $cs s | $cl s | $(awk -v a="$cs" -v b="$cl" -v d="$D" 'BEGIN { printf "%.2f", 100 * (b - a) / (3 * d) }') % | $rss MiB | $n |"
	done
}

echo "## The machine as it is ($(nproc) CPUs, $(ps -e --no-headers | wc -l) processes, load $(cut -d' ' -f1 /proc/loadavg))"
echo
table
echo
# 2,000 sleeping processes and 64 busy threads
i=0
while [ $i -lt 2000 ]; do
	sleep 100000 &
	pids="$pids $!"
	i=$((i + 1))
done
"$SPIN" alpha 1e12 64 &
pids="$pids $!"
sleep 1
echo "## With 2,000 sleeping processes and 64 busy threads ($(ps -e --no-headers | wc -l) processes, $(ps -eL --no-headers | wc -l) threads)"
echo
table
kill $pids 2>/dev/null
wait 2>/dev/null
pids=""
echo
echo "## The done-when case: record -a -- sleep 3, beside two busy processes (997 Hz)"
echo
"$SPIN" alpha &
pids="$!"
"$SPIN" beta &
pids="$pids $!"
for r in $(seq 5); do
	/usr/bin/time -f "%e %U %S %M" -o "$T/time" "$P" record -a -q -o "$T/x.data" -- sleep 3
	cat "$T/time"
done | awk '{ printf "wall %.2f s, recorder CPU %.3f s (user %.2f, system %.2f), max RSS %.1f MiB\n", $1, $2 + $3, $2, $3, $4 / 1024 }'
