# The HTML report (profile/html.[ch], `profil report --format html`): the page
# sources in profile/html/ are embedded into the binary by profile/html_assets.S
# (.incbin, assembled from the top of the tree), so the command needs no file
# on disk.  Tested in headless Chromium by tests/e2e/report_html.sh.
HTML_ASSETS := $(wildcard profile/html/*)
# profile/html.c itself is built with the component (mk/profile.mk).
HTML_OBJS := $(B)/profile/html_assets.o

$(B)/profile/html_assets.o: profile/html_assets.S $(HTML_ASSETS) | $(SETUP_STAMP)
	@mkdir -p $(dir $@)
	$(CC) -c -o $@ $<

COMPONENT_OBJS += $(HTML_OBJS)

# A program whose command line, thread name and hottest function's symbol are
# HTML that would run a script if the page inserted them as markup.
HTML_HOSTILE := $(B)/tests/progs/html_hostile
tests: $(HTML_HOSTILE)
$(HTML_HOSTILE): tests/progs/html_hostile.c tests/progs/html_hostile.S | $(SETUP_STAMP)
	@mkdir -p $(dir $@)
	$(CC) -std=gnu11 -O1 -g -Wall -o $@ tests/progs/html_hostile.c tests/progs/html_hostile.S
