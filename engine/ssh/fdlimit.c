/*
 * Open-file limit: raise it, count against it, recognise hitting it.
 */
#include "fdlimit.h"

#include <dirent.h>
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>

unsigned fd_limit_raise(void)
{
	struct rlimit rl;
	rlim_t want, nr_open = 1048576;
	FILE *f;

	if (getrlimit(RLIMIT_NOFILE, &rl))
		return 1024;
	/* RLIM_INFINITY as a hard limit is refused for the soft one beyond
	 * fs.nr_open: take the kernel's ceiling instead. */
	f = fopen("/proc/sys/fs/nr_open", "r");
	if (f) {
		unsigned long long v;
		if (fscanf(f, "%llu", &v) == 1 && v > 0)
			nr_open = (rlim_t)v;
		fclose(f);
	}
	want = rl.rlim_max == RLIM_INFINITY || rl.rlim_max > nr_open ? nr_open : rl.rlim_max;
	if (rl.rlim_cur == RLIM_INFINITY || rl.rlim_cur >= want)
		return rl.rlim_cur > (rlim_t)0x7fffffff ? 0x7fffffffu : (unsigned)rl.rlim_cur;
	rl.rlim_cur = want;
	if (setrlimit(RLIMIT_NOFILE, &rl) && getrlimit(RLIMIT_NOFILE, &rl))
		return 1024;
	return rl.rlim_cur > (rlim_t)0x7fffffff ? 0x7fffffffu : (unsigned)rl.rlim_cur;
}

unsigned fd_count_open(void)
{
	DIR *d = opendir("/proc/self/fd");
	struct dirent *e;
	unsigned n = 0;

	if (!d)
		return 16;
	while ((e = readdir(d)))
		if (e->d_name[0] != '.')
			n++;
	closedir(d);
	return n ? n - 1 : 0; /* not the directory's own descriptor */
}

bool fd_limit_hit(const char *msg)
{
	/* strerror(EMFILE), and ENFILE's "... in system" contains it. */
	return msg && strstr(msg, "Too many open files");
}
