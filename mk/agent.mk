# The LD_PRELOAD agent of `profil record` (fallback when perf_event_open is refused):
# agent/agent.c + the libprofil sampler objects + profile/pdata.o + utils/outfile.o and
# utils/why.o, one shared object that exports nothing but its wrappers (agent/agent.map).
AGENT_SO   := $(B)/libprofil-agent.so
AGENT_OBJS := $(B)/agent/agent.o $(filter-out $(B)/lib/profil.o,$(LIB_OBJS)) $(B)/profile/pdata.o \
	      $(B)/utils/outfile.o $(B)/utils/why.o

all: $(AGENT_SO)
tests: $(AGENT_SO)

$(AGENT_SO): $(AGENT_OBJS) agent/agent.map
	$(CC) -shared -Wl,--version-script=agent/agent.map $(if $(SANITIZE),,-Wl,-z,defs) $(BASE_LDFLAGS) $(LDFLAGS) \
		-o $@ $(AGENT_OBJS) -lpthread -ldl

INSTALL_EXTRA += install -d $(DESTDIR)$(LIBDIR)/profil && \
	install -m 755 $(AGENT_SO) $(DESTDIR)$(LIBDIR)/profil/libprofil-agent.so;
