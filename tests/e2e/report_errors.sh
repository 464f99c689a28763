#!/bin/sh
# profil report/export on bad input: missing, empty, truncated, corrupted
# files, a directory, unknown options; each gives exactly one line on stderr and
# a non-zero exit, never a crash.  Then random byte flips in a valid profile:
# report (text, json, --threads --lines) and export must never crash.
. "$ROOT/tests/e2e/report/common.sh"

"$P/report_gen_pie" "$T/good.data" >/dev/null || no gen "report_gen failed"
: >"$T/empty.data"
head -c 3000 "$T/good.data" >"$T/short.data"
head -c 200000 "$T/good.data" >"$T/trunc.data"
printf 'this is not a profile at all, just some text that goes on for a while\n' >"$T/text.data"
cp "$T/good.data" "$T/magic.data"
printf 'XXXX' | dd of="$T/magic.data" bs=1 seek=0 conv=notrunc 2>/dev/null
cp "$T/good.data" "$T/version.data"
printf '\377' | dd of="$T/version.data" bs=1 seek=9 conv=notrunc 2>/dev/null
mkdir "$T/dir.data"

for cmd in report export; do
	o=
	[ "$cmd" = export ] && o="-o $T/g.out"
	fails "${cmd}_missing" "$PROFIL" "$cmd" -i "$T/nope.data" $o
	fails "${cmd}_empty" "$PROFIL" "$cmd" -i "$T/empty.data" $o
	fails "${cmd}_short" "$PROFIL" "$cmd" -i "$T/short.data" $o
	fails "${cmd}_truncated" "$PROFIL" "$cmd" -i "$T/trunc.data" $o
	fails "${cmd}_text" "$PROFIL" "$cmd" -i "$T/text.data" $o
	fails "${cmd}_bad_magic" "$PROFIL" "$cmd" -i "$T/magic.data" $o
	fails "${cmd}_bad_version" "$PROFIL" "$cmd" -i "$T/version.data" $o
	fails "${cmd}_directory" "$PROFIL" "$cmd" -i "$T/dir.data" $o
	fails "${cmd}_unknown_option" "$PROFIL" "$cmd" --bogus
	fails "${cmd}_unexpected_arg" "$PROFIL" "$cmd" -i "$T/good.data" extra
	fails "${cmd}_missing_arg" "$PROFIL" "$cmd" -i
done
[ -e "$T/g.out" ] && no export_no_output "a failed export left $T/g.out" || ok export_no_output
fails report_bad_format "$PROFIL" report -i "$T/good.data" --format xml
fails report_bad_sort "$PROFIL" report -i "$T/good.data" --sort size
fails report_bad_sort_key "$PROFIL" report -i "$T/good.data" --sort comm,bogus
fails report_bad_top "$PROFIL" report -i "$T/good.data" --top -1
fails report_bad_top2 "$PROFIL" report -i "$T/good.data" --top 3x
fails report_bad_top3 "$PROFIL" report -i "$T/good.data" --top 2.5
fails report_bad_percent "$PROFIL" report -i "$T/good.data" --percent-limit 101
fails report_bad_percent2 "$PROFIL" report -i "$T/good.data" --percent-limit x
fails report_bad_pid "$PROFIL" report -i "$T/good.data" --pid 12,x
fails report_bad_tid "$PROFIL" report -i "$T/good.data" --tid -3
fails report_empty_comm "$PROFIL" report -i "$T/good.data" --comm ,
fails report_csv_threads_keys "$PROFIL" report -i "$T/good.data" --format csv --threads --sort pid
fails export_object_unknown "$PROFIL" export -i "$T/good.data" -o "$T/g.out" --object no_such_object
fails export_object_pprof "$PROFIL" export -i "$T/good.data" --format pprof --object x
fails export_bad_format "$PROFIL" export --format svg -i "$T/good.data"
fails export_no_dir "$PROFIL" export -i "$T/good.data" -o "$T/no/such/dir/gmon.out"
ln -s "$T/target" "$T/link.out"
fails export_symlink "$PROFIL" export -i "$T/good.data" -o "$T/link.out"
[ -e "$T/target" ] && no export_symlink_untouched "followed the link" || ok export_symlink_untouched
ls -a "$T" | grep -q '^\.gmon\.' && no export_no_temp "temporary file left behind" || ok export_no_temp

# random damage: never killed by a signal (ASan/UBSan reports also fail here)
n=${FUZZ_RUNS:-150}
case "$B" in */asan) n=${FUZZ_RUNS:-60} ;; esac
crashes=0
i=0
while [ "$i" -lt "$n" ]; do
	"$TOOLS/report_fuzz" "$T/good.data" "$T/f.data" "$i" $((1 + i % 24)) || { no fuzz_gen "seed $i"; break; }
	for args in "" "--format json --threads --lines" "--format csv --sort name --top 3" \
		"--sort pid,tid,comm,dso --images --threads --percent-limit 1" "--format csv --sort sym --comm report_gen"; do
		# shellcheck disable=SC2086
		"$PROFIL" report -i "$T/f.data" $args >/dev/null 2>"$T/ferr"
		rc=$?
		if [ "$rc" -gt 2 ]; then
			crashes=$((crashes + 1))
			echo "# seed $i args '$args': status $rc: $(head -5 "$T/ferr")"
		fi
	done
	"$PROFIL" export -i "$T/f.data" -o "$T/f.gmon" >/dev/null 2>"$T/ferr"
	rc=$?
	if [ "$rc" -gt 2 ]; then
		crashes=$((crashes + 1))
		echo "# seed $i export: status $rc: $(head -5 "$T/ferr")"
	fi
	i=$((i + 1))
done
[ "$crashes" -eq 0 ] && ok "fuzz: $n damaged profiles, no crash" || no fuzz "$crashes crashes"
