# eBPF part of `profil watch`: bpf/watch.bpf.c -> $(BPF_OUT)/watch.bpf.o ->
# $(BPF_OUT)/watch.skel.h.  BPF detection, BPF_CLANG, BPFTOOL, VMLINUX_BTF and
# the $(BPF_OUT)/vmlinux.h rule (bpftool btf dump of the running kernel) come
# from mk/bpfclock.mk, read before this fragment (mk/*.mk are read in order).
# Without BPF, cmds/watch.c is compiled so that `profil watch` says why it has
# no BPF support and exits 2.

ifeq ($(HAVE_BPF),1)
# Explicit rules (not bpfclock.mk's pattern rules): the program includes
# utils/events.h, and the skeleton is named watch_bpf.
$(BPF_OUT)/watch.bpf.o: bpf/watch.bpf.c bpf/watch.h utils/events.h $(BPF_OUT)/vmlinux.h
	$(BPF_CLANG) -g -O2 -target bpf -D__TARGET_ARCH_x86 -I$(BPF_OUT) -Ibpf -Iutils \
		-Wall -Wno-unused-function $(if $(WERROR),-Werror) -c $< -o $@

$(BPF_OUT)/watch.skel.h: $(BPF_OUT)/watch.bpf.o
	$(BPFTOOL) gen skeleton $< name watch_bpf > $@.tmp && mv $@.tmp $@

EXTRA_CFLAGS_watch := -DHAVE_BPF -I$(BPF_OUT) -Ibpf
$(B)/cmds/watch.o: $(BPF_OUT)/watch.skel.h
# -lbpf is added to CLI_LIBS by mk/bpfclock.mk.
else
WATCH_NO_BPF := $(strip \
	$(if $(shell command -v $(BPF_CLANG) 2>/dev/null),,$(BPF_CLANG) not found) \
	$(if $(shell command -v $(BPFTOOL) 2>/dev/null),,bpftool not found) \
	$(if $(wildcard $(VMLINUX_BTF)),,$(VMLINUX_BTF) not found) \
	$(if $(wildcard /usr/include/bpf/libbpf.h),,libbpf headers not found))
EXTRA_CFLAGS_watch := -DWATCH_NO_BPF_REASON='"$(or $(WATCH_NO_BPF),BPF tools not usable)"'
endif
