#!/bin/sh
# profil record, perf clock: exit status, hot functions in PIE, non-PIE,
# static and stripped executables, threads, effective rate.
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
	[ "$(hdr st.data end_code)" = 42 ] && { [ "$(hdr st.data clock)" = 3 ] || [ "$(hdr st.data clock)" = 5 ]; } # auto: perf, or bpf as root
expect header_complete_exited_42 "$("$DUMP" st.data | head -1)"

for variant in record_prog record_prog_nopie record_prog_static; do
	"$P" record -o "$variant.data" -- "$PROGS/$variant" hot 2 >out.txt 2>err.txt
	rc=$?
	a=$(fsamples "$variant.data" hot_a)
	b=$(fsamples "$variant.data" hot_b)
	s=$(share "$a" "$b")
	[ $rc -eq 0 ] && [ $((a + b)) -ge 200 ] && in_range "$s" 0.65 0.85
	expect "hot_functions_$variant" "rc=$rc hot_a=$a hot_b=$b share=$s (expected 0.75)"
done

# the summary is one line on stderr, stdout is the program's (empty here)
[ ! -s out.txt ] && [ "$(wc -l <err.txt)" -eq 1 ] && grep -q "samples" err.txt
expect one_summary_line "stdout: $(cat out.txt) stderr: $(cat err.txt)"

"$P" record -q -o stripped.data -- "$PROGS/record_prog_stripped" hot
inexe=$(osamples stripped.data /record_prog_stripped)
total=$(hdr stripped.data samples)
[ "$total" -ge 100 ] && in_range "$(share "$inexe" $((total - inexe)))" 0.9 1
expect stripped_samples_in_executable "$inexe of $total samples in the executable"

"$P" record -q -o thr.data -- "$PROGS/record_prog" threads
total=$(hdr thr.data samples)
"$DUMP" thr.data | awk -v t="$total" '$1=="tid" { split($4,a,"="); if (a[2] >= t*0.05) { n++; if (a[2] < t*0.15 || a[2] > t*0.35) bad++ } }
	END { exit !(n == 4 && bad == 0) }'
expect four_threads_equal_shares "$("$DUMP" thr.data | grep '^tid' | tr '\n' ' ') total=$total"
nthreads=$("$DUMP" thr.data | grep -c '^thread ')
[ "$nthreads" -eq 5 ]
expect thread_records "$nthreads thread records, expected 5 (main + 4)"
ts=$(fsamples thr.data thread_spin)
in_range "$(share "$ts" $((total - ts)))" 0.9 1
expect thread_spin_dominates "thread_spin $ts of $total"

# the effective rate is measured: samples per CPU second of the tree
for hz in 997 10000; do
	"$P" record -q -F $hz -o r$hz.data -- "$PROGS/record_prog" threads
	eff=$(awk -v s="$(hdr r$hz.data samples)" -v c="$(hdr r$hz.data cpu_ns)" 'BEGIN { print s * 1e9 / c }')
	lo=$(awk -v h=$hz 'BEGIN { print h * 0.8 }')
	in_range "$eff" "$lo" $((hz * 11 / 10))
	expect "effective_rate_$hz" "$eff Hz effective at -F $hz"
done

# a rate above the kernel's limit is capped, and the summary and the profile say so
max=$(cat /proc/sys/kernel/perf_event_max_sample_rate)
"$P" record -F $((max * 2)) -o cap.data -- true 2>err.txt
[ "$(hdr cap.data nominal_hz)" = "$max" ] && grep -q "capped at $max" err.txt &&
	"$DUMP" cap.data | grep -q '^note .*capped'
expect rate_capped_at_kernel_limit "nominal $(hdr cap.data nominal_hz), max $max: $(cat err.txt)"
