# Installing: `make install` and `make uninstall` from ONE list, INSTALL_FILES
# (entries MODE:SOURCE:DEST or link:TARGET:DEST, DEST without DESTDIR; the
# Makefile and the components add theirs), run by scripts/install.sh; the
# manual pages (doc/man/, formatted into $(B)/man/) and the bash completion
# (completion/profil.bash), and the contracts the pages refer to (DOCDIR).
#
# The installed profil finds its agent (LIBDIR/profil) and its manual pages
# (MANDIR) where this install puts them: utils/install_dirs.c is compiled
# with BINDIR, LIBDIR and MANDIR, and rebuilt when they change.  install
# writes INSTALL_RECORD, the directories it created, so that uninstall
# removes them again once empty (and never one that was there before).
INSTALL_RECORD ?= $(LIBDIR)/profil/install-dirs

INSTALL_DIRS_VALUES := $(PREFIX):$(BINDIR):$(LIBDIR):$(INCDIR):$(MANDIR):$(VERSION):$(DOCDIR)
EXTRA_CFLAGS_utils/install_dirs := -DPROFIL_BINDIR='"$(BINDIR)"' \
	-DPROFIL_AGENTDIR='"$(LIBDIR)/profil"' -DPROFIL_MANDIR='"$(MANDIR)"'
$(B)/utils/install_dirs.o: $(INSTALL_DIRS_STAMP)

# Rewritten only when the values change (what depends on it is then rebuilt).
.PHONY: FORCE
$(INSTALL_DIRS_STAMP): FORCE
	@mkdir -p $(dir $@)
	@echo '$(INSTALL_DIRS_VALUES)' | cmp -s - $@ 2>/dev/null || echo '$(INSTALL_DIRS_VALUES)' >$@

# ---- manual pages: doc/man/NAME.N -> $(B)/man/manN/NAME.N ---------------------
# Written by hand in man(7) macros; the build fills in the version, the
# agent's directory and the documentation's.  $(B)/man/ beside $(B)/profil is where a build tree's
# `profil help COMMAND` finds them.
MAN_SRCS  := $(wildcard doc/man/*.[1-8])
MAN_PAGES := $(foreach p,$(MAN_SRCS),$(B)/man/man$(patsubst .%,%,$(suffix $p))/$(notdir $p))
MAN_SED   = sed -e 's|@VERSION@|$(VERSION)|g' -e 's|@AGENTDIR@|$(LIBDIR)/profil|g' \
	    -e 's|@DOCDIR@|$(DOCDIR)|g'

$(B)/man/man1/%.1: doc/man/%.1 $(INSTALL_DIRS_STAMP)
	@mkdir -p $(dir $@)
	$(MAN_SED) $< >$@
$(B)/man/man3/%.3: doc/man/%.3 $(INSTALL_DIRS_STAMP)
	@mkdir -p $(dir $@)
	$(MAN_SED) $< >$@

all: $(MAN_PAGES)

INSTALL_FILES += $(foreach p,$(MAN_PAGES),644:$p:$(MANDIR)/$(notdir $(patsubst %/,%,$(dir $p)))/$(notdir $p))
INSTALL_FILES += 644:completion/profil.bash:$(BASHCOMPDIR)/profil
# the interfaces the pages refer to: the report's and diff's JSON, the events, the library
INSTALL_FILES += $(foreach d,report-json.md events.md libprofil.md,644:doc/$d:$(DOCDIR)/$d)

# ---- install, uninstall --------------------------------------------------------
install: $(INSTALL_DEPS)
	@sh scripts/install.sh install '$(DESTDIR)' '$(INSTALL_RECORD)' $(INSTALL_FILES)

uninstall:
	@sh scripts/install.sh uninstall '$(DESTDIR)' '$(INSTALL_RECORD)' $(INSTALL_FILES)

# ---- deb -------------------------------------------------------------------------
# `make deb`: a Debian package of the tree, profil_$(VERSION)_ARCH.deb in $(B).
# The tree is built again in $(DEB_B) for /usr (the installed profil finds its
# agent and pages where the package puts them), installed into a staging
# DESTDIR with Debian's multiarch LIBDIR, and packed by scripts/deb.sh
# (dpkg-shlibdeps for Depends, dpkg-deb).  One package holds everything: the
# command, the agent, the library, its header and the pages.
DEB_ARCH       = $(shell dpkg --print-architecture 2>/dev/null)
DEB_MULTIARCH  = $(shell dpkg-architecture -qDEB_HOST_MULTIARCH 2>/dev/null || $(CC) -print-multiarch)
DEB_MAINTAINER ?= profil maintainers <maintainers@profil.invalid>
DEB_B          := $(B)/deb
DEB_STAGE      := $(DEB_B)/stage
DEB_FILE       = $(B)/profil_$(VERSION)_$(DEB_ARCH).deb

deb: | $(SETUP_STAMP)
	rm -rf $(DEB_STAGE)
	$(MAKE) --no-print-directory B=$(DEB_B)/build PREFIX=/usr LIBDIR=/usr/lib/$(DEB_MULTIARCH) \
		DESTDIR=$(abspath $(DEB_STAGE)) INSTALL_RECORD= NO_SETUP=1 install >$(DEB_B).log
	sh scripts/deb.sh $(DEB_STAGE) $(DEB_FILE) $(VERSION) '$(DEB_MAINTAINER)'
