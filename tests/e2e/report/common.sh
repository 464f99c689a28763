# Shared preamble of tests/e2e/report_*.sh (sourced; POSIX sh).
. "$ROOT/tests/lib.sh"
P="$PROGS" # the tests' short name for the programs' directory
