#!/bin/sh
# profil watch (eBPF): start it, wait until it says it is ready, run
# tests/progs/events_profiled (glibc profil/sprofil, setitimer, perf_event_open,
# timer_create, fork, exit 7; then a profiled exec), stop it with SIGINT and
# check every event with its exact arguments, pids and the prof sequence.
. "$ROOT/tests/lib.sh"

PROG="$B/tests/progs/events_profiled"
W1= W2=
cleanup() {
	for p in $W1 $W2; do kill -TERM "$p" 2>/dev/null; done
	rm -rf "$T"
}
trap cleanup EXIT

if [ "$(id -u)" -ne 0 ]; then
	echo "skip events_watch: needs root (eBPF), running as uid $(id -u)"
	exit 0
fi
"$PROFIL" watch --duration 0.01 >/dev/null 2>"$T/probe.err"
if grep -q "built without BPF support" "$T/probe.err"; then
	echo "skip events_watch: $(cat "$T/probe.err")"
	exit 0
fi

# --- privileges: one sentence, exit 2 --------------------------------------------
if command -v setpriv >/dev/null; then
	setpriv --reuid=65534 --regid=65534 --clear-groups --inh-caps=-all "$PROFIL" watch --duration 1 \
		>/dev/null 2>"$T/priv.err"
	rc=$?
	if [ $rc -eq 2 ] && [ "$(wc -l <"$T/priv.err")" -eq 1 ] &&
		grep -q "needs root or CAP_BPF and CAP_PERFMON (missing: CAP_BPF CAP_PERFMON)" "$T/priv.err"; then
		ok "unprivileged: one sentence naming the missing capabilities, exit 2"
	else
		no "unprivileged: one sentence, exit 2" "rc=$rc: $(cat "$T/priv.err")"
	fi
else
	echo "skip unprivileged run: setpriv not installed"
fi

# --- run two watchers: everything as JSON, and a filtered table ----------------------
wait_ready() { # stderr file, pid: bounded wait for the readiness line
	[ -f "$1" ] || : >>"$1"
	i=0
	while ! grep -q "^profil watch: ready" "$1"; do
		kill -0 "$2" 2>/dev/null || return 1
		i=$((i + 1))
		[ $i -gt 600 ] && return 1
		sleep 0.05
	done
}
"$PROFIL" watch -o "$T/all.json" --duration 120 --lib "$B/tests/progs/events_ownprofil" 2>"$T/w1.err" &
W1=$!
"$PROFIL" watch --event prof --comm events_profiled --format table -o "$T/prof.table" --duration 120 \
	2>"$T/w2.err" &
W2=$!
if ! wait_ready "$T/w1.err" $W1 || ! wait_ready "$T/w2.err" $W2; then
	no "watch ready" "$(cat "$T/w1.err" "$T/w2.err")"
	exit 0
fi
ok "watch ready (readiness line on stderr)"
grep -q "probed in: .*libc.so.6" "$T/w1.err" && ok "glibc probed" || no "glibc probed" "$(cat "$T/w1.err")"

"$PROG" >"$T/prog.out"
prc=$?
"$PROG" exec /bin/true >"$T/exec.out"
erc=$?
"$B/tests/progs/events_ownprofil" >"$T/own.out"
orc=$?
IA32="$B/tests/progs/events_ia32"
ia32_why=
if [ ! -x "$IA32" ]; then
	ia32_why="events_ia32 not built (no clang)"
else
	"$IA32" >"$T/ia32.out" 2>"$T/ia32.err" &
	IPID=$!
	wait $IPID
	irc=$?
	[ $irc -ne 0 ] && ia32_why="the 32-bit program did not run (status $irc: $(cat "$T/ia32.err")); no IA32 emulation?"
fi
kill -INT $W1 $W2
wait $W1
w1rc=$?
wait $W2
w2rc=$?
W1= W2=
expect "test program exit status" "$prc $erc $orc" "7 0 0"
expect "watch exits 0 on SIGINT" "$w1rc $w2rc" "0 0"

val() { sed -n "s/^$1=//p" "$2"; }
PID=$(val pid "$T/prog.out")
CHILD=$(val child "$T/prog.out")
EPID=$(val pid "$T/exec.out")

# every line must be a Tracee JSON event (profil events parses strictly)
"$PROFIL" events -i "$T/all.json" >/dev/null 2>"$T/parse.err" && ok "output is Tracee JSON lines" ||
	no "output is Tracee JSON lines" "$(cat "$T/parse.err")"
"$PROFIL" events -i "$T/all.json" --pid "$PID" --format table >"$T/pid.table"
"$PROFIL" events -i "$T/all.json" --pid "$PID" >"$T/pid.json"
# columns: TIME PID TID COMM EVENT RET ARGS...
rows() { awk -v ev="$1" '$5 == ev { $1 = ""; $2 = ""; $3 = ""; $4 = ""; $5 = ""; sub(/^ +/, ""); print }' "$2"; }

# --- profil(): exact arguments, pc inside call_profil ----------------------------------
BUF=$(val buf "$T/prog.out")
BASE=$(val call_profil "$T/prog.out")
row=$(rows profil "$T/pid.table" | head -1)
expect "profil args buf/buflen/offset/scale, return 0" \
	"$(echo "$row" | sed 's/ pc=.*//')" "0 buf=$BUF buflen=4096 offset=0x1234 scale=32768"
pc=$(echo "$row" | sed -n 's/.* pc=\(0x[0-9a-f]*\).*/\1/p')
d=$((${pc:-0} - ${BASE:-0}))
if [ -n "$pc" ] && [ $d -gt 0 ] && [ $d -lt 64 ]; then
	ok "profil pc is the return address inside the caller (+$d)"
else
	no "profil pc inside the caller" "pc=$pc call_profil=$BASE"
fi
expect "profil(NULL) seen" "$(rows profil "$T/pid.table" | sed -n 2p | sed 's/ pc=.*//')" \
	"0 buf=0x0 buflen=0 offset=0x0 scale=0"
grep -q '{"name":"buflen","type":"unsigned long","value":4096},{"name":"offset","type":"unsigned long","value":4660},{"name":"scale","type":"unsigned int","value":32768}' \
	"$T/pid.json" && ok "profil JSON args" || no "profil JSON args" "not found"

# --- sprofil(): regions copied ---------------------------------------------------------
R0=$(($(val rbuf0 "$T/prog.out") + 0)) R1=$(($(val rbuf1 "$T/prog.out") + 0))
expect "sprofil args and regions" \
	"$(rows sprofil "$T/pid.table" | head -1 | sed 's/ tvp=0x[0-9a-f]*//; s/ pc=0x[0-9a-f]*//')" \
	"0 profp=$(val regions "$T/prog.out") profcnt=2 flags=1 regions=[{\"pr_base\":$R0,\"pr_size\":2048,\"pr_off\":4194304,\"pr_scale\":65536},{\"pr_base\":$R1,\"pr_size\":2048,\"pr_off\":139637976727552,\"pr_scale\":16384}]"

# --- syscalls --------------------------------------------------------------------------
expect "setitimer(ITIMER_PROF, 20 ms)" "$(rows setitimer "$T/pid.table" | grep -c '^0 which=2 interval_us=20000 value_us=20000$')" 1
expect "glibc profil's setitimer(ITIMER_PROF, 10 ms)" "$(rows setitimer "$T/pid.table" | grep -c '^0 which=2 interval_us=10000 value_us=10000$')" 1
expect "perf_event_open task-clock sampling, fd returned" \
	"$(rows perf_event_open "$T/pid.table")" \
	"$(val perf_fd "$T/prog.out") pid=0 cpu=-1 group_fd=-1 flags=8 type=1 config=1 sample_period=1000000 sample_freq=0"
expect "timer_create: only the CPU clock one" \
	"$(rows timer_create "$T/pid.table")" \
	"0 clockid=-6 clock=CPUCLOCK_PROCESS(self,SCHED) sigev_notify=1 sigev_signo=0 sigev_tid=0"

# --- prof sequence ---------------------------------------------------------------------
rows prof "$T/pid.table" | sed 's/^0 //' >"$T/prof.seq"
cat >"$T/prof.expected" <<EOS
FLAGS=ENABLE|CLOCK_ITIMER EVENTS=[ITIMER_PROF]
FLAGS=DISABLE|ON_CALL|CLOCK_ITIMER EVENTS=[ITIMER_PROF]
FLAGS=ENABLE|CLOCK_ITIMER EVENTS=[ITIMER_PROF]
FLAGS=DISABLE|ON_CALL|CLOCK_ITIMER|SPROFIL EVENTS=[ITIMER_PROF]
FLAGS=ENABLE|CLOCK_ITIMER EVENTS=[ITIMER_PROF]
FLAGS=ENABLE|CLOCK_ITIMER|CLOCK_PERF EVENTS=[ITIMER_PROF,PERF:1:1]
FLAGS=ENABLE|CLOCK_ITIMER|CLOCK_PROCESS|CLOCK_PERF EVENTS=[ITIMER_PROF,PERF:1:1,CPUCLOCK_PROCESS_SCHED]
FLAGS=DISABLE|ON_EXIT|CLOCK_ITIMER|CLOCK_PROCESS|CLOCK_PERF EVENTS=[ITIMER_PROF,PERF:1:1,CPUCLOCK_PROCESS_SCHED]
EOS
if cmp -s "$T/prof.seq" "$T/prof.expected"; then ok "prof enable/disable sequence"; else
	no "prof enable/disable sequence" "$(diff "$T/prof.expected" "$T/prof.seq" | tr '\n' ' ')"
fi
grep -q '"eventId":"482","eventName":"prof".*{"name":"FLAGS","type":"unsigned long","value":2826},{"name":"EVENTS","type":"unsigned int\[\]","value":\[16777218,50397185,41943042\]}' "$T/pid.json" &&
	ok "prof DISABLE|ON_EXIT JSON: FLAGS 2826, EVENTS encoded" || no "prof DISABLE|ON_EXIT JSON" "not found"
expect "last two events: prof DISABLE|ON_EXIT, then exit status 7" \
	"$(tail -2 "$T/pid.table" | awk '{ printf("%s%s %s", (NR > 1 ? " " : ""), $5, $7) }' | sed 's/|CLOCK[^ ]*//')" \
	"prof FLAGS=DISABLE|ON_EXIT sched_process_exit exit_code=7"

# --- fork: child not profiled (no inheritable source), its exit -------------------------
expect "sched_process_fork" "$(rows sched_process_fork "$T/pid.table" | sed 's/ start_time=.*//')" \
	"0 parent_tid=$PID parent_pid=$PID child_tid=$CHILD child_pid=$CHILD"
"$PROFIL" events -i "$T/all.json" --pid "$CHILD" --format table >"$T/child.table"
expect "child: prof DISABLE|INHERIT_FORK, then exit 3" \
	"$(tail -n +2 "$T/child.table" | awk '{ printf("%s%s %s", (NR > 1 ? " " : ""), $5, $7) }')" \
	"prof FLAGS=DISABLE|INHERIT_FORK sched_process_exit exit_code=3"

# --- exec ends profiling -----------------------------------------------------------------
"$PROFIL" events -i "$T/all.json" --pid "$EPID" --format table >"$T/exec.table"
expect "exec: prof DISABLE|ON_EXEC, then sched_process_exec /bin/true" \
	"$(tail -2 "$T/exec.table" | awk '{ printf("%s%s %s", (NR > 1 ? " " : ""), $5, $7) }')" \
	"prof FLAGS=DISABLE|ON_EXEC|CLOCK_ITIMER sched_process_exec pathname=/bin/true"

# --- --lib: profil() of another library/program ------------------------------------------
grep -q "probed in: .*events_ownprofil" "$T/w1.err" && ok "--lib probed" || no "--lib probed" "$(cat "$T/w1.err")"
"$PROFIL" events -i "$T/all.json" --pid "$(val pid "$T/own.out")" --format table >"$T/own.table"
expect "--lib: profil args and return value" \
	"$(rows profil "$T/own.table" | sed 's/ pc=.*//')" \
	"0 buf=$(val buf "$T/own.out") buflen=1024 offset=0x400000 scale=65536"
expect "--lib: no clock seen: prof ENABLE with empty EVENTS ... DISABLE|ON_EXIT at exit 0" \
	"$(awk '$5 != "profil" && NR > 1 { printf("%s%s %s %s", (n++ ? " " : ""), $5, $7, $8) }' "$T/own.table" | sed 's/ signal=0//')" \
	"prof FLAGS=ENABLE EVENTS=[] prof FLAGS=DISABLE|ON_EXIT EVENTS=[] sched_process_exit exit_code=0"

# --- a 32-bit task calling the i386 profil syscall (98): Tracee's own event ---------------
if [ -n "$ia32_why" ]; then
	echo "skip i386 profil syscall: $ia32_why"
else
	"$PROFIL" events -i "$T/all.json" --pid "$IPID" >"$T/ia32.json"
	"$PROFIL" events -i "$T/all.json" --pid "$IPID" --format table >"$T/ia32.table"
	row=$(rows profil "$T/ia32.table")
	expect "i386 profil syscall: args, -ENOSYS" \
		"$(echo "$row" | sed 's/ pc=.*//')" \
		"-38 buf=$(printf '0x%x' "$(val buf "$T/ia32.out")") buflen=128 offset=0x1234 scale=32768"
	pc=$(echo "$row" | sed -n 's/.* pc=\(0x[0-9a-f]*\).*/\1/p')
	if [ -n "$pc" ] && [ $((pc)) -ge $((0x8048000)) ] && [ $((pc)) -lt $((0x8100000)) ]; then
		ok "i386 profil syscall: pc in the program's text ($pc)"
	else
		no "i386 profil syscall: pc in the program's text" "pc=$pc"
	fi
	expect "i386 profil syscall: isCompat, syscall name, no prof event" "$(grep -c '"syscall":"profil".*"isCompat":true' "$T/ia32.json") $(grep -c '"eventName":"profil"' "$T/ia32.json") $(grep -c '"eventName":"prof"' "$T/ia32.json")" \
		"1 1 0"
fi

# --- the filtered watcher ------------------------------------------------------------------
expect "filtered watch: only prof rows of events_profiled (10)" "$(tail -n +2 "$T/prof.table" | wc -l) $(tail -n +2 "$T/prof.table" | awk '$4 == "events_profiled" && $5 == "prof"' | wc -l)" \
	"10 10"
grep -q events_lost "$T/all.json" && echo "# note: watch reported lost events: $(grep -c events_lost "$T/all.json")"

# --- a full ring buffer is reported, never silent ------------------------------------------
"$PROFIL" watch -o "$T/small.json" --ringbuf-kb 4 --duration 120 2>"$T/w3.err" &
W1=$!
if ! wait_ready "$T/w3.err" $W1; then
	no "small ring buffer watch ready" "$(cat "$T/w3.err")"
	exit 0
fi
"$PROG" burst 5000 >"$T/burst.out"
kill -INT $W1
wait $W1
W1=
BPID=$(val pid "$T/burst.out")
got=$("$PROFIL" events -i "$T/small.json" --pid "$BPID" --event setitimer | wc -l)
lost=$("$PROFIL" events -i "$T/small.json" --event events_lost |
	sed -n 's/.*{"name":"count","type":"unsigned long","value":\([0-9]*\)}.*/\1/p' |
	awk '{ s += $1 } END { print s + 0 }')
if [ "$lost" -gt 0 ] && [ "$got" -lt 5000 ] && [ $((got + lost)) -ge 5000 ]; then
	ok "4 KiB ring buffer: $got setitimer events received + $lost reported lost >= 5000"
else
	no "drops reported as events_lost" "received $got, lost $lost, of 5000"
fi
grep -q "events lost (ring buffer full)" "$T/w3.err" && ok "drops also said on stderr" ||
	no "drops also said on stderr" "$(cat "$T/w3.err")"
exit 0
