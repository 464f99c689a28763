# Test programs of `profil diff` (tests/e2e/diff_*.sh): a program whose CPU time
# per function is set by its arguments and measured by itself (the ground
# truth), and a checker of the JSON output (json-c).  Plain builds, no
# sanitizer: the program is the profiled one, the checker a test tool.
DIFF_PROGS := $(B)/tests/progs/diff_prog $(B)/tests/progs/diff_jsoncheck
tests: $(DIFF_PROGS)

$(B)/tests/progs/diff_prog: tests/progs/diff_prog.c | $(SETUP_STAMP)
	@mkdir -p $(dir $@)
	$(CC) -std=gnu11 -O1 -g -fno-inline -fno-omit-frame-pointer $(WARN) -o $@ $<

$(B)/tests/progs/diff_jsoncheck: tests/progs/diff_jsoncheck.c | $(SETUP_STAMP)
	@mkdir -p $(dir $@)
	$(CC) -std=gnu11 -O1 -g $(WARN) -o $@ $< -ljson-c -lm
