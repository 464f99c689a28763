# Test programs of the call-stack reports (profile/callgraph.c, cgreport.c,
# folded.c, the gmon arcs): report_stackgen writes profiles WITH call stacks of
# itself through the pdata API (synthetic, real backtrace() stacks, a deep one,
# a big one for timing).  Frame pointers and no sibling calls, so that
# backtrace() sees every frame; built without the sanitizers (an input, not
# code under test), and without -pg: gprof's call graph comes from the stacks.
STACKGEN := $(B)/tests/progs/report_stackgen
tests: $(STACKGEN)

$(STACKGEN): tests/progs/report_stackgen.c profile/pdata.c utils/outfile.c utils/why.c profile/pdata.h utils/why.h | $(SETUP_STAMP)
	@mkdir -p $(dir $@)
	$(CC) -std=gnu11 -O1 -g -I. -Wall -fno-omit-frame-pointer -fno-optimize-sibling-calls \
		-fno-inline -fPIE -pie -o $@ tests/progs/report_stackgen.c profile/pdata.c utils/outfile.c utils/why.c \
		-lpthread
