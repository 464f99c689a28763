#!/bin/sh
# profil export --format gmon, read by the real binutils gprof: PIE (load bias
# removed), non-PIE and static executables show the right functions with the
# right seconds; a bin of 70000 samples (> 65535) is summed back by gprof from
# equal-range histogram records; shared-library time is left out.  --object picks
# a library (gprof reads it), the choice is said, the object with the most
# samples is chosen (a library too), and a stripped object gets a warning that
# gprof confirms.
. "$ROOT/tests/e2e/report/common.sh"

if ! command -v gprof >/dev/null; then
	echo "skip gmon: gprof (binutils) is not installed"
	exit 0
fi
# self seconds of a function in gprof's flat profile (no call counts: name is field 4)
self() { awk -v f="$2" '$NF == f && NF == 4 { print $3 }' "$1"; }

for v in pie nopie static; do
	exe="$P/report_gen_$v"
	"$exe" "$T/$v.data" big >/dev/null || { no "gen_$v" "report_gen failed"; continue; }
	if ! "$PROFIL" export --format gmon -i "$T/$v.data" -o "$T/$v.gmon" 2>"$T/err"; then
		no "export_$v" "$(cat "$T/err")"
		continue
	fi
	ok "export_$v"
	# in the executable: hot_a 300 + hot_b 240 + hot_c 80 + hot_d 70000; elsewhere: lib_hot
	# 150 (in the executable when static), libc 50 (none when static), unmapped 10, vdso 5,
	# and the exec'd /bin/true image's 7
	case $v in
	static) want="70770 samples of $exe at 1000 Hz (22 elsewhere left out); chosen as the object with the most samples (70770 of 70770 in 1 object;" ;;
	*) want="70620 samples of $exe at 1000 Hz (222 elsewhere left out); chosen as the object with the most samples (70620 of 70820 in 3 objects;" ;;
	esac
	grep -qF "$want" "$T/err" && ok "export_${v}_summary" || no "export_${v}_summary" "$(cat "$T/err")"
	gprof -b -p "$exe" "$T/$v.gmon" >"$T/$v.prof" 2>"$T/$v.gerr"
	expect "gprof_${v}_status" "$?" 0
	grep -q 'Each sample counts as 0.001 seconds' "$T/$v.prof" &&
		ok "gprof_${v}_rate" || no "gprof_${v}_rate" "$(head -4 "$T/$v.prof")"
	# hot_d: 70000 samples in ONE bin (two equal-range records, summed by gprof)
	expect "gprof_${v}_big_bin" "$(self "$T/$v.prof" hot_d)" 70.00
	expect "gprof_${v}_hot_a" "$(self "$T/$v.prof" hot_a)" 0.30
	# hot_b: 200 in the parent and 40 in the forked child (the same executable)
	expect "gprof_${v}_hot_b" "$(self "$T/$v.prof" hot_b)" 0.24
	expect "gprof_${v}_hot_c" "$(self "$T/$v.prof" hot_c)" 0.08
	if [ "$v" = static ]; then
		expect "gprof_${v}_lib_hot_linked_in" "$(self "$T/$v.prof" lib_hot)" 0.15
	else
		expect "gprof_${v}_no_lib" "$(self "$T/$v.prof" lib_hot)" ""
	fi
	# 20-byte header, then two histogram records of equal size: both start with tag 0
	size=$(wc -c <"$T/$v.gmon")
	second=$((20 + (size - 20) / 2))
	expect "gmon_${v}_tags" "$(od -An -tx1 -j20 -N1 "$T/$v.gmon" | tr -d ' ')$(od -An -tx1 -j$second -N1 "$T/$v.gmon" | tr -d ' ')" 0000
done

# without the big bin: one record only
"$P/report_gen_pie" "$T/small.data" >/dev/null
"$PROFIL" export -i "$T/small.data" -o "$T/small.gmon" 2>/dev/null
gprof -b -p "$P/report_gen_pie" "$T/small.gmon" >"$T/small.prof" 2>&1
expect gprof_small_hot_a "$(self "$T/small.prof" hot_a)" 0.30
big=$(wc -c <"$T/pie.gmon")
small=$(wc -c <"$T/small.gmon")
expect gmon_one_record "$((big - 20))" "$((2 * (small - 20)))"

# --object: a library, by base name and by path; gprof reads its own link-time addresses
for obj in libreport_lib.so "$P/libreport_lib.so"; do
	if "$PROFIL" export -i "$T/small.data" -o "$T/lib.gmon" --object "$obj" 2>"$T/err"; then
		grep -qF "150 samples of $P/libreport_lib.so at 1000 Hz (692 elsewhere left out); the object asked for (--object)" "$T/err" &&
			ok "object_summary ($obj)" || no "object_summary ($obj)" "$(cat "$T/err")"
		gprof -b -p "$P/libreport_lib.so" "$T/lib.gmon" >"$T/lib.prof" 2>&1
		expect "object_gprof_lib_hot ($obj)" "$(self "$T/lib.prof" lib_hot)" 0.15
	else
		no "object_export ($obj)" "$(cat "$T/err")"
	fi
done
# the object with the most samples is chosen, a library too
"$P/report_gen_pie" "$T/lib.data" lib >/dev/null
"$PROFIL" export -i "$T/lib.data" -o "$T/auto.gmon" 2>"$T/err"
grep -qF "5150 samples of $P/libreport_lib.so at 1000 Hz (692 elsewhere left out); chosen as the object with the most samples (5150 of 5820 in 3 objects; --object PATH picks another)" "$T/err" &&
	ok object_chosen_library || no object_chosen_library "$(cat "$T/err")"
gprof -b -p "$P/libreport_lib.so" "$T/auto.gmon" >"$T/auto.prof" 2>&1
expect object_chosen_gprof "$(self "$T/auto.prof" lib_hot)" 5.15
# a stripped executable: exported, with a warning that gprof confirms
"$P/report_gen_stripped" "$T/s.data" >/dev/null
"$PROFIL" export -i "$T/s.data" -o "$T/s.gmon" 2>"$T/err"
expect stripped_status "$?" 0
grep -qF "profil export: warning: $P/report_gen_stripped has no symbol table (stripped): gprof will say it has no symbols" "$T/err" &&
	ok stripped_warning || no stripped_warning "$(cat "$T/err")"
gprof -b -p "$P/report_gen_stripped" "$T/s.gmon" 2>&1 | grep -q 'has no symbols' &&
	ok stripped_gprof_agrees || no stripped_gprof_agrees "gprof read symbols in the stripped object"
"$PROFIL" export -i "$T/small.data" -o "$T/x.gmon" 2>"$T/err"
grep -q warning "$T/err" && no no_warning_unstripped "$(cat "$T/err")" || ok no_warning_unstripped
# record --gmon takes the same path: it says what it chose
if "$PROFIL" record --help >/dev/null 2>&1; then
	"$PROFIL" record -o "$T/r.data" --gmon "$T/r.gmon" -- "$P/report_spin" >/dev/null 2>"$T/err"
	grep -q "^profil record: $T/r.gmon: [0-9]* samples of .* at [0-9]* Hz (.*); chosen as the object with the most samples" "$T/err" &&
		ok record_gmon_says || no record_gmon_says "$(cat "$T/err")"
fi
