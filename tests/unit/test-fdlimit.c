/*
 * fdlimit.c: the soft limit of open files is raised to the hard one, open
 * descriptors are counted, and "Too many open files" is recognised.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include <errno.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#include "../../engine/ssh/fdlimit.h"

static void test_soft_limit_is_raised_to_the_hard_one(void **state)
{
	struct rlimit rl, now;
	unsigned got;

	(void)state;
	assert_int_equal(getrlimit(RLIMIT_NOFILE, &rl), 0);
	if (rl.rlim_max != RLIM_INFINITY && rl.rlim_max <= 64)
		skip();
	rl.rlim_cur = 64;
	assert_int_equal(setrlimit(RLIMIT_NOFILE, &rl), 0);
	got = fd_limit_raise();
	assert_int_equal(getrlimit(RLIMIT_NOFILE, &now), 0);
	assert_true(now.rlim_cur > 64);
	assert_true(now.rlim_cur == rl.rlim_max || rl.rlim_max == RLIM_INFINITY ||
		    now.rlim_cur < rl.rlim_max); /* capped at fs.nr_open */
	assert_int_equal(got, (unsigned)now.rlim_cur);
	/* Again: nothing changes. */
	assert_int_equal(fd_limit_raise(), got);
}

static void test_open_descriptors_are_counted(void **state)
{
	unsigned before = fd_count_open();
	int p[2];

	(void)state;
	assert_int_equal(pipe(p), 0);
	assert_int_equal(fd_count_open(), before + 2);
	close(p[0]);
	close(p[1]);
	assert_int_equal(fd_count_open(), before);
}

static void test_emfile_and_enfile_are_recognised(void **state)
{
	(void)state;
	assert_true(fd_limit_hit(strerror(EMFILE)));
	assert_true(fd_limit_hit(strerror(ENFILE)));
	assert_true(fd_limit_hit("Socket create failed: Too many open files"));
	assert_false(fd_limit_hit("Connection refused"));
	assert_false(fd_limit_hit(NULL));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_soft_limit_is_raised_to_the_hard_one),
		cmocka_unit_test(test_open_descriptors_are_counted),
		cmocka_unit_test(test_emfile_and_enfile_are_recognised),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
