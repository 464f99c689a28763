# The cost of the agent's call stacks, in-process (bench/stacks/stackcost.c):
# `make bench-stacks` (QUICK=1: fewer rounds).  Not part of `make check`.
STACK_BENCH := $(B)/bench/stackcost
STACK_BENCH_OBJS := $(B)/agent/unwind.o $(B)/agent/frame_cache.o $(B)/agent/cfi_check.o \
		    $(B)/profile/pdata.o $(B)/utils/outfile.o $(B)/utils/why.o

$(STACK_BENCH): bench/stacks/stackcost.c $(STACK_BENCH_OBJS) $(LIB_A) | $(SETUP_STAMP)
	@mkdir -p $(dir $@)
	$(CC) $(BASE_CFLAGS) -O2 -g -o $@ $< $(STACK_BENCH_OBJS) $(LIB_A) \
		$(BASE_LDFLAGS) $(LIB_LIBS) -lz -lm

.PHONY: bench-stacks
bench-stacks: $(STACK_BENCH)
	$(STACK_BENCH) $(if $(QUICK),30,400) 12
	$(STACK_BENCH) $(if $(QUICK),30,400) 40
