#!/bin/sh
# profil record --events: the Tracee JSON stream of a recorded process tree
# (fork, exec, exit, prof enable/disable) and of the profil()/sprofil() calls a
# program makes through libprofil, with their exact arguments.
. "$ROOT/tests/e2e/record/common.sh"

# field VALUE-OF-KEY from one JSON line on stdin (flat numeric or string fields)
field() { sed -n "s/.*\"$1\":\"\{0,1\}\([^\",}]*\).*/\1/p" | head -1; }
# arg NAME: the value of args[] entry NAME of one JSON line on stdin
argall() { sed -n "s/.*{\"name\":\"$1\",\"type\":\"[^\"]*\",\"value\":\"\{0,1\}\([^\",}]*\).*/\1/p"; }
arg() { argall "$1" | head -1; }

"$P" record -q -o sh.data --events ev.json -- sh -c "\"$PROGS/record_prog\" exit 3; \"$PROGS/record_prog\" exit 4; exit 5"
rc=$?
[ $rc -eq 5 ]
expect events_status_passthrough "exit status $rc"

# every line is JSON that profil events (json-c) accepts, with Tracee's field names
"$P" events -i ev.json --format json >all.json 2>err.txt
[ $? -eq 0 ] && [ "$(wc -l <all.json)" -eq "$(wc -l <ev.json)" ] && [ -s ev.json ]
expect events_parse_as_json "$(cat err.txt)"
grep -v -c '^{"timestamp":[0-9]*,"threadStartTime":.*"processId":.*"threadId":.*"parentProcessId":.*"processName":.*"hostName":.*"eventId":"[0-9]*","eventName":.*"argsNum":.*"returnValue":.*"args":\[' ev.json >bad.txt
[ "$(cat bad.txt)" = 0 ]
expect events_tracee_fields "$(cat bad.txt) lines without the Tracee fields in order"

# the sequence: the shell's exec + enable, then for each child: fork, enable|inherit,
# disable|exec, exec, enable|exec, disable|exit, exit; then the shell's disable|exit, exit
seq=$(sed -n 's/.*"processId":\([0-9]*\),.*"eventName":"\([a-z_]*\)".*/\2/p' ev.json | tr '\n' ' ')
want="sched_process_exec prof sched_process_fork prof prof sched_process_exec prof prof sched_process_exit sched_process_fork prof prof sched_process_exec prof prof sched_process_exit prof sched_process_exit "
# exits may interleave with the next fork within one poll round: compare the sorted multiset too
[ "$(echo "$seq" | tr ' ' '\n' | sort | tr '\n' ' ')" = "$(echo "$want" | tr ' ' '\n' | sort | tr '\n' ' ')" ]
expect events_lifecycle_counts "got: $seq"

root=$(head -1 ev.json | field processId)
# the run's clock bit in prof FLAGS: CLOCK_BPF (auto as root) or CLOCK_PERF
case "$(hdr sh.data clock)" in 5) cbit=4096 ;; 3) cbit=2048 ;; 1) cbit=1024 ;; *) cbit=0 ;; esac
forks=$(grep '"eventName":"sched_process_fork"' ev.json)
n=0
good=0
for child in $(echo "$forks" | argall child_pid); do
	n=$((n + 1))
	parent=$(echo "$forks" | grep "\"child_pid\",\"type\":\"[^\"]*\",\"value\":$child}" | arg parent_pid)
	exe=$(grep '"eventName":"sched_process_exec"' ev.json | grep "\"processId\":$child," | arg pathname)
	ex=$(grep '"eventName":"sched_process_exit"' ev.json | grep -c "\"processId\":$child,")
	[ "$parent" = "$root" ] && [ "$exe" = "$PROGS/record_prog" ] && [ "$ex" = 1 ] && good=$((good + 1))
done
[ $n -eq 2 ] && [ $good -eq 2 ]
expect events_children_pids_and_parents "$n forks, $good with parent $root, exec of record_prog and one exit"
last=$(tail -1 ev.json)
echo "$last" | grep -q '"eventName":"sched_process_exit"' && [ "$(echo "$last" | field processId)" = "$root" ] &&
	[ "$(echo "$last" | arg exit_code)" = 5 ]
expect events_root_exit_code "$last"
grep '"eventName":"prof"' ev.json | grep "\"processId\":$root," | head -1 | grep -q "\"value\":$((cbit | 5))}" # ENABLE|ON_EXEC|CLOCK
e1=$?
grep '"eventName":"prof"' ev.json | grep "\"processId\":$root," | tail -1 | grep -q "\"value\":$((cbit | 10))}" # DISABLE|ON_EXIT|CLOCK
[ $e1 -eq 0 ] && [ $? -eq 0 ]
expect events_prof_flags_enable_exec_disable_exit "$(grep '"eventName":"prof"' ev.json | grep "\"processId\":$root," | sed 's/.*"args"//' | tr '\n' ' ')"

# calls through libprofil, with their exact arguments and the caller's PC
"$P" record -q -o calls.data --events calls.json -- "$PROGS/recev_caller" >out.txt
rc=$?
[ $rc -eq 0 ]
expect events_caller_ran "exit $rc"
bufaddr=$(sed -n 's/buf=0x\([0-9a-f]*\).*/\1/p' out.txt)
caller=$(sed -n 's/.*caller=0x\([0-9a-f]*\).*/\1/p' out.txt)
first=$(grep '"eventName":"profil"' calls.json | head -1)
b=$(echo "$first" | arg buf)
pc=$(echo "$first" | arg pc)
pcdec=$(printf '%d' "$pc" 2>/dev/null || echo 0)
callerdec=$(printf '%d' "0x$caller")
[ "$(printf '%x' "$b" 2>/dev/null || echo "$b")" = "$bufaddr" ] || [ "$b" = "0x$bufaddr" ]
okbuf=$?
[ $okbuf -eq 0 ] && [ "$(echo "$first" | arg buflen)" = 4096 ] && [ "$(echo "$first" | arg offset)" = 4660 ] &&
	[ "$(echo "$first" | arg scale)" = 32768 ] && [ "$(echo "$first" | field returnValue)" = 0 ] &&
	[ "$pcdec" -gt "$callerdec" ] && [ "$pcdec" -lt $((callerdec + 64)) ]
expect events_profil_call_exact_args "buf=$b (0x$bufaddr) pc=$pc (caller 0x$caller) line: $first"
grep '"eventName":"profil"' calls.json | sed -n 3p | grep -q '"returnValue":-22,'
expect events_profil_einval_return_value "$(grep '"eventName":"profil"' calls.json | sed -n 3p)"
grep '"eventName":"sprofil"' calls.json | head -1 | grep -q '"profcnt","type":"int","value":2}' &&
	grep '"eventName":"sprofil"' calls.json | head -1 | grep -q '"pr_size":256,"pr_off":4194304,"pr_scale":65536'
expect events_sprofil_regions "$(grep '"eventName":"sprofil"' calls.json | head -1 | sed 's/.*"args"//')"
cpid=$(head -1 calls.json | field processId)
# only the caller's own events (an ASan build's leak checker forks a helper)
calls=$(grep -e '"eventName":"prof"' calls.json | grep "\"processId\":$cpid," | grep -o '"name":"FLAGS","type":"unsigned long","value":[0-9]*' | sed 's/.*://' | tr '\n' ' ')
# exec-enable, call-enable (THREAD clock), call-disable, sprofil enable, sprofil disable, exit-disable
case "$(hdr calls.data clock)" in 5) cbit=4096 ;; 3) cbit=2048 ;; 1) cbit=1024 ;; *) cbit=0 ;; esac
echo "$calls" | grep -q "^$((cbit | 5)) 1057 34 17441 16418 $((cbit | 10)) $"
expect events_prof_on_call_sequence "FLAGS sequence: $calls"

# the stream is in time order across processes: two children that end in one poll
# round (the second one first) are written as they ended, not in the order found
sorted=0
for i in 1 2 3; do
	"$P" record -q -o order.data --events order.json -- sh -c 'sleep 0.02 & /bin/true; wait'
	field_ts=$(sed -n 's/^{"timestamp":\([0-9]*\),.*/\1/p' order.json)
	n=$(echo "$field_ts" | wc -l)
	if [ "$n" -ge 10 ] && echo "$field_ts" | sort -c -n 2>/dev/null; then
		sorted=$((sorted + 1))
	else
		break
	fi
done
[ $sorted -eq 3 ]
expect events_in_time_order "run $((sorted + 1)): $(sed -n 's/^{"timestamp":\([0-9]*\),.*"processId":\([0-9]*\),.*"eventName":"\([a-z_]*\)".*/\1 \2 \3/p' order.json | tr '\n' ';')"
