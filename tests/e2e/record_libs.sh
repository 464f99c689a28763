#!/bin/sh
# profil record: time in a shared library and in a dlopen'ed one lands in its mapping.
. "$ROOT/tests/e2e/record/common.sh"

if ! perf_usable; then
	skip record_libs "perf_event_open is refused here (the fallback is tested in record_fallback)"
	exit 0
fi

"$P" record -q -o lib.data -- "$PROGS/record_libuser"
inlib=$(osamples lib.data /librecord_hot.so)
total=$(hdr lib.data samples)
[ "$total" -ge 100 ] && in_range "$(share "$inlib" $((total - inlib)))" 0.85 1 &&
	[ "$(fsamples lib.data lib_spin)" -ge $((total * 8 / 10)) ]
expect shared_library_samples "$inlib of $total in librecord_hot.so, lib_spin $(fsamples lib.data lib_spin)"

"$P" record -q -o dl.data -- "$PROGS/record_prog" dlopen "$PROGS/librecord_hot.so"
inlib=$(osamples dl.data /librecord_hot.so)
total=$(hdr dl.data samples)
[ "$total" -ge 50 ] && in_range "$(share "$inlib" $((total - inlib)))" 0.85 1 &&
	[ "$(fsamples dl.data lib_spin)" -ge $((total * 8 / 10)) ]
expect dlopen_library_samples "$inlib of $total in librecord_hot.so, lib_spin $(fsamples dl.data lib_spin)"
