# Call stacks of `profil record -g` (tests/e2e/record_callgraph.sh): the test's
# reader of stacks, built against the profile component (pview, resolve),
# like the unit tests (it runs under ASan in make ci-extra).
STACK_QUERY := $(B)/tests/progs/stack_query
$(STACK_QUERY): tests/progs/stack_query.c $$(UNIT_EXTRA_OBJS) $(LIB_A) | $(SETUP_STAMP)
	@mkdir -p $(dir $@)
	$(CC) $(BASE_CFLAGS) $(CFLAGS) -o $@ $< $(UNIT_EXTRA_OBJS) $(LIB_A) $(BASE_LDFLAGS) \
		$(UNIT_EXTRA_LIBS) $(LIB_LIBS) -lm

tests: $(STACK_QUERY)
