#!/bin/sh
# C++ and Rust names are demangled in reports: real programs (built here with
# g++ and rustc, Rust in both manglings: legacy _ZN...17h<hash>E and v0 _R),
# each spinning in one hot function for 0.4 s of its own CPU time, recorded
# with profil record.  The demangled hot function must hold most of its
# process's samples, and the mangled name must not appear.
. "$ROOT/tests/e2e/report/common.sh"

# share of the process's samples (percent, integer) in rows whose function is exactly $2
share() {
	awk -F'\t' -v f="$2" 'NR > 1 { t += $3; if ($2 == f) s += $3 }
		END { print t ? int(100 * s / t) : -1 }' "$1"
}

# record PROG, then the report as "pid<TAB>function<TAB>samples" (the CSV's function may hold commas)
run() {
	"$PROFIL" record -o "$T/$1.data" -- "$T/$1" >"$T/$1.out" 2>"$T/$1.err" || {
		no "$1_record" "$(cat "$T/$1.err")"
		return 1
	}
	"$PROFIL" report -i "$T/$1.data" --format json >"$T/$1.json" || {
		no "$1_report" "report failed"
		return 1
	}
	python3 - "$T/$1.json" >"$T/$1.tsv" 2>"$T/$1.err" <<'EOF' || {
import json, sys
doc = json.load(open(sys.argv[1]))
print("pid\tfunction\tsamples")
for p in doc["processes"]:
    for f in p["functions"]:
        print("%s\t%s\t%s" % (p["pid"], f["name"], f["samples"]))
EOF
		no "$1_json" "$(cat "$T/$1.err")"
		return 1
	}
}

check() { # NAME PROG WANTED-FUNCTION MANGLED-PREFIX
	run "$2" || return
	s=$(share "$T/$2.tsv" "$3")
	[ "$s" -ge 50 ] && ok "$1 ($3: $s%)" || no "$1" "$3 has $s% of the samples: $(head -n 8 "$T/$2.tsv")"
	grep -q "	$4" "$T/$2.tsv" && no "$1_nothing_mangled" "$(grep "	$4" "$T/$2.tsv" | head -n 3)" ||
		ok "$1_nothing_mangled"
}

if command -v g++ >/dev/null; then
	g++ -O2 -g -o "$T/cxx" "$ROOT/tests/progs/demangle_cxx.cc" &&
		check cxx_demangled cxx "demo::Hot<long>::spin(long)" "_ZN4demo"
else
	echo "skip cxx_demangled: g++ is not installed"
fi

if command -v rustc >/dev/null; then
	# rustc's default mangling is legacy (v0 needs a flag); legacy cannot be asked for on stable
	rustc -O -g --crate-name demo -o "$T/rust_legacy" "$ROOT/tests/progs/demangle_rust.rs" 2>"$T/rustc.err" ||
		no rustc_legacy "$(cat "$T/rustc.err")"
	if nm "$T/rust_legacy" | grep -q ' _ZN4demo3hot7Spinner4spin17h[0-9a-f]*E$'; then
		check rust_legacy_demangled rust_legacy "demo::hot::Spinner::spin" "_ZN4demo"
	else
		echo "skip rust_legacy_demangled: this rustc does not mangle the legacy way by default"
	fi
	rustc -O -g --crate-name demo -C symbol-mangling-version=v0 -o "$T/rust_v0" \
		"$ROOT/tests/progs/demangle_rust.rs" 2>"$T/rustc.err" || no rustc_v0 "$(cat "$T/rustc.err")"
	nm "$T/rust_v0" | grep -q ' _R.*4demo3hot.*7Spinner4spin$' || no rust_v0_mangled "no _R symbol"
	check rust_v0_demangled rust_v0 "<demo::hot::Spinner>::spin" "_R"
else
	echo "skip rust_demangled: rustc is not installed"
fi
