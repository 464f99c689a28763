#!/bin/sh
# One option-error convention (utils/opts.h) for the profil command and every
# subcommand: an unknown option and an option without its value each give
# exactly one line on stderr, naming the command and its --help, nothing on
# stdout, exit status 2, and nothing run or written.
. "$ROOT/tests/lib.sh"

cd "$T" || exit 1

# one_line NAME WANT-LINE ARGS...: profil ARGS must print exactly WANT-LINE on stderr and exit 2
one_line() {
	name=$1 want=$2
	shift 2
	"$PROFIL" "$@" >out.txt 2>err.txt </dev/null
	rc=$?
	if [ $rc -eq 2 ] && [ "$(wc -l <err.txt)" -eq 1 ] && [ "$(cat err.txt)" = "$want" ] &&
		[ ! -s out.txt ] && [ ! -e ran ] && [ ! -e profil.data ] && [ ! -e gmon.out ]; then
		ok "$name"
	else
		no "$name" "rc=$rc (want 2), stdout $(wc -c <out.txt) bytes, stderr: $(cat err.txt) (want: $want)"
	fi
	rm -f ran profil.data gmon.out
}

unknown() { echo "profil $1: unknown option '$2' (try 'profil $1 --help')"; }
needs() { echo "profil $1: option '$2' needs a value (try 'profil $1 --help')"; }

# the profil command itself (none of its options takes a value)
one_line profil_unknown_long "profil: unknown option '--bogus' (try 'profil --help')" --bogus report
one_line profil_unknown_short "profil: unknown option '-z' (try 'profil --help')" -z report

# every subcommand: unknown long and short options, a missing value (long and short form)
one_line record_unknown_long "$(unknown record --bogus)" record --bogus -- touch ran
one_line record_unknown_short "$(unknown record -Z)" record -Z -- touch ran
one_line record_missing_long "$(needs record --freq)" record --freq
one_line record_missing_short "$(needs record -o)" record -o
one_line report_unknown_long "$(unknown report --bogus)" report --bogus
one_line report_unknown_short "$(unknown report -Z)" report -Z
one_line report_missing_long "$(needs report --top)" report --top
one_line report_missing_short "$(needs report -i)" report -i
one_line export_unknown_long "$(unknown export --bogus)" export --bogus
one_line export_unknown_short "$(unknown export -Z)" export -Z
one_line export_missing_long "$(needs export --format)" export --format
one_line export_missing_short "$(needs export -o)" export -o
one_line events_unknown_long "$(unknown events --bogus)" events --bogus
one_line events_unknown_short "$(unknown events -Z)" events -Z
one_line events_missing_long "$(needs events --pid)" events --pid
one_line events_missing_short "$(needs events -i)" events -i
# watch checks its options before its privileges and BPF support: works as any user
one_line watch_unknown_long "$(unknown watch --bogus)" watch --bogus
one_line watch_unknown_short "$(unknown watch -Z)" watch -Z
one_line watch_missing_long "$(needs watch --duration)" watch --duration
one_line watch_missing_short "$(needs watch -o)" watch -o

one_line diff_unknown_long "$(unknown diff --bogus)" diff --bogus
one_line diff_unknown_short "$(unknown diff -Z)" diff -Z
one_line diff_missing_long "$(needs diff --threshold)" diff --threshold

# the other ways an option can be wrong, in the same form
one_line value_not_taken "profil report: option '--threads' takes no value (try 'profil report --help')" \
	report --threads=1
one_line ambiguous "profil report: option '--t' is ambiguous (try 'profil report --help')" report --t
one_line short_in_a_cluster "$(unknown report -Z)" report --threads -Zt
one_line after_a_good_option "$(unknown record --bogus)" record -q -F 99 --bogus -- touch ran

# --help is not an error: usage on stdout, exit 0, for every command
for cmd in record report export events watch diff; do
	"$PROFIL" $cmd --help >out.txt 2>err.txt
	rc=$?
	if [ $rc -eq 0 ] && grep -q "^usage: profil $cmd" out.txt && [ ! -s err.txt ]; then
		ok "${cmd}_help"
	else
		no "${cmd}_help" "rc=$rc, stderr: $(cat err.txt)"
	fi
done
