# The recorder's stack unwinder (record/unwind*.c, record/unwind.h): its
# objects, its unit tests (pure step; real perf samples compared with
# libdwfl), the program those samples come from, and `make unwind-bench`.
UNWIND_SRCS := record/unwind.c record/unwind_cfi.c record/unwind_table.c
UNWIND_OBJS := $(UNWIND_SRCS:%.c=$(B)/%.o)
BASE_CFLAGS += -Irecord

# The unwinder's tests link its objects (a union with UNIT_EXTRA_OBJS, in
# case the recorder's objects join those one day).
UNWIND_TEST_OBJS = $(sort $(UNIT_EXTRA_OBJS) $(UNWIND_OBJS))

UNWIND_UNIT := $(B)/tests/unit/test_unwind_step $(B)/tests/unit/test_unwind_objects
$(UNWIND_UNIT): $(B)/tests/unit/%: tests/unit/%.c $$(UNWIND_TEST_OBJS) tests/unit/check.h \
		$(LIB_A) | $(SETUP_STAMP)
	@mkdir -p $(dir $@)
	$(CC) $(BASE_CFLAGS) $(CFLAGS) -Itests/unit -o $@ $< $(UNWIND_TEST_OBJS) $(LIB_A) \
		$(BASE_LDFLAGS) $(UNIT_EXTRA_LIBS) $(LIB_LIBS) -lm

tests: $(UNWIND_OBJS)

# The program the real samples come from: an ordinary optimised build
# without frame pointers, no sanitizer (it is the profiled program).
UNWIND_PROG := $(B)/tests/progs/unwind_zlib
$(UNWIND_PROG): tests/progs/unwind_zlib.c | $(SETUP_STAMP)
	@mkdir -p $(dir $@)
	$(CC) -std=gnu11 -O2 -g -fomit-frame-pointer $(WARN) -o $@ $< -lz -pthread

UNWIND_CORPUS_OBJ := $(B)/tests/progs/unwind_corpus.o
$(B)/tests/unit/test_unwind_real: tests/unit/test_unwind_real.c $$(UNWIND_TEST_OBJS) \
		$(UNWIND_CORPUS_OBJ) tests/unit/check.h $(LIB_A) $(UNWIND_PROG) | $(SETUP_STAMP)
	@mkdir -p $(dir $@)
	$(CC) $(BASE_CFLAGS) $(CFLAGS) -Itests/unit -Itests/progs -o $@ $< $(UNWIND_CORPUS_OBJ) \
		$(UNWIND_TEST_OBJS) $(LIB_A) $(BASE_LDFLAGS) $(UNIT_EXTRA_LIBS) $(LIB_LIBS) -lm

tests: $(UNWIND_PROG)

# `make unwind-bench`: the figures of tests/progs/unwind_bench.c (timing:
# not part of make check).  UNWIND_BENCH_ARGS adds options, e.g.
# UNWIND_BENCH_ARGS='-F 10000 -O 300 -o /usr/lib/x86_64-linux-gnu/libLLVM-14.so.1'.
UNWIND_BENCH := $(B)/tests/progs/unwind_bench
$(UNWIND_BENCH): tests/progs/unwind_bench.c $(UNWIND_CORPUS_OBJ) $$(UNWIND_TEST_OBJS) $(LIB_A) \
		$(UNWIND_PROG) | $(SETUP_STAMP)
	$(CC) $(BASE_CFLAGS) $(CFLAGS) -Itests/progs -o $@ $< $(UNWIND_CORPUS_OBJ) \
		$(UNWIND_TEST_OBJS) $(LIB_A) $(BASE_LDFLAGS) $(UNIT_EXTRA_LIBS) $(LIB_LIBS) -lm

tests: $(UNWIND_BENCH)

.PHONY: unwind-bench
unwind-bench: $(UNWIND_BENCH)
	PROFIL_BUILD=$(B) $(UNWIND_BENCH) $(UNWIND_BENCH_ARGS)
