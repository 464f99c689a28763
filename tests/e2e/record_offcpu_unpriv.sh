#!/bin/sh
# profil record --off-cpu without BPF: as nobody, each thread's off-CPU
# total from its switch records (no stacks), said in one line, and its
# CPU + off-CPU against its lifetime and what the program measured; with
# the agent's clocks, one sentence that off-CPU time is not recorded (and
# the program's sleeps as long as asked), never a silent zero.
. "$ROOT/tests/e2e/record/common.sh"
PROG="$PROGS/offcpu_prog"

# ---- as nobody: the perf session's switch records ---------------------------
mkdir -p u && chmod 777 u && chmod 711 "$T"
if [ "$(id -u)" = 0 ] && command -v setpriv >/dev/null &&
	setpriv --reuid=65534 --regid=65534 --clear-groups "$P" record -q --clock perf \
		-o "$T/u/probe.data" -- true 2>/dev/null; then
	OFFCPU_TRUTH=$T/u/mix.truth setpriv --reuid=65534 --regid=65534 --clear-groups \
		"$P" record --off-cpu -o "$T/u/mix.data" -- "$PROG" mix 200 >/dev/null 2>u.err
	rc=$?
	grep -q "^profil record: --off-cpu: .*each thread's off-CPU total only, without stacks" u.err
	expect unpriv_says_what_is_missing "rc=$rc $(cat u.err)"
	"$DUMP" u/mix.data >u.dump
	grep -q '^offcpu header .*source=switch' u.dump && grep -q '^note topic=off-cpu .*no stacks' u.dump
	expect unpriv_source_switch "$(grep -e '^offcpu' -e '^note topic' u.dump)"
	bad=$(awk '$1=="thread" { for (i=2;i<=NF;i++) { split($i,a,"="); v[a[1]]=a[2] }
		s=v["cpu_ns"]+v["offcpu_ns"]; if (v["life_ns"] == 0 || s > v["life_ns"] * 1.02 + 2000000 || s < v["life_ns"] * 0.85) print }' u.dump)
	[ -z "$bad" ] && [ "$(grep -c '^thread' u.dump)" -ge 3 ]
	expect unpriv_lifetimes_add_up "$bad $(grep '^thread' u.dump)"
	# the main thread: its four functions' measured off-CPU time, and the time between them
	want=$(awk '$1=="truth" { split($5,a,"="); s+=a[2] } END { print s+0 }' u/mix.truth)
	pid=$(awk '$1=="proc" && $0 ~ /offcpu_prog$/ { split($4,a,"="); print a[2]; exit }' u.dump)
	got=$(awk -v t="$pid" '$1=="thread" && $3=="tid="t { for (i=2;i<=NF;i++) { split($i,a,"="); v[a[1]]=a[2] } print v["offcpu_ns"] }' u.dump)
	awk -v w="$want" -v g="${got:-0}" 'BEGIN { exit !(g >= w * 0.9 && g <= w * 1.1 + 60000000) }'
	expect unpriv_main_thread_offcpu "main thread ${got}ns off the CPU, its functions measured ${want}ns"
	"$P" report -i u/mix.data >u.txt
	grep -q '\[off-cpu\] *\[off-cpu\]$' u.txt && grep -q '^# off-cpu: switch' u.txt
	expect unpriv_report_off_cpu_rows "$(sed -n '/^# off-cpu/p; /off-cpu\]/p' u.txt)"
else
	skip unpriv "cannot run the recorder as nobody here"
fi

# ---- the agent's clocks: not recorded, said once; the sleeps are the program's ----
if ! is_asan && [ -f "$B/libprofil-agent.so" ]; then
	for c in thread itimer; do
		rm -f $c.truth
		OFFCPU_TRUTH=$T/$c.truth "$P" record --clock $c --off-cpu -o $c.data -- "$PROG" sleep 200 \
			>/dev/null 2>$c.err
		rc=$?
		w=$(awk '$2=="func=sleep_fn" { split($3,a,"="); print a[2] }' $c.truth)
		[ $rc -eq 0 ] && [ "${w:-0}" -ge 200000000 ] &&
			grep -q "^profil record: --off-cpu: the $c clock cannot see time off the CPU" $c.err &&
			"$DUMP" $c.data | grep -q '^offcpu header .*source=none' &&
			"$P" report -i $c.data | grep -q "^# off-cpu: none (not recorded: the $c clock"
		expect "agent_${c}_says_not_recorded" "rc=$rc slept ${w}ns; $(cat $c.err)"
	done
else
	skip agent_clocks "no agent in this build"
fi
