#!/bin/sh
# profil record with the agent clocks: ticks the kernel merged (timer overruns) are counted,
# with the tick that carried them, even when the program dies by a signal and runs no exit
# path (issue 12, item 7).  Ground truth: the program's own CPU time; every tick due is a
# sample (or lost: merged into a tick that never reached the sink).
. "$ROOT/tests/e2e/record/common.sh"

if is_asan; then
	skip record_lost "the ASan-built agent cannot be preloaded into uninstrumented programs"
	exit 0
fi

HZ=1000 # above CONFIG_HZ: the kernel merges most ticks into the next one
for clock in thread itimer; do
	for sig in KILL SEGV; do
		f=$clock-$sig.data
		timeout 60 "$P" record -q --clock $clock -F $HZ -o $f -- \
			"$PROGS/record_prog" die $sig 800 >out.txt 2>/dev/null
		rc=$?
		cpu=$(sed -n 's/^cpu_ns=//p' out.txt)
		samples=$(hdr $f samples)
		lost=$(hdr $f lost)
		want=$([ $sig = KILL ] && echo 137 || echo 139)
		due=$(awk -v c="${cpu:-0}" -v hz=$HZ 'BEGIN { printf "%d", c * hz / 1e9 }')
		ratio=$(awk -v s="${samples:-0}" -v l="${lost:-0}" -v d="$due" \
			'BEGIN { if (d == 0) print 0; else printf "%.3f", (s + l) / d }')
		echo "# $clock SIG$sig: cpu_ns=$cpu due=$due samples=$samples lost=$lost ratio=$ratio"
		[ $rc -eq $want ] && in_range "$ratio" 0.75 1.25
		expect "merged_ticks_counted_on_sig${sig}_$clock" \
			"rc=$rc cpu_ns=$cpu due=$due samples=$samples lost=$lost (samples+lost)/due=$ratio"
	done
done
