#!/bin/sh
# The fuzz targets (tests/fuzz/fuzz_*.c) built as plain programs replay every corpus file
# (tests/fuzz/corpus/TARGET/: seeds, and the inputs of crashes found by `make fuzz`, kept as
# regression tests).  A crash, a sanitizer report (ci-extra's ASan+UBSan build) or a hang fails.
. "$ROOT/tests/lib.sh"

for src in "$ROOT"/tests/fuzz/fuzz_*.c; do
	t=$(basename "$src" .c)
	t=${t#fuzz_}
	bin="$B/tests/fuzz/replay_$t"
	if [ ! -x "$bin" ]; then
		echo "not ok fuzz_corpus_$t: $bin was not built"
		continue
	fi
	n=$(ls "$ROOT/tests/fuzz/corpus/$t" | wc -l)
	out=$(timeout 300 "$bin" "$ROOT/tests/fuzz/corpus/$t" 2>&1 >/dev/null)
	rc=$?
	if [ $rc -eq 0 ] && [ "$n" -gt 0 ]; then
		echo "ok fuzz_corpus_$t: $n inputs replayed"
	else
		echo "not ok fuzz_corpus_$t: status $rc (124: hang) over $n inputs: $(echo "$out" | tail -15)"
	fi
done
