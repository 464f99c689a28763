// SPDX-License-Identifier: MIT
/* A shared library with one known function, for report tests (libreport_lib.so). */
int lib_hot(int n);
void *lib_hot_addr(void);

__attribute__((noinline)) int lib_hot(int n)
{
	volatile int acc = 0;

	for (int i = 0; i < n; i++)
		acc += i * 7;
	return acc;
}

/*
 * The real address of lib_hot: taking &lib_hot in a non-PIE executable
 * gives its canonical PLT entry instead; a hidden alias cannot be
 * preempted, so its address is the code in this library.
 */
extern int lib_hot_local(int n) __attribute__((alias("lib_hot"), visibility("hidden")));

void *lib_hot_addr(void)
{
	return (void *)lib_hot_local;
}
