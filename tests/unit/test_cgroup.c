// SPDX-License-Identifier: MIT
/* utils/cgroup: the cgroup v2 path of a process, and the container or service a path shows. */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "check.h"
#include "utils/cgroup.h"

#define ID "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"
#define POD "1b2c3d4e-aaaa-bbbb-cccc-0123456789ab"
#define POD_ "1b2c3d4e_aaaa_bbbb_cccc_0123456789ab"

struct owner_case {
	const char *path, *kind, *id, *pod, *label;
};

static const struct owner_case cases[] = {
	{"/docker/" ID, "docker", ID, "", "docker:0123456789ab"},
	{"/system.slice/docker-" ID ".scope", "docker", ID, "", "docker:0123456789ab"},
	{"/machine.slice/libpod-" ID ".scope", "podman", ID, "", "podman:0123456789ab"},
	{"/machine.slice/libpod-" ID ".scope/container", "podman", ID, "", "podman:0123456789ab"},
	{"/user.slice/user-1000.slice/user@1000.service/user.slice/libpod-" ID ".scope", "podman",
	 ID, "", "podman:0123456789ab"},
	{"/libpod_parent/libpod-" ID, "podman", ID, "", "podman:0123456789ab"},
	{"/kubepods.slice/kubepods-burstable.slice/kubepods-burstable-pod" POD_
	 ".slice/cri-containerd-" ID ".scope",
	 "containerd", ID, POD, "containerd:0123456789ab"},
	{"/kubepods/besteffort/pod" POD "/" ID, "containerd", ID, POD, "containerd:0123456789ab"},
	{"/kubepods.slice/kubepods-pod" POD_ ".slice/crio-" ID ".scope", "cri-o", ID, POD,
	 "cri-o:0123456789ab"},
	{"/default/" ID, "containerd", ID, "", "containerd:0123456789ab"},
	{"/system.slice/nerdctl-" ID ".scope", "containerd", ID, "", "containerd:0123456789ab"},
	{"/lxc.payload.web1", "lxc", "web1", "", "lxc:web1"},
	{"/lxc/web2/init.scope", "lxc", "web2", "", "lxc:web2"},
	{"/system.slice/nginx.service", "systemd", "nginx.service", "", "systemd:nginx.service"},
	{"/user.slice/user-1000.slice/session-3.scope", "systemd", "session-3.scope", "",
	 "systemd:session-3.scope"},
	{"/system.slice/docker-" ID ".scope/sub", "docker", ID, "", "docker:0123456789ab"},
	{"/", NULL, "", "", ""},
	{"/profil-test/work", NULL, "", "", ""},
	{"/" ID, NULL, "", "", ""}, /* a bare id at the root: no engine */
	{"/system.slice/docker-0123.scope", "systemd", "docker-0123.scope", "", /* not an id */
	 "systemd:docker-0123.scope"},
	{"", NULL, "", "", ""},
	{"////", NULL, "", "", ""},
};

static void owners(void)
{
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		const struct owner_case *c = &cases[i];
		struct cgroup_owner o;
		char label[96], name[64];
		int found = cgroup__owner(c->path, &o);

		snprintf(name, sizeof(name), "owner_%zu", i);
		CHECKF(name,
		       found == (c->kind != NULL) &&
			       (!c->kind || (!strcmp(o.kind, c->kind) && !strcmp(o.id, c->id))) &&
			       !strcmp(o.pod, c->pod),
		       "%s: found %d kind %s id %s pod %s", c->path, found,
		       o.kind ? o.kind : "(none)", o.id, o.pod);
		cgroup__label(c->path, label, sizeof(label));
		snprintf(name, sizeof(name), "label_%zu", i);
		CHECKF(name, !strcmp(label, c->label), "%s: label '%s', want '%s'", c->path, label,
		       c->label);
	}
}

static void proc_text(void)
{
	static const char hybrid[] = "9:name=systemd:/\n4:memory:/x/y\n1:cpu:/\n0::/a/b.scope\n";
	static const char v1only[] = "4:memory:/x\n1:cpu:/\n";
	char buf[8];
	char big[CGROUP_PATH_MAX];

	CHECK("proc_hybrid", cgroup__parse_proc(hybrid, strlen(hybrid), big, sizeof(big)) == 10 &&
				     !strcmp(big, "/a/b.scope"));
	CHECK("proc_v1_only",
	      cgroup__parse_proc(v1only, strlen(v1only), big, sizeof(big)) == -ENOENT && !big[0]);
	/* cut: the end is kept, where the container is */
	CHECK("proc_cut_keeps_end",
	      cgroup__parse_proc(hybrid, strlen(hybrid), buf, sizeof(buf)) == 7 &&
		      !strcmp(buf, "b.scope"));
	CHECK("proc_no_newline",
	      cgroup__parse_proc("0::/z", 5, big, sizeof(big)) == 2 && !strcmp(big, "/z"));
	CHECK("of_pid_self", cgroup__of_pid(getpid(), big, sizeof(big)) >= 1 && big[0] == '/');
	CHECK("of_pid_gone", cgroup__of_pid(0x3ffffff0, big, sizeof(big)) < 0 && !big[0]);
}

int main(void)
{
	owners();
	proc_text();
	return CHECK_DONE();
}
