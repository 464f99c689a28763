#!/bin/sh
# 4 threads created before profiling is turned on and 4 after, each burning
# its own function for equal CPU time: every thread must get its share.
# Shares are normalised within each group of 4 (25 % each) and must be
# within 10 points; the two groups must each get 50 % within 8 points.  The
# threads run in rounds of equal CPU until enough samples: 1400 for the thread
# clock (at least 1200 required), 2500 for perf.  The sd of a within-group
# share is about 1.6 points when every tick is a delivery; on a busy machine
# the kernel merges ticks (beside two busy loops 775 of 1618 were merged into
# others: fewer, heavier samples, sd about 2.4 points), so 10 points is still
# over 4 sd, and a thread left unsampled is 25 points off.

. "$ROOT/tests/lib.sh"

check() { # name clock hz cpu_per_thread_per_round min_samples floor
	out=$("$PROGS/lib_threads" "$2" "$3" "$4" "$5" 2>&1)
	rc=$?
	if [ $rc = 77 ]; then
		echo "skip $1: $out"
		return
	fi
	if [ $rc != 0 ]; then
		echo "not ok $1: exit $rc: $out"
		return
	fi
	echo "$out" | sed 's/^/# /'
	echo "$out" | awk -v name="$1" -v floor="$6" '
		/^thread=/ { split($2, gr, "="); split($3, s, "="); share[NR] = s[2]; grp[NR] = gr[2]; tot[gr[2]] += s[2]; n++ }
		/^clock=/ { for (i = 1; i <= NF; i++) { split($i, kv, "="); v[kv[1]] = kv[2] } }
		END {
			worst = 0
			for (i in share) {
				e = 100 * share[i] / tot[grp[i]] - 25; if (e < 0) e = -e
				if (e > worst) worst = e
			}
			g = tot["before"] - 50; if (g < 0) g = -g
			if (n != 8 || v["in"] < floor) printf "not ok %s: %d threads, %d samples\n", name, n, v["in"]
			else if (worst >= 10 || g >= 8) printf "not ok %s: worst share error %.1f points (within group), groups %.1f/%.1f\n", name, worst, tot["before"], tot["after"]
			else printf "ok %s: worst per-thread share error %.1f points of 25, groups %.1f/%.1f, %d samples\n", name, worst, tot["before"], tot["after"], v["in"]
		}'
}

check thread-clock-8-threads thread 250 0.3 1400 1200
check perf-clock-8-threads perf 4000 0.1 2500 2000
