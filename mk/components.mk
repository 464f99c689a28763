# The product's components (doc/architecture.md): one folder each, every .c of
# the folder compiled by the Makefile's one pattern rule and linked into the
# profil command and the unit tests.  A new file needs no edit here; a new
# component is one word in COMPONENTS (and its place in tests/e2e/layout.sh).
#
#   utils/    shared helpers         profile/  the profile file (format, writer, reader)
#   symbols/  symbolisation          report/   the report's model
#   output/   every writer           unwind/   the recorder's CFI unwinder
#   record/   the recording engine   events/   the prof/profil events, `watch`
#   cmds/     the profil command     agent/    the LD_PRELOAD agent (its own .so)
#   live/     profil top's live view (over record/ and report/)
#   annotate/ profil annotate (disassembly with capstone, Debian libcapstone-dev)
COMPONENTS := utils profile symbols report annotate output unwind record events live
COMPONENT_OBJS := $(patsubst %.c,$(B)/%.o,$(foreach c,$(COMPONENTS),$(wildcard $(c)/*.c)))
CLI_LIBS += -lz -lm -ljson-c -lelf -ldw -llzma -liberty -lcapstone

# ---- output/: the pprof message compiled by protoc-c (Debian protobuf-c-compiler)
# into $(B)/output/, included as "output/profile.pb-c.h" through -I$(B); both
# generated files come from one run (grouped target); the generated code
# includes its header by its bare name.
PPROF_GEN := $(B)/output/profile.pb-c.c $(B)/output/profile.pb-c.h
COMPONENT_OBJS += $(B)/output/profile.pb-c.o
BASE_CFLAGS += -I$(B)
CLI_LIBS += -lprotobuf-c

$(PPROF_GEN) &: output/profile.proto | $(SETUP_STAMP)
	@mkdir -p $(B)/output
	protoc-c --c_out=$(B)/output --proto_path=output $<

$(B)/output/profile.pb-c.o: $(PPROF_GEN)
	$(CC) $(BASE_CFLAGS) -I$(B)/output $(CFLAGS) -MMD -MP -c $< -o $@

$(B)/output/pprof.o: $(B)/output/profile.pb-c.h

# ---- output/: the HTML page's sources (output/html/) embedded by
# output/html_assets.S (.incbin, assembled from the top of the tree), so the
# command needs no file on disk.
COMPONENT_OBJS += $(B)/output/html_assets.o
$(B)/output/html_assets.o: output/html_assets.S $(wildcard output/html/*) | $(SETUP_STAMP)
	@mkdir -p $(dir $@)
	$(CC) -c -o $@ $<

# ---- the BPF skeletons' users (mk/bpf.mk builds the skeletons); without BPF,
# `profil watch` is compiled to say why.
ifeq ($(HAVE_BPF),1)
BPF_USERS := record/bpfclock record/procacct record/kstacks record/offcpu events/watch
$(foreach u,$(BPF_USERS),$(eval EXTRA_CFLAGS_$(u) := -DPROFIL_HAVE_BPF -I$(BPF_OUT)))
$(B)/record/bpfclock.o: $(BPF_OUT)/histclock.skel.h
$(B)/record/procacct.o: $(BPF_OUT)/procacct.skel.h
$(B)/record/kstacks.o: $(BPF_OUT)/kunwind.skel.h
$(B)/record/offcpu.o: $(BPF_OUT)/offcpu.skel.h
$(B)/events/watch.o: $(BPF_OUT)/watch.skel.h
CLI_LIBS += -lbpf
else
EXTRA_CFLAGS_events/watch := -DWATCH_NO_BPF_REASON='"$(or $(BPF_MISSING),BPF tools not usable)"'
endif

# ---- cmds/: the profil command, thin (options -> one call into a component -> output)
CMDS_OBJS := $(patsubst %.c,$(B)/%.o,$(wildcard cmds/*.c))
CLI_BIN   := $(B)/profil
BASE_CFLAGS += -DPROFIL_VERSION='"$(VERSION)"'

$(CLI_BIN): $(CMDS_OBJS) $(COMPONENT_OBJS) $(LIB_A)
	$(CC) $(BASE_LDFLAGS) $(LDFLAGS) -o $@ $(CMDS_OBJS) $(COMPONENT_OBJS) $(LIB_A) $(CLI_LIBS) $(LIB_LIBS)

# ---- agent/: the LD_PRELOAD agent of record's fallback clocks: agent/*.c +
# libprofil's sampler + the profile writer, one shared object that exports
# nothing but its wrappers (agent/agent.map).  libunwind (call stacks,
# agent/unwind.c) is not linked: the agent dlopens it RTLD_LOCAL.
AGENT_SO   := $(B)/libprofil-agent.so
AGENT_OBJS := $(patsubst %.c,$(B)/%.o,$(wildcard agent/*.c)) $(filter-out $(B)/lib/profil.o,$(LIB_OBJS)) \
	      $(B)/profile/pdata.o $(B)/utils/outfile.o $(B)/utils/why.o $(B)/utils/procmaps.o

$(AGENT_SO): $(AGENT_OBJS) agent/agent.map
	$(CC) -shared -Wl,--version-script=agent/agent.map $(if $(SANITIZE),,-Wl,-z,defs) $(BASE_LDFLAGS) $(LDFLAGS) \
		-o $@ $(AGENT_OBJS) -lpthread -ldl

all: $(CLI_BIN) $(AGENT_SO)

# installed into BINDIR, and LIBDIR/profil where the installed profil looks for
# its agent (utils/install_dirs.h)
INSTALL_FILES += 755:$(CLI_BIN):$(BINDIR)/profil 755:$(AGENT_SO):$(LIBDIR)/profil/libprofil-agent.so
