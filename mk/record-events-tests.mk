# Test program of tests/e2e/record_events.sh: a program linked with libprofil.a.
$(B)/tests/progs/recev_caller: tests/progs/recev_caller.c $(LIB_A) | $(SETUP_STAMP)
	@mkdir -p $(dir $@)
	$(CC) -std=gnu11 -D_GNU_SOURCE -O1 -g -Iinclude $(WARN) $(SANITIZE) -o $@ $< $(LIB_A) -lpthread -ldl

tests: $(B)/tests/progs/recev_caller
