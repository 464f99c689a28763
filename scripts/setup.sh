#!/bin/sh
# Install the missing Debian packages of the lists named (default: build).
#
#   sh scripts/setup.sh [--check] [LIST...]
#
# LIST is build, test, bench or deb (scripts/packages-LIST.txt) or a file.
# Installs only when a package is missing (one dpkg-query for all of them),
# with apt-get (sudo when not root), after one apt-get update.  --check
# installs nothing: it says what is missing and exits 0 (make NO_SETUP=1).
set -eu
here=$(dirname "$0")
check=""
if [ "${1:-}" = --check ]; then
	check=1
	shift
fi
[ $# -gt 0 ] || set -- build
pkgs=""
for list; do
	case $list in
	*/* | *.txt) file=$list ;;
	*) file=$here/packages-$list.txt ;;
	esac
	if [ ! -r "$file" ]; then
		echo "setup: no package list $file" >&2
		exit 2
	fi
	pkgs="$pkgs $(sed -e 's/#.*//' "$file")"
done
pkgs=$(printf '%s\n' $pkgs | sort -u)
[ -n "$pkgs" ] || exit 0
# one query for all: "NAME STATUS" for every package dpkg knows
installed=$(dpkg-query -W -f='${Package} ${Status}\n' $pkgs 2>/dev/null |
	awk '$NF == "installed" && $(NF-1) == "ok" { print $1 }' || true)
missing=""
for pkg in $pkgs; do
	case " $(echo $installed) " in
	*" $pkg "*) ;;
	*) missing="$missing $pkg" ;;
	esac
done
[ -z "$missing" ] && exit 0
if [ -n "$check" ]; then
	echo "setup: missing Debian packages (NO_SETUP: not installing them):$missing" >&2
	exit 0
fi
echo "setup: installing$missing" >&2
if [ "$(id -u)" -eq 0 ]; then sudo=""; else sudo="sudo"; fi
export DEBIAN_FRONTEND=noninteractive
$sudo apt-get update -qq
$sudo apt-get install -y -qq --no-install-recommends $missing >/dev/null
