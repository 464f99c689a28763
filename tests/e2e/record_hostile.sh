#!/bin/sh
# Profiles that change while they are read (issue 12): reports of a profile being recorded at a
# high rate (item 3: never a hang), and the agent's shared file overwritten by a process of the
# recorded tree (item 2 in agent mode: the other processes, the recorder and the report survive).
# Every run is bounded by a timeout: status 124 is a hang.
. "$ROOT/tests/e2e/record/common.sh"
TAMPER="$TOOLS/pdata_tamper"

# ---- item 3: reports of a live profile -------------------------------------------------
# The first moments of a recording are when the table changes most between two looks at it
# (the old reader sized its merge table by a first look and looped forever when it filled);
# a tree that keeps starting processes brings new (process, thread, pc) keys all the time.
# 20 recordings, each read while it has just started and again a little later.
clock=thread rate=1000
if perf_usable; then clock=perf rate=50000; fi
WORK='while [ ! -e stop ]; do ls / >/dev/null; /bin/true; done'
hangs=0 bad=0 okruns=0 i=0
while [ $i -lt 20 ]; do
	rm -f stop live.data
	timeout 120 "$P" record -q --clock $clock -F $rate -o live.data -- sh -c "$WORK" \
		2>rec.err &
	REC=$!
	n=0
	while [ ! -s live.data ] && [ $n -lt 400 ]; do sleep 0.01; n=$((n + 1)); done
	for pause in 0 0.01 0.05 0.2; do
		sleep $pause
		timeout 20 "$P" report -i live.data --threads >rep.out 2>rep.err
		rc=$?
		if [ $rc -eq 124 ]; then
			hangs=$((hangs + 1))
		elif [ $rc -ne 0 ] && [ "$(wc -l <rep.err)" -ne 1 ]; then
			bad=$((bad + 1))
			echo "# recording $i: status $rc: $(head -3 rep.err)"
		elif [ $rc -eq 0 ]; then
			okruns=$((okruns + 1))
			last=$(grep -m1 '^# total' rep.out)
		fi
	done
	touch stop
	wait $REC || bad=$((bad + 1))
	i=$((i + 1))
done
echo "# live: $hangs of 80 reports hung, $bad failed badly, $okruns read; the last: $last"
[ $hangs -eq 0 ] && [ $bad -eq 0 ] && [ $okruns -ge 20 ]
expect "live_reports_$clock" "80 reports at $rate Hz: $hangs hung, $bad failed, $okruns read $(cat rec.err)"

# ---- item 2, agent mode: a process of the tree overwrites the layout of the shared file ----
if is_asan; then
	skip agent_tamper "the ASan-built agent cannot be preloaded into uninstrumented programs"
	exit 0
fi
rm -f go pid status
# a CPU-bound process that keeps sampling across the tamper (the old agent read table_slots
# live: SIGSEGV), and a shell that forks and execs all the time (new process records appended
# with the hostile records_used, new agents opening the hostile header)
TREE='"$1" forever pid & p=$!
while [ ! -e go ]; do /bin/true; done
kill $p; wait $p 2>/dev/null; echo "forever=$?" >status'
timeout 60 "$P" record -q --clock thread -F 1000 -o tamper.data -- \
	sh -c "$TREE" sh "$PROGS/record_prog" >tamper.out 2>tamper.err &
REC=$!
wait_file pid
sleep 0.2
"$TAMPER" tamper.data table_off=-94208 table_slots=0x80000000 records_off=-4096 \
	records_cap=-1 records_used=-16
sleep 0.5
touch go
wait $REC
rc=$?
timeout 20 "$P" report -i tamper.data >rep.out 2>rep.err
rrc=$?
echo "# tamper: $(cat status) $("$DUMP" tamper.data | head -1) $(grep -m1 '^# total' rep.out)"
[ $rc -eq 0 ] && [ "$(cat status)" = forever=143 ] && [ $rrc -eq 0 ] && [ -s rep.out ]
expect agent_tamper "record status $rc, $(cat status) (143: SIGTERM, as sent; 139: it crashed) $(head -3 tamper.err); report status $rrc $(head -3 rep.err)"

# ... and one that cuts the file short: the processes that keep sampling into it survive (their
# accesses run under the fault guard), the recorder says so in one sentence instead of dying of
# SIGBUS
rm -f go pid status
timeout 60 "$P" record -q --clock thread -F 1000 -o trunc.data -- \
	sh -c "$TREE" sh "$PROGS/record_prog" >trunc.out 2>trunc.err &
REC=$!
wait_file pid
sleep 0.2
truncate -s 4096 trunc.data
sleep 0.5
touch go
wait $REC
rc=$?
echo "# truncate: record status $rc, $(cat status), stderr: $(cat trunc.err)"
[ $rc -eq 1 ] && [ "$(cat status)" = forever=143 ] && [ "$(wc -l <trunc.err)" -eq 1 ] &&
	grep -q "trunc.data was truncated" trunc.err
expect agent_truncated "record status $rc (1 and one sentence), $(cat status) (143: SIGTERM, as sent; 135: SIGBUS) $(cat trunc.err)"
