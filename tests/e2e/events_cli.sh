#!/bin/sh
# profil events: filters, table output, bad input (tests/e2e/events_fixture.jsonl).
. "$ROOT/tests/lib.sh"

FIX="$ROOT/tests/e2e/events_fixture.jsonl"

# --- filters -------------------------------------------------------------
"$PROFIL" events -i "$FIX" >"$T/all" || no "no filter" "exit $?"
expect "no filter keeps all 12 lines byte for byte" "$(cat "$T/all")" "$(cat "$FIX")"

"$PROFIL" events -i "$FIX" --pid 100 --event prof >"$T/out"
expect "--pid 100 --event prof: 2 events" "$(wc -l <"$T/out")" 2
expect "--pid 100 --event prof: the input lines" "$(cat "$T/out")" "$(sed -n '2p;10p' "$FIX")"

"$PROFIL" events -i "$FIX" --comm 'we"ird\name' >"$T/out"
expect "--comm with quote and backslash" "$(wc -l <"$T/out")" 2

"$PROFIL" events -i "$FIX" --event setitimer,perf_event_open >"$T/out"
expect "--event list" "$(sed 's/.*"eventId":"\([0-9]*\)".*/\1/' "$T/out" | tr '\n' ' ' | sed 's/ $//')" "38 298"

"$PROFIL" events -i "$FIX" --pid 100 --pid 300 --event sched_process_exit,perf_event_open >"$T/out"
expect "repeated --pid, two event kinds" "$(wc -l <"$T/out")" 2

"$PROFIL" events -i "$FIX" --comm nosuch >"$T/out"
expect "no match: empty output" "$(wc -c <"$T/out")" 0

cat "$FIX" | "$PROFIL" events -i - --event profil >"$T/out"
expect "stdin input" "$(wc -l <"$T/out")" 1

# --- table -----------------------------------------------------------------
"$PROFIL" events -i "$FIX" --format table >"$T/table"
expect "table: header + 12 rows" "$(wc -l <"$T/table")" 13
expect "table header" "$(head -1 "$T/table")" \
	"TIME(UTC)        PID     TID     COMM             EVENT              RET   ARGS"
expect "table profil row" \
	"$(grep ' profil ' "$T/table")" \
	"14:00:00.003000  100     100     demo             profil             0     buf=0x7ffc0000a000 buflen=4096 offset=0x1234 scale=32768 pc=0x5555555551a9"
expect "table prof FLAGS/EVENTS decoded" "$(grep -c 'FLAGS=DISABLE|ON_EXIT|CLOCK_ITIMER EVENTS=\[ITIMER_PROF\]' "$T/table")" \
	1
expect "table perf_event_open return value" "$(grep -c 'perf_event_open    3     pid=0 cpu=-1' "$T/table")" 1

# --- bad input -------------------------------------------------------------
bad() { # name, file, expected line number
	"$PROFIL" events -i "$2" >"$T/o" 2>"$T/e"
	rc=$?
	if [ "$rc" -ne 0 ] && [ "$(wc -l <"$T/e")" -eq 1 ] && grep -q "$2:$3:" "$T/e"; then
		ok "$1"
	else
		no "$1" "rc=$rc stderr='$(cat "$T/e")'"
	fi
}
{ sed -n '1,4p' "$FIX"; sed -n '5p' "$FIX" | cut -c1-100; sed -n '6,12p' "$FIX"; } >"$T/cut.jsonl"
bad "truncated line 5: one sentence, file:line, non-zero" "$T/cut.jsonl" 5
{ sed -n '1,2p' "$FIX"; echo 'hello world'; } >"$T/garbage.jsonl"
bad "garbage line 3" "$T/garbage.jsonl" 3
{ sed -n '1p' "$FIX"; sed -n '2p' "$FIX" | sed 's/"eventName":"prof",//'; } >"$T/missing.jsonl"
bad "missing eventName on line 2" "$T/missing.jsonl" 2
{ sed -n '1p' "$FIX"; echo '[1,2,3]'; } >"$T/array.jsonl"
bad "JSON array on line 2" "$T/array.jsonl" 2
{ sed -n '1p' "$FIX"; sed -n '2p' "$FIX" | tr -d '\n'; printf '}'; echo; } >"$T/trail.jsonl"
bad "trailing garbage after the object on line 2" "$T/trail.jsonl" 2
head -c 300 "$FIX" >"$T/eof.jsonl"
"$PROFIL" events -i "$T/eof.jsonl" >/dev/null 2>"$T/e"
rc=$?
if [ $rc -ne 0 ] && grep -q "eof.jsonl:1: .*truncated" "$T/e"; then ok "cut at EOF says truncated"; else no "cut at EOF says truncated" "rc=$rc $(cat "$T/e")"; fi

"$PROFIL" events -i "$T/nonexistent" >/dev/null 2>"$T/e"
rc=$?
if [ $rc -ne 0 ] && [ "$(wc -l <"$T/e")" -eq 1 ] && grep -q "cannot open .*nonexistent" "$T/e"; then
	ok "missing file: one sentence"
else
	no "missing file: one sentence" "rc=$rc $(cat "$T/e")"
fi
"$PROFIL" events -i "$FIX" --event nosuchevent >/dev/null 2>"$T/e"
rc=$?
if [ $rc -eq 2 ] && [ "$(wc -l <"$T/e")" -eq 1 ]; then ok "unknown --event: exit 2"; else no "unknown --event: exit 2" "rc=$rc"; fi
"$PROFIL" events -i "$FIX" --format xml >/dev/null 2>"$T/e"
rc=$?
if [ $rc -eq 2 ]; then ok "bad --format: exit 2"; else no "bad --format: exit 2" "rc=$rc"; fi
exit 0
