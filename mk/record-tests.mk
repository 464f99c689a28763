# Test programs of `profil record` (tests/e2e/record_*.sh), built into $(B)/tests/progs/.
# They are the "unmodified programs" being profiled: plain builds, no sanitizer.
RT_DIR   := $(B)/tests/progs
RT_PROGS := $(RT_DIR)/pdata_dump $(RT_DIR)/record_prog $(RT_DIR)/record_prog_nopie \
	    $(RT_DIR)/record_prog_static $(RT_DIR)/record_prog_stripped \
	    $(RT_DIR)/librecord_hot.so $(RT_DIR)/record_libuser $(RT_DIR)/record_acct
RT_CFLAGS := -O1 -g -fno-inline -fno-omit-frame-pointer

tests: $(RT_PROGS)

$(RT_DIR)/pdata_dump: tests/progs/pdata_dump.c $(B)/profile/pdata.o $(B)/utils/outfile.o $(B)/utils/why.o \
		      profile/pdata.h
	@mkdir -p $(dir $@)
	$(CC) $(BASE_CFLAGS) $(CFLAGS) -o $@ $< $(B)/profile/pdata.o $(B)/utils/outfile.o $(B)/utils/why.o \
		$(BASE_LDFLAGS) -lelf

# overwrites header fields in place (the hardening tests: damaged or hostile files)
tests: $(RT_DIR)/pdata_tamper
$(RT_DIR)/pdata_tamper: tests/progs/pdata_tamper.c profile/pdata.h
	@mkdir -p $(dir $@)
	$(CC) $(BASE_CFLAGS) $(CFLAGS) -o $@ $< $(BASE_LDFLAGS)

$(RT_DIR)/record_prog: tests/progs/record_prog.c tests/progs/record_cpu.h
	@mkdir -p $(dir $@)
	$(CC) $(RT_CFLAGS) -fPIE -pie -pthread -o $@ $< -ldl

$(RT_DIR)/record_prog_nopie: tests/progs/record_prog.c tests/progs/record_cpu.h
	@mkdir -p $(dir $@)
	$(CC) $(RT_CFLAGS) -fno-pie -no-pie -pthread -o $@ $< -ldl

$(RT_DIR)/record_prog_static: tests/progs/record_prog.c tests/progs/record_cpu.h
	@mkdir -p $(dir $@)
	$(CC) $(RT_CFLAGS) -DNO_DLOPEN -static -pthread -o $@ $<

$(RT_DIR)/record_prog_stripped: $(RT_DIR)/record_prog
	strip -o $@ $<

$(RT_DIR)/librecord_hot.so: tests/progs/record_lib.c
	@mkdir -p $(dir $@)
	$(CC) $(RT_CFLAGS) -shared -fPIC -o $@ $<

$(RT_DIR)/record_libuser: tests/progs/record_libuser.c $(RT_DIR)/librecord_hot.so
	$(CC) $(RT_CFLAGS) -o $@ $< -L$(RT_DIR) -lrecord_hot '-Wl,-rpath,$$ORIGIN'

# the accounting tests' programs: kernel time, many short processes, exit statuses, threads
$(RT_DIR)/record_acct: tests/progs/record_acct.c tests/progs/record_cpu.h
	@mkdir -p $(dir $@)
	$(CC) $(RT_CFLAGS) -pthread -o $@ $<

# maps hostile objects (issue 16: CFI over the bounds, files swapped at a library's path)
tests: $(RT_DIR)/hostile_objects
$(RT_DIR)/hostile_objects: tests/progs/hostile_objects.c tests/progs/hostile_elf.h
	@mkdir -p $(dir $@)
	$(CC) $(RT_CFLAGS) -o $@ $< -ldl
tests: $(RT_DIR)/hostile_liba.so $(RT_DIR)/hostile_libb.so
$(RT_DIR)/hostile_liba.so: tests/progs/hostile_lib.c
	@mkdir -p $(dir $@)
	$(CC) -O2 -g -fomit-frame-pointer -shared -fPIC -DVARIANT=1 -o $@ $<
$(RT_DIR)/hostile_libb.so: tests/progs/hostile_lib.c
	@mkdir -p $(dir $@)
	$(CC) -O2 -g -fomit-frame-pointer -shared -fPIC -DVARIANT=2 -o $@ $<
