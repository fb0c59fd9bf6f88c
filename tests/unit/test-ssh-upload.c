/*
 * ssh-upload.c without a network: the local file's SHA-256 is read once
 * per process for a given file, size and mtime (not once per host), and
 * read again when the file changes.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../../engine/ssh/ssh.h"

#define SHA_ABC "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
#define SHA_ABD "a52d159f262b2c6ddb724a61840befc36eb30c88877a4030b65cbe86298449c9"

static void put(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	assert_non_null(f);
	assert_int_equal(fputs(text, f) >= 0, 1);
	assert_int_equal(fclose(f), 0);
}

static void set_mtime(const char *path, time_t sec)
{
	struct timespec ts[2] = { { sec, 0 }, { sec, 0 } };

	assert_int_equal(utimensat(AT_FDCWD, path, ts, 0), 0);
}

static void test_hash_is_read_once_per_file_version(void **state)
{
	char dir[] = "/tmp/test-ssh-upload.XXXXXX", path[64], hex[65];
	struct err err = ERR_INIT;

	(void)state;
	assert_non_null(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/f", dir);
	put(path, "abc");
	set_mtime(path, 1000000000);
	assert_int_equal(upload_local_sha256(path, hex, &err), 0);
	assert_string_equal(hex, SHA_ABC);

	/* Same size and mtime: the cached reading, not the bytes, answers
	 * (which is how every host after the first gets it). */
	put(path, "abd");
	set_mtime(path, 1000000000);
	assert_int_equal(upload_local_sha256(path, hex, &err), 0);
	assert_string_equal(hex, SHA_ABC);

	/* Touched: read again. */
	set_mtime(path, 1000000001);
	assert_int_equal(upload_local_sha256(path, hex, &err), 0);
	assert_string_equal(hex, SHA_ABD);

	unlink(path);
	rmdir(dir);
}

static void test_missing_file_names_the_path(void **state)
{
	char hex[65];
	struct err err = ERR_INIT;

	(void)state;
	assert_int_equal(upload_local_sha256("/nonexistent/t", hex, &err), ERR_IO);
	assert_non_null(strstr(err_msg(&err), "/nonexistent/t"));
	err_clear(&err);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_hash_is_read_once_per_file_version),
		cmocka_unit_test(test_missing_file_names_the_path),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
