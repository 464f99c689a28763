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
one_line help_unknown_long "$(unknown help --bogus)" help --bogus

# the other ways an option can be wrong, in the same form
one_line value_not_taken "profil report: option '--threads' takes no value (try 'profil report --help')" \
	report --threads=1
one_line ambiguous "profil report: option '--t' is ambiguous (try 'profil report --help')" report --t
one_line short_in_a_cluster "$(unknown report -Z)" report --threads -Zt
one_line after_a_good_option "$(unknown record --bogus)" record -q -F 99 --bogus -- touch ran

# --help is not an error: usage on stdout, exit 0, for every command
for cmd in record report export events watch diff top help; do
	"$PROFIL" $cmd --help >out.txt 2>err.txt
	rc=$?
	if [ $rc -eq 0 ] && grep -q "^usage: profil $cmd" out.txt && [ ! -s err.txt ]; then
		ok "${cmd}_help"
	else
		no "${cmd}_help" "rc=$rc, stderr: $(cat err.txt)"
	fi
done

# ---- every option of every table (read from --help, which is generated from it) ----
# options_of CMD: "OPTION ARG" per option and spelling (-o and --output), ARG "-" for a flag,
# "[FILE]" for an optional value
options_of() {
	"$PROFIL" "$@" --help | awk '
	/^  (-[A-Za-z]|    --)/ {
		line = $0
		sub(/^ +/, "", line)
		n = split(line, w, " ")
		arg = "-"
		k = 0
		for (i = 1; i <= n; i++) {
			t = w[i]
			if (t ~ /^--?[A-Za-z]/) {
				sub(/,$/, "", t)
				opt[++k] = t
				if (w[i] !~ /,$/) { i++; break }
			} else break
		}
		if (i <= n && w[i] ~ /^(\[?[A-Z])/) arg = w[i]
		for (j = 1; j <= k; j++) print opt[j], arg
		delete opt
	}'
}

# a value each option accepts (the default, "x", suits the options that take any word)
sample() {
	case "$1:$2" in
	record:-F | record:--freq) echo 99 ;;
	record:--clock) echo perf ;;
	record:--sample-by) echo thread ;;
	record:--call-graph) echo dwarf,4096 ;;
	record:-p | record:--pid | top:-p | top:--pid) echo 1 ;;
	record:--duration | top:-d | top:--delay) echo 0.5 ;;
	record:--rotate | record:--keep | top:-n | top:--iterations | top:--rows) echo 2 ;;
	top:-F | top:--freq) echo 99 ;;
	top:--view) echo cgroup ;;
	top:--sort) echo total ;;
	report:--format) echo json ;;
	report:--sort) echo pid,sym,name ;;
	report:--reason) echo sleep,blocked ;;
	export:--value) echo wall ;;
	report:--pid | report:--tid | events:--pid | watch:--pid) echo 1,2 ;;
	report:--percent-limit) echo 1.5 ;;
	report:--top) echo 0 ;;
	report:-g | report:--call-graph) echo caller,1 ;;
	export:-f | export:--format) echo pprof ;;
	events:--event | watch:--event) echo prof,profil ;;
	events:--format | watch:--format) echo table ;;
	watch:--duration) echo 0.5 ;;
	watch:--ringbuf-kb) echo 64 ;;
	diff:--format) echo json ;;
	diff:-o | diff:--output) echo out.html ;;
	diff:--sort) echo seconds ;;
	diff:--threshold) echo 0.5 ;;
	diff:--top) echo 2 ;;
	annotate:--format) echo json ;;
	annotate:--top) echo 2 ;;
	*) echo x ;;
	esac
}

total=0
for cmd in record report export events watch diff help; do
	options_of $cmd >opts.txt
	[ -s opts.txt ] || no "${cmd}_options_listed" "no option in 'profil $cmd --help'"
	while read -r opt arg; do
		total=$((total + 1))
		# accepted: the option (with a value it takes) parsed, then --help: status 0
		if [ "$arg" = - ] || [ "${arg#[}" != "$arg" ]; then
			set -- "$opt"
		else
			set -- "$opt" "$(sample $cmd "$opt")"
		fi
		"$PROFIL" $cmd "$@" --help >out.txt 2>err.txt </dev/null
		rc=$?
		if [ $rc -eq 0 ] && [ ! -s err.txt ] && grep -q "^usage: profil $cmd" out.txt; then
			ok "${cmd}_accepts_$opt"
		else
			no "${cmd}_accepts_$opt" "profil $cmd $* --help: rc=$rc $(cat err.txt)"
		fi
		# a value it needs, left out: one line
		case "$arg" in -|\[*) continue ;; esac
		one_line "${cmd}_needs_value_$opt" "$(needs $cmd "$opt")" $cmd "$opt"
	done <opts.txt
done
[ "$total" -ge 40 ] && ok options_found || no options_found "only $total options in the commands' --help"
"$PROFIL" --version >out.txt 2>err.txt && grep -q '^profil [0-9]' out.txt && ok profil_version ||
	no profil_version "$(cat out.txt err.txt)"

# ---- one meaning for a repeated list, one rule for ids ----------------------------------
# report: --pid/--tid/--comm/--dso repeated add up (the filter line names them all)
"$PROFIL" report -i /nonexistent --pid 1 --pid 2,3 >out.txt 2>err.txt
grep -q "^profil report: .*nonexistent" err.txt && ok report_pid_repeat_parses ||
	no report_pid_repeat_parses "$(cat err.txt)"
if [ -x "$B/tests/progs/report_stackgen" ]; then
	"$B/tests/progs/report_stackgen" s.data synthetic >/dev/null 2>&1
	"$PROFIL" report -i s.data --pid 1 --pid 2,3 --comm a --comm b >out.txt 2>err.txt
	grep -q "^# filter: --pid 1,2,3 --comm a,b:" out.txt && ok report_lists_append ||
		no report_lists_append "$(grep '^# filter' out.txt) $(cat err.txt)"
	rm -f s.data
fi
# events: --pid 100 --pid 200 is both processes' events, as --pid 100,200
FIX="$ROOT/tests/e2e/events_fixture.jsonl"
"$PROFIL" events -i "$FIX" --pid 100,200 >a.txt 2>err.txt
"$PROFIL" events -i "$FIX" --pid 100 --pid 200 >b.txt 2>>err.txt
n=$(wc -l <a.txt)
[ "$n" -eq 8 ] && cmp -s a.txt b.txt && [ ! -s err.txt ] && ok events_lists_append ||
	no events_lists_append "$n lines (want 8), $(cmp a.txt b.txt 2>&1) $(cat err.txt)"
# id 0: refused by every command, with the same sentence
one_line report_pid_zero "profil report: --pid needs positive process ids separated by commas, not '0'" report --pid 0
one_line report_tid_zero "profil report: --tid needs positive thread ids separated by commas, not '1,0'" report --tid 1,0
one_line events_pid_zero "profil events: --pid needs positive process ids separated by commas, not '0'" events --pid 0
one_line watch_pid_zero "profil watch: --pid needs positive process ids separated by commas, not '0'" watch --pid 0
one_line record_pid_zero "profil record: --pid needs a process id (1 or more), not '0'" record -p 0
