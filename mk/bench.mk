# The benchmark (bench/, doc/bench.md): workloads with ground truth, peers
# (glibc profil, gprof, gperftools, perf) and, once they exist, libprofil and
# `profil record`.  `make bench` regenerates bench/results/; QUICK=1 is short.
# Nothing here is part of `make check` except the smoke test's programs.
BENCH_B      := $(B)/bench
BENCH_CC     ?= $(CC)
BENCH_CFLAGS := -O2 -g -fno-omit-frame-pointer -std=gnu11 -D_GNU_SOURCE -Wall -Wextra \
		$(if $(WERROR),-Werror) -Ibench -Ibench/workloads
PYTHON       ?= $(shell command -v /usr/bin/python3 || command -v python3)

BENCH_WL     := funcs threads shlib forkexec
BENCH_WL_BIN := $(BENCH_WL:%=$(BENCH_B)/wl_%)
BENCH_PG_BIN := $(BENCH_B)/wl_funcs.pg $(BENCH_B)/wl_threads.pg $(BENCH_B)/wl_shlib.pg
BENCH_LIBSO  := $(BENCH_B)/libbenchlib.so
BENCH_SHIM   := $(BENCH_B)/glibc_profil_shim.so
BENCH_AB     := $(BENCH_B)/ab_glibc $(BENCH_B)/ab_gperf
BENCH_CORE   := $(BENCH_WL_BIN) $(BENCH_LIBSO) $(BENCH_SHIM)
BENCH_ALL    := $(BENCH_CORE) $(BENCH_PG_BIN) $(BENCH_AB)
BENCH_TRUTH_SRC := bench/workloads/truth.c bench/workloads/truth.h

# The libprofil adapters are built only once libprofil has its extended API.
BENCH_HAVE_LIBPROFIL = nm $(LIB_A) 2>/dev/null | grep -q ' T profil_set_clock$$'

.PHONY: bench bench-build
bench-build: $(BENCH_ALL) all
	@if $(BENCH_HAVE_LIBPROFIL); then \
		$(MAKE) --no-print-directory $(BENCH_B)/ab_libprofil $(BENCH_B)/libprofil_shim.so; \
	else echo "bench: libprofil has no profil_set_clock yet: its adapters are skipped"; fi

bench: bench-build
	$(PYTHON) bench/bench.py --build $(B) --out bench/results $(if $(QUICK),--quick)

# the smoke test needs the plain workloads and the glibc shim only
tests: $(BENCH_CORE)

$(BENCH_B)/wl_%: bench/workloads/wl_%.c $(BENCH_TRUTH_SRC) $(BENCH_LIBSO) | $(SETUP_STAMP)
	@mkdir -p $(dir $@)
	$(BENCH_CC) $(BENCH_CFLAGS) -o $@ $< bench/workloads/truth.c \
		-L$(BENCH_B) -Wl,-rpath,'$$ORIGIN' -Wl,--no-as-needed -lbenchlib -Wl,--as-needed -lpthread

$(BENCH_B)/wl_%.pg: bench/workloads/wl_%.c $(BENCH_TRUTH_SRC) $(BENCH_LIBSO) | $(SETUP_STAMP)
	@mkdir -p $(dir $@)
	$(BENCH_CC) $(BENCH_CFLAGS) -pg -o $@ $< bench/workloads/truth.c \
		-L$(BENCH_B) -Wl,-rpath,'$$ORIGIN' -Wl,--no-as-needed -lbenchlib -Wl,--as-needed -lpthread

$(BENCH_LIBSO): bench/workloads/benchlib.c bench/workloads/truth.h | $(SETUP_STAMP)
	@mkdir -p $(dir $@)
	$(BENCH_CC) $(BENCH_CFLAGS) -fPIC -shared -fvisibility=hidden -o $@ $<

$(BENCH_SHIM): bench/shim/profil_shim.c bench/main_text.h | $(SETUP_STAMP)
	@mkdir -p $(dir $@)
	$(BENCH_CC) $(BENCH_CFLAGS) -fPIC -shared -o $@ $<

$(BENCH_B)/libprofil_shim.so: bench/shim/profil_shim.c bench/main_text.h $(LIB_A)
	@mkdir -p $(dir $@)
	$(BENCH_CC) $(BENCH_CFLAGS) -Iinclude -DUSE_LIBPROFIL -fPIC -shared -o $@ $< $(LIB_A) $(LIB_LIBS)

BENCH_AB_SRC := bench/ab/ab.c bench/ab/ab_modes.h bench/main_text.h
$(BENCH_B)/ab_glibc: $(BENCH_AB_SRC) bench/ab/ab_glibc.c | $(SETUP_STAMP)
	@mkdir -p $(dir $@)
	$(BENCH_CC) $(BENCH_CFLAGS) -o $@ bench/ab/ab.c bench/ab/ab_glibc.c

$(BENCH_B)/ab_gperf: $(BENCH_AB_SRC) bench/ab/ab_gperf.c | $(SETUP_STAMP)
	@mkdir -p $(dir $@)
	$(BENCH_CC) $(BENCH_CFLAGS) -o $@ bench/ab/ab.c bench/ab/ab_gperf.c -lprofiler

$(BENCH_B)/ab_libprofil: $(BENCH_AB_SRC) bench/ab/ab_libprofil.c $(LIB_A)
	@mkdir -p $(dir $@)
	$(BENCH_CC) $(BENCH_CFLAGS) -Iinclude -o $@ bench/ab/ab.c bench/ab/ab_libprofil.c \
		$(LIB_A) $(LIB_LIBS)

# ---- call stacks ----------------------------------------------------------------
# The call-stack section of the benchmark (bench/callgraph.py, doc/bench.md):
# its workload, built as Debian builds its libraries (-O2 -fomit-frame-pointer,
# after BENCH_CFLAGS' -fno-omit-frame-pointer), with Debian's zlib; profil's
# stacks are read with the tests' stack_query.
BENCH_STACKS := $(BENCH_B)/wl_stacks
$(BENCH_STACKS): bench/workloads/wl_stacks.c $(BENCH_TRUTH_SRC) | $(SETUP_STAMP)
	@mkdir -p $(dir $@)
	$(BENCH_CC) $(BENCH_CFLAGS) -fomit-frame-pointer -o $@ $< bench/workloads/truth.c -lz -lpthread

bench-build: $(BENCH_STACKS) $(B)/tests/tools/stack_query

# ---- off-CPU ---------------------------------------------------------------------
# The off-CPU section (bench/offcpu.py, doc/offcpu.md): two threads bouncing a
# byte over two pipes, beside libbpf-tools' offcputime and perf record -e cs.
BENCH_PINGPONG := $(BENCH_B)/wl_pingpong
$(BENCH_PINGPONG): bench/workloads/wl_pingpong.c | $(SETUP_STAMP)
	@mkdir -p $(dir $@)
	$(BENCH_CC) $(BENCH_CFLAGS) -o $@ $< -lpthread

bench-build: $(BENCH_PINGPONG)
# the smoke test of the section (tests/e2e/bench_callgraph_smoke.sh)
tests: $(BENCH_STACKS)

# The cost of the agent's call stacks, in-process (bench/stacks/stackcost.c):
# `make bench-stacks` (QUICK=1: fewer rounds).  Not part of `make check`.
STACK_BENCH := $(B)/bench/stackcost
STACK_BENCH_OBJS := $(B)/agent/unwind.o $(B)/agent/frame_cache.o $(B)/agent/cfi_check.o \
		    $(B)/profile/pdata.o $(B)/utils/outfile.o $(B)/utils/why.o

$(STACK_BENCH): bench/stacks/stackcost.c tests/tools/libunwind_ref.h $(STACK_BENCH_OBJS) $(LIB_A) \
		| $(SETUP_STAMP)
	@mkdir -p $(dir $@)
	$(CC) $(BASE_CFLAGS) -O2 -g -o $@ $< $(STACK_BENCH_OBJS) $(LIB_A) \
		$(BASE_LDFLAGS) $(LIB_LIBS) -lz -lm

.PHONY: bench-stacks
bench-stacks: $(STACK_BENCH)
	$(STACK_BENCH) $(if $(QUICK),30,400) 12
	$(STACK_BENCH) $(if $(QUICK),30,400) 40

# `make unwind-bench`: the recorder's unwinder on the unit tests' real samples
# (tests/bench/unwind_bench.c; timing: not part of make check).  UNWIND_BENCH_ARGS
# adds options, e.g. UNWIND_BENCH_ARGS='-F 10000 -O 300 -o /usr/lib/x86_64-linux-gnu/libLLVM-14.so.1'.
UNWIND_BENCH := $(BENCH_B)/unwind_bench
$(UNWIND_BENCH): tests/bench/unwind_bench.c $(TOOLS_B)/unwind_corpus.o $(COMPONENTS_A) $(LIB_A) \
		$(PROGS_B)/unwind_zlib | $(SETUP_STAMP)
	@mkdir -p $(dir $@)
	$(CC) $(BASE_CFLAGS) $(CFLAGS) -Itests/tools -o $@ $< $(TOOLS_B)/unwind_corpus.o $(UNIT_LINK)

.PHONY: unwind-bench
unwind-bench: $(UNWIND_BENCH)
	PROFIL_BUILD=$(B) $(UNWIND_BENCH) $(UNWIND_BENCH_ARGS)
tests: $(UNWIND_BENCH)

# The whole machine's recorder (doc/system.md): its CPU and memory at 99 and
# 997 Hz, flat and with -g, perf and bpf clocks, with and without 2,000
# sleeping processes and 64 busy threads; the report of a synthetic hour.
# Needs what `record -a` needs.  `make bench-system` (QUICK=1: 1 round of 3 s).
.PHONY: bench-system
bench-system: all $(PROGS_B)/system_spin $(TOOLS_B)/system_synth $(TOOLS_B)/pdata_dump
	B=$(B) sh tests/bench/system_cost.sh $(if $(QUICK),1 3,3 5)
	B=$(B) sh tests/bench/system_report.sh
bench: bench-system
