#!/bin/sh
# Per-event cost of `profil watch` under a fork/exec-heavy load (a measurement
# for the report, not a test; needs root).  Runs the load
#   sh -c 'for i in $(seq N); do /bin/true; done'
# with and without a watcher, interleaved (the order alternates per round),
# and prints each round and the medians of the ratio and of the extra cost per
# fork+exec+exit.  Whole-process wall time is noisy here, so it then also
# measures the time spent in watch's BPF programs directly (kernel.bpf_stats_enabled,
# bpftool prog show: run_time_ns / run_cnt) during one run of the load.
# Usage: B=build sh tests/bench/events_watch_cost.sh [ROUNDS] [N]
B=${B:-build}
ROUNDS=${1:-7}
N=${2:-2000}
T=$(mktemp -d)
trap 'kill -INT $WP 2>/dev/null; rm -rf "$T"' EXIT

now() { date +%s%N; }
load() {
	t0=$(now)
	sh -c "for i in \$(seq $N); do /bin/true; done"
	echo $(($(now) - t0))
}
with_watch() {
	rm -f "$T/err"
	"$B/profil" watch -o /dev/null 2>"$T/err" &
	WP=$!
	until grep -q "^profil watch: ready" "$T/err" 2>/dev/null; do sleep 0.05; done
	ns=$(load)
	kill -INT $WP
	wait $WP
	echo "$ns"
}
median() { sort -n | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }

load >/dev/null # warm-up
for r in $(seq "$ROUNDS"); do
	if [ $((r % 2)) -eq 1 ]; then off=$(load); on=$(with_watch); else on=$(with_watch); off=$(load); fi
	ratio=$(awk -v a="$on" -v b="$off" 'BEGIN { printf "%.4f", a / b }')
	us=$(awk -v a="$on" -v b="$off" -v n="$N" 'BEGIN { printf "%.2f", (a - b) / n / 1000 }')
	echo "round $r: without ${off} ns, with ${on} ns, ratio $ratio, extra ${us} us per exec"
	echo "$ratio" >>"$T/ratios"
	echo "$us" >>"$T/us"
	echo "$((off / N))" >>"$T/base"
done
echo "median ratio $(median <"$T/ratios"), median extra cost $(median <"$T/us") us per fork+exec+exit" \
	"(baseline $(median <"$T/base") ns per iteration, $N iterations, $ROUNDS rounds)"

# --- direct: time inside the BPF programs (kernel BPF statistics) -------------------------
prog_ids() { bpftool prog show | sed -n 's/^\([0-9]*\): .*/\1/p' | sort -n; }
prog_stats() { # id -> "name run_time_ns run_cnt"
	bpftool prog show id "$1" | sed -n 's/.* name \([^ ]*\) .*run_time_ns \([0-9]*\) run_cnt \([0-9]*\).*/\1 \2 \3/p'
}
old_stats=$(cat /proc/sys/kernel/bpf_stats_enabled)
echo 1 >/proc/sys/kernel/bpf_stats_enabled
prog_ids >"$T/ids.before"
rm -f "$T/err"
"$B/profil" watch -o /dev/null 2>"$T/err" &
WP=$!
until grep -q "^profil watch: ready" "$T/err" 2>/dev/null; do sleep 0.05; done
prog_ids | comm -13 "$T/ids.before" - >"$T/ids"
for id in $(cat "$T/ids"); do prog_stats "$id"; done >"$T/s0"
load >/dev/null
for id in $(cat "$T/ids"); do prog_stats "$id"; done >"$T/s1"
kill -INT $WP
wait $WP
echo "$old_stats" >/proc/sys/kernel/bpf_stats_enabled
paste "$T/s0" "$T/s1" | awk -v n="$N" '{
	dt = $5 - $2; dc = $6 - $3; total += dt
	if (dc > 0) printf "  %-12s %8d runs  %7.1f ns/run  %7.3f us per exec\n", $1, dc, dt / dc, dt / n / 1000
} END { printf "BPF time per fork+exec+exit (all programs): %.2f us\n", total / n / 1000 }'
