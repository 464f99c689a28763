// SPDX-License-Identifier: MIT
/* Per-thread and per-image CPU time of the perf and bpf clocks.  See cpuacct.h. */
#include <linux/types.h>
#include <string.h>

#include "bpf/procacct.h"
#include "record/cpuacct.h"

void cpuacct__sample(struct tstate *th, uint64_t pc)
{
	th->cpu.samples++;
	if (pc >= PDATA_KERNEL_START)
		th->cpu.kernel_samples++;
}

void cpuacct__leave(struct tstate *th)
{
	struct tcpu *c = &th->cpu;
	const unsigned int cap = sizeof(c->left) / sizeof(c->left[0]);

	if (c->nleft == cap) { /* four execs without their accounting yet: forget the oldest */
		memmove(c->left, c->left + 1, sizeof(c->left[0]) * (cap - 1));
		c->nleft--;
	}
	c->left[c->nleft].rec = th->rec;
	c->left[c->nleft].image = c->image;
	c->left[c->nleft].samples = c->samples;
	c->nleft++;
	c->claimed += c->samples;
	c->samples = c->kernel_samples = 0;
	c->image = NULL;
	th->rec = NULL;
	th->proc = 0;
}

static uint64_t plus_minus(uint64_t base, uint64_t add, uint64_t sub)
{
	uint64_t v = base + add;

	return v >= sub ? v - sub : 0;
}

/* Add (now - before) to an image's CPU time. */
static void image_add(struct pdata_proc *img, const struct pdata_cpu *before,
		      const struct pdata_cpu *now)
{
	struct pdata_cpu c = {
		__atomic_load_n(&img->cpu.cpu_ns, __ATOMIC_RELAXED),
		__atomic_load_n(&img->cpu.user_ns, __ATOMIC_RELAXED),
		__atomic_load_n(&img->cpu.sys_ns, __ATOMIC_RELAXED),
	};

	c.cpu_ns = plus_minus(c.cpu_ns, now->cpu_ns, before->cpu_ns);
	c.user_ns = plus_minus(c.user_ns, now->user_ns, before->user_ns);
	c.sys_ns = plus_minus(c.sys_ns, now->sys_ns, before->sys_ns);
	pdata__proc_cpu(img, &c);
}

/* Say now in the thread's record and its share of the image (shown: what they said so far). */
static void show(struct pdata_thread *rec, struct pdata_proc *img, struct pdata_cpu *shown,
		 const struct pdata_cpu *now)
{
	if (rec)
		pdata__thread_cpu(rec, now);
	if (img)
		image_add(img, shown, now);
	*shown = *now;
}

void cpuacct__task_clock(struct tstate *th, uint64_t ns, int absolute, uint64_t period_ns,
			 int split)
{
	struct tcpu *c = &th->cpu;
	struct pdata_cpu now = {0};
	uint64_t before = c->claimed * period_ns, ticks, seen, dropped, sys;

	c->read_ns = absolute ? ns : c->read_ns + ns;
	now.cpu_ns = c->read_ns > before ? c->read_ns - before : 0;
	if (split && period_ns) {
		/*
		 * The clock ticked once per period of the thread's CPU time (its
		 * phase starts at 0 when the thread does): the ticks that brought
		 * no sample came in kernel mode, which the events may not sample.
		 * What is left after the last tick is unsampled: user time, as
		 * the kernel counts time no tick saw.
		 */
		ticks = c->read_ns / period_ns;
		seen = c->claimed + c->samples;
		dropped = ticks > seen ? ticks - seen : 0;
		sys = (dropped + c->kernel_samples) * period_ns;
		now.sys_ns = sys < now.cpu_ns ? sys : now.cpu_ns;
		now.user_ns = now.cpu_ns - now.sys_ns;
	}
	show(th->rec, c->image, &c->shown, &now);
}

void cpuacct__adjust(uint64_t runtime_ns, uint64_t utime_ns, uint64_t stime_ns,
		     struct pdata_cpu *out)
{
	out->cpu_ns = runtime_ns;
	/* as the kernel's cputime_adjust: no system tick, all user; no user tick, all system */
	if (!stime_ns)
		out->user_ns = runtime_ns;
	else if (!utime_ns)
		out->user_ns = 0;
	else
		out->user_ns = (uint64_t)((unsigned __int128)runtime_ns * utime_ns /
					  ((unsigned __int128)utime_ns + stime_ns));
	out->sys_ns = runtime_ns - out->user_ns;
}

/* The ticks a segment's runtime was worth beyond its samples. */
static uint64_t missed(uint64_t runtime_ns, uint64_t samples, uint64_t period_ns)
{
	uint64_t ticks = period_ns ? runtime_ns / period_ns : 0;

	return ticks > samples ? ticks - samples : 0;
}

/* The segment an exec ended: the image the thread left.  Returns its samples. */
static uint64_t exec_segment(struct tstate *th, const struct pdata_cpu *seg)
{
	struct tcpu *c = &th->cpu;
	struct pdata_cpu zero = {0};
	uint64_t samples;

	if (!c->nleft)
		return UINT64_MAX;
	samples = c->left[0].samples;
	if (c->left[0].rec)
		pdata__thread_cpu(c->left[0].rec, seg);
	if (c->left[0].image)
		image_add(c->left[0].image, &zero, seg);
	memmove(c->left, c->left + 1, sizeof(c->left[0]) * (c->nleft - 1));
	c->nleft--;
	return samples;
}

uint64_t cpuacct__segment(struct proctree *t, const struct procacct_event *e, uint64_t period_ns)
{
	struct tstate *th = proctree__find_thread(t, (pid_t)e->tid);
	uint64_t samples = UINT64_MAX;
	struct pdata_cpu seg;

	cpuacct__adjust(e->runtime_ns, e->utime_ns, e->stime_ns, &seg);
	if (e->kind == PROCACCT_EXEC) {
		if (th && th->pid == (pid_t)e->pid)
			samples = exec_segment(th, &seg);
		return samples == UINT64_MAX ? 0 : missed(e->runtime_ns, samples, period_ns);
	}
	if (e->kind != PROCACCT_EXIT)
		return 0;
	if (!th || th->pid != (pid_t)e->pid || !th->rec) {
		/* a thread the rings never named (it took no sample): its record now */
		struct pstate *p = proctree__find(t, (pid_t)e->pid);

		if (p && p->rec)
			proctree__note_thread(t, p, (pid_t)e->tid, NULL);
		th = proctree__find_thread(t, (pid_t)e->tid);
	}
	if (th && th->rec && th->pid == (pid_t)e->pid) {
		show(th->rec, th->cpu.image, &th->cpu.shown, &seg);
		samples = th->cpu.samples;
	}
	if (e->group_dead)
		proctree__set_status(t, (pid_t)e->pid, e->status);
	return samples == UINT64_MAX ? 0 : missed(e->runtime_ns, samples, period_ns);
}
