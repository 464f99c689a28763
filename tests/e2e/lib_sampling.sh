#!/bin/sh
# Real sampling, each clock: three hot functions doing about 50/30/20 % of the
# work, profiled over their own text.  The truth is the CPU time each function
# measured itself spending (ta/tb/tc), not the work.  Shares must match within
# 4 binomial standard deviations of the samples taken (50/sqrt(n) points: 1.6
# at the 1000 asked), at least 6 points, with at least 300 samples in the
# functions (a loaded machine merges CPU-timer ticks: 716 of 1000 seen in 10 s
# of CPU with two busy processes beside the test).

. "$ROOT/tests/lib.sh"

run() { # name clock hz max_cpu_seconds
	"$PROGS/lib_hot" "$2" "$3" "$4" 1000 >"$T/$1" 2>&1
	echo $? >"$T/$1.rc"
}

check() { # name
	rc=$(cat "$T/$1.rc")
	out=$(cat "$T/$1")
	if [ "$rc" = 77 ]; then
		echo "skip $1: $out"
		return
	fi
	if [ "$rc" != 0 ]; then
		echo "not ok $1: exit $rc: $out"
		return
	fi
	echo "# $1: $out"
	echo "$out" | awk -v name="$1" '{
		for (i = 1; i <= NF; i++) { split($i, kv, "="); v[kv[1]] = kv[2] }
		d = 0
		split("a b c", k, " ")
		for (i = 1; i <= 3; i++) {
			e = v[k[i]] - v["t" k[i]]
			if (e < 0) e = -e
			if (e > d) d = e
		}
		tol = v["in"] > 0 ? 4 * 50 / sqrt(v["in"]) : 100
		if (tol < 6) tol = 6
		if (v["in"] < 300) printf "not ok %s: only %d samples in the hot functions\n", name, v["in"]
		else if (d >= tol) printf "not ok %s: shares %s/%s/%s, want the measured %s/%s/%s within %.1f points\n", name, v["a"], v["b"], v["c"], v["ta"], v["tb"], v["tc"], tol
		else printf "ok %s: shares %s/%s/%s, measured %s/%s/%s (max error %.1f points, %d samples)\n", name, v["a"], v["b"], v["c"], v["ta"], v["tb"], v["tc"], d, v["in"]
	}'
}

# Each runs until 1000 samples (at most 10 s of CPU).  thread and itimer are capped at
# CONFIG_HZ (~4 s of CPU): run them in parallel on the two cores.
run thread-shares thread 250 10 &
run itimer-shares itimer 250 10 &
wait
run perf-shares perf 4000 10
for t in thread-shares itimer-shares perf-shares; do check $t; done
