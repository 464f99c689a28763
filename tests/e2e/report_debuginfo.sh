#!/bin/sh
# Symbols from anywhere: a stripped executable whose static function hot_b
# (200 samples) lives only in a separate debug file is named through
#   - its .gnu_debuglink (the debug file beside it), checked by build id;
#   - a real debuginfod server on localhost (DEBUGINFOD_URLS), the debug file
#     being nowhere on the local paths;
# and never through the network when DEBUGINFOD_URLS is unset; and through
# MiniDebugInfo (.gnu_debugdata) when that is all there is.  A FIFO at the
# debuglink path does not hang the report.  With the build ids recorded in the
# profile, a rebuilt binary is noted as such, an identical one touched later is
# not, and a binary gone since recording is read from its debug file found by
# build id (through debuginfod).
. "$ROOT/tests/e2e/report/common.sh"
SRV=
cleanup() {
	[ -n "$SRV" ] && kill "$SRV" 2>/dev/null && wait "$SRV" 2>/dev/null
	rm -rf "$T"
}
trap cleanup EXIT
unset DEBUGINFOD_URLS DEBUGINFOD_CACHE_PATH DEBUGINFOD_TIMEOUT

# hot_b's samples in the csv report of the generator's process (the column named "samples")
hot_b() {
	awk -F, -v p="$1" 'NR == 1 { for (i = 1; i <= NF; i++) if ($i == "samples") c = i; next }
		$1 == p && $3 == "hot_b" { s += $c } END { print c ? s + 0 : "no samples column" }' "$2"
}
# report with a bound: a hang is a failure, not a stuck suite
report() { timeout 60 "$PROFIL" report "$@"; }

mkdir "$T/a" "$T/srv"
cp "$P/report_gen_pie" "$P/libreport_lib.so" "$T/a/"
id=$(readelf -n "$T/a/report_gen_pie" | awk '/Build ID/ { print $3 }')
objcopy --only-keep-debug "$T/a/report_gen_pie" "$T/a/gen.debug" &&
	strip --strip-all "$T/a/report_gen_pie" &&
	objcopy --add-gnu-debuglink="$T/a/gen.debug" "$T/a/report_gen_pie" || no setup "objcopy failed"
"$T/a/report_gen_pie" "$T/p.data" >"$T/info"
pid=$(awk '$1 == "pid" { print $2 }' "$T/info")

# 1. .gnu_debuglink: the debug file beside the binary
report -i "$T/p.data" --format csv --lines >"$T/link.csv"
expect debuglink_static_function "$(hot_b "$pid" "$T/link.csv")" 200
awk -F, -v p="$pid" '$1 == p && $3 == "hot_a" && $5 ~ /report_gen\.c$/ && $6 > 0' "$T/link.csv" |
	grep -q . && ok debuglink_lines || no debuglink_lines "no hot_a source line: $(head -c 600 "$T/link.csv")"
report -i "$T/p.data" >"$T/link.txt"
grep -q "stripped; names from .dynsym" "$T/link.txt" &&
	no debuglink_no_stripped_note "$(grep note "$T/link.txt")" || ok debuglink_no_stripped_note

# a debug file of another build under the debuglink name is refused (build id check)
mv "$T/a/gen.debug" "$T/srv/gen.debug"
objcopy --only-keep-debug "$P/report_gen_nopie" "$T/a/gen.debug"
report -i "$T/p.data" --format csv >"$T/wrong.csv"
expect debuglink_wrong_build_refused "$(hot_b "$pid" "$T/wrong.csv")" 0

# a FIFO under the debuglink name: no wait for a writer, the report ends
rm "$T/a/gen.debug"
mkfifo "$T/a/gen.debug"
report -i "$T/p.data" --format csv >"$T/fifo.csv"
rc=$?
[ "$rc" -eq 0 ] && ok "debuglink_fifo_no_hang" || no debuglink_fifo_no_hang "exit $rc"
expect debuglink_fifo_not_read "$(hot_b "$pid" "$T/fifo.csv")" 0
rm "$T/a/gen.debug"

# 2. no debug file on the local paths, DEBUGINFOD_URLS unset: no name, no network, no cache
DEBUGINFOD_CACHE_PATH="$T/cache0" report -i "$T/p.data" --format csv >"$T/none.csv"
expect no_debuginfo_no_name "$(hot_b "$pid" "$T/none.csv")" 0
[ ! -e "$T/cache0" ] && ok debuginfod_unset_untouched || no debuginfod_unset_untouched "cache made"

# MiniDebugInfo: the function symbols .dynsym lacks, xz-compressed in .gnu_debugdata
if command -v xz >/dev/null; then
	mkdir "$T/m"
	cp "$P/report_gen_pie" "$P/libreport_lib.so" "$T/m/"
	cd "$T/m" &&
		nm -D report_gen_pie --format=posix --defined-only | awk '{ print $1 }' | sort >dyn &&
		nm report_gen_pie --format=posix --defined-only | awk '$2 ~ /^[Tt]$/ { print $1 }' | sort >funcs &&
		comm -13 dyn funcs >keep &&
		objcopy --only-keep-debug report_gen_pie full.debug &&
		objcopy -S --keep-symbols=keep full.debug mini.debug && xz mini.debug &&
		strip --strip-all report_gen_pie &&
		objcopy --add-section .gnu_debugdata=mini.debug.xz report_gen_pie && rm full.debug &&
		cd - >/dev/null || no minidebuginfo_setup "objcopy/xz failed"
	"$T/m/report_gen_pie" "$T/m.data" >"$T/minfo"
	mpid=$(awk '$1 == "pid" { print $2 }' "$T/minfo")
	report -i "$T/m.data" --format csv >"$T/mini.csv"
	expect minidebuginfo_static_function "$(hot_b "$mpid" "$T/mini.csv")" 200
else
	echo "skip minidebuginfo: xz is not installed"
fi

# 3. profil record stores the build ids the kernel reports (MMAP2); a rebuilt binary is noted
mkdir "$T/r"
cp "$P/report_spin" "$P/libreport_lib.so" "$T/r/"
rid=$(readelf -n "$T/r/report_spin" | awk '/Build ID/ { print $3 }')
if "$PROFIL" record --clock perf -o "$T/r.data" -- "$T/r/report_spin" >/dev/null 2>"$T/rec.err"; then
	got=$("$TOOLS/pdata_dump" "$T/r.data" | awk -v p="$T/r/report_spin" '$1 == "map" && $NF == "path=" p { print $7 }' | head -n 1)
	expect record_build_id "$got" "build_id=$rid"
	cp "$P/report_gen_nopie" "$T/r/report_spin"
	"$PROFIL" report -i "$T/r.data" >"$T/rrebuilt.txt"
	grep -q "^# note: $T/r/report_spin: rebuilt after it was recorded (its build id differs)" \
		"$T/rrebuilt.txt" && ok record_rebuilt_note || no record_rebuilt_note "$(grep note "$T/rrebuilt.txt")"
else
	echo "skip record_build_id: perf clock refused: $(cat "$T/rec.err")"
fi

# 4. a debuginfod server on localhost serving the debug file's directory
free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }
start_server() {
	port=$(free_port) || return 1
	debuginfod -F -p "$port" -d "$T/db.sqlite" -t 0 -g 0 "$T/srv" >"$T/srv.log" 2>&1 &
	SRV=$!
	URL="http://127.0.0.1:$port"
	# ready once it serves the debug file (the scan is asynchronous); bounded
	i=0
	while [ $i -lt 60 ]; do
		kill -0 "$SRV" 2>/dev/null || return 1
		DEBUGINFOD_URLS=$URL DEBUGINFOD_CACHE_PATH="$T/probe" DEBUGINFOD_TIMEOUT=5 \
			debuginfod-find debuginfo "$id" >/dev/null 2>&1 && return 0
		rm -rf "$T/probe"
		sleep 0.5
		i=$((i + 1))
	done
	return 1
}
if ! command -v debuginfod >/dev/null || ! command -v debuginfod-find >/dev/null; then
	echo "skip debuginfod: the debuginfod package is not installed"
	exit 0
fi
if ! start_server; then
	echo "skip debuginfod: the server did not start or scan: $(tail -n 3 "$T/srv.log")"
	exit 0
fi
ok debuginfod_server_ready
# the binary's debuglink name is found nowhere: only the server has the file
DEBUGINFOD_URLS=$URL DEBUGINFOD_CACHE_PATH="$T/cache" DEBUGINFOD_TIMEOUT=10 \
	report -i "$T/p.data" --format csv --lines >"$T/dinfod.csv"
expect debuginfod_static_function "$(hot_b "$pid" "$T/dinfod.csv")" 200
awk -F, -v p="$pid" '$1 == p && $3 == "hot_a" && $5 ~ /report_gen\.c$/ && $6 > 0' "$T/dinfod.csv" |
	grep -q . && ok debuginfod_lines || no debuginfod_lines "no hot_a source line"
[ -n "$(find "$T/cache" -type f -name 'debuginfo' 2>/dev/null)" ] && ok debuginfod_cached ||
	no debuginfod_cached "nothing in $T/cache"

# 5. build ids recorded in the profile (as the perf session records them)
cp "$P/report_gen_pie" "$T/a/report_gen_pie"
REPORT_GEN_BUILD_IDS=1 "$T/a/report_gen_pie" "$T/q.data" >"$T/qinfo"
qpid=$(awk '$1 == "pid" { print $2 }' "$T/qinfo")
touch -d '+1 hour' "$T/a/report_gen_pie" 2>/dev/null
report -i "$T/q.data" >"$T/touched.txt"
grep -q "report_gen_pie: modified after\|report_gen_pie: rebuilt" "$T/touched.txt" &&
	no build_id_same_file_no_note "$(grep note "$T/touched.txt")" || ok build_id_same_file_no_note
cp "$P/report_gen_nopie" "$T/a/report_gen_pie"
report -i "$T/q.data" >"$T/rebuilt.txt"
grep -q "^# note: $T/a/report_gen_pie: rebuilt after it was recorded (its build id differs)" \
	"$T/rebuilt.txt" && ok build_id_rebuilt_note || no build_id_rebuilt_note "$(grep note "$T/rebuilt.txt")"
# gone: read from the debug file the server has for its build id
rm "$T/a/report_gen_pie"
DEBUGINFOD_URLS=$URL DEBUGINFOD_CACHE_PATH="$T/cache2" DEBUGINFOD_TIMEOUT=10 \
	report -i "$T/q.data" --format csv >"$T/gone.csv"
expect gone_by_build_id_static_function "$(hot_b "$qpid" "$T/gone.csv")" 200
DEBUGINFOD_URLS=$URL DEBUGINFOD_CACHE_PATH="$T/cache2" report -i "$T/q.data" >"$T/gone.txt"
grep -q "^# note: $T/a/report_gen_pie: gone or rebuilt since it was recorded; read .*, found by its build id through debuginfod" \
	"$T/gone.txt" && ok gone_by_build_id_note || no gone_by_build_id_note "$(grep note "$T/gone.txt")"

# an unreachable server: the report ends, unnamed (the port is closed now)
kill "$SRV" && wait "$SRV" 2>/dev/null
SRV=
DEBUGINFOD_URLS=$URL DEBUGINFOD_CACHE_PATH="$T/cache3" DEBUGINFOD_TIMEOUT=5 \
	report -i "$T/p.data" --format csv >"$T/down.csv"
rc=$?
[ "$rc" -eq 0 ] && ok debuginfod_down_status || no debuginfod_down_status "exit $rc"
expect debuginfod_down_no_name "$(hot_b "$pid" "$T/down.csv")" 0
