#!/bin/sh
# SPDX-License-Identifier: MIT
# make install / make uninstall (mk/install.mk): ONE list of entries drives both.
#
#   sh scripts/install.sh install|uninstall DESTDIR RECORD ENTRY...
#
# ENTRY is MODE:SOURCE:DEST (a file, installed with that mode) or
# link:TARGET:DEST (a symbolic link to TARGET); DEST is the installed path
# without DESTDIR.  install also writes RECORD (a path without DESTDIR; ""
# for none, as in `make deb`'s staging): the directories it had to create,
# so that uninstall removes those again when they are empty, and never a
# directory that was there before.  uninstall removes every DEST of the list
# (what this install puts), then RECORD and its directories.
set -eu
mode=$1 destdir=$2 record=$3
shift 3

# The ancestors of directory $1 (a path without DESTDIR) missing under DESTDIR, one a line.
missing_dirs() {
	d=$1
	while [ "$d" != / ] && [ "$d" != . ] && [ ! -d "$destdir$d" ]; do
		echo "$d"
		d=$(dirname "$d")
	done
}

install_all() {
	created=""
	if [ -n "$record" ] && [ -f "$destdir$record" ]; then
		created=$(cat "$destdir$record")
	fi
	[ -n "$record" ] && set -- "$@" "record::$record"
	for e; do
		kind=${e%%:*}
		rest=${e#*:}
		src=${rest%%:*}
		dest=${rest#*:}
		dir=$(dirname "$dest")
		new=$(missing_dirs "$dir")
		if [ -n "$new" ]; then
			echo "install -d $destdir$dir"
			install -d "$destdir$dir"
			created="$created
$new"
		fi
		case $kind in
		record) ;;
		link)
			echo "ln -sfn $src $destdir$dest"
			ln -sfn "$src" "$destdir$dest"
			;;
		*)
			echo "install -m $kind $src $destdir$dest"
			install -m "$kind" "$src" "$destdir$dest"
			;;
		esac
	done
	if [ -n "$record" ]; then
		printf '%s\n' "$created" | sed '/^$/d' | LC_ALL=C sort -u >"$destdir$record"
	fi
}

uninstall_all() {
	for e; do
		dest=${e#*:}
		dest=${dest#*:}
		if [ -e "$destdir$dest" ] || [ -L "$destdir$dest" ]; then
			echo "rm -f $destdir$dest"
			rm -f "$destdir$dest"
		fi
	done
	[ -n "$record" ] && [ -f "$destdir$record" ] || return 0
	dirs=$(cat "$destdir$record")
	echo "rm -f $destdir$record"
	rm -f "$destdir$record"
	# deepest first: a path sorts after every one of its ancestors
	printf '%s\n' "$dirs" | LC_ALL=C sort -r | while read -r d; do
		[ -n "$d" ] || continue
		if rmdir "$destdir$d" 2>/dev/null; then echo "rmdir $destdir$d"; fi
	done
}

case $mode in
install) install_all "$@" ;;
uninstall) uninstall_all "$@" ;;
*)
	echo "usage: install.sh install|uninstall DESTDIR RECORD ENTRY..." >&2
	exit 2
	;;
esac
