# events/: the prof/profil event definitions and the Tracee JSON writer and
# reader (doc/events.md), the filters and the table shared by `events` and `watch`,
# `record --events`'s stream, and the user half of `profil watch`.
EVENTS_OBJS := $(patsubst %.c,$(B)/%.o,$(wildcard events/*.c))
COMPONENT_OBJS += $(EVENTS_OBJS)
CLI_LIBS += -ljson-c

# events/watch.c: the BPF part of `profil watch` (bpf/watch.bpf.c, built by mk/bpf.mk);
# without BPF it is compiled so that `profil watch` says why it has no BPF support.
ifeq ($(HAVE_BPF),1)
EXTRA_CFLAGS_events/watch := -DHAVE_BPF -I$(BPF_OUT)
$(B)/events/watch.o: $(BPF_OUT)/watch.skel.h
else
EXTRA_CFLAGS_events/watch := -DWATCH_NO_BPF_REASON='"$(or $(BPF_MISSING),BPF tools not usable)"'
endif
