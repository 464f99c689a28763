# Events (doc/events.md): utils/events.[ch] + utils/event_table.c are built into
# the profil command by mk/cli.mk (wildcards).  This fragment builds the test
# programs of tests/e2e/events_*.sh.

# tests/unit/test_events links the utilities through UNIT_EXTRA_OBJS (mk/cli.mk).

EVENTS_PROGS_SRCS := $(wildcard tests/progs/events_*.c)
EVENTS_PROGS := $(EVENTS_PROGS_SRCS:tests/progs/%.c=$(B)/tests/progs/%)

# The programs under test are built without sanitizers: they call glibc's
# profil(NULL, ...) on purpose (declared nonnull) and must behave like any
# ordinary program.
$(B)/tests/progs/events_%: tests/progs/events_%.c | $(SETUP_STAMP)
	@mkdir -p $(dir $@)
	$(CC) -std=gnu11 -D_GNU_SOURCE -O1 -g -fno-omit-frame-pointer $(WARN) -o $@ $<

tests: $(EVENTS_PROGS)
