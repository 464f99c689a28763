#!/bin/sh
# make install honours PREFIX and DESTDIR, installs the header, both libraries
# and profil.pc, and a program built against the installed copy through
# pkg-config gets libprofil's profil() (not glibc's) with only the public API exported.
# With Debian's multiarch LIBDIR the installed profil finds its agent and its
# manual pages (installed into DESTDIR: relative to the binary; installed for
# real into a temporary PREFIX and the binary moved away: at the path recorded
# at build time), `--clock thread` works; make uninstall removes exactly what
# install put: nothing is left, and a directory that was there before stays.
ROOT=${ROOT:-$(cd "$(dirname "$0")/../.." && pwd)}
. "$ROOT/tests/lib.sh"

MULTIARCH=$(dpkg-architecture -qDEB_HOST_MULTIARCH 2>/dev/null || cc -print-multiarch)
# a plain build (not the sanitizers or compiler of the make that runs the tests: make exports
# its command-line variables), the packages already there
mk() { env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL -u SANITIZE -u CFLAGS -u CC -u WERROR -u PREFIX -u DESTDIR \
	-u BINDIR -u LIBDIR -u INCDIR -u MANDIR -u BASHCOMPDIR -u INSTALL_RECORD make -s -C "$ROOT" B="$T/build" NO_SETUP=1 "$@"; }

if mk PREFIX=/opt/profil DESTDIR="$T/root" install >"$T/log" 2>&1; then
	echo "ok make install with PREFIX and DESTDIR"
else
	echo "not ok make install with PREFIX and DESTDIR: $(tail -3 "$T/log" | tr '\n' ' ')"
	exit 1
fi
r=$T/root/opt/profil
for f in include/profil.h lib/libprofil.a lib/libprofil.so lib/pkgconfig/profil.pc; do
	if [ -e "$r/$f" ]; then echo "ok installed $f"; else echo "not ok installed $f: missing"; fi
done
if grep -q '^prefix=/opt/profil$' "$r/lib/pkgconfig/profil.pc"; then
	echo "ok profil.pc names the PREFIX"
else
	echo "not ok profil.pc names the PREFIX: $(head -1 "$r/lib/pkgconfig/profil.pc")"
fi

# only the public API is exported
bad=$(nm -D --defined-only "$r/lib/libprofil.so" | awk '{print $3}' |
	grep -v -E '^(profil|sprofil|profil_[a-z_]+)(@@PROFIL_0)?$' | grep -v '^PROFIL_0$')
if [ -z "$bad" ]; then
	echo "ok libprofil.so exports only profil, sprofil and profil_*"
else
	echo "not ok libprofil.so exports only the public API: also $(echo $bad | tr '\n' ' ')"
fi

# a program built with pkg-config against the installed copy binds profil() to libprofil
cat >"$T/p.c" <<'C'
#include <profil.h>
#include <stdio.h>
int main(void)
{
	static unsigned short buf[64];
	struct profil_stats st;
	profil_set_clock(PROFIL_CLOCK_MANUAL, 0);
	if (profil(buf, sizeof(buf), 0x1000, 65536) != 0)
		return 1;
	profil_tick(0x1002);
	profil_get_stats(&st, sizeof(st));
	profil(NULL, 0, 0, 0);
	printf("%u %llu\n", buf[1], (unsigned long long)st.samples);
	return 0;
}
C
PKG_CONFIG_SYSROOT_DIR="$T/root" PKG_CONFIG_PATH="$r/lib/pkgconfig" \
	cc -o "$T/p" "$T/p.c" $(PKG_CONFIG_SYSROOT_DIR="$T/root" PKG_CONFIG_PATH="$r/lib/pkgconfig" pkg-config --cflags --libs profil) 2>"$T/cc.log"
out=$(LD_LIBRARY_PATH="$r/lib" "$T/p" 2>&1)
if [ "$out" = "1 1" ]; then
	echo "ok a program linked with -lprofil through pkg-config uses libprofil's profil()"
else
	echo "not ok a program linked with -lprofil uses libprofil's profil(): got '$out' $(cat "$T/cc.log")"
fi

# everything under DIR (files, links, directories), one a line, DIR itself left out
tree() { (cd "$1" 2>/dev/null && find . -mindepth 1 | LC_ALL=C sort); }
# thread_clock NAME PROFIL: `PROFIL record --clock thread` works and the profile says thread
thread_clock() {
	(cd "$T" && "$2" record -q --clock thread -o "$T/thread.data" -- sh -c 'i=0; while [ $i -lt 30000 ]; do i=$((i+1)); done') \
		>"$T/rec.out" 2>&1
	rc=$?
	clock=$("$2" report -i "$T/thread.data" --format json 2>/dev/null | sed -n 's/^ *"clock": *"\([a-z]*\)".*/\1/p')
	if [ $rc -eq 0 ] && [ "$clock" = thread ]; then ok "$1"; else no "$1" "rc=$rc clock=$clock $(cat "$T/rec.out")"; fi
	rm -f "$T/thread.data"
}

# Debian's layout into a DESTDIR: PREFIX=/usr, multiarch LIBDIR
D=$T/deb-root
V="PREFIX=/usr LIBDIR=/usr/lib/$MULTIARCH DESTDIR=$D"
if mk $V install >"$T/log" 2>&1; then ok "install multiarch LIBDIR into DESTDIR"; else no "install multiarch LIBDIR" "$(tail -3 "$T/log")"; fi
for f in usr/bin/profil usr/lib/$MULTIARCH/profil/libprofil-agent.so usr/lib/$MULTIARCH/libprofil.so.0 \
	usr/lib/$MULTIARCH/pkgconfig/profil.pc usr/include/profil.h usr/share/man/man1/profil.1 \
	usr/share/man/man1/profil-diff.1 usr/share/man/man3/libprofil.3 \
	usr/share/bash-completion/completions/profil usr/share/doc/profil/report-json.md \
	usr/share/doc/profil/events.md usr/share/doc/profil/libprofil.md; do
	[ -e "$D/$f" ] && ok "multiarch installed $f" || no "multiarch installed $f" "missing"
done
# the agent's installed path, recorded at build time from LIBDIR
if grep -q "/usr/lib/$MULTIARCH/profil" "$D/usr/bin/profil"; then ok agent_path_built_in; else no agent_path_built_in "not in the binary"; fi
grep -q "/usr/lib/$MULTIARCH/profil/libprofil" "$D/usr/share/man/man1/profil-record.1" &&
	ok man_page_names_agent_path || no man_page_names_agent_path "$(grep -n agent "$D/usr/share/man/man1/profil-record.1" | head -2)"
# (the page names the document and the directory it is installed in)
grep -q "report\\\\-json.md" "$D/usr/share/man/man1/profil-diff.1" &&
	grep -q "/usr/share/doc/profil" "$D/usr/share/man/man1/profil-diff.1" &&
	ok man_page_names_doc_path || no man_page_names_doc_path "$(grep -n json "$D/usr/share/man/man1/profil-diff.1" | head -2)"
thread_clock thread_clock_from_destdir "$D/usr/bin/profil"
if command -v man >/dev/null; then
	"$D/usr/bin/profil" help diff >"$T/help" 2>&1
	head -1 "$T/help" | grep -q '^PROFIL-DIFF(1)' && ok help_from_destdir || no help_from_destdir "$(head -2 "$T/help")"
fi
# installing twice changes nothing; uninstall leaves nothing, not even the directories
mk $V install >"$T/log" 2>&1 || no reinstall "$(tail -3 "$T/log")"
mk $V uninstall >"$T/log" 2>&1 || no uninstall "$(tail -3 "$T/log")"
left=$(tree "$D")
if [ -z "$left" ]; then ok uninstall_leaves_nothing; else no uninstall_leaves_nothing "$(echo $left | head -c 300)"; fi

# uninstall keeps what was there before
mkdir -p "$D/usr/share/man/man1" "$D/usr/bin"
: >"$D/usr/share/man/man1/other.1"
before=$(tree "$D")
mk $V install >"$T/log" 2>&1 && mk $V uninstall >>"$T/log" 2>&1 || no reinstall "$(tail -3 "$T/log")"
after=$(tree "$D")
[ "$before" = "$after" ] && ok uninstall_keeps_what_was_there || no uninstall_keeps_what_was_there "before: $before after: $after"

# installed for real (no DESTDIR) into a temporary prefix, multiarch LIBDIR; the
# binary moved away finds its agent at the path recorded at build time
U=$T/usr
V="PREFIX=$U LIBDIR=$U/lib/$MULTIARCH"
if mk $V install >"$T/log" 2>&1; then ok "install into a prefix"; else no "install into a prefix" "$(tail -3 "$T/log")"; fi
thread_clock thread_clock_installed "$U/bin/profil"
mkdir "$T/elsewhere"
cp "$U/bin/profil" "$T/elsewhere/profil"
thread_clock thread_clock_moved_binary "$T/elsewhere/profil"
if command -v man >/dev/null; then
	"$T/elsewhere/profil" help record >"$T/help" 2>&1
	head -1 "$T/help" | grep -q '^PROFIL-RECORD(1)' && ok help_moved_binary || no help_moved_binary "$(head -2 "$T/help")"
fi
mk $V uninstall >"$T/log" 2>&1 || no uninstall_prefix "$(tail -3 "$T/log")"
[ ! -e "$U" ] && ok uninstall_prefix_leaves_nothing || no uninstall_prefix_leaves_nothing "$(tree "$U" | head -5 | tr '\n' ' ')"
# and without it, the agent's absence is one sentence naming where it was looked for
"$T/elsewhere/profil" record -q --clock thread -o "$T/x.data" -- true >"$T/rec.out" 2>&1
rc=$?
grep -q "libprofil-agent.so is not installed (neither next to profil nor in $U/lib/$MULTIARCH/profil)" "$T/rec.out" &&
	[ $rc -ne 0 ] && ok agent_missing_sentence || no agent_missing_sentence "rc=$rc $(cat "$T/rec.out")"
