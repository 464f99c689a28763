/* SPDX-License-Identifier: MIT */
/* Subcommands of the profil command: each gets argv[0] == its own name. */
#ifndef PROFIL_CMDS_H
#define PROFIL_CMDS_H

int cmd_record(int argc, char **argv);
int cmd_report(int argc, char **argv);
int cmd_export(int argc, char **argv);
int cmd_events(int argc, char **argv);
int cmd_watch(int argc, char **argv);

#endif
