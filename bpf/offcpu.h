/* SPDX-License-Identifier: MIT */
/*
 * offcpu: the time every thread of a recorded tree spends off the CPU,
 * counted in the kernel.  Shared between bpf/offcpu.bpf.c (the programs on
 * the scheduler's switch, fork, exec and exit tracepoints) and
 * record/offcpu.c (user space, which moves the counts into profil.data).
 *
 * An off-CPU interval runs from a thread's switch-out to its next
 * switch-in.  At the switch-out the program notes the time, the reason
 * (the task state: sleeping, blocked, preempted, stopped) and the stack the
 * thread leaves the CPU with: the kernel's frames (bpf_get_stackid into the
 * kstacks map) and the user part (see below); at the switch-in it adds the
 * interval's nanoseconds to the counts entry of that (thread, stacks,
 * reason) key.  No stack goes through a ring buffer at a switch: a stack is
 * a stack map id, the same stack the same id.
 *
 * Cost: walking the kernel stack at every switch-out is what makes peers
 * expensive.  A thread that leaves the CPU again from the same place as its
 * last walked switch-out (the same reason, the same system call, the same
 * user IP, SP and BP, the same kernel stack depth) reuses that switch-out's
 * stacks; every OFFCPU_REWALK-th such reuse walks again, and a walk that
 * finds other stacks than the cached ones is counted (OFFCPU_STAT_STALE),
 * so that the rule's error is measured, never assumed.
 *
 * User stacks: the leaf user PC always (the registers the task saved on
 * entering the kernel, bpf_task_pt_regs), and, where user_stacks is set,
 * the kernel's frame-pointer walk of the user stack (bpf_get_stackid with
 * BPF_F_USER_STACK into ustacks): complete where the code keeps frame
 * pointers, cut at the first function without (Debian's libc).  Where
 * user_copies is set, a switch-out from a new place (a walk whose stacks
 * the thread's cache did not have) also sends the thread's user registers
 * and the top OFFCPU_COPY_BYTES of its user stack to user space once (the
 * `copies` ring), under a walk id the key carries: the recorder unwinds
 * that copy through the CFI as it unwinds a CPU sample's, so the stack is
 * complete through code without frame pointers, at the price of one copy
 * per (thread, place), never one per switch.  Where kernel_walk is set (the
 * recorder loaded issue 17's in-kernel CFI walk, record/kstacks.h, and gave
 * this object its tables), a new place is walked here instead
 * (kunw_walk_user, bpf/kunwind_walk.bpf.h): its user PCs, not a copy of
 * the stack, go to user space once (the `uwalks` ring, struct
 * offcpu_uwalk, under the same walk id); a place the walk cannot take now
 * (a process whose tables are not written yet, an object being built) is
 * copied as before.
 *
 * Double buffering: BPF adds into counts[cur]; user space flips cur and
 * reads and clears the other map a round later (programs in flight finish
 * within microseconds), so no addition is lost between a read and a clear.
 *
 * Runs: a thread that leaves the CPU again and again from the same place
 * (the same key) adds its intervals up in its own state (runs) and puts
 * the run into counts at once: when the key changes, OFFCPU_PEND_NS after
 * the run began (at its next switch-in), at an exec, at its end; user space
 * reads the run of a thread still alive at the recording's end.  A count
 * may so reach user space up to OFFCPU_PEND_NS late, or, for a thread that
 * blocks for longer after a run, at its next switch-in; the totals are the
 * same.
 *
 * A switch-in that finds no state (a thread whose state could not be made,
 * counted) leaves nothing to close; close_missed stays for an interval a
 * switch-in left open all the same: the thread's next switch-out or its
 * death closes it, as the time since it left the CPU less the CPU time it
 * has had since (se.sum_exec_runtime), and counts it
 * (OFFCPU_STAT_UNCLOSED).
 *
 * Threads: each thread of the tree has its state (struct offcpu_thread:
 * its birth, the pending interval, its run and the stack cache) on its task
 * (`tstate`, BPF task-local storage: no hash lookup at its switches), made
 * at its fork or exec (or, after an attach, at its first switch), gone at
 * its last switch (TASK_DEAD), when an event with its lifetime and
 * off-CPU total goes to user space (the `ends` ring), or with the task.
 * `threads` (tid -> the same struct) holds an entry per thread of the tree
 * as made, for user space: the threads an attach found (task_start 0: the
 * programs adopt the task with that tid and take its state from there),
 * and, at the end, the threads still alive, whose state user space reads
 * from their task (a pidfd of the thread is the key of `tstate`), closes
 * their intervals still open and takes their lifetimes.  Time:
 * CLOCK_MONOTONIC (bpf_ktime_get_ns), the perf rings' clock.
 *
 * Every map is bounded (sizes below; doc/offcpu.md states the memory).  A
 * full map is counted in stats, never silent.
 */
#ifndef PROFIL_OFFCPU_H
#define PROFIL_OFFCPU_H

#define OFFCPU_MAX_PROCS 8192	       /* processes of the tree at once (tracked) */
#define OFFCPU_MAX_THREADS 32768       /* threads of the tree at once (threads) */
#define OFFCPU_MAX_KEYS 16384	       /* (thread, stacks, reason) keys per flush, each map */
#define OFFCPU_STACKS 8192	       /* distinct kernel stacks, and as many user stacks */
#define OFFCPU_KERNEL_DEPTH 48	       /* kernel frames kept */
#define OFFCPU_USER_DEPTH 64	       /* user frames kept (frame-pointer walk) */
#define OFFCPU_RING_BYTES (256u << 10) /* thread ends on their way to user space */
#define OFFCPU_REWALK 1024	       /* a reused stack is walked again every this many times */
#define OFFCPU_CACHE 4		       /* switch-out places remembered per thread */
#define OFFCPU_PEND_NS 10000000ull     /* a thread's run of one key reaches counts within this */
#define OFFCPU_RUNS 2		       /* runs per thread: preempted, and the other reasons */
#define OFFCPU_COPY_BYTES 8192	       /* user stack copied at a new place */
#define OFFCPU_COPY_RING (2u << 20)    /* copies on their way to user space */
#define OFFCPU_UWALK_RING (256u << 10) /* user stacks walked in the kernel, on their way */
#define OFFCPU_UWALK_FRAMES 127	       /* user frames of a stack walked in the kernel */

/* Why the thread was off the CPU: the task state at its switch-out (pdata kinds 1..4). */
enum offcpu_reason {
	OFFCPU_SLEEP = 1,     /* interruptible sleep (S): waits, sleeps, pipes, sockets */
	OFFCPU_BLOCKED = 2,   /* uninterruptible (D): disk I/O, page faults, some locks */
	OFFCPU_PREEMPTED = 3, /* runnable, not running (R): preempted, or new and not yet run */
	OFFCPU_STOPPED = 4,   /* stopped or traced (T, t) */
	OFFCPU_NREASONS = 5,
};

/* A stack id that is no stack (not walked, or the walk failed). */
#define OFFCPU_NO_STACK (-1)

struct offcpu_key {
	__u32 tgid;
	__u32 tid;
	__u32 gen;    /* execs of the process since it was tracked: which image */
	__u32 reason; /* enum offcpu_reason */
	__s32 kstack; /* id in kstacks, OFFCPU_NO_STACK */
	__s32 ustack; /* id in ustacks (leaf PC first), OFFCPU_NO_STACK */
	__u64 upc;    /* the user PC the thread will return to */
	__u32 walk;   /* the copy of its user stack (struct offcpu_copy), 0: none */
	__u32 pad;
};

struct offcpu_val {
	__u64 ns;    /* nanoseconds off the CPU */
	__u64 count; /* intervals */
};

/* The tree: tgid -> its state. */
struct offcpu_proc {
	__u32 gen;   /* execs since tracked */
	__u32 armed; /* counting (the command: from its exec on) */
};

/* One thread of the tree. */
struct offcpu_thread {
	__u64 born_ns;	       /* its fork, or when counting started for it */
	__u64 task_start;      /* the task's start_time: a tid used again is another thread;
				  0: not known yet (a thread of an attached process, entered
				  by user space): the task met with its tid is adopted */
	__u64 out_ns;	       /* its pending interval's start, 0: on the CPU */
	__u64 out_runtime;     /* its CPU time (se.sum_exec_runtime) then */
	__u64 offcpu_ns;       /* its intervals so far, all reasons */
	struct offcpu_key key; /* of the pending interval */
	/* the last OFFCPU_CACHE walked switch-outs: their signatures and stacks */
	struct offcpu_cached {
		__u64 sig;
		__s32 kstack, ustack;
		__u32 reused; /* reuses since it was walked */
		__u32 walk;   /* its copy, 0: none */
	} cache[OFFCPU_CACHE];
	__u32 next; /* the cache entry to replace next */
	__u32 pad;
	__u64 frame; /* scratch: the address of the program's frame (signature) */
	/* runs of intervals under one key, added up here and put into counts at once:
	   when the key changes, OFFCPU_PEND_NS after the run began, at the thread's
	   end (or, still alive at the recording's end, by user space); one run for
	   the intervals it was preempted, one for the others (a thread that blocks
	   and is preempted by turns keeps both going) */
	struct offcpu_run {
		struct offcpu_key key;
		__u64 ns, count, since;
	} runs[OFFCPU_RUNS];
};

/* A thread ended (its last switch): on the ends ring. */
struct offcpu_end {
	__u32 tgid, tid, gen, pad;
	__u64 born_ns, died_ns;
	__u64 offcpu_ns;
};

/* A user stack copy (the copies ring): sent once per new place, named by walk. */
struct offcpu_copy {
	__u32 walk; /* >= 1 */
	__u32 tgid, tid;
	__u32 size; /* bytes of stack copied */
	__u64 time; /* CLOCK_MONOTONIC of the switch-out */
	__u64 bp, sp, ip;
	__u8 stack[OFFCPU_COPY_BYTES];
};
#define OFFCPU_COPY_HEAD 48 /* bytes before stack */

/* A user stack walked in the kernel (the uwalks ring): sent once per new place, named by walk. */
struct offcpu_uwalk {
	__u32 walk; /* >= 1 */
	__u32 tgid, tid;
	__u32 n;     /* PCs: leaf first, return addresses after */
	__u32 flags; /* KUNW_F_* (bpf/kunwind.h): complete, or why cut short */
	__u32 pad;
	__u64 pcs[OFFCPU_UWALK_FRAMES];
};
#define OFFCPU_UWALK_HEAD 24 /* bytes before pcs */

/* Per-CPU statistics (index in stats). */
enum offcpu_stat {
	OFFCPU_STAT_SWITCHES,	  /* switch-outs of the tree's threads */
	OFFCPU_STAT_WALKS,	  /* kernel stacks walked */
	OFFCPU_STAT_REUSED,	  /* switch-outs that reused their thread's stacks */
	OFFCPU_STAT_STALE,	  /* re-walks that found other stacks than the reused ones */
	OFFCPU_STAT_KSTACK_FAIL,  /* kernel stack not stored (map full, collision) */
	OFFCPU_STAT_USTACK_FAIL,  /* user stack not stored */
	OFFCPU_STAT_KEYS_FULL,	  /* intervals not counted under their key: counts map full */
	OFFCPU_STAT_KEYS_FULL_NS, /* their nanoseconds (in the thread's total all the same) */
	OFFCPU_STAT_THREADS_FULL, /* threads without room: their entry (threads) or state (tstate) */
	OFFCPU_STAT_ENDS_LOST,	  /* thread ends the ring had no room for */
	OFFCPU_STAT_COPIES,	  /* user stacks copied to user space */
	OFFCPU_STAT_COPIES_LOST,  /* copies the ring had no room for (frame pointers instead) */
	OFFCPU_STAT_PROCS_FULL,	  /* processes the tracked map had no room for (not followed) */
	OFFCPU_STAT_UNCLOSED,	  /* intervals whose switch-in missed the thread's entry */
	OFFCPU_STAT_UNCLOSED_NS,  /* their nanoseconds (closed at the thread's next switch) */
	OFFCPU_STAT_KWALKS,	  /* new places walked in the kernel (kernel_walk) */
	OFFCPU_STAT_KWALK_COPIED, /* new places the kernel walk could not take: copied */
	OFFCPU_STAT_KWALK_LOST,	  /* walks the uwalks ring had no room for (copied) */
	OFFCPU_STAT_RUNS,	  /* runs of one key put into counts (intervals added up: Runs) */
	OFFCPU_STAT_NR,
};

#endif /* PROFIL_OFFCPU_H */
