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
	strcat(note, " (auto: the BPF histogram measured no cheaper), per-CPU rings, inherit");
	while (strlen(note) < 700)
		strcat(note, "; per-thread CPU time: the kernel's accounting, exit status of every "
			     "process");
	strcat(note, "; call stacks: dwarf, 98.10% complete (cut short: no CFI 60, no mapping 3)");
	record_run__copy_note(out, len, note);
	{
		const char *mark = strstr(out, "; [note cut: ");
		unsigned long cut = 0;
		int at = 0;
		const char *tail;

		/* the clock's clause, the marker, then a tail of the note from a clause boundary */
		if (mark)
			sscanf(mark, "; [note cut: %lu bytes]; %n", &cut, &at);
		tail = mark && at ? mark + at : NULL;
		CHECKF("long_note_keeps_clock_and_findings",
		       tail && strlen(out) < len && (size_t)(mark - out) == strcspn(note, ";") &&
			       !strncmp(out, note, (size_t)(mark - out)) &&
			       !strcmp(note + strlen(note) - strlen(tail), tail) &&
			       !strncmp(note + strlen(note) - strlen(tail) - 2, "; ", 2) &&
			       strstr(tail, "call stacks: dwarf, 98.10% complete") &&
			       (size_t)(mark - out) + cut + 4 + strlen(tail) == strlen(note),
		       "%zu bytes: %s", strlen(out), out);
	}
	return CHECK_DONE();
}
