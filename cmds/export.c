// SPDX-License-Identifier: MIT
/* profil export --format gmon [-i FILE] [-o OUT]: gmon.out for GNU gprof (utils/gmon.h). */
#include <getopt.h>
#include <stdio.h>
#include <string.h>

#include "cmds.h"
#include "gmon.h"

static void usage(FILE *out)
{
	fprintf(out, "usage: profil export --format gmon [-i FILE] [-o OUT]\n"
		     "  --format gmon     GNU gmon.out, read by 'gprof PROGRAM OUT' (the default)\n"
		     "  -i, --input FILE  profile to read (default profil.data)\n"
		     "  -o, --output OUT  file to write (default gmon.out; replaced atomically)\n");
}

int cmd_export(int argc, char **argv)
{
	static const struct option longopts[] = {
		{"format", required_argument, NULL, 'f'},
		{"input", required_argument, NULL, 'i'},
		{"output", required_argument, NULL, 'o'},
		{"help", no_argument, NULL, 'h'},
		{0},
	};
	const char *input = "profil.data", *output = "gmon.out";
	char why[512];
	int c;

	opterr = 0;
	optind = 1;
	while ((c = getopt_long(argc, argv, ":f:i:o:h", longopts, NULL)) != -1) {
		switch (c) {
		case 'f':
			if (strcmp(optarg, "gmon")) {
				fprintf(stderr, "profil export: unknown format '%s' (only gmon)\n",
					optarg);
				return 2;
			}
			break;
		case 'i':
			input = optarg;
			break;
		case 'o':
			output = optarg;
			break;
		case 'h':
			usage(stdout);
			return 0;
		case ':':
			fprintf(stderr, "profil export: option '%s' needs an argument\n",
				argv[optind - 1]);
			return 2;
		default:
			fprintf(stderr,
				"profil export: unknown option '%s' (try 'profil export --help')\n",
				argv[optind - 1]);
			return 2;
		}
	}
	if (optind < argc) {
		fprintf(stderr, "profil export: unexpected argument '%s'\n", argv[optind]);
		return 2;
	}
	if (gmon_export(input, output, why, sizeof(why)) < 0) {
		fprintf(stderr, "profil export: %s\n", why);
		return 1;
	}
	return 0;
}
