#!/bin/sh
# Nothing the readers make grows without bound (issue 16, items 11 and 12): hostile inputs
# made here, every run under a timeout (124 is a hang) and, where a file could grow, under a
# file size limit that the unbounded code hit.
#  - gmon.out arcs of counts 2^64 - 1 saturate as bins do (were 180 GB per arc);
#  - a MiniDebugInfo xz bomb (a few KB of .gnu_debugdata, 300 MB decompressed) is not
#    decompressed: report's memory stays small, with a note;
#  - readers' memory follows the profile's nodes, not stacks x depth: 50,000 distinct stacks
#    under one 250-deep chain (a 3 MB profile) took 113 MB to report, 217 MB with -g, 213 MB
#    to export as pprof (2 KB per stack); now 16, 24 and 17 MB (under 64 MB asked);
#  - every output file (export gmon, pprof, folded; report --format html -o) past a file size
#    limit (SIGXFSZ held: EFBIG) or on a full file system (ENOSPC): one sentence naming the
#    error, status 1, the previous file kept, no temporary left;
#  - debuginfod: a server streaming without end (no Content-Length) is cut at
#    DEBUGINFOD_MAXSIZE, and nothing of it stays in the cache; a default maximum is sent when
#    the user set none; a refused download (another build id) is removed from the cache, so a
#    good server asked next time names the function.
. "$ROOT/tests/e2e/report/common.sh"
SRV=
cleanup() {
	for pid in $SRV; do kill "$pid" 2>/dev/null && wait "$pid" 2>/dev/null; done
	rm -rf "$T"
}
trap cleanup EXIT
unset DEBUGINFOD_URLS DEBUGINFOD_CACHE_PATH DEBUGINFOD_TIMEOUT DEBUGINFOD_MAXSIZE
G="$P/report_stackgen"
cd "$T" || exit 1

# ---- gmon.out arcs saturate ----------------------------------------------------------------
"$G" am.data arcmax >/dev/null || no gen_arcmax "report_stackgen arcmax failed"
(
	ulimit -f 100000 # 100 MB: the unbounded writer died of EFBIG here
	timeout 60 "$PROFIL" export -i am.data -o am.gmon >am.out 2>am.err
)
rc=$?
size=$(wc -c <am.gmon 2>/dev/null || echo none)
if [ $rc -eq 0 ] && [ "$size" -lt 64000 ] && grep -q "2 call-graph arcs (some saturated)" am.err; then
	ok gmon_arcs_saturate
else
	no gmon_arcs_saturate "rc=$rc size=$size $(cat am.err)"
fi
if command -v gprof >/dev/null; then
	# 64 records of 2^31 - 1 per arc, which gprof sums: 137438953408
	gprof -b -q "$G" am.gmon 2>/dev/null | grep -q "137438953408/137438953408 *cg_run" &&
		ok gmon_saturated_arcs_read_by_gprof ||
		no gmon_saturated_arcs_read_by_gprof "$(gprof -b -q "$G" am.gmon 2>&1 | head -20)"
fi

# ---- memory per node, not per stack x depth ------------------------------------------------
"$G" chain.data chain 50000 >/dev/null || no gen_chain "report_stackgen chain failed"
# ASan's quarantine would count freed memory as resident
export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}quarantine_size_mb=0"
for run in "report:report -i chain.data" "report_g:report -i chain.data -g caller" \
	"pprof:export --format pprof -i chain.data -o chain.pb.gz"; do
	name=${run%%:*}
	# shellcheck disable=SC2086 # the command's words
	rss=$(timeout 120 "$TOOLS/report_maxrss" "$name.out" "$PROFIL" ${run#*:} 2>"$name.err")
	rc=$?
	[ $rc -eq 0 ] && [ "${rss:-999999999}" -lt 64000 ]
	expect "memory_per_node_$name" "rc=$rc below_64MB=$([ "${rss:-999999999}" -lt 64000 ] && echo yes || echo "no ($rss KiB)")" "rc=0 below_64MB=yes"
done
grep -q "^# run: .*50000 samples" report.out || no chain_report_complete "$(head -10 report.out)"
[ "$(grep -c "samples" pprof.err)" -ge 1 ] && grep -q "50000 samples" pprof.err ||
	no chain_pprof_complete "$(cat pprof.err)"

# ---- output files past a file size limit, on a full file system ---------------------------
"$G" big.data big 3000 100000 >/dev/null || no gen_big "report_stackgen big failed"
# writes NAME ARGS...: export/report writing DIR/NAME; rc, the sentence in $n.err
writes() {
	n=$1
	shift
	echo previous >"$dir/$n"
	timeout 60 "$PROFIL" "$@" >/dev/null 2>"$n.err"
	rc=$?
}
# kept NAME ERROR: status 1, one sentence with the error, the previous file, nothing else
kept() {
	[ $rc -eq 1 ] && [ "$(wc -l <"$1.err")" -eq 1 ] && grep -q "cannot write $dir/$1: $2" "$1.err" &&
		[ "$(cat "$dir/$1")" = previous ] && [ "$(ls -A "$dir")" = "$1" ]
}
outputs() { # the writers, into $dir, then the check
	for w in "g.gmon:export -i big.data -o" "p.pb.gz:export --format pprof -i big.data -o" \
		"f.folded:export --format folded -i big.data -o" \
		"h.html:report -i big.data --format html -o"; do
		name=${w%%:*}
		rm -rf "${dir:?}"/* "$dir"/.[!.]* 2>/dev/null
		# shellcheck disable=SC2086 # the command's words
		(
			ulimit -f "$1"
			writes "$name" ${w#*:} "$dir/$name"
			exit $rc
		)
		rc=$?
		kept "$name" "$2"
		expect "${3}_$name" "rc=$rc $(cat "$name.err") left=$(ls -A "$dir" | tr '\n' ' ')" \
			"rc=1 $(cat "$name.err") left=$name "
	done
}
dir=$T/out
mkdir "$dir"
outputs 8 "File too large" file_size_limit
mkdir small
if mount -t tmpfs -o size=12k tmpfs small 2>/dev/null; then # 3 pages: 8 KB after "previous"
	dir=$T/small
	outputs unlimited "No space left on device" full_file_system
	umount small
else
	echo "skip full_file_system: mount -t tmpfs is not permitted here"
fi

# ---- a MiniDebugInfo bomb ------------------------------------------------------------------
if command -v xz >/dev/null; then
	mkdir m
	cp "$P/report_gen_pie" "$P/libreport_lib.so" m/
	head -c 300M /dev/zero | xz -0 -T1 >bomb.xz &&
		strip --strip-all m/report_gen_pie &&
		objcopy --add-section .gnu_debugdata=bomb.xz m/report_gen_pie ||
		no bomb_setup "strip/objcopy/xz failed"
	m/report_gen_pie m.data >/dev/null
	rss=$(timeout 60 "$TOOLS/report_maxrss" bomb.txt "$PROFIL" report -i m.data)
	rc=$?
	# the unbounded reader: 300 MB of RSS and more
	[ $rc -eq 0 ] && [ "$rss" -lt 150000 ]
	expect minidebuginfo_bomb_not_decompressed "rc=$rc rss_below_150MB=$([ "${rss:-0}" -lt 150000 ] && echo yes || echo "no ($rss KiB)")" "rc=0 rss_below_150MB=yes"
	grep -q "report_gen_pie: its MiniDebugInfo (.gnu_debugdata) decompresses to more than 64 MiB; not read" bomb.txt &&
		ok minidebuginfo_bomb_note || no minidebuginfo_bomb_note "$(grep note bomb.txt)"
else
	echo "skip minidebuginfo_bomb: xz is not installed"
fi

# ---- hostile debuginfod servers ------------------------------------------------------------
# start_server NAME MODE FILE: a server in the background; PORT, its pid added to SRV
start_server() {
	python3 "$ROOT/tests/e2e/report/debuginfod_hostile.py" "$2" "$3" "$1.log" "$1.port" \
		>/dev/null 2>&1 &
	SRV="$SRV $!"
	wait_file "$1.port"
	PORT=$(cat "$1.port" 2>/dev/null)
	[ -n "$PORT" ]
}
# hot_b's samples in a csv report (report_gen: 200 in the root process, 40 in its fork)
hot_b() { awk -F, '$3 == "hot_b" { s += $5 } END { print s + 0 }' "$1"; }
if ! command -v python3 >/dev/null; then
	echo "skip debuginfod_hostile: python3 is not installed"
	exit 0
fi
mkdir d
cp "$P/report_gen_pie" "$P/libreport_lib.so" d/
objcopy --only-keep-debug d/report_gen_pie gen.debug && strip --strip-all d/report_gen_pie &&
	objcopy --only-keep-debug "$P/report_gen_nopie" wrong.debug || no debuginfod_setup "objcopy failed"
d/report_gen_pie d.data >/dev/null

# under ASan, whole stacks for leaks, so that libdebuginfod's own (tests/lsan.supp) is told apart
export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}fast_unwind_on_malloc=0"
start_server endless endless none || no endless_server "did not start"
URL=http://127.0.0.1:$PORT
(
	ulimit -f 200000 # 200 MB: the unbounded client filled 14 GB of cache in 60 s
	DEBUGINFOD_URLS=$URL DEBUGINFOD_CACHE_PATH="$T/c1" DEBUGINFOD_MAXSIZE=2000000 \
		DEBUGINFOD_TIMEOUT=10 timeout 60 "$PROFIL" report -i d.data --format csv >e.csv 2>e.err
)
rc=$?
used=$(du -sk c1 2>/dev/null | cut -f1)
left=$(find c1 -type f ! -name cache_clean_interval_s ! -name max_unused_age_s ! -name cache_miss_s 2>/dev/null | wc -l)
[ $rc -eq 0 ] && [ "${used:-0}" -lt 4000 ] && [ "$left" -eq 0 ]
expect debuginfod_endless_stream_cut "rc=$rc cache_below_4MB=$([ "${used:-0}" -lt 4000 ] && echo yes || echo "no (${used} KiB)") entries_left=$left" "rc=0 cache_below_4MB=yes entries_left=0"
start_server wrong file wrong.debug || no wrong_server "did not start"
WRONG=http://127.0.0.1:$PORT
start_server good file gen.debug || no good_server "did not start"
GOOD=http://127.0.0.1:$PORT
DEBUGINFOD_URLS=$WRONG DEBUGINFOD_CACHE_PATH="$T/c2" DEBUGINFOD_TIMEOUT=10 \
	timeout 60 "$PROFIL" report -i d.data --format csv >w.csv 2>w.err
expect debuginfod_wrong_build_refused "$(hot_b w.csv)" 0
# no maximum set by the user: profil's default goes with the query (a server can refuse)
grep -qi "^X-DEBUGINFOD-MAXSIZE: 536870912" wrong.log &&
	ok debuginfod_default_maxsize || no debuginfod_default_maxsize "$(grep -i maxsize wrong.log)"
left=$(find c2 -name debuginfo -o -name executable | wc -l)
expect debuginfod_refused_download_not_cached "$left" 0
DEBUGINFOD_URLS=$GOOD DEBUGINFOD_CACHE_PATH="$T/c2" DEBUGINFOD_TIMEOUT=10 \
	timeout 60 "$PROFIL" report -i d.data --format csv >g.csv 2>g.err
expect debuginfod_good_server_asked_after_a_bad_one "$(hot_b g.csv)" 240
# and after a download cut at the maximum size
DEBUGINFOD_URLS=$GOOD DEBUGINFOD_CACHE_PATH="$T/c1" DEBUGINFOD_TIMEOUT=10 \
	timeout 60 "$PROFIL" report -i d.data --format csv >g1.csv 2>g1.err
expect debuginfod_good_server_asked_after_a_cut_download "$(hot_b g1.csv)" 240
