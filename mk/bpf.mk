# bpf/: the BPF programs, compiled for the BPF target, CO-RE against the
# running kernel's BTF, each embedded in the command as a bpftool skeleton:
#   bpf/histclock.bpf.c -> $(BPF_OUT)/histclock.skel.h  (record/bpfclock.c, the bpf clock)
#   bpf/watch.bpf.c     -> $(BPF_OUT)/watch.skel.h      (events/watch.c, `profil watch`)
#   bpf/procacct.bpf.c  -> $(BPF_OUT)/procacct.skel.h   (record/procacct.c, every thread's CPU time and exit)
#   bpf/kunwind.bpf.c   -> $(BPF_OUT)/kunwind.skel.h    (record/kstacks.c, call stacks walked in the kernel;
#                          the walk itself is bpf/kunwind_walk.bpf.h, for other programs too)
#   bpf/offcpu.bpf.c    -> $(BPF_OUT)/offcpu.skel.h     (record/offcpu.c, record --off-cpu)
# Without clang, bpftool, libbpf or kernel BTF the rest still builds: the bpf
# clock says it was built without BPF and `profil watch` says why (BPF_MISSING).
BPF_CLANG   ?= clang
BPFTOOL     ?= $(firstword $(wildcard /usr/sbin/bpftool /sbin/bpftool) bpftool)
VMLINUX_BTF ?= /sys/kernel/btf/vmlinux
HAVE_BPF := $(shell command -v $(BPF_CLANG) >/dev/null 2>&1 && command -v $(BPFTOOL) >/dev/null 2>&1 && \
	test -r $(VMLINUX_BTF) && test -r /usr/include/bpf/libbpf.h && echo 1)
BPF_OUT := $(B)/bpf

ifeq ($(HAVE_BPF),1)
$(BPF_OUT)/vmlinux.h: | $(SETUP_STAMP)
	@mkdir -p $(dir $@)
	$(BPFTOOL) btf dump file $(VMLINUX_BTF) format c > $@.tmp && mv $@.tmp $@

# UAPI headers such as <asm/types.h> live in the multiarch directory, which the BPF target does not search
BPF_MULTIARCH := $(shell gcc -dumpmachine 2>/dev/null || echo x86_64-linux-gnu)

# -I.: bpf/watch.h includes events/events.h (the event ids and encodings).
$(BPF_OUT)/%.bpf.o: bpf/%.bpf.c bpf/%.h $(BPF_OUT)/vmlinux.h
	$(BPF_CLANG) -g -O2 -target bpf -D__TARGET_ARCH_x86 -I$(BPF_OUT) -I. \
		-idirafter /usr/include/$(BPF_MULTIARCH) $(BPF_CFLAGS_$*) -c $< -o $@

# The headers each program includes besides its own (a change to one rebuilds it).
$(BPF_OUT)/watch.bpf.o: events/events.h bpf/drops.bpf.h
$(BPF_OUT)/procacct.bpf.o: bpf/procacct_switch.bpf.h bpf/drops.bpf.h
$(BPF_OUT)/offcpu.bpf.o: bpf/kunwind_walk.bpf.h bpf/kunwind.h bpf/procacct_switch.bpf.h \
	bpf/procacct.h bpf/drops.bpf.h bpf/stats.bpf.h
$(BPF_OUT)/histclock.bpf.o: bpf/stats.bpf.h
BPF_CFLAGS_watch := -Wall -Wno-unused-function $(if $(WERROR),-Werror)
$(BPF_OUT)/kunwind.bpf.o: bpf/kunwind_walk.bpf.h bpf/stats.bpf.h
BPF_CFLAGS_kunwind := -Wall -Wno-unused-function $(if $(WERROR),-Werror)

# The skeletons of watch, procacct and offcpu are named watch_bpf, procacct_bpf and offcpu_bpf (their functions:
# watch_bpf__open, ...: the user halves own the plain names).
BPF_SKEL_NAME_watch := watch_bpf
BPF_SKEL_NAME_procacct := procacct_bpf
BPF_SKEL_NAME_offcpu := offcpu_bpf
BPF_CFLAGS_offcpu := -mcpu=v3 -Wall $(if $(WERROR),-Werror)  # v3: atomics that return (walk ids)
$(BPF_OUT)/%.skel.h: $(BPF_OUT)/%.bpf.o
	$(BPFTOOL) gen skeleton $< name $(or $(BPF_SKEL_NAME_$*),$*) > $@.tmp && mv $@.tmp $@

else
BPF_MISSING := $(strip \
	$(if $(shell command -v $(BPF_CLANG) 2>/dev/null),,$(BPF_CLANG) not found) \
	$(if $(shell command -v $(BPFTOOL) 2>/dev/null),,bpftool not found) \
	$(if $(wildcard $(VMLINUX_BTF)),,$(VMLINUX_BTF) not found) \
	$(if $(wildcard /usr/include/bpf/libbpf.h),,libbpf headers not found))
endif
