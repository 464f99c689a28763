// SPDX-License-Identifier: MIT
/* The terminal of `profil top`.  See screen.h. */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/ioctl.h>
#include <sys/signalfd.h>
#include <termios.h>
#include <unistd.h>

#include "live/screen.h"

#define ENTER "\033[?1049h\033[?25l" /* the alternate screen, no cursor */
#define LEAVE "\033[?25h\033[?1049l" /* the cursor, the main screen */

struct screen {
	struct termios saved;
	sigset_t oldmask;
	int sfd, ep;
	int raw; /* the terminal is ours now */
	int rows, cols;
	char *frame; /* the last frame's bytes, for one write */
	size_t cap;
};

/* Write all of buf (a terminal may take it in pieces). */
static void put(const char *buf, size_t n)
{
	while (n) {
		ssize_t w = write(STDOUT_FILENO, buf, n);

		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return;
		buf += w;
		n -= (size_t)w;
	}
}

static void read_size(struct screen *s)
{
	struct winsize ws;

	s->rows = 24;
	s->cols = 80;
	if (ioctl(STDOUT_FILENO, TIOCGWINSZ, &ws) == 0) {
		if (ws.ws_row)
			s->rows = ws.ws_row;
		if (ws.ws_col)
			s->cols = ws.ws_col;
	}
}

/* Keys as typed, not echoed; signals from the keyboard kept (Ctrl-C, Ctrl-Z). */
static int take_terminal(struct screen *s)
{
	struct termios t = s->saved;

	t.c_lflag &= ~(tcflag_t)(ICANON | ECHO);
	t.c_cc[VMIN] = 0;
	t.c_cc[VTIME] = 0;
	if (tcsetattr(STDIN_FILENO, TCSADRAIN, &t) < 0)
		return -errno;
	put(ENTER, sizeof(ENTER) - 1);
	s->raw = 1;
	read_size(s);
	return 0;
}

static void give_terminal(struct screen *s)
{
	if (!s->raw)
		return;
	put(LEAVE, sizeof(LEAVE) - 1);
	tcsetattr(STDIN_FILENO, TCSADRAIN, &s->saved);
	s->raw = 0;
}

static int watch(int ep, int fd)
{
	struct epoll_event ev = {.events = EPOLLIN, .data.fd = fd};

	return epoll_ctl(ep, EPOLL_CTL_ADD, fd, &ev) < 0 ? -errno : 0;
}

int screen__open(struct screen **out)
{
	struct screen *s;
	sigset_t set;
	int rc;

	if (!isatty(STDIN_FILENO) || !isatty(STDOUT_FILENO))
		return -ENOTTY;
	s = calloc(1, sizeof(*s));
	if (!s)
		return -ENOMEM;
	s->sfd = s->ep = -1;
	sigemptyset(&set);
	sigaddset(&set, SIGWINCH);
	sigaddset(&set, SIGTSTP);
	sigaddset(&set, SIGCONT);
	if (tcgetattr(STDIN_FILENO, &s->saved) < 0 ||
	    sigprocmask(SIG_BLOCK, &set, &s->oldmask) < 0) {
		rc = -errno;
		free(s);
		return rc;
	}
	s->sfd = signalfd(-1, &set, SFD_CLOEXEC | SFD_NONBLOCK);
	s->ep = epoll_create1(EPOLL_CLOEXEC);
	rc = s->sfd < 0 || s->ep < 0 ? -errno : 0;
	if (!rc)
		rc = watch(s->ep, s->sfd);
	if (!rc)
		rc = watch(s->ep, STDIN_FILENO);
	if (!rc)
		rc = take_terminal(s);
	if (rc) {
		screen__close(s);
		return rc;
	}
	*out = s;
	return 0;
}

int screen__fd(const struct screen *s)
{
	return s->ep;
}

/* Ctrl-Z: the terminal back to the shell, stopped; taken again once continued. */
static void suspend(struct screen *s, struct screen_events *ev)
{
	give_terminal(s);
	raise(SIGSTOP);
	/* continued (fg): the terminal may have changed meanwhile */
	tcgetattr(STDIN_FILENO, &s->saved);
	take_terminal(s);
	ev->resumed = 1;
}

void screen__events(struct screen *s, struct screen_events *ev)
{
	struct signalfd_siginfo si;
	ssize_t n;

	/* the epoll set is level-triggered: reading what waits is all it takes */
	memset(ev, 0, sizeof(*ev));
	while (read(s->sfd, &si, sizeof(si)) == (ssize_t)sizeof(si)) {
		if (si.ssi_signo == SIGWINCH) {
			read_size(s);
			ev->resized = 1;
		} else if (si.ssi_signo == SIGTSTP) {
			suspend(s, ev);
		} else if (si.ssi_signo == SIGCONT) {
			ev->resumed = 1;
		}
	}
	n = read(STDIN_FILENO, ev->keys, sizeof(ev->keys));
	ev->nkeys = n > 0 ? (size_t)n : 0;
}

void screen__size(const struct screen *s, int *rows, int *cols)
{
	*rows = s->rows > 0 ? s->rows : 1;
	*cols = s->cols > 0 ? s->cols : 1;
}

static int reserve(struct screen *s, size_t need)
{
	char *n;

	if (need <= s->cap)
		return 0;
	n = realloc(s->frame, need);
	if (!n)
		return -ENOMEM;
	s->frame = n;
	s->cap = need;
	return 0;
}

void screen__draw(struct screen *s, const char *const *lines, size_t n)
{
	size_t at = 0, rows = (size_t)(s->rows > 0 ? s->rows : 1);
	size_t cols = (size_t)(s->cols > 0 ? s->cols : 1);

	if (n > rows)
		n = rows;
	if (reserve(s, 16 + n * (cols + 8)) < 0)
		return;
	at += (size_t)sprintf(s->frame, "\033[H");
	for (size_t i = 0; i < n; i++) {
		size_t k = 0;

		for (const char *c = lines[i]; *c && k < cols; c++, k++)
			s->frame[at++] = (*c >= 0x20 && *c < 0x7f) ? *c : '?';
		/* the last row: no newline, or the screen scrolls */
		at += (size_t)sprintf(s->frame + at, "\033[K%s", i + 1 < n ? "\r\n" : "");
	}
	at += (size_t)sprintf(s->frame + at, "\033[J");
	put(s->frame, at);
}

void screen__close(struct screen *s)
{
	if (!s)
		return;
	give_terminal(s);
	if (s->sfd >= 0) {
		struct signalfd_siginfo si;

		/* the signals that came meanwhile are answered: none gets through below */
		while (read(s->sfd, &si, sizeof(si)) == (ssize_t)sizeof(si))
			;
		close(s->sfd);
	}
	if (s->ep >= 0)
		close(s->ep);
	sigprocmask(SIG_SETMASK, &s->oldmask, NULL);
	free(s->frame);
	free(s);
}
