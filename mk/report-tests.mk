# Test programs of profil report/export (tests/progs/report_*.c): one profile
# generator built four ways (PIE, non-PIE, static, stripped) plus its shared
# library.  Built without the sanitizers: they are inputs, not code under test
# (and -static cannot be combined with ASan).
REPORT_PROGS_DIR := $(B)/tests/progs
REPORT_PROG_CFLAGS := -std=gnu11 -O1 -g -I. -Wall
REPORT_GEN_SRCS := tests/progs/report_gen.c profile/pdata.c utils/outfile.c utils/why.c profile/pdata.h \
	utils/outfile.h utils/why.h
REPORT_PROGS := $(REPORT_PROGS_DIR)/libreport_lib.so $(REPORT_PROGS_DIR)/report_gen_pie \
	$(REPORT_PROGS_DIR)/report_gen_nopie $(REPORT_PROGS_DIR)/report_gen_static \
	$(REPORT_PROGS_DIR)/report_gen_stripped
REPORT_GEN_LINK := -L$(REPORT_PROGS_DIR) -lreport_lib -Wl,-rpath,'$$ORIGIN' -lpthread

tests: $(REPORT_PROGS)

$(REPORT_PROGS_DIR)/libreport_lib.so: tests/progs/report_lib.c | $(SETUP_STAMP)
	@mkdir -p $(dir $@)
	$(CC) $(REPORT_PROG_CFLAGS) -fPIC -shared -o $@ $<

$(REPORT_PROGS_DIR)/report_gen_pie: $(REPORT_GEN_SRCS) $(REPORT_PROGS_DIR)/libreport_lib.so
	$(CC) $(REPORT_PROG_CFLAGS) -fPIE -pie -o $@ tests/progs/report_gen.c profile/pdata.c \
		utils/outfile.c utils/why.c $(REPORT_GEN_LINK)

$(REPORT_PROGS_DIR)/report_gen_nopie: $(REPORT_GEN_SRCS) $(REPORT_PROGS_DIR)/libreport_lib.so
	$(CC) $(REPORT_PROG_CFLAGS) -fno-pie -no-pie -o $@ tests/progs/report_gen.c profile/pdata.c \
		utils/outfile.c utils/why.c $(REPORT_GEN_LINK)

$(REPORT_PROGS_DIR)/report_gen_static: $(REPORT_GEN_SRCS) tests/progs/report_lib.c | $(SETUP_STAMP)
	@mkdir -p $(dir $@)
	$(CC) $(REPORT_PROG_CFLAGS) -static -o $@ tests/progs/report_gen.c tests/progs/report_lib.c \
		profile/pdata.c utils/outfile.c utils/why.c -lpthread

# -rdynamic: the global functions stay in .dynsym after strip --strip-all;
# the static ones are gone (address ranges in the report).
$(REPORT_PROGS_DIR)/report_gen_stripped: $(REPORT_GEN_SRCS) $(REPORT_PROGS_DIR)/libreport_lib.so
	$(CC) $(REPORT_PROG_CFLAGS) -fPIE -pie -rdynamic -o $@ tests/progs/report_gen.c \
		profile/pdata.c utils/outfile.c utils/why.c $(REPORT_GEN_LINK)
	strip --strip-all $@

# Helpers of the e2e tests: a JSON schema checker (json-c) and a profile byte-flipper.
REPORT_HELPERS := $(REPORT_PROGS_DIR)/report_jsoncheck $(REPORT_PROGS_DIR)/report_fuzz
tests: $(REPORT_HELPERS)

$(REPORT_PROGS_DIR)/report_jsoncheck: tests/progs/report_jsoncheck.c | $(SETUP_STAMP)
	@mkdir -p $(dir $@)
	$(CC) $(REPORT_PROG_CFLAGS) -o $@ $< -ljson-c

$(REPORT_PROGS_DIR)/report_fuzz: tests/progs/report_fuzz.c profile/pdata.h | $(SETUP_STAMP)
	@mkdir -p $(dir $@)
	$(CC) $(REPORT_PROG_CFLAGS) -o $@ $<

# A real CPU-bound program for the record -> report -> gprof test.
REPORT_SPIN := $(REPORT_PROGS_DIR)/report_spin
tests: $(REPORT_SPIN)
$(REPORT_SPIN): tests/progs/report_spin.c $(REPORT_PROGS_DIR)/libreport_lib.so
	$(CC) $(REPORT_PROG_CFLAGS) -fPIE -pie -o $@ $< $(REPORT_GEN_LINK)
