/* bringup inventory: placeholder until its implementation lands. */
#include "cmd.h"

#include <stdio.h>

int cmd_inventory(int argc, char **argv)
{
	(void)argc;
	(void)argv;
	fprintf(stderr, "bringup: inventory: not implemented yet\n");
	return EXIT_FAILED;
}
