/* SPDX-License-Identifier: MIT */
/*
 * A function whose symbol is HTML that would run a script if a page inserted
 * it as markup (html_hostile.c calls it through run_hostile; C cannot name it).
 * GNU as and clang take any bytes in a quoted symbol name.
 */
#define EVIL "evil</script><img src=x onerror=alert(1)>"
	.text
	.globl EVIL
	.type EVIL, @function
EVIL:
	mov %rdi, %rax
1:	dec %rax
	jnz 1b
	ret
	.size EVIL, . - EVIL

/* void run_hostile(unsigned long n), n > 0: n iterations of EVIL's loop */
	.globl run_hostile
	.type run_hostile, @function
run_hostile:
	jmp EVIL
	.size run_hostile, . - run_hostile

	.section .note.GNU-stack, "", @progbits
