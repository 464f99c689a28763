// SPDX-License-Identifier: MIT
/*
 * Report profil()/sprofil() calls to `profil record --events` (see
 * callmsg.h).  Nothing happens unless PROFIL_EVENTS_FD names an AF_UNIX
 * datagram socket; a send never blocks, never raises SIGPIPE, and keeps errno.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "callmsg.h"
#include "callreport.h"
#include "env.h"

static int report_fd = -1;

void callreport_init(void)
{
	const char *v = secure_getenv(PROFIL_ENV_EVENTS_FD);
	struct stat st;
	char *end;
	long fd;
	int type;
	socklen_t len = sizeof(type);

	if (!v || !*v)
		return;
	errno = 0;
	fd = strtol(v, &end, 10);
	if (errno || *end || fd < 0 || fd > 1 << 20)
		return;
	/* only a datagram socket: a stale variable must not make us write into some other file */
	if (fstat((int)fd, &st) < 0 || !S_ISSOCK(st.st_mode) ||
	    getsockopt((int)fd, SOL_SOCKET, SO_TYPE, &type, &len) < 0 || type != SOCK_DGRAM)
		return;
	report_fd = (int)fd;
}

static void send_msg(struct profil_callmsg *m)
{
	struct timespec ts;
	int saved = errno;

	m->magic = PROFIL_CALLMSG_MAGIC;
	m->pid = (int32_t)getpid();
	m->tid = (int32_t)gettid();
	clock_gettime(CLOCK_REALTIME, &ts);
	m->time_ns = (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
	if (send(report_fd, m, sizeof(*m), MSG_DONTWAIT | MSG_NOSIGNAL) < 0 && errno == EBADF)
		report_fd = -1; /* the program closed it */
	errno = saved;
}

/* The fields every call message has. */
static void begin_msg(struct profil_callmsg *m, uint32_t kind, uintptr_t pc, int ret, int clock)
{
	memset(m, 0, sizeof(*m));
	m->kind = kind;
	m->pc = pc;
	m->ret = ret;
	m->clock = clock;
}

void callreport_profil(const void *buf, size_t bufsiz, size_t offset, unsigned int scale,
		       uintptr_t pc, int ret, int clock)
{
	struct profil_callmsg m;

	if (report_fd < 0)
		return;
	begin_msg(&m, PROFIL_CALL_PROFIL, pc, ret, clock);
	m.buf = (uintptr_t)buf;
	m.bufsiz = bufsiz;
	m.offset = offset;
	m.scale = scale;
	send_msg(&m);
}

void callreport_sprofil(const struct prof *profp, int profcnt, const struct timeval *tvp,
			unsigned int flags, uintptr_t pc, int ret, int clock)
{
	struct profil_callmsg m;

	if (report_fd < 0)
		return;
	begin_msg(&m, PROFIL_CALL_SPROFIL, pc, ret, clock);
	m.flags = flags;
	m.profcnt = profcnt;
	m.profp = (uintptr_t)profp;
	m.tvp = (uintptr_t)tvp;
	/* the regions were read (and checked) by sprofil itself when it returned 0 */
	for (int i = 0; ret == 0 && profp && i < profcnt && i < PROFIL_CALLMSG_REGIONS; i++) {
		m.regions[i].base = (uintptr_t)profp[i].pr_base;
		m.regions[i].size = profp[i].pr_size;
		m.regions[i].off = profp[i].pr_off;
		m.regions[i].scale = profp[i].pr_scale;
		m.nregions++;
	}
	send_msg(&m);
}
