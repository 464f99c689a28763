#!/bin/sh
# Real sampling, each clock: three hot functions doing 50/30/20 % of the work,
# profiled over their own text.  Shares must match within 8 points with at
# least 400 samples in the functions (binomial sd at 400 samples: 2.5 points).
P="$B/tests/progs"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

run() { # name clock hz max_cpu_seconds
	"$P/lib_hot" "$2" "$3" "$4" 500 >"$tmp/$1" 2>&1
	echo $? >"$tmp/$1.rc"
}

check() { # name
	rc=$(cat "$tmp/$1.rc")
	out=$(cat "$tmp/$1")
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
		if (v["a"] - 50 > d || 50 - v["a"] > d) d = (v["a"] > 50) ? v["a"] - 50 : 50 - v["a"]
		e = (v["b"] > 30) ? v["b"] - 30 : 30 - v["b"]; if (e > d) d = e
		e = (v["c"] > 20) ? v["c"] - 20 : 20 - v["c"]; if (e > d) d = e
		if (v["in"] < 400) printf "not ok %s: only %d samples in the hot functions\n", name, v["in"]
		else if (d >= 8) printf "not ok %s: shares %s/%s/%s, want 50/30/20 within 8 points\n", name, v["a"], v["b"], v["c"]
		else printf "ok %s: shares %s/%s/%s (max error %.1f points, %d samples)\n", name, v["a"], v["b"], v["c"], d, v["in"]
	}'
}

# Each runs until 500 samples (at most 6 s of CPU).  thread and itimer are capped at
# CONFIG_HZ (~2 s of CPU): run them in parallel on the two cores.
run thread-shares thread 250 6 &
run itimer-shares itimer 250 6 &
wait
run perf-shares perf 4000 6
for t in thread-shares itimer-shares perf-shares; do check $t; done
