/* SPDX-License-Identifier: MIT */
/* Subcommands of the profil command: each gets argv[0] == its own name. */
#ifndef PROFIL_CMDS_H
#define PROFIL_CMDS_H

int cmd_record(int argc, char **argv);
int cmd_report(int argc, char **argv);
int cmd_export(int argc, char **argv);
int cmd_events(int argc, char **argv);
int cmd_watch(int argc, char **argv);
int cmd_diff(int argc, char **argv);
int cmd_top(int argc, char **argv);

/*
 * Show the manual page PAGE(SECTION) this build installed (or formatted, in
 * the build tree) with man(1).  0 when man showed it; -ENOENT when there is
 * no such page; another -errno when man could not run or failed.
 */
int manpage__show(const char *page, int section);

#endif
