#!/bin/sh
# profil record -g / --call-graph: call stacks unwound while recording.
# tests/progs/unwind_zlib (built -O2 -fomit-frame-pointer, and Debian's
# libz without frame pointers) calls compress2 from two callers and
# measures each caller's CPU time itself (the truth); a worker thread spins
# in a leaf.  The stacks are read with tests/tools/stack_query (pview).
. "$ROOT/tests/e2e/record/common.sh"
Q="$TOOLS/stack_query"
ZLIB="$PROGS/unwind_zlib"

if ! perf_usable; then
	skip record_callgraph "perf_event_open is refused here (the agent takes no stacks yet)"
	exit 0
fi

# hfield FILE KEY: a field of stack_query's header line
hfield() {
	"$Q" "$1" header | awk -v k="$2" 'NR==1{for(i=1;i<=NF;i++){split($i,a,"="); if(a[1]==k) print a[2]}}'
}
note() { "$Q" "$1" header | sed -n 's/^note //p'; }
count() {
	f=$1
	shift
	"$Q" "$f" count "$@"
}
# truth_share FILE: caller_a's share of the two callers' CPU time, as the program measured it
truth_share() {
	awk '/^caller_a /{a=$2} /^caller_b /{b=$2} END { if (a + b > 0) printf "%.4f", a / (a + b); else print -1 }' "$1"
}

# check_stacks NAME FILE TRUTH: the stack properties every -g profile of unwind_zlib has
check_stacks() {
	name=$1 f=$2 truth=$3
	total=$(hfield "$f" samples)
	[ "$(hfield "$f" callgraph)" = dwarf ] && note "$f" | grep -q "call stacks: dwarf"
	expect "${name}_header_says_dwarf" "$("$Q" "$f" header)"

	# the zlib time of each caller: stacks through libz (no frame pointers) reach the caller
	a=$(count "$f" --has unwind_zlib_caller_a)
	b=$(count "$f" --has unwind_zlib_caller_b)
	want=$(truth_share "$truth")
	got=$(share "$a" "$b")
	[ $((a + b)) -ge 800 ] &&
		awk -v g="$got" -v w="$want" 'BEGIN { d = g - w; if (d < 0) d = -d; exit !(w > 0 && d <= 0.03) }'
	expect "${name}_zlib_split_by_caller" "caller_a=$a caller_b=$b share=$got truth=$want (within 3 points)"

	# the worker's leaf reaches the thread's start routine
	leaf=$(count "$f" --leaf unwind_zlib_spin_inner)
	reach=$(count "$f" --leaf unwind_zlib_spin_inner --has unwind_zlib_worker --has start_thread)
	[ "$leaf" -ge 300 ] && in_range "$(ratio "$reach" "$leaf")" 0.95 1
	expect "${name}_worker_reaches_start" "$reach of $leaf leaf samples reach unwind_zlib_worker and start_thread"

	# complete stacks
	complete=$(count "$f" --complete)
	[ "$total" -gt 0 ] && in_range "$(ratio "$complete" "$total")" 0.99 1 &&
		[ "$(hfield "$f" truncated)" -le $((total / 100)) ] && [ "$(hfield "$f" stacks_dropped)" -eq 0 ]
	expect "${name}_complete" "$complete of $total complete; $("$Q" "$f" header | head -1)"
}

# 1. -g with the default clock (root: whichever -g chooses), and with --clock perf
for clock in auto perf; do
	"$P" record -q -g --clock $clock -F 2999 -o g_$clock.data -- "$ZLIB" -t truth_$clock 0.6
	rc=$?
	[ $rc -eq 0 ] && [ -s truth_$clock ]
	expect "g_${clock}_runs" "rc=$rc"
	check_stacks "g_$clock" g_$clock.data truth_$clock
done
# auto takes the perf clock with -g below 4 kHz (measured cheaper than the in-kernel walk there), and says why
[ "$(hdr g_auto.data clock)" = 3 ] && note g_auto.data | grep -q "auto: below 4 kHz the recorder unwinding the ring's copies costs less"
expect g_auto_chooses_perf "clock=$(hdr g_auto.data clock) note: $(note g_auto.data)"

# a repeated stack costs a counter: the finished file is small and the frame nodes few
size=$(wc -c <g_perf.data)
frames=$(hfield g_perf.data frames)
[ "$size" -lt 1048576 ] && [ "$frames" -gt 0 ] && [ "$frames" -lt "$(hfield g_perf.data samples)" ]
expect g_profile_compact "size=$size bytes, $frames frame nodes for $(hfield g_perf.data samples) samples"

# 2. the bpf clock with -g: each tick's stack walked through the CFI and counted in the kernel
# (bpf/kunwind.bpf.c); the ticks it cannot walk yet (a process's first ticks, before its
# tables are loaded) come through the ring and the recorder unwinds them, as with perf.
# kernel_share FILE: the share of ticks walked in the kernel, from the clock note
kernel_share() {
	note "$1" | sed -n 's/.*stacks walked in the kernel (CFI): \([0-9]*\) of \([0-9]*\) ticks.*/\1 \2/p' |
		awk '{ if ($2 > 0) printf "%.4f", $1 / $2; else print 0 }'
}
"$P" record -q --clock bpf -o bprobe.data -- true 2>bprobe.err
if [ $? -ne 0 ]; then
	skip g_bpf_stacks "$(head -1 bprobe.err)"
elif ! "$P" record -q -g --clock bpf -o kprobe.data -- true 2>/dev/null ||
	[ "$(hfield kprobe.data callgraph)" != kernel-cfi ]; then
	skip g_bpf_stacks "stacks cannot be walked in this kernel: $(note kprobe.data)"
else
	"$P" record -q -g --clock bpf -F 2999 -o g_bpf.data -- "$ZLIB" -t truth_bpf 0.6
	rc=$?
	total=$(hfield g_bpf.data samples)
	[ $rc -eq 0 ] && [ "$(hdr g_bpf.data clock)" = 5 ] && [ "$(hfield g_bpf.data callgraph)" = kernel-cfi ] &&
		in_range "$(kernel_share g_bpf.data)" 0.8 1
	expect g_bpf_walked_in_kernel "rc=$rc share=$(kernel_share g_bpf.data) $("$Q" g_bpf.data header)"
	# every stack of the zlib work reaches main, every one of the worker its start routine
	# (the kernel's and the ring's); the few others are ld.so's start-up, complete too
	zl=$(count g_bpf.data --has compress2)
	zl_main=$(count g_bpf.data --has compress2 --has main)
	wk=$(count g_bpf.data --has unwind_zlib_worker)
	wk_start=$(count g_bpf.data --has unwind_zlib_worker --has start_thread)
	complete=$(count g_bpf.data --complete)
	# (a tick in the program's exit code without CFI, crt's __do_global_dtors_aux, is cut short
	# rightly: no CFI and no frame pointer there; at most 1 in 1000)
	[ "$zl" -ge 800 ] && [ "$zl_main" -eq "$zl" ] && [ "$wk" -ge 800 ] && [ "$wk_start" -eq "$wk" ] &&
		[ "$complete" -ge $((total - total / 1000)) ] &&
		[ "$(hfield g_bpf.data truncated)" -le $((total / 1000)) ]
	expect g_bpf_stacks_reach_main "compress2 $zl_main of $zl reach main, worker $wk_start of $wk reach start_thread, complete $complete of $total"
	a=$(count g_bpf.data --has unwind_zlib_caller_a)
	b=$(count g_bpf.data --has unwind_zlib_caller_b)
	want=$(truth_share truth_bpf)
	got=$(share "$a" "$b")
	[ $((a + b)) -ge 800 ] &&
		awk -v g="$got" -v w="$want" 'BEGIN { d = g - w; if (d < 0) d = -d; exit !(w > 0 && d <= 0.03) }'
	expect g_bpf_zlib_split_by_caller "caller_a=$a caller_b=$b share=$got truth=$want (within 3 points)"

	# auto at 4 kHz or more takes the in-kernel walk (measured cheaper per second there), and says so
	"$P" record -q -g -F 4999 -o g_auto_hi.data -- "$ZLIB" 0.2
	rc=$?
	[ $rc -eq 0 ] && [ "$(hdr g_auto_hi.data clock)" = 5 ] && [ "$(hfield g_auto_hi.data callgraph)" = kernel-cfi ] &&
		note g_auto_hi.data | grep -q "auto: at >= 4 kHz the in-kernel walk costs less"
	expect g_auto_high_rate_walks_in_kernel "rc=$rc clock=$(hdr g_auto_hi.data clock) note: $(note g_auto_hi.data)"

	# a shell starting short programs: dash's vfork (its return address in RDI) and the ticks
	# inside an exec (no user stack exists then: the kernel's frames alone) are not cut short
	"$P" record -q -g --clock bpf -F 4999 -o g_exec.data -- sh -c 'for i in $(seq 150); do /bin/true; done'
	rc=$?
	total=$(hfield g_exec.data samples)
	vfork_cut=$("$Q" g_exec.data folded | awk '/^\[truncated\];__vfork;/ { n += $NF } END { print n + 0 }')
	complete=$(count g_exec.data --complete)
	[ $rc -eq 0 ] && [ "${total:-0}" -ge 100 ] && [ "$vfork_cut" -eq 0 ] &&
		in_range "$(ratio "$complete" "$total")" 0.98 1
	expect g_bpf_vfork_exec_complete "rc=$rc complete $complete of $total, cut at __vfork $vfork_cut: $(note g_exec.data)"
	if [ "$(uname -r | awk -F. '{ print ($1 > 6 || ($1 == 6 && $2 >= 10)) }')" = 1 ]; then
		if note g_exec.data | grep -q "stacks walked in the kernel"; then
			note g_exec.data | grep -q "of them in an exec past its point of no return"
			expect g_bpf_exec_ticks_counted "$(note g_exec.data)"
		else # the note is cut at a clause to its 512 bytes: the walk's clause may be the one cut
			skip g_bpf_exec_ticks_counted "the clock note's walk clause was cut: $(note g_exec.data | cut -c1-200)"
		fi
	fi

	# the cross-check: every tick walked both in the kernel and by the recorder's unwinder
	# from the ring's copy, matched tick by tick (thread, time, stack pointer, PC)
	PROFIL_KUNWIND_CROSSCHECK=1 "$P" record -q -g --clock bpf -F 2999 -o g_check.data -- "$ZLIB" 0.4
	rc=$?
	agreed=$(note g_check.data | sed -n 's/.*cross-check: \([0-9]*\) of \([0-9]*\) agree.*/\1/p')
	checked=$(note g_check.data | sed -n 's/.*cross-check: \([0-9]*\) of \([0-9]*\) agree.*/\2/p')
	[ $rc -eq 0 ] && [ "${checked:-0}" -ge 500 ] && [ "$agreed" = "$checked" ]
	expect g_bpf_crosscheck_agrees "rc=$rc agreed=$agreed of $checked: $(note g_check.data)"
fi

# 3. a SIGKILLed program: its stacks are in its profile
"$P" record -q -g -F 1999 -o killed.data -- "$ZLIB" -k -t truth_k 0.5
rc=$?
[ $rc -eq 137 ] && [ "$(hdr killed.data end_kind)" = 2 ] && [ "$(hdr killed.data end_code)" = 9 ]
expect killed_program_status "rc=$rc"
k_total=$(hfield killed.data samples)
[ "$(hfield killed.data callgraph)" = dwarf ] && [ "$(count killed.data --has unwind_zlib_caller_a)" -gt 50 ] &&
	[ "$(count killed.data --has unwind_zlib_worker)" -gt 200 ] &&
	in_range "$(ratio "$(count killed.data --complete)" "$k_total")" 0.99 1
expect killed_program_stacks "$("$Q" killed.data header | head -1)"

# 4. a killed recorder: everything counted before is there, stacks included
bg_record -q -g -o rk.data -- "$ZLIB" 20
n=0
while [ $n -lt 200 ] && [ "$(count rk.data --has unwind_zlib_worker 2>/dev/null || echo 0)" -lt 100 ]; do
	sleep 0.1
	n=$((n + 1))
done
prog=$(pgrep -P $REC)
kill -9 $REC
wait $REC 2>/dev/null
unwatch
[ -n "$prog" ] && kill -9 $prog 2>/dev/null
[ "$(hfield rk.data state)" = 1 ] && [ "$(hfield rk.data callgraph)" = dwarf ] &&
	[ "$(count rk.data --has unwind_zlib_worker --has start_thread)" -ge 100 ] &&
	[ "$(count rk.data --has unwind_zlib_caller_b)" -gt 0 ]
expect killed_recorder_stacks "$("$Q" rk.data header 2>&1 | head -1)"

# 5. fp: the kernel's frame-pointer walk, through a program built with frame pointers
# (a leaf sets up no frame, so the walk goes from hot_a straight to main's caller: the
# frame-pointer chain skips the leaf's caller, as it does everywhere)
"$P" record -q --call-graph fp --clock perf -F 2999 -o fp.data -- "$PROGS/record_prog" hot 1
rc=$?
hot=$(count fp.data --leaf hot_a)
hot_up=$(count fp.data --leaf hot_a --has __libc_start_call_main)
[ $rc -eq 0 ] && [ "$(hfield fp.data callgraph)" = fp ] && note fp.data | grep -q "call stacks: fp" &&
	[ "$hot" -ge 200 ] && in_range "$(ratio "$hot_up" "$hot")" 0.95 1
expect fp_stacks_walk_out "rc=$rc hot_a=$hot, reaching __libc_start_call_main=$hot_up; $("$Q" fp.data header | head -1)"

# 6. attach with -g: the existing mappings come from /proc
"$ZLIB" 20 &
zp=$!
sleep 0.3
"$P" record -q -g -p $zp -o att.data &
ap=$!
watchdog $ap
n=0
while [ $n -lt 200 ] && [ "$(count att.data --has unwind_zlib_caller_b 2>/dev/null || echo 0)" -lt 100 ]; do
	sleep 0.1
	n=$((n + 1))
done
kill -INT $ap
wait $ap
rc=$?
unwatch
kill -9 $zp 2>/dev/null
wait $zp 2>/dev/null
a_total=$(hfield att.data samples)
[ $rc -eq 0 ] && [ "$(hfield att.data callgraph)" = dwarf ] && [ "$(count att.data --has unwind_zlib_caller_b)" -ge 100 ] &&
	in_range "$(ratio "$(count att.data --complete)" "$a_total")" 0.99 1
expect attach_stacks "rc=$rc $("$Q" att.data header 2>&1 | head -1)"

# 7. without perf events (the agent): -g takes the stacks in the sampled thread (libunwind)
if is_asan; then
	skip g_without_perf_agent_stacks "the ASan-built agent cannot be preloaded into uninstrumented programs"
else
	# The thread clock samples at the kernel's tick (250 Hz here): about 500 independent
	# samples of the main thread in 2 s, a binomial sd of 2 points; on a busy machine its
	# split between the callers also drifts low (caller_a 0.32-0.43 against a measured
	# 0.415 with three busy processes beside it, 0.37-0.42 with two; 0.39-0.44 without;
	# the perf clock: 0.344-0.346 against 0.347 with two): 10 points.
	PROFIL_SIMULATE_PERF_ERRNO=EACCES "$P" record -q -g -o agent.data -- "$ZLIB" -t truth_agent 2 2>agent.err
	rc=$?
	total=$(hfield agent.data samples)
	a=$(count agent.data --has unwind_zlib_caller_a)
	b=$(count agent.data --has unwind_zlib_caller_b)
	want=$(truth_share truth_agent)
	got=$(share "$a" "$b")
	[ $rc -eq 0 ] && [ "$(hfield agent.data callgraph)" = libunwind ] && [ $((a + b)) -ge 100 ] &&
		awk -v g="$got" -v w="$want" 'BEGIN { d = g - w; if (d < 0) d = -d; exit !(w > 0 && d <= 0.10) }' &&
		in_range "$(ratio "$(count agent.data --complete)" "$total")" 0.97 1
	expect g_without_perf_agent_stacks "rc=$rc callgraph=$(hfield agent.data callgraph) caller_a=$a caller_b=$b share=$got truth=$want $(cat agent.err)"
fi

# 8. options
"$P" record --help | grep -q -- "--call-graph MODE" && "$P" record --help | grep -q -- "^  -g "
expect help_mentions_call_graph "$("$P" record --help | grep -i call)"
for bad in "--call-graph bogus" "--call-graph dwarf,7" "--call-graph dwarf,x" "--call-graph fp,8192" \
	"--clock itimer --call-graph fp"; do
	rm -f bad.data
	# shellcheck disable=SC2086
	"$P" record $bad -o bad.data -- true 2>bad.err
	rc=$?
	[ $rc -eq 2 ] && [ "$(wc -l <bad.err)" -eq 1 ] && [ ! -e bad.data ]
	expect "bad_option_$(echo "$bad" | tr -c 'a-z0-9\n' _)" "rc=$rc: $(cat bad.err)"
done
"$P" record -q --call-graph dwarf,8190 --clock perf -o small.data -- "$ZLIB" 0.2
rc=$?
[ $rc -eq 0 ] && [ "$(hfield small.data callgraph)" = dwarf ] && note small.data | grep -q "dwarf (8 KiB"
expect dwarf_stack_size_option "rc=$rc note: $(note small.data)"
"$P" record -q -g --call-graph none --clock perf -o none.data -- "$PROGS/record_prog" exit 0
[ "$(hfield none.data callgraph)" = none ] && [ "$(hfield none.data stacked)" = 0 ]
expect call_graph_none_is_flat "$("$Q" none.data header | head -1)"
