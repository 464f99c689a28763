#!/bin/sh
# The manual pages (doc/man/, formatted into $B/man/ by the build): each one
# renders with man -l without a warning, passes groff -ww and mandoc -T lint
# (when installed), has the version filled in; every command of `profil
# --help` has its page, every option of its --help is in that page, and
# libprofil(3) names every function of include/profil.h.
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

# every command has its page; every option of its --help is in it
cmds=$("$PROFIL" --help | sed -n '/^commands:/,/^$/s/^  \([a-z][a-z-]*\) .*/\1/p' | grep -v '^help$')
[ -n "$cmds" ] || no commands_listed "profil --help lists no command"
for c in $cmds; do
	page="$M/man1/profil-$c.1"
	if [ ! -f "$page" ]; then
		no "page_profil-$c" "missing: $page"
		continue
	fi
	ok "page_profil-$c"
	[ -n "$have_man" ] || continue
	render "$page" >"$T/page"
	missing=""
	for opt in $("$PROFIL" "$c" --help | grep -oE '^ +(-[A-Za-z], )?--[a-z][a-z0-9-]*|^ +-[A-Za-z]\b' |
		grep -oE -- '--?[A-Za-z][a-z0-9-]*'); do
		grep -q -- "$opt" "$T/page" || missing="$missing $opt"
	done
	if [ -z "$missing" ]; then ok "options_documented_$c"; else no "options_documented_$c" "not in profil-$c(1):$missing"; fi
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
