/* ssh-knownhosts: the @revoked and @cert-authority lines libssh skips. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../../engine/ssh/ssh-knownhosts.h"

static void test_host_patterns_as_openssh_reads_them(void **state)
{
	(void)state;
	assert_true(kh_host_matches("[127.0.1.1]:2222", "[127.0.1.1]:2222"));
	assert_false(kh_host_matches("[127.0.1.1]:2222", "[127.0.1.10]:2222"));
	assert_true(kh_host_matches("[127.0.1.*]:2222", "[127.0.1.10]:2222"));
	assert_true(kh_host_matches("dgx0?,login", "DGX07"));
	assert_true(kh_host_matches("dgx0?,login", "login"));
	assert_false(kh_host_matches("dgx0?", "dgx10"));
	assert_true(kh_host_matches("*", "anything"));
	/* A matching negation rejects the host whatever else matches. */
	assert_false(kh_host_matches("*.lab,!bad.lab", "bad.lab"));
	assert_true(kh_host_matches("*.lab,!bad.lab", "good.lab"));
	assert_false(kh_host_matches("|1|c2FsdA==|aGFzaA==", "dgx01"));
	assert_false(kh_host_matches("", "dgx01"));
}

/* The recursive definition of a glob, exponential but plainly right: the
 * reference the engine's iterative matcher is compared with. */
static int ref_glob(const char *p, const char *s)
{
	if (!*p)
		return !*s;
	if (*p == '*')
		return ref_glob(p + 1, s) || (*s && ref_glob(p, s + 1));
	return *s && (*p == '?' || *p == *s) && ref_glob(p + 1, s + 1);
}

/* Every pattern and host of up to 6 characters over a small alphabet that
 * exercises stars, '?' and literals alike, against the reference. */
static void test_glob_agrees_with_its_definition(void **state)
{
	static const char abc[] = "ab*?";
	char p[8], s[8];
	unsigned seed = 7;

	(void)state;
	for (int n = 0; n < 200000; n++) {
		size_t pl, sl, i;

		seed = seed * 1103515245u + 12345u;
		pl = (seed >> 8) % 7;
		sl = (seed >> 16) % 7;
		for (i = 0; i < pl; i++) {
			seed = seed * 1103515245u + 12345u;
			p[i] = abc[(seed >> 12) % 4];
		}
		p[pl] = 0;
		for (i = 0; i < sl; i++) {
			seed = seed * 1103515245u + 12345u;
			s[i] = "ab"[(seed >> 12) % 2];
		}
		s[sl] = 0;
		if (!pl || strchr(p, ','))
			continue;
		if (kh_host_matches(p, s) != (ref_glob(p, s) != 0))
			fail_msg("pattern '%s' host '%s': %d, reference %d", p, s,
				 kh_host_matches(p, s), ref_glob(p, s));
	}
}

/* Forty stars against 4,000 characters that almost match: the recursive
 * matcher this replaced took exponential time here (libFuzzer's timeout in
 * CI, stop 31); the iterative one answers at once. */
static void test_glob_many_stars_is_not_exponential(void **state)
{
	size_t hl = 4000;
	char *host = malloc(hl + 1), pat[128];
	size_t n = 0;

	(void)state;
	memset(host, 'a', hl);
	host[hl] = 0;
	for (int i = 0; i < 40; i++) {
		pat[n++] = '*';
		pat[n++] = 'a';
	}
	pat[n++] = 'b';
	pat[n] = 0;
	assert_false(kh_host_matches(pat, host));
	host[hl - 1] = 'b';
	assert_true(kh_host_matches(pat, host));
	free(host);
}

static char *write_tmp(const char *text)
{
	char *path = strdup("/tmp/test-knownhosts.XXXXXX");
	int fd = mkstemp(path);

	assert_true(fd >= 0);
	assert_int_equal(write(fd, text, strlen(text)), (ssize_t)strlen(text));
	close(fd);
	return path;
}

static void test_markers_found_by_key_and_host(void **state)
{
	char *path = write_tmp(
		"# comment\n"
		"[127.0.1.2]:2222 ssh-ed25519 KEYB\n"
		"@cert-authority [127.0.1.9]:2222 ssh-ed25519 CAKEY\n"
		"@revoked * ssh-ed25519 KEYA comment here\n"
		"@cert-authority\t[127.0.1.*]:2222\tssh-ed25519 CAKEY\r\n"
		"@revoked\n");
	struct kh_markers m;
	struct err err = ERR_INIT;

	(void)state;
	assert_int_equal(kh_scan_markers(path, "[127.0.1.1]:2222", "KEYA", &m, &err), 0);
	assert_int_equal(m.revoked_line, 4);
	assert_int_equal(m.ca_line, 5);
	assert_int_equal(kh_scan_markers(path, "[127.0.1.9]:2222", "KEYB", &m, &err), 0);
	assert_int_equal(m.revoked_line, 0);
	assert_int_equal(m.ca_line, 3);
	assert_int_equal(kh_scan_markers(path, "[127.0.2.1]:2222", "KEYB", &m, &err), 0);
	assert_int_equal(m.revoked_line, 0);
	assert_int_equal(m.ca_line, 0);
	unlink(path);
	free(path);
	err_clear(&err);
}

static void test_missing_file_has_no_markers(void **state)
{
	struct kh_markers m = { 7, 7 };
	struct err err = ERR_INIT;

	(void)state;
	assert_int_equal(kh_scan_markers("/nonexistent/known_hosts", "h", "K", &m, &err), 0);
	assert_int_equal(m.revoked_line, 0);
	assert_int_equal(m.ca_line, 0);
	err_clear(&err);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_host_patterns_as_openssh_reads_them),
		cmocka_unit_test(test_glob_agrees_with_its_definition),
		cmocka_unit_test(test_glob_many_stars_is_not_exponential),
		cmocka_unit_test(test_markers_found_by_key_and_host),
		cmocka_unit_test(test_missing_file_has_no_markers),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
