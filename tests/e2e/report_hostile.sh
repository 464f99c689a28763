#!/bin/sh
# Readers that trust nothing (issue 12): crafted headers whose offsets wrap around or point
# outside the file (item 2), a mapping path that is now a FIFO or a device (item 4), an event
# stream without end of line (item 11).  Every run is bounded by a timeout: status 124 is a hang.
. "$ROOT/tests/e2e/report/common.sh"
TAMPER="$B/tests/tools/pdata_tamper"

# reads NAME CMD...: status 0 within 20 s and a report on stdout
reads() {
	name=$1
	shift
	timeout 20 "$@" >"$T/out" 2>"$T/err"
	rc=$?
	if [ "$rc" -ne 0 ] || [ ! -s "$T/out" ]; then
		no "$name" "exit status $rc (124: hang): $(head -5 "$T/err")"
	else
		ok "$name"
	fi
}

"$P/report_gen_pie" "$T/good.data" >/dev/null || no gen "report_gen failed"

# ---- item 2: header offsets and counts (report_gen's table has 4096 slots of 24 bytes) ----
# case and fields; a negative value is 2^64 minus it (strtoull)
while read -r c fields; do
	cp "$T/good.data" "$T/$c.data"
	# shellcheck disable=SC2086
	"$TAMPER" "$T/$c.data" $fields || no "$c" "pdata_tamper $fields failed"
	for fmt in text json csv; do
		fails "report_${c}_$fmt" "$PROFIL" report -i "$T/$c.data" --format $fmt --threads
	done
	rm -f "$T/$c.gmon"
	fails "export_$c" "$PROFIL" export -i "$T/$c.data" -o "$T/$c.gmon"
	[ -e "$T/$c.gmon" ] && no "export_${c}_no_output" "left $T/$c.gmon" ||
		ok "export_${c}_no_output"
done <<EOF
table_wraps table_slots=4096 table_off=-94208
table_beyond table_slots=0x80000000
table_slots_not_pow2 table_slots=3000
table_misaligned table_off=4100
table_in_header table_off=0
records_wrap records_off=-4096 records_cap=8192
records_cap_huge records_cap=-1
records_over_table records_off=4096
header_size header_size=0xffffffff
EOF

# a damaged count is not a damaged layout: the records in use are bounded by the area
cp "$T/good.data" "$T/used.data"
"$TAMPER" "$T/used.data" records_used=-8
reads report_records_used_huge "$PROFIL" report -i "$T/used.data"

# ---- item 4: a mapping's path that is now a FIFO, or a device ----------------------------
mkdir "$T/bin"
cp "$P/report_gen_pie" "$P/libreport_lib.so" "$T/bin/"
"$T/bin/report_gen_pie" "$T/fifo.data" >/dev/null
cp "$T/fifo.data" "$T/dev.data"
rm "$T/bin/report_gen_pie"
mkfifo "$T/bin/report_gen_pie"
reads report_fifo_mapping "$PROFIL" report -i "$T/fifo.data"
grep -q "report_gen_pie: not a readable ELF file" "$T/out" && ok report_fifo_note ||
	no report_fifo_note "$(grep note "$T/out")"
timeout 20 "$PROFIL" export -i "$T/fifo.data" -o "$T/fifo.gmon" >/dev/null 2>"$T/err"
rc=$?
[ "$rc" -le 1 ] && [ "$(wc -l <"$T/err")" -eq 1 ] && ok "export_fifo_mapping (status $rc)" ||
	no export_fifo_mapping "status $rc (124: hang): $(cat "$T/err")"
rm "$T/bin/report_gen_pie"
ln -s /dev/zero "$T/bin/report_gen_pie"
reads report_device_mapping "$PROFIL" report -i "$T/dev.data"
grep -q "report_gen_pie: not a readable ELF file" "$T/out" && ok report_device_note ||
	no report_device_note "$(grep note "$T/out")"

# the profile itself a FIFO: refused without waiting for a writer
mkfifo "$T/fifo.in"
fails report_profile_is_fifo "$PROFIL" report -i "$T/fifo.in"

# ---- item 11: the events reader keeps its memory bounded --------------------------------
if is_asan; then
	timeout 20 "$PROFIL" events -i /dev/zero >"$T/out" 2>"$T/err"
else
	(ulimit -v 300000 && timeout 20 "$PROFIL" events -i /dev/zero) >"$T/out" 2>"$T/err"
fi
rc=$?
[ "$rc" -eq 1 ] && [ "$(wc -l <"$T/err")" -eq 1 ] && [ ! -s "$T/out" ] &&
	ok "events_dev_zero ($(cat "$T/err"))" || no events_dev_zero "status $rc: $(head -3 "$T/err")"
head -c 2000000 /dev/zero | tr '\0' x >"$T/long.jsonl"
fails events_line_too_long "$PROFIL" events -i "$T/long.jsonl"
printf '{"timestamp":1,"processId":1,"threadId":1,"hostProcessId":1,"hostThreadId":1,"processName":"%s","eventId":"1","eventName":"x","returnValue":0,"args":[]}\n' \
	"$(head -c 5000 /dev/zero | tr '\0' a)" >"$T/field.jsonl"
fails events_field_too_long "$PROFIL" events -i "$T/field.jsonl"
