/* bringup sim: placeholder until its implementation lands. */
#include "cmd.h"

#include <stdio.h>

int cmd_sim(int argc, char **argv)
{
	(void)argc;
	(void)argv;
	fprintf(stderr, "bringup: sim: not implemented yet\n");
	return EXIT_FAILED;
}
