# eBPF part of `profil watch`: bpf/watch.bpf.c -> $(B)/bpf/watch.bpf.o ->
# $(B)/bpf/watch.skel.h (bpftool), vmlinux.h generated from the running
# kernel's BTF.  Built only when clang, bpftool, the kernel BTF and the
# libbpf headers are all present; otherwise cmds/watch.c is compiled so that
# `profil watch` says why it has no BPF support and exits 2.

BPF_CLANG   ?= clang
BPFTOOL     ?= $(shell command -v bpftool 2>/dev/null || ls /usr/sbin/bpftool 2>/dev/null)
BPF_VMLINUX ?= /sys/kernel/btf/vmlinux
BPF_DIR     := $(B)/bpf

BPF_MISSING := $(strip \
	$(if $(shell command -v $(BPF_CLANG) 2>/dev/null),,$(BPF_CLANG) not found) \
	$(if $(BPFTOOL),,bpftool not found) \
	$(if $(wildcard $(BPF_VMLINUX)),,$(BPF_VMLINUX) not found) \
	$(if $(wildcard /usr/include/bpf/libbpf.h),,libbpf headers not found))

ifeq ($(BPF_MISSING),)
BPF_SKEL := $(BPF_DIR)/watch.skel.h
EXTRA_CFLAGS_watch := -DHAVE_BPF -I$(BPF_DIR) -Ibpf
CLI_LIBS += -lbpf

$(BPF_DIR)/vmlinux.h: | $(SETUP_STAMP)
	@mkdir -p $(dir $@)
	$(BPFTOOL) btf dump file $(BPF_VMLINUX) format c > $@.tmp && mv $@.tmp $@

$(BPF_DIR)/watch.bpf.o: bpf/watch.bpf.c bpf/watch.h utils/events.h $(BPF_DIR)/vmlinux.h
	$(BPF_CLANG) -g -O2 -target bpf -D__TARGET_ARCH_x86 -I$(BPF_DIR) -Ibpf -Iutils \
		-Wall -Wno-unused-function $(if $(WERROR),-Werror) -c $< -o $@

$(BPF_SKEL): $(BPF_DIR)/watch.bpf.o
	$(BPFTOOL) gen skeleton $< name watch_bpf > $@.tmp && mv $@.tmp $@

$(B)/cmds/watch.o: $(BPF_SKEL)
else
EXTRA_CFLAGS_watch := -DWATCH_NO_BPF_REASON='"$(BPF_MISSING)"'
endif
