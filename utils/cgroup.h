/* SPDX-License-Identifier: MIT */
/*
 * Which cgroup (v2) a process is in, and the container or service that
 * path shows: the one place the recorder, `watch` and the readers learn it.
 *
 * The path is the "0::" line of /proc/PID/cgroup (the unified hierarchy),
 * as seen from the reader's cgroup namespace.  The owner is read from the
 * path's components, innermost first, by the names the engines and systemd
 * give them (no engine is asked):
 *
 *   docker      /docker/ID, /system.slice/docker-ID.scope
 *   podman      /machine.slice/libpod-ID.scope[/container], .../user@UID.service/.../libpod-ID.scope,
 *               /libpod_parent/libpod-ID
 *   containerd  /system.slice/cri-containerd-ID.scope, /NAMESPACE/ID (nerdctl: nerdctl-ID.scope)
 *   cri-o       crio-ID.scope
 *   kubernetes  /kubepods[.slice]/.../pod<UID>[.slice]/[cri-containerd-|crio-|docker-]ID[.scope]:
 *               the container's engine and ID, with the pod's UID
 *   lxc         /lxc.payload.NAME, /lxc/NAME
 *   systemd     the innermost NAME.service or NAME.scope otherwise (a service, a session)
 *
 * ID is 64 hex digits.  Pure parsing except cgroup__of_pid.
 */
#ifndef PROFIL_UTILS_CGROUP_H
#define PROFIL_UTILS_CGROUP_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#define CGROUP_PATH_MAX 512 /* longer paths are cut (and still end in their container) */

/* What a cgroup path shows. */
struct cgroup_owner {
	const char
		*kind; /* "docker", "podman", "containerd", "cri-o", "lxc", "systemd", NULL: none */
	char id[72];   /* the container's full id, the lxc name or the systemd unit */
	char pod[40];  /* kubernetes: the pod's UID, "" otherwise */
};

/*
 * The cgroup v2 path of process pid ("/" at the root) into buf.  Returns its
 * length, -ENOENT when the process has no unified-hierarchy line (a
 * v1-only system), or -errno when /proc/PID/cgroup cannot be read (the
 * process is gone).  A path longer than len - 1 bytes keeps its end.
 */
int cgroup__of_pid(pid_t pid, char *buf, size_t len);

/* The same from the text of a /proc/PID/cgroup file (for tests and fuzzing). */
int cgroup__parse_proc(const char *text, size_t n, char *buf, size_t len);

/*
 * The id the kernel gives the cgroup at path: the inode of its directory in
 * the cgroup v2 mount (what BPF's bpf_get_current_cgroup_id() returns, and
 * Tracee's cgroupId).  0 when unknown.
 */
uint64_t cgroup__id(const char *path);

/*
 * Where pid runs, for an event (watch, record --events): its cgroup id and
 * its container's full id ("" when the path shows none).  Returns 0, or
 * -errno when /proc/PID/cgroup cannot be read.
 */
int cgroup__event_ctx(pid_t pid, uint64_t *id, char *container, size_t len);

/* The owner of a cgroup path: 1 when it shows one (*out filled), else 0 (*out->kind NULL). */
int cgroup__owner(const char *path, struct cgroup_owner *out);

/*
 * A short label for the path's owner, "docker:0123456789ab" (a container:
 * its engine and the first 12 digits of its id, as `docker ps` shows it),
 * "systemd:nginx.service", "" when none.  Returns the label's length.
 */
int cgroup__label(const char *path, char *buf, size_t len);

/*
 * A cgroup v2 directory made for one run of a command (record samples the
 * command's tree by per-CPU perf events filtered by it, as perf record -G):
 * PREFIX-PID (PID: the caller's) under the caller's own cgroup, else under
 * the mount's root.  Processes put in it stay under the same controllers'
 * limits (it enables none itself); their children are born in it.
 */
struct cgroup_run {
	int fd;				/* the directory, open read-only: perf's cgroup fd */
	char dir[CGROUP_PATH_MAX + 64]; /* its path in the mount ("/.../PREFIX-PID") */
	char mnt[256];			/* the cgroup v2 mount */
	/* the cgroup it was made in: where what outlives the run goes back */
	char parent[CGROUP_PATH_MAX + 64];
};

/*
 * Make the directory.  Directories PREFIX-N beside it
 * whose process N is gone and that hold no process (left by a caller that
 * was killed) are removed first.  Returns 0, or -errno and one sentence in
 * why (no cgroup v2 mount, not writable, ...).
 */
int cgroup__run_make(struct cgroup_run *c, const char *prefix, char *why, size_t whylen);

/* Put process pid (all its threads) in it: 0 or -errno. */
int cgroup__run_enter(const struct cgroup_run *c, pid_t pid);

/*
 * Move every process still in it back to the cgroup it was made in (a
 * process of the tree that outlived the run keeps running, where it would
 * have been) and remove it; close the fd.  Returns the processes moved, or
 * -errno when the directory stays (it is then removed by the next run's
 * cgroup__run_make).  Nothing on a run never made (zeroed, or make failed).
 */
int cgroup__run_remove(struct cgroup_run *c);

#endif /* PROFIL_UTILS_CGROUP_H */
