# The profile file as a user meets it: the size of what it holds, the
# previous profile kept as .old, never replacing a file that is not a
# profile (or the program being run), readable after the recorder is killed.
. "$ROOT/tests/e2e/record/common.sh"

size() { stat -c %s "$1" 2>/dev/null || echo 0; }

# record -- true: a compact file (the recording reserved tens of MiB)
"$P" record -q -o small.data -- true
rc=$?
s=$(size small.data)
[ "$rc" -eq 0 ] && [ "$s" -gt 0 ] && [ "$s" -le 1048576 ]
expect true_is_small "status $rc, $s bytes"
[ "$(hdr small.data state)" = 2 ]
expect compact_copy_is_complete "state $(hdr small.data state)"

# the summary states that size readably: KiB under 1 MiB (not "0.0 MiB")
"$P" record -o small.data -- true 2>err.txt
s=$(size small.data)
want=$(awk -v s="$s" 'BEGIN { printf "(%.1f KiB)", s / 1024 }')
[ "$s" -ge 1024 ] && [ "$s" -lt 1048576 ] && grep -qF "small.data $want" err.txt
expect summary_size_in_kib "$s bytes, want '$want' in: $(cat err.txt)"

# a real run: compact too, and every sample still there (each in an object), the program's own
# in its hot functions (as root the kernel's are there too: more of them on a busy machine)
"$P" record -q -o run.data -- "$PROGS/record_prog" hot
s=$(size run.data)
total=$(hdr run.data samples)
in_objs=$("$DUMP" run.data | awk '$1=="obj" { split($3,a,"="); s+=a[2] } END { print s+0 }')
prog=$(osamples run.data /record_prog)
sum=$(fsamples run.data hot_a)
sum=$((sum + $(fsamples run.data hot_b)))
[ "$s" -le 1048576 ] && [ "$total" -gt 50 ] && [ "$in_objs" -eq "$total" ] &&
	[ "$sum" -ge $((prog * 9 / 10)) ] && [ "$prog" -ge $((total / 2)) ]
expect run_is_small_and_whole "$s bytes, samples $total, in objects $in_objs, in the program $prog, hot_a+hot_b $sum"

# the previous profile is kept as profil.data.old
"$P" record -q -- true && "$P" record -q -- true
[ -s profil.data ] && [ -s profil.data.old ] && [ "$(hdr profil.data.old state)" = 2 ]
expect previous_kept_as_old "$(ls -la profil.data* 2>&1 | tr '\n' ' ')"

# a file that is not a profile is never replaced: one sentence, non-zero
printf 'my notes\n' >notes.txt
"$P" record -q -o notes.txt -- true 2>err.txt
rc=$?
[ "$rc" -ne 0 ] && [ "$(cat notes.txt)" = "my notes" ] && [ "$(wc -l <err.txt)" -eq 1 ] &&
	grep -q "not a profile" err.txt
expect non_profile_refused "status $rc: $(cat err.txt)"

# nor the program being run
cp "$PROGS/record_prog" ./myprog
sum_before=$(cksum <myprog)
"$P" record -q -o myprog -- ./myprog hot 2>err.txt
rc=$?
[ "$rc" -ne 0 ] && [ "$(cksum <myprog)" = "$sum_before" ] && [ "$(wc -l <err.txt)" -eq 1 ]
expect program_not_destroyed "status $rc: $(cat err.txt)"

# a killed recorder leaves its (full-size, unfinished) profile readable
"$P" record -q -o killed.data -- "$PROGS/record_prog" forever pid.txt &
rec=$!
wait_file pid.txt
sleep 0.3
kill -KILL "$rec" 2>/dev/null
wait "$rec" 2>/dev/null
kill -KILL "$(cat pid.txt)" 2>/dev/null
[ "$(hdr killed.data state)" = 1 ] && [ "$(fsamples killed.data hot_b)" -gt 0 ] &&
	"$P" report -i killed.data >/dev/null 2>&1
expect killed_recorder_profile_readable "state $(hdr killed.data state), hot_b $(fsamples killed.data hot_b)"
