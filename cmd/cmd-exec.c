/* bringup exec: placeholder until its implementation lands. */
#include "cmd.h"

#include <stdio.h>

int cmd_exec(int argc, char **argv)
{
	(void)argc;
	(void)argv;
	fprintf(stderr, "bringup: exec: not implemented yet\n");
	return EXIT_FAILED;
}
