#!/bin/sh
# What a profiled program maps is untrusted (issue 16): hostile CFI, files swapped at a
# library's path, devices behind links.  The recorder stays bounded and the program behaves as
# without it.  Every run is bounded by a timeout: status 124 is a hang (the test fails, the
# suite goes on).
. "$ROOT/tests/e2e/record/common.sh"
H="$PROGS/hostile_objects"

if ! perf_usable; then
	skip record_untrusted "the perf clock is not usable here"
	exit 0
fi

# ---- item 3: an 8 MB .eh_frame (four FDEs of 2 M DW_CFA_nop and 8,192 rows) -----------------
# It used to cost the recorder ~55 s; now the FDEs are refused before they run and the samples
# in them end as counted truncations.  (Its cost, measured: `make unwind-bench`, not here.)
timeout 60 "$P" record -q -g -o cfi.data -- "$H" cfi "$T/hostile.so" 0.3 >cfi.out 2>cfi.err
rc=$?
"$P" report -i cfi.data >cfi.rep 2>&1
bound=$(sed -n 's/.*CFI over a size bound \([0-9]*\).*/\1/p' cfi.rep | head -1)
[ $rc -eq 0 ] && grep -q '^cpu=' cfi.out && [ "${bound:-0}" -ge 30 ]
expect cfi_over_bound "rc=$rc (124: hung) bound=${bound:-none} $(cat cfi.err) $(grep '^# clock' cfi.rep)"
