# Shared helpers of tests/e2e/record_*.sh (sourced; POSIX sh).
# Reads profiles with tests/progs/pdata_dump, independently of `profil report`.
B=${B:-build}
case "$B" in /*) ;; *) B="$ROOT/$B" ;; esac
P="$B/profil"
PROGS="$B/tests/progs"
DUMP="$PROGS/pdata_dump"
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
cd "$T" || exit 1

ok() { echo "ok $1"; }
nok() { echo "not ok $1: $2"; }
skip() { echo "skip $1: $2"; }

# expect NAME CONDITION-TEXT: report the result of the last command (0 = ok)
expect() {
	if [ "$?" -eq 0 ]; then ok "$1"; else nok "$1" "$2"; fi
}

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

# in_range VALUE LO HI (floating point)
in_range() {
	awk -v v="$1" -v lo="$2" -v hi="$3" 'BEGIN { exit !(v >= lo && v <= hi) }'
}

# share A B: A / (A + B)
share() {
	awk -v a="$1" -v b="$2" 'BEGIN { if (a + b == 0) print 0; else printf "%.3f", a / (a + b) }'
}

# wait_file FILE: until it exists and is not empty (at most ~20 s)
wait_file() {
	n=0
	while [ ! -s "$1" ] && [ $n -lt 400 ]; do sleep 0.05; n=$((n + 1)); done
	[ -s "$1" ]
}

is_asan() { case "$B" in */asan) return 0 ;; esac; return 1; }

# perf_usable: can `profil record --clock perf` run here?
perf_usable() {
	"$P" record -q --clock perf -o "$T/probe.data" -- true 2>/dev/null
	rc=$?
	rm -f "$T/probe.data"
	[ $rc -eq 0 ]
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
