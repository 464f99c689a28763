# record/: the recording engine of `profil record` (the perf session, the BPF
# clock's user half, the agent launch, attach, the process-tree bookkeeping),
# whose product is a profil.data.  Linked into the profil command and the unit tests.
RECORD_OBJS := $(patsubst %.c,$(B)/%.o,$(wildcard record/*.c))
COMPONENT_OBJS += $(RECORD_OBJS)

ifeq ($(HAVE_BPF),1)
EXTRA_CFLAGS_record/bpfclock := -DPROFIL_HAVE_BPF -I$(BPF_OUT)
$(B)/record/bpfclock.o: $(BPF_OUT)/histclock.skel.h
EXTRA_CFLAGS_record/procacct := -DPROFIL_HAVE_BPF -I$(BPF_OUT)
$(B)/record/procacct.o: $(BPF_OUT)/procacct.skel.h
EXTRA_CFLAGS_record/kstacks := -DPROFIL_HAVE_BPF -I$(BPF_OUT)
$(B)/record/kstacks.o: $(BPF_OUT)/kunwind.skel.h
endif
