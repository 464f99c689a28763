#!/bin/sh
# profil record --clock bpf: the kernel-side histogram.  Hot functions in
# PIE and static executables, threads, a forked child, calibration, and the
# share of ticks counted in the kernel.  Needs root or CAP_BPF+CAP_PERFMON.
# The truth is the CPU time the program measured in each function.
. "$ROOT/tests/e2e/record/common.sh"

"$P" record -q --clock bpf -o probe.data -- true 2>probe.err
if [ $? -ne 0 ]; then
	if grep -q -e "without BPF" -e "CAP_BPF" -e "not permitted" probe.err; then
		skip record_bpf "$(head -1 probe.err)"
		exit 0
	fi
	no bpf_clock_runs "$(cat probe.err)"
	exit 1
fi
[ "$(hdr probe.data clock)" = 5 ]
expect header_says_bpf "clock $(hdr probe.data clock), expected 5 (bpf)"

for variant in record_prog record_prog_static; do
	rm -f $variant.truth
	RECORD_TRUTH=$T/$variant.truth "$P" record -q --clock bpf -F 4999 -o "$variant.data" -- "$PROGS/$variant" hot 2
	rc=$?
	hot_ab "$variant.data" $variant.truth 1000 0.04 && [ $rc -eq 0 ]
	expect "bpf_hot_functions_$variant" "rc=$rc $HOT_AB"
done

# calibration: samples x the clock's period == the CPU time the program measured
p=$(hdr record_prog.data period_ns)
ab=$((($(fsamples record_prog.data hot_a) + $(fsamples record_prog.data hot_b)) * p))
tab=$(($(truth record_prog.truth hot_a) + $(truth record_prog.truth hot_b)))
near "$ab" "$tab" $((tab / 10)) && near "$(ratio 1000000000 "$p")" 4999 500
expect bpf_calibration "hot_a+hot_b: ${ab}ns sampled, ${tab}ns measured; rate $(ratio 1000000000 "$p") Hz at -F 4999"

# most ticks never leave the kernel (the rest arrive before user space gives their code bins)
note=$("$DUMP" record_prog.data | sed -n 's/^note //p')
case "$note" in *"binned in the kernel"*) true ;; *) false ;; esac
expect note_says_kernel_binned "$note"
pct=$(echo "$note" | sed -n 's/.*; \([0-9.]*\)% binned in the kernel.*/\1/p')
in_range "${pct:-0}" 50 100.1
expect most_ticks_binned_in_kernel "${pct}% binned in the kernel"

# threads: 4 spinners; the bins are per thread, so each has its own share
rm -f thr.truth
RECORD_TRUTH=$T/thr.truth "$P" record -q --clock bpf -F 4999 -o thr.data -- "$PROGS/record_prog" threads
total=$(hdr thr.data samples)
ts=$(fsamples thr.data thread_spin)
[ "$total" -ge 1000 ] && in_range "$(share "$ts" $((total - ts)))" 0.9 1
expect bpf_threads_all_counted "thread_spin $ts of $total"
n=$(thread_tids_match thr.data thr.truth 0.05)
[ "$n" -eq 4 ]
expect bpf_four_threads_measured_shares "$n of 4: $(grep '^tid' tids.txt | tr '\n' ' ') $(grep thread_spin thr.truth | tr '\n' ' ')"
pct=$("$DUMP" thr.data | sed -n 's/^note .*; \([0-9.]*\)% binned in the kernel.*/\1/p')
# each thread's first ticks in a mapping arrive through the ring (a slow, e.g. ASan, recorder
# registers them later): the kernel must still count a good part of them itself
in_range "${pct:-0}" 20 100.1
expect bpf_threads_binned_in_kernel "${pct}% binned in the kernel"

# a forked child gets its own histogram: child_spin in the child's process, not the parent's,
# each with the samples its measured CPU time is worth (within 15 %)
rm -f fork.truth
RECORD_TRUTH=$T/fork.truth "$P" record -q --clock bpf -F 4999 -o fork.data -- "$PROGS/record_prog" fork
cpid=$("$DUMP" fork.data | awk '$1=="proc" && $3=="parent=1" { split($2,a,"="); print a[2]; exit }')
p=$(hdr fork.data period_ns)
c_in_child=$(fsamples fork.data child_spin "${cpid:-0}")
c_in_parent=$(fsamples fork.data child_spin 1)
p_in_parent=$(fsamples fork.data parent_spin 1)
tc=$(truth fork.truth child_spin)
tp=$(truth fork.truth parent_spin)
[ -n "$cpid" ] && near $((c_in_child * p)) "$tc" $((tc * 15 / 100)) && [ "$c_in_parent" -eq 0 ] &&
	near $((p_in_parent * p)) "$tp" $((tp * 15 / 100))
expect bpf_forked_child_histogram "child proc ${cpid:-none}: child_spin $c_in_child samples (in parent $c_in_parent) for ${tc}ns measured, parent_spin $p_in_parent for ${tp}ns"

# a tree: every process gets bins (blocks come back when a process ends), the kernel's too
"$P" record -q --clock bpf -F 4999 -o tree.data -- sh -c "\"$PROGS/record_prog\" hot 1; \"$PROGS/record_prog\" hot 1; \"$PROGS/record_prog\" hot 1"
pct=$("$DUMP" tree.data | sed -n 's/^note .*; \([0-9.]*\)% binned in the kernel.*/\1/p')
in_range "${pct:-0}" 50 100.1
expect bpf_tree_binned_in_kernel "${pct}% binned in the kernel: $("$DUMP" tree.data | grep '^note')"
exit 0
