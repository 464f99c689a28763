# The call-stack section of the benchmark (bench/callgraph.py, doc/bench.md):
# its workload, built as Debian builds its libraries (-O2 -fomit-frame-pointer,
# after BENCH_CFLAGS' -fno-omit-frame-pointer), with Debian's zlib; profil's
# stacks are read with the tests' stack_query.
BENCH_STACKS := $(BENCH_B)/wl_stacks
$(BENCH_STACKS): bench/workloads/wl_stacks.c $(BENCH_TRUTH_SRC) | $(SETUP_STAMP)
	@mkdir -p $(dir $@)
	$(BENCH_CC) $(BENCH_CFLAGS) -fomit-frame-pointer -o $@ $< bench/workloads/truth.c -lz -lpthread

bench-build: $(BENCH_STACKS) $(B)/tests/progs/stack_query
# the smoke test of the section (tests/e2e/bench_callgraph_smoke.sh)
tests: $(BENCH_STACKS)
