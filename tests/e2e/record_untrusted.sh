#!/bin/sh
# What a profiled program maps is untrusted (issue 16): hostile CFI, files swapped at a
# library's path, devices behind links.  The recorder stays bounded and the program behaves as
# without it.  Every run is bounded by a timeout: status 124 is a hang (the test fails, the
# suite goes on).
. "$ROOT/tests/e2e/record/common.sh"
H="$PROGS/hostile_objects"

if ! perf_usable; then
	skip record_untrusted "the perf clock is not usable here"
	exit 0
fi

# ---- item 3: an 8 MB .eh_frame (four FDEs of 2 M DW_CFA_nop and 8,192 rows) -----------------
# It used to cost the recorder ~55 s; now the FDEs are refused before they run and the samples
# in them end as counted truncations.  (Its cost, measured: `make unwind-bench`, not here.)
timeout 60 "$P" record -q -g -o cfi.data -- "$H" cfi "$T/hostile.so" 0.3 >cfi.out 2>cfi.err
rc=$?
"$P" report -i cfi.data >cfi.rep 2>&1
bound=$(sed -n 's/.*CFI over a size bound \([0-9]*\).*/\1/p' cfi.rep | head -1)
[ $rc -eq 0 ] && grep -q '^cpu=' cfi.out && [ "${bound:-0}" -ge 30 ]
expect cfi_over_bound "rc=$rc (124: hung) bound=${bound:-none} $(cat cfi.err) $(grep '^# clock' cfi.rep)"

Q="$TOOLS/stack_query"
LA="$PROGS/libswap_a.so"
LB="$PROGS/libswap_b.so"
# complete_in FILE OBJ MIN CALLER: of the samples whose leaf is in OBJ (at least MIN), those
# complete and through CALLER, the program's function that called into OBJ (a frame-pointer
# step, all that is left without the library's CFI, skips it), as "n/m"; 95 % or more
complete_in() {
	n=$("$Q" "$1" count --in "$2")
	c=$("$Q" "$1" count --in "$2" --complete --has "$4")
	echo "$c/$n"
	[ "${n:-0}" -ge "$3" ] && [ $((c * 100)) -ge $((n * 95)) ]
}

# ---- item 5: the same path rewritten with a new inode between two dlopens ------------------
# The unwinder's objects are what was mapped (build id, else device and inode), not paths: the
# second library gets its own CFI (it used to get the first one's, and end "no CFI").
timeout 60 "$P" record -q -g -o swap.data -- "$H" swap "$T/libswap.so" "$LA" "$LB" 1 >swap.out
rc=$?
got=$(complete_in swap.data libswap 400 run_swap)
expect swap_both_unwound "rc=$rc complete/samples in libswap: $got"

# ---- item 4: a FIFO at the library's path (the recorder must not block in open()) ------------
rm -f "$T/libfifo.so"
timeout 60 "$P" record -q -g -o fifo.data -- "$H" fifo "$T/libfifo.so" "$LA" 0.5 >fifo.out
rc=$?
[ $rc -eq 0 ] && grep -q '^cpu=' fifo.out
expect fifo_no_hang "rc=$rc (124: hung) $(cat fifo.out)"
if [ "$(id -u)" = 0 ]; then
	# root reads the mapped inode itself (/proc/PID/map_files): the CFI is still there
	got=$(complete_in fifo.data libfifo 200 run_gone)
	expect fifo_unwound_from_mapped_inode "complete/samples in libfifo: $got"
fi

# ---- item 4: SIGTERM ends a recording within a second, the profile complete -----------------
rm -f "$T/libfifo.so" term.out
env --default-signal=INT,TERM "$P" record -q -g -o term.data -- "$H" fifo "$T/libfifo.so" \
	"$LA" 20 >term.out &
REC=$!
watchdog $REC
wait_file term.out
sleep 0.5
kill -TERM $REC
t0=$(date +%s%N)
wait $REC
rc=$?
t1=$(date +%s%N)
unwatch
ms=$(((t1 - t0) / 1000000))
samples=$("$Q" term.data header | sed -n 's/.*samples=\([0-9]*\).*/\1/p' | head -1)
# the bound is generous (a busy machine); the issue saw 648 s
[ $ms -lt 5000 ] && [ "${samples:-0}" -gt 0 ] && "$P" report -i term.data >/dev/null
expect sigterm_ends_recording "status $rc after ${ms} ms, ${samples:-no} samples"

# ---- item 8: libraries deleted soon after use --------------------------------------------------
# 30 libraries, each loaded, run 30 ms, closed and deleted (41.7 % complete stacks before).
if [ "$(id -u)" = 0 ]; then
	timeout 60 "$P" record -q -g -o churn.data -- "$H" churn "$T/libchurn" "$LA" 30 0.03 \
		>churn.out
	rc=$?
	got=$(complete_in churn.data libchurn 300 run_churn)
	expect deleted_libraries_unwound "rc=$rc complete/samples: $got"
fi

# ---- item 8: the summary and the note ------------------------------------------------------
# two recorders on one -o: the second moves the first's file to .old, and the first says so
timeout 60 "$P" record -o two.data -- "$H" deleted "$T/l1.so" "$LA" 1.5 >/dev/null 2>two1.err &
R1=$!
sleep 0.5
timeout 60 "$P" record -o two.data -- "$H" deleted "$T/l2.so" "$LA" 0.2 >/dev/null 2>two2.err
wait $R1
grep -q ' two\.data\.old (' two1.err && grep -q ' two\.data (' two2.err
expect two_recorders_name_their_file "first: $(tail -1 two1.err); second: $(tail -1 two2.err)"

# no samples: no "100.00 % complete"
timeout 60 "$P" record -g -o zero.data -- true 2>zero.err
grep -q 'call stacks (none taken)' zero.err && ! grep -q '% complete' zero.err
expect zero_samples_no_completeness "$(cat zero.err)"

# a stopped recorder loses ring samples: they are "lost", not also "not taken by the kernel"
# (stopped long enough for its rings to overflow; the program's CPU time depends on the load)
lost=0
for stop in 1.2 2.5 5; do
	env --default-signal=INT,TERM "$P" record -g -o stop.data -- "$H" deleted "$T/l3.so" "$LA" \
		3 >/dev/null 2>stop.err &
	REC=$!
	watchdog $REC
	sleep 0.5
	kill -STOP $REC
	sleep $stop
	kill -CONT $REC
	wait $REC
	unwatch
	lost=$(sed -n 's/.* \([0-9]*\) lost,.*/\1/p' stop.err | tail -1)
	[ "${lost:-0}" -gt 0 ] && break
done
if [ "${lost:-0}" -gt 0 ]; then
	"$P" report -i stop.data >stop.rep 2>&1
	# a busy machine's timer also runs late ("did not take N"): other samples, never the
	# lost ones again (the defect said "N not taken" and "N lost" for the same N)
	untaken=$(sed -n 's/.*did not take \([0-9]*\) samples.*/\1/p' stop.err | tail -1)
	[ "${untaken:-0}" -ne "$lost" ]
	expect lost_not_counted_twice "lost=$lost: $(tail -1 stop.err) \
$(grep -o '[0-9]* samples not taken[^;]*' stop.rep)"
else
	skip lost_not_counted_twice "no ring overflowed while the recorder was stopped"
fi
