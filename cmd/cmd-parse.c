/* bringup parse: placeholder until its implementation lands. */
#include "cmd.h"

#include <stdio.h>

int cmd_parse(int argc, char **argv)
{
	(void)argc;
	(void)argv;
	fprintf(stderr, "bringup: parse: not implemented yet\n");
	return EXIT_FAILED;
}
