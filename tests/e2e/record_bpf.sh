#!/bin/sh
# profil record --clock bpf: the kernel-side histogram.  Hot functions in
# PIE and static executables, threads, a forked child, calibration, and the
# share of ticks counted in the kernel.  Needs root or CAP_BPF+CAP_PERFMON.
. "$ROOT/tests/e2e/record/common.sh"

"$P" record -q --clock bpf -o probe.data -- true 2>probe.err
if [ $? -ne 0 ]; then
	if grep -q -e "without BPF" -e "CAP_BPF" -e "not permitted" probe.err; then
		skip record_bpf "$(head -1 probe.err)"
		exit 0
	fi
	nok bpf_clock_runs "$(cat probe.err)"
	exit 1
fi
[ "$(hdr probe.data clock)" = 5 ]
expect header_says_bpf "clock $(hdr probe.data clock), expected 5 (bpf)"

for variant in record_prog record_prog_static; do
	"$P" record -q --clock bpf -F 4999 -o "$variant.data" -- "$PROGS/$variant" hot 2
	rc=$?
	a=$(fsamples "$variant.data" hot_a)
	b=$(fsamples "$variant.data" hot_b)
	s=$(share "$a" "$b")
	[ $rc -eq 0 ] && [ $((a + b)) -ge 1000 ] && in_range "$s" 0.70 0.80
	expect "bpf_hot_functions_$variant" "rc=$rc hot_a=$a hot_b=$b share=$s (expected 0.75)"
done

# calibration: samples x stated period == measured CPU time (the period is derived), and the
# rate achieved is close to the one asked for
eff=$(awk -v s="$(hdr record_prog.data samples)" -v c="$(hdr record_prog.data cpu_ns)" 'BEGIN { print s * 1e9 / c }')
in_range "$eff" 4000 5500
expect bpf_effective_rate "$eff Hz effective at -F 4999"

# most ticks never leave the kernel (the rest arrive before user space registers a mapping)
"$DUMP" record_prog.data | grep -q "binned in the kernel" ||
	"$P" report -i record_prog.data | grep -q "binned in the kernel"
expect note_says_kernel_binned "$("$P" report -i record_prog.data | sed -n 3p)"
pct=$("$P" report -i record_prog.data | sed -n 's/.*; \([0-9.]*\)% binned in the kernel.*/\1/p')
in_range "${pct:-0}" 50 100.1
expect most_ticks_binned_in_kernel "${pct}% binned in the kernel"

# threads: 4 equal spinners; the bins are per thread, so each has its own quarter
"$P" record -q --clock bpf -F 4999 -o thr.data -- "$PROGS/record_prog" threads
total=$(hdr thr.data samples)
ts=$(fsamples thr.data thread_spin)
[ "$total" -ge 1000 ] && in_range "$(share "$ts" $((total - ts)))" 0.9 1
expect bpf_threads_all_counted "thread_spin $ts of $total"
"$DUMP" thr.data | awk -v t="$total" '$1=="tid" { split($4,a,"="); if (a[2] >= t*0.05) { n++; if (a[2] < t*0.18 || a[2] > t*0.32) bad++ } }
	END { exit !(n == 4 && bad == 0) }'
expect bpf_four_threads_equal_shares "$("$DUMP" thr.data | grep '^tid' | tr '\n' ' ') total=$total"
pct=$("$P" report -i thr.data | sed -n 's/.*; \([0-9.]*\)% binned in the kernel.*/\1/p')
# each thread's first ticks in a mapping arrive through the ring (a slow, e.g. ASan, recorder
# registers them later): the kernel must still count a good part of them itself
in_range "${pct:-0}" 20 100.1
expect bpf_threads_binned_in_kernel "${pct}% binned in the kernel"

# a forked child gets its own histogram: child_spin in the child's process, not the parent's
"$P" record -q --clock bpf -F 4999 -o fork.data -- "$PROGS/record_prog" fork
cpid=$("$DUMP" fork.data | awk '$1=="proc" && $3=="parent=1" { split($2,a,"="); print a[2]; exit }')
c_in_child=$(fsamples fork.data child_spin "${cpid:-0}")
c_in_parent=$(fsamples fork.data child_spin 1)
p_in_parent=$(fsamples fork.data parent_spin 1)
[ -n "$cpid" ] && [ "$c_in_child" -ge 200 ] && [ "$c_in_parent" -eq 0 ] && [ "$p_in_parent" -ge 200 ]
expect bpf_forked_child_histogram "child proc ${cpid:-none}: child_spin $c_in_child (in parent $c_in_parent), parent_spin $p_in_parent"
exit 0
