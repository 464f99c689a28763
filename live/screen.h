/* SPDX-License-Identifier: MIT */
/*
 * The terminal of `profil top` (inside live/): raw keys, the alternate
 * screen, the size, and the signals a terminal program must answer
 * (SIGWINCH, SIGTSTP/SIGCONT), read through one descriptor that the
 * recorder polls with its rings.  Whatever ends the program normally
 * (q, Ctrl-C, SIGTERM, SIGHUP: the recorder reads those) goes through
 * screen__close, which restores the terminal as it was.
 */
#ifndef PROFIL_LIVE_SCREEN_H
#define PROFIL_LIVE_SCREEN_H

#include <stddef.h>

struct screen;

/*
 * Take the terminal (in: fd 0, out: fd 1): keys unbuffered and unechoed,
 * the alternate screen, no cursor.  Blocks SIGWINCH, SIGTSTP, SIGCONT (and
 * reads them).  Returns 0 or -errno (not a terminal: -ENOTTY).
 */
int screen__open(struct screen **out);

/* The descriptor to poll: keys and signals (an epoll set). */
int screen__fd(const struct screen *s);

/* What happened since the last call: keys typed (at most max, in keys), resize, stop. */
struct screen_events {
	char keys[32];
	size_t nkeys;
	int resized; /* the size changed: redraw */
	int resumed; /* stopped and continued (Ctrl-Z, fg): redraw */
};

/*
 * Read the keys and signals waiting.  A SIGTSTP gives the terminal back,
 * stops the process, and takes it again when it is continued.
 */
void screen__events(struct screen *s, struct screen_events *ev);

/* The size: rows and columns (at least 1 each). */
void screen__size(const struct screen *s, int *rows, int *cols);

/*
 * Draw a frame: n lines, each cut to the width (non-printable bytes shown
 * as '?'), the rest of the screen cleared.
 */
void screen__draw(struct screen *s, const char *const *lines, size_t n);

/* Give the terminal back as it was (attributes, main screen, cursor, signals). */
void screen__close(struct screen *s);

#endif /* PROFIL_LIVE_SCREEN_H */
