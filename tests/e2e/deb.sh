#!/bin/sh
# make deb: a Debian package whose control file is right (Package, Version =
# the Makefile's VERSION, Architecture = dpkg --print-architecture, Depends
# from dpkg-shlibdeps, Maintainer, Description), whose contents are Debian's
# layout (multiarch LIBDIR, compressed manual pages, a copyright file, root
# owner, no install record), and whose tree, unpacked anywhere, runs: the
# agent and the pages are found relative to the binary.  Nothing here
# installs the package (tests must not change the machine): `dpkg -i` is
# done by hand, see the report of the packaging work.
ROOT=${ROOT:-$(cd "$(dirname "$0")/../.." && pwd)}

. "$ROOT/tests/lib.sh"

for tool in dpkg-deb dpkg-shlibdeps dpkg-architecture; do
	if ! command -v $tool >/dev/null; then
		echo "skip deb: $tool is not installed (dpkg-dev)"
		exit 0
	fi
done
arch=$(dpkg --print-architecture)
multiarch=$(dpkg-architecture -qDEB_HOST_MULTIARCH)
version=$(sed -n 's/^VERSION *:= *//p' "$ROOT/Makefile")
deb=$T/build/profil_${version}_$arch.deb

if env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL -u SANITIZE -u CFLAGS -u CC -u WERROR -u PREFIX -u DESTDIR \
	-u BINDIR -u LIBDIR -u INCDIR -u MANDIR -u BASHCOMPDIR -u INSTALL_RECORD make -s -C "$ROOT" B="$T/build" NO_SETUP=1 deb \
	>"$T/log" 2>&1 && [ -f "$deb" ]; then
	ok make_deb
else
	no make_deb "$(tail -5 "$T/log")"
	exit 0
fi

# control fields
field() { dpkg-deb --field "$deb" "$1"; }
[ "$(field Package)" = profil ] && ok package_name || no package_name "$(field Package)"
[ "$(field Version)" = "$version" ] && ok version_from_makefile || no version_from_makefile "$(field Version) (Makefile: $version)"
[ "$(field Architecture)" = "$arch" ] && ok architecture || no architecture "$(field Architecture)"
[ -n "$(field Maintainer)" ] && ok maintainer || no maintainer "empty"
field Description | head -1 | grep -q 'profiler' && ok description || no description "$(field Description | head -1)"
[ "$(field Installed-Size)" -gt 100 ] 2>/dev/null && ok installed_size || no installed_size "$(field Installed-Size)"
deps=$(field Depends)
missing=""
# every library the binaries link to, as dpkg-shlibdeps names their packages
for pkg in libc6 libelf1 libdw1 libbpf1 libjson-c5 libprotobuf-c1 zlib1g; do
	case ", $deps" in *", $pkg "*) ;; *) missing="$missing $pkg" ;; esac
done
[ -z "$missing" ] && ok depends || no depends "missing$missing in: $deps"
[ "$(field Recommends)" = libunwind8 ] && ok recommends_libunwind || no recommends_libunwind "$(field Recommends)"
dpkg-deb --ctrl-tarfile "$deb" | tar -t | grep -q '^./triggers$' && ok ldconfig_trigger || no ldconfig_trigger "no triggers file"

# contents
dpkg-deb --contents "$deb" >"$T/contents"
for f in ./usr/bin/profil ./usr/lib/$multiarch/profil/libprofil-agent.so \
	./usr/lib/$multiarch/libprofil.so.$version ./usr/lib/$multiarch/libprofil.so.0 \
	./usr/lib/$multiarch/libprofil.a ./usr/lib/$multiarch/pkgconfig/profil.pc ./usr/include/profil.h \
	./usr/share/man/man1/profil.1.gz ./usr/share/man/man1/profil-record.1.gz \
	./usr/share/man/man1/profil-diff.1.gz ./usr/share/man/man3/libprofil.3.gz \
	./usr/share/bash-completion/completions/profil ./usr/share/doc/profil/copyright \
	./usr/share/doc/profil/report-json.md ./usr/share/doc/profil/events.md \
	./usr/share/doc/profil/libprofil.md; do
	grep -q " $f\( ->.*\)\?$" "$T/contents" && ok "contains $f" || no "contains $f" "not in the package"
done
grep -q 'install-dirs' "$T/contents" && no no_install_record "the package holds make install's record" || ok no_install_record
awk '$2 != "root/root"' "$T/contents" >"$T/owners"
[ -s "$T/owners" ] && no owned_by_root "$(head -2 "$T/owners")" || ok owned_by_root

# unpacked anywhere, the tree works: the thread clock's agent, the pages
dpkg-deb -x "$deb" "$T/x"
(cd "$T" && "$T/x/usr/bin/profil" record -q --clock thread -o t.data -- sh -c 'i=0; while [ $i -lt 30000 ]; do i=$((i+1)); done') >"$T/rec" 2>&1
rc=$?
clock=$("$T/x/usr/bin/profil" report -i "$T/t.data" --format json 2>/dev/null | sed -n 's/^ *"clock": *"\([a-z]*\)".*/\1/p')
[ $rc -eq 0 ] && [ "$clock" = thread ] && ok unpacked_thread_clock || no unpacked_thread_clock "rc=$rc clock=$clock $(cat "$T/rec")"
if command -v man >/dev/null; then
	"$T/x/usr/bin/profil" help report >"$T/help" 2>&1
	head -1 "$T/help" | grep -q '^PROFIL-REPORT(1)' && ok unpacked_help_compressed_page || no unpacked_help_compressed_page "$(head -2 "$T/help")"
fi
