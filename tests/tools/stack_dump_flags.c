// SPDX-License-Identifier: MIT
/*
 * stack_dump_flags FILE: a summary of a test-only stack dump (agent/stack_dump.h):
 *   records=N complete=N no_info=N fault=N depth=N bad_frame=N leaf_only=N forking=N
 *   frames=N full=N
 */
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "agent/stack_dump.h"
#include "agent/unwind.h"

int main(int argc, char **argv)
{
	const struct stack_dump_header *h;
	long n = 0, complete = 0, frames = 0, by[7] = { 0 };
	const char *p, *end;
	struct stat st;
	int fd = argc > 1 ? open(argv[1], O_RDONLY) : -1;

	if (fd < 0 || fstat(fd, &st) < 0 || st.st_size < (off_t)STACK_DUMP_SIZE) {
		fprintf(stderr, "usage: stack_dump_flags FILE (a stack dump)\n");
		return 2;
	}
	h = mmap(NULL, STACK_DUMP_SIZE, PROT_READ, MAP_SHARED, fd, 0);
	if (h == MAP_FAILED || memcmp(h->magic, STACK_DUMP_MAGIC, 8)) {
		fprintf(stderr, "stack_dump_flags: %s is not a stack dump\n", argv[1]);
		return 2;
	}
	p = (const char *)(h + 1);
	end = p + h->used;
	if (end > (const char *)h + STACK_DUMP_SIZE)
		end = (const char *)h + STACK_DUMP_SIZE;
	while (p + sizeof(struct stack_dump_rec) <= end) {
		const struct stack_dump_rec *r = (const void *)p;

		if (!r->words)
			break;
		n++;
		frames += r->n;
		complete += !(r->flags & AGENT_UNWIND_TRUNCATED);
		for (int b = 1; b < 7; b++)
			by[b] += (r->flags >> b) & 1;
		p += (size_t)r->words * 8;
	}
	printf("records=%ld complete=%ld no_info=%ld fault=%ld depth=%ld bad_frame=%ld "
	       "leaf_only=%ld forking=%ld frames=%ld full=%llu\n",
	       n, complete, by[1], by[2], by[3], by[4], by[5], by[6], frames,
	       (unsigned long long)h->full);
	return 0;
}
