# The tests (tests/README.md): what `make tests` builds and `make check` runs.
#
#   tests/unit/NAME.c    one C program per component or feature, linked with the
#                        components' archive (internal symbols visible) and libprofil.a
#   tests/e2e/NAME.sh    end-to-end tests of the command, one per command and feature
#   tests/progs/NAME.c   the programs the tests profile: ordinary builds, no sanitizer
#                        (they are the "unmodified programs")
#   tests/tools/NAME.c   what the tests run to check or make their inputs (profile
#                        dumpers, JSON checkers, profile generators), linked like the unit tests
#   tests/fuzz/          libFuzzer targets and their corpora (mk/fuzz.mk)
#
# One pattern rule per kind; a program's own flags and libraries, where it needs
# any, are the variables PROG_FLAGS_<name> and PROG_LIBS_<name>.
COMPONENTS_A := $(B)/libprofil-components.a
PROGS_B := $(B)/tests/progs
TOOLS_B := $(B)/tests/tools

$(COMPONENTS_A): $(COMPONENT_OBJS)
	@rm -f $@
	ar rcs $@ $^

# ---- unit tests --------------------------------------------------------------
UNIT_BINS := $(patsubst tests/unit/%.c,$(B)/tests/unit/%,$(wildcard tests/unit/*.c))
UNIT_LINK = $(COMPONENTS_A) $(LIB_A) $(BASE_LDFLAGS) $(CLI_LIBS) $(LIB_LIBS)

$(B)/tests/unit/%: tests/unit/%.c $(COMPONENTS_A) $(LIB_A) \
		$$(PROG_OBJS_$$*) \
		| $(SETUP_STAMP)
	@mkdir -p $(dir $@)
	$(CC) $(BASE_CFLAGS) $(CFLAGS) -Itests/unit -Itests/tools $(PROG_FLAGS_$*) -MMD -MP -MT $@ -o $@ $< \
		$(PROG_OBJS_$*) $(UNIT_LINK) $(PROG_LIBS_$*)

# the agent's unwinder in-process (libunwind is dlopen'ed at run time); -rdynamic
# so that its malloc & co. interpose libunwind's calls
PROG_OBJS_test_agent_unwind := $(B)/agent/unwind.o $(B)/agent/frame_cache.o $(B)/agent/cfi_check.o
PROG_FLAGS_test_agent_unwind := -rdynamic
# the CFI gate, and the unwind step on the fuzz target's seeds (tests/fuzz/agent_unwind_input.h)
PROG_OBJS_test_cfi_check := $(PROG_OBJS_test_agent_unwind)
PROG_FLAGS_test_cfi_check := -Itests/fuzz
# the recorder's unwinder on real samples of tests/progs/unwind_zlib
PROG_OBJS_test_unwind_real := $(TOOLS_B)/unwind_corpus.o
$(B)/tests/unit/test_unwind_real: $(PROGS_B)/unwind_zlib
$(B)/tests/unit/test_pprof: $(B)/output/profile.pb-c.h

# ---- tools: checkers and generators, linked with the components ---------------
TOOLS := $(patsubst tests/tools/%.c,$(TOOLS_B)/%,$(filter-out tests/tools/unwind_corpus.c,$(wildcard tests/tools/*.c)))

$(TOOLS_B)/%: tests/tools/%.c $(COMPONENTS_A) $(LIB_A) | $(SETUP_STAMP)
	@mkdir -p $(dir $@)
	$(CC) $(BASE_CFLAGS) $(CFLAGS) -Itests/tools -MMD -MP -MT $@ -o $@ $< $(UNIT_LINK) $(PROG_LIBS_$*)

$(TOOLS_B)/%.o: tests/tools/%.c | $(SETUP_STAMP)
	@mkdir -p $(dir $@)
	$(CC) $(BASE_CFLAGS) $(CFLAGS) -Itests/tools -MMD -MP -c $< -o $@

# ---- profiled programs: plain builds with the compiler's defaults, no sanitizer --
# Built by gcc whatever CC the build uses (ci-extra's ASan build is clang): the
# tests' expectations of inlining, frames and CFI are those of Debian's compiler.
PLAIN_CC := $(or $(shell command -v gcc 2>/dev/null),$(CC))
PROG_CC = $(or $(PROG_CC_$*),$(PLAIN_CC))
# tests/progs/libNAME.c is the shared library libNAME.so (lib_*.c are libprofil's users)
PROGS := $(patsubst tests/progs/%.c,$(PROGS_B)/%,$(filter-out $(wildcard tests/progs/lib[!_]*.c),$(wildcard tests/progs/*.c)))
# -MMD: each program's headers (tests/progs/*.h) in $(B)/deps/NAME.d, read by the Makefile (not
# beside the program: there the name could match a program's pattern rule, report_gen_%, and make
# would try to build the dependency file as a program)
PROG_DEPS_DIR = $(B)/deps
PROG_CFLAGS = -std=gnu11 -O1 -g -I. -Iinclude -Itests/progs $(WARN) -MMD -MP -MT $@ \
	-MF $(PROG_DEPS_DIR)/$(notdir $@).d
# the profile writer compiled plain, for the programs that write profiles of themselves
PDATA_PLAIN := profile/pdata.c utils/outfile.c utils/why.c utils/procmaps.c
# and what those programs depend on: with several sources in one command, each writes the one
# -MF file over the last, so the program's .d names only the last source's headers
PDATA_PLAIN_DEPS := $(PDATA_PLAIN) $(PDATA_PLAIN:.c=.h) tests/tools/profile_fixture.h

$(PROGS_B)/%: tests/progs/%.c $$(PROG_DEPS_$$*) | $(SETUP_STAMP)
	@mkdir -p $(dir $@) $(PROG_DEPS_DIR)
	$(PROG_CC) $(PROG_CFLAGS) $(PROG_FLAGS_$*) -o $@ $< $(PROG_SRCS_$*) $(PROG_LIBS_$*)

$(PROGS_B)/lib%.so: tests/progs/lib%.c | $(SETUP_STAMP)
	@mkdir -p $(dir $@) $(PROG_DEPS_DIR)
	$(PLAIN_CC) $(PROG_CFLAGS) -O2 -fPIC -shared $(PROG_FLAGS_lib$*) -o $@ $<

# CPU hogs built as ordinary programs: every measured function a function, frame pointers kept
NOINLINE := -fno-inline -fno-omit-frame-pointer
PROG_FLAGS_record_prog := $(NOINLINE) -fPIE -pie -pthread
PROG_LIBS_record_prog := -ldl
PROG_FLAGS_record_acct := $(NOINLINE) -pthread
PROG_FLAGS_record_libuser := $(NOINLINE) -L$(PROGS_B) -Wl,-rpath,'$$ORIGIN'
PROG_LIBS_record_libuser := -lrecord_hot
PROG_DEPS_record_libuser := $(PROGS_B)/librecord_hot.so
PROG_FLAGS_librecord_hot := -O1 $(NOINLINE)
PROG_FLAGS_diff_prog := $(NOINLINE)
PROG_FLAGS_offcpu_prog := $(NOINLINE) -pthread
$(foreach p,$(patsubst tests/progs/%.c,%,$(wildcard tests/progs/events_*.c)),$(eval PROG_FLAGS_$(p) := -D_GNU_SOURCE -fno-omit-frame-pointer))
# variants of record_prog: not a PIE, static, stripped
$(PROGS_B)/record_prog_nopie: tests/progs/record_prog.c | $(SETUP_STAMP)
	@mkdir -p $(dir $@) $(PROG_DEPS_DIR)
	$(PLAIN_CC) $(PROG_CFLAGS) $(NOINLINE) -fno-pie -no-pie -pthread -o $@ $< -ldl
$(PROGS_B)/record_prog_static: tests/progs/record_prog.c | $(SETUP_STAMP)
	@mkdir -p $(dir $@) $(PROG_DEPS_DIR)
	$(PLAIN_CC) $(PROG_CFLAGS) $(NOINLINE) -DNO_DLOPEN -static -pthread -o $@ $<
$(PROGS_B)/record_prog_stripped: $(PROGS_B)/record_prog
	strip -o $@ $<

# profil annotate and the names (tests/e2e/annotate.sh, names.sh): two measured loops, each
# on one line with a statement after it (hence -Wno-misleading-indentation), and a stripped
# copy; a PLT call (-fno-builtin: labs is not inlined), a versioned libc function and inlined
# functions (-O2)
PROG_FLAGS_annotate_loops := -Wno-misleading-indentation
PROG_FLAGS_names_prog := -O2 -fno-builtin -fno-omit-frame-pointer
$(PROGS_B)/annotate_loops_stripped: $(PROGS_B)/annotate_loops
	strip --strip-all -o $@ $<

# report_gen writes a profile of itself, built four ways (PIE, not a PIE,
# static, stripped with its globals left in .dynsym) beside its library
REPORT_LIB := -L$(PROGS_B) -lreport_lib -Wl,-rpath,'$$ORIGIN' -lpthread
PROG_FLAGS_libreport_lib := -O1
PROG_FLAGS_report_gen := -fPIE -pie
PROG_SRCS_report_gen := $(PDATA_PLAIN)
PROG_LIBS_report_gen := $(REPORT_LIB)
PROG_DEPS_report_gen := $(PDATA_PLAIN_DEPS) $(PROGS_B)/libreport_lib.so
$(PROGS_B)/report_gen_%: tests/progs/report_gen.c $(PDATA_PLAIN_DEPS) $(PROGS_B)/libreport_lib.so
	$(PLAIN_CC) $(PROG_CFLAGS) $(REPORT_GEN_FLAGS_$*) -o $@ $< $(PDATA_PLAIN) $(REPORT_GEN_LIBS_$*)
	$(if $(filter stripped,$*),strip --strip-all $@)
REPORT_GEN_FLAGS_pie := -fPIE -pie
REPORT_GEN_LIBS_pie := $(REPORT_LIB)
REPORT_GEN_FLAGS_nopie := -fno-pie -no-pie
REPORT_GEN_LIBS_nopie := $(REPORT_LIB)
REPORT_GEN_FLAGS_static := -static
REPORT_GEN_LIBS_static := tests/progs/libreport_lib.c -lpthread
REPORT_GEN_FLAGS_stripped := -fPIE -pie -rdynamic
REPORT_GEN_LIBS_stripped := $(REPORT_LIB)
PROG_FLAGS_report_spin := -fPIE -pie
PROG_LIBS_report_spin := $(REPORT_LIB)
PROG_DEPS_report_spin := $(PROGS_B)/libreport_lib.so
# profiles WITH call stacks of itself (backtrace()): frame pointers, no sibling calls
PROG_FLAGS_report_stackgen := $(NOINLINE) -fno-optimize-sibling-calls -fPIE -pie
PROG_SRCS_report_stackgen := $(PDATA_PLAIN)
PROG_LIBS_report_stackgen := -lpthread
PROG_DEPS_report_stackgen := $(PDATA_PLAIN_DEPS)

# only DWARF CFI unwinds these (-O2 -fomit-frame-pointer, and Debian's zlib)
NOFP := -O2 -fomit-frame-pointer
PROG_FLAGS_stack_prog := $(NOFP) -rdynamic -pthread
PROG_LIBS_stack_prog := -lz -ldl
PROG_FLAGS_stack_stress := $(NOFP) -pthread
PROG_LIBS_stack_stress := -ldl
PROG_FLAGS_libstack_stress := $(NOFP)
PROG_FLAGS_unwind_zlib := $(NOFP) -pthread
PROG_LIBS_unwind_zlib := -lz
# hostile CFI, odd stacks, many threads and objects (issue 16): tests/e2e/agent_hostile.sh
PROG_FLAGS_agent_hostile := $(NOFP) -pthread
PROG_LIBS_agent_manylibs := -ldl
PROG_FLAGS_libagent_manylibs := $(NOFP)
PROG_FLAGS_libagent_swap := $(NOFP)
# hostile objects (issue 16): CFI over the bounds, libraries swapped, deleted, FIFOs at their path
PROG_FLAGS_hostile_objects := $(NOINLINE)
PROG_LIBS_hostile_objects := -ldl
PROG_FLAGS_libswap_a := $(NOFP)
PROG_FLAGS_libswap_b := $(NOFP)
$(PROGS_B)/libswap_b.so: tests/progs/libswap_a.c

# libprofil's users: linked with the shared library as a user would, built like
# the library (sanitized in the ASan build)
$(PROGS_B)/lib_%: tests/progs/lib_%.c tests/progs/lib_prog.h $(LIB_SO) | $(SETUP_STAMP)
	@mkdir -p $(dir $@) $(PROG_DEPS_DIR)
	$(CC) $(BASE_CFLAGS) $(CFLAGS) -Itests/progs -MMD -MP -MT $@ -MF $(PROG_DEPS_DIR)/$(notdir $@).d \
		-o $@ $< -L$(B) -lprofil \
		-Wl,-rpath,$(abspath $(B)) $(BASE_LDFLAGS) -lpthread
PROG_CC_recev_caller = $(CC)
PROG_FLAGS_recev_caller := $(SANITIZE)
PROG_LIBS_recev_caller := $(LIB_A) -lpthread -ldl
PROG_DEPS_recev_caller := $(LIB_A)

# a command line, thread name and hottest symbol that are HTML
PROG_SRCS_html_hostile := tests/progs/html_hostile.S
PROG_DEPS_html_hostile := tests/progs/html_hostile.S

# A 32-bit program without a 32-bit C library: clang's i386 target and the
# binutils linker are enough.  Not built without clang (its test skips).
IA32_CC := $(shell command -v clang 2>/dev/null)
$(PROGS_B)/events_ia32: tests/progs/events_ia32.c | $(SETUP_STAMP)
	@mkdir -p $(dir $@)
	$(IA32_CC) -m32 -O1 -g -ffreestanding -fno-pic -fno-stack-protector -nostdlib -static \
		$(WARN) -o $@ $<
ifeq ($(IA32_CC),)
PROGS := $(filter-out %/events_ia32,$(PROGS))
endif

PROG_SOS := $(PROGS_B)/librecord_hot.so $(PROGS_B)/libreport_lib.so $(PROGS_B)/libstack_stress.so \
	$(PROGS_B)/libswap_a.so $(PROGS_B)/libswap_b.so $(PROGS_B)/libagent_manylibs.so \
	$(PROGS_B)/libagent_swap.so
VARIANTS := $(PROGS_B)/record_prog_nopie $(PROGS_B)/record_prog_static $(PROGS_B)/record_prog_stripped \
	$(PROGS_B)/annotate_loops_stripped \
	$(foreach v,pie nopie static stripped,$(PROGS_B)/report_gen_$v)

tests: all $(UNIT_BINS) $(TOOLS) $(filter-out $(PROGS_B)/report_gen,$(PROGS)) $(PROG_SOS) $(VARIANTS)
# the whole machine's busy processes (record -a, top): every spin function a function
PROG_FLAGS_system_spin := $(NOINLINE) -pthread
