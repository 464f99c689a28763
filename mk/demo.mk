# `make demo`: build the bundled demo (demo/demo.c, linked with libprofil.so)
# and run it: it profiles itself and prints its hottest functions.
DEMO_BIN := $(B)/demo/demo

$(DEMO_BIN): demo/demo.c include/profil.h $(LIB_SO) | $(SETUP_STAMP)
	@mkdir -p $(dir $@)
	$(CC) $(BASE_CFLAGS) $(CFLAGS) -fvisibility=default -rdynamic -o $@ $< -L$(B) -lprofil \
		-Wl,-rpath,$(abspath $(B)) $(BASE_LDFLAGS) -lpthread -ldl -lm

all: $(DEMO_BIN)

demo: $(DEMO_BIN)
	$(DEMO_BIN)
