// SPDX-License-Identifier: MIT
/*
 * A/B samplers with nothing to link: glibc's profil() (ITIMER_PROF, 100 Hz
 * whatever the rate asked) and perf record driven through its control fifo.
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ab_modes.h"

static unsigned short *bins;
static unsigned short *volatile profil_off;
static size_t nbins;

static int glibc_init(void)
{
	nbins = text.size / 2 + 1;
	bins = calloc(nbins, sizeof(*bins));
	return bins ? 0 : -1;
}

static int glibc_start(unsigned int hz)
{
	(void)hz;
	memset(bins, 0, nbins * sizeof(*bins));
	return profil(bins, nbins * sizeof(*bins), text.start, 65536);
}

static uint64_t glibc_stop(void)
{
	uint64_t n = 0;

	/* glibc declares buf nonnull, yet NULL is how profil() is turned off */
	profil(profil_off, 0, 0, 0);
	for (size_t i = 0; i < nbins; i++)
		n += bins[i];
	return n;
}

static int ctl_fd = -1, ack_fd = -1;

static int perf_init(void)
{
	const char *ctl = getenv("BENCH_PERF_CTL"), *ack = getenv("BENCH_PERF_ACK");

	if (!ctl || !ack)
		return -1;
	ctl_fd = open(ctl, O_WRONLY);
	ack_fd = open(ack, O_RDONLY);
	return ctl_fd < 0 || ack_fd < 0 ? -1 : 0;
}

/* Send one command and wait for perf's "ack\n". */
static int perf_command(const char *cmd)
{
	char buf[16];
	ssize_t n;

	if (write(ctl_fd, cmd, strlen(cmd)) != (ssize_t)strlen(cmd))
		return -1;
	n = read(ack_fd, buf, sizeof(buf));
	return n > 0 ? 0 : -1;
}

static int perf_start(unsigned int hz)
{
	(void)hz; /* the rate is perf record's -F */
	return perf_command("enable\n");
}

static uint64_t perf_stop(void)
{
	if (perf_command("disable\n") < 0) {
		fprintf(stderr, "ab: perf control fifo failed\n");
		exit(1);
	}
	return 0; /* counted by perf report afterwards */
}

const struct ab_mode ab_modes[] = {
	{ "glibc", glibc_init, glibc_start, glibc_stop, NULL, NULL },
	{ "perf", perf_init, perf_start, perf_stop, NULL, NULL },
	{ NULL, NULL, NULL, NULL, NULL, NULL },
};
