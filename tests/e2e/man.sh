#!/bin/sh
# The manual pages (doc/man/, formatted into $B/man/ by the build): each one
# renders with man -l without a warning, passes groff -ww and mandoc -T lint
# (when installed), has the version filled in; profil and every command of
# `profil --help` have their page, whose OPTIONS are exactly the options of
# the command's table (its --help), spellings and values; the build tree's
# pages name install paths only as where files are installed; libprofil(3)
# names every function of include/profil.h.
. "$ROOT/tests/lib.sh"

M="$B/man"

pages=$(ls "$M"/man1/*.1 "$M"/man3/*.3 2>/dev/null)
[ -n "$pages" ] || { no pages_built "nothing in $M"; exit 0; }
have_man=$(command -v man)
for page in $pages; do
	name=$(basename "$page")
	if [ -n "$have_man" ]; then
		MANWIDTH=80 man --warnings -l "$page" >"$T/out" 2>"$T/err"
		rc=$?
		if [ $rc -eq 0 ] && [ ! -s "$T/err" ] && grep -q '^NAME' "$T/out" &&
			grep -q '^SEE ALSO' "$T/out"; then
			ok "man_l_$name"
		else
			no "man_l_$name" "rc=$rc $(head -3 "$T/err")"
		fi
		if grep -q -- '‐' "$T/out"; then
			no "no_hyphenation_$name" "$(grep -- '‐' "$T/out" | head -2)"
		else
			ok "no_hyphenation_$name"
		fi
	fi
	if command -v groff >/dev/null; then
		out=$(groff -ww -z -man "$page" 2>&1)
		[ -z "$out" ] && ok "groff_ww_$name" || no "groff_ww_$name" "$out"
	fi
	if command -v mandoc >/dev/null; then
		out=$(mandoc -T lint -W warning "$page" 2>&1)
		[ -z "$out" ] && ok "mandoc_lint_$name" || no "mandoc_lint_$name" "$out"
	fi
	if grep -q '@[A-Z]*@' "$page"; then
		no "filled_in_$name" "$(grep '@[A-Z]*@' "$page" | head -2)"
	else
		ok "filled_in_$name"
	fi
done
[ -n "$have_man" ] || echo "skip man_l: man (man-db) is not installed"

# rendered text of a page, hyphens plain
render() { MANWIDTH=200 man -l "$1" 2>/dev/null | sed 's/‐/-/g'; }

# The options of a command's table (its --help is generated from it) and of its page's
# OPTIONS section (one .TP per option) are the same: "SPELLING VALUE" per line, sorted;
# VALUE in lower case ("-" for none, "[file]" for an optional one), as the page writes it.
table_options() {
	"$PROFIL" "$@" --help | awk '
	/^  (-[A-Za-z]|    --)/ {
		n = split($0, w, " ")
		k = 0
		for (i = 1; i <= n; i++) {
			t = w[i]
			if (t !~ /^--?[A-Za-z]/)
				break
			sub(/,$/, "", t)
			opt[++k] = t
			if (w[i] !~ /,$/) { i++; break }
		}
		arg = (i <= n && w[i] ~ /^\[?[A-Z]/) ? tolower(w[i]) : "-"
		for (j = 1; j <= k; j++) print opt[j], arg
	}' | sort
}
page_options() {
	awk '
	/^\.SH/ { in_opts = ($2 == "OPTIONS") }
	in_opts && prev == ".TP" {
		line = $0
		sub(/^\.[A-Z]+ /, "", line)
		gsub(/\\-/, "-", line)
		gsub(/\\f[IPBR]/, "", line)
		gsub(/"/, "", line)
		n = split(line, w, / +/)
		k = 0
		arg = ""
		for (i = 1; i <= n; i++) {
			if (w[i] == ",")
				continue
			if (w[i] ~ /^--?[A-Za-z]/ && arg == "") {
				sub(/,$/, "", w[i])
				opt[++k] = w[i]
			} else {
				arg = arg w[i]
			}
		}
		if (arg == "") arg = "-"
		for (j = 1; j <= k; j++) print opt[j], arg
	}
	{ prev = $0 }' "$1" | sort
}

# every command has its page, whose options are its table's; profil(1) refers to it
cmds=$("$PROFIL" --help | sed -n '/^commands:/,/^$/s/^  \([a-z][a-z-]*\) .*/\1/p' | grep -v '^help$')
[ -n "$cmds" ] || no commands_listed "profil --help lists no command"
for c in "" $cmds; do
	name=profil${c:+-$c}
	page="$ROOT/doc/man/$name.1"
	if [ ! -f "$page" ]; then
		no "page_$name" "missing: $page"
		continue
	fi
	ok "page_$name"
	table_options $c >"$T/table"
	page_options "$page" >"$T/page_opts"
	[ -s "$T/table" ] || no "table_options_$name" "'profil $c --help' lists no option"
	if cmp -s "$T/table" "$T/page_opts"; then
		ok "options_match_table_$name"
	else
		no "options_match_table_$name" "$name(1) vs 'profil $c --help' (< table, > page): $(diff "$T/table" "$T/page_opts" | grep '^[<>]' | tr '\n' ';')"
	fi
	[ -n "$c" ] || continue
	[ -n "$have_man" ] || continue
	render "$M/man1/profil.1" | grep -q "profil-$c(1)" && ok "profil_1_names_$c" ||
		no "profil_1_names_$c" "profil(1) does not refer to profil-$c(1)"
done

# libprofil(3): every function of the public header
if [ -n "$have_man" ]; then
	render "$M/man3/libprofil.3" >"$T/lib"
	missing=""
	for fn in $(grep -oE '^[a-z][a-z_ ]*\*?(sprofil|profil[a-z_]*)\(' "$ROOT/include/profil.h" |
		grep -oE '(sprofil|profil[a-z_]*)\($' | tr -d '('); do
		grep -q "$fn(" "$T/lib" || missing="$missing $fn"
	done
	if [ -z "$missing" ]; then ok libprofil_3_functions; else no libprofil_3_functions "missing:$missing"; fi
	grep -q '^NAME' "$T/lib" && sed -n '/^NAME/,/^LIBRARY/p' "$T/lib" | grep -q 'libprofil, profil, sprofil' &&
		ok libprofil_3_name || no libprofil_3_name "$(sed -n '/^NAME/,+3p' "$T/lib")"
fi

# the build tree's pages (what `profil help` shows before any install) name an install
# path only as where the file is installed: the agent's and the documents' directories
# appear in a sentence that says "installed"
libdir=$(cut -d: -f3 "$B/.install-dirs" 2>/dev/null)
docdir=$(cut -d: -f7 "$B/.install-dirs" 2>/dev/null)
if [ -n "$have_man" ] && [ -n "$libdir" ] && [ -n "$docdir" ]; then
	for page in $pages; do
		name=$(basename "$page")
		bad=$(render "$page" | tr -s ' ' | awk -v a="$libdir/profil" -v d="$docdir" '
			{ w[NR % 3] = $0 }
			index($0, a) || index($0, d) {
				ctx = w[(NR + 1) % 3] " " w[(NR + 2) % 3] " " $0
				if (ctx !~ /installed/) print $0
			}')
		[ -z "$bad" ] && ok "install_paths_said_installed_$name" ||
			no "install_paths_said_installed_$name" "$bad"
	done
fi
