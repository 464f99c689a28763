# libprofil's test programs (tests/progs/lib_*.c), linked with the shared
# library as a user would (-lprofil), plus the demo (mk/demo.mk).
LIB_PROG_SRCS := $(wildcard tests/progs/lib_*.c)
LIB_PROGS     := $(LIB_PROG_SRCS:tests/progs/%.c=$(B)/tests/progs/%)

$(B)/tests/progs/lib_%: tests/progs/lib_%.c tests/progs/lib_prog.h $(LIB_SO) | $(SETUP_STAMP)
	@mkdir -p $(dir $@)
	$(CC) $(BASE_CFLAGS) $(CFLAGS) -Itests/progs -o $@ $< -L$(B) -lprofil \
		-Wl,-rpath,$(abspath $(B)) $(BASE_LDFLAGS) -lpthread

tests: $(LIB_PROGS)
