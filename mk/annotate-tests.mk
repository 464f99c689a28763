# Test programs of profil annotate and of the names (tests/e2e/annotate.sh, names.sh): a
# function with two measured loops (with and without its symbols), a tiny JIT, and a
# program with a PLT call, a versioned libc function and inlined functions.  Built without
# the sanitizers: they are inputs, not code under test.
ANNOTATE_PROGS_DIR := $(B)/tests/progs
ANNOTATE_PROGS := $(ANNOTATE_PROGS_DIR)/annotate_loops $(ANNOTATE_PROGS_DIR)/annotate_loops_stripped \
	$(ANNOTATE_PROGS_DIR)/jit_prog $(ANNOTATE_PROGS_DIR)/names_prog
tests: $(ANNOTATE_PROGS)

# each loop on one line, its statement after it on the same line: -Wno-misleading-indentation
$(ANNOTATE_PROGS_DIR)/annotate_loops: tests/progs/annotate_loops.c | $(SETUP_STAMP)
	@mkdir -p $(dir $@)
	$(CC) -std=gnu11 -O1 -g -Wall -Wno-misleading-indentation -o $@ $<

$(ANNOTATE_PROGS_DIR)/annotate_loops_stripped: $(ANNOTATE_PROGS_DIR)/annotate_loops
	strip --strip-all -o $@ $<

$(ANNOTATE_PROGS_DIR)/jit_prog: tests/progs/jit_prog.c | $(SETUP_STAMP)
	@mkdir -p $(dir $@)
	$(CC) -std=gnu11 -O1 -g -Wall -o $@ $<

# -fno-builtin: labs is called through the PLT, not inlined
$(ANNOTATE_PROGS_DIR)/names_prog: tests/progs/names_prog.c | $(SETUP_STAMP)
	@mkdir -p $(dir $@)
	$(CC) -std=gnu11 -O2 -g -fno-builtin -fno-omit-frame-pointer -Wall -o $@ $<
