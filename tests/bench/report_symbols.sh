#!/bin/sh
# Symbolisation speed on a big binary: a shared object with N functions (default
# 100000) generated as one assembler file, then (1) symbols/symbols loading it and
# symbolising N addresses, (2) `profil report` on a profile with one sample in
# each of the N functions (wall time of the whole command).
# Usage: tests/bench/report_symbols.sh [N]   (from the repository root, after make)
set -e
N=${1:-100000}
B=${B:-build}
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT

awk -v n="$N" 'BEGIN {
	print ".text"
	for (i = 0; i < n; i++) {
		printf ".globl bigfn_%06d\n.type bigfn_%06d, @function\nbigfn_%06d:\n", i, i, i
		printf "\tnop; nop; nop; nop; nop; nop; nop\n\tret\n.size bigfn_%06d, .-bigfn_%06d\n", i, i
	}
}' >"$T/big.s"
cc -shared -nostdlib -o "$T/libbig.so" "$T/big.s"
echo "generated $T/libbig.so: $N functions, $(wc -c <"$T/libbig.so") bytes"

cc -std=gnu11 -O2 -I. -o "$T/symbench" tests/bench/report_symbench.c symbols/symbols.c -lelf -ldw
for i in 1 2 3; do "$T/symbench" "$T/libbig.so" "$N"; done

# a profile: the library mapped at 0x7f0000000000, one sample per function
cat >"$T/mkprof.c" <<'EOC'
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include "profile/pdata.h"
int main(int argc, char **argv)
{
	struct pdata_create_opts o = { .table_slots = 1 << 19 };
	struct pdata *pd;
	char why[256];
	long n = atol(argv[3]);
	unsigned long long text = strtoull(argv[4], NULL, 16), base = 0x7f0000000000ull;
	if (pdata__create(&pd, argv[1], &o, why, sizeof(why)) < 0) { fprintf(stderr, "%s\n", why); return 1; }
	pdata__header(pd)->period_ns = 1000000;
	struct pdata_proc *p = pdata__add_proc(pd, 1, 0, 0, argv[2], 1);
	pdata__add_map(pd, p->id, base, base + 0x10000000, 0, PROT_READ | PROT_EXEC, argv[2]);
	for (long i = 0; i < n; i++)
		pdata__count(pd, p->id, 1, base + text + (unsigned long long)i * 8 + 1, 1 + i % 7);
	pdata__finish(pd);
	return 0;
}
EOC
cc -std=gnu11 -O2 -I. -o "$T/mkprof" "$T/mkprof.c" profile/pdata.c utils/outfile.c utils/why.c
text=$(nm "$T/libbig.so" | awk '$3 == "bigfn_000000" { print $1 }')
"$T/mkprof" "$T/big.data" "$T/libbig.so" "$N" "$text"
for i in 1 2 3; do
	s=$(date +%s.%N)
	"$B/profil" report -i "$T/big.data" >"$T/report.txt"
	e=$(date +%s.%N)
	echo "profil report, $N samples in $N functions: $(awk -v s="$s" -v e="$e" 'BEGIN { printf "%.3f", e - s }') s wall," \
		"$(grep -c bigfn_ "$T/report.txt") function rows"
done
