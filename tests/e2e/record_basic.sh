#!/bin/sh
# profil record, perf clock: exit status, hot functions in PIE, non-PIE,
# static and stripped executables, threads, rates.  The truth is the CPU time
# the program measured in each function ($RECORD_TRUTH, tests/progs/record_cpu.h).
. "$ROOT/tests/e2e/record/common.sh"

if ! perf_usable; then
	skip record_basic "perf_event_open is refused here (the fallback is tested in record_fallback)"
	exit 0
fi

"$P" record -q -o st.data -- "$PROGS/record_prog" exit 42
rc=$?
[ $rc -eq 42 ]
expect status_passthrough "exit status $rc, expected 42"
[ "$(hdr st.data state)" = 2 ] && [ "$(hdr st.data end_kind)" = 1 ] &&
	[ "$(hdr st.data end_code)" = 42 ] && [ "$(hdr st.data clock)" = 3 ] # auto: perf
expect header_complete_exited_42 "$("$DUMP" st.data | head -1)"

for variant in record_prog record_prog_nopie record_prog_static; do
	rm -f $variant.truth
	RECORD_TRUTH=$T/$variant.truth "$P" record -o "$variant.data" -- "$PROGS/$variant" hot 2 >out.txt 2>err.txt
	rc=$?
	hot_ab "$variant.data" $variant.truth 200 0.05 && [ $rc -eq 0 ]
	expect "hot_functions_$variant" "rc=$rc $HOT_AB"
done

# the summary is one line on stderr, stdout is the program's (empty here)
[ ! -s out.txt ] && [ "$(wc -l <err.txt)" -eq 1 ] && grep -q "samples" err.txt
expect one_summary_line "stdout: $(cat out.txt) stderr: $(cat err.txt)"

"$P" record -q -o stripped.data -- "$PROGS/record_prog_stripped" hot
inexe=$(osamples stripped.data /record_prog_stripped)
total=$(hdr stripped.data samples)
[ "$total" -ge 100 ] && in_range "$(share "$inexe" $((total - inexe)))" 0.9 1
expect stripped_samples_in_executable "$inexe of $total samples in the executable"

rm -f thr.truth
RECORD_TRUTH=$T/thr.truth "$P" record -q -o thr.data -- "$PROGS/record_prog" threads
total=$(hdr thr.data samples)
n=$(thread_tids_match thr.data thr.truth 0.06)
[ "$n" -eq 4 ]
expect four_threads_measured_shares "$n of 4: $(grep '^tid' tids.txt | tr '\n' ' ') $(grep thread_spin thr.truth | tr '\n' ' ')"
nthreads=$("$DUMP" thr.data | grep -c '^thread ')
[ "$nthreads" -eq 5 ]
expect thread_records "$nthreads thread records, expected 5 (main + 4)"
ts=$(fsamples thr.data thread_spin)
in_range "$(share "$ts" $((total - ts)))" 0.9 1
expect thread_spin_dominates "thread_spin $ts of $total"

# one sample is one period of the clock (the rate stated is the rate asked), and the
# profile's seconds are the tree's CPU time (as the kernel accounts it for the recorder)
for hz in 997 10000; do
	"$P" record -q -F $hz -o r$hz.data -- "$PROGS/record_prog" threads
	rate=$(ratio 1000000000 "$(hdr r$hz.data period_ns)")
	set -- $(pseconds r$hz.data)
	near "$rate" $hz $((hz / 10)) && near "$1" "$(hdr r$hz.data cpu_ns)" $(($(hdr r$hz.data cpu_ns) / 10))
	expect "rate_and_seconds_$hz" "rate $rate Hz at -F $hz, the profile shows $1 ns of $(hdr r$hz.data cpu_ns) ns"
done

# a rate above the kernel's limit is capped, and the summary and the profile say so
max=$(cat /proc/sys/kernel/perf_event_max_sample_rate)
"$P" record -F $((max * 2)) -o cap.data -- true 2>err.txt
[ "$(hdr cap.data nominal_hz)" = "$max" ] && grep -q "capped at $max" err.txt &&
	"$DUMP" cap.data | grep -q '^note .*capped'
expect rate_capped_at_kernel_limit "nominal $(hdr cap.data nominal_hz), max $max: $(cat err.txt)"

# the kernel is sampled from the events' enabling in the command's exec, before the exec is
# reported: those samples must not make the command's own exec look like a second image
"$P" record -q -F "$max" -o one.data -- "$PROGS/record_prog" exit 0
n=$("$DUMP" one.data | grep -c '^proc ')
[ "$n" -eq 1 ] && "$DUMP" one.data | grep -q "^proc id=1 .*exe=.*/record_prog$"
expect one_image_for_the_command "$("$DUMP" one.data | grep '^proc')"
