// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * profil watch: system-wide view of profiling activity.
 *
 *  - uprobe/uretprobe on profil() and sprofil() (glibc, libprofil): the
 *    arguments at entry, the caller's PC (return address), the return value;
 *  - tp_btf sys_enter/sys_exit: setitimer, timer_create on CPU-time clocks,
 *    perf_event_open, with their argument structures read at entry;
 *  - tp_btf sched_process_fork/exec/exit: lifecycle of the processes that
 *    turned profiling on (the `tracked` map), and of their direct children.
 *
 * Everything goes to one ring buffer; a failed reservation is counted in
 * the per-CPU `drops` array, which user space reports as events_lost.
 * The prof ENABLE/DISABLE state machine lives in user space (events/watch.c).
 */
#include "vmlinux.h"
#include <bpf/bpf_core_read.h>
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>

#include "watch.h"

char LICENSE[] SEC("license") = "Dual MIT/GPL";

#define TS_COMPAT 0x0002 /* arch/x86/include/asm/thread_info.h */
#define SIGEV_THREAD_ID 4

/* x86_64 syscall numbers of the syscalls we watch (equal to Tracee's ids). */
#define NR_SETITIMER 38
#define NR_TIMER_CREATE 222
#define NR_PERF_EVENT_OPEN 298
/* i386 numbers (compat tasks): profil, which Linux never implemented (ENOSYS). */
#define NR32_PROFIL 98

/* Set by user space before loading: the watcher does not report itself. */
const volatile __u32 self_tgid = 0;

struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, 1 << 20);
} events SEC(".maps");

#include "drops.bpf.h"

/* tgid -> WATCH_TRACK_* of processes whose lifecycle we report. */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 16384);
	__type(key, __u32);
	__type(value, __u32);
} tracked SEC(".maps");

/* tid -> event being built between sys_enter and sys_exit. */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 4096);
	__type(key, __u32);
	__type(value, struct watch_event);
} sys_pending SEC(".maps");

/* tid -> event being built between a uprobe and its uretprobe. */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 4096);
	__type(key, __u32);
	__type(value, struct watch_event);
} call_pending SEC(".maps");

/* Scratch space: a watch_event is too big for the BPF stack. */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct watch_event);
} scratch SEC(".maps");

static __always_inline struct watch_event *scratch_event(__u32 id)
{
	__u32 zero = 0;
	struct watch_event *e = bpf_map_lookup_elem(&scratch, &zero);

	if (e) {
		__builtin_memset(e, 0, sizeof(*e));
		e->id = id;
	}
	return e;
}

static __always_inline void submit(struct watch_event *e)
{
	if (bpf_ringbuf_output(&events, e, sizeof(*e), 0))
		count_drop();
}

/* pid number of a struct pid in its own (innermost) namespace. */
static __always_inline __u32 pid_vnr(struct pid *p)
{
	unsigned int level = BPF_CORE_READ(p, level);

	return BPF_CORE_READ(p, numbers[level].nr);
}

static __always_inline void fill_ctx(struct watch_ctx *c)
{
	struct task_struct *t = (struct task_struct *)bpf_get_current_task();
	struct task_struct *leader = BPF_CORE_READ(t, group_leader);
	struct task_struct *parent = BPF_CORE_READ(t, real_parent);
	struct pid *tp = BPF_CORE_READ(t, thread_pid);
	unsigned int level = BPF_CORE_READ(tp, level);

	c->ts = bpf_ktime_get_ns();
	c->start_time = BPF_CORE_READ(t, start_time);
	c->cgroup_id = bpf_get_current_cgroup_id();
	c->cpu = bpf_get_smp_processor_id();
	c->host_tid = BPF_CORE_READ(t, pid);
	c->host_pid = BPF_CORE_READ(t, tgid);
	c->host_ppid = BPF_CORE_READ(parent, tgid);
	c->tid = pid_vnr(tp);
	c->pid = pid_vnr(BPF_CORE_READ(leader, thread_pid));
	c->ppid = pid_vnr(BPF_CORE_READ(parent, group_leader, thread_pid));
	c->uid = (__u32)bpf_get_current_uid_gid();
	c->mnt_ns = BPF_CORE_READ(t, nsproxy, mnt_ns, ns.inum);
	c->pid_ns = BPF_CORE_READ(tp, numbers[level].ns, ns.inum);
	c->is_compat = (BPF_CORE_READ(t, thread_info.status) & TS_COMPAT) != 0;
	bpf_get_current_comm(c->comm, sizeof(c->comm));
	BPF_CORE_READ_STR_INTO(&c->hostname, t, nsproxy, uts_ns, name.nodename);
}

static __always_inline void track(__u32 tgid, __u32 bits)
{
	__u32 *v = bpf_map_lookup_elem(&tracked, &tgid);

	if (v)
		*v |= bits; /* racing updates only ever add bits */
	else
		bpf_map_update_elem(&tracked, &tgid, &bits, BPF_ANY);
}

static __always_inline __u32 current_tid(void)
{
	return (__u32)bpf_get_current_pid_tgid();
}

static __always_inline __u32 current_tgid(void)
{
	return bpf_get_current_pid_tgid() >> 32;
}

/* ---- profil() / sprofil() ------------------------------------------------------------ */

static __always_inline __u64 return_address(struct pt_regs *regs)
{
	__u64 ra = 0;

	bpf_probe_read_user(&ra, sizeof(ra), (void *)PT_REGS_SP(regs));
	return ra;
}

/*
 * profil() or sprofil() entered: its event e, filled with the arguments,
 * waits in call_pending (by thread) for the call's return (profil_return).
 */
static __always_inline int call_enter(struct pt_regs *ctx, struct watch_event *e)
{
	__u32 tid = current_tid();

	e->probe_cookie = (__u32)bpf_get_attach_cookie(ctx);
	bpf_map_update_elem(&call_pending, &tid, e, BPF_ANY);
	return 0;
}

SEC("uprobe")
int BPF_KPROBE(profil_enter, void *buf, __u64 bufsiz, __u64 offset, __u32 scale)
{
	struct watch_event *e = scratch_event(PEV_PROFIL);

	if (!e)
		return 0;
	e->profil.buf = (__u64)buf;
	e->profil.buflen = bufsiz;
	e->profil.offset = offset;
	e->profil.scale = scale;
	e->profil.pc = return_address(ctx);
	return call_enter(ctx, e);
}

SEC("uprobe")
int BPF_KPROBE(sprofil_enter, void *profp, int profcnt, void *tvp, __u32 flags)
{
	struct watch_event *e = scratch_event(PEV_SPROFIL);

	if (!e)
		return 0;
	e->sprofil.profp = (__u64)profp;
	e->sprofil.profcnt = profcnt;
	e->sprofil.tvp = (__u64)tvp;
	e->sprofil.flags = flags;
	e->sprofil.pc = return_address(ctx);
	for (int i = 0; i < PROFIL_MAX_REGIONS; i++) {
		if (i >= profcnt || !profp)
			break;
		if (bpf_probe_read_user(&e->sprofil.regions[i], sizeof(e->sprofil.regions[i]),
					(char *)profp + i * sizeof(e->sprofil.regions[0])))
			break;
		e->sprofil.nregions = i + 1;
	}
	return call_enter(ctx, e);
}

SEC("uretprobe")
int BPF_KRETPROBE(profil_return, long ret)
{
	__u32 tid = current_tid();
	struct watch_event *e = bpf_map_lookup_elem(&call_pending, &tid);

	if (!e)
		return 0;
	fill_ctx(&e->ctx);
	e->ctx.ret = (int)ret; /* both return int */
	if (ret == 0 && ((e->id == PEV_PROFIL && e->profil.buf) ||
			 (e->id == PEV_SPROFIL && e->sprofil.profcnt > 0)))
		track(current_tgid(), WATCH_TRACK_ENABLED);
	submit(e);
	bpf_map_delete_elem(&call_pending, &tid);
	return 0;
}

/* ---- syscalls ------------------------------------------------------------------------ */

static __always_inline bool is_cpu_clock(int clockid)
{
	/* static CPU clocks, or a dynamic per-task CPU clock (not a CLOCKFD, which is 3) */
	return clockid == 2 || clockid == 3 || (clockid < 0 && (clockid & 3) != 3);
}

static __always_inline void setitimer_enter(struct watch_event *e, struct pt_regs *regs)
{
	struct {
		long interval_sec, interval_usec, value_sec, value_usec;
	} itv;

	e->setitimer.which = (int)BPF_CORE_READ(regs, di);
	if (!bpf_probe_read_user(&itv, sizeof(itv), (void *)BPF_CORE_READ(regs, si))) {
		e->setitimer.has_value = 1;
		e->setitimer.interval_sec = itv.interval_sec;
		e->setitimer.interval_usec = itv.interval_usec;
		e->setitimer.value_sec = itv.value_sec;
		e->setitimer.value_usec = itv.value_usec;
	}
}

/* Returns false when the call is not one we report. */
static __always_inline bool timer_create_enter(struct watch_event *e, struct pt_regs *regs)
{
	struct sigevent sev;
	void *sevp = (void *)BPF_CORE_READ(regs, si);

	e->timer_create.clockid = (int)BPF_CORE_READ(regs, di);
	if (!is_cpu_clock(e->timer_create.clockid))
		return false;
	if (!sevp) { /* NULL: SIGEV_SIGNAL with SIGALRM */
		e->timer_create.sigev_signo = 14;
		return true;
	}
	if (bpf_probe_read_user(&sev, sizeof(sev), sevp))
		return true;
	e->timer_create.has_sigevent = 1;
	e->timer_create.sigev_notify = sev.sigev_notify;
	e->timer_create.sigev_signo = sev.sigev_signo;
	if (sev.sigev_notify == SIGEV_THREAD_ID)
		e->timer_create.sigev_tid = sev._sigev_un._tid;
	return true;
}

static __always_inline void perf_event_open_enter(struct watch_event *e, struct pt_regs *regs)
{
	struct perf_event_attr *uattr = (void *)BPF_CORE_READ(regs, di);
	struct perf_event_attr attr;

	e->perf.pid = (int)BPF_CORE_READ(regs, si);
	e->perf.cpu = (int)BPF_CORE_READ(regs, dx);
	e->perf.group_fd = (int)BPF_CORE_READ(regs, r10);
	e->perf.flags = BPF_CORE_READ(regs, r8);
	/* the first 64 bytes hold type, config, sample_period and the bit field */
	__builtin_memset(&attr, 0, sizeof(attr));
	if (bpf_probe_read_user(&attr, 64, uattr))
		return;
	e->perf.has_attr = 1;
	e->perf.type = attr.type;
	e->perf.config = attr.config;
	e->perf.sample = attr.sample_period;
	e->perf.freq = attr.freq;
	e->perf.inherit = attr.inherit;
}

SEC("tp_btf/sys_enter")
int BPF_PROG(sys_enter, struct pt_regs *regs, long id)
{
	struct watch_event *e;
	__u32 tid;

	if (id != NR_SETITIMER && id != NR_TIMER_CREATE && id != NR_PERF_EVENT_OPEN &&
	    id != NR32_PROFIL)
		return 0;
	if (current_tgid() == self_tgid)
		return 0;
	struct task_struct *t = bpf_get_current_task_btf();
	bool compat = t->thread_info.status & TS_COMPAT;
	/*
	 * A 32-bit task's numbers are i386 ones: only its profil(2) is decoded
	 * (the other syscalls' structures differ; doc/events.md).  98 of a
	 * 64-bit task is getrusage.
	 */
	if (compat != (id == NR32_PROFIL))
		return 0;
	e = scratch_event(0);
	if (!e)
		return 0;
	if (id == NR32_PROFIL) {
		/* int $0x80 / sysenter arguments: ebx, ecx, edx, esi */
		e->id = PEV_PROFIL;
		e->probe_cookie = WATCH_COOKIE_SYSCALL;
		e->profil.buf = (__u32)regs->bx;
		e->profil.buflen = (__u32)regs->cx;
		e->profil.offset = (__u32)regs->dx;
		e->profil.scale = (__u32)regs->si;
		e->profil.pc = (__u32)regs->ip; /* the caller's PC: after the syscall instruction */
	} else if (id == NR_SETITIMER) {
		e->id = PEV_SETITIMER;
		setitimer_enter(e, regs);
	} else if (id == NR_TIMER_CREATE) {
		e->id = PEV_TIMER_CREATE;
		if (!timer_create_enter(e, regs))
			return 0;
	} else {
		e->id = PEV_PERF_EVENT_OPEN;
		perf_event_open_enter(e, regs);
	}
	tid = current_tid();
	bpf_map_update_elem(&sys_pending, &tid, e, BPF_ANY);
	return 0;
}

static __always_inline bool enables_profiling(struct watch_event *e, long ret)
{
	if (ret < 0)
		return false;
	switch (e->id) {
	case PEV_SETITIMER:
		return (e->setitimer.which == 1 || e->setitimer.which == 2) &&
		       (e->setitimer.value_sec || e->setitimer.value_usec);
	case PEV_TIMER_CREATE:
		return true;
	case PEV_PERF_EVENT_OPEN:
		return e->perf.sample != 0;
	}
	return false;
}

SEC("tp_btf/sys_exit")
int BPF_PROG(sys_exit, struct pt_regs *regs, long ret)
{
	long id = regs->orig_ax;
	__u32 tid;
	struct watch_event *e;

	if (id != NR_SETITIMER && id != NR_TIMER_CREATE && id != NR_PERF_EVENT_OPEN &&
	    id != NR32_PROFIL)
		return 0;
	tid = current_tid();
	e = bpf_map_lookup_elem(&sys_pending, &tid);
	if (!e)
		return 0;
	fill_ctx(&e->ctx);
	e->ctx.ret = ret;
	if (enables_profiling(e, ret))
		track(current_tgid(), WATCH_TRACK_ENABLED);
	submit(e);
	bpf_map_delete_elem(&sys_pending, &tid);
	return 0;
}

/* ---- process lifecycle --------------------------------------------------------------- */

SEC("tp_btf/sched_process_fork")
int BPF_PROG(sched_fork, struct task_struct *parent, struct task_struct *child)
{
	__u32 ptgid = parent->tgid, ctgid = child->tgid;
	__u32 *state;
	struct watch_event *e;

	if (child->pid != ctgid) /* a new thread, not a new process */
		return 0;
	state = bpf_map_lookup_elem(&tracked, &ptgid);
	if (!state || !(*state & WATCH_TRACK_ENABLED))
		return 0;
	track(ctgid, WATCH_TRACK_INHERITED);
	e = scratch_event(PEV_SCHED_PROCESS_FORK);
	if (!e)
		return 0;
	fill_ctx(&e->ctx);
	e->fork.parent_tid = parent->pid;
	e->fork.parent_pid = ptgid;
	e->fork.child_tid = child->pid;
	e->fork.child_pid = ctgid;
	e->fork.child_start_time = child->start_time;
	submit(e);
	return 0;
}

SEC("tp_btf/sched_process_exec")
int BPF_PROG(sched_exec, struct task_struct *p, pid_t old_pid, struct linux_binprm *bprm)
{
	__u32 tgid = p->tgid;
	struct watch_event *e;

	if (!bpf_map_lookup_elem(&tracked, &tgid))
		return 0;
	bpf_map_delete_elem(&tracked, &tgid); /* exec ends profiling */
	e = scratch_event(PEV_SCHED_PROCESS_EXEC);
	if (!e)
		return 0;
	fill_ctx(&e->ctx);
	bpf_probe_read_kernel_str(e->exec.filename, sizeof(e->exec.filename), bprm->filename);
	submit(e);
	return 0;
}

SEC("tp_btf/sched_process_exit")
int BPF_PROG(sched_exit, struct task_struct *p)
{
	__u32 tgid = p->tgid;
	struct watch_event *e;

	if (!bpf_map_lookup_elem(&tracked, &tgid))
		return 0;
	if (p->signal->live.counter != 0) /* other threads still run */
		return 0;
	bpf_map_delete_elem(&tracked, &tgid);
	e = scratch_event(PEV_SCHED_PROCESS_EXIT);
	if (!e)
		return 0;
	fill_ctx(&e->ctx);
	e->exit.exit_code = p->exit_code;
	submit(e);
	return 0;
}
