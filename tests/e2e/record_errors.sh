#!/bin/sh
# profil record: bad input gets one line on stderr, a non-zero exit, and no
# profile that looks complete; the program does not start when recording cannot.
. "$ROOT/tests/e2e/record/common.sh"

# one_line NAME WANT-RC GREP-PATTERN ARGS...: run, check status, a one-line message, no m.data
one_line() {
	name=$1 want=$2 pat=$3
	shift 3
	rm -f m.data
	"$P" record "$@" >out.txt 2>err.txt
	rc=$?
	[ $rc -eq "$want" ] && [ "$(wc -l <err.txt)" -eq 1 ] && grep -q -- "$pat" err.txt &&
		[ ! -e m.data ] && [ ! -s out.txt ]
	expect "$name" "rc=$rc (want $want), stderr: $(cat err.txt)"
}

one_line missing_command 127 "profil: cannot run 'no_such_cmd_xyz': No such file or directory" \
	-o m.data -- no_such_cmd_xyz
printf 'echo hi\n' >notexec
chmod 644 notexec
one_line not_executable 126 "cannot run './notexec': Permission denied" -o m.data -- ./notexec
one_line directory_command 126 "cannot run" -o m.data -- /tmp
one_line unknown_option 2 "unknown option" -o m.data --bogus -- true
one_line no_command 2 "no COMMAND" -o m.data
one_line bad_rate 2 "profil record: --freq needs a rate from 1 to 1000000 Hz, not .0." -o m.data -F 0 -- true
one_line bad_clock 2 "unknown clock" -o m.data --clock sundial -- true
one_line missing_value 2 "needs a value" -o m.data -F
rm -f ran
"$P" record -o /nonexistent-dir/m.data -- sh -c 'touch ran' 2>err.txt
rc=$?
[ $rc -ne 0 ] && [ ! -e ran ] && [ "$(wc -l <err.txt)" -eq 1 ] && grep -q "cannot create" err.txt
expect unwritable_output_dir "rc=$rc ran=$([ -e ran ] && echo yes) $(cat err.txt)"

echo precious >target
ln -s target link.data
"$P" record -o link.data -- sh -c 'touch ran' 2>err.txt
rc=$?
[ $rc -ne 0 ] && [ ! -e ran ] && [ "$(cat target)" = precious ] && grep -q "symbolic link" err.txt
expect symlink_output_refused "rc=$rc $(cat err.txt)"

# a disk that fills up: the file size limit stands in for it (SIGXFSZ ignored: EFBIG)
(
	trap '' XFSZ
	ulimit -f 1024
	"$P" record -o full.data -- sh -c 'touch ran' 2>err.txt
	echo $? >rc.txt
)
rc=$(cat rc.txt)
[ "$rc" -ne 0 ] && [ ! -e ran ] && [ ! -e full.data ] && [ "$(wc -l <err.txt)" -eq 1 ] &&
	grep -q "cannot reserve" err.txt
expect disk_full_before_start "rc=$rc $(cat err.txt)"

# --gmon: written, or a clear note that this build has no gmon export
"$P" record -q --gmon g.out -o m.data -- true 2>err.txt
rc=$?
[ $rc -eq 0 ] && { [ -s g.out ] || grep -q "gmon export is not in this build" err.txt; }
expect gmon_option "rc=$rc $(cat err.txt)"
