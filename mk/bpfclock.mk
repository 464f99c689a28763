# The kernel-side histogram clock: bpf/histclock.bpf.c compiled for the BPF
# target, CO-RE against the running kernel's BTF, embedded as a skeleton.
# Without clang, bpftool, libbpf or kernel BTF the rest still builds and the
# clock says it was built without BPF.
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

$(BPF_OUT)/%.bpf.o: bpf/%.bpf.c bpf/%.h $(BPF_OUT)/vmlinux.h
	$(BPF_CLANG) -g -O2 -target bpf -D__TARGET_ARCH_x86 -I$(BPF_OUT) -Ibpf \
		-idirafter /usr/include/$(BPF_MULTIARCH) -c $< -o $@

$(BPF_OUT)/%.skel.h: $(BPF_OUT)/%.bpf.o
	$(BPFTOOL) gen skeleton $< name $* > $@.tmp && mv $@.tmp $@

EXTRA_CFLAGS_bpfclock := -DPROFIL_HAVE_BPF -I$(BPF_OUT) -Ibpf
$(B)/utils/bpfclock.o: $(BPF_OUT)/histclock.skel.h
CLI_LIBS += -lbpf
endif
