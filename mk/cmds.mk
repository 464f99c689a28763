# The profil command: cmds/*.c, thin (options -> one call into a component ->
# output), linked with the components' objects (COMPONENT_OBJS, which each
# mk/<component>.mk adds to, with its libraries in CLI_LIBS) and the static library.
CMDS_OBJS := $(patsubst %.c,$(B)/%.o,$(wildcard cmds/*.c))
CLI_BIN  := $(B)/profil
CLI_LIBS += -lz -lm
BASE_CFLAGS += -DPROFIL_VERSION='"$(VERSION)"'

all: $(CLI_BIN)
tests: $(CLI_BIN)

# $$: the component fragments are read after this one (mk/*.mk in name order).
$(CLI_BIN): $(CMDS_OBJS) $$(COMPONENT_OBJS) $(LIB_A)
	$(CC) $(BASE_LDFLAGS) $(LDFLAGS) -o $@ $(CMDS_OBJS) $(COMPONENT_OBJS) $(LIB_A) $(CLI_LIBS) $(LIB_LIBS)

INSTALL_FILES += 755:$(CLI_BIN):$(BINDIR)/profil

# Unit tests link every component (not the commands); evaluated when used.
UNIT_EXTRA_OBJS = $(COMPONENT_OBJS)
UNIT_EXTRA_LIBS = $(CLI_LIBS)
