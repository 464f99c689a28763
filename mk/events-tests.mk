# Test programs of tests/e2e/events_*.sh (the events component itself: mk/events.mk).

EVENTS_PROGS_SRCS := $(wildcard tests/progs/events_*.c)
EVENTS_PROGS := $(EVENTS_PROGS_SRCS:tests/progs/%.c=$(B)/tests/progs/%)

# The programs under test are built without sanitizers: they call glibc's
# profil(NULL, ...) on purpose (declared nonnull) and must behave like any
# ordinary program.
$(B)/tests/progs/events_%: tests/progs/events_%.c | $(SETUP_STAMP)
	@mkdir -p $(dir $@)
	$(CC) -std=gnu11 -D_GNU_SOURCE -O1 -g -fno-omit-frame-pointer $(WARN) -o $@ $<

# A 32-bit program without a 32-bit C library: clang's i386 target and the
# binutils linker are enough.  Not built when clang is missing (the test skips).
IA32_CC := $(shell command -v clang 2>/dev/null)
ifneq ($(IA32_CC),)
$(B)/tests/progs/events_ia32: tests/progs/events_ia32.c | $(SETUP_STAMP)
	@mkdir -p $(dir $@)
	$(IA32_CC) -m32 -O1 -g -ffreestanding -fno-pic -fno-stack-protector -nostdlib -static \
		$(WARN) -o $@ $<
else
EVENTS_PROGS := $(filter-out %/events_ia32,$(EVENTS_PROGS))
endif

tests: $(EVENTS_PROGS)
