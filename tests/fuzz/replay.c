// SPDX-License-Identifier: MIT
/*
 * A fuzz target as a plain program: FILE... runs each file once through
 * LLVMFuzzerTestOneInput (a crash is the test's failure), directories are
 * walked one level.  Built by mk/fuzz.mk with the ordinary compiler, so
 * `make check` (and ci-extra's ASan+UBSan build) replays every corpus file.
 */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "fuzz.h"

static int run_file(const char *path)
{
	FILE *f = fopen(path, "rb");
	uint8_t *buf = NULL;
	long size;

	if (!f || fseek(f, 0, SEEK_END) || (size = ftell(f)) < 0 || fseek(f, 0, SEEK_SET)) {
		fprintf(stderr, "replay: cannot read %s\n", path);
		if (f)
			fclose(f);
		return -1;
	}
	buf = malloc(size ? (size_t)size : 1);
	if (!buf || fread(buf, 1, (size_t)size, f) != (size_t)size) {
		fprintf(stderr, "replay: cannot read %s\n", path);
		free(buf);
		fclose(f);
		return -1;
	}
	fclose(f);
	LLVMFuzzerTestOneInput(buf, (size_t)size);
	free(buf);
	return 0;
}

int main(int argc, char **argv)
{
	int files = 0, bad = 0;

	for (int i = 1; i < argc; i++) {
		struct stat st;
		DIR *d;
		struct dirent *e;

		if (stat(argv[i], &st) == 0 && S_ISDIR(st.st_mode) && (d = opendir(argv[i]))) {
			while ((e = readdir(d))) {
				char p[4096];

				if (e->d_name[0] == '.')
					continue;
				snprintf(p, sizeof(p), "%s/%s", argv[i], e->d_name);
				bad += run_file(p) < 0;
				files++;
			}
			closedir(d);
		} else {
			bad += run_file(argv[i]) < 0;
			files++;
		}
	}
	fprintf(stderr, "replay: %d input(s) run\n", files - bad);
	return bad ? 1 : 0;
}
