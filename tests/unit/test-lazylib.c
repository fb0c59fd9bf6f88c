/*
 * engine/base/lazy-curl.c and lazy-archive.c: the libraries load on first
 * use, and every call reaches them with its arguments intact, the variadic
 * curl_easy_setopt above all (a long, an object pointer, a function
 * pointer, a curl_off_t, a blob), proven by what a file:// transfer does
 * with them.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <archive.h>
#include <archive_entry.h>
#include <curl/curl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../../engine/base/lazylib.h"
#include "../../engine/base/strbuf.h"
#include "../../engine/base/xalloc.h"

static size_t collect(char *p, size_t size, size_t n, void *arg)
{
	strbuf_add(arg, p, size * n);
	return size * n;
}

static void test_curl_arguments_reach_libcurl(void **state)
{
	char path[] = "/tmp/test-lazylib-XXXXXX";
	struct strbuf got = STRBUF_INIT;
	struct err e = ERR_INIT;
	struct curl_blob blob = { "not a certificate", 17, CURL_BLOB_COPY };
	curl_off_t size = -1;
	long code = -1;
	int fd = mkstemp(path);
	CURL *c;

	(void)state;
	assert_true(fd >= 0);
	assert_int_equal(write(fd, "0123456789", 10), 10);
	close(fd);
	assert_int_equal(lazylib_curl(&e), 0);
	assert_int_equal(curl_global_init(CURL_GLOBAL_DEFAULT), CURLE_OK);
	assert_non_null(c = curl_easy_init());
	char *url = xasprintf("file://%s", path);

	assert_int_equal(curl_easy_setopt(c, CURLOPT_URL, url), CURLE_OK);               /* pointer */
	assert_int_equal(curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, collect), CURLE_OK);  /* function */
	assert_int_equal(curl_easy_setopt(c, CURLOPT_WRITEDATA, &got), CURLE_OK);
	assert_int_equal(curl_easy_setopt(c, CURLOPT_RESUME_FROM_LARGE, (curl_off_t)4), CURLE_OK);
	assert_int_equal(curl_easy_setopt(c, CURLOPT_TIMEOUT, 10L), CURLE_OK);           /* long */
	/* a blob is taken (copied) whatever it holds; it is used only for TLS */
	assert_int_equal(curl_easy_setopt(c, CURLOPT_CAINFO_BLOB, &blob), CURLE_OK);
	assert_int_equal(curl_easy_perform(c), CURLE_OK);
	/* resumed at 4: the off_t arrived whole */
	assert_string_equal(got.buf, "456789");
	assert_int_equal(curl_easy_getinfo(c, CURLINFO_SIZE_DOWNLOAD_T, &size), CURLE_OK);
	assert_int_equal(size, 6);
	assert_int_equal(curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, &code), CURLE_OK);
	assert_int_equal(code, 0);
	/* a long option whose value libcurl checks: a negative timeout is refused */
	assert_int_equal(curl_easy_setopt(c, CURLOPT_TIMEOUT, -1L), CURLE_BAD_FUNCTION_ARGUMENT);
	assert_string_equal(curl_easy_strerror(CURLE_OK), "No error");
	struct curl_slist *l = curl_slist_append(NULL, "Accept: application/json");

	assert_non_null(l);
	assert_string_equal(l->data, "Accept: application/json");
	curl_slist_free_all(l);
	curl_easy_reset(c);
	curl_easy_cleanup(c);
	free(url);
	strbuf_release(&got);
	unlink(path);
}

static void test_archive_round_trip(void **state)
{
	char path[] = "/tmp/test-lazylib-XXXXXX";
	struct err e = ERR_INIT;
	struct archive *a;
	struct archive_entry *ae;
	char buf[16] = "";
	int fd = mkstemp(path);

	(void)state;
	assert_true(fd >= 0);
	close(fd);
	assert_int_equal(lazylib_archive(&e), 0);
	assert_non_null(a = archive_write_new());
	assert_int_equal(archive_write_add_filter_gzip(a), ARCHIVE_OK);
	assert_int_equal(archive_write_set_format_pax_restricted(a), ARCHIVE_OK);
	assert_int_equal(archive_write_open_filename(a, path), ARCHIVE_OK);
	assert_non_null(ae = archive_entry_new());
	archive_entry_set_pathname(ae, "top/hello");
	archive_entry_set_filetype(ae, AE_IFREG);
	archive_entry_set_perm(ae, 0644);
	archive_entry_set_size(ae, 5);
	assert_int_equal(archive_write_header(a, ae), ARCHIVE_OK);
	assert_int_equal(archive_write_data(a, "hello", 5), 5);
	archive_entry_free(ae);
	assert_int_equal(archive_write_close(a), ARCHIVE_OK);
	assert_int_equal(archive_write_free(a), ARCHIVE_OK);

	assert_non_null(a = archive_read_new());
	archive_read_support_filter_all(a);
	archive_read_support_format_all(a);
	assert_int_equal(archive_read_open_filename(a, path, 4096), ARCHIVE_OK);
	assert_int_equal(archive_read_next_header(a, &ae), ARCHIVE_OK);
	assert_string_equal(archive_entry_pathname(ae), "top/hello");
	assert_int_equal(archive_read_data(a, buf, sizeof(buf) - 1), 5);
	assert_string_equal(buf, "hello");
	assert_int_equal(archive_read_next_header(a, &ae), ARCHIVE_EOF);
	assert_int_equal(archive_read_free(a), ARCHIVE_OK);
	/* a file that is no archive: the library's own error string */
	assert_non_null(a = archive_read_new());
	archive_read_support_format_tar(a);
	assert_int_not_equal(archive_read_open_filename(a, "/nonexistent/x.tgz", 4096), ARCHIVE_OK);
	assert_non_null(strstr(archive_error_string(a), "/nonexistent/x.tgz"));
	archive_read_free(a);
	unlink(path);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_curl_arguments_reach_libcurl),
		cmocka_unit_test(test_archive_round_trip),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
