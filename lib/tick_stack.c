// SPDX-License-Identifier: MIT
/*
 * The tick handler's stack pool (see tick_stack.h): one mapping of
 * TICK_STACKS stacks, each with a guard page below; a bitmap of the taken
 * ones, claimed and released with atomics; a stack switch in a few
 * instructions of assembly (x86-64; elsewhere the pool is off and the
 * caller runs in place).
 */
#include <errno.h>
#include <stddef.h>
#include <sys/mman.h>
#include <unistd.h>

#include "tick_stack.h"

#if defined(__SANITIZE_ADDRESS__)
#define TICK_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define TICK_ASAN 1
#endif
#endif
#ifdef TICK_ASAN
#include <sanitizer/common_interface_defs.h>
#endif

#define GUARD 4096u
#define SLOT (TICK_STACK_SIZE + GUARD)

static unsigned char *pool; /* atomic pointer: NULL until mapped */
static uint64_t taken;	    /* atomic bitmap (TICK_STACKS <= 64) */
static uint64_t busy;	    /* atomic */

_Static_assert(TICK_STACKS <= 64, "one bitmap word");

int tick_stacks_init(void)
{
	unsigned char *m;

	if (__atomic_load_n(&pool, __ATOMIC_ACQUIRE))
		return 0;
	m = mmap(NULL, (size_t)SLOT * TICK_STACKS, PROT_NONE,
		 MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (m == MAP_FAILED)
		return -errno;
	for (unsigned int i = 0; i < TICK_STACKS; i++)
		if (mprotect(m + (size_t)i * SLOT + GUARD, TICK_STACK_SIZE,
			     PROT_READ | PROT_WRITE) < 0) {
			int err = errno;

			munmap(m, (size_t)SLOT * TICK_STACKS);
			return -err;
		}
	__atomic_store_n(&pool, m, __ATOMIC_RELEASE);
	return 0;
}

static int claim(void)
{
	uint64_t cur = __atomic_load_n(&taken, __ATOMIC_RELAXED);

	for (;;) {
		int i;

		if (cur == ~0ull >> (64 - TICK_STACKS))
			return -1;
		i = __builtin_ctzll(~cur);
		if (__atomic_compare_exchange_n(&taken, &cur, cur | (1ull << i), 0,
						__ATOMIC_ACQUIRE, __ATOMIC_RELAXED))
			return i;
	}
}

static void release(int i)
{
	__atomic_fetch_and(&taken, ~(1ull << i), __ATOMIC_RELEASE);
}

void tick_stacks_forget(void)
{
	__atomic_store_n(&taken, 0, __ATOMIC_RELEASE);
}

uint64_t tick_stacks_busy(void)
{
	return __atomic_load_n(&busy, __ATOMIC_RELAXED);
}

#if defined(__x86_64__)
/* void tick_switch(void (*fn)(void *), void *arg, void *top): fn(arg) with rsp = top. */
void tick_switch(void (*fn)(void *), void *arg, void *top);
__asm__(".text\n"
	".globl tick_switch\n"
	".hidden tick_switch\n"
	".type tick_switch, @function\n"
	"tick_switch:\n"
	"	.cfi_startproc\n"
	"	push %rbp\n"
	"	.cfi_adjust_cfa_offset 8\n"
	"	.cfi_offset %rbp, -16\n"
	"	mov %rsp, %rbp\n"
	"	.cfi_def_cfa_register %rbp\n"
	"	mov %rdx, %rsp\n" /* top: 16-byte aligned */
	"	mov %rdi, %rax\n"
	"	mov %rsi, %rdi\n"
	"	call *%rax\n"
	"	mov %rbp, %rsp\n"
	"	.cfi_def_cfa_register %rsp\n"
	"	pop %rbp\n"
	"	.cfi_adjust_cfa_offset -8\n"
	"	ret\n"
	"	.cfi_endproc\n"
	".size tick_switch, .-tick_switch\n");

struct hop {
	void (*fn)(void *);
	void *arg;
	const void *old_bottom;
	size_t old_size;
};

/* On the pool's stack. */
static void hop_body(void *p)
{
	struct hop *h = p;

#ifdef TICK_ASAN
	__sanitizer_finish_switch_fiber(NULL, &h->old_bottom, &h->old_size);
#endif
	h->fn(h->arg);
#ifdef TICK_ASAN
	__sanitizer_start_switch_fiber(NULL, h->old_bottom, h->old_size); /* leaving for good */
#endif
}

int tick_stack_run(void (*fn)(void *), void *arg)
{
	unsigned char *m = __atomic_load_n(&pool, __ATOMIC_ACQUIRE), *bottom;
	struct hop h = {fn, arg, NULL, 0};
	int i = m ? claim() : -1;

	if (i < 0) {
		__atomic_fetch_add(&busy, 1, __ATOMIC_RELAXED);
		return -EBUSY;
	}
	bottom = m + (size_t)i * SLOT + GUARD;
#ifdef TICK_ASAN
	void *fake = NULL;

	__sanitizer_start_switch_fiber(&fake, bottom, TICK_STACK_SIZE);
#endif
	tick_switch(hop_body, &h, bottom + TICK_STACK_SIZE);
#ifdef TICK_ASAN
	__sanitizer_finish_switch_fiber(fake, NULL, NULL);
#endif
	release(i);
	return 0;
}
#else
int tick_stack_run(void (*fn)(void *), void *arg)
{
	(void)fn;
	(void)arg;
	__atomic_fetch_add(&busy, 1, __ATOMIC_RELAXED);
	return -EBUSY;
}
#endif
