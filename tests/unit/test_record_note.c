// SPDX-License-Identifier: MIT
/* The clock note into the header's 512 bytes (issue 16 item 8: it was cut mid-word). */
#include <string.h>

#include "check.h"
#include "profile/pdata.h"
#include "record/run.h"

int main(void)
{
	struct pdata_header h;
	char note[2048] = "perf task-clock";
	size_t len = sizeof(h.clock_note);
	char *out = h.clock_note;

	record_run__copy_note(out, len, note);
	CHECK("short_note_whole", !strcmp(out, "perf task-clock"));
	while (strlen(note) < 700)
		strcat(note, "; call stacks: dwarf, 98.10% complete (cut short: no CFI 60, no "
			     "mapping 3)");
	record_run__copy_note(out, len, note);
	{
		const char *mark = strstr(out, "; [note cut: ");
		size_t kept = mark ? (size_t)(mark - out) : 0;
		unsigned long more = 0;

		CHECKF("long_note_cut_at_clause",
		       mark && strlen(out) < len && !strncmp(note, out, kept) &&
			       !strncmp(note + kept, "; ", 2) &&
			       sscanf(mark, "; [note cut: %lu more bytes]", &more) == 1 &&
			       more == strlen(note) - kept,
		       "%zu bytes: %s", strlen(out), out);
	}
	return CHECK_DONE();
}
