#!/bin/sh
# Speed of the call-stack reports (not part of make check): a profile of SAMPLES
# samples (default 1000000) in STACKS distinct stacks (default 4000) of 4 to 16
# frames over 64 functions in 4 threads, written by report_stackgen, then the
# wall time (best of 3) of report, report --children, report -g caller, the JSON
# report, and the folded, pprof and gmon exports.
# Usage: tests/bench/report_stacks.sh [STACKS [SAMPLES]]   (from the repository root, after make check's build)
set -e
STACKS=${1:-4000}
SAMPLES=${2:-1000000}
B=${B:-build}
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT

"$B/tests/progs/report_stackgen" "$T/big.data" big "$STACKS" "$SAMPLES" >/dev/null
echo "profile: $SAMPLES samples in $STACKS stacks, $(wc -c <"$T/big.data") bytes"

best() {
	what=$1
	shift
	b=
	for i in 1 2 3; do
		t0=$(date +%s%N)
		"$@" >/dev/null 2>&1
		t1=$(date +%s%N)
		ms=$(((t1 - t0) / 1000000))
		if [ -z "$b" ] || [ "$ms" -lt "$b" ]; then b=$ms; fi
	done
	printf '%-32s %6d ms\n' "$what" "$b"
}
best "report" "$B/profil" report -i "$T/big.data"
best "report --children" "$B/profil" report -i "$T/big.data" --children
best "report -g caller" "$B/profil" report -i "$T/big.data" -g caller
best "report --children --threads" "$B/profil" report -i "$T/big.data" --children --threads
best "report --format json" "$B/profil" report -i "$T/big.data" --format json
best "export --format folded" "$B/profil" export --format folded -i "$T/big.data" -o "$T/f"
best "export --format pprof" "$B/profil" export --format pprof -i "$T/big.data" -o "$T/p"
best "export --format gmon" "$B/profil" export --format gmon -i "$T/big.data" -o "$T/g"
