#!/bin/sh
# Resource limits at the end of a record (issue 16 item 13): a file size limit (ulimit -f)
# and a file system that fills while the program runs.  One sentence, the previous profile
# put back, no stray file, the program's exit status; never SIGXFSZ or SIGBUS.
. "$ROOT/tests/e2e/record/common.sh"

# ---- ulimit -f below the profile's size --------------------------------------------------
"$P" record -q -o lim.data -- true
before=$(cksum <lim.data)
(
	ulimit -f 64
	timeout 60 "$P" record -q -o lim.data -- true 2>lim.err
	echo $? >lim.rc
)
rc=$(cat lim.rc)
after=$(cksum <lim.data 2>/dev/null)
stray=$(ls | grep -v '^lim\.\(data\|err\|rc\)$' | tr '\n' ' ')
[ "$rc" -eq 1 ] && [ "$(wc -l <lim.err)" -eq 1 ] && grep -q "ulimit -f" lim.err &&
	[ "$before" = "$after" ] && [ ! -e lim.data.old ] && [ -z "$stray" ]
expect ulimit_f_one_sentence "status $rc (153: SIGXFSZ), $(cat lim.err), previous kept: \
$([ "$before" = "$after" ] && echo yes || echo no), stray: ${stray:-none}"

# ---- a file system that fills during the recording: the compact copy has no room ---------
# (a private tmpfs: needs root and unshare; the old recorder died of SIGBUS here)
MNT="$T/mnt"
mkdir -p "$MNT"
if [ "$(id -u)" = 0 ] && unshare -m sh -c "mount -t tmpfs -o size=48m tmpfs '$MNT'" 2>/dev/null; then
	timeout 120 unshare -m sh -c "mount -t tmpfs -o size=48m tmpfs '$MNT' && cd '$MNT' &&
		'$P' record -o full.data -- sh -c 'head -c 100000000 /dev/zero >fill 2>/dev/null; exit 7' \
			>'$T/full.out' 2>'$T/full.err'; echo \$? >'$T/full.rc';
		'$P' report -i full.data >'$T/full.rep' 2>&1; ls >'$T/full.ls'"
	rc=$(cat full.rc)
	grep -q 'ended: exited with code 7' full.rep && [ "$rc" -eq 7 ] &&
		[ "$(grep -c 'No space left on device' full.err)" -eq 1 ] &&
		[ "$(tr '\n' ' ' <full.ls)" = "fill full.data " ]
	expect enospc_compaction "status $rc (135: SIGBUS), $(cat full.err), files: $(tr '\n' ' ' <full.ls)"
else
	skip enospc_compaction "needs root and a private mount namespace (unshare -m)"
fi
