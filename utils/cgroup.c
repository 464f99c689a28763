// SPDX-License-Identifier: MIT
/* Cgroup paths and the containers and services they show.  See cgroup.h. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/magic.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <unistd.h>

#include "utils/cgroup.h"

#define ID_DIGITS 64

int cgroup__parse_proc(const char *text, size_t n, char *buf, size_t len)
{
	size_t at = 0;

	if (!len)
		return -EINVAL;
	while (at < n) {
		const char *line = text + at;
		const char *nl = memchr(line, '\n', n - at);
		size_t ll = nl ? (size_t)(nl - line) : n - at, plen, keep;

		at += ll + 1;
		/* the unified hierarchy: "0::PATH" */
		if (ll < 3 || memcmp(line, "0::", 3))
			continue;
		plen = ll - 3;
		/* too long: keep the end, where the container is */
		keep = plen < len - 1 ? plen : len - 1;
		memcpy(buf, line + 3 + (plen - keep), keep);
		buf[keep] = 0;
		return (int)keep;
	}
	buf[0] = 0;
	return -ENOENT;
}

int cgroup__of_pid(pid_t pid, char *buf, size_t len)
{
	char path[64], text[4096];
	ssize_t n;
	int fd;

	if (len)
		buf[0] = 0;
	snprintf(path, sizeof(path), "/proc/%d/cgroup", (int)pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	n = read(fd, text, sizeof(text));
	if (n < 0) {
		int err = -errno;

		close(fd);
		return err;
	}
	close(fd);
	return cgroup__parse_proc(text, (size_t)n, buf, len);
}

/* The cgroup v2 mount point (from /proc/self/mounts) into buf: 0, or -ENOENT. */
static int cgroup2_mount(char *buf, size_t len)
{
	char line[1024], dev[256], dir[512], type[64];
	FILE *f = fopen("/proc/self/mounts", "re");
	int rc = -ENOENT;

	if (!f)
		return -errno;
	while (rc && fgets(line, sizeof(line), f))
		if (sscanf(line, "%255s %511s %63s", dev, dir, type) == 3 &&
		    !strcmp(type, "cgroup2"))
			rc = snprintf(buf, len, "%s", dir) < (int)len ? 0 : -ENAMETOOLONG;
	fclose(f);
	return rc;
}

uint64_t cgroup__id(const char *path)
{
	char mnt[512], full[CGROUP_PATH_MAX + 520];
	struct stat st;

	if (!path || path[0] != '/' || cgroup2_mount(mnt, sizeof(mnt)) < 0)
		return 0;
	snprintf(full, sizeof(full), "%s%s", mnt, path);
	return stat(full, &st) == 0 ? (uint64_t)st.st_ino : 0;
}

int cgroup__event_ctx(pid_t pid, uint64_t *id, char *container, size_t len)
{
	char path[CGROUP_PATH_MAX];
	struct cgroup_owner o;
	int rc = cgroup__of_pid(pid, path, sizeof(path));

	*id = 0;
	if (len)
		container[0] = 0;
	if (rc < 0)
		return rc;
	*id = cgroup__id(path);
	if (cgroup__owner(path, &o) && strcmp(o.kind, "systemd") && len)
		snprintf(container, len, "%s", o.id);
	return 0;
}

static int is_hex_id(const char *s, size_t n)
{
	if (n != ID_DIGITS)
		return 0;
	for (size_t i = 0; i < n; i++)
		if (!((s[i] >= '0' && s[i] <= '9') || (s[i] >= 'a' && s[i] <= 'f')))
			return 0;
	return 1;
}

static int has_suffix(const char *s, size_t n, const char *suffix)
{
	size_t k = strlen(suffix);

	return n >= k && !memcmp(s + n - k, suffix, k);
}

static void set_id(struct cgroup_owner *o, const char *kind, const char *id, size_t n)
{
	o->kind = kind;
	if (n >= sizeof(o->id))
		n = sizeof(o->id) - 1;
	memcpy(o->id, id, n);
	o->id[n] = 0;
}

/* The engines' unit names: PREFIX-ID.scope (or PREFIX-ID: podman's cgroupfs parent). */
static const struct {
	const char *prefix;
	const char *kind;
} engines[] = {
	{"docker-", "docker"}, {"libpod-", "podman"},	   {"cri-containerd-", "containerd"},
	{"crio-", "cri-o"},    {"nerdctl-", "containerd"},
};

/* A component PREFIX-ID[.scope] of a known engine: 1 and o filled. */
static int engine_unit(const char *c, size_t n, struct cgroup_owner *o)
{
	if (has_suffix(c, n, ".scope"))
		n -= 6;
	for (size_t e = 0; e < sizeof(engines) / sizeof(engines[0]); e++) {
		size_t k = strlen(engines[e].prefix);

		if (n > k && !memcmp(c, engines[e].prefix, k) && is_hex_id(c + k, n - k)) {
			set_id(o, engines[e].kind, c + k, n - k);
			return 1;
		}
	}
	return 0;
}

/* A bare ID component: its engine from the component before it. */
static const char *bare_id_kind(const char *prev, size_t pn, int kube)
{
	if (pn == 6 && !memcmp(prev, "docker", 6))
		return "docker";
	if (pn == 13 && !memcmp(prev, "libpod_parent", 13))
		return "podman";
	if (kube)
		return "containerd";
	return pn ? "containerd" : NULL; /* containerd's cgroupfs layout: /NAMESPACE/ID */
}

/* kubernetes: "pod<UID>" or "kubepods-<qos>-pod<UID>.slice" (UID's dashes as underscores). */
static void kube_pod(const char *c, size_t n, struct cgroup_owner *o)
{
	const char *p = NULL;

	for (size_t i = 0; i + 3 < n; i++)
		if (!memcmp(c + i, "pod", 3) && (i == 0 || c[i - 1] == '-'))
			p = c + i + 3;
	if (!p)
		return;
	n -= (size_t)(p - c);
	if (has_suffix(p, n, ".slice"))
		n -= 6;
	if (n >= sizeof(o->pod))
		n = sizeof(o->pod) - 1;
	memcpy(o->pod, p, n);
	o->pod[n] = 0;
	for (char *s = o->pod; *s; s++)
		if (*s == '_')
			*s = '-';
}

/* Components of path, innermost first: where each starts and its length. */
struct comp {
	const char *s;
	size_t n;
};

static size_t split(const char *path, struct comp *c, size_t max)
{
	size_t k = 0;

	for (const char *p = path; *p && k < max;) {
		const char *slash;

		while (*p == '/')
			p++;
		if (!*p)
			break;
		slash = strchrnul(p, '/');
		c[k++] = (struct comp){p, (size_t)(slash - p)};
		p = slash;
	}
	return k;
}

static int find_container(const struct comp *c, size_t k, int kube, struct cgroup_owner *o)
{
	for (size_t i = k; i-- > 0;) {
		const char *kind;

		if (engine_unit(c[i].s, c[i].n, o))
			return 1;
		if (!is_hex_id(c[i].s, c[i].n))
			continue;
		kind = bare_id_kind(i ? c[i - 1].s : "", i ? c[i - 1].n : 0, kube);
		if (kind) {
			set_id(o, kind, c[i].s, c[i].n);
			return 1;
		}
	}
	return 0;
}

static int find_lxc_or_unit(const struct comp *c, size_t k, struct cgroup_owner *o)
{
	for (size_t i = k; i-- > 0;) {
		if (c[i].n > 12 && !memcmp(c[i].s, "lxc.payload.", 12)) {
			set_id(o, "lxc", c[i].s + 12, c[i].n - 12);
			return 1;
		}
		if (i && c[i - 1].n == 3 && !memcmp(c[i - 1].s, "lxc", 3)) {
			set_id(o, "lxc", c[i].s, c[i].n);
			return 1;
		}
	}
	for (size_t i = k; i-- > 0;) {
		if (has_suffix(c[i].s, c[i].n, ".service") ||
		    has_suffix(c[i].s, c[i].n, ".scope")) {
			set_id(o, "systemd", c[i].s, c[i].n);
			return 1;
		}
	}
	return 0;
}

int cgroup__owner(const char *path, struct cgroup_owner *out)
{
	struct comp c[64];
	size_t k = split(path, c, sizeof(c) / sizeof(c[0]));
	int kube = 0;

	memset(out, 0, sizeof(*out));
	for (size_t i = 0; i < k; i++) {
		if (c[i].n >= 8 && !memcmp(c[i].s, "kubepods", 8))
			kube = 1;
		if (kube)
			kube_pod(c[i].s, c[i].n, out);
	}
	if (find_container(c, k, kube, out))
		return 1;
	out->pod[0] = 0;
	return find_lxc_or_unit(c, k, out);
}

int cgroup__label(const char *path, char *buf, size_t len)
{
	struct cgroup_owner o;
	int n;

	if (!len)
		return 0;
	buf[0] = 0;
	if (!cgroup__owner(path, &o))
		return 0;
	if (strcmp(o.kind, "systemd") && strcmp(o.kind, "lxc") && strlen(o.id) == ID_DIGITS)
		n = snprintf(buf, len, "%s:%.12s", o.kind, o.id);
	else
		n = snprintf(buf, len, "%s:%s", o.kind, o.id);
	return n < 0 ? 0 : (n >= (int)len ? (int)len - 1 : n);
}

/* ---- a cgroup made for a run ------------------------------------------------------ */

/* A path in the mount: the mount, a cgroup's path, a file's name. */
#define RUN_PATH_MAX                                                                               \
	(sizeof(((struct cgroup_run *)0)->mnt) + sizeof(((struct cgroup_run *)0)->dir) + 32)

/* Write the decimal pid into dir/cgroup.procs (under mnt): 0 or -errno. */
static int write_procs(const char *mnt, const char *dir, pid_t pid)
{
	char path[RUN_PATH_MAX], num[24];
	int fd, n, rc = 0;

	snprintf(path, sizeof(path), "%s%s/cgroup.procs", mnt, strcmp(dir, "/") ? dir : "");
	fd = open(path, O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	n = snprintf(num, sizeof(num), "%d", (int)pid);
	if (write(fd, num, (size_t)n) != n)
		rc = -errno;
	close(fd);
	return rc;
}

/*
 * The processes in dir back to parent, a bounded number of rounds (one
 * may fork meanwhile).  Returns the processes moved.
 */
static int move_back(const struct cgroup_run *c)
{
	char path[RUN_PATH_MAX];
	int moved = 0;

	snprintf(path, sizeof(path), "%s%s/cgroup.procs", c->mnt, c->dir);
	for (int round = 0; round < 8; round++) {
		FILE *f = fopen(path, "re");
		int pid, here = 0;

		if (!f)
			break;
		for (int i = 0; i < 4096 && fscanf(f, "%d", &pid) == 1; i++) {
			here++;
			if (write_procs(c->mnt, c->parent, pid) == 0)
				moved++;
		}
		fclose(f);
		if (!here)
			break;
	}
	return moved;
}

/* dir/NAME is PREFIX-N with process N gone and no process in it: remove it. */
static void sweep_one(const char *base, const char *name, const char *prefix)
{
	size_t k = strlen(prefix);
	char path[RUN_PATH_MAX + 256], *end;
	long n;

	if (strncmp(name, prefix, k) || name[k] != '-')
		return;
	n = strtol(name + k + 1, &end, 10);
	if (*end || n <= 0 || n == (long)getpid() || kill((pid_t)n, 0) == 0 || errno != ESRCH)
		return;
	snprintf(path, sizeof(path), "%s/%s", base, name);
	rmdir(path); /* EBUSY: processes live in it still, theirs */
}

static void sweep_stale(const char *base, const char *prefix)
{
	DIR *d = opendir(base);
	struct dirent *e;
	int seen = 0;

	if (!d)
		return;
	while ((e = readdir(d)) && seen++ < 100000)
		if (e->d_type == DT_DIR)
			sweep_one(base, e->d_name, prefix);
	closedir(d);
}

/* Make mnt+parent/PREFIX-PID: 0 or -errno. */
static int make_in(struct cgroup_run *c, const char *parent, const char *prefix)
{
	char base[RUN_PATH_MAX], path[RUN_PATH_MAX];

	snprintf(c->parent, sizeof(c->parent), "%s", parent);
	snprintf(base, sizeof(base), "%s%s", c->mnt, strcmp(parent, "/") ? parent : "");
	sweep_stale(base, prefix);
	snprintf(c->dir, sizeof(c->dir), "%s/%s-%d", strcmp(parent, "/") ? parent : "", prefix,
		 (int)getpid());
	snprintf(path, sizeof(path), "%s%s", c->mnt, c->dir);
	if (mkdir(path, 0755) < 0 &&
	    (errno != EEXIST || rmdir(path) < 0 || mkdir(path, 0755) < 0)) {
		c->dir[0] = 0;
		return -errno;
	}
	c->fd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (c->fd < 0) {
		int err = -errno;

		rmdir(path);
		c->dir[0] = 0;
		return err;
	}
	return 0;
}

int cgroup__run_make(struct cgroup_run *c, const char *prefix, char *why, size_t whylen)
{
	char own[CGROUP_PATH_MAX];
	struct statfs sf;
	int rc;

	memset(c, 0, sizeof(*c));
	c->fd = -1;
	rc = cgroup2_mount(c->mnt, sizeof(c->mnt));
	if (rc < 0 || statfs(c->mnt, &sf) < 0 || sf.f_type != CGROUP2_SUPER_MAGIC) {
		snprintf(why, whylen, "no cgroup v2 mount");
		return rc < 0 ? rc : -ENOENT;
	}
	rc = cgroup__of_pid(getpid(), own, sizeof(own));
	if (rc < 0 || strlen(own) >= sizeof(own) - 1) {
		snprintf(why, whylen, "the recorder's cgroup is unknown");
		return rc < 0 ? rc : -ENAMETOOLONG;
	}
	rc = make_in(c, own, prefix);
	if (rc < 0 && strcmp(own, "/"))
		rc = make_in(c, "/", prefix);
	if (rc < 0)
		snprintf(why, whylen, "cannot make a cgroup in %s%s: %s", c->mnt,
			 strcmp(own, "/") ? own : "", strerror(-rc));
	return rc;
}

int cgroup__run_enter(const struct cgroup_run *c, pid_t pid)
{
	return c->dir[0] ? write_procs(c->mnt, c->dir, pid) : -EINVAL;
}

int cgroup__run_remove(struct cgroup_run *c)
{
	char path[RUN_PATH_MAX];
	int moved, rc = 0;

	if (!c->dir[0])
		return 0;
	if (c->fd >= 0)
		close(c->fd);
	c->fd = -1;
	moved = move_back(c);
	snprintf(path, sizeof(path), "%s%s", c->mnt, c->dir);
	/* a process that was exiting leaves the list a moment after it ended */
	for (int i = 0; rmdir(path) < 0 && errno == EBUSY && i < 20; i++) {
		usleep(5000);
		moved += move_back(c);
	}
	if (access(path, F_OK) == 0)
		rc = -EBUSY;
	c->dir[0] = 0;
	return rc < 0 ? rc : moved;
}
