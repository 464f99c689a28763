#!/bin/sh
# profil record with the agent clocks: ticks the kernel merged (timer overruns) are counted as
# lost even when the program dies by a signal and runs no exit path (issue 12, item 7).
# Ground truth: the program's own CPU time; every tick due is either a sample or lost.
. "$ROOT/tests/e2e/record/common.sh"

if is_asan; then
	skip record_lost "the ASan-built agent cannot be preloaded into uninstrumented programs"
	exit 0
fi

HZ=1000 # above CONFIG_HZ: the kernel merges most ticks, so most are lost
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
		[ $rc -eq $want ] && [ "${lost:-0}" -gt 0 ] && in_range "$ratio" 0.75 1.25
		expect "lost_on_sig${sig}_$clock" \
			"rc=$rc cpu_ns=$cpu due=$due samples=$samples lost=$lost (samples+lost)/due=$ratio"
	done
done
