# Shared helpers of tests/e2e/record_*.sh (sourced; POSIX sh).
# Reads profiles with tests/tools/pdata_dump, independently of `profil report`.
. "$ROOT/tests/lib.sh"
P="$PROFIL" # the tests' short name for the command
DUMP="$TOOLS/pdata_dump"
cd "$T" || exit 1

# hdr FILE KEY: a header field
hdr() {
	"$DUMP" "$1" | awk -v k="$2" '/^header /{for(i=2;i<=NF;i++){split($i,a,"="); if(a[1]==k) print a[2]}}'
}

# fsamples FILE NAME [PROC]: samples of function NAME (all processes, or proc id PROC)
fsamples() {
	"$DUMP" "$1" | awk -v n="$2" -v p="${3:-}" '$1=="func" && $4=="name="n {
		split($2,a,"="); split($3,b,"="); if (p=="" || a[2]==p) s+=b[2] } END {print s+0}'
}

# osamples FILE SUFFIX: samples in mappings whose path ends with SUFFIX
osamples() {
	"$DUMP" "$1" | awk -v n="$2" '$1=="obj" { split($3,b,"="); path=substr($0, index($0,"path=")+5);
		if (substr(path, length(path)-length(n)+1)==n) s+=b[2] } END {print s+0}'
}

# share A B: A / (A + B)
share() {
	awk -v a="$1" -v b="$2" 'BEGIN { if (a + b == 0) print 0; else printf "%.3f", a / (a + b) }'
}

# perf_usable: can `profil record --clock perf` run here?
perf_usable() {
	"$P" record -q --clock perf -o "$T/probe.data" -- true 2>/dev/null
	rc=$?
	rm -f "$T/probe.data"
	[ $rc -eq 0 ]
}

# need_offcpu TEST WANT WHY NOTE: record --off-cpu of `true` (probe.data, probe.err); unless a
# line of its dump matches WANT, skip TEST saying WHY, the recorder's first line on stderr and the
# dump's first line matching NOTE, and end the test
need_offcpu() {
	"$P" record -q --off-cpu -o probe.data -- true 2>probe.err
	"$DUMP" probe.data | grep -q "$2" && return
	skip "$1" "$3: $(head -1 probe.err) $("$DUMP" probe.data | grep "$4" | head -1 | cut -c1-300)"
	exit 0
}

# watchdog PID: kill -9 PID after 30 s unless unwatch is called (a hung test must not hang the suite)
watchdog() {
	(sleep 30; kill -9 "$1" 2>/dev/null) >/dev/null 2>&1 &
	WD=$!
}
unwatch() { kill "$WD" 2>/dev/null; }

# bg_record ARGS...: run "$P" record in the background with SIGINT and SIGQUIT at
# their defaults (a non-interactive shell ignores them in background jobs); REC=pid
bg_record() {
	env --default-signal=INT,QUIT "$P" record "$@" &
	REC=$!
	watchdog $REC
}

# ---- ground truth: what the test programs measured themselves (tests/progs/record_cpu.h) ----

# truth FILE FUNC [PID]: CPU time (ns) the program measured in FUNC (every thread and process,
# or process PID only)
truth() {
	awk -v f="func=$2" -v p="${3:+pid=$3}" '$1=="truth" && $4==f && (p=="" || $2==p) {
		split($5,a,"="); s+=a[2] } END { print s+0 }' "$1"
}

# truth_held FILE: the kernel held CPU-timer ticks back in a measured function (its witness,
# $RECORD_WITNESS, got its ticks for under 80 % of its CPU time; tests/progs/tick_witness.h)
truth_held() {
	awk '$1=="truth" && $6 ~ /^witness_ns=/ { split($5,a,"="); split($6,b,"=");
		if (b[2] < 0.8 * a[2]) held=1 } END { exit !held }' "$1"
}

# held_runs TRUTH CHECK CMD...: run CMD with a tick witness in every measured function
# (RECORD_WITNESS: ${WITNESS:-thread}, "process" for a process-wide clock; RECORD_TRUTH=TRUTH),
# then CHECK; while CHECK fails and the kernel held CPU-timer ticks back (truth_held: what the
# thread and itimer clocks cannot sample), run again, 4 runs at most.  CHECK's status.
held_runs() {
	truth_file=$1 check=$2
	shift 2
	for run in 1 2 3 4; do
		rm -f "$truth_file"
		RECORD_WITNESS=${WITNESS:-thread} RECORD_TRUTH=$truth_file "$@"
		"$check" && return 0
		truth_held "$truth_file" || return 1
		echo "# note: run $run: the kernel held CPU-timer ticks back: $(grep witness_ns "$truth_file" | tr '\n' ' ')"
	done
	return 1
}

# truth_rusage FILE KEY: user_ns or sys_ns of the program's processes, summed
truth_rusage() {
	awk -v k="$2" '$1=="truth" && $2 ~ /^pid=/ && $3 ~ /^user_ns=/ {
		for (i = 3; i <= NF; i++) { split($i,a,"="); if (a[1]==k) s+=a[2] } } END { print s+0 }' "$1"
}

# hot_ab DATA TRUTH MIN TOL: hot_a's share of hot_a + hot_b's samples in DATA is within TOL of
# the share of their CPU time the program measured (TRUTH), with at least MIN samples between
# them; HOT_AB says what was seen
hot_ab() {
	a=$(fsamples "$1" hot_a)
	b=$(fsamples "$1" hot_b)
	s=$(share "$a" "$b")
	t=$(share "$(truth "$2" hot_a)" "$(truth "$2" hot_b)")
	HOT_AB="hot_a=$a hot_b=$b share=$s (measured $t)"
	[ $((a + b)) -ge "$3" ] && near "$s" "$t" "$4"
}

# thread_tids_match DATA TRUTH TOL: how many threads have their share of thread_spin's samples
# within TOL of their measured share of thread_spin's CPU time (DATA's dump left in tids.txt)
thread_tids_match() {
	"$DUMP" "$1" >tids.txt
	awk -v tol="$3" '$1=="truth" && $4=="func=thread_spin" { split($3,a,"="); split($5,b,"="); t[a[2]]=b[2]; tt+=b[2] }
		$1=="tid" { split($3,a,"="); split($4,b,"="); s[a[2]]=b[2] }
		END { for (k in t) st += s[k]
			for (k in t) { d = s[k] / st - t[k] / tt; if (d < 0) d = -d; if (d <= tol) n++ }
			print n+0 }' "$2" tids.txt
}

# ratio A B: A / B (0 when B is 0)
ratio() {
	awk -v a="$1" -v b="$2" 'BEGIN { if (b == 0) print 0; else printf "%.4f", a / b }'
}

# near A B TOL: |A - B| <= TOL
near() {
	awk -v a="$1" -v b="$2" -v t="$3" 'BEGIN { d = a - b; if (d < 0) d = -d; exit !(d <= t) }'
}

# pseconds FILE: "TOTAL KERNEL" (ns): the CPU time the profile shows, as a report counts it --
# per thread its samples times the period, the system time of its record where the kernel was
# not sampled (perf and bpf clocks), at least its recorded CPU time (the unsampled rest); and of
# that, the kernel's (its samples, or the threads' system time)
pseconds() {
	"$DUMP" "$1" | awk '
	$1=="header" { for (i = 2; i <= NF; i++) { split($i,a,"="); h[a[1]]=a[2] } }
	$1=="thread" { for (i = 2; i <= NF; i++) { split($i,a,"="); t[a[1]]=a[2] }
		k = t["proc"] " " t["tid"]; cpu[k] = t["cpu_ns"]; sys[k] = t["sys_ns"] }
	$1=="tid" { split($2,a,"="); split($3,b,"="); split($4,c,"="); n[a[2] " " b[2]] += c[2] }
	$1=="obj" && $NF=="path=[kernel]" { split($3,a,"="); ks += a[2] }
	END {
		p = h["period_ns"]; kernel = int(h["flags"]) % 8 >= 4
		acc = !kernel && (h["clock"] == 3 || h["clock"] == 5)
		for (k in n) seen[k] = 1
		for (k in cpu) seen[k] = 1
		for (k in seen) {
			s = n[k] * p + (acc ? sys[k] : 0)
			tot += (cpu[k] > s ? cpu[k] : s)
			if (acc) kt += sys[k]
		}
		if (kernel) kt = ks * p
		printf "%.0f %.0f\n", tot, kt
	}'
}
