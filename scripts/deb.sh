#!/bin/sh
# SPDX-License-Identifier: MIT
# make deb (mk/deb.mk): turn a staged install into a Debian package.
#
#   sh scripts/deb.sh STAGE OUT VERSION MAINTAINER
#
# STAGE is a DESTDIR that `make install PREFIX=/usr LIBDIR=/usr/lib/MULTIARCH`
# filled.  Adds Debian's layout (manual pages gzip -9n, a copyright file) and
# DEBIAN/ (control, md5sums, triggers), then builds OUT with dpkg-deb; files
# are owned by root, ELF files and the static library stripped of debug
# information.  Depends is computed by dpkg-shlibdeps from the ELF
# files' NEEDED libraries; Architecture is dpkg --print-architecture.
set -eu
stage=$(cd "$1" && pwd) out=$2 version=$3 maintainer=$4
arch=$(dpkg --print-architecture)

# manual pages compressed, as Debian policy wants (man and profil help read both)
find "$stage/usr/share/man" -type f -name '*.[0-9]' -exec gzip -9nf {} +
install -d "$stage/usr/share/doc/profil"
cat >"$stage/usr/share/doc/profil/copyright" <<'COPYRIGHT'
Format: https://www.debian.org/doc/packaging-manuals/copyright-format/1.0/
Upstream-Name: profil

Files: *
Copyright: the profil authors
License: MIT
 Every source file of profil carries SPDX-License-Identifier: MIT.
 .
 Permission is hereby granted, free of charge, to any person obtaining a
 copy of this software and associated documentation files (the "Software"),
 to deal in the Software without restriction, including without limitation
 the rights to use, copy, modify, merge, publish, distribute, sublicense,
 and/or sell copies of the Software, and to permit persons to whom the
 Software is furnished to do so, subject to the following conditions:
 .
 The above copyright notice and this permission notice shall be included in
 all copies or substantial portions of the Software.
 .
 THE SOFTWARE IS PROVIDED "AS IS", WITHOUT WARRANTY OF ANY KIND, EXPRESS OR
 IMPLIED, INCLUDING BUT NOT LIMITED TO THE WARRANTIES OF MERCHANTABILITY,
 FITNESS FOR A PARTICULAR PURPOSE AND NONINFRINGEMENT. IN NO EVENT SHALL THE
 AUTHORS OR COPYRIGHT HOLDERS BE LIABLE FOR ANY CLAIM, DAMAGES OR OTHER
 LIABILITY, WHETHER IN AN ACTION OF CONTRACT, TORT OR OTHERWISE, ARISING
 FROM, OUT OF OR IN CONNECTION WITH THE SOFTWARE OR THE USE OR OTHER
 DEALINGS IN THE SOFTWARE.
COPYRIGHT
chmod 644 "$stage/usr/share/doc/profil/copyright"

# Depends: dpkg-shlibdeps on every ELF file; it reads debian/control, so give it a minimal one
elfs=$(find "$stage" -type f | while read -r f; do
	if [ "$(head -c 4 "$f" | od -An -c | tr -d ' ')" = '177ELF' ]; then echo "$f"; fi
done)
# no debug information in the package (Debian ships it apart, in -dbgsym packages)
strip --strip-debug $elfs "$stage"/usr/lib/*/libprofil.a
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir "$work/debian"
printf 'Source: profil\n\nPackage: profil\nArchitecture: any\n' >"$work/debian/control"
# -l: our own libprofil.so is in the package (nothing in it needs it, but dpkg-shlibdeps looks)
depends=$(cd "$work" && dpkg-shlibdeps -O -l"$stage/usr/lib" $elfs 2>"$work/warn" |
	sed -n 's/^shlibs:Depends=//p')
if [ -z "$depends" ]; then
	echo "deb.sh: dpkg-shlibdeps gave no dependencies: $(cat "$work/warn")" >&2
	exit 1
fi

# Recommends, by hand: the agent dlopen()s libunwind.so.8 for call stacks with the thread
# and itimer clocks and records flat profiles without it (dpkg-shlibdeps cannot see a dlopen)

size=$(du -sk --apparent-size "$stage" | cut -f1)
rm -rf "$stage/DEBIAN"
install -d -m 755 "$stage/DEBIAN"
cat >"$stage/DEBIAN/control" <<CONTROL
Package: profil
Version: $version
Architecture: $arch
Maintainer: $maintainer
Installed-Size: $size
Depends: $depends
Recommends: libunwind8
Section: devel
Priority: optional
Description: PC-sampling profiler for Linux programs, and the libprofil library
 profil record runs a program (or attaches to one) and samples the program
 counter of every thread and child process, with perf_event, eBPF or CPU-time
 timers; profil report prints the flat profile (text, JSON, CSV, an HTML page
 with a flame graph), profil export writes gmon.out for gprof or a pprof
 profile, profil diff compares two runs, profil watch shows the profiling
 activity of the whole machine.
 .
 libprofil implements profil() and sprofil() with glibc's semantics, sampling
 every thread by its own CPU time, plus an extended API (profil_set_clock()).
 This package holds the command, its LD_PRELOAD agent, the library (shared and
 static), its header and pkg-config file, manual pages and bash completion.
CONTROL
# the shared library in a multiarch directory: ldconfig's cache at install and removal
echo "activate-noawait ldconfig" >"$stage/DEBIAN/triggers"
(cd "$stage" && find . -path ./DEBIAN -prune -o -type f -printf '%P\n' | LC_ALL=C sort |
	xargs -d '\n' md5sum) >"$stage/DEBIAN/md5sums"
chmod 644 "$stage/DEBIAN/control" "$stage/DEBIAN/triggers" "$stage/DEBIAN/md5sums"
dpkg-deb --root-owner-group -Zxz --build "$stage" "$out" >/dev/null
echo "deb: $out ($arch, Depends: $depends)"
