/*
 * The simulator's stand-in tools (the files under sim/tools), embedded at build time by
 * tools/embed.c so that `bringup sim up` can write them out.
 */
#ifndef BRINGUP_SIM_ASSETS_H
#define BRINGUP_SIM_ASSETS_H

#include <stddef.h>

struct sim_asset {
	const char *name;          /* basename under sim/tools/ */
	const unsigned char *data;
	size_t len;
	unsigned mode;             /* permission bits */
};

extern const struct sim_asset sim_assets[];
extern const unsigned sim_nassets;

#endif
