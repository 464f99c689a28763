#!/bin/sh
# Hostile users and dying processes (issue 12, part B): every file profil writes goes through
# utils/outfile.  Each reproducer fails safe: one sentence, a non-zero exit, nothing outside the
# named output touched, no hang (every run under a timeout: 124 is a hang).
#  - symbolic links another user planted in a shared sticky directory, for --events, watch -o,
#    export -o, --gmon and report -o (html); another user's files there;
#  - -o X --gmon X; the program being recorded as an output;
#  - an interrupted export leaves no temporary file (SIGINT, SIGTERM, SIGHUP, SIGKILL);
#  - write errors of the event stream (/dev/full, a full file system): one sentence, status 1;
#  - a killed recorder takes its command with it, and the profile stays readable;
#  - root's outputs are 0600.
. "$ROOT/tests/e2e/record/common.sh"
GEN="$PROGS/report_gen_pie"
OTHER=profil-other

# run NAME ARGS...: profil under a timeout, stdout and stderr to NAME.out / NAME.err; rc=status
run() {
	n=$1
	shift
	timeout 60 "$P" "$@" >"$n.out" 2>"$n.err"
	rc=$?
}
# one_sentence NAME: exactly one line on stderr
one_sentence() { [ "$(wc -l <"$1.err")" -eq 1 ]; }
# no_temporaries DIR: no ".NAME.XXXXXX" left behind
no_temporaries() { [ -z "$(ls -A "$1" | grep '^\.')" ]; }

"$GEN" gen.data >/dev/null || no generator "report_gen failed"
echo precious >"$T/root_file" # stands for /etc/shadow: root's file an attacker points at

# ---- another user: links and files planted in a sticky, world-writable directory ----------
have_other=0
if [ "$(id -u)" -eq 0 ]; then
	id -u $OTHER >/dev/null 2>&1 ||
		useradd --system --no-create-home --shell /usr/sbin/nologin $OTHER 2>/dev/null
	id -u $OTHER >/dev/null 2>&1 && have_other=1
fi
if [ $have_other -eq 0 ]; then
	skip other_user "needs root (useradd, setpriv): the other user's links and files"
else
	chmod 711 "$T"
	mkdir "$T/shared" && chmod 1777 "$T/shared"
	S="$T/shared"
	as_other() { setpriv --reuid=$OTHER --regid=$OTHER --clear-groups "$@"; }
	for f in ev.json watch.json out.gmon gmon.out page.html; do
		as_other ln -s "$T/root_file" "$S/$f"
	done
	as_other sh -c "echo theirs >'$S/theirs.gmon'; echo theirs >'$S/theirs.json'"

	# refused_link NAME FILE: one sentence about the link, the target untouched, no temporary
	refused_link() {
		[ "$rc" -ne 0 ] && [ "$rc" -ne 124 ] && one_sentence "$1" &&
			grep -q "$2 is a symbolic link; refusing to follow it" "$1.err" &&
			[ "$(cat "$T/root_file")" = precious ] && [ -L "$S/$2" ] && no_temporaries "$S"
	}
	rm -f ran
	run events_link record -q -o "$T/p.data" --events "$S/ev.json" -- touch ran
	refused_link events_link ev.json && [ ! -e ran ] && [ ! -e "$T/p.data" ]
	expect events_symlink_refused "rc=$rc ran=$([ -e ran ] && echo yes) $(cat events_link.err)"

	run export_link export -i gen.data -o "$S/out.gmon"
	refused_link export_link out.gmon
	expect export_symlink_refused "rc=$rc $(cat export_link.err)"

	run pprof_link export --format pprof -i gen.data -o "$S/out.gmon"
	refused_link pprof_link out.gmon
	expect pprof_symlink_refused "rc=$rc $(cat pprof_link.err)"

	run gmon_link record -q -o "$T/p.data" --gmon "$S/gmon.out" -- touch ran
	refused_link gmon_link gmon.out && [ ! -e ran ]
	expect gmon_symlink_refused_before_running "rc=$rc ran=$([ -e ran ] && echo yes) $(cat gmon_link.err)"

	run html_link report -i gen.data --format html -o "$S/page.html"
	refused_link html_link page.html
	expect html_symlink_refused "rc=$rc $(cat html_link.err)"

	run watch_link watch -o "$S/watch.json" --duration 1
	if [ $rc -eq 2 ]; then
		skip watch_symlink_refused "$(cat watch_link.err)"
	else
		refused_link watch_link watch.json
		expect watch_symlink_refused "rc=$rc $(cat watch_link.err)"
	fi

	# their own files: never replaced, truncated or written, in a sticky directory as well
	run export_theirs export -i gen.data -o "$S/theirs.gmon"
	[ $rc -eq 1 ] && one_sentence export_theirs &&
		grep -q "theirs.gmon belongs to another user; refusing to replace it" export_theirs.err &&
		[ "$(cat "$S/theirs.gmon")" = theirs ] && no_temporaries "$S"
	expect export_other_users_file_refused "rc=$rc $(cat export_theirs.err)"
	run events_theirs record -q -o "$T/p.data" --events "$S/theirs.json" -- touch ran
	[ $rc -eq 1 ] && one_sentence events_theirs && grep -q "belongs to another user" events_theirs.err &&
		[ "$(cat "$S/theirs.json")" = theirs ] && [ ! -e ran ]
	expect events_other_users_file_refused "rc=$rc $(cat events_theirs.err)"

	# a directory of the path that is their link (/tmp/d -> /etc; fs.protected_symlinks may be off)
	mkdir "$T/rootdir" && echo precious >"$T/rootdir/gmon.out"
	as_other ln -s "$T/rootdir" "$S/d"
	run dir_link export -i gen.data -o "$S/d/gmon.out"
	[ $rc -eq 1 ] && one_sentence dir_link && grep -q "is a symbolic link of another user" dir_link.err &&
		[ "$(cat "$T/rootdir/gmon.out")" = precious ]
	expect directory_symlink_refused "rc=$rc $(cat dir_link.err)"
fi

# ---- outputs that are each other, or the program ------------------------------------------
"$GEN" x.data >/dev/null
cp x.data x.copy
rm -f ran
run same record -q -o x.data --gmon x.data -- touch ran
[ $rc -eq 2 ] && one_sentence same && grep -q "name the same file" same.err && [ ! -e ran ] &&
	cmp -s x.data x.copy
expect o_and_gmon_same_file_refused "rc=$rc $(cat same.err)"
run same2 record -q -o x.data --gmon ./x.data -- touch ran
[ $rc -eq 2 ] && one_sentence same2 && [ ! -e ran ] && cmp -s x.data x.copy
expect o_and_gmon_same_file_other_spelling "rc=$rc $(cat same2.err)"
run gmon_profile export -i gen.data -o x.data
[ $rc -eq 1 ] && one_sentence gmon_profile && grep -q "x.data exists and is a profile" gmon_profile.err &&
	cmp -s x.data x.copy
expect export_never_replaces_a_profile "rc=$rc $(cat gmon_profile.err)"

cp "$PROGS/record_prog" myprog
cp myprog myprog.copy
run prog_out record -q -o myprog -- ./myprog hot
[ $rc -eq 1 ] && one_sentence prog_out && grep -q "myprog is the program being recorded" prog_out.err &&
	cmp -s myprog myprog.copy
expect profile_over_the_program_refused "rc=$rc $(cat prog_out.err)"
run prog_events record -q --events myprog -o m.data -- ./myprog hot
[ $rc -eq 1 ] && one_sentence prog_events && cmp -s myprog myprog.copy
expect events_over_the_program_refused "rc=$rc $(cat prog_events.err)"
echo input >in.txt
run arg_events record -q --events in.txt -o m.data -- cat in.txt
[ $rc -eq 1 ] && one_sentence arg_events && grep -q "a file the recorded command names" arg_events.err &&
	[ "$(cat in.txt)" = input ]
expect events_over_an_argument_refused "rc=$rc $(cat arg_events.err)"

# ---- an interrupted export: no temporary file ---------------------------------------------
# an 80 MB gmon.out (4096 histogram records) takes a while: interrupted while its temporary
# file is open (unnamed, O_TMPFILE, in out/; or .huge.gmon.XXXXXX where there is none), by
# the signals a handler cleans up after, and by SIGKILL, which nothing can catch
"$GEN" huge.data huge >/dev/null
mkdir out
for sig in INT:130 TERM:143 HUP:129 KILL:137; do
	want=${sig#*:} sig=${sig%:*}
	env --default-signal=INT,TERM,HUP "$P" export -i huge.data -o out/huge.gmon 2>/dev/null &
	pid=$!
	n=0
	while ! ls -l /proc/$pid/fd 2>/dev/null | grep -q " $T/out/" && [ $n -lt 2000 ]; do
		sleep 0.01
		n=$((n + 1))
	done
	seen=$(ls -l /proc/$pid/fd 2>/dev/null | grep -o " $T/out/.*" | head -1)
	kill -$sig $pid
	wait $pid 2>/dev/null
	rc=$?
	[ $rc -eq $want ] && [ -n "$seen" ] && [ -z "$(ls -A out)" ]
	expect "sig${sig}_during_export_leaves_nothing" "rc=$rc (want $want), writing '$seen', left '$(ls -A out)'"
done

# ---- write errors: one sentence and a non-zero status --------------------------------------
run full record -q -o f.data --events /dev/full -- true
[ $rc -eq 1 ] && one_sentence full &&
	grep -q "cannot write events to /dev/full: No space left on device" full.err && [ -s f.data ]
expect events_dev_full "rc=$rc $(cat full.err)"
run full3 record -q -o f.data --events /dev/full -- sh -c 'exit 3'
[ $rc -eq 3 ] && one_sentence full3
expect events_dev_full_keeps_the_commands_status "rc=$rc $(cat full3.err)"
run gfull record -q -o f.data --gmon /dev/full -- "$PROGS/record_prog" hot
[ $rc -eq 1 ] && one_sentence gfull && grep -q "cannot write /dev/full: No space left on device" gfull.err
expect gmon_dev_full "rc=$rc $(cat gfull.err)"

mkdir small
if mount -t tmpfs -o size=64k tmpfs small 2>/dev/null; then
	# events until the 64 KiB are full: the stream ends at its last whole event
	run small record -q -o s.data --events small/ev.json -- \
		sh -c 'i=0; while [ $i -lt 300 ]; do /bin/true; i=$((i + 1)); done'
	lines=$(wc -l <small/ev.json)
	bad=$(python3 -c '
import json, sys
bad = 0
data = open(sys.argv[1], "rb").read()
for line in data.split(b"\n")[:-1]:
    try: json.loads(line)
    except ValueError: bad += 1
print(bad + (0 if data.endswith(b"\n") else 1))' small/ev.json)
	[ $rc -eq 1 ] && one_sentence small && grep -q "No space left on device; it ends at its last whole event" small.err &&
		[ "$lines" -gt 10 ] && [ "$bad" -eq 0 ] && [ -s s.data ]
	expect events_full_file_system "rc=$rc lines=$lines bad=$bad $(cat small.err)"
	rm -f small/ev.json
	echo previous >small/g.gmon
	run small_export export -i huge.data -o small/g.gmon
	[ $rc -eq 1 ] && one_sentence small_export && grep -q "No space left on device" small_export.err &&
		[ "$(cat small/g.gmon)" = previous ] && no_temporaries small
	expect export_full_file_system "rc=$rc left '$(ls -A small | tr '\n' ' ')' $(cat small_export.err)"
	umount small
else
	skip full_file_system "mount -t tmpfs is not permitted here"
fi

# ---- a killed recorder takes its command with it; the profile stays readable --------------
# record_killed ARGS...: `record ARGS` in the background, SIGKILLed 0.3 s after its command wrote ./pid
record_killed() {
	"$P" record "$@" >/dev/null 2>&1 &
	REC=$!
	watchdog $REC
	wait_file pid
	sleep 0.3
	kill -KILL $REC
	wait $REC 2>/dev/null
	unwatch
}
# wait_gone PID: until process PID has ended (at most 10 s); fails if it lives on
wait_gone() {
	n=0
	while kill -0 "$1" 2>/dev/null && [ $n -lt 200 ]; do sleep 0.05; n=$((n + 1)); done
	! kill -0 "$1" 2>/dev/null
}

clocks=thread
perf_usable && clocks="$clocks perf"
[ "$(id -u)" -eq 0 ] && clocks="$clocks bpf"
if is_asan; then clocks=$(echo $clocks | sed 's/thread//'); fi
for clock in $clocks; do
	rm -f pid k.data
	record_killed -q --clock $clock -o k.data -- "$PROGS/record_prog" forever pid
	child=$(cat pid)
	gone=yes
	wait_gone "$child" || { gone=no && kill -KILL "$child"; }
	timeout 20 "$P" report -i k.data >k.out 2>k.err
	rrc=$?
	[ "$gone" = yes ] && [ $rrc -eq 0 ] && grep -q "^# run:" k.out && [ "$(hdr k.data state)" = 1 ]
	expect "killed_recorder_${clock}_takes_its_command" "gone=$gone report=$rrc state=$(hdr k.data state) $(head -2 k.err)"
done

# ... and its descendants live on (the kernel clears PR_SET_PDEATHSIG on fork): under the agent
# a grandchild keeps counting into the unfinished profile, which stays readable
if ! is_asan; then
	rm -f pid g.data shpid
	record_killed -q --clock thread -o g.data -- \
		sh -c 'echo $$ >shpid; "$1" forever pid & wait' sh "$PROGS/record_prog"
	wait_gone "$(cat shpid)"
	s1=$(hdr g.data samples)
	sleep 0.5
	timeout 20 "$P" report -i g.data >g.out 2>g.err
	rrc=$?
	s2=$(hdr g.data samples)
	kill -0 "$(cat pid)" 2>/dev/null && alive=yes || alive=no
	kill -KILL "$(cat pid)" 2>/dev/null
	! kill -0 "$(cat shpid)" 2>/dev/null && [ $alive = yes ] && [ $rrc -eq 0 ] &&
		[ "$(hdr g.data state)" = 1 ] && [ "$s2" -gt "$s1" ]
	expect orphan_grandchild_counts_into_a_readable_unfinished_profile \
		"command alive=$(kill -0 "$(cat shpid)" 2>/dev/null && echo yes || echo no) grandchild=$alive samples $s1 -> $s2 report=$rrc $(head -2 g.err)"
fi

# a process the command leaves behind outlives the recorder, with the agent: the finished
# profile does not change under it
if ! is_asan; then
	rm -f pid o.data
	timeout 60 "$P" record -q --clock thread -o o.data -- \
		sh -c '"$1" forever pid >/dev/null 2>&1 &' sh "$PROGS/record_prog" 2>o.err
	rc=$?
	wait_file pid
	before=$("$DUMP" o.data | md5sum)
	sleep 0.5
	after=$("$DUMP" o.data | md5sum)
	kill -KILL "$(cat pid)" 2>/dev/null
	[ $rc -eq 0 ] && [ "$(hdr o.data state)" = 2 ] && [ "$before" = "$after" ]
	expect finished_profile_unchanged_by_an_orphan "rc=$rc state=$(hdr o.data state) $(cat o.err)"
fi

# ---- root's outputs are private ------------------------------------------------------------
if [ "$(id -u)" -eq 0 ]; then
	umask 022
	rm -f r.data r.json r.gmon r.pb.gz r.html
	"$P" record -q -o r.data --events r.json --gmon r.gmon -- "$PROGS/record_prog" hot 2>/dev/null
	"$P" export --format pprof -i gen.data -o r.pb.gz 2>/dev/null
	"$P" report -i gen.data --format html -o r.html 2>/dev/null
	modes=$(stat -c %a r.data r.json r.gmon r.pb.gz r.html | tr '\n' ' ')
	[ "$modes" = "600 600 600 600 600 " ]
	expect root_outputs_0600 "modes of profile, events, gmon, pprof, html: $modes"
fi
