// SPDX-License-Identifier: MIT
/*
 * agent_hostile MODE SECONDS: a program that is hard on the agent's
 * in-handler unwinder (issue 16, items 1 and 2).  It spins SECONDS of its own
 * CPU time (CLOCK_THREAD_CPUTIME_ID) in the place MODE names, then prints one
 * line that does not depend on profiling ("MODE done ...") and exits 0; the
 * test runs it with and without `profil record -g` and compares.
 *
 * Hostile CFI (item 1: libunwind would loop forever on it):
 *   skip      CFA = DW_OP_skip -3 (jumps onto itself)
 *   bra       CFA = lit1; DW_OP_bra -4
 *   valexpr   return address = val_expression { DW_OP_skip -3 }
 *   lenwrap   val_expression whose length wraps the address back onto itself
 *   bigfde    an FDE of 200,000 DW_CFA_nop (over the gate's bound)
 *   plain     the same loop with ordinary CFI (the reference)
 * Odd stacks (item 2: the agent must not write below them):
 *   altstack  spins in a SIGUSR1 handler on an 8 KiB sigaltstack with a guard page
 *   altcanary the same without a guard page: 4 KiB below it must stay untouched
 *   nested    SIGUSR2 raised inside the SIGUSR1 handler, both on a 16 KiB alternate stack
 *             (two signal frames of the program, ~3.1 KiB each with AVX-512 state, and the
 *             tick's: the kernel's frame of any signal lands on the interrupted stack)
 *   coro      two swapcontext coroutines on 16 KiB stacks (guard pages) take turns
 *   threads   four threads on 16 KiB stacks (guard pages)
 * Many threads (item 7):
 *   manythreads  main spins SECONDS, then 4,000 short threads (8 at a time) spin 0.1 ms
 *             each; with $HOSTILE_TRUTH set, "main_ns=N threads_ns=N" is written there
 */
#define _GNU_SOURCE
#include <link.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <ucontext.h>
#include <unistd.h>

#define NOINLINE __attribute__((noinline))

/* Each spins rdi iterations of a decrement loop under its hostile CFI. */
void cfi_skip(unsigned long n);
void cfi_bra(unsigned long n);
void cfi_valexpr(unsigned long n);
void cfi_lenwrap(unsigned long n);
void cfi_bigfde(unsigned long n);
void plain_spin(unsigned long n);

#define SPIN_BODY "1: dec %rdi\n jnz 1b\n ret\n"
#define FN(name) ".globl " #name "\n.type " #name ",@function\n" #name ":\n"

__asm__(".text\n" FN(
	cfi_skip) ".cfi_startproc\n"
		  ".cfi_escape 0x0f, 0x03, 0x2f, 0xfd, 0xff\n" /* def_cfa_expression {skip -3} */
	SPIN_BODY ".cfi_endproc\n"

	FN(cfi_bra) ".cfi_startproc\n"
		    ".cfi_escape 0x0f, 0x04, 0x31, 0x28, 0xfc, 0xff\n" /* {lit1; bra -4} */
	SPIN_BODY ".cfi_endproc\n"

	FN(cfi_valexpr) ".cfi_startproc\n"
			".cfi_escape 0x16, 0x10, 0x03, 0x2f, 0xfd, 0xff\n" /* rip = {skip -3} */
	SPIN_BODY ".cfi_endproc\n"

	FN(cfi_lenwrap) ".cfi_startproc\n"
			/* val_expression r3 {nop}, its length 1 in 10 bytes: patched at run time (patch_lenwrap) */
			".cfi_escape 0x16, 0x03, 0x81, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, "
			"0x80, 0x00, 0x96\n" SPIN_BODY ".cfi_endproc\n"

	FN(cfi_bigfde) ".cfi_startproc\n"
		       ".rept 200000\n.cfi_escape 0x00\n.endr\n.cfi_escape 0x2e, 0x00\n" SPIN_BODY
		       ".cfi_endproc\n"

	FN(plain_spin) ".cfi_startproc\n" SPIN_BODY ".cfi_endproc\n");

static uint64_t cpu_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* Spin fn until the calling thread has used ns of CPU time. */
static NOINLINE void spin_for(void (*fn)(unsigned long), uint64_t ns)
{
	uint64_t end = cpu_ns() + ns;

	while (cpu_ns() < end)
		fn(200000);
}

static uint64_t spin_ns;

/* ---- hostile CFI --------------------------------------------------------------- */

/* The program's PT_LOAD segment holding its .eh_frame_hdr (and, after it, its .eh_frame). */
static int find_eh_segment(struct dl_phdr_info *info, size_t size, void *arg)
{
	uintptr_t *range = arg, hdr = 0;

	(void)size;
	for (int i = 0; i < info->dlpi_phnum; i++)
		if (info->dlpi_phdr[i].p_type == PT_GNU_EH_FRAME)
			hdr = info->dlpi_addr + info->dlpi_phdr[i].p_vaddr;
	for (int i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
		uintptr_t lo = info->dlpi_addr + ph->p_vaddr;

		if (ph->p_type == PT_LOAD && hdr >= lo && hdr < lo + ph->p_memsz)
			range[0] = hdr, range[1] = lo + ph->p_memsz;
	}
	return 1; /* the program itself comes first */
}

/*
 * ld builds no .eh_frame_hdr for an .eh_frame it cannot parse, so the wrapping length is
 * written at run time over a sane one of the same size: 2^64 - 12, back onto the instruction.
 */
static void patch_lenwrap(void)
{
	static const uint8_t sane[] = {0x16, 0x03, 0x81, 0x80, 0x80, 0x80, 0x80,
				       0x80, 0x80, 0x80, 0x80, 0x00, 0x96};
	static const uint8_t wrap[] = {0xf4, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01};
	uintptr_t range[2] = {0, 0}, page = (uintptr_t)getpagesize();

	dl_iterate_phdr(find_eh_segment, range);
	for (uintptr_t p = range[0]; p + sizeof(sane) <= range[1]; p++) {
		if (memcmp((void *)p, sane, sizeof(sane)))
			continue;
		mprotect((void *)(p & ~(page - 1)), 2 * page, PROT_READ | PROT_WRITE);
		memcpy((void *)(p + 2), wrap, sizeof(wrap));
		mprotect((void *)(p & ~(page - 1)), 2 * page, PROT_READ);
		return;
	}
	fprintf(stderr, "agent_hostile: the lenwrap CFI was not found\n");
	exit(7);
}

static int run_cfi(const char *mode)
{
	static const struct {
		const char *name;
		void (*fn)(unsigned long);
	} fns[] = {{"skip", cfi_skip},	     {"bra", cfi_bra},	     {"valexpr", cfi_valexpr},
		   {"lenwrap", cfi_lenwrap}, {"bigfde", cfi_bigfde}, {"plain", plain_spin}};

	for (size_t i = 0; i < sizeof(fns) / sizeof(fns[0]); i++)
		if (!strcmp(mode, fns[i].name)) {
			if (fns[i].fn == cfi_lenwrap)
				patch_lenwrap();
			spin_for(fns[i].fn, spin_ns);
			printf("%s done\n", mode);
			return 0;
		}
	return -1;
}

/* ---- odd stacks -------------------------------------------------------------------- */

#define ALT_SIZE 8192
#define CANARY 4096
#define TINY_STACK 16384

/* size bytes with a PROT_NONE page below (guard) or CANARY bytes of 0xa5 below (canary). */
static unsigned char *stack_region(size_t size, int guard, unsigned char **canary)
{
	size_t below = guard ? (size_t)getpagesize() : CANARY;
	unsigned char *m = mmap(NULL, below + size, PROT_READ | PROT_WRITE,
				MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (m == MAP_FAILED)
		exit(3);
	if (guard)
		mprotect(m, below, PROT_NONE);
	else
		memset(m, 0xa5, below);
	*canary = guard ? NULL : m;
	return m + below;
}

static int canary_intact(const unsigned char *c)
{
	for (size_t i = 0; c && i < CANARY; i++)
		if (c[i] != 0xa5)
			return 0;
	return 1;
}

static volatile int nested_mode;

static NOINLINE void deeper(int depth)
{
	if (depth)
		deeper(depth - 1);
	else
		spin_for(plain_spin, spin_ns / (nested_mode ? 2 : 1));
	__asm__ volatile("" ::: "memory");
}

static void on_usr2(int sig)
{
	(void)sig;
	deeper(3);
}

static void on_usr1(int sig)
{
	(void)sig;
	deeper(3);
	if (nested_mode)
		raise(SIGUSR2); /* delivered at once: nested on the same alternate stack */
}

static int run_altstack(int guard, int nested)
{
	unsigned char *canary;
	size_t size = nested ? 2 * ALT_SIZE : ALT_SIZE;
	stack_t ss = {.ss_sp = stack_region(size, guard, &canary), .ss_size = size};
	struct sigaction sa;

	nested_mode = nested;
	if (sigaltstack(&ss, NULL) < 0)
		return 4;
	memset(&sa, 0, sizeof(sa));
	sa.sa_flags = SA_ONSTACK | SA_NODEFER;
	sa.sa_handler = on_usr1;
	sigaction(SIGUSR1, &sa, NULL);
	sa.sa_handler = on_usr2;
	sigaction(SIGUSR2, &sa, NULL);
	raise(SIGUSR1);
	printf("altstack done guard=%d nested=%d canary=%s\n", guard, nested,
	       canary_intact(canary) ? "intact" : "overwritten");
	return canary_intact(canary) ? 0 : 5;
}

static ucontext_t main_ctx, coro_ctx[2];
static int coro_turns[2];

static void coro_body(int which)
{
	for (int i = 0; i < 10; i++) {
		deeper(2);
		coro_turns[which]++;
		swapcontext(&coro_ctx[which], which ? &main_ctx : &coro_ctx[1]);
	}
	swapcontext(&coro_ctx[which], &main_ctx);
}

static int run_coro(void)
{
	unsigned char *canary;

	spin_ns /= 20;
	for (int i = 0; i < 2; i++) {
		getcontext(&coro_ctx[i]);
		coro_ctx[i].uc_stack.ss_sp = stack_region(TINY_STACK, 1, &canary);
		coro_ctx[i].uc_stack.ss_size = TINY_STACK;
		coro_ctx[i].uc_link = &main_ctx;
		makecontext(&coro_ctx[i], (void (*)(void))coro_body, 1, i);
	}
	for (int round = 0; round < 10; round++)
		swapcontext(&main_ctx, &coro_ctx[0]);
	printf("coro done turns=%d,%d\n", coro_turns[0], coro_turns[1]);
	return 0;
}

static void *thread_main(void *arg)
{
	(void)arg;
	deeper(4);
	return NULL;
}

static int run_threads(void)
{
	pthread_t t[4];
	pthread_attr_t attr;
	unsigned char *canary;

	spin_ns /= 4;
	for (int i = 0; i < 4; i++) {
		pthread_attr_init(&attr);
		pthread_attr_setstack(&attr, stack_region(TINY_STACK, 1, &canary), TINY_STACK);
		if (pthread_create(&t[i], &attr, thread_main, NULL))
			return 6;
		pthread_attr_destroy(&attr);
	}
	for (int i = 0; i < 4; i++)
		pthread_join(t[i], NULL);
	printf("threads done\n");
	return 0;
}

static uint64_t threads_ns; /* atomic */

static void *short_thread(void *arg)
{
	uint64_t t0 = cpu_ns();

	(void)arg;
	spin_for(plain_spin, 100000);
	__atomic_fetch_add(&threads_ns, cpu_ns() - t0, __ATOMIC_RELAXED);
	return NULL;
}

static int run_manythreads(void)
{
	const char *truth = getenv("HOSTILE_TRUTH");
	uint64_t t0 = cpu_ns(), main_ns;
	pthread_t t[8];

	spin_for(plain_spin, spin_ns);
	main_ns = cpu_ns() - t0;
	for (int round = 0; round < 500; round++) {
		for (int i = 0; i < 8; i++)
			if (pthread_create(&t[i], NULL, short_thread, NULL))
				return 6;
		for (int i = 0; i < 8; i++)
			pthread_join(t[i], NULL);
	}
	if (truth) {
		FILE *f = fopen(truth, "w");

		if (f) {
			fprintf(f, "main_ns=%llu threads_ns=%llu\n", (unsigned long long)main_ns,
				(unsigned long long)threads_ns);
			fclose(f);
		}
	}
	printf("manythreads done\n");
	return 0;
}

int main(int argc, char **argv)
{
	int rc;

	if (argc < 3)
		return 2;
	spin_ns = (uint64_t)(atof(argv[2]) * 1e9);
	if (!strcmp(argv[1], "altstack") || !strcmp(argv[1], "altcanary"))
		return run_altstack(!strcmp(argv[1], "altstack"), 0);
	if (!strcmp(argv[1], "nested"))
		return run_altstack(1, 1);
	if (!strcmp(argv[1], "coro"))
		return run_coro();
	if (!strcmp(argv[1], "threads"))
		return run_threads();
	if (!strcmp(argv[1], "manythreads"))
		return run_manythreads();
	rc = run_cfi(argv[1]);
	return rc < 0 ? 2 : rc;
}
