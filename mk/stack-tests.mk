# Call stacks of the agent (agent/unwind.c): the programs tests/e2e/record_stacks.sh
# profiles.  Plain builds, no sanitizer, -O2 -fomit-frame-pointer: only DWARF CFI
# unwinds them (and Debian's zlib).
ST_DIR    := $(B)/tests/progs
ST_CFLAGS := -O2 -g -fomit-frame-pointer -Wall -Iagent
ST_PROGS  := $(ST_DIR)/stack_prog

tests: $(ST_PROGS)

$(ST_DIR)/stack_prog: tests/progs/stack_prog.c agent/stack_dump.h | $(SETUP_STAMP)
	@mkdir -p $(dir $@)
	$(CC) $(ST_CFLAGS) -rdynamic -pthread -o $@ $< -lz -ldl
