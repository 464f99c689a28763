#!/bin/sh
# make install honours PREFIX and DESTDIR, installs the header, both libraries
# and profil.pc, and a program built against the installed copy through
# pkg-config gets libprofil's profil() (not glibc's) with only the public API exported.
ROOT=${ROOT:-$(cd "$(dirname "$0")/../.." && pwd)}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
case "${B:-build}" in */asan)
	echo "skip install: the ASan build is not installable into an uninstrumented program"
	exit 0 ;;
esac

if make -s -C "$ROOT" B="$tmp/build" PREFIX=/opt/profil DESTDIR="$tmp/root" install >"$tmp/log" 2>&1; then
	echo "ok make install with PREFIX and DESTDIR"
else
	echo "not ok make install with PREFIX and DESTDIR: $(tail -3 "$tmp/log" | tr '\n' ' ')"
	exit 1
fi
r=$tmp/root/opt/profil
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
cat >"$tmp/p.c" <<'C'
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
PKG_CONFIG_SYSROOT_DIR="$tmp/root" PKG_CONFIG_PATH="$r/lib/pkgconfig" \
	cc -o "$tmp/p" "$tmp/p.c" $(PKG_CONFIG_SYSROOT_DIR="$tmp/root" PKG_CONFIG_PATH="$r/lib/pkgconfig" pkg-config --cflags --libs profil) 2>"$tmp/cc.log"
out=$(LD_LIBRARY_PATH="$r/lib" "$tmp/p" 2>&1)
if [ "$out" = "1 1" ]; then
	echo "ok a program linked with -lprofil through pkg-config uses libprofil's profil()"
else
	echo "not ok a program linked with -lprofil uses libprofil's profil(): got '$out' $(cat "$tmp/cc.log")"
fi
