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

# in_range VALUE LO HI (floating point)
in_range() {
	awk -v v="$1" -v lo="$2" -v hi="$3" 'BEGIN { exit !(v >= lo && v <= hi) }'
}

is_asan() { case "$B" in */asan) return 0 ;; esac; return 1; }
