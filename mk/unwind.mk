# The recorder's stack unwinder (record/unwind*.c, built with the component
# by mk/record.mk): the program the unit tests' real samples come from, the
# sample corpus those tests and `make unwind-bench` share, and the bench.
# test_unwind_step and test_unwind_objects use the generic unit-test rule.

# The program the real samples come from: an ordinary optimised build
# without frame pointers, no sanitizer (it is the profiled program).
UNWIND_PROG := $(B)/tests/progs/unwind_zlib
$(UNWIND_PROG): tests/progs/unwind_zlib.c | $(SETUP_STAMP)
	@mkdir -p $(dir $@)
	$(CC) -std=gnu11 -O2 -g -fomit-frame-pointer $(WARN) -o $@ $< -lz -pthread

UNWIND_CORPUS_OBJ := $(B)/tests/progs/unwind_corpus.o
$(B)/tests/unit/test_unwind_real: tests/unit/test_unwind_real.c $$(UNIT_EXTRA_OBJS) \
		$(UNWIND_CORPUS_OBJ) tests/unit/check.h $(LIB_A) $(UNWIND_PROG) | $(SETUP_STAMP)
	@mkdir -p $(dir $@)
	$(CC) $(BASE_CFLAGS) $(CFLAGS) -Itests/unit -Itests/progs -o $@ $< $(UNWIND_CORPUS_OBJ) \
		$(UNIT_EXTRA_OBJS) $(LIB_A) $(BASE_LDFLAGS) $(UNIT_EXTRA_LIBS) $(LIB_LIBS) -lm

tests: $(UNWIND_PROG)

# `make unwind-bench`: the figures of tests/progs/unwind_bench.c (timing:
# not part of make check).  UNWIND_BENCH_ARGS adds options, e.g.
# UNWIND_BENCH_ARGS='-F 10000 -O 300 -o /usr/lib/x86_64-linux-gnu/libLLVM-14.so.1'.
UNWIND_BENCH := $(B)/tests/progs/unwind_bench
$(UNWIND_BENCH): tests/progs/unwind_bench.c $(UNWIND_CORPUS_OBJ) $$(UNIT_EXTRA_OBJS) $(LIB_A) \
		$(UNWIND_PROG) | $(SETUP_STAMP)
	$(CC) $(BASE_CFLAGS) $(CFLAGS) -Itests/progs -o $@ $< $(UNWIND_CORPUS_OBJ) \
		$(UNIT_EXTRA_OBJS) $(LIB_A) $(BASE_LDFLAGS) $(UNIT_EXTRA_LIBS) $(LIB_LIBS) -lm

tests: $(UNWIND_BENCH)

.PHONY: unwind-bench
unwind-bench: $(UNWIND_BENCH)
	PROFIL_BUILD=$(B) $(UNWIND_BENCH) $(UNWIND_BENCH_ARGS)
