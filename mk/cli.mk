# The profil command: cmds/*.c + utils/*.c, linked with the static library.
# Components add libraries to CLI_LIBS and objects to CLI_EXTRA_OBJS in their own mk/*.mk.
CLI_SRCS := $(wildcard cmds/*.c) $(wildcard utils/*.c)
CLI_OBJS := $(CLI_SRCS:%.c=$(B)/%.o)
CLI_BIN  := $(B)/profil
CLI_LIBS += -lelf -ldw -lz -ljson-c -lm
BASE_CFLAGS += -Iutils -Icmds -DPROFIL_VERSION='"$(VERSION)"'

all: $(CLI_BIN)
tests: $(CLI_BIN)

$(CLI_BIN): $(CLI_OBJS) $(CLI_EXTRA_OBJS) $(LIB_A)
	$(CC) $(BASE_LDFLAGS) $(LDFLAGS) -o $@ $(CLI_OBJS) $(CLI_EXTRA_OBJS) $(LIB_A) $(CLI_LIBS) $(LIB_LIBS)

INSTALL_EXTRA += install -d $(DESTDIR)$(BINDIR) && install -m 755 $(CLI_BIN) $(DESTDIR)$(BINDIR)/profil;

# Unit tests may test the CLI utilities too.
UNIT_EXTRA_OBJS += $(filter $(B)/utils/%,$(CLI_OBJS))
UNIT_EXTRA_LIBS += $(CLI_LIBS)
