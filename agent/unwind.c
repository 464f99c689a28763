// SPDX-License-Identifier: MIT
/*
 * The in-handler unwinder (see unwind.h): libunwind does the unwinding
 * (DWARF CFI from .eh_frame, so code built without frame pointers, like
 * Debian's libraries, unwinds completely); this file keeps every hazard of
 * running it inside a signal handler out of the way.  Measured, not guessed
 * (doc/stacks.md has the figures):
 *
 *  - unw_step() takes the address space's cache lock for every frame, with
 *    sigprocmask() around it: 2 system calls per frame, ~1 us each here.
 *    UNW_CACHE_PER_THREAD would avoid them, but Debian's libunwind 1.6.2 is
 *    built without --enable-per-thread-cache, and unw_set_caching_policy()
 *    then silently turns PER_THREAD into GLOBAL.  So we never call
 *    unw_step().  Instead libunwind computes, on a cache miss, the register
 *    rule of a code address (unw_reg_states_iterate) and we keep it in a
 *    lock-free cache of our own (frame_cache.c); every frame is then stepped
 *    with unw_apply_reg_state(), which takes no lock and makes no system call.
 *  - To find the unwind table of an address, libunwind calls
 *    dl_iterate_phdr(), which takes the loader's lock (a recursive mutex: a
 *    signal landing inside that mutex's own lock/unlock code in the same
 *    thread deadlocks).  libunwind consults its list of registered tables
 *    first (_U_dyn_register), so: at start we register a pool of inert
 *    entries (empty address range) outside signal context, and in the
 *    handler we activate one for a new object with _dl_find_object() (glibc
 *    2.35+, documented AS-Safe, lock-free), filling in the object's
 *    .eh_frame_hdr search table and publishing its range last.  A miss is
 *    only computed for an address inside an active entry, so libunwind never
 *    reaches dl_iterate_phdr() from the handler.  dlclose() (the agent's
 *    wrapper) deactivates the entries of objects that are gone; the cached
 *    rules of such an object carry its (slot, generation) tag and die too.
 *  - Memory: the hit path allocates nothing; the miss path uses libunwind's
 *    own pools (mmap-backed; their mutex is only ever held with every signal
 *    blocked, so the handler cannot interrupt its holder).  No malloc, no TLS
 *    of libunwind (its only TLS, the unw_backtrace() trace cache, reached
 *    through __tls_get_addr(), is never used).
 *  - Fork: a child must not inherit a pool mutex held by a thread that does
 *    not exist there, so a fork waits until no miss is being computed (a few
 *    microseconds); meanwhile walks go on with cached rules and stop at the
 *    first uncached frame (AGENT_UNWIND_FORKING).
 *  - First use: tdep_init, the pools and the tables of the objects on the
 *    start-up path are initialised by a walk from unwind_init().
 *  - A bad stack: every read is inside guard_call(); a fault cuts the walk
 *    short (AGENT_UNWIND_FAULT) and the frames found so far are kept.  A walk is
 *    never nested (per-thread flag, initial-exec TLS).
 *  - libunwind.so.8 exports _Unwind_RaiseException & co.: linked into the
 *    agent it would join the program's global scope and replace libgcc's
 *    exception unwinder in a C program that loads a C++ library.  It is
 *    therefore dlopen'ed RTLD_LOCAL, and called through pointers.
 */
#define UNW_LOCAL_ONLY
#include <dlfcn.h>
#include <errno.h>
#include <libunwind.h>
#include <link.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <ucontext.h>

#include "agent/agent_env.h"
#include "agent/cfi_check.h"
#include "agent/frame_cache.h"
#include "lib/guard.h"
#include "agent/unwind.h"

#define TLS_IE __attribute__((tls_model("initial-exec")))
#define LIBUNWIND_SONAME PROFIL_LIBUNWIND_SO
#define OBJ_CHUNK 256 /* objects registered with libunwind at a time */
#define OBJ_CHUNKS (AGENT_UNWIND_MAX_OBJECTS / OBJ_CHUNK)
#define OBJ_SPARE 256 /* free entries kept beyond the objects loaded, for the next dlopen */
#define STR_(x) #x
#define STR(x) STR_(x) /* the real symbol behind one of libunwind's macros */

/* libunwind's entry points (dlsym'ed: see above). */
static struct {
	int (*init_local2)(unw_cursor_t *, unw_context_t *, int);
	int (*get_reg)(unw_cursor_t *, unw_regnum_t, unw_word_t *);
	int (*get_save_loc)(unw_cursor_t *, int, unw_save_loc_t *);
	int (*apply_reg_state)(unw_cursor_t *, void *);
	int (*reg_states_iterate)(unw_cursor_t *, unw_reg_states_callback, void *);
	int (*is_signal_frame)(unw_cursor_t *);
	void (*dyn_register)(unw_dyn_info_t *);
	/* exported, not in the headers: the FDE lookup in one registered table */
	int (*search_table)(unw_addr_space_t, unw_word_t, unw_dyn_info_t *, unw_proc_info_t *, int,
			    void *);
	unw_addr_space_t *local_as;
} lu;

enum object_state { OBJ_FREE, OBJ_CLAIMED, OBJ_LIVE, OBJ_DEAD };

/* One loaded object whose unwind table libunwind may use. */
struct object {
	unw_dyn_info_t di;    /* in libunwind's list since unwind_init(); inert while end_ip == 0 */
	uintptr_t start, end; /* atomic: our copy of the range, 0..0 unless live */
	const void *eh_frame; /* its PT_GNU_EH_FRAME and link map, to recognise it after a */
	const void *link_map; /* dlclose (another object loaded at its address has others) */
	struct cfi_object cfi; /* where its CFI is, for the gate (cfi_check.h) */
	uint64_t refused;      /* atomic: rules refused by the gate (the object is marked) */
	int state;	       /* atomic, enum object_state */
	uint32_t gen;	       /* atomic: times the slot was retired; in the tag of its rules */
	uint32_t slot;	       /* its index */
};

/*
 * The objects, in chunks mapped and registered outside signal context as
 * the program loads more (unwind_objects_reserve): a handler only ever
 * reads chunks[] and nobjects, published after the entries they cover.
 */
static struct object *chunks[OBJ_CHUNKS];
static unsigned int nobjects; /* atomic */

static struct frame_cache cache;
static int ready;	    /* atomic */
static int fork_pending;    /* atomic */
static int misses_inflight; /* atomic: rules being computed (libunwind's pools in use) */
static __thread int in_walk TLS_IE;
static struct unwind_stats stats; /* atomic counters */

static void count(uint64_t *counter, uint64_t n)
{
	if (n)
		__atomic_fetch_add(counter, n, __ATOMIC_RELAXED);
}

/* ---- unwind tables ------------------------------------------------------ */

struct eh_table {
	uintptr_t table; /* the binary search table of .eh_frame_hdr */
	uint64_t fde_count;
};

/*
 * .eh_frame_hdr: version 1, then the encodings of eh_frame_ptr, fde_count and
 * the table.  Accepted: what GNU ld and lld write (4-byte eh_frame_ptr and
 * count, table of datarel|sdata4 pairs); anything else has no usable table.
 */
static int eh_table_parse(const unsigned char *hdr, struct eh_table *t)
{
	uint32_t count;

	if (hdr[0] != 1 || hdr[3] != 0x3b) /* DW_EH_PE_datarel | DW_EH_PE_sdata4 */
		return -EINVAL;
	if ((hdr[1] & 0x0f) != 0x03 && (hdr[1] & 0x0f) != 0x0b) /* udata4, sdata4 */
		return -EINVAL;
	if (hdr[2] != 0x03 && hdr[2] != 0x0b)
		return -EINVAL;
	memcpy(&count, hdr + 8, sizeof(count));
	t->table = (uintptr_t)(hdr + 12);
	t->fde_count = count;
	return 0;
}

/* The tag of the rules computed from a live object: its slot and generation (never 0). */
static uint32_t owner_of(struct object *o)
{
	uint32_t gen = __atomic_load_n(&o->gen, __ATOMIC_ACQUIRE);

	return ((gen % 0x3ffffu + 1) << 14) | o->slot; /* 14 bits: AGENT_UNWIND_MAX_OBJECTS */
}

static struct object *object_at(unsigned int i)
{
	return &__atomic_load_n(&chunks[i / OBJ_CHUNK], __ATOMIC_ACQUIRE)[i % OBJ_CHUNK];
}

static unsigned int object_count(void)
{
	return __atomic_load_n(&nobjects, __ATOMIC_ACQUIRE);
}

static int owner_live(uint32_t owner)
{
	unsigned int slot = owner & (AGENT_UNWIND_MAX_OBJECTS - 1);
	struct object *o;

	if (slot >= object_count())
		return 0;
	o = object_at(slot);

	return __atomic_load_n(&o->state, __ATOMIC_ACQUIRE) == OBJ_LIVE && owner_of(o) == owner;
}

static struct object *object_live_at(uint64_t addr)
{
	for (unsigned int i = 0, n = object_count(); i < n; i++) {
		struct object *o = object_at(i);

		if (__atomic_load_n(&o->state, __ATOMIC_ACQUIRE) == OBJ_LIVE &&
		    addr >= __atomic_load_n(&o->start, __ATOMIC_RELAXED) &&
		    addr < __atomic_load_n(&o->end, __ATOMIC_RELAXED))
			return o;
	}
	return NULL;
}

static struct object *claim_object(void)
{
	for (int want = OBJ_FREE; want <= OBJ_DEAD; want += OBJ_DEAD - OBJ_FREE) {
		for (unsigned int i = 0, n = object_count(); i < n; i++) {
			int s = want;

			if (__atomic_compare_exchange_n(&object_at(i)->state, &s, OBJ_CLAIMED, 0,
							__ATOMIC_ACQUIRE, __ATOMIC_RELAXED))
				return object_at(i);
		}
	}
	return NULL;
}

/*
 * Make a claimed entry live: the object's .eh_frame_hdr (its search table t), the bytes
 * [lo, hi) its CFI lies in, the code range [start, end) it unwinds.
 */
static void publish_object(struct object *o, const void *hdr, const struct eh_table *t,
			   uintptr_t lo, uintptr_t hi, uintptr_t start, uintptr_t end)
{
	o->di.format = UNW_INFO_FORMAT_REMOTE_TABLE;
	o->di.gp = 0;
	o->di.load_offset = 0;
	o->di.u.rti.name_ptr = 0;
	o->di.u.rti.segbase = (unw_word_t)hdr;
	o->di.u.rti.table_data = t->table;
	o->di.u.rti.table_len = t->fde_count; /* in words: one 8-byte entry per FDE */
	o->eh_frame = hdr;
	o->cfi = (struct cfi_object){(uintptr_t)hdr, t->table, t->fde_count, lo, hi};
	__atomic_store_n(&o->refused, 0, __ATOMIC_RELAXED);
	__atomic_store_n(&o->start, start, __ATOMIC_RELAXED);
	__atomic_store_n(&o->end, end, __ATOMIC_RELAXED);
	/* the range last: libunwind's readers match on it */
	__atomic_store_n(&o->di.start_ip, (unw_word_t)start, __ATOMIC_RELEASE);
	__atomic_store_n(&o->di.end_ip, (unw_word_t)end, __ATOMIC_RELEASE);
	__atomic_store_n(&o->state, OBJ_LIVE, __ATOMIC_RELEASE);
	count(&stats.activations, 1);
}

/* Inert again, and its cached rules dead (its generation moves on). */
static void retire_object(struct object *o)
{
	int live = OBJ_LIVE;

	__atomic_store_n(&o->di.end_ip, 0, __ATOMIC_RELEASE);
	__atomic_store_n(&o->di.start_ip, 0, __ATOMIC_RELEASE);
	__atomic_store_n(&o->end, 0, __ATOMIC_RELEASE);
	__atomic_store_n(&o->start, 0, __ATOMIC_RELEASE);
	__atomic_fetch_add(&o->gen, 1, __ATOMIC_ACQ_REL);
	__atomic_compare_exchange_n(&o->state, &live, OBJ_DEAD, 0, __ATOMIC_RELEASE,
				    __ATOMIC_RELAXED);
}

/* Async-signal-safe: make libunwind's entry for the object holding addr live (*full: there was
 * no free entry). */
static struct object *activate_object(uint64_t addr, int *full)
{
	struct dl_find_object found;
	struct eh_table t;
	struct object *o;

	if (_dl_find_object((void *)addr, &found) != 0 || !found.dlfo_eh_frame ||
	    eh_table_parse(found.dlfo_eh_frame, &t) < 0)
		return NULL;
	o = claim_object();
	if (!o) {
		*full = 1;
		return NULL;
	}
	o->link_map = found.dlfo_link_map;
	publish_object(o, found.dlfo_eh_frame, &t, (uintptr_t)found.dlfo_map_start,
		       (uintptr_t)found.dlfo_map_end, (uintptr_t)found.dlfo_map_start,
		       (uintptr_t)found.dlfo_map_end);
	return o;
}

/* The live object holding addr (activated if need be), or NULL. */
static struct object *object_ready(uint64_t addr, int *full)
{
	struct object *o = object_live_at(addr);

	return o ? o : activate_object(addr, full);
}

static int count_loaded(struct dl_phdr_info *info, size_t size, void *arg)
{
	(void)info;
	(void)size;
	++*(unsigned int *)arg;
	return 0;
}

/* Map and register entries up to want (not in a signal handler). */
static void grow_to(unsigned int want)
{
	static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
	unsigned int n;

	pthread_mutex_lock(&lock);
	while ((n = object_count()) < want && n < AGENT_UNWIND_MAX_OBJECTS) {
		struct object *c = mmap(NULL, sizeof(*c) * OBJ_CHUNK, PROT_READ | PROT_WRITE,
					MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

		if (c == MAP_FAILED)
			break;
		for (unsigned int i = 0; i < OBJ_CHUNK; i++) {
			c[i].slot = n + i;
			lu.dyn_register(&c[i].di); /* inert: empty range */
		}
		__atomic_store_n(&chunks[n / OBJ_CHUNK], c, __ATOMIC_RELEASE);
		__atomic_store_n(&nobjects, n + OBJ_CHUNK, __ATOMIC_RELEASE);
	}
	pthread_mutex_unlock(&lock);
}

void unwind_objects_reserve(void)
{
	unsigned int loaded = 0;

	if (!lu.dyn_register)
		return; /* libunwind not loaded */
	dl_iterate_phdr(count_loaded, &loaded);
	grow_to(loaded + OBJ_SPARE);
}

static int object_still_loaded(const struct object *o)
{
	struct dl_find_object found;

	return _dl_find_object((void *)o->start, &found) == 0 &&
	       (uintptr_t)found.dlfo_map_start == o->start && found.dlfo_eh_frame == o->eh_frame &&
	       found.dlfo_link_map == o->link_map;
}

void unwind_objects_changed(void)
{
	int gone = 0;

	if (!__atomic_load_n(&ready, __ATOMIC_ACQUIRE))
		return;
	for (unsigned int i = 0, n = object_count(); i < n; i++) {
		struct object *o = object_at(i);

		if (__atomic_load_n(&o->state, __ATOMIC_ACQUIRE) != OBJ_LIVE ||
		    object_still_loaded(o))
			continue;
		retire_object(o); /* inert first (no new match), then reusable */
		gone++;
	}
	count(&stats.retired, (uint64_t)gone);
}

/* ---- rules --------------------------------------------------------------- */

struct pick {
	uint64_t addr;
	int found;
	struct frame_rule *rule;
};

#define PICK_DONE (-1000) /* stops unw_reg_states_iterate once the row is found */

/* unw_reg_states_iterate() callback: keep the row that covers the address. */
static int pick_row(void *token, void *rs, size_t size, unw_word_t start, unw_word_t end)
{
	struct pick *p = token;

	if (p->addr < start || p->addr >= end)
		return 0;
	if (size > FRAME_RULE_MAX)
		return -UNW_ENOMEM;
	memcpy(p->rule->rs, rs, size);
	p->rule->size = (uint16_t)size;
	p->found = 1;
	return PICK_DONE;
}

/*
 * The miss path: let libunwind compute the rule of the frame at ip (exact: ip
 * is where execution stopped, else a return address, looked up at ip - 1)
 * from a cursor of its own.  Only for addresses inside a live table.
 */
static __attribute__((noinline)) int compute_rule(uint64_t ip, int exact, struct frame_rule *rule)
{
	struct pick p = {.addr = exact ? ip : ip - 1, .rule = rule};
	int full = 0;
	struct object *o = object_ready(p.addr, &full);
	unw_dyn_info_t di; /* a snapshot: a dlclose in another thread may retire the slot */
	unw_proc_info_t pi;
	ucontext_t at;
	unw_cursor_t t;
	int ret;

	if (!o)
		return full ? -ENOSPC : -ENOENT;
	di = o->di;
	/* libunwind's loops are not bounded: nothing reaches it that the gate has not checked */
	ret = cfi_check_pc(&o->cfi, p.addr);
	if (ret == CFI_NO_FDE)
		return -ENOENT;
	if (ret < 0) {
		__atomic_fetch_add(&o->refused, 1, __ATOMIC_RELAXED);
		return -ELOOP;
	}
	/* No FDE covers it (code without CFI: crt's _init, asm): libunwind would fall back on
	 * dl_iterate_phdr().  Its own search of the table says so first, allocating nothing. */
	if (p.addr < di.start_ip || p.addr >= di.end_ip ||
	    lu.search_table(*lu.local_as, p.addr, &di, &pi, 0, NULL) < 0)
		return -ENOENT;
	rule->owner = owner_of(o);
	memset(&at, 0, sizeof(at));
	at.uc_mcontext.gregs[REG_RIP] = (greg_t)ip;
	if (lu.init_local2(&t, (unw_context_t *)&at, exact ? UNW_INIT_SIGNAL_FRAME : 0) < 0)
		return -EINVAL;
	ret = lu.reg_states_iterate(&t, pick_row, &p);
	if (!p.found) /* no FDE for it (ret < 0), or a row of another procedure */
		return ret < 0 && ret != PICK_DONE ? -ENOENT : -ESRCH;
	rule->signal = lu.is_signal_frame(&t) > 0;
	return 0;
}

/* ---- the walk -------------------------------------------------------------- */

struct walk {
	const void *uc;
	uint64_t *pcs;
	int max, n;
	unsigned int flags;
	int in_miss; /* counted in misses_inflight (a fault may jump out of the miss) */
	uint64_t hits, misses, refused, no_room;
};

static void stop(struct walk *w, unsigned int why)
{
	w->flags |= AGENT_UNWIND_TRUNCATED | why;
}

/* Count a miss in flight, unless a fork is in progress (Dekker with fork_prepare). */
static int enter_miss(struct walk *w)
{
	__atomic_fetch_add(&misses_inflight, 1, __ATOMIC_SEQ_CST);
	if (__atomic_load_n(&fork_pending, __ATOMIC_SEQ_CST)) {
		__atomic_fetch_sub(&misses_inflight, 1, __ATOMIC_SEQ_CST);
		return 0;
	}
	w->in_miss = 1;
	return 1;
}

static void leave_miss(struct walk *w)
{
	if (w->in_miss) {
		w->in_miss = 0;
		__atomic_fetch_sub(&misses_inflight, 1, __ATOMIC_SEQ_CST);
	}
}

static int get_rule(struct walk *w, uint64_t ip, int exact, struct frame_rule *rule)
{
	uint64_t addr = exact ? ip : ip - 1;
	int ret;

	if (frame_cache_get(&cache, addr, rule) && owner_live(rule->owner)) {
		w->hits++;
		return 0;
	}
	if (!enter_miss(w)) {
		stop(w, AGENT_UNWIND_FORKING);
		return -EAGAIN;
	}
	w->misses++;
	ret = compute_rule(ip, exact, rule);
	leave_miss(w);
	if (ret == -ELOOP) {
		w->refused++;
		stop(w, AGENT_UNWIND_REFUSED);
		return ret;
	}
	if (ret == -ENOSPC) {
		w->no_room++;
		stop(w, AGENT_UNWIND_NO_ROOM);
		return ret;
	}
	if (ret < 0) {
		stop(w, AGENT_UNWIND_NO_INFO);
		return ret;
	}
	frame_cache_put(&cache, addr, rule);
	return 0;
}

/* Under guard_call(): step from the interrupted frame to the outermost one. */
static void walk_frames(void *arg)
{
	struct walk *w = arg;
	unw_cursor_t c;
	int exact = 1; /* the interrupted PC is where execution stopped, not a return address */

	if (lu.init_local2(&c, (unw_context_t *)w->uc, UNW_INIT_SIGNAL_FRAME) < 0) {
		stop(w, AGENT_UNWIND_BAD_FRAME);
		return;
	}
	for (;;) {
		struct frame_rule rule;
		unw_save_loc_t rbp;
		unw_word_t ip;
		int ret;

		if (lu.get_reg(&c, UNW_REG_IP, &ip) < 0) {
			stop(w, AGENT_UNWIND_BAD_FRAME);
			return;
		}
		if (ip == 0)
			return; /* a zero return address ends the chain */
		w->pcs[w->n++] = ip;
		if (w->n >= w->max) {
			stop(w, AGENT_UNWIND_DEPTH);
			return;
		}
		if (get_rule(w, ip, exact, &rule) < 0)
			return;
		ret = lu.apply_reg_state(&c, rule.rs);
		if (ret == 0)
			return; /* return address undefined in the CFI: the outermost frame */
		if (ret < 0) {
			stop(w, AGENT_UNWIND_BAD_FRAME);
			return;
		}
		/* as unw_step() on x86-64: an undefined %rbp also marks the outermost frame */
		if (lu.get_save_loc(&c, UNW_X86_64_RBP, &rbp) == 0 && rbp.type == UNW_SLT_NONE)
			return;
		exact = (int)rule.signal;
	}
}

static uint64_t interrupted_pc(const void *uc)
{
	return (uint64_t)((const ucontext_t *)uc)->uc_mcontext.gregs[REG_RIP];
}

static int leaf_only(const void *uc, uint64_t *pcs, unsigned int *flags)
{
	pcs[0] = interrupted_pc(uc);
	*flags = AGENT_UNWIND_TRUNCATED | AGENT_UNWIND_LEAF_ONLY;
	count(&stats.leaf_only, 1);
	return 1;
}

static int walk_context(const void *uc, uint64_t *pcs, int max, unsigned int *flags)
{
	struct walk w = {.uc = uc, .pcs = pcs, .max = max};

	if (guard_call(walk_frames, &w) < 0) {
		leave_miss(&w);
		stop(&w, AGENT_UNWIND_FAULT);
		count(&stats.faults, 1);
	}
	if (w.n == 0) { /* nothing recorded (a fault or a zero PC at once): the leaf */
		pcs[0] = interrupted_pc(uc);
		w.n = 1;
	}
	count(&stats.walks, 1);
	count(&stats.hits, w.hits);
	count(&stats.misses, w.misses);
	count(&stats.refused, w.refused);
	count(&stats.no_room, w.no_room);
	*flags = w.flags;
	return w.n;
}

int unwind_from_signal(const void *uc, uint64_t *pcs, int max, unsigned int *flags)
{
	int n;

	if (!__atomic_load_n(&ready, __ATOMIC_ACQUIRE) || in_walk || max < 1)
		return leaf_only(uc, pcs, flags);
	in_walk = 1;
	n = walk_context(uc, pcs, max, flags);
	in_walk = 0;
	return n;
}

/* ---- fork ------------------------------------------------------------------- */

static void fork_prepare(void)
{
	__atomic_store_n(&fork_pending, 1, __ATOMIC_SEQ_CST);
	while (__atomic_load_n(&misses_inflight, __ATOMIC_SEQ_CST))
		sched_yield();
}

static void fork_parent(void)
{
	__atomic_store_n(&fork_pending, 0, __ATOMIC_SEQ_CST);
}

static void fork_child(void)
{
	__atomic_store_n(&misses_inflight, 0, __ATOMIC_SEQ_CST);
	__atomic_store_n(&fork_pending, 0, __ATOMIC_SEQ_CST);
}

/* ---- start ------------------------------------------------------------------ */

static int why_fail(char *why, size_t len, int err, const char *msg)
{
	snprintf(why, len, "%s", msg);
	return err;
}

static int load_libunwind(char *why, size_t len)
{
	void *h = dlopen(LIBUNWIND_SONAME, RTLD_NOW | RTLD_LOCAL | RTLD_NODELETE);

	if (!h)
		return why_fail(why, len, -ENOENT, "libunwind.so.8 could not be loaded.");
	*(void **)&lu.init_local2 = dlsym(h, STR(unw_init_local2));
	*(void **)&lu.get_reg = dlsym(h, STR(unw_get_reg));
	*(void **)&lu.get_save_loc = dlsym(h, STR(unw_get_save_loc));
	*(void **)&lu.apply_reg_state = dlsym(h, STR(unw_apply_reg_state));
	*(void **)&lu.reg_states_iterate = dlsym(h, STR(unw_reg_states_iterate));
	*(void **)&lu.is_signal_frame = dlsym(h, STR(unw_is_signal_frame));
	*(void **)&lu.dyn_register = dlsym(h, "_U_dyn_register");
	*(void **)&lu.search_table = dlsym(h, "_ULx86_64_dwarf_search_unwind_table");
	lu.local_as = dlsym(h, STR(unw_local_addr_space));
	if (!lu.init_local2 || !lu.get_reg || !lu.get_save_loc || !lu.apply_reg_state ||
	    !lu.reg_states_iterate || !lu.is_signal_frame || !lu.dyn_register || !lu.search_table ||
	    !lu.local_as)
		return why_fail(
			why, len, -ENOSYS,
			"libunwind.so.8 lacks a function the unwinder needs (1.6 or later).");
	return 0;
}

/* A walk of our own, outside signal context: libunwind's first-use set-up, and
 * the tables of the objects on the start-up path. */
static __attribute__((noinline)) int warm_up(void)
{
	uint64_t pcs[AGENT_UNWIND_MAX_DEPTH];
	unsigned int flags;
	ucontext_t uc;
	int n;

	if (getcontext(&uc) < 0)
		return -errno;
	n = walk_context(&uc, pcs, AGENT_UNWIND_MAX_DEPTH, &flags);
	return n >= 2 && !(flags & (AGENT_UNWIND_FAULT | AGENT_UNWIND_BAD_FRAME)) ? 0 : -EINVAL;
}

/* Not reentrant (the agent's constructor calls it once). */
int unwind_init(char *why, size_t whylen)
{
	static int registered;
	int ret;

	if (__atomic_load_n(&ready, __ATOMIC_ACQUIRE))
		return 0;
	ret = load_libunwind(why, whylen);
	if (ret < 0)
		return ret;
	ret = guard_install();
	if (ret < 0)
		return why_fail(why, whylen, ret, "the fault guard could not be installed.");
	if (!registered) {
		pthread_atfork(fork_prepare, fork_parent, fork_child);
		registered = 1;
	}
	unwind_objects_reserve(); /* entries for every object loaded, and spares */
	ret = warm_up();
	if (ret < 0) {
		guard_remove();
		return why_fail(why, whylen, ret,
				"libunwind could not unwind the agent's own stack.");
	}
	__atomic_store_n(&ready, 1, __ATOMIC_RELEASE);
	return 0;
}

int unwind_ready(void)
{
	return __atomic_load_n(&ready, __ATOMIC_ACQUIRE);
}

uint64_t unwind_objects_seen(void)
{
	return __atomic_load_n(&stats.activations, __ATOMIC_RELAXED);
}

void unwind_get_stats(struct unwind_stats *st)
{
	st->walks = __atomic_load_n(&stats.walks, __ATOMIC_RELAXED);
	st->hits = __atomic_load_n(&stats.hits, __ATOMIC_RELAXED);
	st->misses = __atomic_load_n(&stats.misses, __ATOMIC_RELAXED);
	st->activations = __atomic_load_n(&stats.activations, __ATOMIC_RELAXED);
	st->retired = __atomic_load_n(&stats.retired, __ATOMIC_RELAXED);
	st->leaf_only = __atomic_load_n(&stats.leaf_only, __ATOMIC_RELAXED);
	st->faults = __atomic_load_n(&stats.faults, __ATOMIC_RELAXED);
	st->refused = __atomic_load_n(&stats.refused, __ATOMIC_RELAXED);
	st->no_room = __atomic_load_n(&stats.no_room, __ATOMIC_RELAXED);
	st->objects = object_count();
}

int unwind_walk_image(const struct unwind_image *im, const void *uc, uint64_t *pcs, int max,
		      unsigned int *flags)
{
	struct eh_table t;
	struct object *o;
	int n;

	if (!__atomic_load_n(&ready, __ATOMIC_ACQUIRE) || max < 1 || im->hi - im->hdr < 12 ||
	    eh_table_parse((const unsigned char *)im->hdr, &t) < 0)
		return -EINVAL;
	o = claim_object();
	if (!o)
		return -ENOSPC;
	o->link_map = NULL;
	publish_object(o, (const void *)im->hdr, &t, im->lo, im->hi, im->code_lo, im->code_hi);
	n = walk_context(uc, pcs, max, flags);
	retire_object(o);
	return n;
}
