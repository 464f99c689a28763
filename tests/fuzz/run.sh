#!/bin/sh
# run.sh BUILD TARGET...: run each libFuzzer target BUILD/tests/fuzz/fuzz_TARGET for
# FUZZ_SECONDS (default 60) from its seeds (tests/fuzz/corpus/TARGET/, read only; new inputs go
# to BUILD/corpus/TARGET/), then print one line per target: executions, rate, coverage.
# Exit status 1 if any target crashed, leaked, timed out or ran out of memory; the input is
# kept in BUILD/artifacts/ and the end of the log is printed.
set -u
build=$1
shift
secs=${FUZZ_SECONDS:-60}
root=$(cd "$(dirname "$0")/../.." && pwd)
mkdir -p "$build/artifacts"
failed=0
for t in "$@"; do
	case $t in
	elf) maxlen=32768 ;;
	*) maxlen=16384 ;;
	esac
	mkdir -p "$build/corpus/$t"
	log="$build/fuzz_$t.log"
	"$build/tests/fuzz/fuzz_$t" -max_total_time="$secs" -max_len=$maxlen -timeout=10 \
		-rss_limit_mb=2048 -close_fd_mask=3 -print_final_stats=1 \
		-artifact_prefix="$build/artifacts/$t-" "$build/corpus/$t" "$root/tests/fuzz/corpus/$t" \
		>"$log" 2>&1
	rc=$?
	execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log")
	rate=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$log")
	last=$(grep -E '^#[0-9]+' "$log" | tail -1)
	cov=$(echo "$last" | sed -n 's/.* cov: \([0-9]*\).*/\1/p')
	ft=$(echo "$last" | sed -n 's/.* ft: \([0-9]*\).*/\1/p')
	corp=$(echo "$last" | sed -n 's/.* corp: \([0-9]*\).*/\1/p')
	rss=$(sed -n 's/^stat::peak_rss_mb: *//p' "$log")
	if [ $rc -eq 0 ]; then
		echo "fuzz $t: ${execs:-?} executions in ${secs} s (${rate:-?}/s), coverage ${cov:-?} edges, ${ft:-?} features, corpus ${corp:-?} inputs, peak RSS ${rss:-?} MB"
	else
		failed=1
		echo "fuzz $t: FAILED (status $rc) after ${execs:-?} executions; log $log; input kept as:"
		ls "$build/artifacts/" | grep "^$t-" | sed "s|^|    $build/artifacts/|"
		grep -E 'ERROR|SUMMARY|==[0-9]+==|#[0-9]+ ' "$log" | tail -20 | sed 's/^/    /'
	fi
done
exit $failed
