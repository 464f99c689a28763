#!/bin/sh
# A stripped executable whose symbols and lines live in a separate debug file
# under /usr/lib/debug/.build-id/ (as Debian's -dbgsym packages install them):
# report names its functions and lines from there.  The debug file is unique to
# this test's binary (its build id) and removed afterwards.
. "$ROOT/tests/lib.sh"

DBG=
cleanup() {
	[ -n "$DBG" ] && rm -f "$DBG"
	[ -n "$DBGDIR_NEW" ] && rmdir "$DBGDIR_NEW" 2>/dev/null
	rm -rf "$T"
}
trap cleanup EXIT

cp "$PROGS/report_gen_pie" "$PROGS/libreport_lib.so" "$T/"
id=$(readelf -n "$T/report_gen_pie" | awk '/Build ID/ { print $3 }')
if [ -z "$id" ]; then
	echo "skip debugfile: the test binary has no build id"
	exit 0
fi
objcopy --only-keep-debug "$T/report_gen_pie" "$T/gen.debug" && strip --strip-all "$T/report_gen_pie"
dir=/usr/lib/debug/.build-id/$(echo "$id" | cut -c1-2)
[ -d "$dir" ] || DBGDIR_NEW=$dir
if ! mkdir -p "$dir" 2>/dev/null || ! cp "$T/gen.debug" "$dir/$(echo "$id" | cut -c3-).debug" 2>/dev/null; then
	echo "skip debugfile: cannot write to $dir (not root?)"
	exit 0
fi
DBG="$dir/$(echo "$id" | cut -c3-).debug"

"$T/report_gen_pie" "$T/p.data" >"$T/info"
pid=$(awk '$1 == "pid" { print $2 }' "$T/info")
"$PROFIL" report -i "$T/p.data" --format csv --lines >"$T/r.csv"
got=$(awk -F, -v p="$pid" '$1 == p && $3 == "hot_b" { s += $7 } END { print s + 0 }' "$T/r.csv")
[ "$got" -eq 200 ] && ok debugfile_static_function_named || no debugfile_static_function_named "$(cat "$T/r.csv")"
awk -F, -v p="$pid" '$1 == p && $3 == "hot_a" && $5 ~ /report_gen\.c$/ && $6 > 0' "$T/r.csv" | grep -q . &&
	ok debugfile_lines || no debugfile_lines "no hot_a source line"
rm -f "$DBG"
DBG=
"$PROFIL" report -i "$T/p.data" --format csv >"$T/r2.csv"
awk -F, -v p="$pid" '$1 == p && $3 == "hot_b"' "$T/r2.csv" | grep -q . &&
	no debugfile_control "hot_b named without the debug file" || ok debugfile_control
