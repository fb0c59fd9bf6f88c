/*
 * modules/gpu-runfile.c: a real runfile's Makeself header (346.35, the
 * fixture) gives its version and architecture; a header that is not a
 * driver runfile's, or lacks them, fails saying what is wrong; a file
 * named for another version is refused; the checksum is sha256sum's.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../../engine/base/strbuf.h"
#include "../../engine/base/xalloc.h"
#include "../../modules/gpu-runfile.h"

#define FIX "tests/fixtures/gpu-driver/runfile_head_346.35_x86_64.txt"

static char *slurp(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	struct strbuf sb = STRBUF_INIT;
	char buf[4096];
	size_t n;

	if (!f)
		fail_msg("%s: cannot open", path);
	while ((n = fread(buf, 1, sizeof(buf), f)) > 0)
		strbuf_add(&sb, buf, n);
	fclose(f);
	*len = sb.len;
	return strbuf_detach(&sb, NULL);
}

static void test_real_header(void **state)
{
	size_t len;
	char *head = slurp(FIX, &len);
	struct gpu_runfile r;
	struct err e = ERR_INIT;

	(void)state;
	assert_int_equal(gpu_runfile_parse("x.run", head, len, &r, &e), 0);
	assert_string_equal(r.version, "346.35");
	assert_string_equal(r.arch, "x86_64");
	assert_null(r.sha256);
	gpu_runfile_release(&r);
	free(head);
}

static void expect_parse_error(const char *head, const char *msg)
{
	struct gpu_runfile r;
	struct err e = ERR_INIT;

	assert_int_equal(gpu_runfile_parse("f.run", head, strlen(head), &r, &e), ERR_PARSE);
	if (!strstr(err_msg(&e), msg))
		fail_msg("expected '%s' in '%s'", msg, err_msg(&e));
	gpu_runfile_release(&r);
	err_clear(&e);
}

static void test_not_a_driver(void **state)
{
	(void)state;
	expect_parse_error("\x7f" "ELF\x02\x01", "f.run is not an NVIDIA driver runfile (no shell "
			   "archive header)");
	/* CUDA's runfile is a Makeself archive too, with another label */
	expect_parse_error("#!/bin/sh\nlabel=\"CUDA Installer\"\nversion_string=12.4.1\n",
			   "its label is 'CUDA Installer'");
	expect_parse_error("#!/bin/sh\nversion_string=1\n", "its label is 'missing'");
	expect_parse_error("#! /bin/sh\nlabel=\"NVIDIA Accelerated Graphics Driver for "
			   "Linux-x86_64 550.90.07\"\nTARGET_ARCH=\"x86_64\"\n",
			   "f.run: no version_string in its header");
	expect_parse_error("#! /bin/sh\nlabel=\"NVIDIA Accelerated Graphics Driver for "
			   "Linux-x86_64 550.90.07\"\nversion_string=550.90.07\n",
			   "f.run: no TARGET_ARCH in its header");
}

static char dir[] = "/tmp/bringup-test-runfile.XXXXXX";

static char *write_copy(const char *name)
{
	size_t len;
	char *head = slurp(FIX, &len), *path = xasprintf("%s/%s", dir, name);
	FILE *f = fopen(path, "wb");

	assert_non_null(f);
	assert_int_equal(fwrite(head, 1, len, f), len);
	fclose(f);
	free(head);
	return path;
}

static void test_inspect(void **state)
{
	char *good = write_copy("NVIDIA-Linux-x86_64-346.35.run");
	char *renamed = write_copy("driver.run");
	char *wrong = write_copy("NVIDIA-Linux-x86_64-550.90.07.run");
	char *cmd = xasprintf("sha256sum <%s", good), line[128] = "";
	FILE *p = popen(cmd, "r");
	struct gpu_runfile r;
	struct err e = ERR_INIT;

	(void)state;
	assert_non_null(p);
	assert_non_null(fgets(line, sizeof(line), p));
	pclose(p);
	line[64] = '\0';
	assert_int_equal(gpu_runfile_inspect(good, &r, &e), 0);
	assert_string_equal(r.version, "346.35");
	assert_string_equal(r.sha256, line);
	assert_true(r.size > 0);
	gpu_runfile_release(&r);
	/* any other name is the admin's choice; the header says what it is */
	assert_int_equal(gpu_runfile_inspect(renamed, &r, &e), 0);
	gpu_runfile_release(&r);
	assert_int_equal(gpu_runfile_inspect(wrong, &r, &e), ERR_PARSE);
	assert_non_null(strstr(err_msg(&e), "NVIDIA-Linux-x86_64-550.90.07.run: its header says "
				"driver 346.35 for x86_64 (NVIDIA-Linux-x86_64-346.35.run), not what "
				"its name says"));
	gpu_runfile_release(&r);
	err_clear(&e);
	free(cmd);
	cmd = xasprintf("%s/absent.run", dir);
	assert_int_equal(gpu_runfile_inspect(cmd, &r, &e), ERR_IO);
	gpu_runfile_release(&r);
	err_clear(&e);
	unlink(good);
	unlink(renamed);
	unlink(wrong);
	free(good);
	free(renamed);
	free(wrong);
	free(cmd);
}

static int setup(void **state)
{
	(void)state;
	return mkdtemp(dir) ? 0 : -1;
}

static int teardown(void **state)
{
	(void)state;
	return rmdir(dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_real_header),
		cmocka_unit_test(test_not_a_driver),
		cmocka_unit_test(test_inspect),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
