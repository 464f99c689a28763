#!/bin/sh
# Smoke test of the benchmark harness (bench/bench.py --smoke): the funcs
# workload with no profiler and with glibc profil, once, at a tiny scale.
# Asserts structure only (files, tables, sane truth JSON), never timing.
ROOT=${ROOT:-$(cd "$(dirname "$0")/../.." && pwd)}
. "$ROOT/tests/lib.sh"

need_python bench_smoke
if [ ! -x "$B/bench/wl_funcs" ]; then
	echo "not ok bench_smoke: $B/bench/wl_funcs is not built"
	exit 1
fi

# 1. the workload's truth file
if BENCH_SCALE=0.05 BENCH_TRUTH="$T/truth.json" "$B/bench/wl_funcs" &&
	"$PY" - "$T/truth.json" <<'PYEOF'
import json, sys
t = json.load(open(sys.argv[1]))
fns = t["functions"]
assert set(fns) == {"hot_a", "hot_b", "hot_c"}, fns
assert all(v > 0 for v in fns.values()), fns
assert sum(fns.values()) <= t["process_cpu_seconds"] * 1.01, t
assert len(t["threads"]) == 1 and t["threads"][0]["seconds"] > 0, t
PYEOF
then echo "ok bench_smoke_truth"; else echo "not ok bench_smoke_truth: bad truth JSON"; fi

# 2. the forkexec workload writes one truth file per process
if BENCH_SCALE=0.05 BENCH_TRUTH="$T/fe.json" "$B/bench/wl_forkexec" &&
	[ -s "$T/fe.json" ] && [ "$(ls "$T"/fe.json.child* | wc -l)" -eq 40 ]; then
	echo "ok bench_smoke_forkexec_truth"
else
	echo "not ok bench_smoke_forkexec_truth: expected the parent's and 40 children's truth files"
fi

# 3. the harness end to end, structure only
if "$PY" "$ROOT/bench/bench.py" --build "$B" --out "$T/out" --smoke >"$T/log" 2>&1; then
	if [ -s "$T/out/funcs.md" ] && grep -q '^| glibc-profil | 100 |' "$T/out/funcs.md" &&
		grep -q '^| profiler | rate Hz | TVD' "$T/out/funcs.md" &&
		"$PY" -c 'import json,sys; d=json.load(open(sys.argv[1])); s=d["summary"]["funcs"]["glibc-profil"]; assert s["samples"] is not None and s["samples"]["n"] == 1' "$T/out/results.json"; then
		echo "ok bench_smoke_harness"
	else
		echo "not ok bench_smoke_harness: results incomplete"
		cat "$T/log"
	fi
else
	echo "not ok bench_smoke_harness: bench.py --smoke failed"
	tail -n 20 "$T/log"
fi
