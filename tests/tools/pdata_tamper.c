// SPDX-License-Identifier: MIT
/*
 * pdata_tamper FILE FIELD=VALUE...: overwrite header fields of a profile in
 * place (pwrite, so a profile being recorded sees it at once), as a
 * damaged file or a hostile process of the recorded tree would.  FIELD is
 * one of the names below; VALUE is a number (strtoull base 0).
 */
#include <fcntl.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "profile/pdata.h"

#define FIELD(name)                                                                                \
	{                                                                                          \
#name, offsetof(struct pdata_header, name),                                        \
			sizeof(((struct pdata_header *)0)->name)                                   \
	}

static const struct {
	const char *name;
	size_t off, size;
} fields[] = {
	FIELD(version),	     FIELD(header_size), FIELD(file_size),   FIELD(state),
	FIELD(table_off),    FIELD(table_slots), FIELD(records_off), FIELD(records_cap),
	FIELD(records_used), FIELD(next_proc),	 FIELD(samples),     FIELD(period_ns),
	FIELD(nominal_hz),
};

int main(int argc, char **argv)
{
	int fd;

	if (argc < 3) {
		fprintf(stderr, "usage: pdata_tamper FILE FIELD=VALUE...\n");
		return 2;
	}
	fd = open(argv[1], O_WRONLY);
	if (fd < 0) {
		perror(argv[1]);
		return 1;
	}
	for (int i = 2; i < argc; i++) {
		const char *eq = strchr(argv[i], '=');
		unsigned long long v;
		size_t k;

		for (k = 0; eq && k < sizeof(fields) / sizeof(fields[0]); k++)
			if (strlen(fields[k].name) == (size_t)(eq - argv[i]) &&
			    !strncmp(fields[k].name, argv[i], (size_t)(eq - argv[i])))
				break;
		if (!eq || k == sizeof(fields) / sizeof(fields[0])) {
			fprintf(stderr, "pdata_tamper: unknown field in '%s'\n", argv[i]);
			return 2;
		}
		v = strtoull(eq + 1, NULL, 0);
		/* little-endian: the low bytes of v are the field's value */
		if (pwrite(fd, &v, fields[k].size, (off_t)fields[k].off) !=
		    (ssize_t)fields[k].size) {
			perror("pwrite");
			return 1;
		}
	}
	close(fd);
	return 0;
}
