#!/bin/sh
# profil top in a real terminal (tmux, a private server): the hot function of
# a busy process it was not told about shows up; the keys switch views and q
# quits with the terminal restored; a storm of resizes down to 8 columns,
# Ctrl-Z's SIGTSTP (the terminal given back while stopped) and SIGCONT, and
# SIGTERM; without a terminal, one table per refresh; -p PID and a COMMAND.
. "$ROOT/tests/e2e/record/common.sh"
SPIN="$PROGS/system_spin"

if ! command -v tmux >/dev/null; then
	skip top "tmux is not installed"
	exit 0
fi
if ! "$P" top -b -n 1 -d 0.2 >probe.out 2>probe.err; then
	if grep -q "needs root" probe.err; then
		skip top "$(head -1 probe.err)"
		exit 0
	fi
	nok top_runs "$(cat probe.err)"
	exit 1
fi
TM="tmux -L profil-top-test-$$ -f /dev/null"
pids=""
cleanup() {
	$TM kill-server 2>/dev/null
	[ -n "$pids" ] && kill $pids 2>/dev/null
	rm -rf "$T"
}
trap cleanup EXIT
nice -n -5 "$SPIN" alpha &
A=$!
pids=$A

# wait_screen TEXT [TRIES]: until the pane shows TEXT (0.1 s per try)
wait_screen() {
	n=0
	while [ $n -lt "${2:-300}" ]; do
		$TM capture-pane -p -t "$S" >screen 2>/dev/null
		grep -qF -- "$1" screen && return 0
		sleep 0.1
		n=$((n + 1))
	done
	return 1
}
# tty_flags: the pane's terminal's line discipline flags (icanon, echo)
tty_flags() { stty -a -F "$($TM display -p -t "$S" '#{pane_tty}')" | tr ' ' '\n' | grep -xE -- '-?(icanon|echo)' | tr '\n' ' '; }
top_pid() { pgrep -P "$($TM display -p -t "$S" '#{pane_pid}')" -x profil; }

S=top
$TM new-session -d -s top -x 120 -y 30 \
	"$P top -d 0.5 2>top.err; echo \$? >top.exit; stty -a >top.stty; sleep 600"
t0=$(date +%s.%N)
wait_screen spin_alpha 600
expect top_shows_hot_function "$(cat screen top.err 2>/dev/null | head -12)"
echo "# the hot function showed $(awk -v a="$t0" -v b="$(date +%s.%N)" 'BEGIN { printf "%.1f", b - a }') s after top started"
tty_flags | grep -q -- "-icanon -echo"
expect top_raw_keys "$(tty_flags)"

$TM send-keys -t "$S" p
wait_screen "view: processes" 50 && wait_screen "$A" 50
expect top_key_process_view "$(head -6 screen)"
$TM send-keys -t "$S" c
wait_screen "view: cgroups" 50
expect top_key_cgroup_view "$(head -4 screen)"
$TM send-keys -t "$S" s
wait_screen "sort: decayed total" 50
expect top_key_sort "$(head -2 screen)"
$TM send-keys -t "$S" f
wait_screen "view: functions" 50
expect top_key_function_view "$(head -2 screen)"

# a storm of resizes, then 8 columns: every line cut to the width
TP=$(top_pid)
for w in 40 8 100 20 9 120 8 60 8 30; do
	$TM resize-window -t "$S" -x $w -y 12
	kill -WINCH "$TP" 2>/dev/null
done
i=0
while [ $i -lt 200 ]; do
	kill -WINCH "$TP" 2>/dev/null
	i=$((i + 1))
done
$TM resize-window -t "$S" -x 8 -y 6
sleep 1.5
$TM capture-pane -p -t "$S" >narrow
kill -0 "$TP" && [ "$(awk '{ if (length($0) > m) m = length($0) } END { print m + 0 }' narrow)" -le 8 ] &&
	grep -q "profil t" narrow
expect top_narrow_and_storm "alive $(kill -0 "$TP" 2>&1 && echo yes); $(cat narrow | tr '\n' '|')"
$TM resize-window -t "$S" -x 120 -y 30

# Ctrl-Z: stopped, the terminal given back; continued: taken again and redrawn
kill -TSTP "$TP"
n=0
while [ "$(awk '{ print $3 }' /proc/$TP/stat)" != T ] && [ $n -lt 100 ]; do sleep 0.05; n=$((n + 1)); done
st=$(awk '{ print $3 }' /proc/$TP/stat)
fl=$(tty_flags)
[ "$st" = T ] && echo "$fl" | grep -q "^icanon echo"
expect top_sigtstp_restores "state $st, terminal: $fl"
kill -CONT "$TP"
sleep 0.3
wait_screen "profil top" 50 && tty_flags | grep -q -- "-icanon -echo"
expect top_sigcont_resumes "$(tty_flags) $(head -2 screen)"

$TM send-keys -t "$S" q
# the shell writes the status, then stty's view of the terminal: wait for the second
wait_file top.stty
[ "$(cat top.exit 2>/dev/null)" = 0 ] && grep -q -- " icanon " top.stty && grep -q -- " echo " top.stty &&
	! grep -q "profil top" "$($TM capture-pane -p -t "$S" >after; echo after)"
expect top_q_quits_restored "exit $(cat top.exit 2>/dev/null); $(grep -o -- '-\?icanon\|-\?echo ' top.stty | tr '\n' ' '); $(cat top.err)"

# SIGTERM: quits, the terminal restored (a second session: the server lives on)
S=term
$TM new-session -d -s term -x 80 -y 20 "$P top -d 0.5; echo \$? >term.exit; stty -a >term.stty; sleep 600"
wait_screen "profil top" 300
kill -TERM "$(top_pid)"
wait_file term.stty
[ -s term.exit ] && grep -q -- " icanon " term.stty
expect top_sigterm_restores "exit $(cat term.exit 2>/dev/null) $(grep -o -- '-\?icanon' term.stty)"

# without a terminal: one table per refresh; -p: that process only
"$P" top -d 0.3 -n 2 --view process -p "$A" >batch.out 2>batch.err
rc=$?
[ $rc -eq 0 ] && [ "$(grep -c '^# refresh' batch.out)" = 2 ] &&
	[ "$(awk '$4 ~ /^[0-9]+$/ && $3 ~ /^[0-9]+$/ { print $4 }' batch.out | sort -u)" = "$A" ]
expect top_batch_pid "rc=$rc $(head -12 batch.out) $(cat batch.err)"
# a COMMAND: its processes, until it ends, and its status
"$P" top -d 0.3 -- "$SPIN" beta 0.6 >cmd.out 2>cmd.err
rc=$?
[ $rc -eq 0 ] && grep -q spin_beta cmd.out && ! grep -q spin_alpha cmd.out
expect top_command "rc=$rc $(head -8 cmd.out) $(cat cmd.err)"
"$P" top -d 0.3 -- sh -c 'exit 3' >/dev/null 2>&1
rc=$?
[ $rc -eq 3 ]
expect top_command_status "rc=$rc"
kill $A
pids=""

for bad in "-d 0" "-p 1 -- true" "--children" "--view x" "-n 0"; do
	"$P" top $bad >bad.out 2>bad.err
	rc=$?
	[ $rc -eq 2 ] && [ "$(wc -l <bad.err)" = 1 ]
	expect "top_refuses_$(echo "$bad" | tr -c 'a-z0-9\n' _)" "rc=$rc $(cat bad.err)"
done
