/*
 * tmpfile.c: the file lives in $TMPDIR, has no name there from the start,
 * is readable by its owner only, gives back what was written byte for byte
 * (into an empty buffer of exactly that size, or after what a buffer
 * holds; a read past the end fails), and says so when the directory cannot take it.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../../engine/base/tmpfile.h"

static char dir[] = "/tmp/test-tmpfile.XXXXXX";

static int setup(void **state)
{
	(void)state;
	if (!mkdtemp(dir))
		return -1;
	return setenv("TMPDIR", dir, 1);
}

static int teardown(void **state)
{
	(void)state;
	unsetenv("TMPDIR");
	return rmdir(dir);
}

static size_t entries(const char *path)
{
	DIR *d = opendir(path);
	struct dirent *e;
	size_t n = 0;

	assert_non_null(d);
	while ((e = readdir(d)))
		n += strcmp(e->d_name, ".") && strcmp(e->d_name, "..");
	closedir(d);
	return n;
}

static void test_file_is_unnamed_private_and_gives_back_every_byte(void **state)
{
	struct strbuf sb = STRBUF_INIT;
	size_t total = 0;
	struct stat st;
	char chunk[5000];
	int fd = tmpfile_open();

	(void)state;
	assert_true(fd >= 0);
	assert_string_equal(tmpfile_dir(), dir);
	assert_int_equal(entries(dir), 0);
	assert_int_equal(fstat(fd, &st), 0);
	assert_int_equal(st.st_nlink, 0);
	assert_int_equal(st.st_mode & 0777, 0600);
	for (int i = 0; i < 50; i++) {
		memset(chunk, 'a' + i % 26, sizeof(chunk));
		chunk[0] = '\0'; /* binary safe */
		assert_int_equal(tmpfile_write(fd, chunk, sizeof(chunk) - (size_t)i, (off_t)total), 0);
		total += sizeof(chunk) - (size_t)i;
	}
	assert_int_equal(tmpfile_read_all(fd, &sb), 0);
	assert_int_equal(sb.len, total);
	assert_true(sb.alloc == total + 1); /* no doubling slack */
	assert_int_equal(sb.buf[sb.len], '\0');
	assert_int_equal(sb.buf[0], '\0');
	assert_int_equal(sb.buf[1], 'a');
	assert_int_equal(sb.buf[total - 1], 'a' + 49 % 26);
	strbuf_release(&sb);
	close(fd);
}

static void test_read_all_appends_to_what_the_buffer_holds(void **state)
{
	struct strbuf sb = STRBUF_INIT;
	int fd = tmpfile_open();

	(void)state;
	assert_true(fd >= 0);
	assert_int_equal(tmpfile_write(fd, "world", 5, 0), 0);
	strbuf_addstr(&sb, "hello ");
	assert_int_equal(tmpfile_read_all(fd, &sb), 0);
	assert_string_equal(sb.buf, "hello world");
	/* a read past the end is an error, not a short buffer */
	{
		char two[3] = "";

		assert_int_equal(tmpfile_read(fd, two, 2, 3), 0);
		assert_string_equal(two, "ld");
		errno = 0;
		assert_int_equal(tmpfile_read(fd, two, 2, 4), -1);
		assert_int_equal(errno, EIO);
	}
	strbuf_release(&sb);
	close(fd);
}

static void test_missing_directory_is_an_error(void **state)
{
	(void)state;
	setenv("TMPDIR", "/nonexistent/test-tmpfile", 1);
	errno = 0;
	assert_int_equal(tmpfile_open(), -1);
	assert_int_not_equal(errno, 0);
	setenv("TMPDIR", "", 1);
	assert_string_equal(tmpfile_dir(), "/tmp"); /* empty is unset */
	setenv("TMPDIR", dir, 1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_file_is_unnamed_private_and_gives_back_every_byte),
		cmocka_unit_test(test_read_all_appends_to_what_the_buffer_holds),
		cmocka_unit_test(test_missing_directory_is_an_error),
	};
	return cmocka_run_group_tests_name("tmpfile", tests, setup, teardown);
}
