# `make demo`: the main job on a bundled program: `profil record` an ordinary
# program (demo/workload.c: two threads, zlib, libc, a forked child), then
# `profil report` it.  `make demo-lib`: the libprofil demo (demo/demo.c, a
# program that profiles itself through profil() and prints its hottest functions).
DEMO_BIN := $(B)/demo/demo
DEMO_WORKLOAD := $(B)/demo/workload

# demo/primes.c: the work both give a thread
$(DEMO_BIN): demo/demo.c demo/primes.c demo/primes.h include/profil.h $(LIB_SO) | $(SETUP_STAMP)
	@mkdir -p $(dir $@)
	$(CC) $(BASE_CFLAGS) $(CFLAGS) -fvisibility=default -rdynamic -o $@ $< demo/primes.c \
		-L$(B) -lprofil \
		-Wl,-rpath,$(abspath $(B)) $(BASE_LDFLAGS) -lpthread -ldl -lm

$(DEMO_WORKLOAD): demo/workload.c demo/primes.c demo/primes.h | $(SETUP_STAMP)
	@mkdir -p $(dir $@)
	$(CC) $(BASE_CFLAGS) $(CFLAGS) -o $@ $< demo/primes.c $(BASE_LDFLAGS) -lz -lpthread

all: $(DEMO_BIN) $(DEMO_WORKLOAD)

.PHONY: demo demo-lib
demo: $(CLI_BIN) $(DEMO_WORKLOAD) $(AGENT_SO)
	$(CLI_BIN) record -o $(B)/demo.data --gmon $(B)/demo.gmon -- $(DEMO_WORKLOAD)
	$(CLI_BIN) report -i $(B)/demo.data --top 8
	$(CLI_BIN) report -i $(B)/demo.data --threads --top 4

demo-lib: $(DEMO_BIN)
	$(DEMO_BIN)
