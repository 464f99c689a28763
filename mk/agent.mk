# The LD_PRELOAD agent of `profil record` (fallback when perf_event_open is refused):
# agent/*.c + the libprofil sampler objects + profile/pdata.o + utils/outfile.o and
# utils/why.o, one shared object that exports nothing but its wrappers (agent/agent.map).
# libunwind (call stacks, agent/unwind.c) is not linked: the agent dlopens it RTLD_LOCAL.
AGENT_SO   := $(B)/libprofil-agent.so
AGENT_SRCS := $(wildcard agent/*.c)
AGENT_OBJS := $(AGENT_SRCS:%.c=$(B)/%.o) $(filter-out $(B)/lib/profil.o,$(LIB_OBJS)) \
	      $(B)/profile/pdata.o $(B)/utils/outfile.o $(B)/utils/why.o

all: $(AGENT_SO)
tests: $(AGENT_SO)

$(AGENT_SO): $(AGENT_OBJS) agent/agent.map
	$(CC) -shared -Wl,--version-script=agent/agent.map $(if $(SANITIZE),,-Wl,-z,defs) $(BASE_LDFLAGS) $(LDFLAGS) \
		-o $@ $(AGENT_OBJS) -lpthread -ldl

# installed into LIBDIR/profil, where the installed profil looks (utils/install_dirs.h)
INSTALL_FILES += 755:$(AGENT_SO):$(LIBDIR)/profil/libprofil-agent.so
