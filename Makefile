# profil — top-level GNU Makefile.
#
#   make            build libprofil.so, libprofil.a, the profil command and the demo
#   make check      build and run every test; ends with "N passed, N failed"
#   make demo       profile the bundled demo program and print its hottest functions
#   make install    PREFIX=/usr/local DESTDIR= (and BINDIR, LIBDIR, INCDIR, MANDIR, DOCDIR, BASHCOMPDIR)
#   make uninstall  the same variables: removes exactly what install put
#   make deb        a Debian package of the tree (mk/install.mk)
#   make format     clang-format every C source
#   make ci-extra   -Wall -Wextra -Werror under gcc and clang, tests under ASan+UBSan
#   make bench      the benchmark (bench/), QUICK=1 for a short run
#   make fuzz       libFuzzer targets (tests/fuzz/), FUZZ_SECONDS each (default 60)
#
# Debian packages: every target first installs the missing packages of the
# lists it needs (scripts/setup.sh; scripts/packages-build.txt always,
# -test.txt for check/tests/ci-extra/fuzz, -bench.txt for bench, -deb.txt for
# deb).  NO_SETUP=1: install nothing, only say what is missing.
#
# The fragments: mk/components.mk (the product: every component's folder, the
# command, the agent), mk/bpf.mk (the BPF programs), mk/tests.mk (unit tests,
# the programs the tests profile, their tools), mk/fuzz.mk, mk/bench.mk,
# mk/install.mk (install, manual pages, deb), mk/demo.mk.  Sources are found by
# wildcard: a new file needs no Makefile edit.  Includes are component-qualified
# ("report/report.h", with -I. at the top); lib/ keeps its own -Ilib style.

VERSION   := 0.1.0
PREFIX    ?= /usr/local
DESTDIR   ?=
LIBDIR    ?= $(PREFIX)/lib
INCDIR    ?= $(PREFIX)/include
BINDIR    ?= $(PREFIX)/bin
MANDIR    ?= $(PREFIX)/share/man
DOCDIR    ?= $(PREFIX)/share/doc/profil
BASHCOMPDIR ?= $(PREFIX)/share/bash-completion/completions

CC        ?= cc
B         ?= build
WERROR    ?=
SANITIZE  ?=
CFLAGS    ?= -O2 -g
WARN      := -Wall -Wextra -Wshadow -Wno-missing-field-initializers $(if $(WERROR),-Werror)
BASE_CFLAGS := -std=gnu11 -D_GNU_SOURCE -fPIC -fvisibility=hidden -Iinclude -Ilib -I. $(WARN) $(SANITIZE)
BASE_LDFLAGS := $(SANITIZE)

SETUP_STAMP := $(B)/.setup-done
# the install directories the build was configured with (mk/install.mk)
INSTALL_DIRS_STAMP := $(B)/.install-dirs
comma := ,

LIB_SRCS  := $(wildcard lib/core/*.c) $(wildcard lib/*.c)
LIB_OBJS  := $(LIB_SRCS:%.c=$(B)/%.o)
LIB_SO    := $(B)/libprofil.so
LIB_A     := $(B)/libprofil.a
LIB_LIBS  := -lpthread -ldl

.SECONDEXPANSION:
.PHONY: all setup check demo install uninstall format clean ci-extra bench tests deb
all: $(LIB_SO) $(LIB_A)

# ---- setup: Debian packages the goals need, then the work --------------------
# Reading this Makefile installs nothing (`make -n` only prints).  The make a
# user runs has one step: install the missing packages of its goals' lists
# (scripts/setup.sh; one dpkg-query when nothing is missing), then run itself
# again for the goals (PROFIL_SETUP=done), so that the feature detection in
# mk/*.mk (BPF tools, kernel BTF) sees a fresh machine's installs.  clean,
# format and uninstall need no package.
ifeq ($(PROFIL_SETUP),)
GOALS := $(or $(MAKECMDGOALS),all)
SETUP_LISTS := build \
	$(if $(filter check tests ci-extra fuzz,$(GOALS)),test) \
	$(if $(filter bench bench-build,$(GOALS)),bench) \
	$(if $(filter deb,$(GOALS)),deb)
.PHONY: $(GOALS) profil-setup
$(GOALS): profil-setup
	@:
profil-setup:
ifneq ($(filter-out clean format uninstall,$(GOALS)),)
	@sh scripts/setup.sh $(if $(NO_SETUP),--check) $(SETUP_LISTS) || \
		{ echo "setup failed: could not install the packages of scripts/packages-{$(subst $() ,$(comma),$(strip $(SETUP_LISTS)))}.txt (NO_SETUP=1 skips this)" >&2; exit 2; }
endif
	+@$(MAKE) --no-print-directory PROFIL_SETUP=done $(MAKECMDGOALS)
else
$(SETUP_STAMP):
	@mkdir -p $(B)
	@touch $@
setup: $(SETUP_STAMP)

# ---- library ---------------------------------------------------------------
$(B)/%.o: %.c | $(SETUP_STAMP)
	@mkdir -p $(dir $@)
	$(CC) $(BASE_CFLAGS) $(CFLAGS) $(EXTRA_CFLAGS_$*) -MMD -MP -c $< -o $@

$(LIB_SO): $(LIB_OBJS) lib/libprofil.map
	$(CC) -shared -Wl,-soname,libprofil.so.0 -Wl,--version-script=lib/libprofil.map \
		$(BASE_LDFLAGS) $(LDFLAGS) -o $@ $(LIB_OBJS) $(LIB_LIBS)
	@ln -sf libprofil.so $(B)/libprofil.so.0

$(LIB_A): $(LIB_OBJS)
	@rm -f $@
	ar rcs $@ $(LIB_OBJS)

$(B)/profil.pc: mk/profil.pc.in $(INSTALL_DIRS_STAMP)
	sed -e 's|@PREFIX@|$(PREFIX)|; s|@LIBDIR@|$(LIBDIR)|; s|@INCDIR@|$(INCDIR)|; s|@VERSION@|$(VERSION)|' $< > $@

# ---- tests (mk/tests.mk builds them) ----------------------------------------


check: tests
	@B=$(B) sh tests/run.sh $(TESTS)

# ---- CI extras -------------------------------------------------------------
ci-extra: $(SETUP_STAMP)
	$(MAKE) --no-print-directory B=build/gcc CC=gcc WERROR=1 tests
	$(MAKE) --no-print-directory B=build/clang CC=clang WERROR=1 tests
	$(MAKE) --no-print-directory B=build/asan CC=clang CFLAGS="-O1 -g" \
		SANITIZE="-fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=undefined" \
		check

# ---- install ---------------------------------------------------------------
# What install puts where: INSTALL_FILES (mk/install.mk runs install and
# uninstall from it); the components add their own (mk/agent.mk, mk/cmds.mk, ...).
INSTALL_FILES += 644:include/profil.h:$(INCDIR)/profil.h \
	755:$(LIB_SO):$(LIBDIR)/libprofil.so.$(VERSION) \
	link:libprofil.so.$(VERSION):$(LIBDIR)/libprofil.so.0 \
	link:libprofil.so.0:$(LIBDIR)/libprofil.so \
	644:$(LIB_A):$(LIBDIR)/libprofil.a \
	644:$(B)/profil.pc:$(LIBDIR)/pkgconfig/profil.pc
INSTALL_DEPS += all $(B)/profil.pc

format:
	clang-format -i $$(git ls-files '*.c' '*.h')

clean:
	rm -rf build

include mk/bpf.mk mk/components.mk mk/tests.mk mk/fuzz.mk mk/bench.mk mk/install.mk mk/demo.mk
-include $(shell find $(B) -name '*.d' 2>/dev/null)
endif
