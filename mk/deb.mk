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
