#!/bin/sh
# profil record -a: the whole machine.  Two busy processes profil is not told
# about, found with their CPU time (the truth: their schedstat, read by the
# recorded command itself, so inside the recording) and their functions; a
# process in a cgroup the test makes, found by --sort cgroup, --cgroup and
# pprof labels; a process in its own pid and mount namespaces (unshare) whose
# program exists only in its private /tmp, named through /proc/PID/root; the
# profile's mode; --rotate's periods against the whole; bad input.  Other
# jobs run on this machine: every assertion is about the test's own pids.
. "$ROOT/tests/e2e/record/common.sh"
SPIN="$PROGS/system_spin"
# the header and the records only: a whole machine's samples name too many objects to look up
records() { "$TOOLS/pdata_dump" --records "$1"; }
hdr() {
	records "$1" | awk -v k="$2" '/^header /{for(i=2;i<=NF;i++){split($i,a,"="); if(a[1]==k) print a[2]}}'
}

if ! "$P" record -a -q -o probe.data --duration 0.2 2>probe.err; then
	if grep -q "needs root" probe.err; then
		skip record_system "$(head -1 probe.err)"
		exit 0
	fi
	nok system_runs "$(cat probe.err)"
	exit 1
fi
pids=""
cleanup() {
	[ -n "$pids" ] && kill -KILL $pids 2>/dev/null
	[ -n "$CG" ] && [ -d "$CG" ] && rmdir "$CG" "$(dirname "$CG")" 2>/dev/null
	rm -rf "$T"
}
trap cleanup EXIT

# pid_seconds FILE PID: the process's seconds in the profile
pid_seconds() {
	"$P" report -i "$1" --sort pid --format csv --pid "$2" | awk -F, 'NR > 1 { s += $4 } END { print s + 0 }'
}
# top_function FILE PID: the process's function with most samples
top_function() {
	"$P" report -i "$1" --sort pid,sym --format csv --pid "$2" | awk -F, 'NR == 2 { print $2 }'
}
# ns_of FILE: schedstat runtime of the 1st and 2nd line
runtime() { sed -n "${2}p" "$1" | awk '{ print $1 }'; }

# --- two spinning processes profil was not told about --------------------------
# a little ahead of the machine's other jobs, so that they get enough CPU to judge
nice -n -5 "$SPIN" alpha &
A=$!
nice -n -5 "$SPIN" beta &
B=$!
pids="$A $B"
sleep 0.2
"$P" record -a -F 1999 -o sys.data -- sh -c "cat /proc/$A/schedstat /proc/$B/schedstat >before; sleep 3;
	cat /proc/$A/schedstat /proc/$B/schedstat >after" 2>sys.err
rc=$?
kill $A $B 2>/dev/null
wait $A $B 2>/dev/null
pids=""
[ $rc -eq 0 ] && grep -q "the whole machine, [0-9]* CPU" sys.err
expect system_record_runs "rc=$rc $(cat sys.err)"
for who in "A alpha 1" "B beta 2"; do
	set -- $who
	pid=$(eval echo \$$1)
	truth=$(( $(runtime after "$3") - $(runtime before "$3") ))
	got=$(pid_seconds sys.data "$pid")
	fn=$(top_function sys.data "$pid")
	rel=$(awk -v g="$got" -v t="$truth" 'BEGIN { printf "%.3f", (g * 1e9 - t) / t }')
	# at least 0.1 s of CPU (200 samples) to judge: a loaded machine shares its 2 CPUs widely
	[ "$truth" -ge 100000000 ] && in_range "$rel" -0.15 0.15 && [ "$fn" = "spin_$2" ]
	expect "system_finds_spinner_$2" "pid $pid: profile ${got} s, schedstat ${truth} ns (${rel}), function '$fn'"
done
m=$(stat -c %a sys.data)
[ "$m" = 600 ]
expect system_profile_mode_0600 "mode $m"
umask 000
"$P" record -a -q -o open.data --duration 0.2
[ "$(stat -c %a open.data)" = 600 ]
expect system_profile_mode_0600_any_umask "mode $(stat -c %a open.data) with umask 000"
umask 022
[ "$(hdr sys.data flags)" -ge 8 ] && records sys.data | grep -q '^ctx '
expect system_header_and_where "flags $(hdr sys.data flags)"
# kernel threads are named: a child of kthreadd (pid 2) with samples has its name as a row
# (which kernel threads run in 3 s depends on the machine: kworker, rcu_, kdamond, ...)
kpids=$("$DUMP" sys.data | awk '$1 == "proc" && $5 == "ppid=2" {split($4, a, "="); print a[2]}')
named=$("$P" report -i sys.data --sort pid,comm --format csv |
	awk -F, -v k=" $(echo $kpids) " 'index(k, " " $1 " ") && $2 != "" && $2 !~ /^\[/ {print $2; exit}')
[ -n "$named" ]
expect system_kernel_threads_named "kernel thread '$named'; kernel threads in the profile: $(echo $kpids | wc -w); $("$P" report -i sys.data --sort comm --format csv | head -8 | tr '\n' ' ')"

# --- a cgroup made here ---------------------------------------------------------------
CG2=$(awk '$3 == "cgroup2" { print $2; exit }' /proc/self/mounts)
ID=0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef
CG=""
if [ -n "$CG2" ] && mkdir -p "$CG2/profil-test-$$/docker-$ID.scope" 2>/dev/null; then
	CG="$CG2/profil-test-$$/docker-$ID.scope"
	"$SPIN" alpha &
	C=$!
	pids=$C
	echo $C >"$CG/cgroup.procs"
	"$P" record -a -q -o cg.data --duration 1.5
	kill $C
	wait $C 2>/dev/null
	pids=""
	path="/profil-test-$$/docker-$ID.scope"
	"$P" report -i cg.data --sort cgroup | grep -F "$path (docker:0123456789ab)" >cg.line
	expect system_sort_cgroup "$("$P" report -i cg.data --sort cgroup | sed -n '12,20p')"
	"$P" report -i cg.data --cgroup docker:0123456789ab --sort pid --format csv >cg.csv
	[ "$(awk -F, 'NR > 1 { print $1 }' cg.csv | sort -u)" = "$C" ]
	expect system_cgroup_filter_container "$(cat cg.csv)"
	"$P" report -i cg.data --cgroup "/profil-test-$$" --sort pid --format csv >cg2.csv
	[ "$(awk -F, 'NR > 1 { print $1 }' cg2.csv | sort -u)" = "$C" ]
	expect system_cgroup_filter_path "$(cat cg2.csv)"
	if command -v go >/dev/null && "$P" export -i cg.data --format pprof -o cg.pb.gz 2>/dev/null; then
		go tool pprof -tags cg.pb.gz 2>/dev/null >cg.tags
		grep -q "docker:0123456789ab" cg.tags && grep -qF "$path" cg.tags &&
			grep -q " host: " cg.tags && grep -q "$C" cg.tags
		expect system_pprof_labels "$(head -20 cg.tags)"
	else
		skip system_pprof_labels "no go tool pprof"
	fi
	rmdir "$CG" "$CG2/profil-test-$$" 2>/dev/null
	CG=""
else
	skip system_cgroup "no writable cgroup v2 hierarchy"
fi

# --- a process in its own pid and mount namespaces, its program only in its /tmp --------
if unshare --pid --mount --fork true 2>/dev/null; then
	unshare --pid --mount --fork sh -c "mount -t tmpfs none /tmp && cp '$SPIN' /tmp/nsspin &&
		exec /tmp/nsspin beta" &
	U=$!
	pids="$U"
	n=0
	S=""
	# the spinner is unshare's child (pid 1 of its namespace), once it has exec'd
	while [ -z "$S" ] && [ $n -lt 200 ]; do
		c=$(pgrep -P $U | head -1)
		[ -n "$c" ] && [ "$(cat /proc/$c/comm 2>/dev/null)" = nsspin ] && S=$c
		sleep 0.05
		n=$((n + 1))
	done
	pids="$U $S"
	"$P" record -a -q -o ns.data --duration 1.5
	fn=$(top_function ns.data "$S")
	records ns.data >ns.dump
	id=$(awk -v p="$S" '$1 == "proc" { split($4, a, "="); split($2, b, "="); if (a[2] == p) print b[2] }' ns.dump | tail -1)
	grep -q "^ctx proc=$id nspid=1 flags=0x1 " ns.dump && [ "$fn" = spin_beta ]
	expect system_namespaces "pid $S (proc $id): $(grep "^ctx proc=$id " ns.dump); function '$fn'"
	# a namespace's init ignores SIGTERM from outside
	[ -n "$S" ] && kill -KILL "$S"
	wait $U 2>/dev/null
	pids=""
else
	skip system_namespaces "unshare --pid --mount is not permitted here"
fi

# --- --rotate: complete periods that add up to the whole ---------------------------------
"$SPIN" alpha &
R=$!
pids=$R
"$P" record -a -o rot --rotate 1 -- sleep 3.5 2>rot.err
rc=$?
kill $R
wait $R 2>/dev/null
pids=""
n=$(ls rot | wc -l)
total=$(sed -n 's/.* busy: \([0-9]*\) samples.*/\1/p' rot.err)
sum=0
ok_files=1
prev_end=""
for f in rot/profil-*.data; do
	s=$(hdr "$f" samples)
	sum=$((sum + s))
	[ "$(hdr "$f" state)" = 2 ] && "$P" report -i "$f" >/dev/null 2>&1 || ok_files=0
	# no gap, no overlap: each period starts where the one before ended
	start=$(hdr "$f" start_ns)
	[ -n "$prev_end" ] && [ "$start" != "$prev_end" ] && ok_files=0
	prev_end=$(hdr "$f" end_ns)
done
[ $rc -eq 0 ] && [ "$n" -ge 4 ] && [ "$sum" = "$total" ] && [ $ok_files = 1 ]
expect rotate_periods_add_up "rc=$rc $n files, sum $sum, total '$total', files ok $ok_files: $(cat rot.err)"
# each period's samples against the CPUs' busy time the kernel counted in it
bad=""
for f in rot/profil-*.data; do
	s=$(hdr "$f" samples)
	c=$(hdr "$f" cpu_ns)
	p=$(hdr "$f" period_ns)
	in_range "$(awk -v s="$s" -v p="$p" -v c="$c" 'BEGIN { print c ? s * p / c : 0 }')" 0.85 1.15 ||
		bad="$bad $f:$s*$p/$c"
done
[ -z "$bad" ]
expect rotate_periods_against_kernel "$bad"
if command -v go >/dev/null; then
	bad=""
	for f in rot/profil-*.data; do
		"$P" export -i "$f" --format pprof -o p.pb.gz && go tool pprof -raw p.pb.gz >p.raw 2>&1 &&
			grep -q '^PeriodType: cpu nanoseconds' p.raw || bad="$bad $f"
	done
	[ -z "$bad" ]
	expect rotate_pprof_reads "$bad $(head -5 p.raw)"
fi
"$P" record -a -q -o keep --rotate 1 --keep 2 -- sleep 3.5
[ "$(ls keep | wc -l)" = 2 ]
expect rotate_keep "$(ls keep)"

# --- bad input: one sentence, exit 2 ------------------------------------------------------
if command -v setpriv >/dev/null && [ "$(id -u)" = 0 ] && [ "$(cat /proc/sys/kernel/perf_event_paranoid)" -gt 0 ]; then
	setpriv --reuid=nobody --regid=nogroup --clear-groups --inh-caps=-all "$P" record -a -o /tmp/never.data -- true 2>np.err
	rc=$?
	[ $rc -eq 2 ] && [ "$(wc -l <np.err)" = 1 ] && grep -q "CAP_PERFMON" np.err && [ ! -e /tmp/never.data ]
	expect system_unprivileged "rc=$rc $(cat np.err)"
fi
for bad in "-a -p 1" "--rotate 1 -- true" "-a -C 4096 -- true" "-a -C 9x -- true" \
	"-a --clock thread -- true" "-a --rotate 1 -- true" "-a --keep 2 --rotate 1 --events e -o d -- true" \
	"-C 0 -- true" "-a --duration -1" "-a --off-cpu -- true"; do
	"$P" record $bad >bad.out 2>bad.err
	rc=$?
	[ $rc -eq 2 ] && [ "$(wc -l <bad.err)" = 1 ]
	expect "system_refuses_$(echo "$bad" | tr -c 'a-z0-9\n' _)" "rc=$rc $(cat bad.err)"
done
