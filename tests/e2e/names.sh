#!/bin/sh
# True names for every piece of code (issue 20): code without a symbol named by its
# function's FDE (on Debian's own stripped gzip, xz, python3.11 and sqlite3: every row
# of the stripped object starts where an FDE of the object starts, read with readelf);
# PLT entries as func@plt; no symbol version (@@GLIBC) in any name; inlined functions as
# frames of their own, as eu-addr2line -i names them; JIT code named from perf maps
# and jitdump files (a tiny JIT and a real node), also after the files are gone, and
# never from a map that is a symbolic link, a FIFO or another user's file.
. "$ROOT/tests/e2e/report/common.sh"
cd "$T" || exit 1

# rows OBJECT-PATH PROFILE: the whole run's functions of one object
rows() { "$PROFIL" report -i "$2" --format csv --sort dso,sym | awk -F, -v o="$1" '$1 == o { print $2 }'; }
# top PROFILE: the hottest row as "object function percent"
top() { "$PROFIL" report -i "$1" --format csv --sort dso,sym | awk -F, 'NR == 2 { print $1, $2, $4 }'; }

# ---- stripped programs: every row at an FDE's start ----
check_fde_rows() { # NAME PROGRAM-PATH PROFILE
	readelf --debug-dump=frames "$2" 2>/dev/null |
		sed -n 's/.* FDE .*pc=0*\([0-9a-f]*\)\.\..*/\1/p' | sort -u >"$T/$1.fdes"
	if [ ! -s "$T/$1.fdes" ]; then
		echo "skip fde_$1: readelf lists no FDE of $2"
		return
	fi
	rows "$2" "$3" | sed -n 's/^\[.*+0x\([0-9a-f]*\)\]$/\1/p' >"$T/$1.rows"
	n=$(wc -l <"$T/$1.rows")
	bad=$(grep -vxFf "$T/$1.fdes" "$T/$1.rows" | head -3 | tr '\n' ' ')
	if [ "$n" -eq 0 ]; then
		no "fde_$1" "no unnamed rows of $2: $(rows "$2" "$3" | head -5 | tr '\n' ' ')"
	elif [ -n "$bad" ]; then
		no "fde_$1" "rows that start at no FDE: $bad"
	else
		ok "fde_$1 ($n unnamed rows, all at FDE starts)"
	fi
}

head -c 3000000 /dev/urandom | od -An -tx1 >"$T/data.txt"
record_run() { # NAME COMMAND...: record quietly
	name=$1
	shift
	"$PROFIL" record -o "$T/$name.data" -- "$@" >/dev/null 2>"$T/$name.err" ||
		no "record_$name" "$(tail -3 "$T/$name.err")"
}
if [ -x /usr/bin/gzip ]; then
	record_run gzip sh -c 'for i in 1 2 3; do gzip -6 -c data.txt; done >/dev/null'
	check_fde_rows gzip /usr/bin/gzip "$T/gzip.data"
fi
if [ -x /usr/bin/xz ]; then
	# xz's work is in liblzma, stripped as well
	lib=$(ldd /usr/bin/xz | sed -n 's/.*liblzma[^ ]* => \([^ ]*\) .*/\1/p')
	record_run xz xz -1 -T1 -c data.txt
	[ -n "$lib" ] && check_fde_rows xz "$(readlink -f "$lib")" "$T/xz.data"
fi
if [ -x /usr/bin/python3.11 ]; then
	record_run python /usr/bin/python3.11 -c 'sum(i * i % 7 for i in range(1500000))'
	check_fde_rows python /usr/bin/python3.11 "$T/python.data"
fi
if [ -x /usr/bin/sqlite3 ]; then
	lib=$(ldd /usr/bin/sqlite3 | sed -n 's/.*libsqlite3[^ ]* => \([^ ]*\) .*/\1/p')
	record_run sqlite /usr/bin/sqlite3 :memory: \
		"WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c WHERE x < 400000) SELECT sum(x % 7), count(DISTINCT x % 1000) FROM c;"
	[ -n "$lib" ] && check_fde_rows sqlite "$(readlink -f "$lib")" "$T/sqlite.data"
fi
for f in "$T"/*.data; do
	[ -f "$f" ] || continue
	"$PROFIL" report -i "$f" --children 2>/dev/null
	"$PROFIL" report -i "$f" 2>/dev/null
done >"$T/all_reports.txt"

# ---- PLT, versions, inlined frames ----
N="$P/names_prog"
# At 9,973 Hz: the stub's share of plt_phase's samples depends on where ASLR put the
# program and libc (0.7-15 % in runs by hand: at times the samples pile up at the call
# to labs@plt); at the default 997 Hz a run beside two busy loops had none.
"$PROFIL" record -F 9973 -g -o "$T/names.data" -- "$N" 0.9 >/dev/null 2>"$T/names.err" ||
	no record_names "$(tail -3 "$T/names.err")"
rows "$N" "$T/names.data" >"$T/names.rows"
grep -qx 'labs@plt' "$T/names.rows" && ok plt_row_labs ||
	no plt_row_labs "no labs@plt row among: $(tr '\n' ' ' <"$T/names.rows")"
"$PROFIL" report -i "$T/names.data" --children >>"$T/all_reports.txt"
"$PROFIL" export -i "$T/names.data" --format folded -o "$T/names.folded" ||
	no export_folded "status $?"
cat "$T/names.folded" >>"$T/all_reports.txt"
if grep -q '@GLIBC\|@@' "$T/all_reports.txt"; then
	no no_symbol_versions "$(grep -m3 '@GLIBC\|@@' "$T/all_reports.txt")"
else
	ok no_symbol_versions
fi
"$PROFIL" report -i "$T/names.data" --format csv --sort dso,sym |
	grep -q ',clock_gettime,' && ok versioned_symbol_named ||
	no versioned_symbol_named "no clock_gettime row (libc6-dbg names it clock_gettime@@GLIBC_2.17)"

# the hottest instruction of inl_outer: its inlined chain from eu-addr2line -i, and the stack
if command -v eu-addr2line >/dev/null; then
	addr=$("$PROFIL" annotate -i "$T/names.data" --format json inl_outer | python3 -c '
import json, sys
f = json.load(sys.stdin)["annotations"][0]
hot = sorted(f["instructions"], key=lambda i: -i["samples"])
leaf = [i for i in hot if i["samples"] and i.get("inlined") == "inl_leaf"]
print(hex((leaf or hot)[0]["address"]))')
	# eu-addr2line -f -i: function names (innermost first) alternate with file:line
	chain=$(eu-addr2line -f -i -e "$N" "$addr" | awk 'NR % 2 == 1 { print $1 }' |
		tac | tr '\n' ';' | sed 's/;$//')
	case "$chain" in
	inl_outer\;*inl_*) ;;
	*) no inline_truth "eu-addr2line -i gave '$chain' at $addr: not inlined code" ;;
	esac
	grep -q ";$chain " "$T/names.folded" && ok "inline_frames_as_eu_addr2line ($chain)" ||
		no inline_frames_as_eu_addr2line "no stack ends with $chain: $(grep inl_ "$T/names.folded" | head -3)"
	"$PROFIL" report -i "$T/names.data" --inline | grep -q ' inl_mid$' &&
		ok report_inline_rows || no report_inline_rows "no inl_mid row with --inline"
	"$PROFIL" report -i "$T/names.data" | grep -q ' inl_mid$' &&
		no report_flat_without_inline "an inl_mid row without --inline" ||
		ok report_flat_without_inline
else
	echo "skip inline_frames_as_eu_addr2line: no eu-addr2line (elfutils)"
fi

# ---- JIT code ----
J="$P/jit_prog"
for mode in normal grow jitdump; do
	timeout 60 "$PROFIL" record -o "$T/jit_$mode.data" -- "$J" "$mode" 0.4 >/dev/null 2>&1
	set -- $(top "$T/jit_$mode.data")
	if [ "$2" = jitted_hot_loop ] && [ "${3%%.*}" -ge 50 ]; then
		ok "jit_$mode ($2 $3 %)"
	else
		no "jit_$mode" "top row '$*', not jitted_hot_loop"
	fi
done
# (jit_prog removed its files before it ended: the names came from the profile)
if is_asan; then
	skip jit_agent_clock "the ASan-built agent cannot be preloaded into uninstrumented programs"
else
	"$PROFIL" record --clock thread -o "$T/jit_agent.data" -- "$J" normal 0.4 >/dev/null 2>&1
	set -- $(top "$T/jit_agent.data")
	[ "$2" = jitted_hot_loop ] && ok "jit_agent_clock ($3 %)" || no jit_agent_clock "top row '$*'"
fi
for mode in symlink fifo other; do
	if [ "$mode" = other ] && [ "$(id -u)" != 0 ]; then
		echo "skip jit_refused_other: another user's file needs root to make"
		continue
	fi
	timeout 60 "$PROFIL" record -o "$T/jit_$mode.data" -- "$J" "$mode" 0.3 >/dev/null 2>&1
	rc=$?
	if [ $rc -ne 0 ]; then
		no "jit_refused_$mode" "record exited $rc (124: it hung)"
	elif "$PROFIL" report -i "$T/jit_$mode.data" | grep -q jitted_hot_loop; then
		no "jit_refused_$mode" "the name was taken from a $mode"
	else
		ok "jit_refused_$mode"
	fi
done

# a real node: --perf-basic-prof (perf map) and --perf-prof (jitdump)
if command -v node >/dev/null; then
	cat >"$T/hot.js" <<'JS'
function jittedHotLoop(n) { let s = 0; for (let i = 0; i < n; i++) { s = (s + i * 7) % 1000003; } return s; }
const t0 = process.cpuUsage(); let r = 0;
while (true) { r += jittedHotLoop(1e6); const u = process.cpuUsage(t0); if (u.user + u.system > 6e5) break; }
console.log(r);
JS
	for flag in --perf-basic-prof --perf-prof; do
		timeout 120 "$PROFIL" record -o "$T/node.data" -- node "$flag" "$T/hot.js" >/dev/null 2>&1
		pid=$("$PROFIL" report -i "$T/node.data" --format csv | awk -F, 'NR == 2 { print $1 }')
		rm -f "/tmp/perf-$pid.map" "$T"/jit-*.dump
		hot=$("$PROFIL" report -i "$T/node.data" --format csv --sort sym |
			awk -F, 'NR == 2 { print $1 " (" $3 " %)" }')
		case "$hot" in
		*jittedHotLoop*) ok "node_$flag: $hot" ;;
		*) no "node_$flag" "the hottest row is '$hot'" ;;
		esac
	done
else
	echo "skip node: no node"
fi
