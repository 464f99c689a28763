# Call stacks of the agent (agent/unwind.c): the programs tests/e2e/record_stacks.sh
# profiles.  Plain builds, no sanitizer, -O2 -fomit-frame-pointer: only DWARF CFI
# unwinds them (and Debian's zlib).
ST_DIR    := $(B)/tests/progs
ST_CFLAGS := -O2 -g -fomit-frame-pointer -Wall -I.
ST_PROGS  := $(ST_DIR)/stack_prog $(ST_DIR)/stack_stress $(ST_DIR)/libstack_stress.so \
	     $(ST_DIR)/stack_dump_flags $(ST_DIR)/agent_hostile $(ST_DIR)/agent_manylibs \
	     $(ST_DIR)/libagent_manylibs_lib.so

tests: $(ST_PROGS)

$(ST_DIR)/stack_prog: tests/progs/stack_prog.c agent/stack_dump.h | $(SETUP_STAMP)
	@mkdir -p $(dir $@)
	$(CC) $(ST_CFLAGS) -rdynamic -pthread -o $@ $< -lz -ldl

$(ST_DIR)/stack_stress: tests/progs/stack_stress.c | $(SETUP_STAMP)
	@mkdir -p $(dir $@)
	$(CC) $(ST_CFLAGS) -pthread -o $@ $< -ldl

$(ST_DIR)/stack_dump_flags: tests/progs/stack_dump_flags.c agent/stack_dump.h agent/unwind.h \
		| $(SETUP_STAMP)
	@mkdir -p $(dir $@)
	$(CC) $(ST_CFLAGS) -o $@ $<

# hostile CFI and odd stacks (issue 16, items 1 and 2): tests/e2e/agent_hostile.sh
$(ST_DIR)/agent_hostile: tests/progs/agent_hostile.c | $(SETUP_STAMP)
	@mkdir -p $(dir $@)
	$(CC) $(ST_CFLAGS) -pthread -o $@ $<

# 500 objects (item 6): the test copies the library 500 times
$(ST_DIR)/agent_manylibs: tests/progs/agent_manylibs.c | $(SETUP_STAMP)
	@mkdir -p $(dir $@)
	$(CC) $(ST_CFLAGS) -o $@ $< -ldl

$(ST_DIR)/libagent_manylibs_lib.so: tests/progs/agent_manylibs_lib.c | $(SETUP_STAMP)
	@mkdir -p $(dir $@)
	$(CC) $(ST_CFLAGS) -fPIC -shared -o $@ $<

$(ST_DIR)/libstack_stress.so: tests/progs/stack_stress_lib.c | $(SETUP_STAMP)
	@mkdir -p $(dir $@)
	$(CC) $(ST_CFLAGS) -fPIC -shared -o $@ $<

# The unwinder's unit test: agent/unwind.o and its cache in-process (libunwind is
# dlopen'ed at run time); -rdynamic so that its malloc & co. interpose libunwind's calls.
AGENT_UNWIND_OBJS := $(B)/agent/unwind.o $(B)/agent/frame_cache.o $(B)/agent/cfi_check.o
$(B)/tests/unit/test_agent_unwind: tests/unit/test_agent_unwind.c $(AGENT_UNWIND_OBJS) \
		$(LIB_A) tests/unit/check.h | $(SETUP_STAMP)
	@mkdir -p $(dir $@)
	$(CC) $(BASE_CFLAGS) $(CFLAGS) -Itests/unit -rdynamic -o $@ $< $(AGENT_UNWIND_OBJS) \
		$(LIB_A) $(BASE_LDFLAGS) $(LIB_LIBS) -lz
