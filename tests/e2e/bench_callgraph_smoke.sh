#!/bin/sh
# Smoke test of the benchmark's call-stack section (bench/callgraph.py --smoke):
# a tiny run of two variants at one rate.  Asserts structure only (the table,
# the results JSON), never timing or overhead.
ROOT=${ROOT:-$(cd "$(dirname "$0")/../.." && pwd)}
. "$ROOT/tests/lib.sh"

need_python bench_callgraph_smoke
if ! "$B/profil" record -q --clock perf -o "$T/probe.data" -- true 2>/dev/null; then
	echo "skip bench_callgraph_smoke: perf events are refused here"
	exit 0
fi
if "$PY" "$ROOT/bench/callgraph.py" --build "$B" --out "$T" --smoke --variants profil-flat,profil-g \
	>"$T/log" 2>&1; then
	if grep -q '^| variant | overhead % | samples | recorder CPU ms' "$T/callgraph.md" &&
		grep -q '^| profil-g | ' "$T/callgraph.md" && grep -q '^| profil-flat | ' "$T/callgraph.md" &&
		"$PY" - "$T/callgraph.json" <<'PYEOF'
import json, sys
d = json.load(open(sys.argv[1]))
g = d["raw"]["profil-g@997"][0]
assert g["callgraph"] == "dwarf" and g["samples"] > 0 and "overhead" in g, g
assert d["raw"]["profil-flat@997"][0]["callgraph"] == "none", d["raw"]["profil-flat@997"]
assert d["summary"]["profil-g@997"]["reach"] is not None, d["summary"]
PYEOF
	then
		echo "ok bench_callgraph_smoke"
	else
		echo "not ok bench_callgraph_smoke: results incomplete"
		cat "$T/callgraph.md" "$T/log"
	fi
else
	echo "not ok bench_callgraph_smoke: callgraph.py --smoke failed"
	tail -n 20 "$T/log"
fi
