# The one helper of every tests/e2e/*.sh (sourced; POSIX sh): where the build's
# programs are, a temporary directory removed at exit, and how a check reports
# (tests/run.sh's protocol: "ok NAME", "not ok NAME: why", "skip NAME: why").
# tests/e2e/record/common.sh and report/common.sh add what their tests share;
# tests/run.sh runs every tests/e2e/*.sh (this file is beside it, not among them).
B=${B:-build}
case "$B" in /*) ;; *) B="$ROOT/$B" ;; esac
PROFIL="$B/profil"
PROGS="$B/tests/progs"
TOOLS="$B/tests/tools"
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
# under ASan: other projects' leaks are not ours (tests/lsan.supp says which and why)
export LSAN_OPTIONS="${LSAN_OPTIONS:+$LSAN_OPTIONS:}suppressions=$ROOT/tests/lsan.supp"
# the user's cache (the objects `profil record` keeps by build id, utils/objcache.h): the
# test's own, never the home directory's
XDG_CACHE_HOME="$T/.cache"
export XDG_CACHE_HOME

ok() { echo "ok $1"; }
no() { echo "not ok $1: $2"; }
skip() { echo "skip $1: $2"; }

# expect NAME WHY     ok when the last command succeeded, else not ok, saying WHY
# expect NAME A B     ok when A and B are the same text
expect() {
	rc=$?
	if [ $# -ge 3 ]; then
		if [ "$2" = "$3" ]; then ok "$1"; else no "$1" "got '$2', want '$3'"; fi
	elif [ "$rc" -eq 0 ]; then
		ok "$1"
	else
		no "$1" "$2"
	fi
}

# wait_file FILE: until it exists and is not empty (at most ~20 s)
wait_file() {
	n=0
	while [ ! -s "$1" ] && [ $n -lt 400 ]; do sleep 0.05; n=$((n + 1)); done
	[ -s "$1" ]
}

# has_lines NAME FILE PATTERN...   for each PATTERN (grep's): ok "NAME: PATTERN" when a line of
#                                  FILE matches it, else not ok, showing FILE's first 40 lines
has_lines() {
	has_name=$1 has_file=$2
	shift 2
	for has_pat; do
		if grep -q -- "$has_pat" "$has_file"; then
			ok "$has_name: $has_pat"
		else
			no "$has_name: $has_pat" "missing in: $(head -40 "$has_file")"
		fi
	done
}

# fails NAME CMD...         CMD fails cleanly: exit status 1 or 2 within 20 s (not a
#                           signal, not a hang), one line on stderr, nothing on stdout
# fails_rc RC NAME CMD...   the same with exit status RC only
# (CMD's stdout and stderr are left in $T/out and $T/err)
fails() { fails_rc "1 2" "$@"; }
fails_rc() {
	want=$1 name=$2
	shift 2
	timeout 20 "$@" >"$T/out" 2>"$T/err"
	rc=$?
	lines=$(wc -l <"$T/err")
	case " $want " in
	*" $rc "*) ;;
	*)
		no "$name" "exit status $rc (124: hang): $(head -5 "$T/err")"
		return
		;;
	esac
	if [ "$lines" -ne 1 ]; then
		no "$name" "$lines lines on stderr: $(head -5 "$T/err")"
	elif [ -s "$T/out" ]; then
		no "$name" "wrote to stdout: $(head -3 "$T/out")"
	else
		ok "$name ($(cat "$T/err"))"
	fi
}

# go_offline: `go tool pprof` offline and self-contained from here on (no module
# download, no telemetry, caches in $T); fails when go is not installed
go_offline() {
	command -v go >/dev/null || return 1
	export HOME="$T" GOCACHE="$T/gocache" GOPATH="$T/gopath" GOFLAGS= GOPROXY=off \
		GOTOOLCHAIN=local GOTELEMETRY=off PPROF_TMPDIR="$T"
	unset PPROF_BINARY_PATH
}

# need_python NAME: PY is python3; without one, skip NAME and end the test
need_python() {
	PY=$(command -v /usr/bin/python3 || command -v python3)
	[ -n "$PY" ] && return
	skip "$1" "python3 is not installed"
	exit 0
}

# in_range VALUE LO HI (floating point)
in_range() {
	awk -v v="$1" -v lo="$2" -v hi="$3" 'BEGIN { exit !(v >= lo && v <= hi) }'
}

is_asan() { case "$B" in */asan) return 0 ;; esac; return 1; }
