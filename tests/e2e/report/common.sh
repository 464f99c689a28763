# Shared preamble of tests/e2e/report_*.sh (sourced; POSIX sh).
P="$B/tests/progs"
TOOLS="$B/tests/tools"
PROFIL="$B/profil"
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT

ok() { echo "ok $1"; }
no() { echo "not ok $1: $2"; }
# expect NAME GOT WANT
expect() { if [ "$2" = "$3" ]; then ok "$1"; else no "$1" "got '$2', want '$3'"; fi; }
