#!/bin/sh
# profil help: without a command the top-level usage (stdout, status 0, every
# command listed); with one, the command's manual page where this build's
# pages are (the build tree's $B/man here), else the command's --help; an
# unknown command is one line and status 2.

. "$ROOT/tests/lib.sh"

"$PROFIL" help >"$T/out" 2>"$T/err"
rc=$?
if [ $rc -eq 0 ] && [ ! -s "$T/err" ] && grep -q '^usage: profil COMMAND' "$T/out"; then
	ok help_usage
else
	no help_usage "rc=$rc $(cat "$T/err")"
fi
"$PROFIL" --help >"$T/top" 2>&1
cmp -s "$T/out" "$T/top" && ok help_is_dash_dash_help || no help_is_dash_dash_help "differs"
for c in record report annotate export events watch diff help; do
	grep -q "^  $c " "$T/out" && ok "usage_lists_$c" || no "usage_lists_$c" "$(cat "$T/out")"
done

# the export line names every format `profil export --format` takes
formats=$("$PROFIL" export --format bogus 2>&1 | sed -n 's/.*(\(.*\))$/\1/p' | sed 's/,//g; s/ or / /')
missing=""
for f in $formats; do
	grep "^  export " "$T/out" | grep -qw "$f" || missing="$missing $f"
done
[ -n "$formats" ] && [ -z "$missing" ] && ok help_names_export_formats ||
	no help_names_export_formats "formats '$formats', not in: $(grep '^  export ' "$T/out")"

# unknown commands, too many words
"$PROFIL" help bogus >"$T/out" 2>"$T/err"
rc=$?
[ $rc -eq 2 ] && [ ! -s "$T/out" ] && [ "$(cat "$T/err")" = "profil help: unknown command 'bogus' (try 'profil help')" ] &&
	ok help_unknown || no help_unknown "rc=$rc $(cat "$T/err")"
"$PROFIL" help record report >"$T/out" 2>"$T/err"
rc=$?
[ $rc -eq 2 ] && [ "$(wc -l <"$T/err")" -eq 1 ] && ok help_two_commands || no help_two_commands "rc=$rc $(cat "$T/err")"

# the manual page of every command, from the build tree's pages
if command -v man >/dev/null; then
	for c in record report annotate export events watch diff; do
		"$PROFIL" help $c >"$T/out" 2>"$T/err"
		rc=$?
		up=$(echo "profil-$c" | tr a-z A-Z)
		if [ $rc -eq 0 ] && head -1 "$T/out" | grep -q "^$up(1)" && grep -q '^SYNOPSIS' "$T/out"; then
			ok "help_${c}_man_page"
		else
			no "help_${c}_man_page" "rc=$rc $(head -2 "$T/out") $(cat "$T/err")"
		fi
	done
else
	echo "skip help_man_page: man (man-db) is not installed"
fi

# without man in PATH: the command's --help
PATH=/nonexistent "$PROFIL" help diff >"$T/out" 2>"$T/err"
rc=$?
[ $rc -eq 0 ] && grep -q '^usage: profil diff' "$T/out" && ok help_without_man_falls_back ||
	no help_without_man_falls_back "rc=$rc $(head -2 "$T/out") $(cat "$T/err")"

# a profil with no pages beside it nor installed: the command's --help
mandir=$(cut -d: -f5 "$B/.install-dirs" 2>/dev/null)
if [ -n "$mandir" ] && [ -e "$mandir/man1/profil-record.1" ]; then
	echo "skip help_without_pages: profil's pages are installed in $mandir"
else
	mkdir "$T/bin"
	cp "$PROFIL" "$T/bin/profil"
	"$T/bin/profil" help record >"$T/out" 2>"$T/err"
	rc=$?
	[ $rc -eq 0 ] && grep -q '^usage: profil record' "$T/out" && ok help_without_pages_falls_back ||
		no help_without_pages_falls_back "rc=$rc $(head -2 "$T/out") $(cat "$T/err")"
fi
